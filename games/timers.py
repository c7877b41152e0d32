"""The game timer on the server: a deadline on the session, and the time-up applied once.

ZnajZnak rulebook, note c: "Before the game, a timer may be set for 10 minutes. If nobody
has got rid of all their cards when the time runs out, the winner is the player with the
fewest cards in hand." The engine does not keep time; it has a ``time_up`` action that
only the table (player ``None``) may make. This module keeps the time:

* :func:`session_deadline_set`: when a timed game starts (``services.session_start``,
  which every start path goes through: a session, a class duel, a practice game), the
  moment the time is up is stored on the session (``GameSession.time_up_at``) and a
  Celery task is scheduled for that moment once the start has committed.
* :func:`session_time_up`: applies ``{"type": "time_up"}`` through the one service that
  applies every action (``services.session_apply_action``), as the table. It is called
  by that task, and lazily by every page or poll that reads a session past its
  deadline, so the game ends on time even where no worker runs (with no broker at all,
  tasks run eagerly, and a task scheduled for later cannot run eagerly).
* ``services.session_apply_action`` itself checks the deadline under the row lock: an
  action that arrives after the time ran out ends the game by time instead.

Applying it is idempotent: the engine refuses a second time-up (the game is over), and
the row lock orders the task, the lazy checks and the facilitator's own "Time is up"
button, so whichever comes first ends the game and the others change nothing.

The pages get the remaining seconds from the server with every payload
(:func:`session_timer_info`), never a time of their own reckoning.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engines import engine_for
from games.engines.base import IllegalAction

from . import services, tasks
from .models import GameSession

logger = logging.getLogger(__name__)

#: The engine's action for "the time runs out" (ZnajZnak note c), made by the table.
TIME_UP_ACTION: dict[str, Any] = {"type": "time_up"}
#: Games whose setup ``timer`` times the whole game. (Activity's ``timer`` is the
#: hourglass of one turn, which the facilitator runs: not a deadline of the game.)
GAME_TIMERS = frozenset({"znajznak"})


def _timer_seconds(session: GameSession) -> float | None:
    if session.game not in GAME_TIMERS:
        return None
    seconds = (session.setup or {}).get("timer")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
        return None
    return float(seconds)


def session_deadline_set(*, session: GameSession, now: datetime | None = None) -> datetime | None:
    """Store when the timer of the just-started ``session`` runs out, and schedule the time-up.

    Called inside the start's transaction, with the row locked. Nothing happens for a
    game without a timer, or one whose engine has no time-up for the table right now
    (the setup's ``timer`` is the rulebook's; the engine says whether it applies).
    """
    seconds = _timer_seconds(session)
    if seconds is None or session.status != GameSession.Status.RUNNING or session.state is None:
        return None
    engine = engine_for(session.game)
    if TIME_UP_ACTION not in engine.legal_actions(engine.state_from_dict(session.state), None):
        return None
    session.time_up_at = (now or timezone.now()) + timedelta(seconds=seconds)
    session.save(update_fields=["time_up_at"])
    session_time_up_schedule(session_id=session.pk, at=session.time_up_at)
    return session.time_up_at


def session_time_up_schedule(*, session_id: int, at: datetime) -> None:
    """Enqueue the time-up task for ``at``, once the current transaction has committed.

    With no broker (tasks run eagerly, in the calling process) nothing is enqueued: an
    eager task cannot wait, and the lazy checks end the game instead. ``make run`` has a
    worker, which ends the game on time and tells the pages (``config.live_relay``).
    """
    if tasks.session_time_up_task.app.conf.task_always_eager:
        return
    # A long timer is reached in hops (an early delivery schedules the next): a task that
    # waits past Redis's visibility timeout is handed out twice (config/settings.py).
    eta = min(at, timezone.now() + timedelta(seconds=settings.TASK_ETA_MAX_SECONDS))
    transaction.on_commit(
        lambda: tasks.session_time_up_task.apply_async(args=[session_id], eta=eta),
        # A broker that is down must not undo a start: the lazy checks still end the game.
        robust=True,
    )


def deadline_passed(session: GameSession, now: datetime | None = None) -> bool:
    """Whether ``session`` is running and its timer has run out."""
    return (
        session.time_up_at is not None
        and session.status == GameSession.Status.RUNNING
        and (now or timezone.now()) >= session.time_up_at
    )


def session_time_remaining(session: GameSession, now: datetime | None = None) -> float | None:
    """Seconds until the time is up (0 when it has run out); ``None`` without a deadline."""
    if session.time_up_at is None:
        return None
    return max(0.0, (session.time_up_at - (now or timezone.now())).total_seconds())


def session_timer_info(session: GameSession, now: datetime | None = None) -> dict[str, Any] | None:
    """What a page needs to show the countdown: the timer's length and the seconds left.

    ``remaining`` is the server's reckoning at the moment the payload is built; the page
    counts down from it and takes the next payload's figure whenever one arrives.
    """
    remaining = session_time_remaining(session, now)
    if remaining is None:
        return None
    return {
        "seconds": _timer_seconds(session),
        "remaining": round(remaining, 1),
        "running": session.status == GameSession.Status.RUNNING,
    }


def session_time_up(*, session_id: int, now: datetime | None = None) -> bool:
    """End the game by time if its deadline has passed; ``True`` when this call ended it.

    Safe to call any number of times from anywhere: before the deadline, after the game
    ended, or when another call got there first, it changes nothing.
    """
    session = GameSession.objects.filter(pk=session_id).only("status", "time_up_at").first()
    if session is None or not deadline_passed(session, now):
        return False
    try:
        services.session_apply_action(session_id=session_id, player_id=None, action=dict(TIME_UP_ACTION))
    except IllegalAction:
        # Someone else ended it first (the facilitator, a last card, another check).
        return False
    logger.info("Session %s: the time is up.", session_id)
    return True


def session_time_up_if_due(session: GameSession) -> GameSession:
    """The lazy check of a read: ``session`` as it is after ending it by time, if due."""
    if deadline_passed(session) and session_time_up(session_id=session.pk):
        session.refresh_from_db()
    return session
