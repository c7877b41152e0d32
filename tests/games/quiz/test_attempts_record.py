"""A class's attempts recorded at once (``services.attempts_record``, the end of a live quiz):
the same attempts, responses, grades, memory states and signals as ``attempt_start`` then
``attempt_submit`` for each student, in statements that do not grow with the answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.quiz import services
from games.quiz.models import Quiz, QuizAttempt, QuizItem, QuizResponse
from games.quiz.services import QuizError
from lms.progress.models import MemoryState, Review
from lms.progress.services import MEMORY_FIELDS, memory_review
from tests.factories import UserFactory

from .test_services import right_answer

pytestmark = pytest.mark.django_db

RESPONSE_FIELDS = (
    "answer",
    "saved_at",
    "first_answered_at",
    "score",
    "needs_marking",
    "teacher_mark",
    "feedback",
    "reviewed",
)
ATTEMPT_FIELDS = ("started_at", "deadline", "submitted_at", "graded_at", "score", "max_score", "status")


def wrong_answer(item: QuizItem) -> dict[str, Any] | None:
    options = [option["id"] for option in item.prompt.get("options") or [] if isinstance(option, dict)]
    wrong = [option for option in options if option != right_answer(item).get("choice")]
    return {"choice": wrong[0]} if wrong and "choice" in right_answer(item) else None


def answers_for(quiz: Quiz, n: int) -> dict[int, Any]:
    """Student ``n``'s answers: some right, some wrong, some cleared, some missing."""
    answers: dict[int, Any] = {}
    for index, item in enumerate(quiz.items.order_by("position")):
        way = (index + n) % 4
        if way == 0:
            answers[item.pk] = right_answer(item)
        elif way == 1 and wrong_answer(item) is not None:
            answers[item.pk] = wrong_answer(item)
        elif way == 2:
            answers[item.pk] = {key: "" for key in right_answer(item)} if "text" in right_answer(item) else {}
    return answers


def one_at_a_time(quiz: Quiz, students: list[Any], now: Any) -> list[QuizAttempt]:
    attempts = []
    for n, student in enumerate(students):
        attempt = services.attempt_start(quiz=quiz, student=student, now=now)
        attempts.append(services.attempt_submit(attempt=attempt, answers=answers_for(quiz, n), now=now))
    return attempts


def at_once(quiz: Quiz, students: list[Any], now: Any) -> list[QuizAttempt]:
    return services.attempts_record(
        quiz=quiz, answers_of=[(student, answers_for(quiz, n)) for n, student in enumerate(students)], now=now
    )


def remembered_before(students: list[Any], quiz: Quiz, earlier: Any) -> None:
    """Each student has answered some of the quiz's subjects before: not every review is a first."""
    keys = sorted({key for item in quiz.items.all() for key in item.key.get("subjects", []) if ":" in key})
    for n, student in enumerate(students):
        for key in keys[n % 3 :: 3]:
            memory_review(user=student, item_key=key, correct=n % 2 == 0, reviewed_at=earlier)


def results(attempt: QuizAttempt) -> dict[str, Any]:
    attempt.refresh_from_db()
    return {
        "attempt": {field: getattr(attempt, field) for field in ATTEMPT_FIELDS},
        "responses": {
            response.item_id: {field: getattr(response, field) for field in RESPONSE_FIELDS}
            for response in QuizResponse.objects.filter(attempt=attempt)
        },
        "memory": {
            state.item_key: {field: getattr(state, field) for field in MEMORY_FIELDS}
            for state in MemoryState.objects.filter(user=attempt.student_id)
        },
        "reviews": list(
            Review.objects.filter(user=attempt.student_id)
            .order_by("pk")
            .values_list("item_key", "correct", "reviewed_at", "source")
        ),
    }


def test_recording_at_once_gives_the_same_attempts_responses_grades_and_memories_as_one_at_a_time(
    published_quiz, graded_reports
):
    now = timezone.now()
    alone, together = UserFactory.create_batch(4), UserFactory.create_batch(4)
    remembered_before(alone, published_quiz, now - timezone.timedelta(days=3))
    remembered_before(together, published_quiz, now - timezone.timedelta(days=3))
    expected = one_at_a_time(published_quiz, alone, now)
    graded_alone = [attempt.student_id for attempt in graded_reports]
    got = at_once(published_quiz, together, now)
    assert [attempt.student_id for attempt in graded_reports[len(graded_alone) :]] == [s.pk for s in together]
    compared = 0
    for before, after in zip(expected, got, strict=True):
        want, have = results(before), results(after)
        assert have == want
        compared += len(want["memory"]) + len(want["responses"])
    assert compared > 4 * published_quiz.items.count()  # memories were compared, not only responses
    assert {attempt.score for attempt in got} != {0.0}  # some right, some wrong


def test_a_know_answer_off_the_best_waits_for_the_teacher_in_both_paths(know_quiz, reviews, graded_reports):
    now = timezone.now()
    by_text = {item.prompt["text"]: item.pk for item in know_quiz.items.all()}
    answers = {by_text["Kto dowodził?"]: {"text": "pilsudski"}, by_text["Gdzie?"]: {"text": "W Warszawie"}}
    alone, together = UserFactory(), UserFactory()
    attempt = services.attempt_submit(
        attempt=services.attempt_start(quiz=know_quiz, student=alone, now=now), answers=answers, now=now
    )
    [recorded] = services.attempts_record(quiz=know_quiz, answers_of=[(together, answers)], now=now)
    assert recorded.status == attempt.status == QuizAttempt.Status.MARKING
    assert graded_reports == []
    assert results(recorded)["responses"].values() != []
    assert list(results(recorded)["responses"].values()) == list(results(attempt)["responses"].values())
    assert [call["item_key"] for call in reviews] == ["know:7"]  # the one-at-a-time path's
    assert list(Review.objects.filter(user=together).values_list("item_key", flat=True)) == ["know:7"]


def test_a_bad_answer_refuses_the_whole_class_and_writes_nothing(published_quiz):
    item = published_quiz.items.exclude(kind__in=["picture_name_typed", "know"]).first()
    bad = {"choice": "zz", "choices": ["zz"], "groups": {"zz": "q"}}
    students = UserFactory.create_batch(2)
    with pytest.raises(QuizError) as refused:
        services.attempts_record(
            quiz=published_quiz,
            answers_of=[(students[0], {item.pk: right_answer(item)}), (students[1], {item.pk: bad})],
        )
    assert refused.value.code == "bad_answer"
    with pytest.raises(QuizError) as refused:
        services.attempts_record(quiz=published_quiz, answers_of=[(students[0], {-1: {}})])
    assert refused.value.code == "bad_item"
    assert not QuizAttempt.objects.exists() and not MemoryState.objects.exists()


def test_a_draft_quiz_records_no_attempt(built_quiz):
    with pytest.raises(QuizError) as refused:
        services.attempts_record(quiz=built_quiz, answers_of=[(UserFactory(), {})])
    assert refused.value.code == "not_published"
    assert not QuizAttempt.objects.exists()


def statements(quiz: Quiz, students: int) -> int:
    class_ = UserFactory.create_batch(students)
    remembered_before(class_, quiz, timezone.now() - timezone.timedelta(days=1))
    answers_of = [(student, answers_for(quiz, n)) for n, student in enumerate(class_)]
    with CaptureQueriesContext(connection) as queries:
        services.attempts_record(quiz=quiz, answers_of=answers_of)
    return len(queries)


def test_recording_a_class_costs_statements_that_do_not_grow_with_the_answers(published_quiz):
    items = published_quiz.items.count()
    two, six = statements(published_quiz, 2), statements(published_quiz, 6)
    # Four more students answer 4 × items more items: at most 3 statements more a student
    # (the homework gradebook's look-up of each attempt, in its savepoint), none more an answer.
    assert six - two <= 3 * 4
    assert six < 40, six
    assert items >= 10
