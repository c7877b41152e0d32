"""LTI 1.3 through https://talia.example.org: login, launch, deep linking, a student's
graded attempt and the score in the LMS's gradebook, delivered by the real worker.

The LMS is the test platform (``tests/lms/lti/platform.py``, lti1p3platform) on 127.0.0.1
over plain HTTP; Talia's web processes and worker fetch its JWKS, token and AGS URLs. Its
registration is entered in the production database with ``manage.py shell``, as an admin
would enter it in the admin. The browser is a ``requests`` session trusting the
installation's CA, following the pages' auto-submitted forms as a browser's script does.
"""

from __future__ import annotations

import re
import time
from decimal import Decimal
from typing import Any

import pytest
import requests

from tests.lms.lti.platform import INSTRUCTOR, LEARNER, PendingLaunch, Person, Platform, form_of
from tests.production.conftest import csrf_of
from tests.production.site import lms_register

pytestmark = pytest.mark.production

# The teacher's homework template, in a Talia class of their own, from a 13-card deck.
TEMPLATE = """
import json
from lti_tool.models import LtiUser
from content.building import deck_plan
from content.models import BuildState, Deck
from lms.classes import services
from lms.models import Assignment
teacher = LtiUser.objects.get(registration_id={registration}, sub={sub!r}).auth_user
snapshot = {{"symbols": [
    {{"id": None, "number": n, "name": f"Symbol numer {{n}}", "alternative_names": [], "picture": ""}}
    for n in range(1, 14)
]}}
deck = Deck.objects.create(
    name="Talia 13", owner=teacher, state=BuildState.DONE, snapshot=snapshot,
    plan=deck_plan(snapshot=snapshot, options={{"sets": 1}}, seed=1),
)
template = services.assignment_create(
    school_class=services.class_create(teacher=teacher, name="Szablony"), by=teacher,
    title="Symbole PRL (https)", kind=Assignment.Kind.GAME, game=Assignment.Game.ZNAJZNAK_PRACTICE,
    game_options={{"deck": deck.pk, "mode": "clock", "cards_per_player": 5}},
    max_attempts=3, points_possible=20, publish=True,
)
print(json.dumps(template.pk))
"""

# The student's attempt, graded: its score and outbox row in one transaction, then the
# task on the queue for the worker.
GRADE = """
import json
from decimal import Decimal
from lti_tool.models import LtiUser
from lms import grading
from lms.models import Assignment, Submission
student = LtiUser.objects.get(registration_id={registration}, sub={sub!r}).auth_user
submission = Submission.objects.create(assignment=Assignment.objects.get(pk={assignment}), student=student, number=1)
grading.submission_score(submission=submission, fraction=Decimal({fraction!r}))
print(json.dumps(submission.pk))
"""


class Browser:
    """One person's browser: Talia over https (the installation's CA), the LMS over http."""

    def __init__(self, production: Any, platform: Platform) -> None:
        self.production = production
        self.platform = platform
        self.talia = production.session()
        self.lms = requests.Session()
        self.lms.trust_env = False

    def launch(self, pending: PendingLaunch) -> requests.Response:
        """The LMS's login initiation → Talia → the LMS's auth answer → its form posted to Talia."""
        login = self.talia.get(self.platform.launch(pending), allow_redirects=False, timeout=30)
        assert login.status_code == 302, (login.status_code, login.text[:1000])
        assert login.headers["Location"].startswith(self.platform.url + "/auth?")
        page = self.lms.get(login.headers["Location"], timeout=30)
        assert page.status_code == 200, page.text
        action, fields = form_of(page.text)
        assert action.startswith(self.production.url + "/lti/")
        return self.talia.post(
            action, data=fields, headers={"Origin": self.platform.url}, allow_redirects=False, timeout=30
        )


def delivered(platform: Platform, item_id: str, sub: str, *, wait: float = 90.0) -> dict[str, Any] | None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        score = platform.lineitems[item_id].scores.get(sub)
        if score is not None:
            return score
        time.sleep(0.5)
    return None


@pytest.fixture
def platform(production):
    lms = Platform(tool_base=production.url).start()
    yield lms
    lms.stop()


def test_deep_link_then_a_students_graded_attempt_reaches_the_lms_gradebook(production, platform):
    registration = lms_register(production, platform)

    # The teacher opens the deep-linking launch: Talia makes the class and shows its picker.
    teacher = Person(sub="t-https", name="Anna Nowak", roles=[INSTRUCTOR])
    teacher_browser = Browser(production, platform)
    first = teacher_browser.launch(PendingLaunch(teacher, "course-https", "Historia 7a", deep_link=True))
    assert first.status_code == 302, (first.status_code, first.text[:2000])
    assert "/lti/pick/" in first.headers["Location"]
    template = production.shell(TEMPLATE.format(registration=registration, sub=teacher.sub))

    picker_url = production.url + first.headers["Location"]
    picker = teacher_browser.talia.get(picker_url, timeout=30)
    assert picker.status_code == 200 and "Symbole PRL (https)" in picker.text
    answer = teacher_browser.talia.post(
        picker_url,
        data={
            "csrfmiddlewaretoken": csrf_of(picker.text),
            "template": f"assignment:{template}",
            "points": "25",
        },
        headers={"Origin": production.url, "Referer": picker_url},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text[:2000]
    action, fields = form_of(answer.text)
    returned = teacher_browser.lms.post(action, data=fields, timeout=30)
    assert returned.status_code == 200, returned.text
    item = platform.deep_link_items[-1]
    assert item["type"] == "ltiResourceLink" and item["lineItem"]["scoreMaximum"] == 25.0

    # The student opens the activity the LMS made of it and lands on the homework.
    student = Person(sub="s-https", name="Jan Kowalski", roles=[LEARNER])
    student_browser = Browser(production, platform)
    launched = student_browser.launch(
        PendingLaunch(
            student,
            "course-https",
            "Historia 7a",
            resource_link_id=item["_resource_link_id"],
            custom=item["custom"],
        )
    )
    assert launched.status_code == 302, (launched.status_code, launched.text[:2000])
    homework = re.fullmatch(r"/classes/homework/(\d+)/", launched.headers["Location"])
    assert homework, launched.headers["Location"]
    landing = student_browser.talia.get(production.url + launched.headers["Location"], timeout=30)
    assert landing.status_code == 200

    # The graded attempt: the worker takes a token from the LMS and posts the score.
    production.shell(
        GRADE.format(
            registration=registration,
            sub=student.sub,
            assignment=int(homework.group(1)),
            fraction=str(Decimal("0.8")),
        )
    )
    score = delivered(platform, item["_lineitem_id"], student.sub)
    assert score is not None, "the score never reached the LMS"
    assert (score["scoreGiven"], score["scoreMaximum"]) == (20.0, 25.0)
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    results = platform.results(item["_lineitem_id"])
    assert [(r["userId"], r["resultScore"]) for r in results] == [(student.sub, 20.0)]
