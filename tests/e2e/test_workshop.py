"""The "Połącz symbole" workshop in chromium: a teacher leads it, two students join by code.

The teacher creates the workshop from the demo content, the students join in their own
browser contexts (one on a 360-px phone), each reads their auxiliary card, they form a
group and name its key, and the teacher's projector page shows it, all by polling
alone. axe (WCAG 2.2 AA) checks the teacher's and the students' pages.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import tests.games.workshop  # noqa: F401  (stops the run with a message if the app is not installed)
from games.workshop.models import Workshop, WorkshopParticipant
from tests.e2e.browsing import axe_violations, describe_violations, open_page, scroll_width, sign_in

pytestmark = pytest.mark.e2e

POLLED = 10_000  # ms: a few polling rounds (every 2 s)


def assert_accessible(browsing, page, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    assert not browsing.problems(page), browsing.problems(page)


def test_students_form_a_group_and_the_teacher_sees_it(browsing, teacher_page, demo_site):
    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/games/workshops/new")
    teacher.get_by_label("Title (optional)").fill("Klasa 3b")
    teacher.get_by_label("By a key (themes or periods)").check()
    teacher.get_by_label("Ludzie", exact=True).check()
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Create the workshop").click()
    workshop = Workshop.objects.get(teacher=demo_site.teacher_user)
    expect(teacher.locator(".join-code")).to_have_text(workshop.join_code)
    assert_accessible(browsing, teacher, "teacher page, lobby")

    # Two students join by code in their own contexts; one holds a 360-px phone.
    pages = []
    for login, phone in zip(demo_site.students[:2], (True, False), strict=True):
        page = browsing.new_phone_page() if phone else browsing.new_page()
        sign_in(page, demo_site.url, login.username, login.password)
        open_page(page, f"{demo_site.url}/games/workshops/join")
        page.get_by_label("Join code").fill(workshop.join_code.lower())
        with page.expect_navigation():
            page.get_by_role("button", name="Next").click()
        with page.expect_navigation():
            page.get_by_role("button", name="Join as").click()
        expect(page.get_by_role("heading", name="Connect the symbols", level=1)).to_be_visible()
        pages.append(page)
    phone, desk = pages

    # The teacher's page shows both without a reload, then the teacher deals.
    expect(teacher.locator("#alone-heading")).to_contain_text("(2)", timeout=POLLED)
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Deal the cards").click()

    # Each student reads their own card: a card of the key "Ludzie", with its back.
    for page in pages:
        expect(page.locator(".card-name")).to_be_visible(timeout=POLLED)
    for participant in WorkshopParticipant.objects.filter(workshop=workshop).select_related("symbol"):
        assert participant.symbol.themes.filter(slug="ludzie").exists()
    cards = {p.user.username: p.symbol for p in workshop.participants.select_related("user", "symbol")}
    for page, login in zip(pages, demo_site.students, strict=False):
        symbol = cards[login.username]
        expect(page.locator(".card-name")).to_contain_text(symbol.name)
        expect(page.locator(".aux-card")).to_contain_text(symbol.description)
        expect(page.locator(".card-picture")).to_have_attribute("alt", f"The symbol: {symbol.name}")
        # The card arrives by polling, so its picture may still be on its way: wait until the
        # browser has finished with it (loaded or failed), then require a loaded picture.
        page.wait_for_function("() => document.querySelector('.card-picture').complete", timeout=POLLED)
        assert page.evaluate("document.querySelector('.card-picture').naturalWidth") > 0

    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Open the groups").click()

    # The phone starts a group; the other student sees it appear and joins it.
    expect(phone.get_by_role("button", name="Start a new group")).to_be_visible(timeout=POLLED)
    with phone.expect_navigation():
        phone.get_by_role("button", name="Start a new group").click()
    join_button = desk.get_by_role("button", name="Join Group 1")
    expect(join_button).to_be_visible(timeout=POLLED)
    with desk.expect_navigation():
        join_button.click()
    desk.get_by_label("Our key: what our symbols have in common").fill("Ludzie II RP")
    with desk.expect_navigation():
        desk.get_by_role("button", name="Save the key").click()

    # Both students see the key; the teacher's projector page shows the group.
    for page in pages:
        expect(page.locator(".groups .group.yours")).to_contain_text("Ludzie II RP", timeout=POLLED)
        expect(page.get_by_label("Our key: what our symbols have in common")).to_have_value("Ludzie II RP")
    group = teacher.locator(".groups .group").first
    expect(group).to_contain_text("Ludzie II RP", timeout=POLLED)
    for symbol in cards.values():
        expect(group).to_contain_text(symbol.name)
    expect(teacher.locator("#alone-heading")).to_contain_text("(0)")

    # The teacher shows another connection to the group; its members see it.
    teacher.get_by_label("Another possible connection").fill("Oba symbole łączy rok 1918.")
    teacher.get_by_label("Show it to").select_option(label="Group 1: Ludzie II RP")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Show the suggestion").click()
    for page in pages:
        expect(page.locator(".your-group")).to_contain_text("Oba symbole łączy rok 1918.", timeout=POLLED)

    assert_accessible(browsing, teacher, "teacher page, grouping")
    assert_accessible(browsing, phone, "student page on a phone")
    assert_accessible(browsing, desk, "student page")
    assert scroll_width(phone) <= 360, "the student page scrolls sideways on a 360-px phone"
