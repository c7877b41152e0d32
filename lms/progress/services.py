"""The only writers of progress: one answer updates one memory state and adds one review."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.models import NamingRecord

from . import memory
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
    nothing more, so an action stays fast; progress reads call this first. A naming of a
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
