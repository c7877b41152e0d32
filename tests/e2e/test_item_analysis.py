"""The item analysis in chromium: the teacher goes from the homework to its analysis, on a
desktop and on a 360-px phone; axe (WCAG 2.2 AA) checks it, every chart has its table, and
the class's progress page shows mastery week by week."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from content.models import Symbol
from lms.progress.services import memory_review
from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_homework import assert_accessible, assert_fits_a_phone
from tests.lms.progress.test_analysis_pages import hand_class_build

pytestmark = pytest.mark.e2e


def test_the_teacher_reads_the_item_analysis_on_a_desktop_and_a_phone(browsing, teacher_page, demo_site):
    built = hand_class_build(demo_site.teacher_user)
    school_class, homework = built["class"], built["homework"]
    symbol = Symbol.objects.filter(periods__isnull=False).order_by("pk").first()
    for index, user in enumerate(built["users"].values()):
        memory_review(
            user=user,
            item_key=f"symbol:{symbol.pk}",
            correct=index % 3 != 0,
            reviewed_at=timezone.now() - timedelta(days=index + 1),
        )

    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/homework/{homework.pk}/")
    with teacher.expect_navigation():
        teacher.get_by_role("link", name="Item analysis: question by question").click()
    expect(teacher.get_by_role("heading", level=1)).to_have_text(f"Item analysis: {homework.title}")
    # Every chart sits beside a table with the same numbers.
    charts = teacher.locator("figure.chart-figure svg.chart")
    expect(charts).to_have_count(4)
    expect(teacher.locator("table.items")).to_have_count(4)
    questions = teacher.get_by_role("region", name="Questions")
    expect(questions.get_by_role("row")).to_have_count(5)
    expect(questions.get_by_role("row").nth(2)).to_contain_text("55 %")
    teacher.get_by_text("What the numbers mean").click()
    expect(teacher.get_by_text("Discrimination: the share correct")).to_be_visible()
    assert_accessible(browsing, teacher, "item analysis")
    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="Download as CSV").click()
    assert download.value.suggested_filename.startswith("item-analysis-")

    phone = browsing.new_phone_page()
    sign_in(phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    for path in (
        f"/progress/classes/{school_class.pk}/homework/{homework.pk}/",
        f"/progress/classes/{school_class.pk}/",
    ):
        open_page(phone, f"{demo_site.url}{path}")
        assert_fits_a_phone(phone, path)
        assert_accessible(browsing, phone, f"{path} (phone)")
    expect(phone.get_by_role("link", name=f"Item analysis: {homework.title}")).to_be_visible()
    expect(phone.get_by_role("heading", name="Mastery by period, week by week")).to_be_visible()
    expect(
        phone.get_by_role("region", name="Mastery by period, week by week").get_by_role("row")
    ).not_to_have_count(0)
