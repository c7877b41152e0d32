"""The LTI pages in chromium: a teacher launched from a real LTI platform (lti1p3platform) picks
the homework an LMS activity opens and finds the LMS roster on the class dashboard; the
"open in a new window" page when cookies are blocked; a refused launch; the scores page.

axe (WCAG 2.2 AA) checks each page, and each is checked on a 360-px phone.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from tests.e2e.browsing import axe_violations, describe_violations, scroll_width
from tests.lms.factories_classes import class_with_students, practice_homework
from tests.lms.lti.platform import INSTRUCTOR, LEARNER, PendingLaunch, Person, Platform, form_of

pytestmark = pytest.mark.e2e

PHONE_WIDTH = 360


def assert_accessible(page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)


def assert_fits_a_phone(page: Any, where: str) -> None:
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 740})
    assert scroll_width(page) <= PHONE_WIDTH, f"{where} scrolls sideways on a 360-px phone"
    small = page.eval_on_selector_all(
        "main a, main button, main input, main select, main summary",
        "els => els.filter(e => e.offsetParent).filter(e => {"
        " const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })"
        ".map(e => e.outerHTML.slice(0, 80))",
    )
    assert not small, f"{where}: targets too small to tap: {small}"
    page.set_viewport_size({"width": 1280, "height": 800})


@pytest.fixture
def lms(live_server, django_db_serialized_rollback):
    from lti_tool.models import LtiDeployment, LtiRegistration

    from lms.lti.keys import key_signing

    platform = Platform(tool_base=live_server.url).start()
    # The LMS on the same host name as Talia (another port is the same site), so the state
    # cookie reaches the launch whatever the browser's third-party cookie rules.
    platform.url = platform.url.replace("127.0.0.1", urlsplit(live_server.url).hostname or "localhost")
    platform.issuer = platform.url
    registration = LtiRegistration.objects.create(name="Moodle", **platform.tool_settings)
    LtiDeployment.objects.create(
        registration=registration, deployment_id=platform.deployment_id, is_active=True
    )
    key_signing()
    yield platform
    platform.stop()


def test_teacher_launch_pick_and_roster_pages(browsing, lms, live_server):
    from lti_tool.models import LtiUser

    from lms.lti.models import ClassLink

    teacher = Person(sub="t1", name="Anna Nowak", given_name="Anna", family_name="Nowak", roles=[INSTRUCTOR])
    page = browsing.new_page()
    page.goto(lms.launch(PendingLaunch(teacher, "c1", "Historia 3b", resource_link_id="rl-1")))
    page.wait_for_url("**/lti/pick/**")
    lti_teacher = LtiUser.objects.get(sub="t1").auth_user
    practice_homework(class_with_students(lti_teacher, name="Szablony"), title="Symbole PRL")
    page.reload()
    assert_accessible(page, "choose the activity")
    assert_fits_a_phone(page, "choose the activity")
    page.get_by_role("radio", name="Homework: Symbole PRL").check()
    with page.expect_navigation():
        page.get_by_role("button", name="Use for this activity").click()
    link = ClassLink.objects.get()
    lms.members["c1"] = [teacher, Person(sub="s1", name="Jan Kowalski", roles=[LEARNER])]
    lms.tool_jwks = requests.get(live_server.url + "/lti/jwks/", timeout=5).json()
    with page.expect_navigation():
        page.get_by_role("button", name="Read the roster again").click()
    assert "Jan Kowalski" in page.content()
    assert_accessible(page, "class dashboard with the LMS roster")
    page.goto(f"{live_server.url}/lti/class/{link.school_class.pk}/scores/")
    assert_accessible(page, "scores sent to the LMS")
    assert_fits_a_phone(page, "scores sent to the LMS")
    assert not browsing.problems(page)


def test_blocked_cookies_page_and_refused_page(browsing, lms, live_server):
    # The login ran in another "browser" (requests): this page has no state cookie, as in
    # an LMS frame whose third-party cookies are blocked.
    teacher = Person(sub="t1", name="Anna Nowak", roles=[INSTRUCTOR])
    session = requests.Session()
    login = session.get(
        lms.launch(PendingLaunch(teacher, "c1", "Historia 3b", resource_link_id="rl-1")),
        allow_redirects=False,
    )
    action, fields = form_of(requests.get(login.headers["Location"], timeout=5).text)
    page = browsing.new_page()
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    page.set_content(f'<form id="f" method="post" action="{action}">{inputs}</form>')
    with page.expect_navigation() as navigation:
        page.evaluate("document.getElementById('f').submit()")
    # The launch did not happen: a refusal (403), whose page offers the way on.
    assert navigation.value is not None and navigation.value.status == 403
    assert "Open Talia in a new window" in page.content()
    assert_accessible(page, "open in a new window")
    assert_fits_a_phone(page, "open in a new window")

    response = page.goto(f"{live_server.url}/lti/launch/")
    assert response is not None and response.status == 405
    assert "Talia could not open this" in page.content()
    assert_accessible(page, "refused launch")
    assert_fits_a_phone(page, "refused launch")
    browsing.problems(page)  # the 405 is the point of this page


def test_deep_linking_returns_to_the_lms_by_itself_under_the_csp(browsing, lms, live_server):
    """The return page posts the signed answer to the LMS with its script (a file, not inline)."""
    from lti_tool.models import LtiUser

    teacher = Person(sub="t1", name="Anna Nowak", given_name="Anna", family_name="Nowak", roles=[INSTRUCTOR])
    page = browsing.new_page()
    page.goto(lms.launch(PendingLaunch(teacher, "c1", "Historia 3b", deep_link=True)))
    page.wait_for_url("**/lti/pick/**")
    lti_teacher = LtiUser.objects.get(sub="t1").auth_user
    practice_homework(class_with_students(lti_teacher, name="Szablony"), title="Symbole PRL")
    page.reload()
    page.get_by_role("radio", name="Homework: Symbole PRL").check()
    with page.expect_navigation(url="**/deep_link_return"):
        page.get_by_role("button", name="Add to the course").click()
    assert "ok" in page.content()
    assert [item["type"] for item in lms.deep_link_items] == ["ltiResourceLink"]
    # The LMS's own plain page (no icon) is not Talia's to answer for.
    assert not [p for p in browsing.problems(page) if lms.url not in p]


def test_teacher_publishes_a_progress_column_and_it_reaches_the_gradebook(browsing, lms, live_server):
    """From the class dashboard to the LMS's gradebook: the page is axe-clean and fits a phone,
    the column is published by keyboard and a student's mastery arrives in it."""
    from datetime import timedelta

    from django.utils import timezone
    from lti_tool.models import LtiUser

    from content.models import Period
    from lms.lti.models import ClassLink
    from lms.progress.services import memory_review
    from tests.factories import SymbolFactory

    teacher = Person(sub="t1", name="Anna Nowak", given_name="Anna", family_name="Nowak", roles=[INSTRUCTOR])
    student = Person(sub="s1", name="Jan Kowalski", roles=[LEARNER])
    page = browsing.new_page()
    page.goto(lms.launch(PendingLaunch(teacher, "c1", "Historia 3b", resource_link_id="rl-1")))
    page.wait_for_url("**/lti/pick/**")
    link = ClassLink.objects.get()
    lms.members["c1"] = [teacher, student]
    lms.tool_jwks = requests.get(live_server.url + "/lti/jwks/", timeout=5).json()
    ii_rp = Period.objects.get(slug="ii-rp")
    page.goto(f"{live_server.url}/classes/{link.school_class.pk}/")
    with page.expect_navigation():
        page.get_by_role("button", name="Read the roster again").click()
    symbol = SymbolFactory(periods=[ii_rp])
    memory_review(
        user=LtiUser.objects.get(sub="s1").auth_user,
        item_key=f"symbol:{symbol.pk}",
        correct=True,
        reviewed_at=timezone.now() - timedelta(hours=2),
    )
    with page.expect_navigation():
        page.get_by_role("link", name="Progress in the LMS gradebook").click()
    assert_accessible(page, "progress in the LMS gradebook")
    assert_fits_a_phone(page, "progress in the LMS gradebook")
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 740})
    box = page.get_by_role("checkbox", name=f"Mastery: {ii_rp}")
    box.focus()
    page.keyboard.press("Space")
    assert box.is_checked()
    with page.expect_navigation():
        page.get_by_role("button", name="Publish in the LMS gradebook").press("Enter")
    assert page.get_by_role("button", name=f"Stop publishing “Mastery: {ii_rp}”").is_visible()
    assert_accessible(page, "a published progress column")
    [item] = [i for i in lms.lineitems.values() if i.label == f"Mastery: {ii_rp}"]
    results = lms.results(item.id)
    assert [r["userId"] for r in results] == ["s1"] and 0 < results[0]["resultScore"] <= 100
    page.goto(f"{live_server.url}/lti/class/{link.school_class.pk}/scores/")
    assert f"Mastery: {ii_rp}" in page.content() and "Accepted by the LMS" in page.content()
    assert not browsing.problems(page)
