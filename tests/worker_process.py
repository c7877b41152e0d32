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
from typing import Any, TypeVar
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db.models import Model

from content.models import BuildState
from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parent.parent

#: Seconds without a heartbeat before a sweep calls a job lost, in these tests (the
#: worker beats every second, ``JOBS_HEARTBEAT_SECONDS`` below).
STALE = 3
#: The worker's Redis visibility timeout in the whole-worker tests (production: two hours).
VISIBILITY = 4
#: The settings of a worker that is killed whole: Redis hands its task out again after
#: ``VISIBILITY``, and the next worker takes over a job silent for ``STALE``.
REDELIVERY = {"CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY), "JOBS_STALE_SECONDS": str(STALE)}
#: Waited past a deadline, so that the deadline has surely passed.
MARGIN = 0.5

T = TypeVar("T")


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


def worker_test_hold(tmp_path: Path, test_settings: Any) -> Path:
    """The start of every test with a real worker: PostgreSQL and Redis or a skip
    (``require_services``), nothing left unacknowledged by earlier tests' killed workers,
    and this process's sweeps calling a job lost after ``STALE`` seconds
    (``test_settings`` is pytest-django's ``settings``). Returns the hold file, not yet
    there: while it exists, the worker's jobs wait (``tests.slow_worker``)."""
    require_services()
    forget_unacknowledged()
    test_settings.JOBS_STALE_SECONDS = STALE
    return tmp_path / "hold"


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
    tmp_path.mkdir(parents=True, exist_ok=True)
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


def wait_started(worker: Worker, job: Model, what: str) -> None:
    """Until the worker has shown progress on ``job`` (a deck, a print or a quiz)."""
    rows = type(job)._default_manager.filter(pk=job.pk)
    wait_for(lambda: rows.filter(state=BuildState.RUNNING, progress__gt=0).exists(), what, worker)


def wait_ended(worker: Worker, job: Model, what: str) -> None:
    """Until ``job`` (a deck, a print or a quiz) is done or failed."""
    rows = type(job)._default_manager.filter(pk=job.pk)
    wait_for(lambda: rows.exclude(state__in=[BuildState.QUEUED, BuildState.RUNNING]).exists(), what, worker)


def sweeps_around_a_kill(worker: Worker, sweep: Callable[[], T]) -> tuple[T, T]:
    """Sweep once a held job has shown no progress for a whole stale window (only its
    heartbeat says its worker lives), then SIGKILL the pool process and sweep again until
    the sweep finds something, or a stale window and more has passed: the two answers."""
    time.sleep(STALE + MARGIN)  # the progress just seen is stale when this ends
    alive = sweep()
    worker.kill_pool()
    deadline = time.monotonic() + STALE + 3 * MARGIN
    killed = sweep()
    while killed == alive and time.monotonic() < deadline:
        time.sleep(0.1)
        killed = sweep()
    return alive, killed


def kill_whole_worker(worker: Worker) -> None:
    """SIGKILL the worker's every process mid-task; its task stays unacknowledged in Redis.
    Returns once Redis may hand the task out again (``VISIBILITY`` after it was delivered)
    and the job's last heartbeat is stale (``STALE`` after the kill), so that a worker
    started now takes the job over."""
    worker.kill_all()
    killed = time.time()
    assert unacknowledged() == 1
    with _broker_channel() as channel:
        delivered = max(score for _tag, score in channel.client.zscan_iter(channel.unacked_index_key))
    time.sleep(max(0.0, max(delivered + VISIBILITY, killed + STALE) + MARGIN - time.time()))


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
