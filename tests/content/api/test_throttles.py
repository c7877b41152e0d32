"""The API's throttles (REST_FRAMEWORK's DEFAULT_THROTTLE_CLASSES): per person, per address, per scope."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(monkeypatch):
    """Small rates: DRF reads them once at import, so they are set on the throttle class."""
    small = {"anon": "3/minute", "user": "100/minute", "content": "4/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", small)
    return small


def test_the_content_scope_answers_429_with_retry_after_beyond_its_rate(rates, teacher):
    client = Client()
    client.force_login(teacher)
    answers = [client.get("/api/v1/periods/").status_code for _ in range(5)]
    assert answers == [200] * 4 + [429]
    refused = client.get("/api/v1/symbols/")
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
    assert "throttled" in refused.json()["detail"]


def test_each_person_has_their_own_count(rates, teacher, other_teacher):
    first, second = Client(), Client()
    first.force_login(teacher)
    second.force_login(other_teacher)
    assert [first.get("/api/v1/periods/").status_code for _ in range(5)][-1] == 429
    assert second.get("/api/v1/periods/").status_code == 200


def test_requests_without_a_sign_in_are_limited_per_address(rates):
    # The schema is public (and costly to make); the content views answer 403 first.
    answers = [Client().get("/api/schema/").status_code for _ in range(4)]
    assert answers == [200] * 3 + [429]
