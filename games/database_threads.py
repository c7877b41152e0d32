"""The pool of threads that run the live path's database work off the event loop.

``LIVE_DB_THREADS`` threads (default 8): Channels' ``database_sync_to_async`` runs every
consumer's database call of a process on one thread, so each call waited for all the
others' round trips. SQLite keeps that single thread: it writes one at a time anyway (the
embedded mode).

A thread holds a connection only for the length of a call: with the connection pool
(``DB_POOL_MAX_SIZE``, ``config/settings.py``) it takes one from the process's pool and
gives it back after, so the threads add no connections to the pool's bound, and there are
never more threads than the pool has connections. Without the pool each thread keeps its
own for ``CONN_MAX_AGE``.
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

T = TypeVar("T")
_executor: ThreadPoolExecutor | None = None
_executor_threads = 0
_executor_lock = threading.Lock()


def _database_threads() -> ThreadPoolExecutor | None:
    """The consumers' database threads; ``None`` on SQLite, which writes one at a time anyway
    (the embedded mode keeps Channels' single thread)."""
    global _executor, _executor_threads
    # Threads of a process that run the consumers' database work, each on a connection of
    # its own (``LIVE_DB_THREADS``). Channels' default runs every consumer's database call
    # on one thread per process, so each waited for all the others' round trips.
    threads = getattr(settings, "LIVE_DB_THREADS", 8)
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    if isinstance(pool, dict):
        # More threads than connections would only wait on the pool for each other.
        threads = min(threads, int(pool.get("max_size", threads)))
    if connection.vendor == "sqlite" or threads < 1:
        return None
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="live-db")
            _executor_threads = threads
        return _executor


def _with_connections(function: Callable[..., T], *args: Any) -> T:
    # As Channels' database_sync_to_async: drop connections past CONN_MAX_AGE or broken;
    # with the pool (CONN_MAX_AGE=0) the one this call took goes back to it.
    close_old_connections()
    try:
        return function(*args)
    finally:
        close_old_connections()


async def in_database_thread(function: Callable[..., T], *args: Any) -> T:
    """Run ``function(*args)``, which uses the database, off the event loop."""
    executor = _database_threads()
    if executor is None:
        return await database_sync_to_async(function)(*args)
    return await sync_to_async(_with_connections, thread_sensitive=False, executor=executor)(function, *args)


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
