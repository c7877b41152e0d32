"""Live ZnajZnak duels over WebSockets: actions per second and click-to-opponent latency.

Run: ``.venv/bin/python bench/bench_live.py`` (about four minutes; ``--help`` for the knobs).
Needs PostgreSQL (``--pg``, trust auth as ``postgres``) and Redis (``--redis``) on 127.0.0.1.

Targets (issue): 30 students on one server process, p99 from click to the opponent's
screen under 100 ms, and at least 500 actions/s sustained per process; 300 students on two
processes at least 1.5 × the total of one process (measured in the same run) with p99
under 250 ms; and at 30 students on one process, at least half the actions/s of a bare
daphne + PostgreSQL relay of the same messages (``bench/relay_app.py``), driven by the same
students in the same run (configuration ``30xrelay``; without it the share is not judged and
no figure of the relay is printed). The relay also plays with 300 students (``300xrelay``):
its p99 is printed beside the 300-student target's, as the least any server of these duels
gets at that pace on the machine (not judged), and Talia plays with 300 students on two
processes at a class's pace (``300x2@4000``: each STOP within 0-8 s), what its students
feel (reported, not judged). Other configurations are reported, not judged.

What it does:

* drops and recreates the database ``--db`` (``talia_bench``), migrates it, loads the
  demo content (its 57-symbol set) and builds the ZnajZnak setup from that set with
  ``games.play.znajznak.services.znajznak_setup_from_symbol_set`` (57 cards of 8 symbols,
  four cards a player: "If the group has more than 26 people, only four cards are dealt"); one
  teacher, 300 students, each logged in once (a Django session in the database, whose
  ``sessionid`` cookie the simulated browser sends);
* per configuration, the duels of each pair of students, made as a teacher makes them:
  ``session_create`` + two ``session_join`` + ``session_start``. ``--ready`` duels per
  pair (24 at 30 students, fewer in proportion for more, at least 6) are made before the
  clock starts, so that making them does not share the machine with the measured play; a
  thread of this process makes the next one whenever a pair takes its last spare (a
  "restart wait" is counted if a pair had to wait for one);
* starts 1 or 2 real ASGI servers, ``daphne config.asgi:application`` on 127.0.0.1 and
  free ports, with ``DATABASE_URL``, ``REDIS_URL`` (Redis db ``--redis-db``, a database
  of its own, holding no key but the channel layer's at the start; those and the tasks the
  servers queued are deleted before each configuration and at the end)
  and the settings' default connection pools (``DB_POOL_MAX_SIZE``,
  ``LIVE_DB_POOL_MAX_SIZE``); for ``Nxrelay`` (``30xrelay``), one
  ``daphne bench.relay_app:application`` instead, the baseline;
* with two processes, puts nginx in front as production does: a configuration of its own
  in a temporary folder with the ``upstream talia_ws`` block (``hash $request_uri
  consistent``) and the ``location /ws/`` block of ``deploy/nginx/talia.conf``, over http,
  run as a child (``nginx -p DIR -c CONF -g 'daemon off;'``); the one-process run of as
  many students goes through it too, so the two differ only in the count of processes.
  The report says how nginx spread the games (its access log) and how many games had
  sockets on two processes (the rows' ``live_processes``). ``--cross`` instead puts the two
  players of every duel on different processes, without nginx: every update crosses Redis;
* runs the students as asyncio clients in this process over a minimal RFC 6455 client
  (asyncio streams; nothing to install). Each student reads its view; in the
  ``looking`` phase it computes the common symbol from the two cards the view shows
  (``view.comparison.own/other``) and says STOP after a reaction time drawn uniformly
  from 0 to twice ``--think`` (25 ms: so a STOP race is decided by the students, not
  by the order of the server's queue); a newer state arriving meanwhile replaces the
  comparison it was looking at, as on a phone's screen; when it said STOP first (``view.claim.player``
  is itself) it types the symbol's name at once, a wrong one with probability
  ``--wrong`` (0.2: students are learning the names; with only right names and
  instant players, the two players win by turns and a duel never ends). The names
  come from the setup this process built, as a student who learnt the symbols knows
  them; the view never shows them before the reveal. Both players race for every
  STOP; the loser's STOP is refused by the server (``illegal_action``): counted as a
  lost race, not as an error. When a game ends both students move to the pair's next
  duel (a new WebSocket).

Measurement: after ``--warmup`` seconds, ``--duration`` seconds are measured; the
students play on for ``--drain`` seconds more (unmeasured), so that the actions sent at
the end of the window reach the opponent under the same load.

* actions/s: actions the server applied (``ActionRecord`` rows created in the window).
* latency "click -> opponent": from the moment a student writes its action to the
  socket to the moment its opponent's socket has received a ``state`` whose version is
  at least the version that action produced. Every action carries a ``bench`` field
  (a number; the engine ignores unknown fields, the log keeps it), so each applied
  action is matched to its ``ActionRecord`` and so to its exact version afterwards.
  "click -> own screen" is the same to the acting student's own socket.
* CPU seconds of each server process, of nginx, of PostgreSQL (all its processes), of
  Redis and of this process (the clients) during the window, from /proc; PostgreSQL transactions
  per applied action (``pg_stat_database``, approximate: counters flush about once a
  second); row-lock waits sampled from ``pg_stat_activity`` every 100 ms; the
  clients' event-loop lag (how late a 10 ms sleep wakes up), since the clients share
  the machine with the servers.

All processes run on this machine: the servers, PostgreSQL, Redis and the clients
compete for the same CPUs (their count and the load average are printed).
``--rounds N`` runs the configurations N times over, each round judged on its own (against
the relay and the one process of the same round). ``--profile DIR`` runs the servers under
cProfile in every thread (figures then are not comparable) and prints where the server's
time goes. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import dataclasses
import http.client
import json
import math
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from results import load_average, record

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config.environment import environment_without_settings  # noqa: E402
from tests.production.websocket import Closed, HandshakeFailed, WebSocket  # noqa: E402

PYTHON = sys.executable
HOST = "127.0.0.1"

TARGET_P99_MS = 100.0  # at 30 students, one process
TARGET_RATE = 500.0  # applied actions/s per process, at 30 students on one process
TARGET_P99_MS_300 = 250.0  # at 300 students on two processes
TARGET_SCALE = 1.5  # 300 students: two processes' total over one process's
TARGET_OF_RELAY = 0.5  # 30 students on one process: Talia's actions/s over the bare relay's
RELAY_APP = "bench.relay_app:application"  # the bare relay (bench/relay_app.py)
NGINX_SITE = ROOT / "deploy" / "nginx" / "talia.conf"  # its talia_ws upstream and /ws/ location
CHANNEL_PREFIX = "talia-live"  # config/settings.py: CHANNEL_LAYERS prefix
STUDENTS_MAX = 300
STALL_SECONDS = 10.0  # no message for this long: the student asks for its state again

# Runs the server under cProfile in every thread (the consumers' database work runs in
# their database threads, games.consumers, not in the main one) and dumps the merged stats.
# Each thread's clock is its own CPU time: a wait (the network, the lock) costs nothing.
PROFILE_WRAPPER = r"""
import cProfile, marshal, sys, threading, time
out = sys.argv.pop(1)
profiles = []
_run = threading.Thread.run
def run(self):
    profile = cProfile.Profile(time.thread_time)
    profiles.append(profile)
    profile.enable()
    try:
        _run(self)
    finally:
        profile.disable()
threading.Thread.run = run
main = cProfile.Profile(time.thread_time)
profiles.append(main)
main.enable()
try:
    from daphne.cli import CommandLineInterface
    CommandLineInterface.entrypoint()
finally:
    main.disable()
    import pstats
    stats = pstats.Stats(*profiles)
    stats.dump_stats(out)
"""


# --- processes and environment ---------------------------------------------------------------


def child_env(args: argparse.Namespace, var_dir: Path) -> dict[str, str]:
    env = environment_without_settings()  # none of the caller's settings leaks in
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "TALIA_VAR_DIR": str(var_dir),
            "MEDIA_ROOT": str(var_dir / "media"),
            "STATIC_ROOT": str(var_dir / "static"),
            "STATICFILES_STORAGE": "django.contrib.staticfiles.storage.StaticFilesStorage",
            "DATABASE_URL": f"{args.pg.rstrip('/')}/{args.db}",
            "REDIS_URL": f"{args.redis.rstrip('/')}/{args.redis_db}",
            # Shared by this process (which writes the sessions) and the servers.
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": HOST,
            "DEBUG": "false",
            "HTTPS": "false",
            "AWS_STORAGE_BUCKET_NAME": "",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    for item in args.server_env or []:
        key, _, value = item.partition("=")
        env[key] = value
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    profile: Path | None = None


def start_server(
    env: dict[str, str], var_dir: Path, number: int, profile_dir: Path | None, *, relay: bool = False
) -> Server:
    port = free_port()
    log = var_dir / f"{'relay' if relay else 'daphne'}-{number}.log"
    daphne_args = ["-b", HOST, "-p", str(port), RELAY_APP if relay else "config.asgi:application"]
    if relay:
        env = {**env, "RELAY_DATABASE_URL": env["DATABASE_URL"]}
    profile = None
    if profile_dir is not None:
        profile = profile_dir / f"daphne-{number}.prof"
        command = [PYTHON, "-c", PROFILE_WRAPPER, str(profile), *daphne_args]
    else:
        command = [PYTHON, "-m", "daphne", *daphne_args]
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches this process only; it stops the servers
        )
    return Server(port, process, log, profile)


def wait_until_up(server: Server) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise SystemExit(f"daphne stopped:\n{server.log.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, server.port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"daphne did not answer /healthz within 60 s:\n{server.log.read_text()[-3000:]}")


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=20 if server.profile else 10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc; 0 if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pids_named(name: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == name:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each thread of a process."""
    threads = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                fields = stat.rsplit(")", 1)[1].split()
                threads[int(tid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return threads


def cpu_snapshot(servers: list[Server], proxy_pids: list[int]) -> dict[str, Any]:
    return {
        "threads": [thread_cpu(s.process.pid) for s in servers],
        "servers": sum(cpu_seconds(s.process.pid) for s in servers),
        "proxy": sum(cpu_seconds(pid) for pid in proxy_pids),
        "postgres": {pid: cpu_seconds(pid) for pid in pids_named("postgres")},
        "redis": {pid: cpu_seconds(pid) for pid in pids_named("redis-server")},
        "clients": cpu_seconds(os.getpid()),
    }


# --- nginx in front of two processes, as in production ------------------------------------------

NGINX_CONF = """\
# bench_live.py: deploy/nginx/talia.conf's upstream and location of the live sockets, over http.
worker_processes 1;
worker_rlimit_nofile 8192;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{
    worker_connections 4096;
}}
http {{
    log_format routed '$request_uri $status upstream=$upstream_addr';
    access_log {dir}/nginx-access.log routed;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

{upstream}

    server {{
        listen {host}:{port};
{location}
    }}
}}
"""


def nginx_site_blocks(ports: list[int]) -> tuple[str, str]:
    """The ``upstream talia_ws`` block of deploy/nginx/talia.conf with the bench's servers in
    place of its own, and its ``location /ws/`` block, as they are written there."""
    site = NGINX_SITE.read_text()
    upstream = re.search(r"^upstream talia_ws \{\n.*?^\}", site, re.MULTILINE | re.DOTALL)
    location = re.search(r"^    location /ws/ \{\n.*?^    \}", site, re.MULTILINE | re.DOTALL)
    if upstream is None or location is None or "hash $request_uri consistent;" not in upstream.group():
        raise SystemExit(f"{NGINX_SITE}: no 'upstream talia_ws' hashed by $request_uri, or no location /ws/")
    kept = [line for line in upstream.group().splitlines() if not line.strip().startswith("server ")]
    servers = [f"    server {HOST}:{port};" for port in ports]
    return "\n".join([*kept[:-1], *servers, kept[-1]]), location.group()


@dataclass
class Proxy:
    port: int
    process: subprocess.Popen[bytes]
    directory: Path
    pids: list[int]  # the master and its workers


def start_proxy(servers: list[Server], var_dir: Path, number: int) -> Proxy:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        raise SystemExit("nginx routes the sockets of two processes: apt-get install nginx-light; or --cross")
    directory = var_dir / f"nginx-{number}"
    (directory / "logs").mkdir(parents=True)  # nginx's own error log before it reads the config
    port = free_port()
    upstream, location = nginx_site_blocks([s.port for s in servers])
    conf = directory / "nginx.conf"
    text = NGINX_CONF.format(dir=directory, host=HOST, port=port, upstream=upstream, location=location)
    conf.write_text(text)
    with (directory / "nginx.out").open("wb") as out:
        process = subprocess.Popen(
            [nginx, "-p", str(directory), "-c", str(conf), "-g", "daemon off;"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            raise SystemExit(f"nginx stopped:\n{(directory / 'nginx.out').read_text()}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"nginx did not listen on {port} within 20 s")
        time.sleep(0.1)
    return Proxy(port, process, directory, [process.pid, *children_of(process.pid)])


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def stop_proxy(proxy: Proxy) -> None:
    if proxy.process.poll() is None:
        proxy.process.send_signal(signal.SIGQUIT)  # graceful: the access log is written out
        try:
            proxy.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proxy.process.kill()
            proxy.process.wait()


def proxy_routes(proxy: Proxy) -> dict[int, set[str]]:
    """Each game's sockets upgraded by nginx: session id -> the upstreams they went to."""
    routes: dict[int, set[str]] = {}
    log = proxy.directory / "nginx-access.log"
    for line in log.read_text().splitlines() if log.exists() else ():
        found = re.match(r"/ws/sessions/(\d+)/ 101 upstream=(\S+)", line)
        if found:
            routes.setdefault(int(found.group(1)), set()).add(found.group(2))
    return routes


# --- PostgreSQL and Redis --------------------------------------------------------------------


def recreate_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(f"{args.pg.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')


def drop_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(f"{args.pg.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')


#: The Celery broker's keys: REDIS_URL is the servers' broker too, and the tasks they queue
#: are never run here.
QUEUE_KEYS = ("celery", "_kombu.*", "unacked*")


def redis_clean(args: argparse.Namespace, *, check: bool) -> None:
    """Delete the servers' keys in the bench's Redis database: the channel layer's and the
    queued tasks (nothing else). With ``check``, first refuse a database that holds any
    other key than the channel layer's (so the queue deleted is the bench's own)."""
    import redis

    client = redis.Redis.from_url(f"{args.redis.rstrip('/')}/{args.redis_db}")
    try:
        ours = list(client.scan_iter(match=f"{CHANNEL_PREFIX}*", count=1000))
        if check and client.dbsize() > len(ours):
            raise SystemExit(
                f"Redis database {args.redis_db} holds keys that are not the bench's; "
                "choose an empty one with --redis-db."
            )
        ours += [key for pattern in QUEUE_KEYS for key in client.scan_iter(match=pattern, count=1000)]
        if ours:
            client.delete(*ours)
    finally:
        client.close()


def close_connections() -> None:
    """Close the Django connections of the calling thread (Django keeps one per thread)."""
    from django.db import connections

    connections.close_all()


def teardown(args: argparse.Namespace, var_dir: Path, servers: list[Server] | None = None) -> None:
    """The end of every bench that starts servers, however it ends: stop ``servers``, close
    this process's connections and pool, delete the channel layer's keys and, unless
    ``--keep``, drop the database and the logs in ``var_dir``."""
    for server in servers or ():
        stop_server(server)
    with contextlib.suppress(Exception):
        from django.db import connections

        close_connections()
        connections["default"].close_pool()
    with contextlib.suppress(Exception):
        redis_clean(args, check=False)
    if args.keep:
        print(f"Kept the database {args.db} and the logs in {var_dir}")
    else:
        with contextlib.suppress(Exception):
            drop_database(args)
        shutil.rmtree(var_dir, ignore_errors=True)


class PgSampler:
    """Every 100 ms: active backends of the bench database and how many wait on a lock."""

    def __init__(self, dsn: str, db: str) -> None:
        self.dsn, self.db = dsn, db
        self.samples: list[tuple[int, int]] = []
        self.recording = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while not self._stop.wait(0.1):
                if not self.recording:
                    continue
                row = conn.execute(
                    "SELECT count(*) FILTER (WHERE state = 'active'),"
                    " count(*) FILTER (WHERE wait_event_type = 'Lock')"
                    " FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                    (self.db,),
                ).fetchone()
                assert row is not None
                self.samples.append((int(row[0]), int(row[1])))

    def __enter__(self) -> PgSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def pg_counters(dsn: str, db: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback, tup_fetched, tup_inserted + tup_updated"
            " FROM pg_stat_database WHERE datname = %s",
            (db,),
        ).fetchone()
        # The session rows' updates, and those PostgreSQL made on the row's own page (HOT: no
        # index written); the others write every index of games_gamesession.
        updates = conn.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games_gamesession'"
        ).fetchone()
    assert row is not None and updates is not None
    return {
        "transactions": int(row[0]),
        "fetched": int(row[1]),
        "written": int(row[2]),
        "session_updates": int(updates[0]),
        "session_hot": int(updates[1]),
    }


# --- Django in this process: the data set and the duels --------------------------------------


@dataclass
class World:
    teacher: Any
    students: list[Any]  # users
    cookies: list[str]  # "sessionid=..." per student
    setup: dict[str, Any]
    assets: dict[str, Any]
    names: dict[str, str]  # symbol key -> its name (what the students know)


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    # This process only writes sessions nobody watches yet: no channel layer, no Redis.
    os.environ["REDIS_URL"] = ""
    import django

    django.setup()
    from django.conf import settings

    settings.CHANNEL_LAYERS = {}


def build_world(args: argparse.Namespace, students_count: int = STUDENTS_MAX) -> World:
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from content.demo.loader import DEMO_SET, demo_content
    from content.models import SymbolSet
    from games.play.znajznak.services import znajznak_setup_from_symbol_set
    from lms.models import Role
    from lms.services import user_create

    call_command("migrate", verbosity=0)
    teacher = user_create(username="bench-teacher", password=None, role=Role.TEACHER)
    demo_content(owner=teacher)
    symbol_set = SymbolSet.objects.get(slug=DEMO_SET[0])
    setup, assets = znajznak_setup_from_symbol_set(symbol_set=symbol_set, cards_per_player=args.cards)
    students, cookies = [], []
    for number in range(students_count):
        student = user_create(username=f"student{number:03d}", password=None, role=Role.STUDENT)
        client = Client()
        client.force_login(student)
        students.append(student)
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}")
    names = {key: entry["name"] for key, entry in setup["names"].items()}
    return World(teacher, students, cookies, setup, assets, names)


def new_duel(world: World, first: Any, second: Any, seed: int) -> tuple[int, str, str]:
    """A duel made through the services, as a teacher makes one: (session id, players)."""
    from games import services

    session = services.session_create(
        facilitator=world.teacher,
        game="znajznak",
        variant="duel",
        setup=world.setup,
        assets=world.assets,
        seed=seed,
    )
    a = services.session_join(session=session, user=first)
    b = services.session_join(session=session, user=second)
    services.session_start(session=session, by=world.teacher)
    return session.pk, a.player_id, b.player_id


# --- the students ------------------------------------------------------------------------------


@dataclass
class Duel:
    session_id: int
    players: tuple[str, str]  # engine ids of the pair's first and second student


@dataclass
class Pair:
    number: int
    students: tuple[int, int]  # indexes into World.students
    games: list[asyncio.Future[Duel]] = field(default_factory=list)


@dataclass
class Sent:
    time: float
    session_id: int
    student: int


@dataclass
class Run:
    """Everything the clients record during one configuration."""

    sent: dict[int, Sent] = field(default_factory=dict)  # nonce -> when and by whom
    # (student, session) -> versions (increasing) and the times they first arrived
    seen: dict[tuple[int, int], tuple[list[int], list[float]]] = field(default_factory=dict)
    refused: int = 0  # lost STOP races: "illegal_action" answers
    errors: dict[str, int] = field(default_factory=dict)
    restart_waits: int = 0
    stalls: int = 0
    states: int = 0
    state_bytes: int = 0
    loop_lag: list[float] = field(default_factory=list)
    window: tuple[float, float] = (0.0, 0.0)
    sessions: set[int] = field(default_factory=set)
    connect_seconds: float = 0.0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Student:
    def __init__(
        self, index: int, seat: int, pair: Pair, port: int, cookie: str, run: Run, ctx: Context
    ) -> None:
        # ``port``: a server's, or the proxy's in front of the servers
        self.index, self.seat, self.pair, self.port = index, seat, pair, port
        self.cookie, self.run, self.ctx = cookie, run, ctx
        self.game = 0

    async def open(self) -> tuple[WebSocket, Duel, str]:
        duel = await self.pair_game(self.game)
        path = f"/ws/sessions/{duel.session_id}/"
        if self.ctx.relay:  # the bare relay trusts the player its URL names (bench/relay_app.py)
            path += f"?player={duel.players[self.seat]}"
        sock = await WebSocket.connect(HOST, self.port, path, cookie=self.cookie)
        return sock, duel, await sock.recv()

    async def pair_game(self, number: int) -> Duel:
        games = self.pair.games
        if number + 1 >= len(games):
            # The first of the two to reach the spare asks for the next one.
            self.ctx.order_duel(self.pair)
        future = games[number]
        if not future.done():
            self.run.restart_waits += 1
        return await future

    async def play(self, first: tuple[WebSocket, Duel, str]) -> None:
        sock, duel, text = first
        run, ctx = self.run, self.ctx
        await ctx.start.wait()
        while True:
            try:
                over = await self.play_game(sock, duel, text)
            except (Closed, HandshakeFailed, OSError, asyncio.IncompleteReadError) as error:
                run.error(f"socket: {error}")
                over = True
            await sock.close()
            if not over or time.perf_counter() >= ctx.stop_at:
                return
            self.game += 1
            while True:
                try:
                    sock, duel, text = await self.open()
                    break
                except (Closed, HandshakeFailed, OSError, asyncio.IncompleteReadError) as error:
                    run.error(f"connect: {error}")
                    if time.perf_counter() >= ctx.stop_at:
                        return
                    await asyncio.sleep(0.2)

    async def play_game(self, sock: WebSocket, duel: Duel, text: str | None) -> bool:
        """Play one duel; True when it ended, False when the time is up."""
        run, ctx = self.run, self.ctx
        me = duel.players[self.seat]
        versions, times = run.seen.setdefault((self.index, duel.session_id), ([], []))
        acted = -1
        pending: asyncio.TimerHandle | None = None
        loop = asyncio.get_running_loop()

        def send(action: dict[str, Any]) -> None:
            nonlocal pending
            pending = None
            if sock.writer.is_closing():
                return
            nonce = ctx.next_nonce()
            action["bench"] = nonce
            payload = json.dumps({"type": "action", "action": action})
            run.sent[nonce] = Sent(time.perf_counter(), duel.session_id, self.index)
            sock.send(payload)

        while True:
            if text is None:
                wait = min(STALL_SECONDS, ctx.stop_at - time.perf_counter() + 0.05)
                try:
                    async with asyncio.timeout(max(0.05, wait)):
                        text = await sock.recv()
                except TimeoutError:
                    if time.perf_counter() >= ctx.stop_at:
                        return False
                    run.stalls += 1
                    sock.send('{"type": "resume"}')
                    continue
            now = time.perf_counter()
            text_bytes, message, text = text, json.loads(text), None
            kind = message.get("type")
            if kind == "error":
                if message.get("error") == "illegal_action":
                    run.refused += 1
                else:
                    run.error(f"{message.get('error')}: {message.get('reason')}")
                continue
            if kind != "state":
                run.error(f"message {kind!r}")
                continue
            run.states += 1
            run.state_bytes += len(text_bytes)
            version = message["version"]
            if not versions or version > versions[-1]:
                versions.append(version)
                times.append(now)
            view = message["view"] or {}
            if message["status"] == "finished" or view.get("terminal"):
                return True
            if now >= ctx.stop_at:
                return False
            if version <= acted:
                continue
            if pending is not None:
                # A newer state arrived while this student was still looking at the old
                # one: like a person, it drops the STOP it was about to say and looks at
                # the cards on the screen now (a STOP for the old comparison would only be
                # refused, and then both players could wait for a change neither makes).
                pending.cancel()
                pending = None
            phase = view.get("phase")
            if phase == "looking" and view.get("legal_actions"):
                comparison = view["comparison"]
                (symbol,) = set(comparison["own"]) & set(comparison["other"])
                action: dict[str, Any] = {"type": "stop", "symbol": symbol}
            elif phase == "naming" and (view.get("claim") or {}).get("player") == me:
                right = random.random() >= ctx.wrong
                action = {"type": "name", "text": ctx.names[view["claim"]["symbol"]] if right else "?"}
            else:
                continue
            acted = version
            delay = random.uniform(0, 2 * ctx.think) if action["type"] == "stop" else 0.0
            if delay > 0:
                pending = loop.call_later(delay, send, action)
            else:
                send(action)


class Context:
    def __init__(self, world: World, run: Run, executor: ThreadPoolExecutor, think: float, seed: int) -> None:
        self.world, self.run, self.executor, self.think = world, run, executor, think
        self.names = world.names
        self.wrong = 0.0
        self.start = asyncio.Event()
        self.stop_at = float("inf")
        self.nonce = 0
        self.seed = seed
        self.relay = False

    def next_nonce(self) -> int:
        self.nonce += 1
        return self.nonce

    def order_duel(self, pair: Pair) -> None:
        """Make the pair's next duel in the worker thread (one at a time, in order)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Duel] = loop.create_future()
        pair.games.append(future)
        first, second = (self.world.students[i] for i in pair.students)
        seed = self.seed * 1_000_003 + pair.number * 1009 + len(pair.games)

        def make() -> Duel:
            session_id, p1, p2 = new_duel(self.world, first, second, seed)
            return Duel(session_id, (p1, p2))

        def done(job: Any) -> None:
            if future.done():
                return
            if job.exception() is not None:
                future.set_exception(job.exception())
            else:
                duel = job.result()
                self.run.sessions.add(duel.session_id)
                future.set_result(duel)

        job = self.executor.submit(make)
        # A duel made after the run's loop closed is not wanted any more.
        job.add_done_callback(lambda j: None if loop.is_closed() else loop.call_soon_threadsafe(done, j))


async def loop_lag_monitor(run: Run, ctx: Context) -> None:
    while time.perf_counter() < ctx.stop_at:
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        if run.window[0] <= now <= run.window[1]:
            run.loop_lag.append(now - before - 0.01)


async def drive(
    args: argparse.Namespace,
    world: World,
    config: Config,
    servers: list[Server],
    ports: list[int],
    run: Run,
    executor: ThreadPoolExecutor,
    sampler: PgSampler,
    marks: dict[str, Any],
) -> None:
    students = config.students
    think = args.think if config.think is None else config.think
    ctx = Context(world, run, executor, think / 1000, args.seed + students * 10 + len(servers))
    ctx.wrong = args.wrong
    ctx.relay = config.relay
    pairs = [Pair(k, (2 * k, 2 * k + 1)) for k in range(students // 2)]
    # Every pair has its duels ready before the clock starts (at least its first and a
    # spare), so that making them does not share the machine with the measured play.
    ready = max(6, math.ceil(args.ready * 30 / students))
    for pair in pairs:
        for _ in range(ready):
            ctx.order_duel(pair)
    await asyncio.gather(*(pair.games[-1] for pair in pairs))
    run.restart_waits = 0
    players = [
        Student(
            index=i,
            seat=i % 2,
            pair=pairs[i // 2],
            # Through the proxy, or (``--cross``) the two players of every duel on two processes.
            port=ports[i % len(ports)],
            cookie=world.cookies[i],
            run=run,
            ctx=ctx,
        )
        for i in range(students)
    ]
    begin = time.perf_counter()
    sem = asyncio.Semaphore(50)

    async def open_one(student: Student) -> tuple[WebSocket, Duel, str]:
        async with sem:
            return await student.open()

    firsts = await asyncio.gather(*(open_one(s) for s in players))
    run.connect_seconds = time.perf_counter() - begin
    start = time.perf_counter()
    run.window = (start + args.warmup, start + args.warmup + args.duration)
    # The students play on after the window, so that every action sent in it reaches
    # the opponent under the same load; only the window is measured.
    ctx.stop_at = run.window[1] + args.drain
    tasks = [asyncio.create_task(s.play(first)) for s, first in zip(players, firsts, strict=True)]
    lag = asyncio.create_task(loop_lag_monitor(run, ctx))
    ctx.start.set()
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()))
    marks["pids"] = [s.process.pid for s in servers]
    marks["wall_begin"] = time.time()
    marks["cpu_begin"] = cpu_snapshot(servers, marks.setdefault("proxy_pids", []))
    marks["pg_begin"] = await loop.run_in_executor(None, pg_counters, args.pg_dsn, args.db)
    sampler.recording = True
    await asyncio.sleep(max(0.0, run.window[1] - time.perf_counter()))
    marks["wall_end"] = time.time()
    marks["cpu_end"] = cpu_snapshot(servers, marks["proxy_pids"])
    sampler.recording = False
    marks["pg_end"] = await loop.run_in_executor(None, pg_counters, args.pg_dsn, args.db)
    # Students stop at their next message (or their stall timeout); wait for them briefly.
    done, pending = await asyncio.wait(tasks, timeout=5)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task in done:
        if task.exception() is not None:
            run.error(f"client: {task.exception()!r}")
    lag.cancel()
    await asyncio.gather(lag, return_exceptions=True)


# --- one configuration --------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    students: int
    processes: int
    duration: float
    applied: int = 0
    latency: list[float] = field(default_factory=list)  # click -> opponent, seconds
    own: list[float] = field(default_factory=list)  # click -> own screen
    unseen: int = 0
    refused: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0
    restart_waits: int = 0
    stalls: int = 0
    states_per_action: float = 0.0
    state_bytes: float = 0.0
    states_total: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    pg_per_action: dict[str, float] = field(default_factory=dict)
    lock_waiting: float = 0.0
    active_backends: float = 0.0
    loop_lag_p99: float = 0.0
    # per server process: main thread, busiest other thread, all other threads (cores)
    threads: list[tuple[float, float, float]] = field(default_factory=list)
    connect_seconds: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    config: Config = field(default_factory=lambda: Config(0, 0))
    # Through nginx: the games whose sockets each upstream took, and those split between two.
    games_by_upstream: dict[str, int] = field(default_factory=dict)
    split: int = 0
    crossed: int = 0  # Talia's games whose sockets were on two processes
    played: int = 0  # games with a socket open, in the whole run (warm-up and drain too)

    @property
    def rate(self) -> float:
        return self.applied / self.duration

    def pct(self, values: list[float], q: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def analyse(name: str, students: int, processes: int, run: Run, marks: dict[str, Any]) -> Result:
    import datetime

    from games.models import ActionRecord

    result = Result(name, students, processes, run.window[1] - run.window[0])
    begin = datetime.datetime.fromtimestamp(marks["wall_begin"], datetime.UTC)
    end = datetime.datetime.fromtimestamp(marks["wall_end"], datetime.UTC)
    result.applied = ActionRecord.objects.filter(
        session_id__in=run.sessions, created__gte=begin, created__lt=end
    ).count()
    # Which version each action made: its ActionRecord's index + 1.
    made: dict[int, tuple[int, int]] = {}
    for session_id, index, action in ActionRecord.objects.filter(session_id__in=run.sessions).values_list(
        "session_id", "index", "action"
    ):
        nonce = action.get("bench") if isinstance(action, dict) else None
        if isinstance(nonce, int):
            made[nonce] = (session_id, index + 1)
    w0, w1 = run.window
    opponent = {i: i ^ 1 for i in range(students)}
    for nonce, sent in run.sent.items():
        if not w0 <= sent.time < w1 or nonce not in made:
            continue
        session_id, version = made[nonce]
        for who, bucket in ((opponent[sent.student], result.latency), (sent.student, result.own)):
            versions, times = run.seen.get((who, session_id), ([], []))
            at = bisect.bisect_left(versions, version)
            if at < len(versions) and times[at] >= sent.time:
                bucket.append(times[at] - sent.time)
            elif bucket is result.latency:
                result.unseen += 1
    result.refused = run.refused
    result.errors = dict(run.errors)
    result.games = marks.get("games_started", 0)
    result.restart_waits = run.restart_waits
    result.stalls = run.stalls
    sent_total = max(1, len(made))
    result.states_per_action = run.states / sent_total
    result.state_bytes = run.state_bytes
    result.states_total = run.states
    cpu0, cpu1 = marks["cpu_begin"], marks["cpu_end"]
    for key in ("servers", "proxy", "clients"):
        result.cpu[key] = (cpu1[key] - cpu0[key]) / result.duration
    for key in ("postgres", "redis"):
        # Per process: a backend that ends in the window takes its CPU time with it.
        before, after = cpu0[key], cpu1[key]
        result.cpu[key] = sum(t - before.get(pid, 0.0) for pid, t in after.items()) / result.duration
    for pid, before, after in zip(marks["pids"], cpu0["threads"], cpu1["threads"], strict=True):
        used = {tid: (after[tid] - before.get(tid, 0.0)) / result.duration for tid in after}
        main = used.pop(pid, 0.0)
        result.threads.append((main, max(used.values(), default=0.0), sum(used.values())))
    pg0, pg1 = marks["pg_begin"], marks["pg_end"]
    applied = max(1, result.applied)
    result.pg_per_action = {key: (pg1[key] - pg0[key]) / applied for key in pg0}
    result.loop_lag_p99 = result.pct(run.loop_lag, 0.99)
    result.connect_seconds = run.connect_seconds
    return result


@dataclass(frozen=True)
class Config:
    students: int
    processes: int
    relay: bool = False  # the bare relay (bench/relay_app.py) instead of Talia
    proxy: bool = False  # nginx in front, routing as deploy/nginx/talia.conf does
    round: int = 0  # with --rounds: which pass over the configurations
    think: float | None = None  # "@ms": this mean time before a STOP instead of --think's

    @property
    def paced(self) -> bool:
        """Played at a pace of its own (``300x2@4000``): reported, never judged."""
        return self.think is not None

    @property
    def name(self) -> str:
        if self.relay:
            name = f"{self.students} × relay"
        else:
            name = f"{self.students} × {self.processes} process{'es' if self.processes > 1 else ''}"
        if self.proxy:
            name += " via nginx"
        if self.think is not None:
            name += f", STOP 0-{2 * self.think / 1000:g} s"
        return name + (f" #{self.round}" if self.round else "")


def run_config(
    args: argparse.Namespace, env: dict[str, str], world: World, config: Config, var_dir: Path
) -> Result:
    from games.models import GameSession

    name, students, processes = config.name, config.students, config.processes
    redis_clean(args, check=False)
    profile_dir = Path(args.profile) if args.profile else None
    if profile_dir:
        profile_dir.mkdir(parents=True, exist_ok=True)
    servers: list[Server] = []
    proxy: Proxy | None = None
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="duels")
    run = Run()
    marks: dict[str, Any] = {"proxy_pids": []}
    number = len(list(var_dir.glob("*.log")))  # the logs of each configuration apart
    try:
        for process in range(processes):
            servers.append(start_server(env, var_dir, number + process, profile_dir, relay=config.relay))
        for server in servers:
            wait_until_up(server)
        ports = [s.port for s in servers]
        if config.proxy:
            proxy = start_proxy(servers, var_dir, number)
            marks["proxy_pids"] = proxy.pids
            ports = [proxy.port]
        print(
            f"[{name}] {'relay' if config.relay else 'daphne'} on {', '.join(str(s.port) for s in servers)}"
            f"{f', nginx on {proxy.port}' if proxy else ''}; "
            f"{args.warmup:g} s warm-up + {args.duration:g} s measured ...",
            flush=True,
        )
        with PgSampler(args.pg_dsn, args.db) as sampler:
            asyncio.run(drive(args, world, config, servers, ports, run, executor, sampler, marks))
        load = os.getloadavg()
    finally:
        if proxy is not None:
            stop_proxy(proxy)
        for server in servers:
            stop_server(server)
        executor.submit(close_connections).result(timeout=30)
        executor.shutdown(wait=True)
    for server in servers:
        log = server.log.read_text(errors="replace")
        tracebacks = log.count("Traceback")
        if tracebacks:
            run.errors[f"{server.log.stem} (port {server.port}): tracebacks in the log"] = tracebacks
            first = log.index("Traceback")
            print(f"[{name}] {server.log.stem}, first of {tracebacks} tracebacks:", file=sys.stderr)
            print(log[max(0, log.rfind("\n", 0, first - 200)) : first + 2500], file=sys.stderr)
    # Games that started while the clock ran (their first state arrived in the window).
    marks["games_started"] = (
        sum(
            1
            for (_student, _sid), (_v, times) in run.seen.items()
            if times and run.window[0] <= times[0] < run.window[1]
        )
        // 2
    )
    result = analyse(name, students, processes, run, marks)
    result.config, result.load = config, load
    result.played = len({session_id for _student, session_id in run.seen})
    if proxy is not None:
        routes = proxy_routes(proxy)
        result.split = sum(1 for upstreams in routes.values() if len(upstreams) > 1)
        for upstreams in routes.values():
            for upstream in upstreams:
                result.games_by_upstream[upstream] = result.games_by_upstream.get(upstream, 0) + 1
    if not config.relay:
        # Games whose row names more than one process: their notices crossed Redis (games.sockets).
        rows = GameSession.objects.filter(pk__in=run.sessions).values_list("live_processes", flat=True)
        result.crossed = sum(1 for processes_of in rows if len(processes_of or ()) > 1)
    samples = sampler.samples
    if samples:
        result.active_backends = sum(a for a, _ in samples) / len(samples)
        result.lock_waiting = sum(w for _, w in samples) / len(samples)
    GameSession.objects.filter(pk__in=run.sessions, status=GameSession.Status.RUNNING).update(
        status=GameSession.Status.FINISHED
    )
    if profile_dir:
        for server in servers:
            if server.profile and server.profile.exists():
                print_profile(server.profile, name)
    return result


def print_profile(path: Path, name: str) -> None:
    import io
    import pstats

    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(
        r"session_act|session_apply_action|send_state|_payload|session_payload|session_publish"
        r"|session_broadcast|payload_from_broadcast|_act\b"
        r"|state_from_dict|to_dict|player_view|participant_for|group_send|execute|send_json"
        r"|close_old_connections|encode_json|loads|dumps"
    )
    print(f"\n--- cProfile of {path.name} ({name}): every thread, merged ---")
    print(out.getvalue())


# --- the report ------------------------------------------------------------------------------------


def report(results: list[Result], args: argparse.Namespace) -> bool:
    print()
    print(
        f"Live ZnajZnak duels over WebSockets (daphne, PostgreSQL, Redis channel layer): "
        f"{args.duration:g} s measured after {args.warmup:g} s warm-up; {os.cpu_count()} CPUs shared "
        f"by servers, nginx, PostgreSQL, Redis and clients; STOP after 0-{2 * args.think:g} ms, "
        f"{100 * args.wrong:g} % wrong names"
    )
    width = max([28, *(len(r.name) for r in results)])
    header = (
        f"{'configuration':{width}} {'actions/s':>9} {'per proc':>8} {'':>8} "
        f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'':>8} {'own p50/p99':>12} "
        f"{'lost races/s':>12} {'errors':>6} {'games':>5}"
    )
    print(header)
    print("-" * len(header))
    missed = False
    judged: dict[str, list[str]] = {}
    name = "bench_live.py"

    def judge(r: Result, figure: str, measured: str, target: str, met: bool) -> None:
        nonlocal missed
        missed |= not record(name, f"{r.name}: {figure}", measured, target, met)
        judged.setdefault(r.name, []).append(
            f"{figure} {measured} (target {target}) {'ok' if met else 'MISSED'}"
        )

    def found(students: int, processes: int, relay: bool, round_: int) -> Result | None:
        """The run of this configuration at the pace of ``--think`` (the judged pace)."""
        wanted = (students, processes, relay, round_, False)
        same = (
            r
            for r in results
            if (r.students, r.processes, r.config.relay, r.config.round, r.config.paced) == wanted
        )
        return next(same, None)

    unjudged = []

    def judge_rate(r: Result, base: Result | None, figure: str, target: float, missing: str) -> None:
        """``r``'s actions/s over ``base``'s, measured in the same run; never a figure not measured."""
        if base is None:
            unjudged.append(f"{r.name}: {figure} (not measured in this run: {missing} to --configs)")
            return
        ratio = r.rate / max(1e-9, base.rate)
        measured = f"{ratio:.2f}x ({base.name}: {base.rate:.0f})"
        judge(r, figure, measured, f">= {target:g}x", ratio >= target)

    reported = []
    for r in results:
        p99 = r.pct(r.latency, 0.99)
        if r.config.paced:  # a class's pace, say: what its students feel, not judged
            reported.append(f"{r.name}: p99 click to opponent {p99:.1f} ms at {r.rate:.0f} actions/s")
        elif r.config.relay:
            pass  # the baseline: judged through the Talia run it is compared with
        elif r.students == 30 and r.processes == 1:
            judge(r, "actions/s", f"{r.rate:.0f}", f">= {TARGET_RATE:g}", r.rate >= TARGET_RATE)
            judge(r, "p99 click to opponent", f"{p99:.1f} ms", f"< {TARGET_P99_MS:g} ms", p99 < TARGET_P99_MS)
            relay = found(30, 1, True, r.config.round)
            judge_rate(r, relay, "actions/s over the bare relay's", TARGET_OF_RELAY, "add 30xrelay")
        elif r.students == 300 and r.processes == 2:
            # The bare relay's p99 with as many students, beside the figure: what any server of
            # these duels gets at this pace on this machine (not judged).
            relay_300 = found(300, 1, True, r.config.round)
            beside = f" (300 × relay: {relay_300.pct(relay_300.latency, 0.99):.1f} ms)" if relay_300 else ""
            judge(
                r,
                "p99 click to opponent",
                f"{p99:.1f} ms{beside}",
                f"< {TARGET_P99_MS_300:g} ms",
                p99 < TARGET_P99_MS_300,
            )
            one_300 = found(300, 1, False, r.config.round)
            judge_rate(r, one_300, "total over one process's", TARGET_SCALE, "add 300x1")
        errors = sum(r.errors.values())
        own = f"{r.pct(r.own, 0.5):.1f}/{r.pct(r.own, 0.99):.1f}"
        print(
            f"{r.name:{width}} {r.rate:9.0f} {r.rate / r.processes:8.0f} {'':>8} "
            f"{r.pct(r.latency, 0.5):7.1f} {r.pct(r.latency, 0.95):7.1f} {p99:7.1f} {'':>8} {own:>12} "
            f"{r.refused / r.duration:12.0f} {errors:6d} {r.games:5d}"
        )
    print("Targets:")
    for config, verdicts in judged.items():
        print(f"  {config}: " + "; ".join(verdicts))
    for what in unjudged:
        print(f"  {what}: not judged")
    for what in reported:
        print(f"  {what} (reported, not judged)")
    if not judged:
        print("  none of the configurations run has a target (30x1 with 30xrelay, 300x2 with 300x1)")
    print(f"Load average after the run: {load_average()}")
    print()
    print("Where the time goes (per configuration, during the measured window):")
    for r in results:
        per_k = {key: 1000 * value / max(1e-9, r.rate) for key, value in r.cpu.items()}
        print(
            f"  {r.name}: CPU use (cores) servers {r.cpu['servers']:.2f}, PostgreSQL "
            f"{r.cpu['postgres']:.2f}, Redis {r.cpu['redis']:.2f}, clients {r.cpu['clients']:.2f}; "
            f"CPU ms per applied action: servers {per_k['servers']:.2f}, PostgreSQL "
            f"{per_k['postgres']:.2f}, Redis {per_k['redis']:.2f}, clients {per_k['clients']:.2f}"
            + (f"; nginx {r.cpu['proxy']:.2f} cores, {per_k['proxy']:.2f} ms" if r.config.proxy else "")
        )
        if r.config.proxy:
            taken = ", ".join(f"{n} on {upstream}" for upstream, n in sorted(r.games_by_upstream.items()))
            print(
                f"  {'':{len(r.name)}}  nginx routed the games' sockets (hash $request_uri consistent): "
                f"{taken or 'none logged'}; {r.split} games split between two processes"
            )
        if r.processes > 1 and not r.config.relay:
            print(
                f"  {'':{len(r.name)}}  {r.crossed} of {r.played} games had sockets on "
                f"two processes (their notices crossed Redis)"
            )
        # What the whole machine could apply if these costs per action stayed as measured: every
        # part shares the same CPUs, so no server can go beyond this here.
        total_ms = sum(per_k.values())
        print(
            f"  {'':{len(r.name)}}  ceilings at these costs: this machine's {os.cpu_count()} CPUs "
            f"{1000 * (os.cpu_count() or 1) / max(1e-9, total_ms):.0f} actions/s "
            f"({total_ms:.2f} CPU ms per action in all); the server process(es), each on a core "
            f"of its own, {1000 * r.processes / max(1e-9, per_k['servers']):.0f} actions/s"
        )
        threads = "; ".join(
            f"main thread {main:.2f}, busiest other thread {busiest:.2f} (all others {others:.2f})"
            for main, busiest, others in r.threads
        )
        print(f"  {'':{len(r.name)}}  server threads (cores): {threads}")
        print(
            f"  {'':{len(r.name)}}  per applied action: {r.pg_per_action['transactions']:.1f} PostgreSQL "
            f"transactions (autocommit statements count one each), "
            f"{r.pg_per_action['fetched']:.1f} rows fetched, {r.pg_per_action['written']:.1f} rows "
            f"written, {r.pg_per_action['session_updates']:.1f} session-row updates ("
            f"{100 * r.pg_per_action['session_hot'] / max(1e-9, r.pg_per_action['session_updates']):.0f} % "
            f"on the row's own page, HOT); {r.states_per_action:.1f} state messages per applied action, "
            f"{r.state_bytes / max(1, r.states_total):.0f} bytes each"
        )
        errors = ", ".join(f"{what} ×{n}" for what, n in sorted(r.errors.items())) or "none"
        print(
            f"  {'':{len(r.name)}}  PostgreSQL backends active {r.active_backends:.2f}, waiting on a "
            f"row lock {r.lock_waiting:.2f} (mean of 100 ms samples); client loop lag p99 "
            f"{r.loop_lag_p99:.1f} ms; {len(r.latency)} latencies ({r.unseen} not seen by the "
            f"opponent); {r.stalls} stalls; {r.restart_waits} restart waits; sockets opened in "
            f"{r.connect_seconds:.1f} s; load average {r.load[0]:.2f}; errors: {errors}"
        )
    return missed


def service_arguments(parser: argparse.ArgumentParser, *, db: str) -> None:
    """The options of a bench that starts servers against PostgreSQL and Redis, with its own
    database ``db`` (this one, ``bench_connections.py``, ``bench_quiz_live.py``)."""
    parser.add_argument(
        "--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server, without the database"
    )
    parser.add_argument("--db", default=db, help=f"database, dropped and recreated ({db})")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379", help="Redis server, without the db")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis database number (13)")
    parser.add_argument(
        "--server-env",
        action="append",
        metavar="KEY=VALUE",
        help="extra setting for the servers, e.g. DB_POOL_MAX_SIZE=20",
    )
    parser.add_argument("--seed", type=int, default=1918)
    parser.add_argument("--keep", action="store_true", help="keep the database and the server logs")


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def parse_configs(text: str) -> list[Config]:
    configs = []
    for item in text.split(","):
        spec, _, pace = item.strip().partition("@")
        students, _, processes = spec.partition("x")
        relay = processes == "relay"
        try:
            n, p = int(students), 1 if relay else int(processes or 1)
            think = float(pace) if pace else None
        except ValueError:
            n, p, think = 0, 0, None
        if n < 2 or n % 2 or n > STUDENTS_MAX or p < 1 or (think is not None and think < 0):
            raise argparse.ArgumentTypeError(
                f"{item}: an even number of students ≤ {STUDENTS_MAX}, x processes (or x relay), "
                "and @ the mean ms before a STOP for a pace of its own"
            )
        configs.append(Config(n, p, relay=relay, think=think))
    return configs


def with_routing(configs: list[Config], *, cross: bool) -> list[Config]:
    """nginx in front of every run of Talia on two processes or more (unless ``cross``), and of
    the one-process run of as many students that it is compared with: the two differ only in
    the count of processes."""
    if cross:
        return configs
    spread = {c.students for c in configs if c.processes > 1 and not c.relay}
    return [dataclasses.replace(c, proxy=not c.relay and c.students in spread) for c in configs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--configs",
        type=parse_configs,
        default=parse_configs("30xrelay,30x1,300xrelay,300x1,300x2,300x2@4000"),
        help="students x processes, or students x relay (the bare relay), comma-separated "
        "(30xrelay,30x1,300xrelay,300x1,300x2,300x2@4000); @ms: a pace of its own, reported only",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="run the configurations this many times, each judged (1)"
    )
    parser.add_argument(
        "--cross",
        action="store_true",
        help="no nginx: the two players of every duel on two processes, every update through Redis",
    )
    parser.add_argument("--duration", type=float, default=20, help="measured seconds (20)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured seconds first (3)")
    parser.add_argument(
        "--drain", type=float, default=5, help="seconds played on after the window, unmeasured (5)"
    )
    parser.add_argument(
        "--ready",
        type=int,
        default=24,
        help="duels per pair made before the clock at 30 students; fewer for more students, at least 6 (24)",
    )
    parser.add_argument(
        "--think", type=float, default=25, help="mean time before a STOP, ms, uniform from 0 to twice it (25)"
    )
    parser.add_argument("--wrong", type=float, default=0.2, help="share of wrong names (0.2)")
    parser.add_argument("--cards", type=int, default=4, help="cards per player (4)")
    service_arguments(parser, db="talia_bench")
    parser.add_argument("--profile", metavar="DIR", help="run the servers under cProfile, stats in DIR")
    args = parser.parse_args()
    args.pg_dsn = f"{args.pg.rstrip('/')}/{args.db}"
    random.seed(args.seed)
    if args.duration <= 0 or args.warmup < 0 or args.think < 0 or args.cards < 1:
        parser.error("--duration positive; --warmup, --think not negative; --cards at least 1")

    # SIGTERM (e.g. a CI timeout) cleans up as Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    var_dir = Path(tempfile.mkdtemp(prefix="talia-bench-live-"))
    results: list[Result] = []
    started = time.monotonic()
    try:
        redis_clean(args, check=True)
        print(f"Building {args.db} (PostgreSQL) with {STUDENTS_MAX} students ...", flush=True)
        recreate_database(args)
        env = child_env(args, var_dir)
        django_setup(env)
        world = build_world(args)
        configs = with_routing(args.configs, cross=args.cross)
        for round_ in range(1, args.rounds + 1):
            for config in configs:
                config = dataclasses.replace(config, round=round_ if args.rounds > 1 else 0)
                results.append(run_config(args, env, world, config, var_dir))
    except KeyboardInterrupt:
        print("\nInterrupted: stopping.", file=sys.stderr)
        return 130
    finally:
        teardown(args, var_dir)
    missed = report(results, args)
    print(f"\nWhole run: {time.monotonic() - started:.0f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
