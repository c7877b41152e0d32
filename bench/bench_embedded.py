"""One class on ``make run``'s own server: 30 phones playing duels and loading pages, on SQLite.

Run: ``.venv/bin/python bench/bench_embedded.py`` (about a minute; ``--help`` for the knobs).
Needs nothing but the project: no PostgreSQL, no Redis.

It builds a fresh embedded installation in a temporary ``TALIA_VAR_DIR`` (SQLite,
``migrate``, the demo content as ``bench_live.py`` loads it, one teacher and ``--students``
students, each logged in: a database session whose cookie the phone sends), makes the
pairs' ZnajZnak duels through ``games.services`` before the clock starts, and starts
``python -m config.embedded`` on 127.0.0.1 and a free port: what ``make run`` starts
(``manage.py runserver`` with Channels' in-memory layer, and the Celery worker beside it).
Then, for ``--warmup`` + ``--duration`` seconds:

* the phones play their duels over the games' WebSockets, as ``bench_live.py``'s students
  do (its client code: a STOP 0–2 × ``--think`` ms after each new comparison, a wrong name
  one time in five), moving to the pair's next duel when one ends;
* each phone also loads a page every 0–2 × ``--pause`` ms (a keep-alive connection with its
  session cookie): its duel's page, the duel's state as JSON, or the home page; and a
  projector (the teacher's session) loads a duel's page every ``--pause`` ms.

Figures, from the measured window: actions applied (``ActionRecord`` rows), the latency
from a click to the opponent's screen (p50/p95/p99), page loads (p50/p95/p99 by page) and
errors (a socket error, a page answered with 4xx/5xx, a connection error). Targets (issue):
live actions p99 < 150 ms, page loads p99 < 300 ms, 0 errors; exit status 1 on a miss.
The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_live as live  # noqa: E402  (the phones' WebSocket client, the duels)
from bench_connections import Browser  # noqa: E402
from bench_sqlite import child_env as sqlite_env  # noqa: E402
from results import load_average, record  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_ACTION_P99_MS = 150.0
TARGET_PAGE_P99_MS = 300.0
REQUEST_TIMEOUT = 30.0


def child_env(var_dir: Path) -> dict[str, str]:
    """bench_sqlite.py's embedded environment (SQLite, no Redis, no collectstatic), with a
    SECRET_KEY shared by this process (which writes the sessions) and the server."""
    return {**sqlite_env(var_dir, "config.settings"), "SECRET_KEY": secrets.token_urlsafe(50)}


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def web_process(supervisor: subprocess.Popen[bytes]) -> SimpleNamespace:
    """The process serving the pages and sockets (runserver's inner process), for its CPU."""
    for pid in reversed(descendants(supervisor.pid)):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"runserver" in command:
            return SimpleNamespace(pid=pid)
    return SimpleNamespace(pid=supervisor.pid)


class Pages:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = {}
        self.answers: dict[int, int] = {}
        self.errors: dict[str, int] = {}

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def load_pages(
    name: str,
    cookie: str,
    choose: Any,
    port: int,
    run: live.Run,
    pages: Pages,
    pause: float,
    rng: random.Random,
) -> None:
    """One phone's (or the projector's) page loads while the duels are measured."""
    while run.window == (0.0, 0.0):
        await asyncio.sleep(0.05)
    browser = Browser(port, cookie)
    try:
        await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()) + rng.uniform(0, pause))
        while time.perf_counter() < run.window[1]:
            kind, path = choose()
            begin = time.perf_counter()
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    status = await browser.get(path)
            except (OSError, ConnectionError, asyncio.IncompleteReadError, TimeoutError) as error:
                pages.error(f"{name} {kind}: {type(error).__name__}: {error}"[:160])
            else:
                pages.latency.setdefault(kind, []).append(time.perf_counter() - begin)
                pages.answers[status] = pages.answers.get(status, 0) + 1
                if status >= 400:
                    pages.error(f"HTTP {status} for {kind}")
            await asyncio.sleep(rng.uniform(0, 2 * pause))
    finally:
        browser.close()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play(
    args: argparse.Namespace,
    world: live.World,
    server: live.Server,
    run: live.Run,
    pages: Pages,
    executor: ThreadPoolExecutor,
    teacher_cookie: str,
    marks: dict[str, Any],
) -> None:
    rng = random.Random(args.seed)
    pairs: list[live.Pair] = []

    def duel_of(student: int) -> int | None:
        if not pairs:
            return None
        futures = pairs[student // 2].games
        done = [f for f in futures if f.done() and not f.exception()]
        return done[0].result().session_id if done else None

    def phone(student: int) -> Any:
        def choose() -> tuple[str, str]:
            session = duel_of(student)
            roll = rng.random()
            if session is None or roll < 0.2:
                return "home", "/"
            if roll < 0.6:
                return "duel page", f"/games/sessions/{session}/"
            return "duel state (JSON)", f"/games/sessions/{session}/view.json"

        return choose

    def projector() -> tuple[str, str]:
        session = duel_of(rng.randrange(args.students))
        return ("projector: duel page", f"/games/sessions/{session}/") if session else ("home", "/")

    loaders = [
        load_pages(f"phone {n}", world.cookies[n], phone(n), server.port, run, pages, args.pause / 1000, rng)
        for n in range(args.students)
    ]
    loaders.append(
        load_pages("projector", teacher_cookie, projector, server.port, run, pages, args.pause / 2000, rng)
    )
    tasks = [asyncio.create_task(task) for task in loaders]
    original = live.Pair

    class Recorded(original):  # type: ignore[misc,valid-type]
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            pairs.append(self)

    live.Pair = Recorded  # the duels' futures, to know which duel a phone is in
    try:
        config, unused = live.Config(args.students, 1), SimpleNamespace(recording=False)
        await live.drive(args, world, config, [server], [server.port], run, executor, unused, marks)
    finally:
        live.Pair = original
        await asyncio.gather(*tasks, return_exceptions=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30, help="phones, in pairs (30)")
    parser.add_argument("--duration", type=float, default=20, help="measured seconds (20)")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of play before that (3)")
    parser.add_argument("--drain", type=float, default=3, help="seconds of play after (3)")
    parser.add_argument("--ready", type=int, default=24, help="duels per pair made before the clock (24)")
    parser.add_argument("--think", type=float, default=25, help="mean time before a STOP, ms (25)")
    parser.add_argument("--wrong", type=float, default=0.2, help="share of wrong names (0.2)")
    parser.add_argument("--cards", type=int, default=4, help="cards per player (4)")
    parser.add_argument(
        "--pause", type=float, default=2000, help="a phone's mean pause between pages, ms (2000)"
    )
    parser.add_argument("--seed", type=int, default=1918)
    parser.add_argument("--keep", action="store_true", help="keep the folder with the database and log")
    args = parser.parse_args()
    if args.students < 2 or args.students % 2 or args.duration <= 0:
        parser.error("--students even and at least 2; --duration positive")
    args.pg_dsn = args.db = ""  # bench_live's PostgreSQL counters: none here
    print(f"Embedded bench: {os.cpu_count()} CPUs, load average {load_average()} before the run")

    var_dir = Path(tempfile.mkdtemp(prefix="talia-bench-embedded-"))
    env = child_env(var_dir)
    (var_dir / "static").mkdir()  # WhiteNoise's STATIC_ROOT, empty: the phones load no static files
    # This process makes the data and the duels in the same SQLite database.
    live.django_setup({**env, "REDIS_URL": ""})
    live.STUDENTS_MAX = args.students
    live.pg_counters = lambda dsn, db: {"transactions": 0, "fetched": 0, "written": 0}  # no PostgreSQL
    from django.conf import settings
    from django.test import Client

    print(f"Building the embedded installation in {var_dir} ...", flush=True)
    world = live.build_world(args)
    client = Client()
    client.force_login(world.teacher)
    teacher_cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"

    port = live.free_port()
    log = var_dir / "embedded.log"
    with log.open("wb") as out:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "config.embedded", "--host", live.HOST, "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = live.Server(port, supervisor, log)  # type: ignore[arg-type]
    run = live.Run()
    pages = Pages()
    marks: dict[str, Any] = {}
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="duels")
    try:
        live.wait_until_up(server)
        server.process = web_process(supervisor)  # type: ignore[assignment]  # its CPU, not the supervisor's
        print(
            f"make run's server on {port}; {args.students} phones, {args.warmup:g} s warm-up + "
            f"{args.duration:g} s measured ...",
            flush=True,
        )
        asyncio.run(play(args, world, server, run, pages, executor, teacher_cookie, marks))
    finally:
        os.killpg(supervisor.pid, signal.SIGTERM)
        try:
            supervisor.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(supervisor.pid, signal.SIGKILL)
            supervisor.wait()
        executor.submit(lambda: __import__("django.db").db.connections.close_all()).result(timeout=30)
        executor.shutdown(wait=True)
    text = log.read_text(errors="replace")
    if "Traceback" in text:
        run.error(f"server: {text.count('Traceback')} tracebacks in its log")
        first = text.index("Traceback")
        print(text[first : first + 2500], file=sys.stderr)
    result = live.analyse(f"{args.students} phones", args.students, 1, run, marks)

    name = "bench_embedded.py"
    p99 = result.pct(result.latency, 0.99)
    every_page = [t for values in pages.latency.values() for t in values]
    page_p99 = percentile(every_page, 0.99)
    errors = sum(result.errors.values()) + sum(pages.errors.values())
    print(
        f"\n{args.students} phones on make run's server (SQLite), {args.duration:g} s measured: "
        f"{result.rate:.0f} actions/s applied, {result.refused} lost STOP races (expected)"
    )
    print(
        f"  click to opponent: p50 {result.pct(result.latency, 0.5):.1f} ms, p95 "
        f"{result.pct(result.latency, 0.95):.1f} ms, p99 {p99:.1f} ms ({len(result.latency)} actions, "
        f"{result.unseen} not seen by the opponent); click to own screen p99 "
        f"{result.pct(result.own, 0.99):.1f} ms"
    )
    for kind, values in sorted(pages.latency.items()):
        print(
            f"  {kind}: {len(values)} loads, p50 {percentile(values, 0.5):.0f} ms, "
            f"p95 {percentile(values, 0.95):.0f} ms, p99 {percentile(values, 0.99):.0f} ms"
        )
    print(f"  answers: {', '.join(f'{code}: {n}' for code, n in sorted(pages.answers.items()))}")
    cpu = (marks["cpu_end"]["servers"] - marks["cpu_begin"]["servers"]) / result.duration
    print(f"  the web process used {cpu:.2f} cores; load average after the run: {load_average()}")
    for what, n in sorted({**result.errors, **pages.errors}.items()):
        print(f"  error: {n} × {what}")
    ok = record(
        name,
        "live actions: p99 click to opponent",
        f"{p99:.1f} ms",
        f"< {TARGET_ACTION_P99_MS:g} ms",
        p99 < TARGET_ACTION_P99_MS,
    )
    ok &= record(
        name,
        "page loads: p99",
        f"{page_p99:.0f} ms",
        f"< {TARGET_PAGE_P99_MS:g} ms",
        page_p99 < TARGET_PAGE_P99_MS,
    )
    ok &= record(name, "errors", str(errors), "0", errors == 0)
    print(
        f"Targets: actions p99 {p99:.1f} ms (< {TARGET_ACTION_P99_MS:g}), pages p99 {page_p99:.0f} ms "
        f"(< {TARGET_PAGE_P99_MS:g}), {errors} errors (0): {'met' if ok else 'MISSED'}"
    )
    if args.keep:
        print(f"Kept {var_dir}")
    else:
        shutil.rmtree(var_dir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
