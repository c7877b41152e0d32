"""Review now: a student's own due and weakest items become a short quiz, graded into progress."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from games.quiz import services as quizzes
from games.quiz.models import Quiz, QuizAttempt
from lms.progress.models import MemoryState
from lms.progress.services import memory_review
from tests.factories import SymbolFactory
from tests.games.test_sessions import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def library() -> list[Any]:
    return [SymbolFactory(name=f"Symbol {word}", picture=f"symbols/{word}.png") for word in "ABCDEFGH"]


def test_review_quiz_asks_only_about_the_items_given(student: Any, library: list[Any]) -> None:
    due = [f"symbol:{library[0].pk}", f"symbol:{library[1].pk}"]
    quiz = quizzes.review_quiz_create(student=student, item_keys=due)
    assert quiz.status == Quiz.Status.PUBLISHED and quiz.student == student and quiz.source == "review"
    subjects = {subject for item in quiz.items.all() for subject in item.as_engine_item().subjects}
    assert subjects == set(due)


def test_review_quiz_with_nothing_to_review_is_refused(student: Any, library: list[Any]) -> None:
    with pytest.raises(quizzes.QuizError, match="Nothing to review"):
        quizzes.review_quiz_create(student=student, item_keys=[])
    assert not Quiz.objects.exists()


def test_review_now_starts_an_attempt_on_my_due_items(student: Any, library: list[Any]) -> None:
    memory_review(
        user=student,
        item_key=f"symbol:{library[2].pk}",
        correct=False,
        reviewed_at=timezone.now() - timedelta(days=1),
    )
    response = signed_in(student).post(reverse("progress:review"))
    attempt = QuizAttempt.objects.get(student=student)
    assert response.status_code == 302 and response["Location"] == reverse("quiz:attempt", args=[attempt.pk])
    subjects = {subject for item in attempt.quiz.items.all() for subject in item.as_engine_item().subjects}
    assert subjects == {f"symbol:{library[2].pk}"}


def test_review_now_without_answers_explains_and_changes_nothing(student: Any, library: list[Any]) -> None:
    response = signed_in(student).post(reverse("progress:review"), follow=True)
    assert "Nothing to review yet" in response.content.decode()
    assert not Quiz.objects.exists()


def test_a_graded_review_updates_my_memory(student: Any, library: list[Any]) -> None:
    key = f"symbol:{library[3].pk}"
    memory_review(user=student, item_key=key, correct=False, reviewed_at=timezone.now() - timedelta(days=1))
    quiz = quizzes.review_quiz_create(student=student, item_keys=[key])
    attempt = quizzes.attempt_start(quiz=quiz, student=student)
    quizzes.attempt_submit(attempt=attempt)
    assert MemoryState.objects.get(user=student, item_key=key).reviews == 2


def test_review_now_needs_post(student: Any) -> None:
    assert signed_in(student).get(reverse("progress:review")).status_code == 405
