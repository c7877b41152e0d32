"""PostgreSQL connections under load: does every web process stay within its pool's bound?

Run: ``.venv/bin/python bench/bench_connections.py`` (about two minutes; ``--help`` for the
knobs). Needs PostgreSQL (``--pg``, trust auth as ``postgres``) and Redis (``--redis``) on
127.0.0.1.

What it does:

* drops and recreates the database ``--db`` (``talia_bench_connections``), migrates it,
  loads the demo content and logs in ``--students`` students, as ``bench_live.py`` does
  (whose code it reuses for the students);
* asks the servers' settings, in a fresh Python with the servers' environment, for the
  bound of one process: Django's pool (``DB_POOL_MAX_SIZE`` + ``LIVE_DB_THREADS``) + the
  live fast path's pool (``LIVE_DB_POOL_MAX_SIZE``), ``docs/deploy.md``, Scaling;
* starts ``--processes`` (2) real ASGI servers, ``daphne config.asgi:application`` on
  127.0.0.1, with production's settings (``DEBUG=false``, PostgreSQL, Redis, the
  settings' default pool sizes unless ``--server-env`` says otherwise);
* while ``--students`` (30) students play live ZnajZnak duels over WebSockets (the two
  players of a duel on different processes, as ``bench_live.py --cross`` drives them),
  ``--clients`` (200) anonymous clients ask for public pages (the home page, the join
  page, the login page, ``/healthz``) and guess join codes (``/games/join/XXXXXX``, six
  characters of the join-code alphabet: mostly 404s), one request after another with a
  pause of 0 to twice ``--pause`` ms between, each at most ``--requests`` requests and
  only while the students play, each on a keep-alive connection of its own as a browser
  keeps one;
* every 100 ms counts the database's backends (``pg_stat_activity`` where ``datname`` is
  the bench's database), and among them this process's own by their
  ``application_name``: its sampler, a pool of at most two for making the duels, and
  ``bench_live``'s counters read at the start and end of the students' window.

It prints the peak and the bound (processes × per-process bound + this process's own), the
anonymous requests by answer, and the errors: a 5xx answer, a connection error (refused,
reset, no answer within 30 s) or a student's socket error. A 404 for a guess is the
expected answer, and so is a 429 (a server may limit guesses). The exit status is 1 when
the peak exceeds the bound or anything failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_live as live  # noqa: E402  (the students, the servers, the data set)
from results import record  # noqa: E402

HOST = live.HOST
ROOT = live.ROOT
PYTHON = live.PYTHON
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # games/services.py
#: This process's own backends, told apart by their application_name: the sampler, its
#: Django pool (for making the duels) and bench_live's counters read at the window's ends.
OWN_APPLICATION = "talia-bench-connections"
OWN_POOL_MAX = 2
OWN_CONNECTIONS = 1 + OWN_POOL_MAX + 1
#: Public pages an anonymous visitor asks for, with the share of join-code guesses.
PAGES = ["/", "/games/join", "/accounts/login/", "/healthz"]
GUESS_SHARE = 0.6
REQUEST_TIMEOUT = 30.0

BOUND_OF_A_PROCESS = """
import json
import django
django.setup()
from django.conf import settings
pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
print("OUT " + json.dumps({
    "db_pool_max_size": getattr(settings, "DB_POOL_MAX_SIZE", None) if isinstance(pool, dict) else None,
    "pool_max_size": pool["max_size"] if isinstance(pool, dict) else None,
    "live_db_threads": settings.LIVE_DB_THREADS,
    "live_db_pool_max_size": getattr(settings, "LIVE_DB_POOL_MAX_SIZE", None),
}))
"""


def process_bound(env: dict[str, str]) -> dict[str, Any]:
    """What the servers' settings give one process: Django's pool and the fast path's."""
    done = subprocess.run(
        [PYTHON, "-c", BOUND_OF_A_PROCESS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise SystemExit(f"could not read the servers' settings:\n{done.stderr[-3000:]}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("OUT "))
    found: dict[str, Any] = json.loads(line.removeprefix("OUT "))
    return found


def start_server(env: dict[str, str], var_dir: Path, number: int, port: int) -> live.Server:
    log = var_dir / f"daphne-{number}.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [PYTHON, "-m", "daphne", "-b", HOST, "-p", str(port), "config.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches this process only; it stops the servers
        )
    return live.Server(port, process, log)


class ConnectionSampler:
    """Every 100 ms: the bench database's backends, all of them and this process's own."""

    def __init__(self, dsn: str, db: str) -> None:
        self.dsn, self.db = dsn, db
        self.samples: list[int] = []
        self.own: list[int] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while not self._stop.wait(0.1):
                try:
                    row = conn.execute(
                        "SELECT count(*), count(*) FILTER (WHERE application_name = %s)"
                        " FROM pg_stat_activity WHERE datname = %s",
                        (OWN_APPLICATION, self.db),
                    ).fetchone()
                except psycopg.Error:
                    self.failures += 1
                    continue
                assert row is not None
                self.samples.append(int(row[0]))
                self.own.append(int(row[1]))

    def __enter__(self) -> ConnectionSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class Visits:
    """What the anonymous clients got."""

    def __init__(self) -> None:
        self.answers: dict[int, int] = {}
        self.errors: dict[str, int] = {}
        self.latency: list[float] = []

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Browser:
    """One visitor's keep-alive HTTP/1.1 connection, as a browser keeps one (anonymous
    unless given the ``cookie`` of a session)."""

    def __init__(self, port: int, cookie: str = "") -> None:
        self.port = port
        self.cookie = f"Cookie: {cookie}\r\n" if cookie else ""
        self.stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def get(self, path: str) -> int:
        """GET ``path``; the status code. A kept connection that the server closed while it
        was idle is opened again once, as a browser does; any other failure raises."""
        if self.stream is not None:
            try:
                return await self._get(path)
            except (OSError, asyncio.IncompleteReadError, ConnectionError) as error:
                if not getattr(error, "idle", False):
                    raise
        return await self._get(path)

    async def _get(self, path: str) -> int:
        fresh = self.stream is None
        if self.stream is None:
            self.stream = await asyncio.open_connection(HOST, self.port)
        reader, writer = self.stream
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n{self.cookie}\r\n".encode())
            await writer.drain()
            try:
                status_line = await reader.readuntil(b"\r\n")
            except (OSError, asyncio.IncompleteReadError) as error:
                error.idle = not fresh  # type: ignore[union-attr]  # nothing read: closed while idle
                raise
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
            headers = dict(line.split(":", 1) for line in head.split("\r\n") if ":" in line)
            if "content-length" in headers:
                await reader.readexactly(int(headers["content-length"]))
            elif "chunked" in headers.get("transfer-encoding", ""):
                while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                    await reader.readexactly(size + 2)
                await reader.readuntil(b"\r\n")
            else:
                await reader.read()  # until the server closes
                self.close()
            if "close" in headers.get("connection", ""):
                self.close()
        except BaseException:
            self.close()
            raise
        parts = status_line.split()
        if len(parts) < 2 or not parts[1].isdigit():
            self.close()
            raise ConnectionError(f"no status line: {status_line[:80]!r}")
        return int(parts[1])

    def close(self) -> None:
        if self.stream is not None:
            self.stream[1].close()
            self.stream = None


async def visitor(
    number: int,
    ports: list[int],
    run: live.Run,
    visits: Visits,
    args: argparse.Namespace,
    stop: asyncio.Event,
) -> None:
    rng = random.Random(args.seed * 7919 + number)
    port = ports[number % len(ports)]
    # Start with the students' clock (bench_live.drive sets the window once they play).
    while run.window == (0.0, 0.0) and not stop.is_set():
        await asyncio.sleep(0.05)
    await asyncio.sleep(rng.uniform(0, 0.5))  # not all at the same instant
    end = run.window[1] + args.drain
    browser = Browser(port)
    try:
        await _visit(browser, rng, visits, args, stop, end)
    finally:
        browser.close()


async def _visit(
    browser: Browser,
    rng: random.Random,
    visits: Visits,
    args: argparse.Namespace,
    stop: asyncio.Event,
    end: float,
) -> None:
    for _ in range(args.requests):
        if stop.is_set() or time.perf_counter() >= end:
            return
        if rng.random() < GUESS_SHARE:
            path = "/games/join/" + "".join(rng.choice(JOIN_CODE_ALPHABET) for _ in range(6))
        else:
            path = rng.choice(PAGES)
        begin = time.perf_counter()
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                status = await browser.get(path)
        except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError) as error:
            visits.error(f"connection: {type(error).__name__}: {error}"[:160])
        else:
            visits.latency.append(time.perf_counter() - begin)
            visits.answers[status] = visits.answers.get(status, 0) + 1
            if status >= 500:
                visits.error(f"HTTP {status} for {path.rsplit('/', 1)[0] or '/'}")
        await asyncio.sleep(rng.uniform(0, 2 * args.pause / 1000))


async def play(
    args: argparse.Namespace,
    world: live.World,
    servers: list[live.Server],
    run: live.Run,
    visits: Visits,
    executor: ThreadPoolExecutor,
) -> None:
    stop = asyncio.Event()
    ports = [s.port for s in servers]
    crowd = [asyncio.create_task(visitor(n, ports, run, visits, args, stop)) for n in range(args.clients)]
    marks: dict[str, Any] = {}
    unused = SimpleNamespace(recording=False)  # bench_live's sampler of lock waits: not wanted here
    try:
        # The two players of every duel on two processes, as before nginx was in bench_live.py.
        config = live.Config(args.students, len(servers))
        await live.drive(args, world, config, servers, ports, run, executor, unused, marks)
    except Exception as error:  # e.g. PostgreSQL refusing this process's own connection
        run.error(f"the run stopped: {error!r}"[:300])
    finally:
        stop.set()
        await asyncio.gather(*crowd, return_exceptions=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=2, help="daphne processes (2)")
    parser.add_argument("--clients", type=int, default=200, help="anonymous clients (200)")
    parser.add_argument("--students", type=int, default=30, help="students playing duels, even (30)")
    parser.add_argument(
        "--requests", type=int, default=200, help="requests per anonymous client at most (200)"
    )
    parser.add_argument(
        "--pause", type=float, default=100, help="mean pause between a client's requests, ms (100)"
    )
    parser.add_argument("--duration", type=float, default=20, help="seconds the students play, measured (20)")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of play before that (3)")
    parser.add_argument("--drain", type=float, default=3, help="seconds of play after (3)")
    parser.add_argument("--ready", type=int, default=6, help="duels per pair made before the clock (6)")
    parser.add_argument("--think", type=float, default=25, help="students' mean time before a STOP, ms (25)")
    parser.add_argument("--wrong", type=float, default=0.2, help="share of wrong names (0.2)")
    parser.add_argument("--cards", type=int, default=4, help="cards per player (4)")
    parser.add_argument("--port", type=int, default=0, help="first server port; 0: any free ports (0)")
    live.service_arguments(parser, db="talia_bench_connections")
    args = parser.parse_args()
    args.pg_dsn = f"{args.pg.rstrip('/')}/{args.db}?application_name={OWN_APPLICATION}"
    if args.students < 2 or args.students % 2 or args.processes < 1 or args.clients < 0:
        parser.error("--students even and at least 2; --processes at least 1; --clients not negative")
    random.seed(args.seed)

    signal.signal(signal.SIGTERM, live._interrupt)
    var_dir = Path(tempfile.mkdtemp(prefix="talia-bench-connections-"))
    servers: list[live.Server] = []
    run, visits = live.Run(), Visits()
    started = time.monotonic()
    cpus = os.cpu_count()
    print(f"{cpus} CPUs; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    try:
        live.redis_clean(args, check=True)
        env = live.child_env(args, var_dir)
        bound = process_bound(env)
        # No pool (DB_POOL_MAX_SIZE=0): a connection per thread, no bound to check against.
        per_process = (
            None
            if bound["db_pool_max_size"] is None
            else bound["pool_max_size"] + bound["live_db_pool_max_size"]
        )
        limit = None if per_process is None else args.processes * per_process + OWN_CONNECTIONS
        print(f"Building {args.db} (PostgreSQL) with {args.students} students ...", flush=True)
        live.recreate_database(args)
        live.STUDENTS_MAX = args.students
        own = {"DATABASE_URL": args.pg_dsn, "DB_POOL_MIN_SIZE": "1", "DB_POOL_MAX_SIZE": str(OWN_POOL_MAX)}
        live.django_setup({**env, **own})
        world = live.build_world(args)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="duels")
        with ConnectionSampler(args.pg_dsn, args.db) as sampler:
            for number in range(args.processes):
                port = args.port + number if args.port else live.free_port()
                servers.append(start_server(env, var_dir, number, port))
            for server in servers:
                live.wait_until_up(server)
            print(
                f"daphne on {', '.join(str(s.port) for s in servers)}; {args.students} students, "
                f"{args.clients} anonymous clients, "
                f"{args.warmup:g} + {args.duration:g} + {args.drain:g} s ...",
                flush=True,
            )
            try:
                asyncio.run(play(args, world, servers, run, visits, executor))
            finally:
                load = os.getloadavg()
                for server in servers:
                    live.stop_server(server)
                executor.submit(live.close_connections).result(timeout=30)
                executor.shutdown(wait=True)
        tracebacks = {s.port: _tracebacks(s.log.read_text(errors="replace")) for s in servers}
        from games.models import ActionRecord

        applied = ActionRecord.objects.filter(session_id__in=run.sessions).count()
    except KeyboardInterrupt:
        print("\nInterrupted: stopping.", file=sys.stderr)
        return 130
    finally:
        live.teardown(args, var_dir, servers)

    peak = max(sampler.samples, default=0)
    servers_peak = max(
        (total - own for total, own in zip(sampler.samples, sampler.own, strict=True)), default=0
    )
    own_peak = max(sampler.own, default=0)
    servers_limit = None if per_process is None else args.processes * per_process
    requests = sum(visits.answers.values()) + sum(n for k, n in visits.errors.items() if k.startswith("conn"))
    failed = sum(visits.errors.values()) + sum(run.errors.values())
    latency = sorted(visits.latency)
    print()
    if per_process is None:
        print("Per process: no pool (DB_POOL_MAX_SIZE=0), a connection per thread: no bound")
    else:
        print(
            f"Per process: Django's pool {bound['pool_max_size']} (DB_POOL_MAX_SIZE "
            f"{bound['db_pool_max_size']} + LIVE_DB_THREADS {bound['live_db_threads']}) + "
            f"LIVE_DB_POOL_MAX_SIZE {bound['live_db_pool_max_size']} = {per_process}; "
            f"bound {args.processes} × {per_process} + {OWN_CONNECTIONS} (this process) = {limit}"
        )
    print(
        f"PostgreSQL backends of {args.db}: peak {peak}, mean {_mean(sampler.samples):.1f} "
        f"over {len(sampler.samples)} samples (every 100 ms; {sampler.failures} failed samples); "
        f"the servers' peak {servers_peak} (bound {servers_limit}), this process's {own_peak}"
    )
    answers = ", ".join(f"{code}: {n}" for code, n in sorted(visits.answers.items()))
    print(f"Anonymous requests: {requests} ({answers})")
    if latency:
        p50 = 1000 * latency[len(latency) // 2]
        p99 = 1000 * latency[min(len(latency) - 1, int(0.99 * len(latency)))]
        print(f"  answered in p50 {p50:.0f} ms, p99 {p99:.0f} ms")
    print(f"Students: {applied} actions applied, {run.refused} lost STOP races (expected)")
    print(f"Errors: {failed}")
    for what, n in sorted({**visits.errors, **{f"student {k}": v for k, v in run.errors.items()}}.items()):
        print(f"  {n} × {what}")
    for port, found in tracebacks.items():
        for what, n in sorted(found.items()):
            print(f"  daphne {port}: {n} × traceback in its log: {what}")
    loads = " ".join(f"{x:.2f}" for x in load)
    print(f"Load average after: {loads}; whole run {time.monotonic() - started:.0f} s")
    over = limit is None or peak > limit or servers_peak > (servers_limit or 0)
    record("bench_connections.py", "PostgreSQL backends, peak", str(peak), f"<= bound {limit}", not over)
    record("bench_connections.py", "failed requests and socket errors", str(failed), "0", not failed)
    verdict = "FAIL" if over or failed else "OK"
    print(f"{verdict}: peak {peak} {'>' if over else '≤'} bound {limit}, {failed} errors")
    return 1 if over or failed else 0


def _tracebacks(log: str) -> dict[str, int]:
    """The exception line of each traceback in a server's log, counted."""
    found: dict[str, int] = {}
    lines = log.splitlines()
    for at, line in enumerate(lines):
        if line.startswith("Traceback"):
            end = next(
                (x for x in lines[at + 1 :] if x and not x.startswith(" ")), "(the log ends in the traceback)"
            )
            found[end[:160]] = found.get(end[:160], 0) + 1
    return found


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


if __name__ == "__main__":
    sys.exit(main())
