"""Writes to game sessions; the only place that changes a session, its players or its log.

Every action of every game goes through :func:`session_apply_action`: lock the session
row, rebuild the engine's state, apply the action with the pure engine, store the action
and the new state, and, once the transaction has committed, tell everyone watching that
version N exists. The notice of an action carries every viewer's payload, built here from
the new state (``selectors.session_broadcast``); each watcher's consumer sends its own
participant only theirs, and other notices make watchers read their view afresh
(``games/selectors.py``): the raw state never leaves the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content.models import Symbol
from games import selectors, timers
from games.actions import END_EFFECTS, KIND_END_EFFECTS, action_stored
from games.engines import engine_for
from games.engines.base import Engine, IllegalAction, InvalidAction, InvalidSetup, State
from games.lobby import (
    NICKNAME_MAX_LENGTH,
    LobbyError,
    Refusals,
    code_claim,
    code_release,
    display_name,
    is_signed_in,
    newcomer_name,
)
from games.signals import session_finished

from .models import (
    ActionRecord,
    ClassRun,
    GameSession,
    NamingRecord,
    Participant,
    PracticeRun,
)

logger = logging.getLogger(__name__)

#: What a session's code opens in the code space (``games.lobby``).
CODE_KIND = "session"
#: An action is a handful of small fields; anything bigger is not an action.
ACTION_MAX_BYTES = 4096
SEED_MAX = 2**31 - 1


class SessionError(LobbyError):
    """A session request was refused; ``code`` for programs, ``str(error)`` for people."""


#: A session's lobby says no in a game's words.
SESSION_REFUSALS = Refusals(
    error=SessionError,
    guests_not_allowed=gettext_lazy("Sign in to join this game: it does not take guests."),
    nickname_taken=gettext_lazy("Someone in this game already uses that nickname."),
)


# --- creating, joining, starting ------------------------------------------------------------


def session_create(
    *,
    facilitator: Any,
    game: str,
    variant: str,
    setup: dict[str, Any],
    seed: int | None = None,
    allow_guests: bool = False,
    assets: dict[str, Any] | None = None,
    kind: str = GameSession.Kind.GAME,
) -> GameSession:
    """A new session in the lobby, with a fresh join code; ``facilitator`` runs it.

    ``seed`` left out is drawn at random and recorded, so the game can be replayed.
    ``kind`` says what the session is part of (a class run, a practice), for good.
    """
    if not getattr(facilitator, "can_author", False):
        raise SessionError("not_allowed", _("Only teachers start game sessions."))
    engine = _engine(game)
    if variant not in engine.VARIANTS:
        raise SessionError(
            "unknown_variant",
            _("%(game)s has no variant %(variant)s.") % {"game": game, "variant": variant},
        )
    if not isinstance(setup, dict):
        raise SessionError("invalid_setup", _("The setup must be a JSON object."))
    if seed is None:
        seed = secrets.randbelow(SEED_MAX + 1)
    with transaction.atomic():
        session = GameSession.objects.create(
            game=game,
            variant=variant,
            setup=setup,
            seed=seed,
            allow_guests=allow_guests,
            facilitator=facilitator,
            assets=assets or {},
            kind=kind,
        )
        code_claim(kind=CODE_KIND, obj=session, error=SessionError)
        Participant.objects.create(
            session=session,
            user=facilitator,
            role=Participant.Role.FACILITATOR,
            nickname=display_name(facilitator)[:NICKNAME_MAX_LENGTH],
        )
    return session


def session_join(*, session: GameSession, user: Any = None, nickname: str | None = None) -> Participant:
    """``user`` (signed in) or a guest called ``nickname`` joins ``session``.

    Joining twice returns the same participant. In the lobby a newcomer becomes a
    player; once the game runs, a spectator. A guest's ``token`` must then be kept in
    the guest's own session; it is how the guest is recognised later.
    """
    signed_in = is_signed_in(user)
    with transaction.atomic():
        # The lock serialises joins, so player ids are handed out one at a time.
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if signed_in:
            existing = session.participants.filter(user=user).first()
            if existing is not None:
                return existing
        if session.status == GameSession.Status.FINISHED:
            raise SessionError("session_finished", _("This game is over."))
        if PracticeRun.objects.filter(session=session).exists():
            raise SessionError("practice", _("This is one student's practice game."))
        class_lobby = ClassRun.objects.filter(lobby=session).exists()
        name, token = newcomer_name(
            user=user,
            nickname=nickname,
            taken=session.participants.values_list("nickname", flat=True),
            allow_guests=session.allow_guests,
            refusals=SESSION_REFUSALS,
        )
        if session.status == GameSession.Status.LOBBY or class_lobby:
            # A class lobby takes newcomers as players: they play from the next round.
            role = Participant.Role.PLAYER
            player_id = _next_player_id(session)
        else:
            role, player_id = Participant.Role.SPECTATOR, ""
        participant = Participant.objects.create(
            session=session,
            user=user if signed_in else None,
            nickname=name,
            role=role,
            player_id=player_id,
            token=token,
        )
        session_publish_on_commit(session)
    return participant


def session_start(*, session: GameSession, by: Any) -> GameSession:
    """The facilitator starts the game with the players who joined.

    Where the setup leaves the players to the session, they are the participants in
    the order they joined, as ``{"id", "name"}`` (their player id and nickname); the
    setup with them is what the log records.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not _is_facilitator(session, by):
            raise SessionError("not_allowed", _("Only the teacher who runs this game starts it."))
        if session.status != GameSession.Status.LOBBY:
            raise SessionError("already_started", _("This game has already started."))
        if ClassRun.objects.filter(lobby=session).exists():
            raise SessionError("class_lobby", _("A class lobby is not played: pair the class instead."))
        players = list(session.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
        setup = dict(session.setup)
        engine = _engine(session.game)
        seats = getattr(engine, "SEATS", {}).get(session.variant)
        if seats is not None and not setup.get("players"):
            # A variant for a fixed number seats the first who joined; the others watch.
            for participant in players[seats:]:
                participant.role, participant.player_id = Participant.Role.SPECTATOR, ""
                participant.save(update_fields=["role", "player_id"])
            players = players[:seats]
        if setup.get("players"):
            # The setup seats its own players: whoever joined under another id watches.
            seated = {e.get("id") if isinstance(e, dict) else e for e in setup["players"]}
            for participant in players:
                if participant.player_id not in seated:
                    participant.role, participant.player_id = Participant.Role.SPECTATOR, ""
                    participant.save(update_fields=["role", "player_id"])
        else:
            setup["players"] = [participant_seat(p) for p in players]
        try:
            state = engine.new_game(setup, seed=session.seed, variant=session.variant)
        except InvalidSetup as error:
            raise SessionError("invalid_setup", str(error)) from error
        session.setup = setup
        session.state = state.to_dict()
        session.status = (
            GameSession.Status.FINISHED if engine.is_terminal(state) else GameSession.Status.RUNNING
        )
        session.save(update_fields=["setup", "state", "status", "updated"])
        timers.session_deadline_set(session=session)  # note c: a timed game's deadline
        session_publish_on_commit(session)
    return session


def participant_seat(participant: Participant, *, player_id: str | None = None) -> dict[str, Any]:
    """A player as a setup seats them, with the facilitator's age order where it was given
    ("the youngest player", ZnajZnak; ``session_age_order_set``)."""
    seat: dict[str, Any] = {"id": player_id or participant.player_id, "name": participant.nickname}
    if participant.age_rank is not None:
        seat["age_rank"] = participant.age_rank
    return seat


def session_age_order_set(*, session: GameSession, by: Any, ranks: dict[int, int | None]) -> None:
    """The facilitator says who is the youngest: ``ranks`` maps participant ids to 1, 2, ...

    ZnajZnak's "the youngest player" (who lays the first card of a warm-up, who wins a
    tie when the time is up) is decided by this order, kept only as an order: no birth
    date is asked of anyone. Players left out (or ``None``) are not ranked. Only in the
    lobby (a class lobby: until it ends, for the next rounds); refused whole if two
    players get the same place or someone is not a player of this session.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not _is_facilitator(session, by):
            raise SessionError("not_allowed", _("Only the teacher who runs this game sets the age order."))
        class_lobby = ClassRun.objects.filter(lobby=session).exists()
        if session.status == GameSession.Status.FINISHED or (
            session.status != GameSession.Status.LOBBY and not class_lobby
        ):
            raise SessionError("already_started", _("The age order is set before the game starts."))
        players = {p.pk: p for p in session.participants.filter(role=Participant.Role.PLAYER)}
        unknown = set(ranks) - set(players)
        if unknown:
            raise SessionError("not_a_player", _("Only the players of this game are put in age order."))
        given = [rank for rank in ranks.values() if rank is not None]
        if any(not isinstance(rank, int) or rank < 1 for rank in given):
            raise SessionError("invalid_age_order", _("Places in the age order are 1, 2, 3 and so on."))
        if len(set(given)) != len(given):
            raise SessionError(
                "invalid_age_order", _("Two players have the same place: give each place to one player.")
            )
        for pk, participant in players.items():
            rank = ranks.get(pk)
            if participant.age_rank != rank:
                participant.age_rank = rank
                participant.save(update_fields=["age_rank"])
        session_publish_on_commit(session)


# --- playing --------------------------------------------------------------------------------


def session_act(*, participant: Participant, action: Any) -> tuple[int, dict[str, Any]]:
    """``participant`` acts: players as themselves, the facilitator as the table.

    Spectators only watch. The acting player always comes from the participant, never
    from the action itself.
    """
    if participant.role == Participant.Role.SPECTATOR:
        raise IllegalAction(_("Spectators watch the game; they do not play."))
    return session_apply_action(
        session_id=participant.session_id,
        player_id=participant.engine_player,
        action=action,
        from_client=True,
    )


def session_apply_action(
    *, session_id: int, player_id: str | None, action: Any, from_client: bool = False
) -> tuple[int, dict[str, Any]]:
    """Apply ``action`` by ``player_id`` and return the new version and that player's view.

    The row lock makes concurrent actions on one session apply one after the other,
    each on the state the previous one stored. ``InvalidAction`` and ``IllegalAction``
    come out unchanged and leave nothing stored. The namings the action produced
    (ZnajZnak) are recorded per student in the same transaction. ``from_client``: the
    action came from a browser, so a clock in it (``at``) is the server's to set.
    """
    action = action_clean(action)
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session_id)
        engine = _engine(session.game)
        if timers.deadline_passed(session):
            # Note c: the time ran out before this action came; the timer ends the game instead.
            state = session_apply_locked(session, engine, None, dict(timers.TIME_UP_ACTION))
        else:
            state = session_apply_locked(session, engine, player_id, action, from_client=from_client)
        return session.version, engine.player_view(state, player_id)


def session_apply_locked(
    session: GameSession,
    engine: Engine,
    player_id: str | None,
    action: dict[str, Any],
    *,
    from_client: bool = False,
) -> State:
    """Apply one cleaned action to ``session``, locked by the caller; store it and its effects.

    What it stores is ``actions.action_stored``'s, as on the fast path (``live.act``).
    """
    if session.state is None and session.status == GameSession.Status.RUNNING:
        # A class lobby runs its duels elsewhere; it is never played itself.
        raise IllegalAction(_("This is the class lobby: the games are played in the duels."))
    participants = list(session.participants.order_by("joined_at", "id"))
    before = engine.state_from_dict(session.state) if session.state is not None else None
    stored = action_stored(
        session, engine, before, player_id, action, participants=participants, from_client=from_client
    )
    ActionRecord.objects.create(
        session=session, index=stored.index, player_id=stored.player_id, action=stored.action
    )
    _namings_record(stored.namings)
    session.state = stored.state.to_dict()
    session.save(update_fields=["state", *stored.session_update(session)])
    if stored.end_effects:
        _end_effects(session, stored.state)
    if stored.ended:
        session_finished_announce(session)
    session_publish_on_commit(
        session, selectors.session_broadcast(session=session, participants=participants, state=stored.state)
    )
    return stored.state


def _end_effects(session: GameSession, state: State) -> None:
    kind_effect = KIND_END_EFFECTS.get(session.kind)
    if kind_effect is not None:
        kind_effect(session=session, state=state)
    effect = END_EFFECTS.get(session.game)
    if effect is not None:
        effect(session=session)


def session_finished_announce(session: GameSession) -> None:
    """Tell the layers above that ``session`` ended (``signals.session_finished``), in the
    transaction that ended it: the students' namings go to their memory (``lms.progress``)."""
    code_release(kind=CODE_KIND, obj=session)
    session_finished.send(sender=GameSession, session=session)


def _namings_record(rows: list[NamingRecord]) -> None:
    """Store an action's namings (``actions.naming_rows``); a symbol deleted from the library
    since the deck was built keeps its snapshot, without the link."""
    if not rows:
        return
    existing = set(
        Symbol.objects.filter(pk__in={r.symbol_id for r in rows if r.symbol_id}).values_list("pk", flat=True)
    )
    for row in rows:
        if row.symbol_id not in existing:
            row.symbol_id = None
    NamingRecord.objects.bulk_create(rows)


def action_clean(action: Any) -> dict[str, Any]:
    """An action from outside as the engines take it: a JSON object with a type, not too large,
    without a ``player`` (who acts is the server's to say); ``InvalidAction`` otherwise."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise InvalidAction(_("An action is a JSON object with a type."))
    if len(json.dumps(action)) > ACTION_MAX_BYTES:
        raise InvalidAction(_("The action is too large."))
    # Who acts is decided by the server, never by the action.
    return {key: value for key, value in action.items() if key != "player"}


#: The notices of the current call, when its caller sends them itself (``session_publish_deferred``).
_deferred_notices: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar(
    "games_deferred_notices", default=None
)


def session_publish_on_commit(session: GameSession, broadcast: dict[str, Any] | None = None) -> None:
    """Once the transaction commits, tell the session's watchers that it changed.

    ``broadcast`` (``selectors.session_broadcast``): every viewer's payload, built by
    the writer from what it holds, so that watchers need not read the session again.
    """
    group, version = session.group_name, session.version
    transaction.on_commit(
        lambda: session_publish(group=group, version=version, broadcast=broadcast), robust=True
    )
    if session.kind != GameSession.Kind.CLASS_DUEL:
        return
    # A class duel also tells its lobby, whose projector lists every duel's card counts.
    lobby = GameSession.objects.filter(class_run__duels__session=session).values_list("pk", "version").first()
    if lobby is not None:
        lobby_group = GameSession.group_name_of(lobby[0])
        transaction.on_commit(lambda: session_publish(group=lobby_group, version=lobby[1]), robust=True)


def session_notice(*, version: int, broadcast: dict[str, Any] | None = None) -> dict[str, Any]:
    """The channel-layer message that says "version N exists" (``consumers.SessionConsumer``)."""
    notice: dict[str, Any] = {"type": "session.changed", "version": version}
    if broadcast is not None:
        notice["broadcast"] = broadcast
    return notice


def session_publish(*, group: str, version: int, broadcast: dict[str, Any] | None = None) -> None:
    """Tell everyone watching a session that it changed.

    The message stays on the server: each socket's consumer sends its own participant
    only that participant's payload, from ``broadcast`` when it is there, else read
    afresh (``selectors.session_payload``); no browser ever gets another's view.
    Inside ``session_publish_deferred`` the notice is handed to the caller instead.
    """
    notice = session_notice(version=version, broadcast=broadcast)
    pending = _deferred_notices.get()
    if pending is not None:
        pending.append((group, notice))
        return
    notice_send(group=group, message=notice)


#: How long a notice sent from a thread whose event loop is running waits for the thread
#: that sends it (``notice_send``): that loop does nothing else meanwhile.
NOTICE_SEND_IN_LOOP_WAIT_SECONDS = 2.0


def notice_send(*, group: str, message: dict[str, Any]) -> None:
    """``group_send`` a message on the channel layer from synchronous code, and wait for it.

    ``async_to_sync`` refuses to run in a thread whose asyncio event loop is running (it
    would deadlock it): Playwright's sync API keeps one in the browser tests' thread, and
    so does synchronous code called straight from a coroutine. There the send goes to a
    short-lived thread of its own, which runs ``async_to_sync`` on a loop of its own, and
    the caller waits for it as it does elsewhere, but at most
    ``NOTICE_SEND_IN_LOOP_WAIT_SECONDS``, as its loop is blocked meanwhile. A failure
    of the send is raised to the caller either way (``transaction.on_commit(...,
    robust=True)`` logs it and goes on); a send still under way after the wait is
    logged and left to finish on its own.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no running loop in this thread: the usual case
        async_to_sync(layer.group_send)(group, message)
        return
    sent: Future[None] = Future()
    given_up = threading.Event()

    def send() -> None:
        try:
            async_to_sync(layer.group_send)(group, message)
        except BaseException as error:  # handed to the waiting caller, or logged once it has gone
            sent.set_exception(error)
            if given_up.is_set():
                logger.warning("The notice to %s was not sent: %r", group, error)
        else:
            sent.set_result(None)

    # A daemon: a send that hangs (an unreachable Redis) must not keep the process alive.
    threading.Thread(target=send, name=f"notice-send-{group}", daemon=True).start()
    try:
        sent.result(timeout=NOTICE_SEND_IN_LOOP_WAIT_SECONDS)
    except FutureTimeout:
        given_up.set()
        logger.warning(
            "The notice to %s was not sent within %s s; it goes on without being waited for.",
            group,
            NOTICE_SEND_IN_LOOP_WAIT_SECONDS,
        )


@contextmanager
def session_publish_deferred() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Collect the notices of the block's commits as ``(group, message)`` instead of sending them.

    For a caller on an event loop (the WebSocket consumer): it sends them itself with
    ``await layer.group_send(...)`` once the block's database work is done, so the
    thread that does the database work never waits on the channel layer.
    """
    pending: list[tuple[str, dict[str, Any]]] = []
    token = _deferred_notices.set(pending)
    try:
        yield pending
    finally:
        _deferred_notices.reset(token)


# --- helpers --------------------------------------------------------------------------------


def _engine(game: str) -> Engine:
    try:
        return engine_for(game)
    except KeyError as error:
        raise SessionError("unknown_game", str(error.args[0])) from error


def _next_player_id(session: GameSession) -> str:
    count = session.participants.exclude(player_id="").count()
    return f"p{count + 1}"


def _is_facilitator(session: GameSession, user: Any) -> bool:
    return selectors.facilitates(session=session, user=user)
