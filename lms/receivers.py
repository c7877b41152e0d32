"""What ``lms`` does when the games report (``games/signals.py``): the gradebook follows.

Connected in ``LmsConfig.ready``; progress connects its own in ``ProgressConfig.ready``.
"""

from __future__ import annotations

from typing import Any

from games import signals

from . import grading


def _quiz_attempt_graded(sender: Any, *, attempt: Any, **kwargs: Any) -> None:
    grading.submission_graded(quiz_attempt=attempt)


def _practice_run_finished(sender: Any, *, run: Any, **kwargs: Any) -> None:
    grading.submission_graded(practice_run=run)


def _knowledge_game_finished(sender: Any, *, session: Any, **kwargs: Any) -> None:
    grading.game_session_finished(session=session)


def receivers_connect() -> None:
    signals.quiz_attempt_graded.connect(_quiz_attempt_graded, dispatch_uid="lms.quiz_attempt_graded")
    signals.practice_run_finished.connect(_practice_run_finished, dispatch_uid="lms.practice_run_finished")
    signals.knowledge_game_finished.connect(
        _knowledge_game_finished, dispatch_uid="lms.knowledge_game_finished"
    )
