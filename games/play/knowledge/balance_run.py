"""The balance simulator as a background job: what the worker does (``games.tasks``).

:func:`balance_run_play` plays the games of a :class:`~games.models.KnowledgeBalanceRun`
from its snapshot with :func:`games.knowledge_simulator.balance_figures` (the command's
function), moving the run's progress as it goes. A worker that dies leaves the run
RUNNING with an ``updated`` that stops moving (``content.jobs``): :func:`balance_runs_sweep`
fails it with a reason and the board's page offers "Try again"; a run waiting in the
queue too long is sent again (:func:`balance_runs_waiting`).

The teacher's side (start, "Try again", the page's rows) is ``balance.py``; this module
does not enqueue, so the tasks module can import it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from content import jobs
from content.models import BuildState, KnowledgeQuestion, Status
from games.engines.knowledge_board import board_from_dict
from games.knowledge_simulator import balance_figures, balance_warning, cards_from_rows
from games.models import KnowledgeBalanceRun

__all__ = [
    "STOPPED",
    "TOO_LONG",
    "balance_pool",
    "balance_run_fail",
    "balance_run_play",
    "balance_runs_sweep",
    "balance_runs_waiting",
]

#: What a run whose worker died says; translated where it is shown.
STOPPED = gettext_noop(
    "The worker running this simulation stopped before it finished: it may have been "
    "restarted. Try again; if it stops again, simulate fewer games, or tell an admin."
)

#: What a run that ran out of time says (the task's soft time limit).
TOO_LONG = gettext_noop("The simulation took longer than a worker may run it. Try again with fewer games.")


def balance_pool(*, tags: list[str] | None = None, language: str = "") -> list[dict[str, Any]]:
    """The question rows the simulator plays with: the published Knowledge? questions, those
    with any of ``tags`` (slugs) and in ``language`` when given, in a stable order.

    The command and the board's page both read the pool here, so they play the same cards.
    """
    questions = KnowledgeQuestion.objects.filter(status=Status.PUBLISHED)
    if tags:
        questions = questions.filter(tags__slug__in=tags).distinct()
    if language:
        questions = questions.filter(language=language)
    return list(questions.order_by("id").values("category", "answer"))


class _Progress:
    """Writes the run's progress when its whole percentage changes (at most 100 writes)."""

    def __init__(self, run_id: int) -> None:
        self.run_id, self.shown = run_id, 0

    def __call__(self, done: int, total: int) -> None:
        percent = min(99, done * 100 // total) if total else 0
        if percent > self.shown:
            self.shown = percent
            KnowledgeBalanceRun.objects.filter(pk=self.run_id, state=BuildState.RUNNING).update(
                progress=percent, updated=timezone.now()
            )


def balance_run_play(*, run: KnowledgeBalanceRun) -> KnowledgeBalanceRun:
    """Play the run's games and store the figures, one row per variant and start.

    Only a QUEUED run is played, or a RUNNING one whose worker died before the sweep got
    to it (a task the broker handed out again); a FAILED one waits for "Try again", a
    DONE one is left alone. The figures depend only on the snapshot and the options.
    """
    with transaction.atomic():
        locked = KnowledgeBalanceRun.objects.select_for_update().get(pk=run.pk)
        lost = locked.state == BuildState.RUNNING and locked.updated < jobs.stale_cutoff()
        if locked.state != BuildState.QUEUED and not lost:
            return locked
        locked.state, locked.progress, locked.message = BuildState.RUNNING, 0, ""
        locked.save(update_fields=["state", "progress", "message", "updated"])
    options, snapshot = locked.options, locked.snapshot
    figures = balance_figures(
        board_from_dict(snapshot["board"]),
        cards_from_rows(snapshot["questions"]),
        games=options["games"],
        seed=options["seed"],
        knows=options["knowledge"] / 100,
        progress=_Progress(locked.pk),
    )
    rows = [{**figure.to_dict(), "warning": balance_warning(figure.win_rate)} for figure in figures]
    with transaction.atomic():
        locked = KnowledgeBalanceRun.objects.select_for_update().get(pk=run.pk)
        if locked.state == BuildState.DONE:
            return locked  # a redelivered task: another worker finished it
        locked.figures, locked.state, locked.progress = rows, BuildState.DONE, 100
        locked.save(update_fields=["figures", "state", "progress", "updated"])
    return locked


def balance_run_fail(*, run_id: int, message: str) -> None:
    """Record that the run failed, with a message for the teacher."""
    KnowledgeBalanceRun.objects.filter(pk=run_id).exclude(state=BuildState.DONE).update(
        state=BuildState.FAILED, message=message, updated=timezone.now()
    )


def balance_runs_sweep(*, now: datetime | None = None) -> int:
    """Mark FAILED every run still RUNNING whose heartbeat stopped (its worker died)."""
    stale = KnowledgeBalanceRun.objects.filter(state=BuildState.RUNNING, updated__lt=jobs.stale_cutoff(now))
    return stale.update(state=BuildState.FAILED, message=STOPPED, updated=timezone.now())


def balance_runs_waiting(*, now: datetime | None = None) -> list[int]:
    """The runs waiting in the queue too long (``content.jobs.queued_cutoff``), marked as
    sent again now; the caller sends them. Sending one twice is harmless (see above)."""
    now = now or timezone.now()
    with transaction.atomic():
        waiting = list(
            KnowledgeBalanceRun.objects.select_for_update(skip_locked=True)
            .filter(state=BuildState.QUEUED, updated__lt=jobs.queued_cutoff(now))
            .values_list("pk", flat=True)
        )
        KnowledgeBalanceRun.objects.filter(pk__in=waiting).update(updated=now)
    return waiting
