"""The screen contract shared by every live page (issue 18, items 1 and 2), in chromium.

On a page where a game is played, led or projected (``body.live``) the header folds behind a
Menu button; ``?view=projector`` and the ``data-projector-toggle`` button set the projector view
(remembered, undone by ``?view=normal``); the join code is big in the lobby and a corner strip
once play starts, with a button that shows it again for late joiners.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import axe_violations, describe_violations, open_page, refused_websocket, sign_in
from tests.e2e.geometry import (
    PHONE,
    PROJECTOR_1080,
    assert_fits,
    assert_font_at_least,
    assert_tap_targets,
    box,
    projector_view,
)

pytestmark = pytest.mark.e2e

DEMO_SET_LABEL = "ZnajZnak: 57 symboli (demo)"


def benign(problem: str) -> bool:
    # The WSGI live server refuses the WebSocket: the pages poll instead; a poll cut off
    # because the page moved on (a reload, a form posted) is not a problem either.
    return refused_websocket(problem) or ("/view.json" in problem and "ERR_ABORTED" in problem)


def no_problems(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    problems = [p for p in browsing.problems(page) if not benign(p)]
    assert not problems, f"{where}: {problems}"


def page_errors(browsing: Any, page: Any, where: str) -> None:
    problems = [p for p in browsing.problems(page) if not benign(p)]
    assert not problems, f"{where}: {problems}"


def new_duel(page: Any, url: str) -> int:
    from games.models import GameSession

    open_page(page, f"{url}/games/sessions/new")
    page.get_by_label("Variant").select_option("duel")
    page.get_by_label("Symbol set").select_option(label=DEMO_SET_LABEL)
    with page.expect_navigation():
        page.get_by_role("button", name="Create the session").click()
    return GameSession.objects.get().pk


def test_live_header_folds_behind_a_menu_button(browsing, demo_site):
    teacher = browsing.new_page(**PHONE)
    sign_in(teacher, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    session_id = new_duel(teacher, demo_site.url)
    open_page(teacher, f"{demo_site.url}/games/sessions/{session_id}/")

    expect(teacher.locator("body")).to_have_class("live")
    menu = teacher.get_by_role("button", name="Menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(teacher.get_by_role("navigation", name="Main")).to_be_hidden()
    header = box(teacher, ".site-header")
    assert header.height <= 64, f"The folded header is {header.height:.0f} px tall"
    assert_tap_targets(teacher, ".menu-toggle")

    menu.tap()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(teacher.get_by_role("navigation", name="Main")).to_be_visible()
    expect(teacher.get_by_label("Language")).to_be_visible()
    assert_tap_targets(teacher, ".site-menu a, .site-menu button, .site-menu select")
    no_problems(browsing, teacher, "live page, menu open (phone)")
    teacher.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()

    # A page that is not live keeps its whole header.
    open_page(teacher, f"{demo_site.url}/")
    expect(teacher.get_by_role("button", name="Menu")).to_be_hidden()
    expect(teacher.get_by_role("navigation", name="Main")).to_be_visible()
    page_errors(browsing, teacher, "home page")


def test_projector_view_from_the_address_and_the_toggle(browsing, demo_site):
    teacher = browsing.new_page(**PROJECTOR_1080)
    sign_in(teacher, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    session_id = new_duel(teacher, demo_site.url)
    page_url = f"{demo_site.url}/games/sessions/{session_id}/"

    open_page(teacher, page_url)
    assert not projector_view(teacher)
    toggle = teacher.locator("[data-projector-toggle]")
    expect(toggle).to_have_accessible_name("Projector view")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    main_width = box(teacher, "main").width
    assert main_width < 1300, f"The normal view keeps its column: main is {main_width:.0f} px"

    toggle.click()
    expect(teacher.locator("html")).to_have_attribute("data-view", "projector")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert box(teacher, "main").width >= 1900
    assert_font_at_least(teacher, "#connection", 32)
    no_problems(browsing, teacher, "ZnajZnak lobby, projector view")

    # Remembered on this browser's live pages, undone by ?view=normal, set again by ?view=projector.
    open_page(teacher, page_url)
    assert projector_view(teacher)
    open_page(teacher, f"{page_url}?view=normal")
    assert not projector_view(teacher)
    open_page(teacher, page_url)
    assert not projector_view(teacher)
    open_page(teacher, f"{page_url}?view=projector")
    assert projector_view(teacher)
    teacher.locator("[data-projector-toggle]").click()
    assert not projector_view(teacher)
    page_errors(browsing, teacher, "ZnajZnak lobby")


def test_join_code_is_big_in_the_lobby_and_a_corner_strip_in_play(browsing, demo_site):
    from games.models import GameSession

    teacher = browsing.new_page(**PROJECTOR_1080)
    sign_in(teacher, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    session_id = new_duel(teacher, demo_site.url)
    code = GameSession.objects.get(pk=session_id).join_code
    open_page(teacher, f"{demo_site.url}/games/sessions/{session_id}/?view=projector")

    strip = teacher.locator("[data-join-strip]")
    expect(strip).not_to_have_class("join-strip is-compact")
    expect(teacher.locator(".join-qr svg")).to_be_visible()
    assert_font_at_least(teacher, ".join-code", 64)
    expect(teacher.get_by_role("button", name="Show join code")).to_be_hidden()

    # Two students join; the teacher starts: the code folds into a corner.
    students = []
    for index in (0, 1):
        student = browsing.new_page()
        students.append(student)
        login = demo_site.students[index]
        sign_in(student, demo_site.url, login.username, login.password)
        open_page(student, f"{demo_site.url}/games/join/{code}")
        student.get_by_role("button", name="Join as", exact=False).click()
    expect(teacher.locator("#people li")).to_have_count(3)
    teacher.get_by_role("button", name="Start the game").click()

    expect(strip).to_have_class("join-strip is-compact")
    expect(teacher.locator(".join-code")).to_have_text(code)
    expect(teacher.locator(".join-qr svg")).to_be_hidden()
    assert_font_at_least(teacher, ".join-code", 64)
    corner = assert_fits(teacher, "[data-join-strip]")
    assert corner.x > 1920 / 2 and corner.y > 1080 / 2, f"The strip is not in a corner: {corner}"
    assert corner.width * corner.height < 1920 * 1080 / 10, f"The strip is not small: {corner}"

    show = teacher.get_by_role("button", name="Show join code")
    show.click()
    expect(teacher.locator(".join-qr svg")).to_be_visible()
    assert_fits(teacher, "[data-join-strip]")
    no_problems(browsing, teacher, "join code shown again during play")
    teacher.get_by_role("button", name="Hide join code").click()
    expect(teacher.locator(".join-qr svg")).to_be_hidden()
    page_errors(browsing, teacher, "ZnajZnak in play")
    for student in students:
        page_errors(browsing, student, "a student's page")
