"""Requests per second of Talia on its embedded SQLite: tuned settings vs Django's defaults.

Run: ``.venv/bin/python bench/bench_sqlite.py`` (about a minute; ``--help`` for the knobs).

For each configuration the script builds a fresh database in its own temporary
``TALIA_VAR_DIR`` (``migrate`` and ``demo_load``, with that configuration's settings, so
the defaults' database is never switched to WAL), adds one admin with a logged-in
session per client, and starts a real web server the way ``make run`` does:
``manage.py runserver`` (threaded, one server thread per client connection) on
127.0.0.1 and a free port. ``--clients`` threads then drive it over HTTP/1.1
keep-alive connections, like browsers, for ``--warmup`` + ``--duration`` seconds:

* reads (80 %): the home page, the admin's symbol and Knowledge? question lists, a tag
  search and ``/healthz`` — each a session lookup plus the page's own queries;
* writes (20 %): the admin's own forms, half "add a tag" and half "rename the tag
  this client added last" — each a transaction with a write to the content table and one
  to the admin log, as a curator's save is.

Only the requests that finish inside the measured window count; a response other than
the expected status (for example a 500 from "database is locked") is an error and
does not count towards the rate.

The configurations:

* ``tuned``: ``config.settings`` as it is (WAL, ``synchronous=NORMAL``,
  ``busy_timeout``, IMMEDIATE transactions, persistent connections);
* ``defaults``: ``bench/settings_sqlite_defaults.py``, the same settings with Django's
  SQLite defaults (rollback journal, ``synchronous=FULL``, DEFERRED transactions,
  ``CONN_MAX_AGE=0``).

Everything else (no Redis, ``DEBUG=false``, the data set) is the same for both. Static
files are not collected (plain ``StaticFilesStorage``): the clients fetch no static files.

What it measures is the embedded web server: one Python process, so the pages' own CPU
time weighs as much as the database. ``--writes`` changes the mix, ``--rounds`` repeats
both configurations in alternating order and reports the median ratio.

Target: the tuned configuration answers every request (0 errors, e.g. no "database is
locked"), which is what the tuning is for; requests/s and the ratio are reported, not
judged (the embedded mode's speed target is a class playing on ``make run``'s server).
Exit status 1 when the tuned configuration had an error.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from results import load_average, record  # noqa: E402

from config.environment import environment_without_settings  # noqa: E402

PYTHON = sys.executable
HOST = "127.0.0.1"

CONFIGS = {
    "tuned": "config.settings",
    "defaults": "bench.settings_sqlite_defaults",
}


# (path, weight) of the reads; all answer 200 to a logged-in admin.
READS = (
    ("/", 25),
    ("/admin/content/symbol/", 25),
    ("/admin/content/knowledgequestion/", 15),
    ("/admin/content/tag/?q=bench", 15),
    ("/healthz", 20),
)

# Runs inside ``manage.py shell`` once the database is migrated and loaded: one admin,
# one logged-in session per client, and what the server's database connection reports.
SETUP = """
import json
from django.conf import settings
from django.db import connection
from django.test import Client
from lms.models import Role
from lms.services import user_create

admin = user_create(username="bench-admin", password=None, role=Role.ADMIN)
sessions = []
for _ in range({clients}):
    client = Client()
    client.force_login(admin)
    sessions.append(client.cookies[settings.SESSION_COOKIE_NAME].value)
with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    journal_mode = cursor.fetchone()[0]
    cursor.execute("PRAGMA synchronous")
    synchronous = cursor.fetchone()[0]
print("BENCH-SETUP " + json.dumps({{
    "sessions": sessions,
    "session_cookie": settings.SESSION_COOKIE_NAME,
    "csrf_cookie": settings.CSRF_COOKIE_NAME,
    "journal_mode": journal_mode,
    "synchronous": synchronous,
    "transaction_mode": connection.transaction_mode or "DEFERRED (default)",
    "conn_max_age": settings.DATABASES["default"]["CONN_MAX_AGE"],
}}))
"""


@dataclass
class Sample:
    kind: str  # "read" or "write"
    ok: bool
    seconds: float


@dataclass
class Result:
    name: str
    setup: dict[str, Any]
    duration: float
    samples: list[Sample] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    locked_in_log: int = 0
    round: int = 1

    @property
    def ok(self) -> list[Sample]:
        return [s for s in self.samples if s.ok]

    @property
    def rate(self) -> float:
        return len(self.ok) / self.duration

    def rate_of(self, kind: str) -> float:
        return sum(1 for s in self.ok if s.kind == kind) / self.duration

    def percentile_ms(self, q: float) -> float:
        times = sorted(s.seconds for s in self.ok)
        if not times:
            return float("nan")
        return 1000 * times[min(len(times) - 1, int(q * len(times)))]


def child_env(var_dir: Path, settings_module: str) -> dict[str, str]:
    env = environment_without_settings()
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": settings_module,
            "TALIA_VAR_DIR": str(var_dir),
            # Explicit, so that a developer's .env cannot point the run at PostgreSQL.
            "DATABASE_URL": f"sqlite:///{var_dir / 'talia.sqlite3'}",
            "REDIS_URL": "",
            "AWS_STORAGE_BUCKET_NAME": "",
            "DEBUG": "false",
            "HTTPS": "false",
            # The pages only need static URLs, not the files: skip collectstatic.
            "STATICFILES_STORAGE": "django.contrib.staticfiles.storage.StaticFilesStorage",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(args[:1])} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def wait_until_up(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"The server stopped:\n{log.read_text()[-3000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"The server did not answer /healthz within 60 s:\n{log.read_text()[-3000:]}")


class Browser:
    """One logged-in admin on one keep-alive connection."""

    def __init__(self, port: int, setup: dict[str, Any], session: str, number: int) -> None:
        self.port = port
        self.number = number
        self.token = secrets.token_hex(16)  # a CSRF secret: 32 characters, as Django's
        self.cookie = f"{setup['session_cookie']}={session}; {setup['csrf_cookie']}={self.token}"
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.tag_id: str | None = None
        self.writes = 0

    def request(self, method: str, path: str, body: dict[str, str] | None = None):
        headers = {"Cookie": self.cookie, "Connection": "keep-alive"}
        data = None
        if body is not None:
            data = urllib.parse.urlencode({"csrfmiddlewaretoken": self.token, **body})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
            raise
        return response

    def read(self, path: str) -> tuple[bool, str]:
        response = self.request("GET", path)
        return response.status == 200, f"GET {path.split('?')[0]} {response.status}"

    def write(self) -> tuple[bool, str]:
        self.writes += 1
        slug = f"bench-{self.number}-{self.writes}"
        if self.tag_id is None or self.writes % 2:
            form = {"slug": slug, "_continue": "1"}
            response = self.request("POST", "/admin/content/tag/add/", form)
            location = response.getheader("Location") or ""
            if response.status == 302 and location.endswith("/change/"):
                self.tag_id = location.rstrip("/").split("/")[-2]
                return True, ""
            return False, f"POST tag add {response.status}"
        response = self.request(
            "POST", f"/admin/content/tag/{self.tag_id}/change/", {"slug": slug, "_save": "1"}
        )
        return response.status == 302, f"POST tag change {response.status}"


def drive(
    port: int,
    setup: dict[str, Any],
    clients: int,
    warmup: float,
    duration: float,
    write_share: float,
    seed: int,
) -> tuple[list[Sample], dict[str, int]]:
    sessions = list(setup["sessions"])
    browsers = [Browser(port, setup, sessions[i], i) for i in range(clients)]
    # Every page answers before the clock starts: a broken page is a broken benchmark.
    for path, _weight in READS:
        ok, what = browsers[0].read(path)
        if not ok:
            sys.exit(f"{what}: the workload needs every page to answer 200.")
    ok, what = browsers[0].write()
    if not ok:
        sys.exit(f"{what}: the workload needs the admin's tag form to save.")

    paths = [p for p, _ in READS]
    weights = [w for _, w in READS]
    start_line = threading.Barrier(clients + 1)
    window: list[float] = []
    samples: list[Sample] = []
    failures: dict[str, int] = {}
    lock = threading.Lock()

    def client(browser: Browser, rng: random.Random) -> None:
        mine: list[Sample] = []
        errors: dict[str, int] = {}
        start_line.wait()
        begin, end = window
        while (now := time.perf_counter()) < end:
            kind = "write" if rng.random() < write_share else "read"
            try:
                if kind == "write":
                    ok, what = browser.write()
                else:
                    ok, what = browser.read(rng.choices(paths, weights)[0])
            except (OSError, http.client.HTTPException) as error:
                ok, what = False, f"{type(error).__name__}"
            finished = time.perf_counter()
            if now >= begin and finished <= end:
                mine.append(Sample(kind, ok, finished - now))
                if not ok:
                    errors[what] = errors.get(what, 0) + 1
        with lock:
            samples.extend(mine)
            for what, count in errors.items():
                failures[what] = failures.get(what, 0) + count

    threads = [
        threading.Thread(target=client, args=(b, random.Random(seed + b.number)), daemon=True)
        for b in browsers
    ]
    for thread in threads:
        thread.start()
    now = time.perf_counter()
    window.extend([now + warmup, now + warmup + duration])
    start_line.wait()
    for thread in threads:
        thread.join(timeout=warmup + duration + 120)
    for browser in browsers:
        browser.conn.close()
    return samples, failures


def run(name: str, args: argparse.Namespace) -> Result:
    var_dir = Path(tempfile.mkdtemp(prefix=f"talia-bench-{name}-", dir=args.tmpdir))
    env = child_env(var_dir, CONFIGS[name])
    (var_dir / "static").mkdir()  # WhiteNoise's STATIC_ROOT, empty: no page loads its files
    server = None
    try:
        print(f"[{name}] building the database in {var_dir} ...", flush=True)
        manage(env, "migrate", "--noinput", "--verbosity", "0")
        manage(env, "demo_load")
        out = manage(env, "shell", "--command", SETUP.format(clients=args.clients))
        line = next(x for x in out.splitlines() if x.startswith("BENCH-SETUP "))
        setup = json.loads(line.removeprefix("BENCH-SETUP "))

        port = free_port()
        log = var_dir / "server.log"
        with log.open("wb") as log_file:
            server = subprocess.Popen(
                [PYTHON, "manage.py", "runserver", f"{HOST}:{port}", "--noreload"],
                cwd=ROOT,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
        wait_until_up(port, server, log)
        print(
            f"[{name}] serving on {HOST}:{port}; {args.clients} clients, "
            f"{args.warmup:g} s warm-up + {args.duration:g} s measured ...",
            flush=True,
        )
        samples, failures = drive(
            port, setup, args.clients, args.warmup, args.duration, args.writes, args.seed
        )
        result = Result(name, setup, args.duration, samples, failures)
        result.locked_in_log = log.read_text(errors="replace").count("database is locked")
        return result
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        if args.keep:
            print(f"[{name}] kept {var_dir}")
        else:
            shutil.rmtree(var_dir, ignore_errors=True)


def filesystem_of(path: Path) -> str:
    """The mount's filesystem type (Linux), since fsync's cost depends on it."""
    try:
        mounts = [line.split()[1:3] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return "unknown"
    resolved = str(path.resolve())
    best = ("", "unknown")
    for mount, kind in mounts:
        inside = resolved == mount or resolved.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) > len(best[0]):
            best = (mount, kind)
    return best[1]


def report(results: list[Result], args: argparse.Namespace) -> bool:
    tmp = Path(args.tmpdir or tempfile.gettempdir())
    print()
    print(
        f"SQLite behind `manage.py runserver`: {args.clients} keep-alive clients, "
        f"{args.duration:g} s measured, {100 * args.writes:.0f} % writes; "
        f"{os.cpu_count()} CPUs; database on {filesystem_of(tmp)} ({tmp})"
    )
    header = (
        f"{'round':>5} {'config':9} {'journal':8} {'sync':>4} {'transactions':19} "
        f"{'CONN_MAX_AGE':>12} {'req/s':>7} {'reads/s':>8} {'writes/s':>8} {'errors':>6} "
        f"{'p50 ms':>7} {'p95 ms':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        errors = sum(1 for s in r.samples if not s.ok)
        print(
            f"{r.round:5d} {r.name:9} {r.setup['journal_mode']!s:8} "
            f"{r.setup['synchronous']!s:>4} {r.setup['transaction_mode']!s:19} "
            f"{r.setup['conn_max_age']!s:>12} {r.rate:7.1f} {r.rate_of('read'):8.1f} "
            f"{r.rate_of('write'):8.1f} {errors:6d} {r.percentile_ms(0.5):7.1f} "
            f"{r.percentile_ms(0.95):7.1f}"
        )
    for name in CONFIGS:
        mine = [r for r in results if r.name == name]
        failures: dict[str, int] = {}
        for r in mine:
            for what, n in r.failures.items():
                failures[what] = failures.get(what, 0) + n
        writes = sum(1 for r in mine for s in r.samples if s.kind == "write")
        failed_writes = sum(1 for r in mine for s in r.samples if s.kind == "write" and not s.ok)
        if failures:
            shown = ", ".join(f"{what} ×{n}" for what, n in sorted(failures.items()))
            print(f"{name} errors: {shown} ({failed_writes} of {writes} writes failed)")
        locked = sum(r.locked_in_log for r in mine)
        if locked:
            print(f"{name}: 'database is locked' {locked} times in the server log")
    ratios = []
    for number in sorted({r.round for r in results}):
        pair = {r.name: r for r in results if r.round == number}
        if "tuned" in pair and "defaults" in pair and pair["defaults"].rate:
            ratios.append(pair["tuned"].rate / pair["defaults"].rate)
    if ratios:
        shown = ", ".join(f"{x:.2f}×" for x in ratios)
        print(
            f"tuned / defaults, requests per second: median {statistics.median(ratios):.2f}× "
            f"(rounds: {shown})"
        )
    tuned = [r for r in results if r.name == "tuned"]
    if not tuned:
        return True
    errors = sum(1 for r in tuned for s in r.samples if not s.ok)
    total = sum(len(r.samples) for r in tuned)
    met = record("bench_sqlite.py", "tuned: failed requests", f"{errors} of {total}", "0", errors == 0)
    print(f"tuned: {errors} of {total} requests failed (target 0): {'met' if met else 'MISSED'}")
    print(f"load average after the run: {load_average()}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=15, help="measured seconds (15)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured seconds first (3)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (8)")
    parser.add_argument("--writes", type=float, default=0.2, help="share of writes (0.2)")
    parser.add_argument("--rounds", type=int, default=1, help="repeat both, alternating (1)")
    parser.add_argument("--seed", type=int, default=1918)
    parser.add_argument(
        "--only", choices=sorted(CONFIGS), action="append", help="run only this configuration"
    )
    parser.add_argument("--tmpdir", help="where the databases go (the system's temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the databases and logs")
    args = parser.parse_args()
    if not 0 <= args.writes <= 1 or min(args.clients, args.rounds) < 1 or args.duration <= 0:
        parser.error("--writes is between 0 and 1; --clients, --rounds, --duration positive")
    names = args.only or ["defaults", "tuned"]
    results = []
    for number in range(1, args.rounds + 1):
        # Alternate the order, so neither configuration always runs on a warmer machine.
        for name in names if number % 2 else names[::-1]:
            result = run(name, args)
            result.round = number
            results.append(result)
    return 0 if report(results, args) else 1


if __name__ == "__main__":
    sys.exit(main())
