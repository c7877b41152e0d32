"""static/talia/progress.js in chromium: the visible progress text and the bar move together."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from content.models import BuildState, PrintJob
from tests.e2e.browsing import sign_in

pytestmark = pytest.mark.e2e


def test_the_progress_text_says_what_the_bar_shows_at_every_update(browsing: Any, demo_users_site: Any):
    site = demo_users_site
    job = PrintJob.objects.create(
        kind=PrintJob.Kind.ACTIVITY, owner=site.teacher_user, state=BuildState.RUNNING, progress=1
    )
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    page.goto(site.url + reverse("decks:print_detail", args=[job.pk]))
    bar, text = page.locator("#job-progress"), page.locator("#job-progress-text")
    expect(text).to_have_text("Building: 1%")
    for progress in (20, 21, 47, 60):  # 1 → 20 and 20 → 21 stay in one quarter of the announcements
        PrintJob.objects.filter(pk=job.pk).update(progress=progress)
        expect(bar).to_have_js_property("value", progress)
        expect(text).to_have_text(f"Building: {progress}%")
    # Screen readers still hear the quarters only, through their own live region.
    expect(page.locator("#job-progress-announce[role=status]")).to_have_text("Building: 60%")
    assert text.get_attribute("role") is None
