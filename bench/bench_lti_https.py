"""LTI 1.3 launches per second over https, through nginx and the two web processes of the
production topology, with the test platform as the LMS.

Run with the topology up (``.ci/production-up``, then ``. /run/talia/exports.sh``):
``.venv/bin/python bench/bench_lti_https.py`` (``--launches``, ``--clients``). Without
``TALIA_PRODUCTION_URL`` it says so and exits 0.

What it does: registers the platform (``tests/lms/lti/platform.py``, on 127.0.0.1 over
HTTP) in the production database as an admin would; a teacher opens the course once (the
class is made) and the activity is linked to a homework; then ``--launches`` new students
each go through the whole flow as a browser does: the LMS's login initiation to
``https://talia.example.org/lti/login/`` (a redirect and a state cookie), the platform's
auth answer (its signed id_token), and the id_token posted to ``/lti/launch/``, every
request to Talia over TLS through nginx. First one client after another (the figure is
then one launch's latency, inverted), then ``--clients`` clients at once, which nginx
spreads over the web processes; the platform signs in this process, so it is part of the
figure. Prints launches/s of each round and the launches not redirected; exits 1 when
any launch was not redirected to the homework.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lms.lti.platform import INSTRUCTOR, LEARNER, PendingLaunch, Person, Platform, form_of  # noqa: E402
from tests.production.site import Production, lms_register, production_from_environment  # noqa: E402

# The homework the activity opens (the bench needs no quiz behind it), linked to a line item.
ATTACH = """
import json
from lti_tool.models import LtiResourceLink
from lms.lti.services import resource_link_attach
from lms.models import Assignment
link = LtiResourceLink.objects.get(id_on_platform={link!r})
assignment = Assignment.objects.create(
    school_class=link.context.talia_link.school_class, title="Bench homework",
    kind=Assignment.Kind.QUIZ, published=True, points_possible=10,
)
resource_link_attach(resource_link=link, assignment=assignment, lineitem_url={item!r})
print(json.dumps(assignment.pk))
"""


def launch(production: Production, platform: Platform, person: Person, link: str) -> tuple[int, str]:
    """One person's whole flow in a fresh browser; Talia's answer to the id_token post."""
    talia = production.session()
    lms = requests.Session()
    lms.trust_env = False
    login = talia.get(
        platform.launch(PendingLaunch(person, "bench-https", "Bench 1a", resource_link_id=link)),
        allow_redirects=False,
        timeout=60,
    )
    if login.status_code != 302:
        return login.status_code, "login"
    action, fields = form_of(lms.get(login.headers["Location"], timeout=60).text)
    answer = talia.post(
        action, data=fields, headers={"Origin": platform.url}, allow_redirects=False, timeout=60
    )
    return answer.status_code, answer.headers.get("Location", "")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--launches", type=int, default=60)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    production = production_from_environment()
    if production is None:
        print("TALIA_PRODUCTION_URL is not set: start .ci/production-up and load /run/talia/exports.sh.")
        return 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load}; Talia at {production.url}")

    platform = Platform(tool_base=production.url).start()
    try:
        lms_register(production, platform)
        link = "rl-bench-" + secrets.token_hex(4)
        teacher = Person(sub="teacher-" + secrets.token_hex(4), name="Anna Nowak", roles=[INSTRUCTOR])
        status, where = launch(production, platform, teacher, link)
        if status != 302:
            print(f"the teacher's launch answered {status} ({where or 'no redirect'}): nothing to measure")
            return 1
        item = platform.lineitem_add(label="Bench homework", score_maximum=10, resource_link_id=link)
        homework = int(production.shell(ATTACH.format(link=link, item=item.id)))
        expected = f"/classes/homework/{homework}/"

        tag = secrets.token_hex(3)
        people = [
            Person(sub=f"s-{tag}-{n}", name=f"Uczeń {n}", roles=[LEARNER])
            for n in range(2 * args.launches + 1)
        ]
        launch(production, platform, people.pop(), link)  # warm-up: the platform's JWKS fetched and cached
        bad = 0
        lock = threading.Lock()
        for label, clients in (("one client", 1), (f"{args.clients} clients at once", args.clients)):
            batch, people = people[: args.launches], people[args.launches :]
            statuses: list[tuple[int, str]] = []

            def work(
                mine: list[Person], statuses: list[tuple[int, str]] = statuses, lock: threading.Lock = lock
            ) -> None:
                for person in mine:
                    result = launch(production, platform, person, link)
                    with lock:
                        statuses.append(result)

            threads = [threading.Thread(target=work, args=(batch[i::clients],)) for i in range(clients)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seconds = time.perf_counter() - started
            wrong = [s for s in statuses if s != (302, expected)]
            bad += len(wrong)
            print(
                f"{label}: {len(statuses)} launches in {seconds:.1f} s = "
                f"{len(statuses) / seconds:.1f} launches/s over https through nginx, "
                f"{len(wrong)} not redirected to the homework" + (f" (first: {wrong[0]})" if wrong else "")
            )
        print(f"platform: {platform.jwks_requests} JWKS requests, host {urlsplit(platform.url).netloc}")
        return 1 if bad else 0
    finally:
        platform.stop()


if __name__ == "__main__":
    sys.exit(main())
