"""Writes for the live quiz: a new live session from a built quiz, its results as attempts.

Playing goes through ``games.services.session_act`` like every game; the engine is
``games.engines.quiz_live``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from content.models import BuildState
from content.permissions import runs_for
from games import services
from games.engines import quiz_live
from games.models import GameSession, Participant
from games.quiz import services as quiz_services
from games.quiz.models import Quiz, QuizAttempt, QuizItem


def quiz_live_session_create(
    *,
    facilitator: Any,
    quiz: Quiz,
    time: str = quiz_live.TIME_OFF,
    seconds: int | None = None,
    team_count: int = 0,
    allow_guests: bool = False,
) -> GameSession:
    """A live quiz of ``quiz`` in the lobby; students join by code from their phones.

    ``facilitator`` is the quiz's owner or a co-teacher of the owner's classes
    (``content.permissions.runs_for``); the quiz is built and published, since its results
    become attempts.  ``team_count`` 0 or 1: everyone answers alone; 2 or more: the players
    who joined are dealt into that many teams when the quiz starts.  The items (their keys
    included) stay on the server in the setup; the assets link the session to the quiz.
    """
    if not runs_for(facilitator, quiz.owner_id):
        raise services.SessionError("not_allowed", _("Only the quiz's teacher can run it live."))
    if quiz.state != BuildState.DONE or quiz.status != Quiz.Status.PUBLISHED:
        raise services.SessionError("not_published", _("Publish the quiz before running it live."))
    if quiz.student_id is not None:
        raise services.SessionError("not_for_class", _("A quiz built for one student is not run live."))
    if time not in quiz_live.TIME_RULES:
        raise services.SessionError("invalid_setup", _("Choose whether time breaks ties."))
    if seconds is not None and not quiz_live.MIN_SECONDS <= seconds <= quiz_live.MAX_SECONDS:
        raise services.SessionError(
            "invalid_setup",
            _("A question stays open for %(low)d to %(high)d seconds.")
            % {"low": quiz_live.MIN_SECONDS, "high": quiz_live.MAX_SECONDS},
        )
    items = list(QuizItem.objects.filter(quiz=quiz).order_by("position"))
    if not items:
        raise services.SessionError("empty", _("This quiz has no items."))
    if len(items) > quiz_live.MAX_ITEMS:
        raise services.SessionError(
            "too_long", _("A live quiz asks at most %(n)d items.") % {"n": quiz_live.MAX_ITEMS}
        )
    if not 0 <= team_count <= 30:
        raise services.SessionError("invalid_setup", _("Choose from 2 to 30 teams, or none."))
    setup: dict[str, Any] = {"items": [item.as_engine_item().to_dict() for item in items], "time": time}
    if seconds is not None:
        setup["seconds"] = seconds
    if team_count >= 2:
        setup["team_count"] = team_count
    return services.session_create(
        facilitator=facilitator,
        game="quiz_live",
        variant="standard",
        setup=setup,
        allow_guests=allow_guests,
        assets={"quiz": quiz.pk, "items": [item.pk for item in items]},
    )


def quiz_live_attempts_record(*, session: GameSession) -> list[QuizAttempt]:
    """The finished live quiz becomes one graded attempt per student who played it.

    Called in the transaction that ends the game (``games.services``, the end's effects),
    with the session locked.  Every student with an account in a team gets an attempt at
    the quiz holding their team's answers (the team's latest answer to each question
    asked; a question never asked is not answered), graded like any attempt, so homework
    grades, LMS passback and reviews follow (``games.quiz.services.attempts_record``, the
    same as ``attempt_submit`` for each student, in a bounded number of statements).
    A student counts once however often their phone reconnected: one participant per
    account, and the attempts made are remembered in the session's assets, so recording
    again adds nothing.  Guests play but have no account to be graded in.
    """
    if session.game != "quiz_live" or session.state is None:
        return []
    quiz = Quiz.objects.filter(pk=session.assets.get("quiz")).first()
    if quiz is None:
        return []  # the quiz was deleted while it ran: nothing to grade into
    state = quiz_live.state_from_dict(session.state)
    item_pks = list(session.assets.get("items") or [])
    made: dict[str, int] = dict(session.assets.get("attempts") or {})
    team_of = {player: team.id for team in state.teams for player in team.players}
    students = (
        session.participants.filter(role=Participant.Role.PLAYER, user__isnull=False)
        .select_related("user")
        .order_by("joined_at", "id")
    )
    answers_of: dict[str, tuple[Any, dict[int, Any]]] = {}
    for participant in students:
        key = str(participant.user_id)
        team = team_of.get(participant.player_id)
        if team is None or key in made or key in answers_of:
            continue
        answers = {}
        for asked in state.asked:
            given = next((answer for answer in asked.answers if answer.team == team), None)
            if given is not None and asked.number <= len(item_pks):
                answers[item_pks[asked.number - 1]] = dict(given.answer)
        answers_of[key] = (participant.user, answers)
    try:
        # The whole class at once: the statements do not grow with the answers, so the
        # teacher's "end" does not keep the class waiting.
        attempts = quiz_services.attempts_record(quiz=quiz, answers_of=list(answers_of.values()))
    except quiz_services.QuizError:
        attempts = []  # the quiz is no longer open (unpublished, deleted items): no grade
    for key, attempt in zip(answers_of, attempts, strict=False):
        made[key] = attempt.pk
    session.assets = {**session.assets, "attempts": made}
    session.save(update_fields=["assets", "updated"])
    return attempts
