"""The write path of a live action, alone: CPU, wall time and queries per applied action.

Run: ``.venv/bin/python bench/bench_live_apply.py`` (under a minute; ``--help``). Needs
PostgreSQL on 127.0.0.1 (``--pg``, trust auth as ``postgres``); the database ``--db``
(``talia_bench_apply``) is dropped and recreated.

``bench_live.py`` measures the whole path under load, so its figures move with whatever
else runs on the machine. This one plays ZnajZnak duels in one thread of one process and
times each action exactly as a WebSocket consumer does it: ``session_act`` inside
``session_publish_deferred`` (lock, engine, action and namings stored, state saved, the
notice with every viewer's payload built), then each player's payload taken from the
notice. CPU time is the thread's own (``time.thread_time``), so a busy machine inflates it
far less than the wall time; the queries are counted per action.

Then the same duels again on the fast path a consumer takes on PostgreSQL
(``games/live.py``: the state held in the process, one statement per action), each action
through ``live.act`` on one event loop (``--no-fast`` skips it).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=15, help="duels played (15, about 800 actions)")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server")
    parser.add_argument("--db", default="talia_bench_apply", help="database, dropped and recreated")
    parser.add_argument(
        "--no-fast", dest="fast", action="store_false", help="only the locked path, not the fast path too"
    )
    args = parser.parse_args()

    import psycopg

    with psycopg.connect(f"{args.pg.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    var_dir = tempfile.mkdtemp(prefix="talia-bench-apply-")
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"{args.pg.rstrip('/')}/{args.db}",
            "REDIS_URL": "",
            "TALIA_VAR_DIR": var_dir,
            "MEDIA_ROOT": f"{var_dir}/media",
            "LOG_LEVEL": "WARNING",
            # The tasks an end of a game queues (the namings to memory) are a worker's job.
            "CELERY_TASK_ALWAYS_EAGER": "false",
        }
    )
    try:
        return run(args)
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(f"{args.pg.rstrip('/')}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')


def next_move(
    state: Any, players: list[str], names: dict[str, str], rng: random.Random
) -> tuple[str, dict[str, Any]]:
    """Who acts next and how: a STOP by a random player on the common symbol, or the
    claimant's name for it (a wrong one time in five), as bench_live.py's students play."""
    from games.engines import znajznak

    if state.phase == znajznak.LOOKING:
        who = rng.choice(players)
        return who, {"type": "stop", "symbol": znajznak.common_symbol(state, who)}
    assert state.claim is not None
    right = rng.random() >= 0.2
    return state.claim.player, {"type": "name", "text": names[state.claim.symbol] if right else "?"}


def run(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from content.demo.loader import DEMO_SET, demo_content
    from content.models import SymbolSet
    from games import selectors, services
    from games.engines import znajznak
    from games.models import GameSession, Participant
    from games.play.znajznak.services import znajznak_setup_from_symbol_set
    from lms.models import Role
    from lms.services import user_create

    settings.CHANNEL_LAYERS = {}  # the notices are collected, never sent
    call_command("migrate", verbosity=0)
    teacher = user_create(username="bench-teacher", password=None, role=Role.TEACHER)
    demo_content(owner=teacher)
    setup, assets = znajznak_setup_from_symbol_set(
        symbol_set=SymbolSet.objects.get(slug=DEMO_SET[0]), cards_per_player=4
    )
    names = {key: entry["name"] for key, entry in setup["names"].items()}
    first, second = (user_create(username=f"student{n}", password=None, role=Role.STUDENT) for n in (1, 2))
    rng = random.Random(1918)
    cpu: list[float] = []
    wall: list[float] = []
    queries: list[int] = []
    kinds: Counter[str] = Counter()
    for game in range(args.games):
        session = services.session_create(
            facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets, seed=game
        )
        seats = [services.session_join(session=session, user=user) for user in (first, second)]
        services.session_start(session=session, by=teacher)
        people = {p.player_id: Participant.objects.get(pk=p.pk) for p in seats}
        while True:
            state = znajznak.state_from_dict(GameSession.objects.get(pk=session.pk).state)
            if znajznak.is_terminal(state):
                break
            who, action = next_move(state, sorted(people), names, rng)
            started, started_cpu = time.perf_counter(), time.thread_time()
            with CaptureQueriesContext(connection) as captured:
                with services.session_publish_deferred() as notices:
                    services.session_act(participant=people[who], action=action)
                for _group, notice in notices:
                    for viewer in people.values():
                        selectors.payload_from_broadcast(notice["broadcast"], viewer.pk)
            cpu.append(time.thread_time() - started_cpu)
            wall.append(time.perf_counter() - started)
            queries.append(len(captured))
            kinds.update(query["sql"].split(" ", 1)[0] for query in captured.captured_queries)
    n = len(cpu)
    print(
        f"{n} actions in {args.games} duels, one thread; {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"CPU ms per action: median {1000 * statistics.median(cpu):.2f}, "
        f"mean {1000 * statistics.mean(cpu):.2f}; "
        f"wall ms per action: median {1000 * statistics.median(wall):.2f}; "
        f"queries per action {statistics.mean(queries):.1f} "
        f"({', '.join(f'{kind} {count / n:.1f}' for kind, count in kinds.most_common())})"
    )
    print(f"Whole-process ceiling at this CPU cost, one core: {1 / statistics.mean(cpu):.0f} actions/s")
    if not args.fast:
        return 0

    # The fast path (games/live.py), as a consumer takes it on PostgreSQL: the same duels,
    # each action through live.act on one event loop, its one statement on the loop's
    # asynchronous connection; CPU is the whole process's (the table's first read runs in a
    # database thread).
    import asyncio

    from games import consumers, live

    duels = []
    for game in range(args.games):
        session = services.session_create(
            facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets, seed=game
        )
        seats = [services.session_join(session=session, user=user) for user in (first, second)]
        session = services.session_start(session=session, by=teacher)
        duels.append(
            (
                znajznak.state_from_dict(session.state),
                {p.player_id: Participant.objects.get(pk=p.pk) for p in seats},
            )
        )

    def database_rows() -> Counter[tuple[str, str]]:
        """Rows read and written so far in the bench's database, by table (a table's TOAST
        rows, where its large JSON lives, under its own name) and kind."""
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute(
                """
                SELECT coalesce(owner.relname, t.relname),
                    coalesce(t.idx_tup_fetch, 0) + coalesce(t.seq_tup_read, 0),
                    t.n_tup_ins, t.n_tup_upd, t.n_tup_del, t.schemaname = 'pg_toast'
                FROM pg_stat_all_tables t
                LEFT JOIN pg_class owner ON owner.reltoastrelid = t.relid
                WHERE t.schemaname IN ('public', 'pg_toast')
                """
            )
            counts: Counter[tuple[str, str]] = Counter()
            for table, *numbers, toast in cursor.fetchall():
                table = f"{table} (TOAST)" if toast else table
                for kind, number in zip(("fetched", "inserted", "updated", "deleted"), numbers, strict=True):
                    counts[table, kind] += number
            return counts

    def backend_cpu(pid: int) -> float:
        """A PostgreSQL backend's CPU seconds so far (the server runs on this machine)."""
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    pg_cpu: list[float] = []  # the fast path's backends' CPU, read before they close

    async def play() -> tuple[list[float], list[float], int]:
        fast_cpu: list[float] = []
        fast_wall: list[float] = []
        locked = 0
        for state, people in duels:
            while not znajznak.is_terminal(state):
                who, action = next_move(state, sorted(people), names, rng)
                started, started_cpu = time.perf_counter(), time.process_time()
                done = await live.act(people[who], action)
                if done is None:  # not for the fast path: the locked one, as the consumer does
                    locked += 1
                    await consumers.in_database_thread(
                        lambda p=people[who], a=action: services.session_act(participant=p, action=a)
                    )
                else:
                    fast_cpu.append(time.process_time() - started_cpu)
                    fast_wall.append(time.perf_counter() - started)
                state = znajznak.apply_action(state, who, action)
        for found in live._statement_sets.values():
            pg_cpu.extend(backend_cpu(conn.info.backend_pid) for conn in found.opened)
        consumers.database_threads_close()
        return fast_cpu, fast_wall, locked

    time.sleep(1.5)  # PostgreSQL reports a backend's row counts at most once a second
    rows_before = database_rows()
    fast_cpu, fast_wall, locked = asyncio.run(play())
    time.sleep(1.5)
    rows = database_rows()
    rows.subtract(rows_before)
    print(
        f"Fast path: {len(fast_cpu)} actions on it, {locked} on the locked path (the table's first "
        f"action after a change heard, the end of a game). CPU ms per action (process): median "
        f"{1000 * statistics.median(fast_cpu):.2f}, mean {1000 * statistics.mean(fast_cpu):.2f}; wall ms "
        f"per action: median {1000 * statistics.median(fast_wall):.2f}; one statement per action"
    )
    print(f"Whole-process ceiling at the fast path's CPU cost: {1 / statistics.mean(fast_cpu):.0f} actions/s")
    played = len(fast_cpu) + locked
    kinds_total = Counter[str]()
    for (_table, kind), count in rows.items():
        kinds_total[kind] += count
    per_kind = ", ".join(
        f"{kind} {kinds_total[kind] / played:.1f}" for kind in ("fetched", "inserted", "updated", "deleted")
    )
    print(
        f"PostgreSQL, the fast path's connections: {1000 * sum(pg_cpu) / len(fast_cpu):.2f} CPU ms per "
        f"fast action; rows of the project's tables per action played (both paths, the tables' "
        f"reads): {per_kind}"
    )
    print(
        "  by table: "
        + "; ".join(
            f"{table} {kind} {count / played:.2f}"
            for (table, kind), count in sorted(rows.items(), key=lambda item: -item[1])
            if count / played >= 0.05
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
