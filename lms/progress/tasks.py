"""Celery tasks of progress: thin, they take primary keys and call one service."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(
    acks_late=True, reject_on_worker_lost=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5
)
def namings_absorb_task(user_ids: list[int]) -> int:
    """After a game ends: its players' namings in play go to their memory (repeated runs do nothing)."""
    return services.namings_absorb_sweep(user_ids=user_ids)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def namings_absorb_sweep_task() -> int:
    """For a periodic schedule: the namings of games still running, or whose task was lost."""
    return services.namings_absorb_sweep()
