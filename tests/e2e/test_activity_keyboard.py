"""Activity by keyboard alone on a 360-px phone (the facilitator's): draw, turn the hourglass,
pause and resume, record an outcome and undo it with Tab, Enter and Space, the focus kept in
its place after every redraw, and axe-core on each screen."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_activity_turn import check, problems, running_game, state
from tests.e2e.test_keyboard_and_phone import tab_to

pytestmark = pytest.mark.e2e


def expect_focus_on_the_buttons_heading(page: Any) -> None:
    """The control that had the focus is gone: the focus waits on the buttons' heading, so the
    next Tab reaches the first button (not the top of the page)."""
    expect(page.locator("#controls-heading")).to_be_focused()


def test_the_facilitator_plays_a_turn_by_keyboard_on_a_phone(browsing, demo_users_site):
    site = demo_users_site
    session = running_game(site.teacher_user)
    page = browsing.new_phone_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")
    expect(page.get_by_role("button", name="Draw a card for Sowy")).to_be_visible()
    check(browsing, page, "facilitator's phone, ready", phone=True)
    page.evaluate("document.activeElement && document.activeElement.blur()")

    tab_to(page, '[data-focus-key="act-draw-"]', most=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Ready: turn the hourglass")).to_be_visible()
    expect_focus_on_the_buttons_heading(page)

    tab_to(page, '[data-focus-key="act-start_timer-"]', most=3)
    page.keyboard.press("Space")
    expect(page.get_by_role("button", name="Guessed in time")).to_be_visible()
    expect_focus_on_the_buttons_heading(page)
    check(browsing, page, "facilitator's phone, presenting", phone=True)

    # Pause and resume: one button that changes its name; the focus stays on it.
    tab_to(page, '[data-focus-key="act-hourglass"]')
    page.keyboard.press("Space")
    expect(page.get_by_role("button", name="Resume the hourglass")).to_be_focused()
    expect(page.locator(".hourglass-label")).to_have_text("Hourglass paused")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Pause the hourglass")).to_be_focused()

    # The outcome, from the buttons' heading.
    page.locator("#controls-heading").focus()
    tab_to(page, '[data-focus-key="act-guessed-t1"]', most=3)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Draw a card for Lisy")).to_be_visible()
    expect_focus_on_the_buttons_heading(page)
    assert state(session.pk)[1].positions == (4, 0)
    check(browsing, page, "facilitator's phone, after the outcome", phone=True)

    tab_to(page, '[data-focus-key="act-undo-"]', most=3)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Guessed in time")).to_be_visible()
    expect_focus_on_the_buttons_heading(page)
    game = state(session.pk)[1]
    assert game.phase == "presenting" and game.positions == (0, 0) and game.history == ()
    check(browsing, page, "facilitator's phone, after the undo", phone=True)
    # Closed here, so that a reconnection the page tried after the last check (the test
    # server refuses WebSockets; the page polls) is judged like the rest, not at teardown.
    page.close()
    left = problems(browsing, page)
    assert not left, left
