"""Background jobs that recover when their worker dies: the heartbeat and the stale cutoff.

A worker process can die in the middle of a job (the kernel's out-of-memory killer, a
machine restarted, a hard time limit). Celery then either acknowledges the task as
failed (a prefork child lost) or leaves it to Redis, which hands it out again only once
its visibility timeout has passed (hours). Either way the job's row would still say
"Building 43%" and its page would wait for ever. So:

* while a task works, :func:`job_heartbeat` touches the row's ``updated`` every
  ``JOBS_HEARTBEAT_SECONDS`` (30) from a thread of its own, however long one step takes;
* a periodic sweep (``content.tasks.jobs_sweep_task``,
  ``games.quiz.tasks.quizzes_sweep_task``) marks FAILED, with a reason a teacher can act
  on, every job that says it is running but whose ``updated`` is older than
  :func:`stale_cutoff`; its page then offers "Try again".

A stale job is failed rather than run again by itself: what killed a worker once (a
deck too big for the memory) would kill the next one too, and a loop of dying workers
helps nobody. "Try again" puts it back in the queue through its service.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Model
from django.utils import timezone

logger = logging.getLogger(__name__)

# Time limits of the content tasks (seconds; enforced by the prefork pool). The soft one
# raises ``SoftTimeLimitExceeded`` inside the task, which records a message for the
# teacher; the hard one kills the worker process, and the sweep reports the job. A deck
# of order 11 renders in minutes on one core: builds and prints get room for big orders.
BUILD_SOFT_TIME_LIMIT = 30 * 60
BUILD_TIME_LIMIT = BUILD_SOFT_TIME_LIMIT + 5 * 60
#: An import of thousands of rows with pictures is checked or written in a few minutes.
IMPORT_SOFT_TIME_LIMIT = 10 * 60
IMPORT_TIME_LIMIT = IMPORT_SOFT_TIME_LIMIT + 2 * 60


def stale_cutoff(now: datetime | None = None) -> datetime:
    """A running job whose ``updated`` is older than this has lost its worker.

    ``JOBS_STALE_SECONDS`` (default 300): ten missed heartbeats, so a busy database or a
    slow moment never fails a live job.
    """
    return (now or timezone.now()) - timedelta(seconds=settings.JOBS_STALE_SECONDS)


def queued_cutoff(now: datetime | None = None) -> datetime:
    """A job still waiting in the queue since before this is sent to the queue again.

    ``JOBS_REQUEUE_SECONDS`` (default 1800). Its task may have been lost: a broker that
    restarted without its data, a worker killed in the middle of a batch, a broker that
    was down when the job was queued. Sending it twice is harmless: a service runs a
    job only while it is waiting (or lost), so the second delivery finds it taken.
    """
    return (now or timezone.now()) - timedelta(seconds=settings.JOBS_REQUEUE_SECONDS)


def job_touch(model: type[Model], pk: int) -> None:
    """Record that the job ``pk`` of ``model`` is alive (its ``updated`` is now)."""
    model._default_manager.filter(pk=pk).update(updated=timezone.now())


@contextmanager
def job_heartbeat(model: type[Model], pk: int, *, seconds: float | None = None) -> Iterator[None]:
    """Touch the job's ``updated`` every ``seconds`` (``JOBS_HEARTBEAT_SECONDS``) while the block runs.

    The beat comes from a daemon thread with a database connection of its own (closed
    when the block ends), so a long step without progress (one big PDF being laid
    out) still shows a live job. The thread dies with its process, which is the
    point: a killed worker stops beating and the sweep notices.
    """
    seconds = seconds or settings.JOBS_HEARTBEAT_SECONDS
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(seconds):
                try:
                    job_touch(model, pk)
                except Exception:  # a missed beat is harmless; the next one may work
                    logger.warning("Heartbeat of %s %s failed", model.__name__, pk, exc_info=True)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=seconds)


def task_heartbeat(task: Any, model: type[Model], pk: int) -> AbstractContextManager[None]:
    """The heartbeat of the job a bound Celery ``task`` runs; none when it runs eagerly
    (in the calling process, which no sweep could outlive)."""
    return nullcontext() if task.request.is_eager else job_heartbeat(model, pk)
