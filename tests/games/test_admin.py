"""The code space in the admin (``games.admin.JoinCodeAdmin``): administrators read it, in a
fixed number of queries however many codes a page lists; nobody edits it by hand."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import JoinCode
from tests.games.test_sessions import signed_in

pytestmark = pytest.mark.django_db

KINDS = ("session", "practice", "quiz", "workshop", "class")


def claims(count: int, *, start: int = 0) -> list[JoinCode]:
    """``count`` codes of every kind in turn, every third one released."""
    return [
        JoinCode.objects.create(
            code=f"K{start + n:05d}",
            kind=KINDS[n % len(KINDS)],
            object_id=start + n + 1,
            released=timezone.now() if n % 3 == 2 else None,
        )
        for n in range(count)
    ]


def queries(client: Any, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured.captured_queries), response.content.decode()


def test_the_list_of_codes_costs_the_same_for_a_few_rows_and_for_many(admin_user: Any) -> None:
    client = signed_in(admin_user)
    client.get(reverse("admin:index"))  # what the first page of a session reads once
    few_rows = claims(5)
    few, page = queries(client, reverse("admin:games_joincode_changelist"))
    assert all(claim.code in page for claim in few_rows)

    more_rows = claims(20, start=100)
    many, page = queries(client, reverse("admin:games_joincode_changelist"))
    assert many == few
    assert all(claim.code in page for claim in more_rows)
    # What a session's code opens links to the session's own admin page.
    session_claim = more_rows[0]
    assert reverse("admin:games_gamesession_change", args=[session_claim.object_id]) in page


def test_codes_are_found_by_code_and_filtered_to_the_live_ones(admin_user: Any) -> None:
    client = signed_in(admin_user)
    wanted, other, released = claims(3)
    found = client.get(
        reverse("admin:games_joincode_changelist"), {"q": wanted.code.lower()}
    ).content.decode()
    assert wanted.code in found and other.code not in found
    live = client.get(reverse("admin:games_joincode_changelist"), {"released__isempty": "1"}).content.decode()
    assert wanted.code in live and released.code not in live


def test_codes_are_drawn_by_the_services_not_added_changed_or_deleted_here(admin_user: Any) -> None:
    client = signed_in(admin_user)
    (claim,) = claims(1)
    change = reverse("admin:games_joincode_change", args=[claim.pk])

    assert client.get(change).status_code == 200  # read only
    assert client.post(change, {"code": "HACKED", "kind": "quiz", "object_id": 1}).status_code == 403
    assert client.get(reverse("admin:games_joincode_add")).status_code == 403
    assert (
        client.post(reverse("admin:games_joincode_delete", args=[claim.pk]), {"post": "yes"}).status_code
        == 403
    )
    claim.refresh_from_db()
    assert (claim.code, claim.kind) == ("K00000", "session")


def test_a_student_is_sent_to_the_admin_login_and_a_teacher_is_refused(student: Any, teacher: Any) -> None:
    claims(1)
    sent = signed_in(student).get(reverse("admin:games_joincode_changelist"))
    assert sent.status_code == 302 and sent["Location"].startswith(reverse("admin:login"))
    assert signed_in(teacher).get(reverse("admin:games_joincode_changelist")).status_code == 403
