"""Background work of deck building and printing: each task loads its row and calls one
service in ``content/building.py``.

The services record their own failures (FAILED, a message for the teacher, the
progress where it stopped); a task only guards against what escapes them (a lost
database connection, a bug) and never raises into an eager caller. While a task works,
a heartbeat keeps the row's ``updated`` fresh (``content.jobs``); a worker that dies
mid-build stops it, and the beat sweep marks the job FAILED for "Try again". A task
the broker hands out again (``acks_late``) builds only a job still waiting, or one
whose heartbeat stopped (``building._claimable``). Not ``reject_on_worker_lost``: a
deck that kills its worker would kill the next one too.
"""

from __future__ import annotations

import logging

from celery import shared_task

from . import building, jobs
from .jobs import BUILD_SOFT_TIME_LIMIT as SOFT_TIME_LIMIT
from .jobs import BUILD_TIME_LIMIT as TIME_LIMIT
from .models import Deck, PrintJob

__all__ = ["deck_build_task", "print_job_run_task"]

logger = logging.getLogger(__name__)


@shared_task(
    bind=True, acks_late=True, ignore_result=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT
)
def deck_build_task(self, deck_id: int) -> None:  # type: ignore[no-untyped-def]
    """Build a deck's plan, deck.json and PDFs (``building.deck_build``)."""
    deck = Deck.objects.filter(pk=deck_id).first()
    if deck is None:
        logger.info("Deck %s is gone; nothing to build.", deck_id)
        return
    try:
        with jobs.task_heartbeat(self, Deck, deck_id):
            building.deck_build(deck=deck)
    except Exception:
        logger.exception("Deck %s: the build failed", deck_id)
        building.deck_fail(deck_id=deck_id, message=building.UNEXPECTED["deck"])


@shared_task(
    bind=True, acks_late=True, ignore_result=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT
)
def print_job_run_task(self, job_id: int) -> None:  # type: ignore[no-untyped-def]
    """Render a print job's PDF (``building.print_job_run``)."""
    job = PrintJob.objects.filter(pk=job_id).first()
    if job is None:
        logger.info("Print job %s is gone; nothing to print.", job_id)
        return
    try:
        with jobs.task_heartbeat(self, PrintJob, job_id):
            building.print_job_run(job=job)
    except Exception:
        logger.exception("Print job %s failed", job_id)
        building.print_job_fail(job_id=job_id, message=building.UNEXPECTED["PDF"])
