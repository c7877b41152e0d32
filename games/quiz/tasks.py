"""Background generation of quizzes: a task loads its rows and calls one service.

The service records a pool too small as FAILED with its reason; a task only guards
against what escapes it (a lost connection, a bug), so the teacher's page never waits
for ever. ``acks_late``: a worker dying mid-way leaves the message for the next one, and
a quiz already generated is left alone. While a task works its heartbeat keeps the
quiz's ``updated`` fresh (``content.jobs``); the beat sweep fails a quiz whose heartbeat
stopped, and its page offers "Try again".
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.utils.translation import gettext_noop

from content import jobs

from . import services
from .models import Quiz

__all__ = ["quiz_generate_task", "quizzes_generate_task", "quizzes_sweep_task"]

logger = logging.getLogger(__name__)

#: Stored in English and translated where it is shown (``{% translate quiz.message %}``).
UNEXPECTED = gettext_noop(
    "Talia hit an unexpected error while generating the quiz. "
    "Try again, and tell an admin if it happens again."
)


def _generate(task: Any, quiz_id: int, plan_cache: dict[str, Any] | None = None) -> None:
    quiz = Quiz.objects.filter(pk=quiz_id).first()
    if quiz is None:
        logger.info("Quiz %s is gone; nothing to generate.", quiz_id)
        return
    try:
        with jobs.task_heartbeat(task, Quiz, quiz_id):
            services.quiz_generate(quiz=quiz, plan_cache=plan_cache)
    except Exception:
        logger.exception("Quiz %s: generation failed", quiz_id)
        services.quiz_fail(quiz_id=quiz_id, message=UNEXPECTED)


@shared_task(bind=True, acks_late=True, ignore_result=True, soft_time_limit=120, time_limit=180)
def quiz_generate_task(self, quiz_id: int) -> None:  # type: ignore[no-untyped-def]
    """Generate one quiz's items (``services.quiz_generate``)."""
    _generate(self, quiz_id)


@shared_task(bind=True, acks_late=True, ignore_result=True, soft_time_limit=600, time_limit=660)
def quizzes_generate_task(self, quiz_ids: list[int]) -> None:  # type: ignore[no-untyped-def]
    """Generate many quizzes (one per student) in one run, sharing the share-out of a pool."""
    plan_cache: dict[str, Any] = {}
    for quiz_id in quiz_ids:
        _generate(self, quiz_id, plan_cache)


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=60, time_limit=90)
def quizzes_sweep_task() -> None:
    """From beat: fail the quizzes whose worker died while generating them, for "Try again";
    queue again the ones waiting too long (the rest of a batch whose worker died)."""
    failed = services.quizzes_sweep()
    if failed:
        logger.warning("Quiz sweep: %s quiz(zes) lost their worker and were marked failed", failed)
    sent = services.quizzes_requeue()
    if sent:
        logger.warning("Quiz sweep: %s quiz(zes) waiting too long were sent to the queue again", sent)
