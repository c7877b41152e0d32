"""Celery tasks of classes and homework: thin, they take primary keys and call one service."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5)
def assignment_due_grade_task(assignment_id: int) -> int:
    """At the due time: grade the attempts still in progress (early or repeated runs do nothing)."""
    from .services import assignment_due_grade

    return assignment_due_grade(assignment_id=assignment_id)


@shared_task(acks_late=True)
def assignments_due_sweep_task() -> int:
    """For a periodic schedule: grade any due homework the due-time task missed, and every
    timed quiz attempt whose time ran out while nobody had it open (homework without a due
    time, standalone quizzes)."""
    from .services import assignments_due_sweep

    return assignments_due_sweep()
