"""The score outbox: a counted grade that changed waits here until the LMS accepted it.

Contract: ``lms.grading`` calls :func:`score_enqueue` inside the transaction that changed
an assignment's counted grade for a student. Assignments not linked to an LMS line item
are ignored.

LTI AGS 2.0 §3.4: a score carries ``userId``, ``scoreGiven``, ``scoreMaximum``,
``timestamp`` (ISO 8601, the LMS ignores a score older than the last it took),
``activityProgress`` and ``gradingProgress`` (Moodle refuses a score without them).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiUser

from . import tasks
from .models import AssignmentLink, OutboxScore, ProgressColumn


def _key(link: AssignmentLink, grade: Any) -> str:
    """One row per activity link, counted attempt and score: never two scores for one attempt."""
    return f"l{link.pk}:u{grade.student_id}:s{grade.submission_id or 0}:{grade.score}/{grade.max_score}"


def score_enqueue(*, grade: Any) -> None:
    """Queue ``grade`` for delivery to the LMS line item of its assignment, if it has one."""
    links = list(
        AssignmentLink.objects.filter(assignment_id=grade.assignment_id)
        .exclude(lineitem_url="")
        .select_related("resource_link__context__deployment__registration")
    )
    if not links:
        return
    timestamp = grade.updated or timezone.now()
    queued: list[int] = []
    for link in links:
        registration = link.resource_link.context.deployment.registration
        lti_user = LtiUser.objects.filter(registration=registration, auth_user_id=grade.student_id).first()
        if lti_user is None:
            continue  # the student is not known to that LMS
        row, created = OutboxScore.objects.get_or_create(
            key=_key(link, grade),
            defaults={
                "link": link,
                "lti_user": lti_user,
                "student_id": grade.student_id,
                "grade": grade,
                "submission_id": grade.submission_id,
                "score_given": grade.score,
                "score_maximum": grade.max_score,
                "timestamp": timestamp,
                "next_attempt_at": timezone.now(),
            },
        )
        if created:
            queued.append(row.pk)
    for pk in queued:
        transaction.on_commit(lambda pk=pk: tasks.score_deliver.delay(pk))


def progress_score_enqueue(
    *, column: ProgressColumn, lti_user: LtiUser, student_id: int, value: int, timestamp: Any = None
) -> bool:
    """Queue a student's mastery (0–100) for a progress column; returns whether anything changed.

    Call it in a transaction. Idempotent and coalescing: the value the LMS has (or will
    get) already is not queued again, and a row still waiting for its first try takes the
    new value instead of a second row joining it. A row already on its way (tried once) is
    left alone; the new row supersedes it.
    """
    timestamp = timestamp or timezone.now()
    latest = (
        OutboxScore.objects.select_for_update()
        .filter(column=column, lti_user=lti_user)
        .exclude(status__in=[OutboxScore.Status.SUPERSEDED, OutboxScore.Status.WITHDRAWN])
        .order_by("-timestamp", "-pk")
        .first()
    )
    if latest is not None and latest.score_given == value:
        return False
    if latest is not None and latest.status == OutboxScore.Status.PENDING and latest.attempts == 0:
        latest.score_given = value
        latest.timestamp = timestamp
        latest.save(update_fields=["score_given", "timestamp"])
        return True
    row = OutboxScore.objects.create(
        key=f"c{column.pk}:u{student_id}:t{timestamp.isoformat()}",
        column=column,
        lti_user=lti_user,
        student_id=student_id,
        score_given=value,
        score_maximum=100,
        timestamp=timestamp,
        next_attempt_at=timezone.now(),
    )
    transaction.on_commit(lambda: tasks.score_deliver.delay(row.pk))
    return True


def score_payload(row: OutboxScore) -> dict[str, Any]:
    """The AGS score document for an outbox row."""
    return {
        "userId": row.lti_user.sub,
        "scoreGiven": float(row.score_given),
        "scoreMaximum": float(row.score_maximum),
        "timestamp": row.timestamp.isoformat(timespec="milliseconds"),
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
    }
