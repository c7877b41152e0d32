"""The only writers of progress: one answer updates one memory state and adds one review."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import NamingRecord

from . import memory, tasks
from .models import MemoryState, NamingWatermark, Review
from .signals import memory_reviewed

ITEM_KEY = re.compile(r"(symbol|knowledge|know|question):[1-9][0-9]{0,17}")


@transaction.atomic
def memory_review(
    *,
    user: Any,
    item_key: str,
    correct: bool | float,
    reviewed_at: datetime | None = None,
    source: str = Review.Source.QUIZ,
) -> MemoryState:
    """Schedule ``item_key`` for ``user`` after one answer (FSRS; see ``memory.rating_for``)."""
    if not ITEM_KEY.fullmatch(item_key):
        raise ValueError(
            f"not an item key: {item_key!r} "
            "(expected symbol:<id>, knowledge:<id>, know:<id> or question:<id>)"
        )
    at = reviewed_at or timezone.now()
    score = float(correct)
    state = _locked_state(user, item_key)
    first = state.reviews == 0
    updated = memory.review(None if first else state.card, score, at)
    state.card = updated.card
    state.due = updated.due
    state.stability = updated.stability
    state.difficulty = updated.difficulty
    state.reviews += 1
    state.correct += score
    state.last_reviewed = at if first else max(at, state.last_reviewed)
    state.last_correct = score
    state.save()
    Review.objects.create(user=user, item_key=item_key, correct=score, reviewed_at=at, source=source)
    memory_reviewed.send(sender=MemoryState, user=user, item_key=item_key)
    return state


def item_answered_receive(
    sender: Any,
    *,
    user: Any,
    item_key: str,
    correct: bool | float,
    reviewed_at: datetime | None,
    source: str,
    **kwargs: Any,
) -> None:
    """``games.signals.item_answered``: one answer in a quiz or in play (``ProgressConfig.ready``)."""
    memory_review(user=user, item_key=item_key, correct=correct, reviewed_at=reviewed_at, source=source)


def _locked_state(user: Any, item_key: str) -> MemoryState:
    """The item's row, locked; a new item gets an empty row (``reviews == 0``) first."""
    state = MemoryState.objects.select_for_update().filter(user=user, item_key=item_key).first()
    if state is not None:
        return state
    # Two first answers at once: the unique constraint lets one create the row; the
    # other waits on it and then reads it.
    now = timezone.now()
    try:
        with transaction.atomic():
            MemoryState.objects.create(user=user, item_key=item_key, due=now, last_reviewed=now, card={})
    except IntegrityError:
        pass
    return MemoryState.objects.select_for_update().get(user=user, item_key=item_key)


@transaction.atomic
def namings_absorb(*, user: Any) -> int:
    """Take the student's namings in play into their memory, oldest first; return how many.

    Play records every naming as ``games.NamingRecord`` in the action's own transaction and
    nothing more, so an action stays fast; the end of the game takes them in (a task queued
    by :func:`session_finished_receive`), and :func:`namings_absorb_sweep` every minute takes
    in those of games still running or whose task was lost. Pages only read. A naming of a
    symbol that is no longer in the library (deleted since) is skipped.
    """
    mark, _created = NamingWatermark.objects.select_for_update().get_or_create(user=user)
    namings = list(
        NamingRecord.objects.filter(user=user, pk__gt=mark.last_naming_id)
        .order_by("pk")
        .values_list("pk", "symbol_id", "correct", "created")
    )
    taken = 0
    for _pk, symbol_id, correct, created in namings:
        if symbol_id is not None:
            memory_review(
                user=user, item_key=f"symbol:{symbol_id}", correct=correct, reviewed_at=created, source="play"
            )
            taken += 1
    if namings:
        mark.last_naming_id = namings[-1][0]
        mark.save(update_fields=["last_naming_id"])
    return taken


def namings_absorb_sweep(*, user_ids: list[int] | None = None) -> int:
    """Take in the namings in play of ``user_ids`` (by default: of every student with namings
    not taken in yet), each student in a transaction of their own; how many."""
    if user_ids is None:
        taken_in = NamingWatermark.objects.filter(user=OuterRef("user"), last_naming_id__gte=OuterRef("pk"))
        user_ids = list(
            NamingRecord.objects.filter(user__isnull=False)
            .exclude(Exists(taken_in))
            .values_list("user", flat=True)
            .distinct()
        )
    return sum(namings_absorb(user=user) for user in get_user_model().objects.filter(pk__in=user_ids))


def session_finished_receive(sender: Any, *, session: Any, **kwargs: Any) -> None:
    """``games.signals.session_finished``: once the end is stored, the players' namings of the
    game go to their memory (``ProgressConfig.ready``)."""
    user_ids = list(
        NamingRecord.objects.filter(session=session, user__isnull=False)
        .values_list("user", flat=True)
        .distinct()
        .order_by("user")
    )
    if user_ids:
        # Robust: a broker that cannot take the task leaves the namings to the sweep, and
        # the end of the game stands.
        transaction.on_commit(lambda: tasks.namings_absorb_task.delay(user_ids), robust=True)
