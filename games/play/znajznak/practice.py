"""Practice alone: a student's ZnajZnak duel against a simulated opponent or the clock.

The teacher sets a practice (a deck, the opponent's speed and right names); each start is
a session of kind "practice" with the student as p1 and a bot as p2, which acts only
when the student's page asks (``practice_bot_act``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import classroom, selectors, services
from games.engines import engine_for, znajznak
from games.engines.base import rng_for
from games.lobby import code_claim, display_name, unique_name
from games.models import (
    GameSession,
    Participant,
    PracticeAssignment,
    PracticeRun,
    validate_cards_per_player,
)
from games.signals import practice_run_finished

from .services import duel_cards_check, znajznak_setup_from_deck

#: The simulated opponent of self-practice when the teacher set nothing.
BOT_DEFAULT_SECONDS = Decimal("8")
BOT_DEFAULT_ACCURACY = 80


#: What a practice's code opens in the code space (``games.lobby``).
CODE_KIND = "practice"


def practice_assignment_create(
    *,
    owner: Any,
    title: str,
    deck: Any,
    card_set: str = "",
    mode: str = PracticeAssignment.Mode.EITHER,
    cards_per_player: int = znajznak.DEFAULT_CARDS_PER_PLAYER,
    bot_seconds: Decimal | float | int = BOT_DEFAULT_SECONDS,
    bot_accuracy: int = BOT_DEFAULT_ACCURACY,
    timer: int | None = None,
) -> PracticeAssignment:
    """Practice for students alone, with the simulated opponent's speed the teacher sets.

    Every way of setting one comes here (the practice page, homework, the LMS's activity
    picker), so the engine's rule for cards per player is checked here, with the message the
    forms give (``validate_cards_per_player``).
    """
    if not getattr(owner, "can_author", False):
        raise services.SessionError("not_allowed", _("Only teachers set practice."))
    try:
        validate_cards_per_player(cards_per_player)
    except ValidationError as error:
        raise services.SessionError("invalid_setup", error.messages[0]) from None
    card_set = card_set.strip().upper()
    setup, _assets = znajznak_setup_from_deck(deck=deck, card_set=card_set)  # refuses a deck that cannot deal
    duel_cards_check(len(setup["cards"]), card_set)
    if not 0 <= int(bot_accuracy) <= 100:
        raise services.SessionError("invalid_setup", _("The opponent's right names are 0 to 100 %."))
    if Decimal(str(bot_seconds)) <= 0:
        raise services.SessionError("invalid_setup", _("The opponent needs some time to find a symbol."))
    with transaction.atomic():
        assignment = PracticeAssignment.objects.create(
            owner=owner,
            title=title.strip()[:120] or deck.name[:120],
            deck=deck,
            card_set=card_set,
            mode=mode,
            cards_per_player=cards_per_player,
            bot_seconds=Decimal(str(bot_seconds)),
            bot_accuracy=int(bot_accuracy),
            timer=timer,
        )
        code_claim(kind=CODE_KIND, obj=assignment, error=services.SessionError)
    return assignment


def practice_start(*, assignment: PracticeAssignment, student: Any, mode: str | None = None) -> PracticeRun:
    """A new practice game of ``student``: a duel against the simulated opponent or the clock.

    Against the clock the opponent never looks for symbols: the student plays through
    their own cards, and the time it took is the result.
    """
    if student is None or not getattr(student, "is_authenticated", False):
        raise services.SessionError("not_allowed", _("Sign in to practise: the result is kept for you."))
    if assignment.mode != PracticeAssignment.Mode.EITHER:
        mode = assignment.mode
    if mode not in PracticeRun.Mode.values:
        raise services.SessionError("invalid_setup", _("Choose the clock or the simulated opponent."))
    setup, assets = znajznak_setup_from_deck(
        deck=assignment.deck, card_set=assignment.card_set, timer=assignment.timer
    )
    setup["cards_per_player"] = classroom.hand_size(len(setup["cards"]), assignment.cards_per_player)
    with transaction.atomic():
        session = services.session_create(
            facilitator=assignment.owner,
            game="znajznak",
            variant="duel",
            setup=setup,
            assets=assets,
            kind=GameSession.Kind.PRACTICE,
        )
        taken = {name.casefold() for name in session.participants.values_list("nickname", flat=True)}
        name = unique_name(display_name(student), taken)
        taken.add(name.casefold())
        opponent = unique_name(
            _("The clock") if mode == PracticeRun.Mode.CLOCK else _("Simulated opponent"), taken
        )
        Participant.objects.create(
            session=session, user=student, nickname=name, role=Participant.Role.PLAYER, player_id="p1"
        )
        Participant.objects.create(
            session=session, nickname=opponent, role=Participant.Role.BOT, player_id="p2"
        )
        session.setup = {**setup, "players": [{"id": "p1", "name": name}, {"id": "p2", "name": opponent}]}
        session.save(update_fields=["setup"])
        session = services.session_start(session=session, by=assignment.owner)
        return PracticeRun.objects.create(
            session=session,
            assignment=assignment,
            student=student,
            mode=mode,
            bot_seconds=assignment.bot_seconds,
            bot_accuracy=assignment.bot_accuracy,
        )


@dataclass(frozen=True)
class BotTurn:
    """What asking the opponent for its move gave: ``acted``, or why not and how long to wait."""

    acted: bool
    reason: str = ""
    wait: float | None = None


def practice_bot_act(*, session_id: int, version: int, now: Any = None) -> BotTurn:
    """The simulated opponent's move, if its time has come and the game is still at ``version``.

    The student's page asks for it after the delay the payload said; the server
    checks both the version (the student may have acted meanwhile) and its own clock,
    so nothing runs in the background and a page cannot make the opponent faster.
    The opponent finds the common symbol after ``bot_seconds`` and names it right in
    ``bot_accuracy`` % of its turns (drawn from the session's seed), else says "I don't
    know". Against the clock it only ends the game when the time is up and lifts the
    penalty of a wrong STOP (by a STOP of its own on a symbol that is not common, which
    note a allows and which penalises the clock, who never plays).
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session_id)
        run = PracticeRun.objects.filter(session=session).first()
        if run is None:
            raise services.SessionError("not_practice", _("Only practice games have a simulated opponent."))
        if session.status == GameSession.Status.FINISHED:
            return BotTurn(False, "over")
        if session.version != version:
            return BotTurn(False, "stale")
        now = now or timezone.now()
        due = selectors.practice_due(run=run, session=session, now=now)
        if due is None:
            return BotTurn(False, "waiting")
        what, wait = due
        if wait > 0:
            return BotTurn(False, "not_yet", wait)
        if session.state is None:  # not dealt yet
            return BotTurn(False, "waiting")
        engine = engine_for(session.game)
        state = znajznak.state_from_dict(session.state)  # a practice is a ZnajZnak duel
        if what == "time_up":
            services.session_apply_locked(session, engine, None, {"type": "time_up"})
        elif what == "lift_penalty":
            own, other = znajznak.compared_cards(state, "p2")
            symbol = next(s for s in state.cards[own] if s not in state.cards[other])
            services.session_apply_locked(session, engine, "p2", {"type": "stop", "symbol": symbol})
        else:
            symbol = znajznak.common_symbol(state, "p2")
            after = services.session_apply_locked(session, engine, "p2", {"type": "stop", "symbol": symbol})
            if not engine.is_terminal(after):
                knows = rng_for(session.seed, "bot", session.version).random() * 100 < run.bot_accuracy
                naming = (
                    {"type": "name", "text": state.names[symbol].name} if knows else {"type": "dont_know"}
                )
                services.session_apply_locked(session, engine, "p2", naming)
        return BotTurn(True)


def practice_result_record(*, session: GameSession, state: Any) -> None:
    """A finished practice game's result, kept for the student (registered in
    ``GamesConfig.ready`` as the end of every practice session)."""
    run = PracticeRun.objects.filter(session=session).first()
    if run is None or run.finished is not None:
        return
    outcome = engine_for(session.game).outcome(state) or {}
    mine = [naming for naming in getattr(state, "namings", ()) if naming.player == "p1"]
    run.finished = session.finished_at or timezone.now()
    run.won = outcome.get("winner") == "p1"
    run.seconds = max(0, round((run.finished - run.started).total_seconds()))
    run.named_right = sum(naming.correct for naming in mine)
    run.named_wrong = len(mine) - run.named_right
    run.reason = str(outcome.get("reason") or "")
    run.save(update_fields=["finished", "won", "seconds", "named_right", "named_wrong", "reason"])
    practice_run_finished.send(sender=PracticeRun, run=run)  # homework: the class's gradebook follows
