"""Generating a 20-item quiz for each of 30 students in one Celery task (issue 8: under 5 s).

Run: ``.venv/bin/python bench/bench_quiz.py`` (``--help`` for the knobs).

The script builds a fresh SQLite database in a temporary ``TALIA_VAR_DIR`` (``migrate``
and ``demo_load``: the demo symbols with their pictures, periods, themes and the
Knowledge? questions), adds a teacher and ``--students`` students, and asks
``games.quiz.services.quizzes_create_for_students`` for one ``--items``-item quiz each,
built from every published symbol and Knowledge? question. What runs is the one
Celery task that generates them all (``quizzes_generate_task``), called eagerly in this
process on SQLite: no broker, no worker process, no PostgreSQL. So the figure is the
task's own wall time on SQLite: reading each quiz's pool snapshot, sharing the
items out among the kinds, generating every item (distractors, redaction, connect
groups) and writing the items, for every student. Best of ``--runs``; the first run
(cold caches) is printed too. Exit status 1 when the best run misses ``--target``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from results import record

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--target", type=float, default=5.0, help="seconds for the whole run")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="talia-bench-quiz-")
    os.environ["TALIA_VAR_DIR"] = tmp
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    import contextlib
    import io

    from django.core.management import call_command

    with contextlib.redirect_stdout(io.StringIO()):  # the demo logins are not for a benchmark
        call_command("migrate", verbosity=0)
        call_command("demo_load", verbosity=0)

    from django.db import transaction

    from config.celery import app
    from content.models import Symbol
    from games.quiz import selectors, services
    from games.quiz.models import Quiz, QuizItem
    from lms.models import Role, User
    from lms.services import user_set_role

    app.conf.task_always_eager = True
    teacher = User.objects.create_user("bench-teacher", password=None)
    user_set_role(user=teacher, role=Role.TEACHER)
    students = [User.objects.create_user(f"bench-student-{n}", password=None) for n in range(args.students)]
    pool = selectors.pool_from_symbols(
        user=teacher, queryset=Symbol.objects.filter(status="published"), with_knowledge=True
    )
    print(
        f"CPUs: {os.cpu_count()}, load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"pool: {len(pool.symbols)} symbols ({sum(1 for s in pool.symbols if s.picture)} with pictures), "
        f"{len(pool.knowledge)} Knowledge? questions"
    )

    timings = []
    for run in range(args.runs):
        Quiz.objects.all().delete()
        # The task is enqueued on commit; eager mode runs it as the transaction commits.
        start = time.perf_counter()
        with transaction.atomic():
            quizzes = services.quizzes_create_for_students(
                owner=teacher,
                students=students,
                title="Bench",
                source=Quiz.Source.SELECTION,
                pool=pool,
                total=args.items,
            )
        elapsed = time.perf_counter() - start
        done = Quiz.objects.filter(pk__in=[q.pk for q in quizzes], state="done").count()
        items = QuizItem.objects.filter(quiz__in=quizzes).count()
        if done != args.students or items != args.students * args.items:
            failed = Quiz.objects.filter(pk__in=[q.pk for q in quizzes]).exclude(state="done").first()
            print(f"run {run + 1}: only {done} quizzes done, {items} items; {failed and failed.message}")
            return 1
        timings.append(elapsed)
        print(f"run {run + 1}: {args.students} quizzes × {args.items} items in {elapsed:.2f} s")

    best = min(timings)
    record(
        "bench_quiz.py",
        f"{args.students} quizzes x {args.items} items, the task run eagerly on SQLite (best of {args.runs})",
        f"{best:.2f} s",
        f"< {args.target:g} s",
        best < args.target,
    )
    verdict = "OK" if best < args.target else "MISSED"
    print(
        f"quiz generation: {args.students} students × {args.items} items, one task run eagerly on SQLite: "
        f"best {best:.2f} s, first {timings[0]:.2f} s (target < {args.target:.0f} s) {verdict}"
    )
    return 0 if best < args.target else 1


if __name__ == "__main__":
    sys.exit(main())
