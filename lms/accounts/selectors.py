"""Reads for the account pages: the login cards a class's teachers may print."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from lms.models import ClassMember, LoginCard, SchoolClass


def class_cards(school_class: SchoolClass, *, student_id: int | None = None) -> QuerySet[LoginCard]:
    """The open login cards of the class's students (or of one of them), by name."""
    students = ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.STUDENT).values(
        "user"
    )
    cards = LoginCard.objects.filter(
        student__in=students, closed_at__isnull=True, expires_at__gt=timezone.now()
    ).select_related("student")
    if student_id is not None:
        cards = cards.filter(student_id=student_id)
    return cards.order_by("student__last_name", "student__first_name", "student__username")


def students_with_open_cards(school_class: SchoolClass) -> set[Any]:
    """The ids of the class's students whose card is open (they have not chosen a password yet)."""
    return set(class_cards(school_class).values_list("student_id", flat=True))
