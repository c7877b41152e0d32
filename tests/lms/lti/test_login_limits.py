"""LTI login initiation is limited per address: refused initiations strictly, and initiations
whose launch never came (each keeps a state in the cache); launches that complete are not counted."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache
from django.urls import reverse
from lti_tool.models import LtiResourceLink

from config import limits
from lms.lti.launch import state_record
from lms.lti.services import resource_link_attach
from lms.models import Assignment
from tests.lms.lti.conftest import student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch, rsa_pem_pair

pytestmark = pytest.mark.django_db


def _pending(n: int, **kwargs: Any) -> PendingLaunch:
    return PendingLaunch(student_person(n), "c1", "History", resource_link_id="rl-1", **kwargs)


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The limits' clock, held one second into a window of a minute: the logins of a test
    fall in one window however long a loaded machine takes. ``clock[0] += 60`` moves it on."""
    now = [math.floor(time.time() / 60) * 60 + 1.0]
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: now[0]))
    return now


@pytest.fixture
def homework(clock, browser, registration) -> Assignment:
    """The activity ``rl-1`` opens: the teacher launched once (the class is made) and linked a homework."""
    teacher = browser.launch(PendingLaunch(teacher_person(), "c1", "History", resource_link_id="rl-1"))
    assert teacher.status_code == 302 and "/lti/pick/" in teacher["Location"]
    resource_link = LtiResourceLink.objects.get(id_on_platform="rl-1")
    assignment = Assignment.objects.create(
        school_class=resource_link.context.talia_link.school_class,
        title="Homework",
        kind=Assignment.Kind.QUIZ,
        published=True,
        points_possible=10,
    )
    resource_link_attach(resource_link=resource_link, assignment=assignment)
    return assignment


def _bucket(login: Any) -> str:
    """The key of the bucket the login was counted in, as its state's record keeps it."""
    state = parse_qs(urlsplit(login["Location"]).query)["state"][0]
    record = state_record(state)
    assert record is not None
    return str(record["limit_bucket"])


def _complete(browser: Any, login: Any) -> Any:
    """The rest of a launch whose login was answered: the LMS's auth page, then the form post."""
    return browser.post_launch(*browser.authenticate(login))


def _logins(browser: Any, first: int, count: int) -> list[int]:
    """``count`` initiations that are never completed (a spray), as the LMS would start them."""
    return [browser.login(_pending(n)).status_code for n in range(first, first + count)]


def test_refused_initiations_are_limited_then_even_a_good_one_waits(settings, browser, registration, client):
    settings.LIMIT_LTI_LOGIN_FAILURES = 3
    unknown = {
        "iss": "https://lms.invalid",
        "login_hint": "x",
        "target_link_uri": "http://testserver/lti/launch/",
    }
    answers = [client.get("/lti/login/", unknown).status_code for _ in range(4)]
    assert answers == [403, 403, 403, 429]
    refused = browser.login(_pending(1))
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= settings.LIMIT_LTI_LOGIN_WINDOW
    assert "Too many LMS logins" in refused.content.decode()


def test_completed_launches_from_one_address_never_add_up_however_many(settings, browser, homework):
    """More launches from one address within a minute than ``LIMIT_LTI_LOGINS``: each
    completes, so none is counted, and the address still has its whole limit left."""
    settings.LIMIT_LTI_LOGINS = 4
    launched = [browser.launch(_pending(n)) for n in range(12)]
    landing = reverse("lms:homework_detail", kwargs={"assignment_pk": homework.pk})
    assert [(r.status_code, r["Location"]) for r in launched] == [(302, landing)] * 12
    assert _logins(browser, 100, 5) == [302] * 4 + [429]


def test_logins_never_completed_are_refused_past_the_limit_while_the_school_launches(
    settings, browser, homework
):
    settings.LIMIT_LTI_LOGINS = 4
    assert [browser.launch(_pending(n)).status_code for n in range(6)] == [302] * 6
    # Someone behind the school's address starts logins and never finishes them.
    assert _logins(browser, 100, 4) == [302] * 4
    refused = browser.login(_pending(200))
    assert refused.status_code == 429
    assert refused["Retry-After"] == "59"  # the window's end: the clock is one second into it
    assert "Too many LMS logins" in refused.content.decode()
    # The limit is the address's: a student's launch from it waits for the window's end too.
    assert browser.login(_pending(201)).status_code == 429


def test_a_launch_refused_or_posted_again_takes_back_nothing(settings, browser, homework):
    """Only a launch that passes its checks spends its login's count, and only once."""
    settings.LIMIT_LTI_LOGINS = 4
    forger_key, _public = rsa_pem_pair()
    forged = browser.authenticate(browser.login(_pending(1, sign_with=forger_key)))
    assert [browser.post_launch(*forged).status_code for _ in range(3)] == [401] * 3
    done = browser.authenticate(browser.login(_pending(2)))
    assert browser.post_launch(*done).status_code == 302
    assert [browser.post_launch(*done).status_code for _ in range(3)] == [401] * 3
    # The forged login's state waits in the cache: it is counted; the completed one is not.
    assert _logins(browser, 100, 4) == [302] * 3 + [429]


def test_a_launch_cannot_take_its_bucket_below_zero(settings, browser, homework):
    """Two logins' bucket is evicted and counted anew by a third; both launches then complete.
    The count stops at zero: the launches earn no logins beyond the limit for a spray."""
    settings.LIMIT_LTI_LOGINS = 4
    first, second = browser.login(_pending(1)), browser.login(_pending(2))
    bucket = _bucket(first)
    assert _bucket(second) == bucket and cache.get(bucket) == 2
    cache.delete(bucket)  # evicted (Redis's maxmemory, the local-memory cache's culling)
    assert _logins(browser, 100, 1) == [302]
    assert _complete(browser, first).status_code == 302
    assert _complete(browser, second).status_code == 302
    assert cache.get(bucket) == 0
    assert _logins(browser, 200, 5) == [302] * 4 + [429]


def test_a_launch_after_its_window_takes_back_from_no_other(settings, browser, homework, clock):
    """The login's window is over and its bucket gone: the launch completes, the bucket is
    not made again, and the new window's count is untouched."""
    settings.LIMIT_LTI_LOGINS = 4
    login = browser.login(_pending(1))
    bucket = _bucket(login)
    clock[0] += 60
    cache.delete(bucket)  # expired
    assert _logins(browser, 100, 4) == [302] * 4
    assert _complete(browser, login).status_code == 302
    assert cache.get(bucket) is None
    assert _logins(browser, 200, 1) == [429]
