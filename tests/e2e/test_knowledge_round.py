"""Knowledge? in a real browser: a full round in both variants (touch on a phone, keyboard on
the projector), the move explained from the engine's record, and every Knowledge? page
checked with axe (WCAG 2.2 AA) and on a 360-px phone.

The live server is pytest-django's WSGI server: the pages poll (no WebSocket).
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, scroll_width, sign_in
from tests.e2e.test_znajznak_duel import PHONE_WIDTH, assert_accessible, page_problems

pytestmark = pytest.mark.e2e

SMALL_TARGETS = (
    "els => els.filter(e => e.offsetParent).filter(e => {"
    " const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })"
    ".map(e => e.outerHTML.slice(0, 80))"
)


def default_board() -> Any:
    from content.models import KnowledgeBoard

    return KnowledgeBoard.objects.get(name="Talia default board")


def solo_game(site: Any, student_index: int = 0, *, variant: str = "basic") -> Any:
    """A running solo game of a demo student from the teacher's homework settings."""
    from games.play.knowledge import services
    from lms.models import User

    student = User.objects.get(username=site.students[student_index].username)
    return services.knowledge_solo_start(
        student=student,
        teacher=site.teacher_user,
        options=services.KnowledgeOptions(board_id=default_board().pk, variant=variant),
    )


def state(session_id: int) -> dict[str, Any]:
    from django.db import OperationalError

    from games.models import GameSession

    # SQLite's shared in-memory test database refuses a read while the server writes
    # ("database table is locked") instead of waiting: read again a moment later.
    for _attempt in range(50):
        try:
            return GameSession.objects.get(pk=session_id).state
        except OperationalError:
            time.sleep(0.1)
    return GameSession.objects.get(pk=session_id).state


def next_play(page: Any, session_id: int, played: int) -> dict[str, Any]:
    """The move record the page's last action added, once the page shows it arrived (reading
    the database only then: SQLite's test database refuses reads during a write)."""
    expect(page.locator("#board")).to_have_attribute("data-moves", str(played + 1))
    return state(session_id)["history"][played]


def assert_phone_fits(page: Any, where: str) -> None:
    # The page as it settles: a width taken while the polled state was still being drawn
    # once read wider than the phone. A page that stays wider still fails here.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => document.scrollingElement.scrollWidth <= {PHONE_WIDTH}", timeout=5000)
    assert scroll_width(page) <= PHONE_WIDTH, f"{where}: scrolls sideways"
    small = page.eval_on_selector_all(
        "main button, main a, main input, main select, main summary", SMALL_TARGETS
    )
    assert not small, f"{where}: touch targets under 24 px: {small}"


def test_a_full_round_of_the_basic_variant_on_a_phone_with_touch_and_guesses(browsing, demo_site):
    site = demo_site
    session = solo_game(site)
    page = browsing.new_phone_page()
    sign_in(page, site.url, site.students[0].username, site.students[0].password)
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")
    expect(page.locator(".status-line")).to_contain_text("Round 1")
    expect(page.locator("svg.knowledge-board")).to_be_visible()
    assert page.locator("svg.knowledge-board g.marker").count() == 6
    # Before anything is assigned: the next card's front, its category, no back anywhere.
    expect(page.locator(".front-cards .quiz-card")).to_have_count(1)
    expect(page.locator(".last-move")).to_have_count(0)
    assert_accessible(browsing, page, "basic game on a phone, round 1")
    assert_phone_fits(page, "basic game on a phone")

    for move in range(6):
        free = page.locator("button.assign")
        expect(free).to_have_count(6 - move)
        # Every free marker is highlighted on the board as a legal target.
        expect(page.locator("svg.knowledge-board g.marker.legal")).to_have_count(6 - move)
        page.locator(".guess button").first.tap()
        expect(page.locator(".guess button").first).to_have_attribute("aria-pressed", "true")
        marker = free.last.get_attribute("data-marker")
        played = int(page.locator("#board").get_attribute("data-moves"))
        free.last.tap()
        play = next_play(page, session.pk, played)
        assert play["marker"] == marker and play["guess"] is not None
        expect(page.locator("#announce")).to_contain_text(re.compile(rf"\b{play['steps']}\b|abandoned"))
        if play["movement"] == "abandoned":
            expect(page.locator(".last-move .explanation")).to_contain_text("replacement card")
            break
        # The card back is shown, then the move explained from the record.
        expect(page.locator(".last-move .answer")).to_contain_text("Answer:")
        steps = str(play["steps"])
        expect(page.locator(".last-move .explanation")).to_contain_text(re.compile(rf"\b{steps}\b"))
    expect(page.locator(".status-line")).to_contain_text("Round 2", timeout=10_000)
    final = state(session.pk)
    assert final["round"] == 2 and final["moved_this_round"] == []
    round_one = [p for p in final["history"] if p["round"] == 1 and p["movement"] != "abandoned"]
    assert sorted(p["marker"] for p in round_one) == sorted(
        ["team", "white", "green", "yellow", "blue", "red"]
    )
    assert_accessible(browsing, page, "basic game on a phone, round 2")
    assert_phone_fits(page, "basic game on a phone, round 2")
    assert not page_problems(browsing, page)


def test_a_full_round_of_the_strategic_variant_on_the_projector_with_the_keyboard(browsing, demo_site):
    site = demo_site
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    open_page(page, f"{site.url}/games/knowledge/new")
    assert_accessible(browsing, page, "Knowledge? setup page")
    page.get_by_label("On the projector only: the class discusses, I assign the cards").check()
    page.get_by_label("Variant").select_option("strategic")
    with page.expect_navigation():
        page.get_by_role("button", name="Create").click()
    expect(page.locator(".status-line")).to_contain_text("Round 1")
    session_id = int(re.search(r"/games/sessions/(\d+)/", page.url).group(1))
    # All six fronts are read first: six cards to choose from, none assignable yet.
    expect(page.locator(".front-cards button.quiz-card")).to_have_count(6)
    expect(page.locator("button.assign")).to_have_count(0)
    assert_accessible(browsing, page, "strategic game on the projector")

    markers = ["team", "white", "green", "yellow", "blue", "red"]
    order = [5, 0, 3, 1, 4, 2]  # the slots' keys 1-6, in an order of the players' choice
    for move, slot in enumerate(order):
        cards = page.locator(".front-cards button.quiz-card")
        # Keyboard only: focus the last card, choose it with Enter, assign it with a digit.
        cards.last.focus()
        page.keyboard.press("Enter")
        expect(cards.last).to_have_attribute("aria-pressed", "true")
        chosen = cards.last.get_attribute("data-card")
        expect(page.locator("button.assign")).to_have_count(6 - move)
        played = int(page.locator("#board").get_attribute("data-moves"))
        page.keyboard.press(str(slot + 1))
        play = next_play(page, session_id, played)
        # The choice is spent: the next card must be chosen again.
        expect(page.locator("button.assign")).to_have_count(0)
        assert (play["card"], play["marker"]) == (chosen, markers[slot])
        if play["movement"] == "abandoned":
            break
    expect(page.locator(".status-line")).to_contain_text("Round 2", timeout=10_000)
    final = state(session_id)
    round_one = [p for p in final["history"] if p["round"] == 1]
    assert [p["marker"] for p in round_one if p["movement"] != "abandoned"][:1] == ["red"]
    assert sorted(p["marker"] for p in round_one if p["movement"] != "abandoned") == sorted(markers)
    # The strategic variant shows the next round's six fronts again.
    expect(page.locator(".front-cards button.quiz-card")).to_have_count(6)
    assert_accessible(browsing, page, "strategic game, round 2")
    assert not page_problems(browsing, page)


def test_the_knowledge_pages_pass_axe_and_fit_a_phone(browsing, demo_site):
    from games import services as game_services
    from games.engines import knowledge

    site = demo_site
    session = solo_game(site, 1)
    # Play it to the end on the server, as the student would have.
    while session.status != "finished":
        current = knowledge.state_from_dict(session.state)
        action = knowledge.legal_actions(current, "p1")[-1]
        game_services.session_apply_action(session_id=session.pk, player_id="p1", action=dict(action))
        session.refresh_from_db()
    page = browsing.new_phone_page()
    sign_in(page, site.url, site.students[1].username, site.students[1].password)
    for path, where in (
        (f"/games/sessions/{session.pk}/", "finished game"),
        (f"/games/knowledge/sessions/{session.pk}/results", "results"),
        ("/games/knowledge/alone", "play alone"),
        ("/", "home"),
    ):
        open_page(page, f"{site.url}{path}")
        if where == "finished game":
            expect(page.locator(".outcome")).to_be_visible()
            expect(
                page.get_by_role("link", name="All the cards of this game, front and back")
            ).to_be_visible()
        assert_accessible(browsing, page, f"{where} (phone)")
        assert_phone_fits(page, where)
    expect(page.get_by_role("link", name="Play Knowledge? alone")).to_be_visible()

    teacher = browsing.new_phone_page()
    sign_in(teacher, site.url, site.teacher.username, site.teacher.password)
    open_page(teacher, f"{site.url}/games/knowledge/new")
    teacher.get_by_label("Homework: a link for each student to play alone").check()
    teacher.get_by_role("button", name="Create").click()
    link = teacher.locator("#homework-url").input_value()
    assert "/games/knowledge/homework/" in link
    assert_accessible(browsing, teacher, "setup page with a homework link (phone)")
    assert_phone_fits(teacher, "setup page with a homework link")
    open_page(page, link)
    assert_accessible(browsing, page, "homework page (phone)")
    assert_phone_fits(page, "homework page")
    with page.expect_navigation():
        page.get_by_role("button", name="Start my game").tap()
    expect(page.locator(".status-line")).to_contain_text("Round 1")
    assert not page_problems(browsing, page)
