"""The fast path of a live action: a running game as the process that plays it holds it.

Per action, the one service (``services.session_apply_action``) locks the session row,
reads the whole session (setup, state and assets: about 20 KB of JSON for a ZnajZnak
deck), applies the engine, stores the action, the namings and the state in one
transaction, and builds every viewer's payload: about 7 statements and 10 ms of Python
on a quiet machine, most of it the ORM. A WebSocket consumer playing a plain game
(``GameSession.Kind.GAME`` or a class run's duel, PostgreSQL) goes through this module
first instead (on SQLite too: the embedded mode's one process):

* the process keeps a **live table** per session it plays: the session row as read at the
  start (setup, assets, timer: they do not change while a game runs), the participants
  and the engine state of the newest version it knows (:class:`LiveTable`);
* an action is applied to that state in memory by ``actions.action_stored``, which decides
  what it stores for the locked service too; a refusal (a STOP that lost the race, a wrong
  symbol) is answered without touching the database;
* an accepted action is stored with **one** SQL statement that bumps the version only if
  it is still the one the table holds (optimistic concurrency) and, in the same
  statement, inserts the ``ActionRecord`` and the namings (:func:`_write_statement`): the
  same rows the locked service writes with the ORM, from the same decision. SQLite, which
  has no statement that writes three tables, writes the same rows in one short
  transaction, on the event loop too (``games.live_sqlite``).

A socket that opens or resumes gets its payload from the table too (:func:`payload`).

An end stored by the statement is announced as the one service announces its own ends
(``services.session_finished_announce``: the join code released, ``signals.session_finished``:
the students' namings go to their memory), from a database thread once the statement has
committed (:func:`_finished_announce`). The finished game's table stays while its sockets
are open: the other player's action that lost the race to the end is refused from it.

Everything the fast path cannot do alone goes to the one service, which is always right
because it locks the row and reads it afresh: an end that stores more than the status (a
Knowledge? game's homework grade, a practice's result), a passed deadline (note c), a version
that keeps moving on (another process or an HTTP request wrote first: the statement changes
nothing, the table is read again and the action tried on it, :data:`ATTEMPTS` times), any
other kind of session. So no update is lost and none applies out of order: the version in
the ``WHERE`` serialises the fast path with the locked one, and within a process one
``asyncio.Lock`` per table serialises the sockets of a session.

A table is kept current by the change notices that reach the process's consumers
(:func:`table_heard`): a fast-path notice carries its action, which a table one version
behind applies too; any other newer version, or any change without payloads, forgets it.
A table read while a change it may not hold was heard (a newer version, a join) is not
kept: no later notice would say it is stale. A refusal is decided on the newest version
this process has heard of; each notice reaches the process's consumers before any of its
browsers shows that version, so an action is never refused on a state older than the one
its player acted on.

The speed this buys, and what still costs, is measured by ``bench/bench_live.py`` and
``bench/bench_live_apply.py`` (``bench/README.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from psycopg_pool import AsyncConnectionPool

from content.models import Symbol

from . import live_sqlite, selectors, services, sockets, timers
from .actions import Stored, action_stored
from .database_threads import in_database_thread
from .engines import engine_for
from .engines.base import Engine, State
from .models import ActionRecord, GameSession, NamingRecord, Participant
from .stored_state import FROM_SETUP, FROM_SETUP_PARTS, from_setup_listed, held_by_setup

logger = logging.getLogger(__name__)

#: One naming's values (a symbol deleted from the library since the deal keeps its snapshot).
NAMING_VALUES = "(%s::bigint, %s::bigint, %s::bigint, %s, %s::int, %s, %s, %s::boolean, %s::boolean)"

#: Tables a process keeps at most; the least recently used is forgotten first.
TABLES_MAX = 2000


@dataclass
class LiveTable:
    """What one process holds of a running game between its actions."""

    session: GameSession  # the row as read at load: setup, assets, kind, timer; ``version`` kept current
    engine: Engine
    state: State  # the engine's state at ``session.version``
    participants: list[Participant]
    #: A class duel's lobby, whose projector lists every duel's card counts; ``None`` for a game.
    lobby_id: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: The top-level parts of the last stored state, and the JSON of those an engine handed
    #: back as the very same objects (ZnajZnak's deck: its cards and names), by key.
    parts: dict[str, Any] = field(default_factory=dict)
    encoded: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def state_json(self, state: State) -> str:
        """``state``'s JSON for the row, in the row's form (``games.stored_state``: without
        the parts the setup holds too, named under ``from_setup``). A part that is the very
        object of the last state's (most of the bytes: ZnajZnak's deck) is encoded, or found
        equal to the setup's, once and kept; the others, a few hundred bytes, in one call."""
        data = state.to_dict()
        game, setup = self.session.game, self.session.setup
        kept, rest, shared = [], {}, set()
        for key, value in data.items():
            large = isinstance(value, (list, dict)) and value
            if large and (key in FROM_SETUP_PARTS.get(game, ()) or value is self.parts.get(key)):
                known = self.encoded.get(key)
                if known is None or known[0] is not value:
                    held = held_by_setup(game, key, value, setup)
                    text = "" if held else f"{json.dumps(key)}: {json.dumps(value)}"
                    known = self.encoded[key] = (value, text)
                if known[1]:
                    kept.append(known[1])
                else:
                    shared.add(key)
            else:
                rest[key] = value
        self.parts = data
        if shared:
            rest[FROM_SETUP] = from_setup_listed(game, shared)
        changed = json.dumps(rest)[1:-1]
        return "{" + ", ".join([*kept, changed] if changed else kept) + "}"


_tables: OrderedDict[int, LiveTable] = OrderedDict()
#: The tables being read now, for the sockets that want one meanwhile.
_reading: dict[int, asyncio.Future[LiveTable | None]] = {}
#: What this process has heard of each session's changes (the most recent sessions): the
#: count of notices without payloads and the newest version a notice named.
_heard: OrderedDict[int, tuple[int, int]] = OrderedDict()


#: The databases the fast path writes on (:func:`_write`).
VENDORS = ("postgresql", "sqlite")


def enabled() -> bool:
    """Whether this process takes the fast path (``LIVE_FAST_PATH``; PostgreSQL and SQLite)."""
    return bool(getattr(settings, "LIVE_FAST_PATH", True)) and connection.vendor in VENDORS


def table_forget(session_id: int) -> None:
    """Drop the table of ``session_id``: the next action reads the session afresh."""
    _tables.pop(session_id, None)


def table_heard(
    session_id: int, *, version: int, has_payloads: bool, applied: dict[str, Any] | None = None
) -> None:
    """A change notice of ``session_id`` reached this process (``consumers.session_changed``).

    A notice of the fast path carries the action it stored (``applied``: player and
    action): a table one version behind applies it too, as the engines are deterministic,
    so the two players of a duel on two processes do not read the session after each
    other's every action. Any other newer version, and a notice without payloads (someone
    joined, a write of the locked path), may have changed what the table holds: the table
    is forgotten.
    """
    without_payloads, newest = _heard.pop(session_id, (0, 0))
    _heard[session_id] = (without_payloads + (not has_payloads), max(newest, version))
    while len(_heard) > TABLES_MAX * 10:
        _heard.popitem(last=False)
    table = _tables.get(session_id)
    if table is None or (has_payloads and version <= table.session.version):
        return  # no table, or nothing it does not hold already
    if (
        has_payloads
        and applied is not None
        and version == table.session.version + 1
        and _follow(table, applied)
    ):
        return
    table_forget(session_id)


def _follow(table: LiveTable, applied: dict[str, Any]) -> bool:
    """Apply another process's stored action to ``table``; whether the table is current now.

    Not while an action of this process waits on the table (it will find the version
    moved on and take the locked path), nor past the end of the game.
    """
    if table.lock.locked():
        return False
    try:
        state = table.engine.apply_action(table.state, applied.get("player"), applied["action"])
    except Exception:  # whatever it is, the table cannot follow: it is read afresh instead
        return False
    if table.engine.is_terminal(state):
        return False
    table.state = state
    table.session.version += 1
    return True


Notices = list[tuple[str, dict[str, Any]]]


#: Tries of the fast path for one action when the version moved on under it.
ATTEMPTS = 3


class _MovedOn:
    """The stored version was not the table's: read it again and try again."""


async def act(participant: Participant, action: Any) -> tuple[dict[str, Any] | None, Notices] | None:
    """Apply ``action`` by ``participant`` on the fast path, if it can take it.

    Returns the participant's new payload and the notices to send, or ``None`` when the
    action must go to the one service (``services.session_act``) instead. Refusals raise
    ``ActionError`` as the service does, and store nothing. When another process stored a
    version first (two players on two processes who said STOP at once), the table is read
    again and the action tried on it: optimistic concurrency, a few times, then the lock.
    """
    if not enabled() or participant.role == Participant.Role.SPECTATOR:
        return None
    action = services.action_clean(action)
    for _attempt in range(ATTEMPTS):
        table = await _table(participant.session_id)
        if table is None:
            return None
        done = await _act_on(table, participant, action)
        if not isinstance(done, _MovedOn):
            return done
    return None


async def _act_on(
    table: LiveTable, participant: Participant, action: dict[str, Any]
) -> tuple[dict[str, Any] | None, Notices] | _MovedOn | None:
    async with table.lock:
        session = table.session
        if _tables.get(session.pk) is not table:
            return _MovedOn()  # forgotten while this action waited
        if timers.deadline_passed(session):
            return None  # the time is up (note c): the one service ends the game
        player_id = participant.engine_player
        # A refusal raises here.
        stored = action_stored(
            session,
            table.engine,
            table.state,
            player_id,
            action,
            participants=table.participants,
            from_client=True,
        )
        if stored.end_effects:
            table_forget(session.pk)
            # The end has results to store (homework, practice): the one service ends the
            # game, with them, and announces it.
            return None
        row = await _write(session.pk, stored, table.state_json(stored.state), lobby_id=table.lobby_id)
        if row is None or row[0] != 1:
            table_forget(session.pk)
            return _MovedOn()  # the version moved on, or the statement failed
        # A finished game's table stays: an action that lost the race to the end (the
        # other player's STOP) is refused from it, "The game is over.", as the service would.
        alone = bool(row[1])  # no other process holds a socket of this game
        table.state = stored.state
        stored.session_update(session)
        broadcast = selectors.session_broadcast(
            session=session,
            participants=table.participants,
            state=stored.state,
            # Heard by this process's sockets alone: their views only (a duel's teacher's
            # view is built for no one). A socket opened since reads its own from the table.
            viewers=_viewers_here(session.pk, participant) if alone else None,
        )
    assert broadcast is not None  # a game or a class duel always has one
    notice = services.session_notice(version=session.version, broadcast=broadcast)
    notice["applied"] = {"player": player_id, "action": stored.action}  # other processes' tables follow it
    notice["origin"] = sockets.PROCESS  # for this process's sockets directly (``games.sockets``)
    if alone:
        notice["local"] = True  # and for no one else: the consumer does not publish it
    notices = [(session.group_name, notice)]
    if table.lobby_id is not None and row[2] is not None:
        # A class duel also tells its lobby (as ``services.session_publish_on_commit`` does), at the
        # lobby's version that the statement read: its sockets read the lobby afresh.
        notices.append((GameSession.group_name_of(table.lobby_id), services.session_notice(version=row[2])))
    if stored.ended:
        ended = copy.copy(session)
        ended.state = stored.state.to_dict()
        await in_database_thread(_finished_announce, ended)
    return selectors.payload_from_broadcast(broadcast, participant.pk), notices


def _viewers_here(session_id: int, actor: Participant) -> set[int]:
    """The participants (ids) of ``session_id`` whose sockets this process holds, and the actor."""
    here = {getattr(socket, "participant", None) for socket in sockets.here(session_id)}
    return {participant.pk for participant in here if participant is not None} | {actor.pk}


def _finished_announce(session: GameSession) -> None:
    """Announce the end the statement stored (``services.session_finished_announce``: the
    join code released, ``signals.session_finished``: the students' namings go to their
    memory), once it is committed, as the one service announces its own ends.

    A failure is logged, and the end stands: the namings are taken in by the sweep
    (``lms.progress``), and a code whose game has ended is released when claimed again
    (``games.lobby``).
    """
    try:
        with transaction.atomic():
            services.session_finished_announce(session)
    except Exception:
        logger.exception("The end of session %s was stored but not announced.", session.pk)


async def payload(participant: Participant) -> dict[str, Any] | None:
    """``participant``'s payload from the table of their running plain game (a socket that
    opens or resumes), read once for the sockets of the game; ``None`` where there is no
    table for it: the caller reads the session (``selectors.session_payload``)."""
    if not enabled():
        return None
    table = await _table(participant.session_id)
    if table is None or timers.deadline_passed(table.session):
        return None
    session = table.session
    broadcast = selectors.session_broadcast(
        session=session, participants=table.participants, state=table.state
    )
    return None if broadcast is None else selectors.payload_from_broadcast(broadcast, participant.pk)


async def _table(session_id: int) -> LiveTable | None:
    table = _tables.get(session_id)
    if table is not None:
        _tables.move_to_end(session_id)
        return table
    # The two sockets of a duel open at once: one read of the session serves both.
    loop = asyncio.get_running_loop()
    reading = _reading.get(session_id)
    if reading is not None and reading.get_loop() is loop:
        return await asyncio.shield(reading)
    reading = _reading[session_id] = loop.create_future()
    try:
        table = await _table_read(session_id)
    except BaseException:
        reading.set_result(None)  # whoever waits reads the session the slow way
        raise
    finally:
        if _reading.get(session_id) is reading:
            del _reading[session_id]
    reading.set_result(table)
    return table


async def _table_read(session_id: int) -> LiveTable | None:
    without_payloads = _heard.get(session_id, (0, 0))[0]
    table = await in_database_thread(_table_load, session_id)
    if table is None:
        return None
    heard = _heard.get(session_id, (0, 0))
    if heard[0] != without_payloads or heard[1] > table.session.version:
        # A change was heard while the row was read that the row may not hold, and no later
        # notice would say so. The caller reads afresh instead.
        return None
    # Two sockets may have loaded it at once: the first one kept wins.
    table = _tables.setdefault(session_id, table)
    while len(_tables) > TABLES_MAX:
        _tables.popitem(last=False)
    return table


def _table_load(session_id: int) -> LiveTable | None:
    """Read a running game's table; ``None`` for anything the fast path leaves alone."""
    # Filtered in the query: for any other session (a class lobby, a practice) the answer
    # is "none" without its JSON crossing the wire.
    session = GameSession.objects.filter(
        pk=session_id,
        kind__in=selectors.BROADCAST_KINDS,
        status=GameSession.Status.RUNNING,
        state__isnull=False,
    ).first()
    if session is None:
        return None
    assert session.state is not None  # filtered in the query
    engine = engine_for(session.game)
    state = engine.state_from_dict(session.state)
    session.state = None  # the table's engine state is the current one; the row's JSON is not kept
    participants = list(selectors.session_participants(session))
    lobby_id = None
    if session.kind == GameSession.Kind.CLASS_DUEL:
        lobby_id = (
            GameSession.objects.filter(class_run__duels__session=session).values_list("pk", flat=True).first()
        )
    return LiveTable(
        session=session, engine=engine, state=state, participants=participants, lobby_id=lobby_id
    )


async def _write(
    session_id: int, stored: Stored, state: str, *, lobby_id: int | None
) -> tuple[Any, ...] | None:
    """Store ``stored`` as :func:`_write_statement` says: its row, or ``None`` for a failure.

    On SQLite (``games.live_sqlite``) on the event loop's own connection, tried again every
    ``LOCK_PAUSE`` while another writer holds the lock, and after ``LOCK_WAIT`` on the
    database thread, which waits for it; the row's "alone" is whether the channel layer
    stays in this process.
    """
    if connection.vendor == "postgresql":
        return await _statements().write(*_write_statement(session_id, stored, state, lobby_id=lobby_id))
    writer = _loop_writer()
    # The loop's writes one at a time (SQLite takes one writer anyway): while another writer
    # holds the lock, only the first in line tries again, the others wait without a cost.
    async with writer.turn:
        done = writer.write(session_id, stored, state, lobby_id)
        waited = 0.0
        while done is None and waited < live_sqlite.LOCK_WAIT:
            # Another writer holds the lock (the worker, a page): a few milliseconds, as a rule.
            await asyncio.sleep(live_sqlite.LOCK_PAUSE)
            waited += live_sqlite.LOCK_PAUSE
            done = writer.write(session_id, stored, state, lobby_id)
        if done is None:
            done = await in_database_thread(_write_here, session_id, stored, state, lobby_id)
        elif writer.checkpoint_due():
            _in_background(in_database_thread(live_sqlite.checkpoint))
    return None if done is None else (done[0], not _layer_crosses_processes(), done[1])


def _write_here(
    session_id: int, stored: Stored, state: str, lobby_id: int | None
) -> live_sqlite.Written | None:
    """``live_sqlite.store`` on this thread's Django connection, waiting for the lock as it
    does; ``None`` for a failure (the database busy past its timeout)."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            return live_sqlite.store(cursor, session_id, stored, state, lobby_id)
    except DatabaseError:
        logger.warning("The fast path could not store an action of session %s.", session_id, exc_info=True)
        return None


_loop_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, live_sqlite.LoopWriter] = (
    weakref.WeakKeyDictionary()
)
#: Work started in the background (a checkpoint), kept until it is done.
_background: set[asyncio.Future[Any]] = set()


def _loop_writer() -> live_sqlite.LoopWriter:
    """This event loop's SQLite connection (a loop's own, as the PostgreSQL pool)."""
    loop = asyncio.get_running_loop()
    writer = _loop_writers.get(loop)
    if writer is None:
        writer = _loop_writers[loop] = live_sqlite.LoopWriter()
    return writer


def _in_background(work: Any) -> None:
    future = asyncio.ensure_future(work)
    _background.add(future)
    future.add_done_callback(_background.discard)


def _write_statement(
    session_id: int, stored: Stored, state: str, *, lobby_id: int | None = None
) -> tuple[str, list[Any]]:
    """The statement that stores ``stored`` (``actions.action_stored``) as version
    ``stored.version`` of a running session if ``stored.index`` is still the stored version:
    ``state`` (the new state's JSON), the ``ActionRecord`` and the namings, and the end of
    the game, all or nothing. It returns one row: the count of sessions written (1 or 0),
    whether the row names no other process than this one (``live_processes``: then nobody
    else needs the notice, ``games.sockets``), and the version of the class lobby
    ``lobby_id`` (``None`` without one)."""
    quote = connection.ops.quote_name
    sessions, actions = GameSession._meta.db_table, ActionRecord._meta.db_table
    version, now, namings = stored.index, stored.at, stored.namings
    status = GameSession.Status.FINISHED if stored.ended else GameSession.Status.RUNNING
    params: list[Any] = [state, now, status, now if stored.ended else None, session_id, version]
    params += [GameSession.Status.RUNNING, json.dumps([sockets.PROCESS])]
    params += [version, stored.player_id, json.dumps(stored.action), now]
    namings_sql = ""
    if namings:
        namings_sql = f""", named AS (
            INSERT INTO {quote(NamingRecord._meta.db_table)} ({live_sqlite.naming_columns()})
            SELECT written.id, v.participant, v.person, %s, (
                SELECT symbol.id FROM {quote(Symbol._meta.db_table)} symbol WHERE symbol.id = v.symbol
            ), v.key, v.number, v.name, v.typed, v.correct, v.dont_know, %s
            FROM written, (VALUES {", ".join([NAMING_VALUES] * len(namings))})
                AS v(participant, person, symbol, key, number, name, typed, correct, dont_know)
        )"""
        params += [version, now]
        for row in namings:
            params += [row.participant_id, row.user_id, row.symbol_id, row.symbol_key, row.symbol_number]
            params += [row.symbol_name, row.text, row.correct, row.dont_know]
    sql = f"""
        WITH written AS (
            UPDATE {quote(sessions)}
            SET state = %s::jsonb, version = version + 1, updated = %s, status = %s,
                finished_at = coalesce(%s, finished_at)
            WHERE id = %s AND version = %s AND status = %s
            RETURNING id, live_processes <@ %s::jsonb AS alone
        ), logged AS (
            INSERT INTO {quote(actions)} (session_id, {quote("index")}, player_id, action, created)
            SELECT id, %s, %s, %s::jsonb, %s FROM written
        ){namings_sql}
        SELECT count(*), coalesce(bool_and(alone), true),
            (SELECT lobby.version FROM {quote(sessions)} lobby WHERE lobby.id = %s::bigint)
        FROM written
    """
    params.append(lobby_id)
    return sql, params


class _Statements:
    """The PostgreSQL connections an event loop writes the fast path's statements on.

    Asynchronous (psycopg's ``AsyncConnection``, autocommit), so the write never leaves the
    event loop: a database thread would have to take Python's lock back from the loop
    after every round trip, and under load those hand-offs cost more than the statement.
    They come from a ``psycopg_pool.AsyncConnectionPool`` of at most
    ``LIVE_DB_POOL_MAX_SIZE`` connections, opened as needed: the pool drops a broken one,
    and a write waits for a free one rather than opening more (``docs/deploy.md``, Scaling).
    """

    def __init__(self, size: int, timeout: float) -> None:
        #: Every connection the pool opened, for :meth:`close_now` (the pool closes only on its loop).
        self.opened: weakref.WeakSet[psycopg.AsyncConnection[Any]] = weakref.WeakSet()
        self.pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] = AsyncConnectionPool(
            kwargs={**_connection_params(), "autocommit": True, "prepare_threshold": _prepare_threshold()},
            min_size=0,  # a process that plays no game opens none
            max_size=max(1, size),
            timeout=timeout,
            open=False,
            configure=self._opened,
            name="live-fast-path",
        )

    async def _opened(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.opened.add(conn)

    async def write(self, sql: str, params: list[Any]) -> tuple[Any, ...] | None:
        """Run a statement that answers one row (:func:`_write_statement`,
        :func:`present`) and give that row; ``None`` for a failure (the database gone, a
        broken connection, no connection free within the pool's timeout)."""
        try:
            await self.pool.open()  # once; later calls return at once
            async with self.pool.connection() as conn:
                cursor = await conn.execute(sql, params)
                return await cursor.fetchone()
        except psycopg.Error:  # PoolTimeout and PoolClosed are psycopg errors too
            return None

    def close_now(self) -> None:
        """Close every connection at once, from any thread (tests: before the database is dropped)."""
        for conn in list(self.opened):
            with contextlib.suppress(Exception):
                conn.pgconn.finish()
        self.opened = weakref.WeakSet()


_statement_sets: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Statements] = (
    weakref.WeakKeyDictionary()
)


def _statements() -> _Statements:
    """This event loop's pool (a connection belongs to the loop that opened it)."""
    loop = asyncio.get_running_loop()
    found = _statement_sets.get(loop)
    if found is None:
        pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
        pool = pool if isinstance(pool, dict) else {}
        found = _statement_sets[loop] = _Statements(
            getattr(settings, "LIVE_DB_POOL_MAX_SIZE", 4), float(pool.get("timeout", 10.0))
        )
    return found


def _prepare_threshold() -> int | None:
    """How often psycopg runs a statement before it prepares it (``LIVE_DB_PREPARE``).

    The fast path's statement has one text per count of namings, and the same few texts
    come again and again: prepared once, PostgreSQL no longer parses and plans it for every
    action. ``None`` (never) as Django's connections are, where ``LIVE_DB_PREPARE`` is off.
    """
    return 1 if getattr(settings, "LIVE_DB_PREPARE", False) else None


def _connection_params() -> dict[str, Any]:
    """Django's own connection parameters for the default database, less its sync-only parts."""
    params = connections["default"].get_connection_params()
    for sync_only in ("cursor_factory", "context"):
        params.pop(sync_only, None)
    return params


#: Sessions whose row names this process already (a process never leaves a row).
_present: OrderedDict[int, None] = OrderedDict()


async def present(session_id: int) -> bool:
    """Add this process to ``session_id``'s ``live_processes`` (``games.sockets``), as a
    socket opens and before it reads the state; whether this process is in the row now.

    Nothing to write on SQLite (no fast path anywhere) or where the channel layer does not
    leave the process (the in-memory layer). Written with ``LIVE_FAST_PATH=false`` too: other
    processes may take the fast path.
    """
    if connection.vendor != "postgresql" or not _layer_crosses_processes() or session_id in _present:
        return True
    table, me = connection.ops.quote_name(GameSession._meta.db_table), json.dumps([sockets.PROCESS])
    row = await _statements().write(
        f"""
        WITH added AS (
            UPDATE {table} SET live_processes = live_processes || %s::jsonb
            WHERE id = %s AND NOT live_processes @> %s::jsonb
            RETURNING id
        )
        SELECT count(*) FROM added
        """,
        [me, session_id, me],
    )
    if row is None:
        return False
    _present[session_id] = None
    while len(_present) > TABLES_MAX * 10:
        _present.popitem(last=False)
    return True


def _layer_crosses_processes() -> bool:
    layer = settings.CHANNEL_LAYERS.get("default", {})
    backend = layer.get("BACKEND", "") if isinstance(layer, dict) else ""
    return not str(backend).startswith("channels.layers.")


def connections_close() -> None:
    """Close the fast path's connections of every event loop, and forget every table
    (tests: before the test database is dropped)."""
    for found in list(_statement_sets.values()):
        found.close_now()
    _statement_sets.clear()
    for writer in list(_loop_writers.values()):
        writer.close()
    _loop_writers.clear()
    _tables.clear()
    _heard.clear()
    _reading.clear()
    _present.clear()
