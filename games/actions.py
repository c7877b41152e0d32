"""What one action of a running session stores: decided once, for both of its writers.

An action is stored by the locked service (``services.session_apply_action``: the row
locked, the ORM) or by the fast path (``live.act``: one SQL statement that bumps the
version only if it is still the one its table holds). They differ only in **how** they
write; **what** they write is :func:`action_stored`'s answer, from the session, the
engine's state before the action and the cleaned action: the new state, the action
record (index, player, action with the server's clock), the namings, whether the game
ends and whether that end has effects that only the locked service may run.

Nothing here reads or writes the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from games.engines.base import Engine, IllegalAction, State

from .models import GameSession, NamingRecord, Participant

#: Games whose actions carry the server's wall clock (``at``): Activity's hourglass, the times
#: of the live quiz's questions and answers.
CLOCKED_GAMES = frozenset({"activity", "quiz_live"})


@dataclass(frozen=True)
class Stored:
    """What one action stores, for either writer to persist."""

    state: State  # the engine's state after the action
    index: int  # the action record's index: the version it was applied on
    player_id: str  # the action record's player ("" for the table itself)
    action: dict[str, Any]  # the action record's action, with the server's clock where it has one
    namings: list[NamingRecord]  # unsaved; ``symbol_id`` not yet checked against the library
    ended: bool  # the action ends the game
    #: The end stores more than the status (``end_has_effects``): only the locked service may.
    end_effects: bool
    at: datetime  # when: the rows' ``created``, and ``finished_at`` of an end

    @property
    def version(self) -> int:
        """The session's version once stored."""
        return self.index + 1

    def session_update(self, session: GameSession) -> list[str]:
        """Set on ``session`` the fields this action changes besides its state; their names."""
        session.version = self.version
        if not self.ended:
            return ["version", "updated"]
        session.status, session.finished_at = GameSession.Status.FINISHED, self.at
        return ["version", "updated", "status", "finished_at"]


def action_stored(
    session: GameSession,
    engine: Engine,
    before: State | None,
    player_id: str | None,
    action: dict[str, Any],
    *,
    participants: list[Participant],
    from_client: bool,
) -> Stored:
    """What ``action`` (cleaned, ``services.action_clean``) by ``player_id`` stores when
    applied to ``before``, the engine's state at ``session.version``.

    ``IllegalAction``/``InvalidAction`` (a refusal) come out unchanged: nothing to store.
    ``from_client``: the action came from a browser, so a clock in it is the server's to
    set. ``participants``: the session's, for the namings' rows.
    """
    if session.status == GameSession.Status.LOBBY:
        raise IllegalAction(_("The game has not started yet."))
    if session.status == GameSession.Status.FINISHED:
        raise IllegalAction(_("The game is over."))
    if from_client:
        action = clock_stamp(session.game, action)
    state = engine.apply_action(before, player_id, action)
    ended = bool(engine.is_terminal(state))
    return Stored(
        state=state,
        index=session.version,
        player_id=player_id or "",
        action=action,
        namings=naming_rows(session, before, state, action_index=session.version, participants=participants),
        ended=ended,
        end_effects=ended and end_has_effects(session),
        at=timezone.now(),
    )


def end_has_effects(session: GameSession) -> bool:
    """Whether the end of ``session`` stores more than its status and last action: a
    practice's result, a Knowledge? game's grade where it was set as homework, a live
    quiz's attempts (whatever its kind or its game registered)."""
    return session.kind in KIND_END_EFFECTS or session.game in END_EFFECTS


#: What the end of a game does beyond its session, by game: a record, the students' grades.
#: Each game's own services register theirs (``games.apps.GamesConfig.ready``), so neither
#: this module nor ``games/services.py`` (which runs them) names a game.
END_EFFECTS: dict[str, Callable[..., Any]] = {}
#: What the end of a session of a kind does first, by kind: a practice's result, kept for
#: the student (``games/play/znajznak/practice.py``).
KIND_END_EFFECTS: dict[str, Callable[..., Any]] = {}


def end_effect_register(game: str, effect: Callable[..., Any]) -> None:
    """``effect(session=...)`` runs in the transaction that ends each ``game`` session."""
    END_EFFECTS[game] = effect


def kind_end_effect_register(kind: str, effect: Callable[..., Any]) -> None:
    """``effect(session=..., state=...)`` runs in the transaction that ends each session of
    ``kind`` (``GameSession.Kind``), before its game's effect."""
    KIND_END_EFFECTS[kind] = effect


def clock_stamp(game: str, action: dict[str, Any]) -> dict[str, Any]:
    """A browser's action gets the server's clock, never its own (a skewed hourglass)."""
    action = {key: value for key, value in action.items() if key != "at"}
    if game in CLOCKED_GAMES:
        action["at"] = round(time.time(), 3)
    return action


def naming_rows(
    session: GameSession,
    before: State | None,
    after: State,
    *,
    action_index: int,
    participants: list[Participant],
) -> list[NamingRecord]:
    """The unsaved rows of the namings ``after`` has beyond ``before`` (the engine's
    ``namings`` only grow), one per student's naming.

    Bots' namings are not a student's and get no row. ``symbol_id`` is the deck's link to
    the library, not yet checked against it (each writer does, in its own statement).
    """
    new = list(getattr(after, "namings", ()))[len(getattr(before, "namings", ())) :]
    if not new:
        return []
    people = {p.player_id: p for p in participants if p.player_id and p.role != Participant.Role.BOT}
    symbols = session.assets.get("symbols", {})
    names = session.setup.get("names", {})
    rows = []
    for naming in new:
        participant = people.get(naming.player)
        if participant is None:
            continue
        symbol_id = symbols.get(naming.symbol)
        key = naming.symbol
        rows.append(
            NamingRecord(
                session=session,
                participant=participant,
                user_id=participant.user_id,
                action_index=action_index,
                symbol_id=symbol_id if isinstance(symbol_id, int) else None,
                symbol_key=key[:64],
                symbol_number=int(key[-3:]) if key[-3:].isascii() and key[-3:].isdigit() else None,
                symbol_name=str(names.get(key, {}).get("name", ""))[:200],
                text=(naming.text or "")[:200],
                correct=naming.correct,
                dont_know=naming.dont_know,
            )
        )
    return rows
