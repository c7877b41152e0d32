"""Progress pages in chromium: a student's own memory and "review now", a teacher's class.

axe (WCAG 2.2 AA) checks each page; each is checked on a 360-px touch phone too (no
sideways scrolling, targets to tap), and the charts have their tables beside them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from content.models import Symbol
from lms.classes.services import class_create, class_join
from lms.models import User
from lms.progress.services import memory_review
from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_homework import assert_accessible, assert_fits_a_phone

pytestmark = pytest.mark.e2e


def test_a_student_reviews_now_and_the_teacher_reads_the_class(
    browsing: Any, teacher_page: Any, demo_site: Any
):
    login = demo_site.students[0]
    student = User.objects.get(username=login.username)
    school_class = class_create(teacher=demo_site.teacher_user, name="3b Historia")
    class_join(code=school_class.join_code, student=student)
    symbols = list(Symbol.objects.filter(picture__gt="").order_by("pk")[:6])
    yesterday = timezone.now() - timedelta(days=1)
    for index, symbol in enumerate(symbols):
        memory_review(
            user=student, item_key=f"symbol:{symbol.pk}", correct=index % 2 == 0, reviewed_at=yesterday
        )

    phone = browsing.new_phone_page()
    sign_in(phone, demo_site.url, login.username, login.password)
    open_page(phone, f"{demo_site.url}/progress/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("My progress")
    expect(phone.locator("svg.chart")).to_be_visible()
    assert_accessible(browsing, phone, "my progress (phone)")
    assert_fits_a_phone(phone, "my progress")

    # Review now: the due items become a quiz at once.
    with phone.expect_navigation():
        phone.get_by_role("button", name="Review now").click()
    expect(phone).to_have_url(f"{demo_site.url}/games/quizzes/attempts/{student.quiz_attempts.get().pk}/")
    browsing.problems(phone)  # the quiz pages are checked by their own tests

    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/")
    with teacher.expect_navigation():
        teacher.get_by_role("link", name="Progress: what the class knows").click()
    expect(teacher.locator("main")).to_contain_text(symbols[1].name)  # named wrongly: among the weakest
    assert_accessible(browsing, teacher, "class progress")
    with teacher.expect_navigation():
        teacher.get_by_role("link", name=student.get_full_name() or student.get_username()).click()
    assert_accessible(browsing, teacher, "a student's progress")

    teacher_phone = browsing.new_phone_page()
    sign_in(teacher_phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    for path in (
        f"/progress/classes/{school_class.pk}/",
        f"/progress/classes/{school_class.pk}/students/{student.pk}/",
    ):
        open_page(teacher_phone, f"{demo_site.url}{path}")
        assert_fits_a_phone(teacher_phone, path)
        assert_accessible(browsing, teacher_phone, f"{path} (phone)")
