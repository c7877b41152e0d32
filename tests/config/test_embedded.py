"""``make run`` (``config.embedded``): which hosts it serves, what it starts, and that Ctrl-C
stops all of it.

The address logic is checked as plain functions; the stop is checked on the real
processes ``make run`` starts (``tests.config.embedded_run``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from config import embedded
from games.engines import znajznak
from games.stored_state import state_restored
from tests.config.embedded_run import descendants_left, make_run, manage, migrate
from tests.games.test_live_fast_path import scripted_move
from tests.production.websocket import WebSocket

# --- the addresses ----------------------------------------------------------------------------


def test_a_loopback_server_answers_to_loopback_names_only():
    assert embedded.allowed_hosts_for("127.0.0.1", ["192.168.1.23", "laptop"]) == [
        "127.0.0.1",
        "localhost",
        "[::1]",
    ]


def test_serving_every_interface_allows_the_machines_addresses_too():
    hosts = embedded.allowed_hosts_for("0.0.0.0", ["192.168.1.23", "laptop", "laptop.local"])

    assert hosts == ["127.0.0.1", "localhost", "[::1]", "192.168.1.23", "laptop", "laptop.local"]


def test_an_operators_allowed_hosts_are_kept_and_not_repeated():
    hosts = embedded.allowed_hosts_for("0.0.0.0", ["192.168.1.23"], ["talia.school.example", "localhost"])

    assert hosts == ["talia.school.example", "localhost", "127.0.0.1", "[::1]", "192.168.1.23"]


def test_a_server_bound_to_one_address_allows_that_address():
    assert embedded.allowed_hosts_for("10.0.0.5", ["192.168.1.23"])[-1] == "10.0.0.5"
    assert embedded.allowed_hosts_for("fd00::5", [])[-1] == "[fd00::5]"


def test_the_printed_addresses_are_the_machines_own_and_phones_get_the_lan_one():
    assert embedded.site_urls("127.0.0.1", 8000, "192.168.1.23") == ("http://127.0.0.1:8000/", None)
    assert embedded.site_urls("0.0.0.0", 8000, "192.168.1.23") == (
        "http://127.0.0.1:8000/",
        "http://192.168.1.23:8000/",
    )
    assert embedded.site_urls("0.0.0.0", 8000, None) == ("http://127.0.0.1:8000/", None)
    assert embedded.site_urls("10.0.0.5", 8080, None) == ("http://10.0.0.5:8080/", "http://10.0.0.5:8080/")


def test_the_lan_address_is_one_of_this_machines_and_never_loopback():
    address = embedded.lan_address()

    if address is not None:  # a machine without a network has none
        assert not ipaddress.ip_address(address).is_loopback
        # It is this machine's: a socket can be bound to it.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))


# --- the two processes --------------------------------------------------------------------------


def test_the_worker_relays_to_the_web_server_and_both_use_the_folder_broker():
    started = embedded.commands("127.0.0.1", 8123, {"PATH": "/bin", "LIVE_RELAY_URL": "stale"})
    (web, web_env), (worker, worker_env) = started["web"], started["worker"]

    assert web[-3:] == ["runserver", "--noreload", "127.0.0.1:8123"]
    assert worker[1:6] == ["-m", "celery", "-A", "config", "worker"]
    assert web_env["CELERY_BROKER_URL"] == worker_env["CELERY_BROKER_URL"] == "filesystem://"
    # The web process keeps its sockets in memory; only the worker relays to it.
    assert "LIVE_RELAY_URL" not in web_env
    assert worker_env["LIVE_RELAY_URL"] == "http://127.0.0.1:8123/live-relay"
    assert "ALLOWED_HOSTS" not in web_env  # the settings' loopback default


def test_serving_the_network_sets_the_allowed_hosts_of_both_and_relays_over_loopback():
    started = embedded.commands("0.0.0.0", 8000, {"ALLOWED_HOSTS": "talia.example"}, ["192.168.1.23"])
    (web, web_env), (_worker, worker_env) = started["web"], started["worker"]

    assert web[-1] == "0.0.0.0:8000"
    assert web_env["ALLOWED_HOSTS"] == worker_env["ALLOWED_HOSTS"]
    assert web_env["ALLOWED_HOSTS"].split(",") == [
        "talia.example",
        "127.0.0.1",
        "localhost",
        "[::1]",
        "192.168.1.23",
    ]
    assert worker_env["LIVE_RELAY_URL"] == "http://127.0.0.1:8000/live-relay"


def test_the_settings_read_the_allowed_hosts_make_run_gives(tmp_path):
    _web, web_env = embedded.commands(
        "0.0.0.0", 8000, {**os.environ, "TALIA_VAR_DIR": str(tmp_path)}, ["192.168.1.23"]
    )["web"]
    web_env.pop("DATABASE_URL", None)

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings; print(','.join(settings.ALLOWED_HOSTS))",
        ],
        env={**web_env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        cwd=embedded.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert "192.168.1.23" in done.stdout.strip().split(",")


def _runserver_processes(var: Path) -> list[int]:
    """The processes of ``make run`` in ``var`` that run ``manage.py runserver``."""
    found = []
    for pid in descendants_left(var):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"runserver" in argv:
            found.append(pid)
    return found


# --- Ctrl-C -----------------------------------------------------------------------------------


@pytest.mark.embedded
def test_ctrl_c_stops_the_web_server_and_the_worker_once_and_cleanly(tmp_path: Path):
    var = tmp_path / "var"
    migrate(var)

    with make_run(var) as running:
        # The supervisor, the web server (no autoreloader beside it), the worker.
        assert len(descendants_left(var)) >= 3, running.output()
        assert len(_runserver_processes(var)) == 1, running.output()
        started = time.monotonic()
        os.killpg(running.process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
        code = running.process.wait(timeout=embedded.STOP_SECONDS + 10)
        stopped_in = time.monotonic() - started

        output = running.output()
        assert code == 0, output
        assert descendants_left(var) == [], output
        assert stopped_in < embedded.STOP_SECONDS + 5, output
        assert "Segmentation fault" not in output
        # The worker heard the stop once and shut down warm (the old trap repeated it thousands of times).
        assert output.count("Warm shutdown") == 1, output
        assert "did not stop" not in output, output


# --- a duel on make run's own server ------------------------------------------------------------

#: A teacher's running duel of two students (the tests' factories, run by manage.py shell
#: against the embedded database), and each student's session cookie.
DUEL = """
import json
from django.conf import settings
from django.test import Client
from games import services
from tests.factories import TeacherFactory, UserFactory
from tests.games.test_sessions import create_session, znajznak_setup
teacher, ala, olek = TeacherFactory(), UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
session = create_session(teacher, seed=7, setup=znajznak_setup(cards_per_player=3))
cookies = {}
for player, user in (("p1", ala), ("p2", olek)):
    services.session_join(session=session, user=user)
    client = Client()
    client.force_login(user)
    cookies[player] = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
services.session_start(session=session, by=teacher)
print(json.dumps({"session": session.pk, "cookies": cookies}))
"""

#: What the embedded database holds of the duel once it is over: the log replayed from the
#: stored actions against the stored state, the action indexes, the namings.
STORED = """
import json
from games.models import GameSession, NamingRecord
from games.replay import log_replay, session_log
session = GameSession.objects.get(pk={pk})
replay = log_replay(session_log(session))
print(json.dumps({{
    "status": session.status,
    "version": session.version,
    "indexes": list(session.actions.order_by("index").values_list("index", flat=True)),
    "replays": replay.error is None and replay.state == session.state,
    "namings": NamingRecord.objects.filter(session=session).count(),
}}))
"""


def _stored_state(var: Path, session_id: int) -> Any:
    """The duel's state as the embedded database holds it now (read only; the row's form,
    ``games.stored_state``, put back together with the setup)."""
    with contextlib.closing(sqlite3.connect(f"file:{var / 'talia.sqlite3'}?mode=ro", uri=True)) as db:
        setup, state = db.execute(
            "SELECT setup, state FROM games_gamesession WHERE id = ?", [session_id]
        ).fetchone()
    return znajznak.state_from_dict(state_restored(json.loads(state), json.loads(setup)))


#: Moves made while another connection holds SQLite's write lock, and for how long (s): less
#: than the loop tries again for (``live_sqlite.LOCK_WAIT``), and more.
LOCK_HELD = {1: 0.1, 3: 0.6}


@contextlib.contextmanager
def _write_lock_held(var: Path) -> Iterator[sqlite3.Connection]:
    """Another writer on the embedded database, holding its write lock until it rolls back."""
    with contextlib.closing(sqlite3.connect(var / "talia.sqlite3", timeout=5, isolation_level=None)) as db:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        finally:
            if db.in_transaction:
                db.rollback()


async def _state_at(socket: WebSocket, version: int) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
        assert message["type"] == "state", message
        if message["version"] >= version:
            return message


@pytest.mark.embedded
def test_a_duel_over_make_runs_sockets_is_stored_as_its_log_replays(tmp_path: Path):
    """Two students play a duel to its end over the game's WebSockets on ``make run``'s own
    server (SQLite, one process: every action takes the live fast path, ``games.live``),
    with a wrong STOP, names right, wrong and not known, as ``test_live_fast_path.py``'s
    scripted game; two of its moves are made while another writer holds SQLite's write
    lock, shorter and longer than the fast path tries again for. The database then holds one action per version from 0, a state that the
    stored log replays to, the namings, and the end."""
    var = tmp_path / "var"
    migrate(var)
    duel = json.loads(manage(var, "shell", "--command", DUEL).strip().splitlines()[-1])
    session_id = duel["session"]

    async def play(port: int) -> int:
        path = f"/ws/sessions/{session_id}/"
        sockets = {
            player: await WebSocket.connect("127.0.0.1", port, path, cookie=cookie)
            for player, cookie in duel["cookies"].items()
        }
        try:
            for socket in sockets.values():
                await _state_at(socket, 0)
            for turn in range(100):
                state = _stored_state(var, session_id)
                if znajznak.is_terminal(state):
                    return turn
                who, action = scripted_move(state, turn)
                with _write_lock_held(var) as lock:
                    sockets[who].send(json.dumps({"type": "action", "action": action}))
                    if turn in LOCK_HELD:  # another writer keeps the lock meanwhile
                        await asyncio.sleep(LOCK_HELD[turn])
                        assert _stored_state(var, session_id) == state  # nothing written past it
                    lock.rollback()
                for socket in sockets.values():  # each shows the new version before the next move
                    await _state_at(socket, turn + 1)
            raise AssertionError("The scripted game did not end in 100 moves.")
        finally:
            for socket in sockets.values():
                await socket.close()

    with make_run(var) as running:
        moves = asyncio.run(play(int(running.url.rstrip("/").rsplit(":", 1)[1])))
        stored = json.loads(
            manage(var, "shell", "--command", STORED.format(pk=session_id)).strip().splitlines()[-1]
        )
        assert "Traceback" not in running.output(), running.output()

    assert stored == {
        "status": "finished",
        "version": moves,
        "indexes": list(range(moves)),
        "replays": True,
        "namings": stored["namings"],
    }
    assert moves > 6 and stored["namings"] > 0
