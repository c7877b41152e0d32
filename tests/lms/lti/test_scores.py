"""Score delivery against the real platform: one access token until it expires, retries after a
timeout, and the periodic sweep that picks up pending scores whose task was lost."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiUser

from lms import grading
from lms.lti import connector, scores, tasks
from lms.lti.models import AssignmentLink, ClassLink, OutboxScore
from lms.models import Submission
from tests.lms.factories_classes import practice_homework
from tests.lms.lti.conftest import student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch

pytestmark = pytest.mark.django_db


@pytest.fixture
def linked(browser, registration, client):
    """A course whose LMS activity opens a homework with a line item, and two students who launched it."""
    platform = browser.platform
    teacher = teacher_person()
    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    assignment = practice_homework(ClassLink.objects.get().school_class, title="Praca domowa")
    item = platform.lineitem_add(label="Praca domowa", score_maximum=10, resource_link_id="rl-x")
    pick = browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    client.post(pick["Location"], {"template": f"assignment:{assignment.pk}"})
    for n in (1, 2, 3):
        browser.launch(PendingLaunch(student_person(n), "c9", "Klasa 9", resource_link_id="rl-x"))
    platform.tool_jwks = client.get("/lti/jwks/").json()
    return AssignmentLink.objects.get(), item


def _grade(link, n, fraction="0.5"):
    """Grade student ``n``'s attempt; the outbox row waits (no on_commit in a test transaction)."""
    student = LtiUser.objects.get(sub=f"s-{n}").auth_user
    submission = Submission.objects.create(assignment=link.assignment, student=student, number=1)
    grading.submission_score(submission=submission, fraction=Decimal(fraction))
    return OutboxScore.objects.get(lti_user__sub=f"s-{n}")


def test_the_access_token_is_fetched_once_and_reused_until_it_expires(linked, platform, monkeypatch):
    link, item = linked
    first, second = _grade(link, 1), _grade(link, 2)
    assert scores.score_deliver(outbox_id=first.pk) is None
    assert scores.score_deliver(outbox_id=second.pk) is None
    assert platform.token_requests == 1
    assert set(platform.lineitems[item.id].scores) == {"s-1", "s-2"}
    # Cached for one second only (the platform's tokens live 3600 s), a new token expires at
    # once: the next score asks the platform for another.
    monkeypatch.setattr(connector, "TOKEN_MARGIN", 3599)
    registration = link.resource_link.context.deployment.registration
    connector.access_token(registration, [connector.SCORE_SCOPE], fresh=True)
    assert platform.token_requests == 2
    time.sleep(1.2)
    assert scores.score_deliver(outbox_id=_grade(link, 3).pk) is None
    assert platform.token_requests == 3
    assert "s-3" in platform.lineitems[item.id].scores


def test_a_score_post_that_times_out_is_retried(linked, platform, monkeypatch):
    link, item = linked
    monkeypatch.setattr(connector, "TIMEOUT", (2, 0.3))
    platform.score_delays = [1.0]
    row = _grade(link, 1)
    delay = scores.score_deliver(outbox_id=row.pk)
    row.refresh_from_db()
    assert delay is not None and delay > 0
    assert row.status == OutboxScore.Status.PENDING and row.attempts == 1
    assert "Timeout" in row.last_error and row.next_attempt_at > timezone.now()
    assert scores.score_deliver(outbox_id=row.pk) is None
    row.refresh_from_db()
    assert row.status == OutboxScore.Status.DELIVERED and row.attempts == 2
    assert platform.lineitems[item.id].scores["s-1"]["scoreGiven"] == 5.0


def test_the_sweep_requeues_a_due_pending_score_and_leaves_one_not_yet_due(linked, platform):
    link, item = linked
    due, later = _grade(link, 1), _grade(link, 2)
    OutboxScore.objects.filter(pk=due.pk).update(next_attempt_at=timezone.now() - timedelta(minutes=5))
    OutboxScore.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + timedelta(minutes=5))
    assert tasks.scores_sweep() == 1  # tasks run in-process here: the due row is delivered now
    due.refresh_from_db()
    later.refresh_from_db()
    assert due.status == OutboxScore.Status.DELIVERED
    assert later.status == OutboxScore.Status.PENDING and later.attempts == 0
    assert set(platform.lineitems[item.id].scores) == {"s-1"}


def test_the_admins_outbox_list_reads_what_its_rows_name_with_the_rows(linked, client, admin_user):
    """Each row names its student and its activity (a resource link and an assignment): read
    with the rows, so a list of many scores costs the queries of a list of one."""
    link, _item = linked
    client.force_login(admin_user)
    url = reverse("admin:lti_outboxscore_changelist")
    _grade(link, 1)
    assert client.get(url).status_code == 200  # what the first page of a session reads once
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    _grade(link, 2)
    _grade(link, 3)
    with CaptureQueriesContext(connection) as three:
        page = client.get(url)
    assert page.content.decode().count("Praca domowa") >= 3
    assert len(three.captured_queries) == len(one.captured_queries)
    for name in ("classlink", "assignmentlink", "progresscolumn"):
        assert client.get(reverse(f"admin:lti_{name}_changelist")).status_code == 200
