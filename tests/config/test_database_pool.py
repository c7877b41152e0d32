"""The database connection pool (PostgreSQL): the settings build a pool with the bound the
environment gives, and many threads doing queries at once never hold more connections than
that bound; the live path's database threads keep theirs within it
(``config/settings.py``, ``games/database_threads.py``).

Each test starts a fresh Python with the environment it describes (settings are read
once, at import), connected to the test database; it counts the database's backends that
carry an ``application_name`` of its own, from a connection outside the pool, while the
threads run. PostgreSQL only: on SQLite the tests skip, and under CI=true they fail.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from django.db import connection

from tests.config.test_settings import _env, _python
from tests.conftest import IN_CI

pytestmark = pytest.mark.django_db


@pytest.fixture
def postgresql_url(db: None) -> str:
    """The test database's URL, for a fresh Python to connect to."""
    if connection.vendor != "postgresql":
        reason = "The connection pool is PostgreSQL's: set DATABASE_URL to a PostgreSQL database."
        if IN_CI:
            pytest.fail(f"{reason} Under CI=true these tests never skip.", pytrace=False)
        pytest.skip(reason)
    params = connection.settings_dict
    user = params["USER"] or "postgres"
    password = f":{params['PASSWORD']}" if params["PASSWORD"] else ""
    host, port = params["HOST"] or "127.0.0.1", params["PORT"] or "5432"
    return f"postgres://{user}{password}@{host}:{port}/{params['NAME']}"


#: Counts the backends named ``APP`` every 5 ms from a connection of its own while
#: ``work()`` runs; prints what the settings made, the peak and what the threads saw.
COUNTING = """
import json, threading, time
import psycopg
from django.conf import settings
from django.db import connection, connections

APP = settings.DATABASES["default"]["OPTIONS"]["application_name"]
peak = 0
stop = threading.Event()

def count():
    global peak
    params = {**connection.get_connection_params()}
    for key in ("cursor_factory", "context", "application_name"):
        params.pop(key, None)
    with psycopg.connect(**params, autocommit=True) as watcher:
        while not stop.is_set():
            (now,) = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP]
            ).fetchone()
            peak = max(peak, now)
            time.sleep(0.005)

watcher = threading.Thread(target=count)
watcher.start()
time.sleep(0.2)
try:
    pids, failures = work()
finally:
    stop.set()
    watcher.join()
print("OUT " + json.dumps({
    "pool": settings.DATABASES["default"]["OPTIONS"].get("pool"),
    "conn_max_age": settings.DATABASES["default"]["CONN_MAX_AGE"],
    "pool_max_size": connection.pool.max_size if connection.pool else None,
    "peak": peak,
    "pids": len(set(pids)),
    "queries": len(pids),
    "failures": failures,
    "live": globals().get("live_pids"),
}))
"""

#: N threads, each answering "requests": a few queries that take a while, then the
#: connection given back as Django does at the end of a request.
THREADS = """
import threading
from django.db import close_old_connections

def work():
    pids, failures = [], []
    def request_loop():
        try:
            for _ in range(REQUESTS):
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_backend_pid() FROM pg_sleep(0.02)")
                    pids.append(cursor.fetchone()[0])
                close_old_connections()  # request_finished's handler
        except Exception as error:
            failures.append(repr(error))
    threads = [threading.Thread(target=request_loop) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return pids, failures
"""

#: Requests on 12 threads and, at the same time, as many calls through the live path's
#: database threads; the pids each side saw are told apart.
DATABASE_THREADS = (
    THREADS.replace("def work():", "def requests():")
    + """
import asyncio
from games import database_threads

def query():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid() FROM pg_sleep(0.02)")
        return cursor.fetchone()[0]

def work():
    global live_pids
    async def calls():
        return await asyncio.gather(
            *(database_threads.in_database_thread(query) for _ in range(THREADS * REQUESTS)),
            return_exceptions=True,
        )
    pages = threading.Thread(target=lambda: answers.append(requests()))
    answers = []
    pages.start()
    live = asyncio.run(calls())
    pages.join()
    (page_pids, failures), = answers
    live_pids = sorted(set(a for a in live if isinstance(a, int)))
    assert database_threads._database_threads()._max_workers == settings.LIVE_DB_THREADS
    return page_pids + [a for a in live if isinstance(a, int)], failures + [
        repr(a) for a in live if not isinstance(a, int)
    ]
"""
)


def _run_counting(tmp_path: Path, url: str, body: str, **variables: str) -> dict:
    app = f"talia-pool-{secrets.token_hex(4)}"
    env = _env(tmp_path / "var", DATABASE_URL=f"{url}?application_name={app}", **variables)
    return _python(f"import json\nTHREADS = 12\nREQUESTS = 5\n{body}\n{COUNTING}", env)


def test_settings_make_a_pool_with_the_bound_of_the_environment(tmp_path: Path, postgresql_url: str) -> None:
    """DB_POOL_* become Django's pool options (CONN_MAX_AGE 0, as Django's pool requires),
    and 12 threads of 5 requests each share at most DB_POOL_MAX_SIZE=3 connections."""
    out = _run_counting(
        tmp_path,
        postgresql_url,
        THREADS,
        DB_POOL_MIN_SIZE="1",
        DB_POOL_MAX_SIZE="3",
        DB_POOL_TIMEOUT="20",
        LIVE_DB_THREADS="0",  # no room kept for them
    )

    assert out["pool"] == {"min_size": 1, "max_size": 3, "timeout": 20.0}
    assert out["conn_max_age"] == 0
    assert out["pool_max_size"] == 3
    assert out["failures"] == []
    assert out["queries"] == 12 * 5
    assert 1 <= out["peak"] <= 3, out
    assert out["pids"] <= 3, out


def test_the_default_pool_bound(tmp_path: Path, postgresql_url: str) -> None:
    """Without DB_POOL_* the pool holds at most 10 connections for requests and 8 for the
    live path's database threads (docs/deploy.md)."""
    out = _run_counting(tmp_path, postgresql_url, THREADS)

    assert out["pool"] == {"min_size": 1, "max_size": 10 + 8, "timeout": 10.0}
    assert out["failures"] == []
    assert out["peak"] <= 18, out


def test_live_database_threads_keep_their_connections_within_the_pool(
    tmp_path: Path, postgresql_url: str
) -> None:
    """The live path's 4 database threads each keep a connection of the pool, which has
    room for them beside the requests' 3: 60 calls through them and 60 requests on 12
    threads at once never hold more than 3 + 4 connections, and the calls ran on at most 4."""
    out = _run_counting(
        tmp_path,
        postgresql_url,
        DATABASE_THREADS,
        DB_POOL_MIN_SIZE="0",
        DB_POOL_MAX_SIZE="3",
        LIVE_DB_THREADS="4",
        DB_POOL_TIMEOUT="20",
    )

    assert out["pool"]["max_size"] == 3 + 4
    assert out["failures"] == []
    assert out["queries"] == 2 * 12 * 5
    assert 1 <= out["peak"] <= 7, out
    assert 1 <= len(out["live"]) <= 4, out


def test_without_the_pool_each_thread_keeps_a_connection(tmp_path: Path, postgresql_url: str) -> None:
    """DB_POOL_MAX_SIZE=0 turns the pool off (behind PgBouncer): then, as the counter shows,
    every thread holds a connection of its own, more than a pool of 3 would allow."""
    out = _run_counting(tmp_path, postgresql_url, THREADS, DB_POOL_MAX_SIZE="0", CONN_MAX_AGE="60")

    assert out["pool"] is None
    assert out["conn_max_age"] == 60
    assert out["failures"] == []
    assert out["peak"] > 3, out
