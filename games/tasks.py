"""Background work of the games app. Each task loads by primary key and calls one service.

Enqueued with ``transaction.on_commit`` by the services (``games.timers``).
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone
from django.utils.translation import gettext_noop

from content import jobs

from . import timers
from .models import GameSession, KnowledgeBalanceRun
from .play.knowledge import balance_run

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def session_time_up_task(session_id: int) -> None:
    """ZnajZnak note c: end the game when its timer runs out (``timers.session_time_up``).

    Scheduled for the deadline. A delivery that comes early (another machine's clock, a
    broker that redelivers) schedules itself again for the stored deadline; a late or
    repeated one changes nothing once the game is over.
    """
    session = GameSession.objects.filter(pk=session_id).only("status", "time_up_at").first()
    if session is None or session.time_up_at is None or session.status != GameSession.Status.RUNNING:
        return
    if timezone.now() < session.time_up_at:
        timers.session_time_up_schedule(session_id=session_id, at=session.time_up_at)
        return
    timers.session_time_up(session_id=session_id)


# --- The Knowledge? balance simulator, started from a board's admin page ---------------------

#: A run is at most 4 x BALANCE_GAMES_MAX games, a minute or two on one core.
BALANCE_SOFT_TIME_LIMIT = 10 * 60
BALANCE_UNEXPECTED = gettext_noop(
    "Talia hit an unexpected error while simulating the games. Try again, and tell an admin "
    "if it happens again."
)


@shared_task(
    bind=True,
    acks_late=True,
    ignore_result=True,
    soft_time_limit=BALANCE_SOFT_TIME_LIMIT,
    time_limit=BALANCE_SOFT_TIME_LIMIT + 60,
)
def knowledge_balance_task(self, run_id: int) -> None:  # type: ignore[no-untyped-def]
    """Play a balance run's games (``balance_run.balance_run_play``); never raises into the
    caller (an eager run in the web process), a failure is recorded on the run."""
    run = KnowledgeBalanceRun.objects.filter(pk=run_id).first()
    if run is None:
        logger.info("Balance run %s is gone; nothing to simulate.", run_id)
        return
    try:
        with jobs.task_heartbeat(self, KnowledgeBalanceRun, run_id):
            balance_run.balance_run_play(run=run)
    except SoftTimeLimitExceeded:
        logger.warning("Balance run %s: out of time", run_id)
        balance_run.balance_run_fail(run_id=run_id, message=balance_run.TOO_LONG)
    except Exception:
        logger.exception("Balance run %s: the simulation failed", run_id)
        balance_run.balance_run_fail(run_id=run_id, message=BALANCE_UNEXPECTED)


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=60, time_limit=90)
def knowledge_balance_sweep_task() -> None:
    """From beat, every minute: fail the balance runs whose worker died, for "Try again", and
    send again those waiting in the queue too long (their task was lost)."""
    failed = balance_run.balance_runs_sweep()
    if failed:
        logger.warning("Balance sweep: %s run(s) lost their worker and were marked failed", failed)
    waiting = balance_run.balance_runs_waiting()
    for run_id in waiting:
        knowledge_balance_task.delay(run_id)
    if waiting:
        logger.warning("Balance sweep: %s run(s) waiting too long were sent to the queue again", len(waiting))
