"""A student's data in chromium: the teacher downloads it, then erases the student after
confirming with the username; axe checks the erasure page, on a phone too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_homework import assert_accessible, assert_fits_a_phone
from tests.factories import UserFactory
from tests.lms.factories_classes import class_with_students

pytestmark = pytest.mark.e2e


def test_the_teacher_downloads_a_students_data_then_erases_the_student(browsing, teacher_page, demo_site):
    student = UserFactory(username="zkowalczyk", first_name="Zuzanna", last_name="Kowalczyk")
    school_class = class_with_students(demo_site.teacher_user, student, name="3b Historia")
    page = teacher_page

    open_page(page, f"{demo_site.url}/classes/{school_class.pk}/")
    page.get_by_text("Students, login cards, co-teachers").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Data of zkowalczyk (JSON)").click()
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["account"]["last_name"] == "Kowalczyk"

    with page.expect_navigation():
        page.get_by_role("link", name="Erase zkowalczyk…").click()
    assert_accessible(browsing, page, "erase a student")
    page.get_by_label("Type the username").fill("wrong")
    with page.expect_navigation():
        page.get_by_role("button", name="Erase Zuzanna Kowalczyk").click()
    expect(page.get_by_role("alert")).to_contain_text("does not match")
    assert_accessible(browsing, page, "erase a student, wrong username")
    assert get_user_model().objects.filter(pk=student.pk).exists()

    page.get_by_label("Type the username").fill("zkowalczyk")
    with page.expect_navigation():
        page.get_by_role("button", name="Erase Zuzanna Kowalczyk").click()
    expect(page.locator(".messages")).to_contain_text("Zuzanna Kowalczyk was erased.")
    assert not get_user_model().objects.filter(pk=student.pk).exists()
    expect(page.locator("main")).not_to_contain_text("zkowalczyk")


def test_the_erasure_page_fits_a_phone(browsing, demo_site):
    student = UserFactory(username="olek")
    school_class = class_with_students(demo_site.teacher_user, student)
    phone = browsing.new_phone_page()
    sign_in(phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)

    open_page(phone, f"{demo_site.url}/classes/{school_class.pk}/students/{student.pk}/erase")

    assert_fits_a_phone(phone, "erase a student")
    assert_accessible(browsing, phone, "erase a student (phone)")
