"""LTI login initiation is limited per address: refused initiations strictly, all of them generously."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace

import pytest

from config import limits
from tests.lms.lti.conftest import student_person
from tests.lms.lti.platform import PendingLaunch

pytestmark = pytest.mark.django_db


def _pending(n: int) -> PendingLaunch:
    return PendingLaunch(student_person(n), "c1", "History", resource_link_id="rl-1")


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


def test_a_class_launching_together_is_not_refused_but_a_flood_is(
    settings, browser, registration, monkeypatch
):
    settings.LIMIT_LTI_LOGIN_FAILURES = 3
    # The counts live in fixed windows of a minute: the 45 logins below must fall in one,
    # however long a loaded machine takes to make them.
    window_start = math.floor(time.time() / 60) * 60 + 1
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: window_start))
    settings.LIMIT_LTI_LOGINS = 40
    # 30 students behind the school's address open the activity within a minute.
    assert [browser.login(_pending(n)).status_code for n in range(30)] == [302] * 30
    answers = [browser.login(_pending(n)).status_code for n in range(30, 45)]
    assert answers[:10] == [302] * 10 and set(answers[10:]) == {429}
