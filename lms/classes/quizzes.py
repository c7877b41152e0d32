"""The quiz engine as homework sees it: find quizzes, start an attempt, read its score.

Quizzes live in ``games.quiz`` (``Quiz``, ``QuizAttempt``; services ``attempt_start``,
``attempt_grade``, ``attempts_grade_overdue``). Everything homework needs from them goes
through this module, so the rest of ``lms`` names no quiz internals.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.apps import apps
from django.db.models import QuerySet
from django.urls import reverse

from content.models import BuildState
from content.permissions import teaching_rows
from games.quiz import services as quiz_services
from lms.progress import selectors as progress
from lms.progress import services as memory


def available() -> bool:
    """Whether the quiz app is installed (its models can be assigned)."""
    return apps.is_installed("games.quiz")


def quiz_model() -> Any:
    return apps.get_model("quiz", "Quiz")


def quizzes_assignable_by(user: Any) -> QuerySet[Any]:
    """The quizzes ``user`` may set as homework: built and published, for everyone, and
    theirs or the owner's of a class they co-teach (``teaching_rows``)."""
    published = quiz_model().objects.filter(status="published", state=BuildState.DONE, student__isnull=True)
    return teaching_rows(user, published).order_by("-pk")


def attempt_start(
    *, quiz: Any, student: Any, deadline: datetime | None, time_limit_minutes: int | None
) -> Any:
    """A new attempt of ``student`` at ``quiz``, refused by the quiz engine after ``deadline``."""
    time_limit = timedelta(minutes=time_limit_minutes) if time_limit_minutes else None
    return quiz_services.attempt_start(quiz=quiz, student=student, deadline=deadline, time_limit=time_limit)


def review_quiz_create(*, student: Any, teacher: Any) -> Any:
    """Assign review: a quiz of ``student``'s own due and weakest items, owned by ``teacher``."""
    memory.namings_absorb(user=student)
    keys = progress.review_keys(student, limit=quiz_services.REVIEW_ITEMS)
    return quiz_services.review_quiz_create(student=student, item_keys=keys, owner=teacher)


def attempts_grade_overdue(*, now: datetime, attempt_ids: QuerySet[Any] | None = None) -> int:
    """Grade every attempt whose deadline or time limit has passed (each one reports back);
    how many. ``attempt_ids`` (a query of attempt primary keys) narrows it down."""
    services = quiz_services
    scope = None
    if attempt_ids is not None:
        scope = apps.get_model("quiz", "QuizAttempt").objects.filter(pk__in=attempt_ids)
    return int(services.attempts_grade_overdue(now, attempts=scope))


def attempt_fraction(attempt: Any) -> Decimal:
    """The share of the attempt's points that the student earned, 0 to 1."""
    score = Decimal(str(attempt.score or 0))
    maximum = Decimal(str(attempt.max_score or 0))
    if maximum <= 0:
        return Decimal(0)
    return max(Decimal(0), min(Decimal(1), score / maximum))


def attempt_url(attempt: Any) -> str:
    """Where the student takes (or resumes) ``attempt``."""
    return reverse("quiz:attempt", args=[attempt.pk])
