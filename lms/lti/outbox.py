"""The score outbox: a counted grade that changed waits here until the LMS accepted it.

Contract: ``lms.grading`` calls :func:`score_enqueue` inside the transaction that changed
an assignment's counted grade for a student. Assignments not linked to an LMS line item
are ignored.
"""

from __future__ import annotations

from typing import Any


def score_enqueue(*, grade: Any) -> None:
    """Queue ``grade`` for delivery to the LMS line item of its assignment, if it has one."""
    return None
