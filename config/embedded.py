"""``make run``: the embedded mode's web server and Celery worker, started and stopped together.

``python -m config.embedded --host 127.0.0.1 --port 8000`` (the Makefile's ``run``, and the
tests that check what ``make run`` does) starts two processes and keeps them running:

* ``manage.py runserver --noreload HOST:PORT``: HTTP and the games' WebSockets, the
  sockets' groups in Channels' in-memory layer. Without Django's autoreloader, which
  looked at every imported module's file once a second, in the server's own process:
  with a class playing, that took about a third of the one process's CPU;
* a Celery worker with beat inside it, its queue a folder under ``var/``
  (``CELERY_BROKER_URL=filesystem://``), whose live notices go to the web process over
  ``LIVE_RELAY_URL`` (``config.live_relay``).

Ctrl-C (SIGINT to the terminal's process group), SIGTERM or SIGHUP stop both: each child
runs in a process group of its own, so it hears the stop once, from here, as SIGTERM,
and one that has not stopped after
:data:`STOP_SECONDS` is killed. When one of them exits on its own, the other is stopped
too: half of Talia is not left running.

``--host 0.0.0.0`` serves the machine's network, for students' phones: the allowed hosts
then include the machine's addresses (:func:`allowed_hosts_for`), and the address to
open on a phone is printed (:func:`lan_address`). Join links and QR codes are built from
the address the teacher's browser used, so the projector shows that one.

No Django here: the settings are read by the two children, from the environment this
module gives them.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import FrameType

BASE_DIR = Path(__file__).resolve().parent.parent
#: Seconds a child gets to stop after SIGTERM before it is killed.
STOP_SECONDS = 10.0
#: The hosts a loopback-only server answers to (config.settings' default ALLOWED_HOSTS).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: Bind addresses that mean "every interface of this machine".
ANY_ADDRESSES = ("0.0.0.0", "::", "[::]")
#: A private address to "connect" a UDP socket to: no packet is sent, the kernel only picks
#: the interface (and so the address) it would route through. Nothing outside is contacted.
_ROUTE_PROBE = ("10.255.255.255", 1)


def lan_address() -> str | None:
    """This machine's address on its local network, or ``None`` when it has none.

    The address the kernel would send from towards a private network: the one a phone on
    the same Wi-Fi reaches. Connecting a UDP socket sends nothing.
    """
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(_ROUTE_PROBE)
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address


def machine_addresses() -> list[str]:
    """The machine's own names and addresses other devices may use to reach it."""
    names: list[str] = []
    lan = lan_address()
    if lan:
        names.append(lan)
    hostname = socket.gethostname()
    if hostname:
        names.append(hostname)
        if "." not in hostname:
            names.append(f"{hostname}.local")  # mDNS, as macOS and most Linux desktops announce it
    return names


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts_for(host: str, addresses: Iterable[str], configured: Sequence[str] = ()) -> list[str]:
    """The ``ALLOWED_HOSTS`` of a server bound to ``host``; loopback only unless asked.

    ``addresses``: the machine's (:func:`machine_addresses`), used when ``host`` is every
    interface. ``configured``: what ``ALLOWED_HOSTS`` already says, kept. Loopback is always
    there: the worker's relay and a browser on the machine itself use it.
    """
    hosts = [*configured, *LOOPBACK_HOSTS]
    if host in ANY_ADDRESSES:
        hosts.extend(addresses)
    elif not _is_loopback(host):
        hosts.append(f"[{host}]" if ":" in host else host)
    return list(dict.fromkeys(hosts))


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def site_urls(host: str, port: int, lan: str | None) -> tuple[str, str | None]:
    """The address to open on this machine, and the one for phones (``None``: loopback only)."""
    if host in ANY_ADDRESSES:
        return f"http://127.0.0.1:{port}/", (f"http://{lan}:{port}/" if lan else None)
    url = f"http://{_url_host(host)}:{port}/"
    return url, (None if _is_loopback(host) else url)


def relay_url(host: str, port: int) -> str:
    """Where the worker posts its live notices: the web process, through loopback when it listens there."""
    target = "127.0.0.1" if host in ANY_ADDRESSES or _is_loopback(host) else _url_host(host)
    return f"http://{target}:{port}/live-relay"


def var_dir(environ: Mapping[str, str]) -> Path:
    """``config.settings.VAR_DIR``, read the same way."""
    return Path(environ.get("TALIA_VAR_DIR") or BASE_DIR / "var")


def commands(
    host: str, port: int, environ: Mapping[str, str], addresses: Iterable[str] = ()
) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The two processes of ``make run``: name -> (argv, environment)."""
    env = dict(environ)
    env["CELERY_BROKER_URL"] = "filesystem://"
    env.pop("LIVE_RELAY_URL", None)
    if not _is_loopback(host):
        configured = [h for h in env.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
        env["ALLOWED_HOSTS"] = ",".join(allowed_hosts_for(host, addresses, configured))
    bind = f"[{host.strip('[]')}]:{port}" if ":" in host else f"{host}:{port}"
    web = [sys.executable, str(BASE_DIR / "manage.py"), "runserver", "--noreload", bind]
    if ":" in host:
        web.append("--ipv6")
    worker = [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "-B", "--schedule", str(var_dir(env) / "celerybeat-schedule"),
        "--pool=threads", "--concurrency=2", "--loglevel=warning",
        # One worker, no cluster: nothing to sync with or announce to; it starts and stops sooner.
        "--without-mingle", "--without-gossip", "--without-heartbeat",
    ]  # fmt: skip
    return {
        "web": (web, env),
        "worker": (worker, {**env, "LIVE_RELAY_URL": relay_url(host, port)}),
    }


class Supervisor:
    """Runs the children until a stop signal or until one of them exits; then stops all."""

    def __init__(self, commands: Mapping[str, tuple[list[str], dict[str, str]]]) -> None:
        self.commands = commands
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.stopping = False

    def _stop_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def run(self) -> int:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._stop_signal)
        code = 0
        try:
            for name, (argv, env) in self.commands.items():
                if self.stopping:
                    break
                # A group of its own: the terminal's Ctrl-C reaches this process only, and
                # the stop below reaches everything the child started.
                self.children[name] = subprocess.Popen(
                    argv, env=env, cwd=BASE_DIR, stdin=subprocess.DEVNULL, start_new_session=True
                )
            while not self.stopping:
                ended = [name for name, child in self.children.items() if child.poll() is not None]
                if ended:
                    print(f"Talia's {ended[0]} stopped; stopping the rest.", file=sys.stderr, flush=True)
                    code = 1
                    break
                time.sleep(0.2)
        finally:
            self.stop()
        return code

    def stop(self) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C does not cut the stop short
        for child in self.children.values():
            _signal_group(child, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for name, child in self.children.items():
            try:
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(
                    f"Talia's {name} did not stop in {STOP_SECONDS:.0f} s; killed.",
                    file=sys.stderr,
                    flush=True,
                )
            # The group too: anything the child started.
            _signal_group(child, signal.SIGKILL)
            child.wait()


def _signal_group(child: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.embedded", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 for phones")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    addresses = machine_addresses() if args.host in ANY_ADDRESSES else []
    here, phones = site_urls(args.host, args.port, lan_address() if args.host in ANY_ADDRESSES else None)
    print(f"Talia is at {here} (Ctrl-C stops it)", flush=True)
    if phones:
        print(f"Phones and computers on this network open {phones}", flush=True)
    elif args.host in ANY_ADDRESSES:
        print("This machine has no network address: only its own browser can reach Talia.", flush=True)
    return Supervisor(commands(args.host, args.port, os.environ, addresses)).run()


if __name__ == "__main__":
    sys.exit(main())
