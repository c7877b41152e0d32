"""Writes for Know in class: a new Know session, and keeping its questions as a question bank.

Playing itself goes through ``games.services.session_act`` like every game.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from content.models import KnowQuestion
from content.permissions import runs_for
from games import services
from games.engines import know
from games.models import GameSession

#: The languages a kept question may be in (content.models.LANGUAGES).
LANGUAGE_CODES = ("pl", "en", "cs", "de")


def know_session_create(
    *,
    facilitator: Any,
    variant: str,
    cards_per_team: int,
    source: str,
    resolve_immediately: bool,
    facilitator_sees_mapping: bool,
    allow_guests: bool,
    language: str = "pl",
) -> GameSession:
    """A Know session in the lobby; every device that joins is one team (its team device).

    The teams are made when the game starts (``games.services.session_start`` gives the
    engine the joined players; the engine makes each a team of one). ``language`` is the
    language of the questions, for the question bank; it stays on the server.
    """
    if variant not in know.VARIANTS:
        raise services.SessionError("unknown_variant", _("Know has no such way of marking."))
    if language not in LANGUAGE_CODES:
        raise services.SessionError("invalid_setup", _("Choose the language of the questions."))
    setup = {
        "cards_per_team": cards_per_team,
        "source": " ".join(source.split()),
        "facilitator_sees_mapping": facilitator_sees_mapping,
        "resolve_immediately": resolve_immediately,
    }
    return services.session_create(
        facilitator=facilitator,
        game="know",
        variant=variant,
        setup=setup,
        allow_guests=allow_guests,
        assets={"language": language},
    )


def _best_answers(state: know.State) -> dict[int, list[str]]:
    """Each question's best-marked answers, in the order they were revealed, from closed rounds."""
    best: dict[int, list[str]] = {}
    for deck in state.rounds:
        if deck.status != know.RESOLVED:
            continue
        texts = {answer.id: answer.text for answer in deck.answers}
        for mark in deck.marks:
            answers = [texts[answer_id] for answer_id in mark.best_answers if answer_id in texts]
            # Same answer from two teams: kept once.
            best[mark.question_number] = list(dict.fromkeys(answers))
    return best


def know_questions_keep(*, session: GameSession, by: Any) -> tuple[int, int]:
    """The facilitator keeps a finished Know game's questions in their question bank.

    Every written question becomes a ``content.KnowQuestion`` (a draft owned by ``by``)
    with its best-marked answers; a question nobody won keeps an empty list for the
    teacher to fill in. Nothing about teams is copied. Keeping twice adds only what is
    missing. Returns (kept now, kept before).
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not runs_for(by, session.facilitator_id):
            raise services.SessionError(
                "not_allowed", _("Only the teacher who ran this game keeps its questions.")
            )
        if session.game != "know":
            raise services.SessionError("wrong_game", _("Only a Know game has questions to keep."))
        if session.status != GameSession.Status.FINISHED or session.state is None:
            raise services.SessionError("not_finished", _("Questions are kept once the game is over."))
        state = know.state_from_dict(session.state)
        best = _best_answers(state)
        existing = set(
            KnowQuestion.objects.filter(created_from=session).values_list("question_number", flat=True)
        )
        language = session.assets.get("language", "pl")
        new = [
            KnowQuestion(
                owner=by,
                text=card.text,
                answers=best.get(card.number, []),
                source=state.source[:300],
                language=language if language in LANGUAGE_CODES else "pl",
                created_from=session,
                question_number=card.number,
            )
            for card in state.questions
            if card.text and card.number not in existing
        ]
        KnowQuestion.objects.bulk_create(new)
        return len(new), len(existing)
