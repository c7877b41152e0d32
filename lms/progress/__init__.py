"""Progress: every answer, in a quiz or in play, updates the student's memory of that item.

Contract (kept stable for the quizzes and the games):

- Item keys name what was learned: ``symbol:<Symbol pk>``, ``knowledge:<KnowledgeQuestion pk>``,
  ``know:<Know question-bank pk>``.
- :func:`memory_review` is called once per answered item, inside the transaction that
  graded it (a quiz answer). ``correct`` is a bool or a fraction in [0, 1] for partial credit.
- Namings in play (``games.NamingRecord``) are taken in by :func:`lms.progress.services.namings_absorb`
  before progress is read, so the play path stays as fast as it is.

The scheduler is FSRS (the ``fsrs`` package); see :mod:`lms.progress.memory`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


def memory_review(
    *, user: Any, item_key: str, correct: bool | float, reviewed_at: datetime | None = None
) -> None:
    """Update ``user``'s memory state for ``item_key`` after one answer."""
    from .services import memory_review as review

    review(user=user, item_key=item_key, correct=correct, reviewed_at=reviewed_at, source="quiz")
