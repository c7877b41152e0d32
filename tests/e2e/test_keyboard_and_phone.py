"""Talia works by keyboard alone and by touch on a 360-px-wide phone, in English and Polish."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, scroll_width, sign_in_through_form

pytestmark = pytest.mark.e2e

PHONE_WIDTH = 360
POLISH_MO = Path(settings.BASE_DIR) / "locale" / "pl" / "LC_MESSAGES" / "django.mo"


def expect_polish_catalogue() -> None:
    """Talia's own strings need its compiled Polish catalogue; until it exists the rest of
    the test is an expected failure (the language choice itself is checked before)."""
    if not POLISH_MO.exists():
        pytest.xfail(f"{POLISH_MO.relative_to(settings.BASE_DIR)} is not compiled yet (make messages)")


def focused(page) -> dict:
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return {tag: e.tagName, id: e.id, cls: e.className, text: (e.innerText || '').trim()}; }"
    )


def tab_to(page, selector: str, *, most: int = 15) -> int:
    """Press Tab until ``selector`` has the focus; how many presses it took."""
    for presses in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return presses
    raise AssertionError(f"{most} presses of Tab never reached {selector}; last: {focused(page)}")


def test_home_and_login_fit_a_phone(browsing, demo_users_site):
    page = browsing.new_phone_page()
    for url in ("/", "/accounts/login/"):
        open_page(page, demo_users_site.url + url)
        assert scroll_width(page) <= PHONE_WIDTH, f"{url} scrolls sideways on a 360-px phone"
        # Everything one taps is at least 24×24 px at phone width too (WCAG 2.5.8; axe
        # checks it in the desktop layout).
        small = page.eval_on_selector_all(
            "main a, main button, main input, main select, header a, header button, header select",
            "els => els.filter(e => e.offsetParent).filter(e => {"
            " const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })"
            ".map(e => e.outerHTML.slice(0, 80))",
        )
        assert not small, f"{url}: targets too small to tap: {small}"


def test_skip_link_is_the_first_tab_stop_and_moves_focus_to_main(browsing, demo_users_site):
    page = browsing.new_page()
    open_page(page, demo_users_site.url + "/")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip-link")
    expect(skip).to_be_focused()
    # Visible once focused, not left off-screen.
    box = skip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["y"] >= 0
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    # The next Tab continues from the content, not from the top of the page.
    page.keyboard.press("Tab")
    assert page.evaluate("document.querySelector('main').contains(document.activeElement)")


def test_sign_in_with_the_keyboard_alone(browsing, demo_users_site):
    page = browsing.new_page()
    open_page(page, demo_users_site.url + "/accounts/login/")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    tab_to(page, "#id_username")
    page.keyboard.type(demo_users_site.teacher.username)
    page.keyboard.press("Tab")
    expect(page.locator("#id_password")).to_be_focused()
    page.keyboard.type(demo_users_site.teacher.password)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.rstrip("/") == demo_users_site.url
    expect(page.locator(".site-header")).to_contain_text(demo_users_site.teacher.username)


def test_admin_symbols_on_a_phone_by_touch(browsing, demo_site):
    page = browsing.new_phone_page()
    sign_in_through_form(page, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    assert scroll_width(page) <= PHONE_WIDTH, "the teacher's home scrolls sideways"

    open_page(page, demo_site.url + "/admin/content/symbol/")
    # Django admin's responsive CSS lets the results table scroll inside its own box;
    # the page itself must not.
    assert scroll_width(page) <= PHONE_WIDTH, "the symbol list scrolls sideways"
    assert page.locator("#result_list tbody tr").count() >= 50

    link = page.locator("#result_list tbody tr a[href*='/change/']").first
    link.scroll_into_view_if_needed()
    with page.expect_navigation():
        link.tap()
    assert re.search(r"/admin/content/symbol/\d+/change/$", page.url)
    expect(page.locator("#symbol_form")).to_be_visible()
    assert scroll_width(page) <= PHONE_WIDTH, "the symbol's change form scrolls sideways"
    # Its Save button is on the screen, big enough for a finger.
    save = page.locator("#symbol_form input[type=submit][name=_save]")
    save.scroll_into_view_if_needed()
    box = save.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE_WIDTH
    assert box["height"] >= 24


def test_language_switcher_turns_the_interface_polish(browsing, demo_users_site):
    page = browsing.new_phone_page()
    open_page(page, demo_users_site.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator(".site-header nav")).to_contain_text("Sign in")
    page.locator("#language-select").select_option("pl")
    with page.expect_navigation():
        page.locator(".language button[type=submit]").tap()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect_polish_catalogue()
    expect(page.locator(".site-header nav a[href$='/accounts/login/']")).to_have_text("Zaloguj się")
    # The choice sticks: the next page is Polish too.
    open_page(page, demo_users_site.url + "/accounts/login/")
    expect(page.locator("h1")).to_have_text("Zaloguj się")


def test_a_polish_browser_gets_polish(browsing, demo_users_site):
    page = browsing.new_page(locale="pl-PL")
    open_page(page, demo_users_site.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect_polish_catalogue()
    expect(page.locator(".site-header nav a[href$='/accounts/login/']")).to_have_text("Zaloguj się")


def test_an_english_browser_gets_english(browsing, demo_users_site):
    page = browsing.new_page(locale="en-GB")
    open_page(page, demo_users_site.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator(".site-header nav a[href$='/accounts/login/']")).to_have_text("Sign in")
