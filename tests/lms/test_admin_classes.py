"""The admin shows classes, homework, attempts and grades to administrators only, read-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.games.test_sessions import signed_in
from tests.lms.factories_classes import class_with_students

pytestmark = pytest.mark.django_db

PAGES = ("schoolclass", "assignment", "submission", "grade")


@pytest.mark.parametrize("model", PAGES)
def test_an_administrator_sees_the_lists(admin_user: Any, teacher: Any, student: Any, model: str) -> None:
    class_with_students(teacher, student, name="4c")
    page = signed_in(admin_user).get(reverse(f"admin:lms_{model}_changelist"))
    assert page.status_code == 200
    assert signed_in(admin_user).get(reverse(f"admin:lms_{model}_add")).status_code == 403


@pytest.mark.parametrize("model", PAGES)
def test_a_teacher_does_not_reach_them(teacher: Any, model: str) -> None:
    assert signed_in(teacher).get(reverse(f"admin:lms_{model}_changelist")).status_code == 403


def test_a_class_page_lists_its_members(admin_user: Any, teacher: Any, student: Any) -> None:
    school_class = class_with_students(teacher, student, name="4c")
    page = signed_in(admin_user).get(reverse("admin:lms_schoolclass_change", args=[school_class.pk]))
    assert page.status_code == 200 and student.username in page.content.decode()
