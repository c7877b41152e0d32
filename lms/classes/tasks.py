"""Celery tasks of classes and homework: thin, they take primary keys and call one service."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(
    acks_late=True, reject_on_worker_lost=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5
)
def assignment_due_grade_task(assignment_id: int) -> int:
    """At the due time: grade the attempts still in progress (repeated runs do nothing; an
    early run, one hop of a far due time, schedules the next hop)."""
    graded = services.assignment_due_grade(assignment_id=assignment_id)
    services.assignment_due_schedule_next(assignment_id=assignment_id)
    return graded


@shared_task(acks_late=True, reject_on_worker_lost=True)
def assignments_due_sweep_task() -> int:
    """For a periodic schedule: grade any due homework the due-time task missed, and every
    timed quiz attempt whose time ran out while nobody had it open (homework without a due
    time, standalone quizzes)."""
    return services.assignments_due_sweep()
