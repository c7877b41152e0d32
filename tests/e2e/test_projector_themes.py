"""The projector's light and dark themes (issue 18, item 6), in chromium at 1920×1080.

Every live page that goes on a projector (ZnajZnak's duel and class duels, Know, Activity,
Knowledge?, the workshop) is axe-clean in both themes, colour contrast included; the "Dark
theme" button beside the projector toggle works by keyboard and is remembered after a reload
(and ``?theme=light`` undoes it); and the dark theme really is dark. The colours are the tokens
of static/talia/tokens.css.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page
from tests.e2e.geometry import PROJECTOR_1080, projector_view
from tests.e2e.test_activity_turn import running_game
from tests.e2e.test_board_screens import knowledge_on_the_projector
from tests.e2e.test_screen_contract import new_duel, page_errors
from tests.e2e.test_screen_contract import no_problems as accessible
from tests.e2e.test_screens_class_duels import class_round
from tests.e2e.test_screens_know import know_in_its_answers
from tests.e2e.test_screens_znajznak import signed_in, students

pytestmark = pytest.mark.e2e

# The WCAG relative luminance of the page's background: white is 1, black 0. The dark theme's
# paper is near black; the light theme's is white.
DARK_AT_MOST = 0.05
LIGHT_AT_LEAST = 0.9

BACKGROUND_LUMINANCE = """() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\\d+(\\.\\d+)?/g).map(Number);
  const linear = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}"""


def luminance(page: Any) -> float:
    return float(page.evaluate(BACKGROUND_LUMINANCE))


def duel_page(page: Any, url: str) -> str:
    """A new ZnajZnak duel's page, left only once its game script has loaded (else the import is cut off)."""
    session_id = new_duel(page, url)
    page.wait_for_function(
        "() => performance.getEntriesByType('resource').some((entry) => entry.name.endsWith('/dom.js'))"
    )
    return f"{url}/games/sessions/{session_id}/"


def with_query(url: str, query: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{query}"


def assert_both_themes(browsing: Any, page: Any, url: str, ready: str, where: str) -> None:
    """``url`` on the projector in the light theme, then dark by the keyboard, then after a reload."""
    page.wait_for_load_state("load")  # the page before: its scripts loaded, not cut off
    open_page(page, with_query(url, "view=projector&theme=light"))
    expect(page.locator(ready).first).to_be_visible()
    assert projector_view(page)
    toggle = page.locator("[data-theme-toggle]")
    expect(toggle).to_have_accessible_name("Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("() => document.documentElement.dataset.theme") is None
    assert luminance(page) >= LIGHT_AT_LEAST, f"{where}: the light theme's page is not light"
    accessible(browsing, page, f"{where}, light theme")

    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert luminance(page) <= DARK_AT_MOST, f"{where}: the dark theme's page is {luminance(page):.3f} light"
    accessible(browsing, page, f"{where}, dark theme")

    # Remembered by this browser: a reload (the address without ?theme) stays dark.
    open_page(page, with_query(url, "view=projector"))
    expect(page.locator(ready).first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("[data-theme-toggle]")).to_have_attribute("aria-pressed", "true")
    assert luminance(page) <= DARK_AT_MOST
    accessible(browsing, page, f"{where}, dark theme after a reload")

    # The space bar turns it back; ?theme=light would too.
    page.locator("[data-theme-toggle]").focus()
    page.keyboard.press("Space")
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("dark"))
    assert luminance(page) >= LIGHT_AT_LEAST
    open_page(page, with_query(url, "view=projector&theme=dark"))
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    open_page(page, with_query(url, "view=projector&theme=light"))
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("dark"))
    page_errors(browsing, page, where)


def test_the_theme_toggle_shows_on_the_projector_view_only(browsing, demo_site):
    page = signed_in(browsing, demo_site.teacher, demo_site.url, **PROJECTOR_1080)
    url = duel_page(page, demo_site.url)
    open_page(page, with_query(url, "view=normal&theme=dark"))
    expect(page.locator("[data-theme-toggle]")).to_be_hidden()
    # The dark theme is the projector's: the normal view stays light with it remembered.
    assert luminance(page) >= LIGHT_AT_LEAST
    page.locator("[data-projector-toggle]").click()
    expect(page.locator("[data-theme-toggle]")).to_be_visible()
    assert luminance(page) <= DARK_AT_MOST
    page_errors(browsing, page, "ZnajZnak duel lobby")


def test_the_znajznak_duel_in_both_themes(browsing, demo_site):
    page = signed_in(browsing, demo_site.teacher, demo_site.url, **PROJECTOR_1080)
    url = duel_page(page, demo_site.url)
    assert_both_themes(browsing, page, url, "[data-join-strip]", "ZnajZnak duel lobby")


def test_the_class_duels_overview_in_both_themes(browsing, demo_users_site):
    site = demo_users_site
    run = class_round(site, 8)
    page = signed_in(browsing, site.teacher, site.url, **PROJECTOR_1080)
    url = f"{site.url}/games/sessions/{run.lobby_id}/"
    assert_both_themes(browsing, page, url, ".duels .duel", "the class duels overview")


def test_the_know_projector_in_both_themes(browsing, demo_users_site):
    site = demo_users_site
    session = know_in_its_answers(site)
    page = signed_in(browsing, site.teacher, site.url, **PROJECTOR_1080)
    url = f"{site.url}/games/know/{session.pk}/projector"
    assert_both_themes(browsing, page, url, ".know-round .know-question", "the Know projector")


def test_activity_in_both_themes(browsing, demo_site):
    session = running_game(demo_site.teacher_user)
    page = signed_in(browsing, demo_site.teacher, demo_site.url, **PROJECTOR_1080)
    url = f"{demo_site.url}/games/sessions/{session.pk}/"
    assert_both_themes(browsing, page, url, ".activity-board-svg", "Activity in play")


@pytest.mark.parametrize("variant", ["basic", "strategic"])
def test_knowledge_in_both_themes(browsing, demo_site, variant):
    page = signed_in(browsing, demo_site.teacher, demo_site.url, **PROJECTOR_1080)
    session_id = knowledge_on_the_projector(page, demo_site.url, variant)
    if variant == "basic":
        page.locator("button.assign").last.click()
        expect(page.locator(".last-move")).to_be_visible()
    url = f"{demo_site.url}/games/sessions/{session_id}/"
    assert_both_themes(browsing, page, url, ".knowledge-board", f"Knowledge? {variant}")


def test_the_workshop_lead_page_in_both_themes(browsing, demo_site):
    from games.workshop import services as workshop_services

    workshop = workshop_services.workshop_create(teacher=demo_site.teacher_user, title="3b")
    workshop_services.workshop_join(workshop=workshop, user=students(demo_site, 1)[0])
    workshop_services.workshop_deal(workshop=workshop, by=demo_site.teacher_user)
    page = signed_in(browsing, demo_site.teacher, demo_site.url, **PROJECTOR_1080)
    url = f"{demo_site.url}/games/workshops/{workshop.pk}/lead"
    assert_both_themes(browsing, page, url, "#phase-heading", "the workshop's lead page")
