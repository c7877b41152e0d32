"""A Celery worker in a process of its own, for tests that kill it (``tests.slow_worker``).

The worker is ``celery -A config worker`` as production runs it (the prefork pool), on
the test database (the transactional tests commit, so it sees their rows), the real
broker and the test's media folder. Needs PostgreSQL and Redis: skipped without them on
a laptop, failed under CI=true.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parent.parent


def require_services() -> None:
    problem = None
    if not settings.REDIS_URL:
        problem = "REDIS_URL is not set"
    elif "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        problem = "the tests do not run on PostgreSQL (DATABASE_URL)"
    if problem:
        if IN_CI:
            pytest.fail(f"{problem}: the worker-lost tests need PostgreSQL and Redis.")
        pytest.skip(f"{problem}: the worker-lost tests need PostgreSQL and Redis (CI runs them).")


def _database_url() -> str:
    """pytest-django's test database, as a URL the worker's settings read."""
    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "")
    password = quote(db.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    return f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


class Worker:
    """A running worker: ``pool_pid()`` is its one pool process, the one running a task.

    The worker leads a process group of its own (its main process, its pool process and
    their render processes), so a test can kill all of it at once (``kill_all``).
    """

    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process, self.log = process, log

    def pool_pid(self) -> int:
        children = _children(self.process.pid)
        assert len(children) == 1, f"expected one pool process, found {children}"
        return children[0]

    def kill_pool(self) -> int:
        """SIGKILL the pool process, as the out-of-memory killer would."""
        pid = self.pool_pid()
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill_all(self) -> None:
        """SIGKILL the whole worker (its process group), as an out-of-memory kill of its
        container or ``kill -9`` of its service would: nothing is acknowledged."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def worker_process(tmp_path: Path, hold_file: Path, **env: str) -> Iterator[Worker]:
    """Start ``python -m tests.slow_worker worker`` (prefork, one pool process); stop it after."""
    from config.celery import app

    app.control.purge()  # nothing another test left in the queue
    log = tmp_path / "worker.log"
    environment = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "TALIA_TEST_HOLD_FILE": str(hold_file),
        "JOBS_HEARTBEAT_SECONDS": "1",
        **env,
    }
    command = [
        sys.executable,
        "-m",
        "tests.slow_worker",
        "worker",
        "--pool=prefork",
        "--concurrency=1",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"killed-{os.getpid()}-{time.monotonic_ns()}@%h",
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    worker = Worker(process, log)
    try:
        yield worker
    finally:
        hold_file.unlink(missing_ok=True)
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            for child in _children(process.pid):
                os.kill(child, signal.SIGKILL)
            process.kill()
            process.wait(timeout=10)


def wait_for(check: Callable[[], Any], what: str, worker: Worker, timeout: float = 90) -> Any:
    """Poll ``check`` until it returns something true; fail with the worker's log if it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        assert worker.process.poll() is None, f"the worker exited:\n{worker.output()[-4000:]}"
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}; worker log:\n{worker.output()[-4000:]}")


@contextmanager
def _broker_channel() -> Iterator[Any]:
    from config.celery import app

    with app.connection_for_write() as connection:
        yield connection.default_channel


def unacknowledged() -> int:
    """How many tasks workers took from Redis without acknowledging them (kombu's
    ``unacked`` hash, which Redis hands out again after the visibility timeout)."""
    with _broker_channel() as channel:
        return int(channel.client.hlen(channel.unacked_key))


def forget_unacknowledged() -> None:
    """Drop what killed workers of earlier tests left unacknowledged, so that a fresh
    worker hands out again only the test's own task."""
    with _broker_channel() as channel:
        channel.client.delete(channel.unacked_key, channel.unacked_index_key)
