"""Delivering the outbox to the LMS, with retries and exponential backoff (LTI AGS 2.0 §3.4).

A row is posted outside any database transaction (an LMS may take seconds to answer);
posting the same row twice is harmless, as the score and its timestamp are the same.
A row with a newer score for the same student and activity is superseded instead of
sent: the LMS ends with the newest score, never an older one.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.classes.services import is_class_teacher

from . import connector, outbox, tasks
from .errors import LaunchRefused
from .models import OutboxScore

MAX_DELAY = 3600


def retry_delay(attempts: int) -> int:
    """Seconds before attempt ``attempts + 1``: doubling from LTI_SCORE_RETRY_DELAY, with jitter."""
    base = settings.LTI_SCORE_RETRY_DELAY * (2 ** max(0, attempts - 1))
    return int(min(MAX_DELAY, base) * random.uniform(0.8, 1.2)) or 1


def _superseded(row: OutboxScore) -> bool:
    return (
        OutboxScore.objects.filter(link_id=row.link_id, column_id=row.column_id, lti_user_id=row.lti_user_id)
        .exclude(pk=row.pk)
        .exclude(status=OutboxScore.Status.SUPERSEDED)
        .filter(timestamp__gt=row.timestamp)
        .exists()
    )


def score_deliver(*, outbox_id: int) -> int | None:
    """Try to deliver one row. Returns the seconds until the next try, or None when it is settled."""
    with transaction.atomic():
        row = (
            OutboxScore.objects.select_for_update(of=("self",))  # the link or the column: an outer join
            .select_related(
                "link__resource_link__context__deployment__registration",
                "column__class_link__context__deployment__registration",
                "lti_user",
            )
            .filter(pk=outbox_id)
            .first()
        )
        if row is None or row.status != OutboxScore.Status.PENDING:
            return None
        if _superseded(row):
            row.status = OutboxScore.Status.SUPERSEDED
            row.save(update_fields=["status"])
            return None
        row.attempts += 1
        row.save(update_fields=["attempts"])
    registration = row.context.deployment.registration
    try:
        connector.score_post(registration, row.lineitem_url, outbox.score_payload(row))
    except connector.ServiceError as error:
        with transaction.atomic():
            row = OutboxScore.objects.select_for_update().get(pk=row.pk)
            if row.status != OutboxScore.Status.PENDING:
                return None
            row.last_error = str(error)[:500]
            if error.retry and row.attempts < settings.LTI_SCORE_MAX_ATTEMPTS:
                delay = retry_delay(row.attempts)
                row.next_attempt_at = timezone.now() + timedelta(seconds=delay)
                row.save(update_fields=["last_error", "next_attempt_at"])
                return delay
            row.status = OutboxScore.Status.FAILED
            row.next_attempt_at = None
            row.save(update_fields=["last_error", "status", "next_attempt_at"])
            return None
    with transaction.atomic():
        OutboxScore.objects.filter(pk=row.pk, status=OutboxScore.Status.PENDING).update(
            status=OutboxScore.Status.DELIVERED,
            delivered_at=timezone.now(),
            last_error="",
            next_attempt_at=None,
        )
    return None


@transaction.atomic
def score_resend(*, outbox_id: int, by: Any) -> OutboxScore:
    """The teacher sends a failed (or any not-yet-superseded) score again."""
    row = (
        OutboxScore.objects.select_for_update(of=("self",))
        .select_related("link__assignment__school_class", "column__class_link__school_class")
        .filter(pk=outbox_id)
        .first()
    )
    if row is None or not is_class_teacher(row.school_class, by):
        raise LaunchRefused("not_found", _("There is no such score."), status=404)
    if row.column_id and not row.column.active:  # type: ignore[union-attr]
        raise LaunchRefused(
            "unpublished", _("This progress column is no longer published; nothing is sent."), status=409
        )
    if row.status == OutboxScore.Status.SUPERSEDED:
        raise LaunchRefused(
            "superseded", _("A newer score replaced this one; it is not sent again."), status=409
        )
    row.status = OutboxScore.Status.PENDING
    row.attempts = 0
    row.next_attempt_at = timezone.now()
    row.last_error = ""
    row.save(update_fields=["status", "attempts", "next_attempt_at", "last_error"])
    transaction.on_commit(lambda: tasks.score_deliver.delay(row.pk))
    return row


def scores_due() -> list[int]:
    """Pending rows whose next attempt is due (a lost task, a restarted worker)."""
    return list(
        OutboxScore.objects.filter(status=OutboxScore.Status.PENDING, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:1000]
    )
