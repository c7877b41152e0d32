"""LTI 1.3: launches per second through login and launch, and scores per second to a flaky LMS.

Run: ``.venv/bin/python bench/bench_lti.py`` (a minute or two; ``--help`` for the knobs).
Needs PostgreSQL (``--pg``, trust auth as ``postgres``) and Redis (``--redis``) on 127.0.0.1.

What it does:

* drops and recreates the database ``--db`` (``talia_lti``) and migrates it; empties its
  own Redis database (``--redis``, db 8); starts an LTI 1.3 platform (``lti1p3platform``,
  the one the tests use, ``tests/lms/lti/platform.py``) on 127.0.0.1 and registers it in
  Talia as an admin would;
* **launches**: a teacher opens the course once (the class is made) and the activity is
  linked to a homework; then ``--launches`` different students each go through the whole
  flow, as a browser does: the LMS's login initiation to Talia (``/lti/login/``, a GET
  redirect with a state cookie), Talia's redirect to the platform's auth endpoint (over
  HTTP), the platform's signed id_token posted to ``/lti/launch/`` (signature, nonce,
  state and claims checked, user, class membership and activity synced, session made).
  Talia runs in this process behind Django's WSGI test client, sequentially: the figure
  is one web process's launch throughput on one core, platform included. Then the same
  students launch again (the everyday case: user, class membership and course known).
  Each round prints the milliseconds of each hop (Talia's login initiation, the
  platform's auth answer, the id_token post to Talia) and Talia's SQL queries per hop;
  the page a student lands on is timed on a sample afterwards. ``--profile FILE``
  writes a cProfile of the timed launches (this thread only: the platform's thread is
  not in it; ``py-spy record --threads`` sees both); ``--no-scores`` stops here;
* **scores**: two Celery workers (``celery -A config worker --pool solo``, one process
  each) deliver one graded attempt per student to the platform's AGS endpoint while the
  platform answers 30% of token and score requests (``--fail``) with 503. Each grade is
  written by ``lms.grading.submission_score`` (which fills the outbox in its transaction);
  the clock runs from the first grade to the last score accepted. Retries back off from
  ``LTI_SCORE_RETRY_DELAY=1`` s. At the end every student's score on the platform is
  compared with their Talia grade: a missing or different score fails the run.

Prints launches/s and scores/s; exits 1 when a score is lost or wrong.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from results import record  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db", default="talia_lti")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--fail", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--no-scores", action="store_true", help="measure the launches only (no Celery workers)"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="write a cProfile of the timed launches (this thread) to FILE"
    )
    args = parser.parse_args()

    import psycopg
    import redis

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load}")

    with psycopg.connect(args.pg + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    redis.Redis.from_url(args.redis).flushdb()

    from config.environment import environment_without_settings

    env = environment_without_settings()
    env.update(
        {
            "DATABASE_URL": f"{args.pg}/{args.db}",
            "REDIS_URL": args.redis,
            "SECRET_KEY": "bench-" + "x" * 50,
            "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
            "LTI_SCORE_RETRY_DELAY": "1",
            "LTI_SCORE_MAX_ATTEMPTS": "40",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            # The landing page only needs static URLs, not the files: no collectstatic.
            "STATICFILES_STORAGE": "django.contrib.staticfiles.storage.StaticFilesStorage",
        }
    )
    os.environ.clear()
    os.environ.update(env)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    import requests
    from django.db import connection, transaction
    from django.test import Client
    from django.utils import timezone
    from lti_tool.models import LtiDeployment, LtiRegistration, LtiResourceLink, LtiUser

    from lms import grading
    from lms.lti import keys
    from lms.lti.models import OutboxScore
    from lms.lti.services import resource_link_attach
    from lms.models import Assignment, ClassMember, Grade, Submission
    from tests.lms.lti.platform import INSTRUCTOR, LEARNER, PendingLaunch, Person, Platform, form_of

    platform = Platform(tool_base="http://testserver").start()
    registration = LtiRegistration.objects.create(name="Bench LMS", **platform.tool_settings)
    LtiDeployment.objects.create(
        registration=registration, deployment_id=platform.deployment_id, is_active=True
    )
    keys.key_signing()
    platform.tool_jwks = keys.jwks()

    browser = requests.Session()  # one keep-alive connection to the platform, as a browser has
    hops = {"login": 0.0, "auth": 0.0, "launch": 0.0, "landing": 0.0}
    queries = {"login": 0, "launch": 0}
    hop = ["login"]

    def counted(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if hop[0] in queries:
            queries[hop[0]] += 1
        return execute(sql, params, many, context)

    def launch(person: Person, resource_link_id: str, *, land: bool = False) -> int:
        """One person's flow; the seconds of each hop are added to ``hops``."""
        client = Client()
        url = urlsplit(
            platform.launch(
                PendingLaunch(person, "bench-course", "Bench 1a", resource_link_id=resource_link_id)
            )
        )
        t0 = time.perf_counter()
        hop[0] = "login"
        login = client.get(url.path + "?" + url.query)
        t1 = time.perf_counter()
        hop[0] = "auth"
        page = browser.get(login["Location"], timeout=10)
        t2 = time.perf_counter()
        action, fields = form_of(page.text)
        hop[0] = "launch"
        answer = client.post(urlsplit(action).path, fields)
        t3 = time.perf_counter()
        hop[0] = "landing"
        hops["login"] += t1 - t0
        hops["auth"] += t2 - t1
        hops["launch"] += t3 - t2
        if land and answer.status_code == 302:
            client.get(answer["Location"])
            hops["landing"] += time.perf_counter() - t3
        return answer.status_code

    teacher = Person(sub="teacher", name="Anna Nowak", roles=[INSTRUCTOR])
    assert launch(teacher, "rl-bench") == 302
    resource_link = LtiResourceLink.objects.get(id_on_platform="rl-bench")
    school_class = resource_link.context.talia_link.school_class
    # The homework the activity opens (the bench needs no quiz content behind it).
    assignment = Assignment.objects.create(
        school_class=school_class,
        title="Bench homework",
        kind=Assignment.Kind.QUIZ,
        published=True,
        points_possible=10,
    )
    item = platform.lineitem_add(label="Bench homework", score_maximum=10, resource_link_id="rl-bench")
    resource_link_attach(resource_link=resource_link, assignment=assignment, lineitem_url=item.id)

    # --- launches ----------------------------------------------------------------------------
    students = [Person(sub=f"s{n}", name=f"Uczeń {n}", roles=[LEARNER]) for n in range(args.launches)]
    launch(students[0], "rl-bench")  # warm-up: JWKS fetched and cached, code paths loaded
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()

    def timed(label: str, people: list[Person]) -> list[int]:
        """Every person in ``people`` launches once; prints launches/s and the cost of each hop."""
        hops.update(dict.fromkeys(hops, 0.0))
        queries.update(dict.fromkeys(queries, 0))
        if profiler is not None:
            profiler.enable()
        started = time.perf_counter()
        with connection.execute_wrapper(counted):
            statuses = [launch(person, "rl-bench") for person in people]
        seconds = time.perf_counter() - started
        if profiler is not None:
            profiler.disable()
        n = max(1, len(statuses))
        bad = sum(1 for s in statuses if s != 302)
        print(
            f"{label}: {len(statuses)} in {seconds:.1f} s = {len(statuses) / seconds:.1f} launches/s "
            f"(one process), {bad} not redirected"
        )
        print(
            "  per launch: "
            + ", ".join(f"{name} {hops[name] / n * 1000:.0f} ms" for name in ("login", "auth", "launch"))
            + f"; SQL queries: login {queries['login'] / n:.0f}, launch {queries['launch'] / n:.0f}"
        )
        return statuses

    print(
        "hops: login = the LMS's login initiation at Talia; auth = the platform's auth answer "
        "(it signs the id_token); launch = the id_token posted to Talia"
    )
    statuses = timed("first launches (a new user each)", students[1:])
    statuses += timed("repeat launches (the same users again)", students[1:])
    if profiler is not None:
        profiler.dump_stats(args.profile)
    bad = [s for s in statuses if s != 302]
    # The page a student lands on, timed on a sample of launches (not in the figures above).
    sample = students[1 : 1 + min(20, len(students) - 1)]
    hops.update(dict.fromkeys(hops, 0.0))
    for person in sample:
        launch(person, "rl-bench", land=True)
    if sample:
        print(f"  landing page (the homework) after a launch: {hops['landing'] / len(sample) * 1000:.0f} ms")
    enrolled = ClassMember.objects.filter(school_class=school_class, role="student").count()
    print(f"students in the class after their launches: {enrolled}")
    record("bench_lti.py", "launches not redirected to the homework", str(len(bad)), "0", not bad)
    if args.no_scores:
        platform.stop()
        return 0 if not bad else 1

    # --- scores ------------------------------------------------------------------------------
    # The two workers start and stop consuming; every grade is written (its outbox row and
    # queued task); then the workers consume again and the clock runs until the last score.
    from config.celery import app

    workers = [
        subprocess.Popen(
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "config",
                "worker",
                "--pool",
                "solo",
                "-n",
                f"lti-bench-{n}@%h",
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        for n in (1, 2)
    ]
    try:
        deadline = time.monotonic() + 120
        while len(app.control.ping(timeout=1.0) or []) < 2:
            if time.monotonic() > deadline:
                print("the two Celery workers did not start")
                return 1
        app.control.cancel_consumer("celery", reply=True)
        platform.fail_rate = args.fail
        rng = random.Random(7)
        users = {u.auth_user_id: u.sub for u in LtiUser.objects.filter(sub__startswith="s")}
        for user_id in users:
            with transaction.atomic():
                submission = Submission.objects.create(assignment=assignment, student_id=user_id, number=1)
                grading.submission_score(submission=submission, fraction=Decimal(rng.randint(0, 100)) / 100)
        total = len(users)
        started = time.perf_counter()
        started_at = timezone.now()
        app.control.add_consumer("celery", reply=True)
        deadline = time.monotonic() + args.timeout
        while OutboxScore.objects.filter(status=OutboxScore.Status.PENDING).exists():
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        score_seconds = time.perf_counter() - started
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
        platform.stop()

    delivered = OutboxScore.objects.filter(status=OutboxScore.Status.DELIVERED).count()
    # The tail is set by the back-off of the few scores that failed several times in a row.
    times = sorted(
        (at - started_at).total_seconds()
        for at in OutboxScore.objects.filter(delivered_at__isnull=False).values_list(
            "delivered_at", flat=True
        )
    )
    tail = ""
    if times:
        p95 = times[max(0, int(len(times) * 0.95) - 1)]
        most = max(OutboxScore.objects.values_list("attempts", flat=True))
        tail = f"  95% of the scores accepted within {p95:.1f} s; the most attempts one score took: {most}"
    failed = OutboxScore.objects.filter(status=OutboxScore.Status.FAILED).count()
    pending = OutboxScore.objects.filter(status=OutboxScore.Status.PENDING).count()
    attempts = sum(OutboxScore.objects.values_list("attempts", flat=True))
    wrong = 0
    for grade in Grade.objects.filter(assignment=assignment):
        posted = item.scores.get(users[grade.student_id])
        if (
            posted is None
            or posted["scoreGiven"] != float(grade.score)
            or posted["scoreMaximum"] != float(grade.max_score)
        ):
            wrong += 1
    rate = delivered / score_seconds
    print(
        f"scores: {delivered} of {total} delivered in {score_seconds:.1f} s = {rate:.1f} scores/s "
        "(two workers; clock from the queued grades to the last score accepted); "
        f"the platform failed {platform.requests_failed} of {platform.requests_flaky} token and score "
        f"requests ({args.fail:.0%} asked); {attempts} delivery attempts "
        f"({attempts / score_seconds:.1f}/s); {failed} failed, {pending} still pending"
    )
    if tail:
        print(tail)
    print(
        f"platform's gradebook: {total - wrong} of {total} students have their Talia grade, "
        f"{wrong} missing or wrong"
    )
    record(
        "bench_lti.py",
        "scores missing or wrong on the platform",
        f"{wrong} (delivered {delivered} of {total})",
        "0",
        wrong == 0 and delivered == total,
    )
    return 0 if wrong == 0 and not bad and delivered == total else 1


if __name__ == "__main__":
    sys.exit(main())
