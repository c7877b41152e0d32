"""``make run`` (``config.embedded``): which hosts it serves, what it starts, and that Ctrl-C
stops all of it.

The address logic is checked as plain functions; the stop is checked on the real
processes ``make run`` starts (``tests.config.embedded_run``).
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from config import embedded
from tests.config.embedded_run import descendants_left, make_run, manage

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
    manage(var, "migrate", "--noinput", "--verbosity", "0")

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
