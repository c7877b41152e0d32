"""Background generation of quizzes: a task loads its rows and calls one service.

The service records a pool too small as FAILED with its reason; a task only guards
against what escapes it (a lost connection, a bug), so the teacher's page never waits
for ever. ``acks_late``: a worker dying mid-way leaves the message for the next one, and
a quiz already generated is left alone.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from . import services
from .models import Quiz

__all__ = ["quiz_generate_task", "quizzes_generate_task"]

logger = logging.getLogger(__name__)

UNEXPECTED = (
    "Talia hit an unexpected error while generating the quiz. "
    "Try again, and tell an admin if it happens again."
)


def _generate(quiz_id: int, plan_cache: dict[str, Any] | None = None) -> None:
    quiz = Quiz.objects.filter(pk=quiz_id).first()
    if quiz is None:
        logger.info("Quiz %s is gone; nothing to generate.", quiz_id)
        return
    try:
        services.quiz_generate(quiz=quiz, plan_cache=plan_cache)
    except Exception:
        logger.exception("Quiz %s: generation failed", quiz_id)
        services.quiz_fail(quiz_id=quiz_id, message=UNEXPECTED)


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=120, time_limit=180)
def quiz_generate_task(quiz_id: int) -> None:
    """Generate one quiz's items (``services.quiz_generate``)."""
    _generate(quiz_id)


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=600, time_limit=660)
def quizzes_generate_task(quiz_ids: list[int]) -> None:
    """Generate many quizzes (one per student) in one run, sharing the share-out of a pool."""
    plan_cache: dict[str, Any] = {}
    for quiz_id in quiz_ids:
        _generate(quiz_id, plan_cache)
