"""Background work of deck building and printing: each task loads its row and calls one
service in ``content/building.py``.

The services record their own failures (FAILED, a message for the teacher, the
progress where it stopped); a task only guards against what escapes them (a lost
database connection, a bug) and never raises into an eager caller. ``acks_late``: a
worker that dies mid-build leaves the message on the broker, and the next worker
builds the deck again from its snapshot (a deck already DONE is left alone).
"""

from __future__ import annotations

import logging

from celery import shared_task

from . import building
from .models import Deck, PrintJob

__all__ = ["deck_build_task", "print_job_run_task"]

logger = logging.getLogger(__name__)

#: A deck of order 11 renders in minutes on one core; leave room for big orders.
SOFT_TIME_LIMIT = 30 * 60
TIME_LIMIT = SOFT_TIME_LIMIT + 5 * 60

UNEXPECTED = (
    "Talia hit an unexpected error while making the {what}. Try again, and tell an admin if it happens again."
)


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT)
def deck_build_task(deck_id: int) -> None:
    """Build a deck's plan, deck.json and PDFs (``building.deck_build``)."""
    deck = Deck.objects.filter(pk=deck_id).first()
    if deck is None:
        logger.info("Deck %s is gone; nothing to build.", deck_id)
        return
    try:
        building.deck_build(deck=deck)
    except Exception:
        logger.exception("Deck %s: the build failed", deck_id)
        building.deck_fail(deck_id=deck_id, message=UNEXPECTED.format(what="deck"))


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT)
def print_job_run_task(job_id: int) -> None:
    """Render a print job's PDF (``building.print_job_run``)."""
    job = PrintJob.objects.filter(pk=job_id).first()
    if job is None:
        logger.info("Print job %s is gone; nothing to print.", job_id)
        return
    try:
        building.print_job_run(job=job)
    except Exception:
        logger.exception("Print job %s failed", job_id)
        building.print_job_fail(job_id=job_id, message=UNEXPECTED.format(what="PDF"))
