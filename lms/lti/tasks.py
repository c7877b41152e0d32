"""Celery tasks of the LTI tool: they take primary keys and own only retries."""

from __future__ import annotations

from celery import shared_task

from . import columns, roster, scores
from .connector import ServiceError


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def score_deliver(self, outbox_id: int) -> None:  # type: ignore[no-untyped-def]
    """Post one outbox score; retry with exponential backoff while the LMS fails."""
    delay = scores.score_deliver(outbox_id=outbox_id)
    if delay is not None:
        if self.request.is_eager:
            return  # run in-process (no broker): scores_sweep tries again when it is due
        raise self.retry(countdown=delay)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def scores_sweep() -> int:
    """Re-queue pending scores whose task was lost (run it every few minutes from beat or cron)."""
    due = scores.scores_due()
    for pk in due:
        score_deliver.delay(pk)
    return len(due)


@shared_task(acks_late=True, autoretry_for=(ServiceError,), retry_backoff=True, max_retries=3)
def roster_sync(link_id: int) -> int:
    """Read a course's roster from the LMS."""
    return roster.roster_sync(link_id=link_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def progress_refresh(user_id: int) -> int:
    """Queue the student's changed mastery for the published progress columns of their classes."""
    columns.progress_refresh_forget(user_id=user_id)
    return columns.progress_scores_refresh(student_ids=[user_id])


@shared_task(acks_late=True, reject_on_worker_lost=True)
def progress_columns_sweep() -> int:
    """Mastery fades without answers: queue every changed value of every published column."""
    return columns.progress_scores_refresh()
