"""From an answer to the next review: FSRS, the Free Spaced Repetition Scheduler.

Talia does not invent a formula: the ``fsrs`` package schedules every item. What Talia
decides is how an answer becomes an FSRS rating:

* fully right (``correct`` is ``True`` or 1.0) → ``Good``;
* partly right (partial credit of at least one half, e.g. two of three periods) → ``Hard``;
* otherwise (wrong, "I don't know", less than half) → ``Again``.

``Easy`` is never given: a quiz cannot tell an easy recall from a good one.

Mastery of an item is its FSRS retrievability one day from now: the probability that
the student would recall it tomorrow. (Retrievability *now* is 100 % right after any
answer, even a wrong one; a day ahead separates a fragile memory from a firm one.) An
item counts as *known* at 0.9 or more (the scheduler's desired retention), and as *due*
when its review date has come.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler

#: The probability of recall the scheduler aims for; also the "known" threshold.
DESIRED_RETENTION = 0.9

#: How far ahead mastery looks (see the module docstring).
MASTERY_HORIZON = timedelta(days=1)

# No fuzzing: the same answers at the same times give the same schedule (tests, replays).
_SCHEDULER = Scheduler(desired_retention=DESIRED_RETENTION, enable_fuzzing=False)


def rating_for(correct: bool | float) -> Rating:
    """The FSRS rating of one answer (see the module docstring).

    >>> rating_for(True).name, rating_for(0.5).name, rating_for(0.0).name
    ('Good', 'Hard', 'Again')
    """
    score = float(correct)
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"correct must be a bool or a fraction in [0, 1], not {correct!r}")
    if score >= 1.0:
        return Rating.Good
    if score >= 0.5:
        return Rating.Hard
    return Rating.Again


@dataclass(frozen=True)
class Memory:
    """One item's memory after a review: what the database row keeps."""

    card: dict[str, Any]
    due: datetime
    stability: float
    difficulty: float


def review(card: dict[str, Any] | None, correct: bool | float, at: datetime) -> Memory:
    """Apply one answer at time ``at`` to a stored FSRS card (``None`` for a new item)."""
    current = Card.from_dict(card) if card else Card(card_id=1)
    if current.last_review and at < current.last_review:
        # An answer recorded late (a naming taken in after a quiz answer): FSRS needs
        # time to move forward, so it counts as given at the last review.
        at = current.last_review
    updated, _log = _SCHEDULER.review_card(current, rating_for(correct), review_datetime=at)
    return Memory(
        card=updated.to_dict(),
        due=updated.due,
        stability=float(updated.stability or 0.0),
        difficulty=float(updated.difficulty or 0.0),
    )


def retrievability(card: dict[str, Any] | None, now: datetime) -> float:
    """The probability of recalling the item at ``now`` (0.0 for an item never reviewed)."""
    if not card:
        return 0.0
    return float(_SCHEDULER.get_card_retrievability(Card.from_dict(card), current_datetime=now))


def mastery(card: dict[str, Any] | None, now: datetime) -> float:
    """The item's mastery: the probability of recalling it a day after ``now``."""
    return retrievability(card, now + MASTERY_HORIZON)
