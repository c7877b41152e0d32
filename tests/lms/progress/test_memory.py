"""Spaced repetition: every answer updates the student's FSRS memory of the item."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from lms.progress import memory
from lms.progress.models import MemoryState, Review
from lms.progress.services import MEMORY_FIELDS, memory_review, memory_review_many, namings_absorb
from lms.progress.services import memory_review as review_service
from lms.progress.signals import memory_reviewed
from tests.factories import SymbolFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_rating_right_is_good_partial_is_hard_wrong_is_again() -> None:
    assert memory.rating_for(True).name == "Good"
    assert memory.rating_for(1.0).name == "Good"
    assert memory.rating_for(0.5).name == "Hard"
    assert memory.rating_for(0.49).name == "Again"
    assert memory.rating_for(False).name == "Again"


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_rating_refuses_scores_outside_zero_to_one(bad: float) -> None:
    with pytest.raises(ValueError, match="fraction"):
        memory.rating_for(bad)


def test_a_right_answer_schedules_a_later_review_than_a_wrong_one(student: Any) -> None:
    other = UserFactory()
    at = timezone.now()
    right = review_service(user=student, item_key="symbol:1", correct=True, reviewed_at=at)
    wrong = review_service(user=other, item_key="symbol:1", correct=False, reviewed_at=at)
    assert right.due > wrong.due > at - timedelta(seconds=1)


def test_reviews_grow_the_interval_when_the_item_is_remembered(student: Any) -> None:
    at = timezone.now()
    first = review_service(user=student, item_key="symbol:5", correct=True, reviewed_at=at)
    gap1 = first.due - at
    second = review_service(user=student, item_key="symbol:5", correct=True, reviewed_at=first.due)
    third = review_service(user=student, item_key="symbol:5", correct=True, reviewed_at=second.due)
    assert third.due - second.due > gap1
    state = MemoryState.objects.get(user=student, item_key="symbol:5")
    assert state.reviews == 3 and state.correct == 3.0
    assert Review.objects.filter(user=student).count() == 3


def test_partial_credit_counts_as_a_fraction(student: Any) -> None:
    review_service(user=student, item_key="symbol:9", correct=0.5)
    review_service(user=student, item_key="symbol:9", correct=1.0)
    state = MemoryState.objects.get(user=student, item_key="symbol:9")
    assert state.correct == 1.5 and state.wrong == 0.5 and state.last_correct == 1.0


def test_memory_states_are_per_student_and_item(student: Any) -> None:
    other = UserFactory()
    memory_review(user=student, item_key="symbol:1", correct=True)
    memory_review(user=student, item_key="knowledge:1", correct=False)
    memory_review(user=other, item_key="symbol:1", correct=False)
    assert MemoryState.objects.filter(user=student).count() == 2
    assert MemoryState.objects.filter(user=other).count() == 1


@pytest.mark.parametrize("key", ["symbol:", "symbol:0", "picture:3", "symbol:3; drop", ""])
def test_a_malformed_item_key_is_refused_and_nothing_is_written(student: Any, key: str) -> None:
    with pytest.raises(ValueError, match="item key"):
        memory_review(user=student, item_key=key, correct=True)
    assert not MemoryState.objects.exists() and not Review.objects.exists()


def test_same_answers_at_same_times_give_the_same_schedule(student: Any) -> None:
    other = UserFactory()
    at = timezone.now()
    for user in (student, other):
        review_service(user=user, item_key="symbol:2", correct=True, reviewed_at=at)
        review_service(user=user, item_key="symbol:2", correct=False, reviewed_at=at + timedelta(days=2))
    a, b = (MemoryState.objects.get(user=u, item_key="symbol:2") for u in (student, other))
    assert a.due == b.due and a.stability == b.stability


def test_namings_in_play_are_taken_in_once_oldest_first(student: Any, teacher: Any) -> None:
    from games.models import NamingRecord
    from tests.games.test_sessions import create_session

    right, wrong = SymbolFactory(), SymbolFactory()
    session = create_session(teacher, seed=3)
    common = {"session": session, "user": student, "symbol_key": "k", "symbol_name": "n", "dont_know": False}
    NamingRecord.objects.create(action_index=1, symbol=right, correct=True, **common)
    NamingRecord.objects.create(action_index=2, symbol=wrong, correct=False, **common)
    NamingRecord.objects.create(action_index=3, symbol=None, correct=True, **common)  # deleted since
    NamingRecord.objects.create(action_index=4, symbol=right, correct=True, **{**common, "user": teacher})

    assert namings_absorb(user=student) == 2
    assert namings_absorb(user=student) == 0  # the watermark remembers
    assert set(MemoryState.objects.filter(user=student).values_list("item_key", flat=True)) == {
        f"symbol:{right.pk}",
        f"symbol:{wrong.pk}",
    }
    assert set(Review.objects.filter(user=student).values_list("source", flat=True)) == {"play"}
    NamingRecord.objects.create(action_index=5, symbol=right, correct=False, **common)
    assert namings_absorb(user=student) == 1
    assert MemoryState.objects.get(user=student, item_key=f"symbol:{right.pk}").reviews == 2


def memories(user: Any) -> dict[str, Any]:
    return {
        state.item_key: {field: getattr(state, field) for field in MEMORY_FIELDS}
        for state in MemoryState.objects.filter(user=user)
    }


def history(user: Any) -> list[Any]:
    return list(
        Review.objects.filter(user=user)
        .order_by("pk")
        .values_list("item_key", "correct", "reviewed_at", "source")
    )


def test_many_answers_at_once_leave_the_same_memories_and_reviews_as_one_at_a_time() -> None:
    earlier = timezone.now() - timedelta(days=2)
    at = timezone.now()
    alone, together = UserFactory.create_batch(2), UserFactory.create_batch(2)
    script = [
        (0, "symbol:1", True),
        (1, "symbol:1", 0.5),
        (0, "knowledge:2", 0.0),
        (0, "symbol:1", False),  # the same item twice in one go: the second builds on the first
        (1, "question:3", 1.0),
    ]
    for users in (alone, together):
        memory_review(user=users[0], item_key="symbol:1", correct=True, reviewed_at=earlier)
    for n, key, correct in script:
        memory_review(user=alone[n], item_key=key, correct=correct, reviewed_at=at)
    memory_review_many(answers=[(together[n], key, correct) for n, key, correct in script], reviewed_at=at)
    for one, many in zip(alone, together, strict=True):
        assert memories(many) == memories(one) and memories(one)
        assert history(many) == history(one)


def test_many_answers_each_at_its_own_time_leave_the_same_as_one_at_a_time() -> None:
    """A game's namings are taken in at once, each at the time it was given (``times``)."""
    start = timezone.now() - timedelta(days=3)
    script = [("symbol:1", True), ("symbol:2", False), ("symbol:1", False), ("symbol:1", True)]
    times = [start + timedelta(hours=5 * n) for n in range(len(script))]
    alone, together = UserFactory(), UserFactory()
    for (key, correct), at in zip(script, times, strict=True):
        memory_review(user=alone, item_key=key, correct=correct, reviewed_at=at, source="play")
    memory_review_many(
        answers=[(together, key, correct) for key, correct in script], times=times, source="play"
    )

    assert memories(together) == memories(alone) and memories(alone)
    assert history(together) == history(alone)
    assert [row[2] for row in history(together)] == times


def test_many_answers_with_a_time_missing_are_refused_and_write_nothing() -> None:
    student = UserFactory()
    with pytest.raises(ValueError):
        memory_review_many(
            answers=[(student, "symbol:1", True), (student, "symbol:2", True)], times=[timezone.now()]
        )
    assert not MemoryState.objects.exists() and not Review.objects.exists()


def test_many_answers_tell_the_lms_once_per_student(django_capture_on_commit_callbacks: Any) -> None:
    told: list[tuple[int, list[str]]] = []

    def record(sender: Any, *, user: Any, item_keys: list[str] | None = None, **kwargs: Any) -> None:
        told.append((user.pk, item_keys or []))

    students = UserFactory.create_batch(3)
    memory_reviewed.connect(record, dispatch_uid="test.memory_reviewed")
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            memory_review_many(
                answers=[(student, f"symbol:{n}", True) for student in students for n in range(1, 6)]
            )
    finally:
        memory_reviewed.disconnect(dispatch_uid="test.memory_reviewed")
    assert told == [(student.pk, [f"symbol:{n}" for n in range(1, 6)]) for student in students]
    assert len(callbacks) == 3  # the progress columns' refresh: one a student, not one an answer


def test_a_malformed_item_key_among_many_refuses_them_all_and_writes_nothing() -> None:
    student = UserFactory()
    with pytest.raises(ValueError):
        memory_review_many(answers=[(student, "symbol:1", True), (student, "symbol:x", True)])
    assert not MemoryState.objects.exists() and not Review.objects.exists()
