"""Assign review: adaptive homework where each student's quiz comes from their own memory."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.quiz import services as quizzes
from lms.classes import services
from lms.classes.errors import ClassError
from lms.models import Assignment, Grade
from lms.progress.services import memory_review
from tests.factories import SymbolFactory, UserFactory
from tests.lms.factories_classes import class_with_students

pytestmark = pytest.mark.django_db


@pytest.fixture
def library() -> list[Any]:
    return [SymbolFactory(name=f"Symbol {word}", picture=f"symbols/{word}.png") for word in "ABCDEFGH"]


def review_homework(school_class: Any) -> Assignment:
    return services.assignment_create(
        school_class=school_class,
        by=school_class.teacher,
        title="Powtórka",
        kind=Assignment.Kind.REVIEW,
        max_attempts=2,
        points_possible=10,
        publish=True,
    )


def subjects_of(submission: Any) -> set[str]:
    items = submission.quiz_attempt.quiz.items.all()
    return {subject for item in items for subject in item.as_engine_item().subjects}


def test_each_student_gets_a_quiz_of_their_own_due_items(
    teacher: Any, student: Any, library: list[Any]
) -> None:
    other = UserFactory()
    school_class = class_with_students(teacher, student, other)
    yesterday = timezone.now() - timedelta(days=1)
    memory_review(user=student, item_key=f"symbol:{library[0].pk}", correct=False, reviewed_at=yesterday)
    memory_review(user=other, item_key=f"symbol:{library[5].pk}", correct=False, reviewed_at=yesterday)
    homework = review_homework(school_class)

    mine = services.submission_start(assignment=homework, student=student)
    theirs = services.submission_start(assignment=homework, student=other)

    assert subjects_of(mine) == {f"symbol:{library[0].pk}"}
    assert subjects_of(theirs) == {f"symbol:{library[5].pk}"}
    assert mine.quiz_attempt.quiz.student == student and mine.quiz_attempt.quiz.owner == teacher


def test_a_graded_review_counts_in_the_gradebook(teacher: Any, student: Any, library: list[Any]) -> None:
    school_class = class_with_students(teacher, student)
    memory_review(user=student, item_key=f"symbol:{library[1].pk}", correct=False)
    submission = services.submission_start(assignment=review_homework(school_class), student=student)
    quizzes.attempt_submit(attempt=submission.quiz_attempt)
    grade = Grade.objects.get(student=student)
    assert grade.max_score == 10 and grade.score == 0


def test_a_student_with_nothing_to_review_is_told_and_nothing_is_started(teacher: Any, student: Any) -> None:
    school_class = class_with_students(teacher, student)
    homework = review_homework(school_class)
    with pytest.raises(ClassError, match="Nothing to review"):
        services.submission_start(assignment=homework, student=student)
    assert not homework.submissions.exists()
