"""The only writers of progress: one answer updates one memory state and adds one review."""

from __future__ import annotations

import re
from collections.abc import Sequence
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
    _item_key_check(item_key)
    at = reviewed_at or timezone.now()
    score = float(correct)
    state = _locked_state(user, item_key)
    _memory_apply(state, score, at)
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


def _item_key_check(item_key: str) -> None:
    if not ITEM_KEY.fullmatch(item_key):
        raise ValueError(
            f"not an item key: {item_key!r} "
            "(expected symbol:<id>, knowledge:<id>, know:<id> or question:<id>)"
        )


def _memory_apply(state: MemoryState, score: float, at: datetime) -> None:
    """One answer on the row in hand (FSRS); the caller saves it."""
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


#: The columns ``memory_review_many`` writes back: every field ``_memory_apply`` sets.
MEMORY_FIELDS = [
    "card",
    "due",
    "stability",
    "difficulty",
    "reviews",
    "correct",
    "last_reviewed",
    "last_correct",
]


@transaction.atomic
def memory_review_many(
    *,
    answers: Sequence[tuple[Any, str, bool | float]],
    reviewed_at: datetime | None = None,
    source: str = Review.Source.QUIZ,
    times: Sequence[datetime] | None = None,
) -> list[MemoryState]:
    """``memory_review`` for many answers at once, ``(user, item_key, correct)`` in order,
    all at ``reviewed_at`` or each at its own time (``times``, one per answer: the namings of
    a game, :func:`namings_absorb`).

    The states, reviews and ``memory_reviewed`` receivers' effects are those of one
    ``memory_review`` per answer in the same order, but a class's answers at the end of a
    live quiz cost a fixed handful of statements: the rows are read and locked in one
    statement (created first where an item is new) and written back in one, and
    ``memory_reviewed`` is sent once per student (``item_keys``: every item answered), so
    the LMS refreshes each student's columns once.  Returns the states changed.
    """
    for _user, item_key, _correct in answers:
        _item_key_check(item_key)
    if not answers:
        return []
    if times is not None and len(times) != len(answers):
        raise ValueError(f"{len(answers)} answers but {len(times)} times")
    at = reviewed_at or timezone.now()
    times = times if times is not None else [at] * len(answers)
    users = {user.pk: user for user, _key, _correct in answers}
    keys = {item_key for _user, item_key, _correct in answers}
    now = timezone.now()
    # Every row first (in one order, as the lock below), so one statement can lock them all;
    # a row another answer creates meanwhile is kept (the unique constraint), as
    # ``_locked_state`` does one at a time.
    MemoryState.objects.bulk_create(
        [
            MemoryState(user_id=user_pk, item_key=item_key, due=now, last_reviewed=now, card={})
            for user_pk, item_key in sorted({(user.pk, key) for user, key, _correct in answers})
        ],
        ignore_conflicts=True,
    )
    locked = (
        MemoryState.objects.select_for_update().filter(user_id__in=users, item_key__in=keys).order_by("pk")
    )
    states = {(state.user_id, state.item_key): state for state in locked}
    changed: dict[tuple[int, str], MemoryState] = {}
    reviews = []
    keys_of: dict[int, list[str]] = {}
    for (user, item_key, correct), answered_at in zip(answers, times, strict=True):
        score = float(correct)
        state = states[(user.pk, item_key)]
        _memory_apply(state, score, answered_at)
        changed[(user.pk, item_key)] = state
        reviews.append(
            Review(user=user, item_key=item_key, correct=score, reviewed_at=answered_at, source=source)
        )
        keys_of.setdefault(user.pk, []).append(item_key)
    # Written back as one upsert of rows that all exist and are locked: Django's
    # ``bulk_update`` builds a CASE per field and row, seconds of Python for a class.
    MemoryState.objects.bulk_create(
        list(changed.values()),
        update_conflicts=True,
        unique_fields=["user", "item_key"],
        update_fields=MEMORY_FIELDS,
    )
    Review.objects.bulk_create(reviews)
    for user_pk, item_keys in keys_of.items():
        memory_reviewed.send(
            sender=MemoryState, user=users[user_pk], item_key=item_keys[-1], item_keys=item_keys
        )
    return list(changed.values())


def items_answered_receive(
    sender: Any,
    *,
    answers: Sequence[tuple[Any, str, bool | float]],
    reviewed_at: datetime | None,
    source: str,
    **kwargs: Any,
) -> None:
    """``games.signals.items_answered``: a class's answers at once (``ProgressConfig.ready``)."""
    memory_review_many(answers=answers, reviewed_at=reviewed_at, source=source)


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

    All at once (:func:`memory_review_many`, each naming at its own time): a handful of
    statements however many namings a game gave, so the transaction is short. On SQLite (the
    embedded mode) it holds the one write lock, which a live game's actions wait for.
    """
    mark, _created = NamingWatermark.objects.select_for_update().get_or_create(user=user)
    namings = list(
        NamingRecord.objects.filter(user=user, pk__gt=mark.last_naming_id)
        .order_by("pk")
        .values_list("pk", "symbol_id", "correct", "created")
    )
    linked = [(symbol_id, correct, created) for _pk, symbol_id, correct, created in namings if symbol_id]
    memory_review_many(
        answers=[(user, f"symbol:{symbol_id}", correct) for symbol_id, correct, _created in linked],
        times=[created for _symbol_id, _correct, created in linked],
        source="play",
    )
    taken = len(linked)
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
