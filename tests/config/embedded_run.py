"""``make run``'s own processes, started by the tests: ``python -m config.embedded`` as the
Makefile runs it, on a fresh SQLite database in a folder of the test's own.

The environment is the embedded mode's: no ``DATABASE_URL``, ``REDIS_URL`` or broker, so
the processes use SQLite, the filesystem broker and the in-memory channel layer, whatever
the test run itself uses.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from config.embedded import BASE_DIR
from config.environment import environment_without_settings
from tests.database_template import fingerprint
from tests.parallel import SHARED_VAR_DIR

BOOT_SECONDS = 120


def embedded_env(var: Path) -> dict[str, str]:
    env = environment_without_settings()
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set while the tests' chromium runs
    env["TALIA_VAR_DIR"] = str(var)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def manage(var: Path, *args: str) -> str:
    """``manage.py ARGS`` against the embedded database in ``var``; its standard output."""
    done = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        env=embedded_env(var),
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@functools.cache
def _migrated() -> Path:
    """A SQLite database as ``manage.py migrate`` leaves it in an empty folder, made once
    for all the test workers of a run (and the runs after it, until the code the
    migrations run changes: ``tests/database_template.py``'s fingerprint names the file).
    The workers take turns with a file lock; the database is migrated in a folder of its
    own and moved into place only when the migrations have all run."""
    shared = Path(SHARED_VAR_DIR)
    shared.mkdir(parents=True, exist_ok=True)
    database = shared / f"test-migrated-{fingerprint()}.sqlite3"
    with open(shared / "test-migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not database.exists():
            for stale in shared.glob("test-migrated-*.sqlite3"):
                stale.unlink()
            var = Path(tempfile.mkdtemp(prefix="test-migrating-", dir=shared))
            try:
                manage(var, "migrate", "--noinput", "--verbosity", "0")
                leftovers = [p.name for p in var.iterdir() if p.name.startswith("talia.sqlite3-")]
                assert not leftovers, (
                    f"migrate left {leftovers}: a copy of the database alone would lose writes"
                )
                os.replace(var / "talia.sqlite3", database)
            finally:
                shutil.rmtree(var, ignore_errors=True)
    return database


def migrate(var: Path) -> None:
    """What ``make setup``'s ``migrate`` makes of an empty ``var``: a copy of one database
    migrated once (migrating SQLite from nothing costs about 9 CPU seconds, and every test
    of ``make run``'s processes starts from the same database)."""
    var.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_migrated(), var / "talia.sqlite3")


def prepare(var: Path) -> None:
    """What ``make setup`` does before ``make run`` serves: the database and the static files."""
    migrate(var)
    manage(var, "collectstatic", "--noinput", "--verbosity", "0")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Running:
    process: subprocess.Popen[str]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _wait_for_web(running: Running) -> None:
    deadline = time.monotonic() + BOOT_SECONDS
    while time.monotonic() < deadline:
        assert running.process.poll() is None, running.output()
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{running.url}healthz", timeout=2) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.3)
    raise AssertionError(f"the web server did not answer in {BOOT_SECONDS} s:\n{running.output()}")


def _wait_for_worker(var: Path) -> None:
    env = {**embedded_env(var), "CELERY_BROKER_URL": "filesystem://"}
    deadline = time.monotonic() + BOOT_SECONDS
    while time.monotonic() < deadline:
        ping = subprocess.run(
            [sys.executable, "-m", "celery", "-A", "config", "inspect", "ping", "--timeout", "2"],
            env=env,
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if ping.returncode == 0:
            return
    raise AssertionError(f"the worker did not answer in {BOOT_SECONDS} s")


@contextlib.contextmanager
def make_run(var: Path, *, host: str = "127.0.0.1", ready: bool = True) -> Iterator[Running]:
    """``make run``'s processes, in a process group of their own (the terminal's, for Ctrl-C).

    With ``ready``, the web server answers and the worker has started consuming before
    the block runs. Everything is stopped afterwards, whatever the block did.
    """
    port = free_port()
    log = var / "make-run.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "config.embedded", "--host", host, "--port", str(port)],
            env=embedded_env(var),
            cwd=BASE_DIR,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    running = Running(process=process, url=f"http://127.0.0.1:{port}/", log=log)
    try:
        if ready:
            _wait_for_web(running)
            _wait_for_worker(var)
        yield running
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for pid in descendants_left(var):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def descendants_left(var: Path) -> list[int]:
    """Processes still running with this test's ``TALIA_VAR_DIR``: what a stop left behind."""
    marker = f"TALIA_VAR_DIR={var}".encode()
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and marker in environ.split(b"\0"):
            left.append(int(entry.name))
    return left
