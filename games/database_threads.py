"""The pool of threads that run the live path's database work off the event loop.

``LIVE_DB_THREADS`` threads (default 8): Channels' ``database_sync_to_async`` runs every
consumer's database call of a process on one thread, so each call waited for all the
others' round trips. SQLite (the embedded mode) has one thread of its own, as it writes
one at a time anyway: not Channels' one, which the process's page requests share, so an
action never waits behind a page being rendered (``bench/bench_embedded.py``).

Each thread keeps a connection of its own. With the connection pool (``config/settings.py``)
it takes it from the process's pool, which has room for ``LIVE_DB_THREADS`` of them beside
the requests' ``DB_POOL_MAX_SIZE``, and keeps it: a game's calls then never wait behind a
burst of page requests for a connection (a WebSocket's opening handshake that waits more
than daphne's five seconds is dropped), and save the pool's round of taking and giving back
per call. Only a broken connection, or one left out of autocommit, is given back. Without
the pool each thread keeps its own for ``CONN_MAX_AGE``, as Django does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection, connections

from games.engines.base import ActionError

T = TypeVar("T")
_executor: ThreadPoolExecutor | None = None
_executor_threads = 0
_executor_lock = threading.Lock()


def _database_threads() -> ThreadPoolExecutor | None:
    """The consumers' database threads: one on SQLite, which writes one at a time anyway;
    ``None`` with ``LIVE_DB_THREADS`` below 1 (Channels' single thread)."""
    global _executor, _executor_threads
    # Threads of a process that run the consumers' database work, each on a connection of
    # its own (``LIVE_DB_THREADS``). Channels' default runs every consumer's database call
    # on one thread per process, so each waited for all the others' round trips.
    threads = getattr(settings, "LIVE_DB_THREADS", 8)
    if threads < 1:
        return None
    if connection.vendor == "sqlite":
        threads = 1
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="live-db")
            _executor_threads = threads
        return _executor


def _with_connections(function: Callable[..., T], *args: Any) -> T:
    _connections_checked()
    try:
        return function(*args)
    finally:
        _connections_checked()


def _connections_checked() -> None:
    """Close this thread's broken connections; keep the others (see the module's docstring)."""
    if not settings.DATABASES["default"].get("OPTIONS", {}).get("pool"):
        # As Channels' database_sync_to_async: drop connections past CONN_MAX_AGE or broken.
        close_old_connections()
        return
    for conn in connections.all(initialized_only=True):
        if conn.connection is None:
            continue
        # Django's rules (close_if_unusable_or_obsolete) without the age: with the pool,
        # CONN_MAX_AGE is 0 and would give the connection back after every call.
        if conn.get_autocommit() != conn.settings_dict["AUTOCOMMIT"]:
            conn.close()
        elif conn.errors_occurred:
            if conn.is_usable():
                conn.errors_occurred = False
            else:
                conn.close()


async def in_database_thread(function: Callable[..., T], *args: Any) -> T:
    """Run ``function(*args)``, which uses the database, off the event loop.

    A refusal (``ActionError``: a lost STOP race, an action out of turn) comes out without
    the traceback of the thread's work. That traceback led back, through asgiref's futures,
    to the exception itself: a reference cycle that kept the session's decoded row and
    states until a full garbage collection found it. A refusal is answered to its socket and
    never logged, so nothing reads those frames; without them everything is freed at once.
    """
    executor = _database_threads()
    try:
        if executor is None:
            return await database_sync_to_async(function)(*args)
        return await sync_to_async(_with_connections, thread_sensitive=False, executor=executor)(
            function, *args
        )
    except ActionError as refusal:
        raise refusal.with_traceback(None) from None


def database_threads_close() -> None:
    """Close the database connections of every database thread (tests: before the test
    database is dropped)."""
    global _executor
    with _executor_lock:
        executor, _executor = _executor, None
    if executor is None:
        return
    workers = _executor_threads
    barrier = threading.Barrier(workers)

    def close() -> None:
        # Each waits for the others, so every thread of the pool runs exactly one.
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=5)
        connections.close_all()

    for job in [executor.submit(close) for _ in range(workers)]:
        job.result()
    executor.shutdown(wait=True)
