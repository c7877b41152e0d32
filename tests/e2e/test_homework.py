"""Homework in chromium: a teacher creates a class and sets a quiz, a student on a 360-px phone
joins with the class code, does the quiz, and the teacher's class dashboard shows the result.

axe (WCAG 2.2 AA) checks every class and homework page on the way, and the student's pages
and the teacher's dashboard are checked on a phone: no sideways scrolling, targets to tap.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from lms.models import Grade, SchoolClass, Submission
from tests.e2e.browsing import axe_violations, describe_violations, open_page, scroll_width, sign_in
from tests.lms.factories_classes import knowledge_quiz

pytestmark = pytest.mark.e2e

PHONE_WIDTH = 360


def assert_accessible(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    assert not browsing.problems(page), browsing.problems(page)


def assert_fits_a_phone(page: Any, where: str) -> None:
    assert scroll_width(page) <= PHONE_WIDTH, f"{where} scrolls sideways on a 360-px phone"
    small = page.eval_on_selector_all(
        "main a, main button, main input, main select, main summary, header a, header button, header select",
        "els => els.filter(e => e.offsetParent).filter(e => {"
        " const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })"
        ".map(e => e.outerHTML.slice(0, 80))",
    )
    assert not small, f"{where}: targets too small to tap: {small}"


def test_a_student_joins_by_code_does_the_quiz_and_the_teacher_sees_the_result(
    browsing, teacher_page, demo_site
):
    teacher = teacher_page
    quiz = knowledge_quiz(demo_site.teacher_user, (3, 1))

    # The teacher creates the class: the code and its QR code fill the projector.
    open_page(teacher, f"{demo_site.url}/classes/")
    assert_accessible(browsing, teacher, "my classes (teacher)")
    with teacher.expect_navigation():
        teacher.get_by_role("link", name="Create a class").click()
    assert_accessible(browsing, teacher, "create a class")
    teacher.get_by_label("Class name").fill("3b Historia")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Create the class").click()
    school_class = SchoolClass.objects.get(teacher=demo_site.teacher_user)
    expect(teacher.locator(".join-code")).to_have_text(school_class.join_code)
    qr = teacher.locator(".join-qr svg")
    expect(qr).to_be_visible()
    assert qr.bounding_box()["width"] >= 250, "the QR code is too small to scan off a projector"
    assert_accessible(browsing, teacher, "class code page")

    # The teacher sets the quiz as homework, due in a week, two attempts, the best counts.
    with teacher.expect_navigation():
        teacher.get_by_role("link", name="Go to the class").click()
    with teacher.expect_navigation():
        teacher.get_by_role("link", name="Set homework").click()
    assert_accessible(browsing, teacher, "set homework")
    teacher.get_by_label("Title", exact=True).fill("Quiz po lekcji")
    teacher.get_by_role("radio", name="Quiz", exact=True).check()
    teacher.get_by_role("combobox", name="Quiz", exact=True).select_option(str(quiz.pk))
    due = timezone.localtime() + timedelta(days=7)
    teacher.get_by_label("Due (optional)").fill(due.strftime("%Y-%m-%dT%H:%M"))
    teacher.get_by_label("Attempts allowed").fill("2")
    teacher.get_by_label("Points possible").fill("10")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Set the homework").click()
    expect(teacher.get_by_role("heading", level=1)).to_have_text("Quiz po lekcji")
    assert_accessible(browsing, teacher, "homework results (no attempts yet)")

    # A student on a phone joins with the code typed in lower case.
    phone = browsing.new_phone_page()
    login = demo_site.students[0]
    sign_in(phone, demo_site.url, login.username, login.password)
    open_page(phone, f"{demo_site.url}/classes/join")
    assert_accessible(browsing, phone, "join a class (phone)")
    assert_fits_a_phone(phone, "join a class")
    phone.get_by_label("Class code").fill(school_class.join_code.lower())
    with phone.expect_navigation():
        phone.get_by_role("button", name="Join", exact=True).click()
    expect(phone.get_by_role("heading", level=1)).to_have_text("My homework")
    expect(phone.locator(".messages")).to_contain_text("You are in the class 3b Historia.")
    assert_accessible(browsing, phone, "my homework (phone)")
    assert_fits_a_phone(phone, "my homework")

    with phone.expect_navigation():
        phone.get_by_role("link", name="Quiz po lekcji").click()
    assert_accessible(browsing, phone, "homework page (phone)")
    assert_fits_a_phone(phone, "homework page")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Start").click()

    # The quiz page: one answer right, one wrong; then hand in.
    submission = Submission.objects.get()
    expect(phone).to_have_url(f"{demo_site.url}/games/quizzes/attempts/{submission.quiz_attempt_id}/")
    items = list(quiz.items.order_by("position"))
    for item, choice in zip(items, ("3", "5"), strict=True):
        block = phone.locator(f".quiz-item[data-item='{item.pk}']")
        if not block.is_visible():
            phone.locator("#quiz-next").click()
        # Autosave: the answer is on the server before the next step (and the hand-in).
        with phone.expect_response(lambda response: response.url.endswith("/answers") and response.ok):
            block.locator(f"input[value='{choice}']").check()
    expect(phone.locator("#quiz-saved")).to_have_text("All answers saved.")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Hand in").click()
    browsing.problems(phone)  # the quiz pages are checked by their own tests

    submission.refresh_from_db()
    assert (submission.status, submission.score) == ("graded", 5)
    assert Grade.objects.get(student__username=login.username).score == 5

    # The student's homework list shows the score; the teacher's dashboard the result.
    open_page(phone, f"{demo_site.url}/classes/homework/")
    expect(phone.locator(".homework-list")).to_contain_text("Score: 5 / 10")
    open_page(phone, f"{demo_site.url}/classes/")
    expect(phone.locator("main")).to_contain_text("3b Historia")
    assert_accessible(browsing, phone, "my classes (student, phone)")
    assert_fits_a_phone(phone, "my classes (student)")

    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/")
    expect(teacher.locator("table.gradebook")).to_contain_text("5 / 10")
    expect(teacher.locator("table.gradebook")).to_contain_text("1 attempt")
    expect(teacher.locator("table.grid").first).to_contain_text("1 of 1")
    assert_accessible(browsing, teacher, "class dashboard")

    teacher_phone = browsing.new_phone_page()
    sign_in(teacher_phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    homework = school_class.assignments.get()
    for path in (
        f"/classes/{school_class.pk}/",
        f"/classes/{school_class.pk}/code",
        f"/classes/{school_class.pk}/homework/new",
        f"/classes/{school_class.pk}/homework/{homework.pk}/",
        f"/classes/{school_class.pk}/homework/{homework.pk}/edit",
        "/classes/new",
        "/classes/",
    ):
        open_page(teacher_phone, f"{demo_site.url}{path}")
        assert_fits_a_phone(teacher_phone, path)
        assert_accessible(browsing, teacher_phone, f"{path} (phone)")
