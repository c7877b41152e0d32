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


# --- Know questions among the items due ------------------------------------------------------------


def know_question(teacher: Any, text: str, answers: list[str]) -> Any:
    from content.models import KnowQuestion

    return KnowQuestion.objects.create(text=text, answers=answers, owner=teacher)


def due_yesterday(student: Any, key: str) -> None:
    memory_review(user=student, item_key=key, correct=False, reviewed_at=timezone.now() - timedelta(days=1))


def test_review_now_asks_my_due_know_questions_and_marks_a_matching_answer(
    student: Any, teacher: Any, library: list[Any]
) -> None:
    question = know_question(teacher, "Kto dowodził w 1920?", ["Józef Piłsudski", "Piłsudski"])
    due_yesterday(student, f"know:{question.pk}")
    response = signed_in(student).post(reverse("progress:review"))
    attempt = QuizAttempt.objects.get(student=student)
    assert response["Location"] == reverse("quiz:attempt", args=[attempt.pk])
    item = attempt.quiz.items.get()
    assert item.kind == "know" and item.as_engine_item().subjects == (f"know:{question.pk}",)
    assert "Piłsudski" not in signed_in(student).get(response["Location"]).content.decode()
    graded = quizzes.attempt_submit(attempt=attempt, answers={item.pk: {"text": "jozef pilsudski"}})
    assert graded.status == "graded" and graded.score == graded.max_score
    assert MemoryState.objects.get(user=student, item_key=f"know:{question.pk}").reviews == 2


def test_in_review_now_a_know_answer_off_the_accepted_ones_is_wrong_not_left_waiting(
    student: Any, teacher: Any
) -> None:
    question = know_question(teacher, "Gdzie podpisano porozumienia?", ["w Stoczni Gdańskiej"])
    quiz = quizzes.review_quiz_create(student=student, item_keys=[f"know:{question.pk}"])
    attempt = quizzes.attempt_start(quiz=quiz, student=student)
    graded = quizzes.attempt_submit(attempt=attempt, answers={quiz.items.get().pk: {"text": "w Warszawie"}})
    assert graded.status == "graded" and graded.score == 0  # no teacher marks a review I asked for
    state = MemoryState.objects.get(user=student, item_key=f"know:{question.pk}")
    assert state.reviews == 1 and state.correct == 0


def test_review_now_leaves_out_know_questions_nobody_can_mark_and_says_why(
    student: Any, teacher: Any
) -> None:
    question = know_question(teacher, "Co było potem?", [])
    due_yesterday(student, f"know:{question.pk}")
    response = signed_in(student).post(reverse("progress:review"), follow=True)
    assert "Know questions without accepted answers" in response.content.decode()
    assert not Quiz.objects.exists()


def test_assigned_review_queues_an_unmatched_know_answer_for_the_teacher(
    student: Any, teacher: Any, library: list[Any]
) -> None:
    from games.quiz import selectors

    question = know_question(teacher, "Kto?", [])
    quiz = quizzes.review_quiz_create(
        student=student, item_keys=[f"know:{question.pk}", f"symbol:{library[0].pk}"], owner=teacher
    )
    know_item = quiz.items.get(kind="know")
    attempt = quizzes.attempt_start(quiz=quiz, student=student)
    graded = quizzes.attempt_submit(attempt=attempt, answers={know_item.pk: {"text": "Marszałek"}})
    assert graded.status == "marking"
    assert selectors.responses_to_mark(quiz).get().item == know_item
