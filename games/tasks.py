"""Background work of the games app. Each task loads by primary key and calls one service.

Enqueued with ``transaction.on_commit`` by the services (``games.timers``).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from . import timers
from .models import GameSession

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
