"""The live fast path's write on SQLite: the embedded mode (``make run``), one web process.

PostgreSQL stores an accepted action with one statement on the event loop's own
connections (``live._write_statement``). SQLite has no statement that writes three tables,
so :func:`store` runs the same writes as a few plain statements in one transaction: the
version bumped only if it is still ``stored.index`` (optimistic concurrency, as on
PostgreSQL), the ``ActionRecord`` and the namings (a symbol deleted from the library since
the deal keeps its snapshot, without the link).

They run on the event loop itself, on a connection of its own (:class:`LoopWriter`): a few
statements on a local file take less time than handing them to a thread, and the thread
(``database_threads``) is the one that also reads the tables and opens the sockets, so under
a class's load an action waited there behind the others' work (``bench/bench_embedded.py``).
The loop never blocks on SQLite's write lock: when another writer holds it (the Celery
worker taking a finished duel's namings into the students' memory, a page),
:meth:`LoopWriter.write` answers ``None`` at once, and the caller tries again a moment later
(``live._write``) while the loop serves the other sockets; past :data:`LOCK_WAIT` the action
is stored on the database thread, which waits for the lock as every Django connection does.
Nor does it copy the write-ahead log back into the database (a checkpoint, with its
``fsync``): every :data:`CHECKPOINT_EVERY` writes the database thread is asked to, without
anyone waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sqlite3
from typing import Any

from django.db import connection, connections

from content.models import Symbol

from .actions import Stored
from .models import ActionRecord, GameSession, NamingRecord

#: The fields of a naming row, in the order both writers give them (:func:`store`,
#: ``live._write_statement``).
NAMING_FIELDS = (
    "session", "participant", "user", "action_index", "symbol", "symbol_key",
    "symbol_number", "symbol_name", "text", "correct", "dont_know", "created",
)  # fmt: skip


@functools.cache
def naming_columns() -> str:
    """The quoted columns of :data:`NAMING_FIELDS`, as an ``INSERT`` lists them."""
    column = {field.name: str(field.column) for field in NamingRecord._meta.concrete_fields}
    return ", ".join(connection.ops.quote_name(column[name]) for name in NAMING_FIELDS)


#: Writes on the loop's connection between two checkpoints asked of the database thread.
CHECKPOINT_EVERY = 200
#: While another writer holds the lock, the loop tries again every LOCK_PAUSE seconds (its
#: other sockets go on meanwhile), for LOCK_WAIT seconds at most; then the database thread waits.
LOCK_PAUSE = 0.002
LOCK_WAIT = 0.2


#: What :func:`store` answers: sessions written (1 or 0), and the class lobby's version.
Written = tuple[int, int | None]


def store(cursor: Any, session_id: int, stored: Stored, state: str, lobby_id: int | None) -> Written:
    """Run the action's writes on ``cursor`` (a DB-API cursor on SQLite, in a transaction
    the caller opened): how many sessions were written (1, or 0 when the version moved on
    and nothing was), and the version of the class lobby ``lobby_id`` (``None`` without one).

    ``?`` placeholders: the sqlite3 module's own, which Django's cursor passes through too.
    """
    quote = connection.ops.quote_name
    at = connection.ops.adapt_datetimefield_value(stored.at)  # no database: the text SQLite stores
    sessions = quote(GameSession._meta.db_table)
    status = GameSession.Status.FINISHED if stored.ended else GameSession.Status.RUNNING
    cursor.execute(
        f"""UPDATE {sessions}
        SET state = ?, version = version + 1, updated = ?, status = ?, finished_at = coalesce(?, finished_at)
        WHERE id = ? AND version = ? AND status = ?""",
        [state, at, status, at if stored.ended else None]
        + [session_id, stored.index, GameSession.Status.RUNNING],
    )
    if cursor.rowcount != 1:
        return 0, None
    cursor.execute(
        f"""INSERT INTO {quote(ActionRecord._meta.db_table)}
        (session_id, {quote("index")}, player_id, action, created) VALUES (?, ?, ?, ?, ?)""",
        [session_id, stored.index, stored.player_id, json.dumps(stored.action), at],
    )
    if stored.namings:
        symbol = f"(SELECT id FROM {quote(Symbol._meta.db_table)} WHERE id = ?)"
        cursor.executemany(
            f"""INSERT INTO {quote(NamingRecord._meta.db_table)} ({naming_columns()})
            VALUES (?, ?, ?, ?, {symbol}, ?, ?, ?, ?, ?, ?, ?)""",
            [
                (session_id, row.participant_id, row.user_id, stored.index, row.symbol_id, row.symbol_key)
                + (row.symbol_number, row.symbol_name, row.text, row.correct, row.dont_know, at)
                for row in stored.namings
            ],
        )
    if lobby_id is None:
        return 1, None
    cursor.execute(f"SELECT version FROM {sessions} WHERE id = ?", [lobby_id])
    found = cursor.fetchone()
    return 1, None if found is None else found[0]


class LoopWriter:
    """An event loop's own connection to the SQLite database, opened at its first write."""

    def __init__(self) -> None:
        self.connection: sqlite3.Connection | None = None
        self.writes = 0
        #: Held by the loop's write in progress, retries included (``live._write``).
        self.turn = asyncio.Lock()

    def _opened(self) -> sqlite3.Connection:
        if self.connection is None:
            django = connections["default"]
            # Django's parameters: the file, or a URI (the tests' database in shared memory).
            params = django.get_connection_params()
            params.pop("detect_types", None)
            opened = sqlite3.connect(**{**params, "timeout": 0, "isolation_level": None})
            # WAL, NORMAL sync: as every connection of the process (``config/settings.py``).
            for command in django.settings_dict["OPTIONS"].get("init_command", "").split(";"):
                if command.strip():
                    opened.execute(command)
            # Never wait for the lock on the loop, and leave the checkpoints to the database thread.
            opened.execute("PRAGMA busy_timeout = 0")
            opened.execute("PRAGMA wal_autocheckpoint = 0")
            self.connection = opened
        return self.connection

    def write(self, session_id: int, stored: Stored, state: str, lobby_id: int | None) -> Written | None:
        """:func:`store` in a transaction of its own; ``None`` when it could not (another
        writer holds the lock, or anything else went wrong): nothing was written, and the
        caller stores it on the database thread instead."""
        try:
            db = self._opened()
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            return None
        try:
            done = store(db.cursor(), session_id, stored, state, lobby_id)
            db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            return None
        self.writes += 1
        return done

    def checkpoint_due(self) -> bool:
        """Whether the write-ahead log should be copied back now (every :data:`CHECKPOINT_EVERY` writes)."""
        return self.writes > 0 and self.writes % CHECKPOINT_EVERY == 0

    def close(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(sqlite3.Error):
                self.connection.close()
            self.connection = None


def checkpoint() -> None:
    """Copy the write-ahead log back into the database as far as no reader needs it
    (``PASSIVE``: it waits for no one), on a database thread's Django connection."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
