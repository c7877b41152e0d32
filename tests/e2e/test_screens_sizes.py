"""Know, Knowledge?, Activity and the workshop at each of the classroom's four screen sizes
(issue 18, item 2), measured in chromium.

Each game opens at each size as the one who looks at that screen: a player on a 360×740 touch
phone, the teacher (or the facilitator) on a 1366×768 laptop, and the projector view at
1280×720 and 1920×1080. The playing surface's key elements lie inside the viewport with the
page at its top, the join code's corner strip covers none of them, taps are 44 px at least on
the phone, and the projector's type is 32 px at least (key numbers 64 px) at 1080 lines,
scaled to the screen's height at 720 (the projector view sets its type in viewport units).
Axe finds no violation.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.geometry import (
    LAPTOP,
    PHONE,
    PROJECTOR_720,
    PROJECTOR_1080,
    PROJECTOR_BODY_PX,
    PROJECTOR_NUMBER_PX,
    assert_fits,
    assert_font_at_least,
    assert_no_horizontal_overflow,
    assert_no_page_scroll,
    assert_tap_targets,
    assert_uncovered_by_join_strip,
    projector_px,
    projector_view,
)
from tests.e2e.test_activity_turn import running_game
from tests.e2e.test_board_screens import (
    finish,
    knowledge_on_the_projector,
    representative_drew,
    workshop_dealt,
)
from tests.e2e.test_knowledge_round import solo_game
from tests.e2e.test_screen_contract import no_problems as accessible
from tests.e2e.test_screens_know import ANSWER_FORM, know_in_its_answers
from tests.e2e.test_screens_znajznak import shoot, signed_in

pytestmark = pytest.mark.e2e

SIZES = {
    "phone": PHONE,
    "laptop": LAPTOP,
    "projector-720": PROJECTOR_720,
    "projector-1080": PROJECTOR_1080,
}


def assert_surface(
    page: Any, where: str, surface: tuple[str, ...], uncovered: str, *, scrolls: bool = False
) -> None:
    """The surface's elements inside the viewport, none under the join strip, no sideways
    scrolling; on the projector view the page does not scroll at all, unless it ``scrolls`` to
    the teacher's forms below the surface."""
    shoot(page, "sizes-" + where.replace(" ", "-").replace(",", "").replace("?", ""))
    for selector in surface:
        assert_fits(page, selector)
    assert_uncovered_by_join_strip(page, uncovered)
    assert_no_horizontal_overflow(page)
    if projector_view(page) and not scrolls:
        assert_no_page_scroll(page)


def assert_projector_type(
    page: Any, screen: dict[str, Any], body: tuple[str, ...], numbers: tuple[str, ...]
) -> None:
    for selector in body:
        assert_font_at_least(page, selector, projector_px(PROJECTOR_BODY_PX, screen))
    for selector in numbers:
        assert_font_at_least(page, selector, projector_px(PROJECTOR_NUMBER_PX, screen))


def on_the_projector(browsing: Any, site: Any, address: str, screen: dict[str, Any]) -> Any:
    page = signed_in(browsing, site.teacher, site.url, **screen)
    open_page(page, f"{site.url}{address}?view=projector")
    assert projector_view(page)
    return page


@pytest.mark.parametrize("size", list(SIZES))
def test_know_fits_each_screen(browsing, demo_users_site, size):
    site = demo_users_site
    screen = SIZES[size]
    session = know_in_its_answers(site)
    where = f"Know, {size}"
    if size == "phone":
        page = signed_in(browsing, site.students[0], site.url, **screen)
        open_page(page, f"{site.url}/games/sessions/{session.pk}/")
        expect(page.locator(ANSWER_FORM).first).to_be_visible()
        assert_surface(page, where, (ANSWER_FORM,), f"{ANSWER_FORM} button, {ANSWER_FORM} textarea")
        assert_tap_targets(page, f"{ANSWER_FORM} button, {ANSWER_FORM} textarea")
    elif size == "laptop":
        page = signed_in(browsing, site.teacher, site.url, **screen)
        open_page(page, f"{site.url}/games/sessions/{session.pk}/")
        expect(page.locator(".know-controls")).to_be_visible()
        assert_surface(
            page, where, (".know-controls", ".know-banner h2"), ".know-controls button, .know-banner h2"
        )
    else:
        page = on_the_projector(browsing, site, f"/games/know/{session.pk}/projector", screen)
        expect(page.locator(".know-round .know-question")).to_have_count(3)
        assert_surface(
            page,
            where,
            (".know-banner h2", ".know-round", "[data-join-strip]"),
            ".know-round .know-question, .know-banner h2",
        )
        assert_projector_type(
            page,
            screen,
            body=(".know-question-text", ".know-banner h2"),
            numbers=(".join-strip.is-compact .join-code",),
        )
    accessible(browsing, page, where)
    finish(browsing, page)


KNOWLEDGE_SURFACE = (".knowledge-board", ".card-slots", ".knowledge-status", ".front-cards .quiz-card")
KNOWLEDGE_UNCOVERED = ".knowledge-board text, .slot, .front-cards .quiz-card, .knowledge-status"


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("variant", ["basic", "strategic"])
def test_knowledge_fits_each_screen(browsing, demo_site, variant, size):
    site = demo_site
    screen = SIZES[size]
    where = f"Knowledge? {variant}, {size}"
    if size == "phone":
        session = solo_game(site, variant=variant)
        page = signed_in(browsing, site.students[0], site.url, **screen)
        open_page(page, f"{site.url}/games/sessions/{session.pk}/")
        expect(page.locator(".knowledge-board")).to_be_visible()
        assert_surface(page, where, KNOWLEDGE_SURFACE, KNOWLEDGE_UNCOVERED)
        assert_tap_targets(page, "#board button")
    else:
        setup = browsing.new_page(**LAPTOP)
        sign_in(setup, site.url, site.teacher.username, site.teacher.password)
        session_id = knowledge_on_the_projector(setup, site.url, variant)
        if variant == "basic":
            # One card played: a filled slot and the last move's box are on the screen too.
            setup.locator("button.assign").last.click()
            expect(setup.locator(".last-move")).to_be_visible()
        if size == "laptop":
            page = setup
        else:
            finish(browsing, setup)
            page = on_the_projector(browsing, site, f"/games/sessions/{session_id}/", screen)
        expect(page.locator(".knowledge-board")).to_be_visible()
        assert_surface(page, where, KNOWLEDGE_SURFACE, KNOWLEDGE_UNCOVERED)
        if size != "laptop":
            assert_projector_type(
                page,
                screen,
                body=(".knowledge-status", ".slot-name", ".front-cards .card-front"),
                numbers=(".knowledge-status .key-number",),
            )
    accessible(browsing, page, where)
    finish(browsing, page)


ACTIVITY_UNCOVERED = ".activity-board-svg, .activity-turn, .activity-teams-list li, .activity-controls button"


@pytest.mark.parametrize("size", list(SIZES))
def test_activity_fits_each_screen(browsing, demo_site, size):
    site = demo_site
    screen = SIZES[size]
    session = running_game(site.teacher_user)
    where = f"Activity, {size}"
    if size == "phone":
        page = representative_drew(browsing, site, session, **screen)
        assert_surface(
            page,
            where,
            (".activity-controls", ".term-box", ".activity-turn"),
            ".activity-controls button, .term-box, .activity-turn",
        )
        assert_tap_targets(page, ".activity-controls button")
    elif size == "laptop":
        page = signed_in(browsing, site.teacher, site.url, **screen)
        open_page(page, f"{site.url}/games/sessions/{session.pk}/")
        expect(page.locator(".activity-controls")).to_be_visible()
        # The teacher's page records what happens: the turn and its controls come first, the
        # board (which the projector's screen shows) follows below them.
        assert_surface(
            page,
            where,
            (".activity-turn", ".activity-controls"),
            ".activity-turn, .activity-controls button",
        )
    else:
        page = on_the_projector(browsing, site, f"/games/sessions/{session.pk}/", screen)
        expect(page.locator(".activity-board-svg")).to_be_visible()
        assert_surface(
            page,
            where,
            (".activity-board-svg", ".activity-turn", ".activity-teams-list", ".activity-controls"),
            ACTIVITY_UNCOVERED,
        )
        assert_projector_type(
            page,
            screen,
            body=(".activity-turn", ".activity-teams-list li", ".activity-teams-list .swatch"),
            numbers=(),
        )
    accessible(browsing, page, where)
    finish(browsing, page)


@pytest.mark.parametrize("size", list(SIZES))
def test_the_workshop_fits_each_screen(browsing, demo_site, size):
    site = demo_site
    screen = SIZES[size]
    workshop, student = workshop_dealt(browsing, site, **(PHONE if size == "phone" else LAPTOP))
    where = f"the workshop, {size}"
    if size == "phone":
        page = student
        # The dealt card arrives by polling (no reload: a reload would cut a poll short).
        expect(page.locator(".card-name")).to_be_visible(timeout=20_000)
        assert_surface(page, where, (".card-name", ".card-picture"), ".card-name, .card-picture")
        # The groups open: the button to start one is a tap target of the phone.
        from games.workshop import services as workshop_services

        workshop_services.workshop_grouping_start(workshop=workshop, by=site.teacher_user)
        expect(page.get_by_role("button", name="Start a new group")).to_be_visible(timeout=20_000)
        assert_tap_targets(page, "main button")
    else:
        finish(browsing, student)
        address = f"/games/workshops/{workshop.pk}/lead"
        if size == "laptop":
            page = signed_in(browsing, site.teacher, site.url, **screen)
            open_page(page, f"{site.url}{address}")
        else:
            page = on_the_projector(browsing, site, address, screen)
        # The lead page is the teacher's too: their suggestion form may lie below the surface.
        surface = ("#phase-heading", ".counts-line", ".join-strip .join-code", "#alone-heading")
        assert_surface(
            page,
            where,
            surface,
            "#phase-heading, .counts-line, main button:not([data-join-toggle])",
            scrolls=True,
        )
        if size != "laptop":
            assert_projector_type(
                page, screen, body=(".counts-line",), numbers=(".join-strip.is-compact .join-code",)
            )
    accessible(browsing, page, where)
    finish(browsing, page)
