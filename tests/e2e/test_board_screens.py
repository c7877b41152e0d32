"""Knowledge?, Activity and the workshop on a classroom's screens (issue 18, items 1 and 2).

Measured in chromium: on the projector view at 1920×1080 and 1280×720 the playing surface lies
inside the screen and the page does not scroll, body text is at least 32 px and key numbers at
least 64 px at 1080 lines; on a 360×740 touch phone the board and the controls fit the first
screen with taps of at least 44 px, and held sideways nothing scrolls sideways. Axe finds no
violation in either view.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.geometry import (
    PHONE,
    PHONE_LANDSCAPE,
    PROJECTOR_720,
    PROJECTOR_1080,
    PROJECTOR_BODY_PX,
    PROJECTOR_NUMBER_PX,
    TEACHER,
    assert_apart,
    assert_fits,
    assert_font_at_least,
    assert_no_horizontal_overflow,
    assert_no_page_scroll,
    assert_tap_targets,
    assert_uncovered_by_join_strip,
    projector_view,
)
from tests.e2e.test_activity_turn import running_game
from tests.e2e.test_knowledge_round import solo_game
from tests.e2e.test_screen_contract import benign
from tests.e2e.test_screen_contract import no_problems as accessible
from tests.e2e.test_screens_znajznak import shoot

pytestmark = pytest.mark.e2e

PROJECTORS = (("1920×1080", PROJECTOR_1080), ("1280×720", PROJECTOR_720))


def finish(browsing: Any, *pages: Any) -> None:
    """The pages closed, with nothing but the refused WebSocket left in their consoles."""
    for page in pages:
        problems = [p for p in browsing.problems(page) if not benign(p)]
        page.close()
        problems += [p for p in browsing.problems(page) if not benign(p)]
        assert not problems, problems


def knowledge_on_the_projector(page: Any, url: str, variant: str) -> int:
    open_page(page, f"{url}/games/knowledge/new")
    page.get_by_label("On the projector only: the class discusses, I assign the cards").check()
    page.get_by_label("Variant").select_option(variant)
    with page.expect_navigation():
        page.get_by_role("button", name="Create").click()
    expect(page.locator(".knowledge-status")).to_contain_text("Round 1")
    return int(re.search(r"/games/sessions/(\d+)/", page.url).group(1))


@pytest.mark.parametrize("variant", ["basic", "strategic"])
def test_the_knowledge_board_and_its_slots_fill_the_projector_without_scrolling(browsing, demo_site, variant):
    site = demo_site
    setup = browsing.new_page(**TEACHER)
    sign_in(setup, site.url, site.teacher.username, site.teacher.password)
    session_id = knowledge_on_the_projector(setup, site.url, variant)
    if variant == "basic":
        # One card played: the last move's box with the card back is on the screen too.
        setup.locator("button.assign").last.click()
        expect(setup.locator(".last-move")).to_be_visible()
    # The teacher's laptop: the board is whole in the first screen.
    assert_fits(setup, ".knowledge-board")
    accessible(browsing, setup, f"Knowledge? {variant}, the teacher's laptop")
    for name, screen in PROJECTORS:
        page = browsing.new_page(**screen)
        sign_in(page, site.url, site.teacher.username, site.teacher.password)
        open_page(page, f"{site.url}/games/sessions/{session_id}/?view=projector")
        expect(page.locator(".knowledge-board")).to_be_visible()
        assert projector_view(page)
        where = f"Knowledge? {variant} on a {name} projector"
        shoot(page, f"knowledge-{variant}-projector-{screen['viewport']['height']}")
        assert_no_page_scroll(page)
        for selector in (".knowledge-board", ".card-slots", ".knowledge-status", ".front-cards .quiz-card"):
            assert_fits(page, selector)
        board = assert_fits(page, ".knowledge-board")
        # The board's box is larger than its loop: its spaces' letters are what must not be hidden.
        assert_uncovered_by_join_strip(
            page, ".knowledge-board text, .slot, .front-cards .quiz-card, .knowledge-status"
        )
        # The board, not the text, is what grows: most of the screen's height.
        assert board.height >= 0.7 * screen["viewport"]["height"], (
            f"{where}: the board is {board.height} px tall"
        )
        if name == "1920×1080":
            assert_font_at_least(page, ".knowledge-status .key-number", PROJECTOR_NUMBER_PX)
            assert_font_at_least(page, ".knowledge-status", PROJECTOR_BODY_PX)
            # Strategic shows six fronts at once: they and the slots keep the projector's 32 px too.
            for selector in (".slot-name", ".front-cards .card-front"):
                assert_font_at_least(page, selector, PROJECTOR_BODY_PX)
            if variant == "basic":
                for selector in (
                    ".last-move .explanation",
                    ".last-move .card-back",
                ):
                    assert_font_at_least(page, selector, PROJECTOR_BODY_PX)
        accessible(browsing, page, where)
        finish(browsing, page)
    finish(browsing, setup)


def test_knowledge_on_a_phone_fits_one_screen_upright_and_sideways(browsing, demo_site):
    site = demo_site
    session = solo_game(site)
    page = browsing.new_page(**PHONE)
    sign_in(page, site.url, site.students[0].username, site.students[0].password)
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")
    expect(page.locator("button.assign")).to_have_count(6)
    assert_no_horizontal_overflow(page)
    for selector in (".knowledge-board", ".card-slots", ".front-cards .quiz-card"):
        assert_fits(page, selector)
    assert_tap_targets(page, "button.assign")
    assert_tap_targets(page, ".guess-option")
    # The rules' link in the corner hides neither the heading nor the round's status.
    assert_apart(page, ".knowledge-help summary", "#board .knowledge-status")
    # The spaces' letters stay readable on the board that leaves room for the slots: the
    # letters' size on the screen (their font size in the SVG, scaled as the SVG is drawn).
    letters = page.evaluate(
        "() => { const svg = document.querySelector('svg.knowledge-board');"
        " const text = svg.querySelector('text');"
        " return Number(text.getAttribute('font-size')) * svg.getBoundingClientRect().width / 520; }"
    )
    assert letters >= 10, f"The board's letters are {letters:.1f} px on a phone"
    accessible(browsing, page, "Knowledge? on a phone")
    # A card assigned by touch: the slot shows its answer, still in the first screen.
    page.locator("button.assign").last.tap()
    expect(page.locator(".slot.filled")).to_have_count(1)
    assert_fits(page, ".card-slots")

    sideways = browsing.new_page(**PHONE_LANDSCAPE)
    sign_in(sideways, site.url, site.students[0].username, site.students[0].password)
    open_page(sideways, f"{site.url}/games/sessions/{session.pk}/")
    expect(sideways.locator("button.assign")).to_have_count(5)
    assert_no_horizontal_overflow(sideways)
    assert_fits(sideways, ".knowledge-board")
    assert_tap_targets(sideways, "button.assign")
    accessible(browsing, sideways, "Knowledge? on a phone held sideways")
    finish(browsing, page, sideways)


def representative_drew(browsing: Any, site: Any, session: Any, **screen: Any) -> Any:
    """The page of the representative of Sowy (who begin), signed in on ``screen``, after
    drawing a card: the term, the hourglass and the outcomes are on it."""
    from games.models import Participant

    player = session.state["representatives"]["t1"]
    representative = Participant.objects.get(session=session, player_id=player)
    page = browsing.new_page(**screen)
    sign_in(page, site.url, representative.user.username, "pass-word-123")
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")
    page.get_by_role("button", name=re.compile("Draw a card")).tap()
    expect(page.locator(".term")).to_be_visible()
    return page


def test_the_activity_board_fills_the_projector_and_its_controls_fit_a_phone(browsing, demo_site):
    site = demo_site
    session = running_game(site.teacher_user)
    for name, screen in PROJECTORS:
        for address, who in (
            ("?view=projector", "the teacher's page"),
            ("?screen=projector", "the second screen"),
        ):
            page = browsing.new_page(**screen)
            sign_in(page, site.url, site.teacher.username, site.teacher.password)
            open_page(page, f"{site.url}/games/sessions/{session.pk}/{address}")
            expect(page.locator(".activity-board-svg")).to_be_visible()
            assert projector_view(page)
            where = f"Activity, {who} on a {name} projector"
            assert_no_page_scroll(page)
            board = assert_fits(page, ".activity-board-svg")
            assert board.width >= 0.55 * screen["viewport"]["width"], (
                f"{where}: the board is {board.width} px wide"
            )
            for selector in (".activity-turn", ".activity-teams-list"):
                assert_fits(page, selector)
            if who == "the teacher's page":
                assert_fits(page, ".activity-controls")
            assert_uncovered_by_join_strip(
                page,
                ".activity-board-svg, .activity-turn, .activity-teams-list li, .activity-controls button",
            )
            if name == "1920×1080":
                for selector in (".activity-turn", ".activity-teams-list li"):
                    assert_font_at_least(page, selector, PROJECTOR_BODY_PX)
                assert_font_at_least(page, ".activity-teams-list .swatch", PROJECTOR_BODY_PX)
            accessible(browsing, page, where)
            finish(browsing, page)

    # The representative's phone: the draw button, then the term, the hourglass and the outcomes.
    phone = representative_drew(browsing, site, session, **PHONE)
    assert_no_horizontal_overflow(phone)
    for selector in (".activity-controls", ".term-box", ".activity-turn"):
        assert_fits(phone, selector)
    assert_tap_targets(phone, ".activity-controls button")
    accessible(browsing, phone, "Activity, the representative's phone")
    finish(browsing, phone)


def workshop_dealt(browsing: Any, site: Any, **screen: Any) -> tuple[Any, Any]:
    """A workshop of the demo teacher with its cards dealt, and the page of the one student
    who joined it by its code on ``screen`` (a live page: the card arrives by polling)."""
    from games.workshop import services as workshop_services

    workshop = workshop_services.workshop_create(teacher=site.teacher_user, title="3b")
    student = browsing.new_page(**screen)
    sign_in(student, site.url, site.students[0].username, site.students[0].password)
    open_page(student, f"{site.url}/games/workshops/join/{workshop.join_code}")
    with student.expect_navigation():
        student.get_by_role("button", name="Join as").click()
    assert student.evaluate("() => document.body.classList.contains('live')")
    workshop_services.workshop_deal(workshop=workshop, by=site.teacher_user)
    return workshop, student


def test_the_workshop_lead_page_is_live_with_a_projector_view_and_a_join_strip(browsing, demo_site):
    site = demo_site
    workshop, student = workshop_dealt(browsing, site, **PHONE)

    for name, screen in PROJECTORS:
        page = browsing.new_page(**screen)
        sign_in(page, site.url, site.teacher.username, site.teacher.password)
        open_page(page, f"{site.url}/games/workshops/{workshop.pk}/lead?view=projector")
        assert projector_view(page)
        # Dealt: the code is a corner strip, the phase and the counts are on the screen.
        expect(page.locator(".join-strip")).to_have_class(re.compile(r"\bis-compact\b"))
        assert_no_horizontal_overflow(page)
        for selector in ("#phase-heading", ".counts-line", ".join-strip .join-code"):
            assert_fits(page, selector)
        assert_uncovered_by_join_strip(
            page, "#phase-heading, .counts-line, main button:not([data-join-toggle])"
        )
        if name == "1920×1080":
            assert_font_at_least(page, ".counts-line", PROJECTOR_BODY_PX)
        accessible(browsing, page, f"the workshop's lead page on a {name} projector")
        finish(browsing, page)

    # The student's phone: the dealt card arrives by polling, its name and picture in the first
    # screen (no reload: a reload would cut a poll short).
    expect(student.locator(".card-name")).to_be_visible(timeout=20_000)
    assert_no_horizontal_overflow(student)
    for selector in (".card-name", ".card-picture"):
        assert_fits(student, selector)
    accessible(browsing, student, "the workshop on a phone")
    finish(browsing, student)
