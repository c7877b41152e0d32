"""The browser tests' page watch (tests/e2e/browsing.py) tells a page's problems from the
requests a navigation cut off: a script or a poll still under way when the next page opens
is aborted by the browser, and that is no fault of the page; an abort without a navigation is.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browsing import open_page

pytestmark = pytest.mark.e2e

HELD = "/static/talia/held-back.js"


def add_script(page: Any, url: str) -> None:
    with page.expect_request(f"**{url}"):
        page.evaluate(
            "(url) => { const s = document.createElement('script'); s.src = url; document.head.append(s); }",
            url,
        )


def test_a_request_cut_off_by_opening_the_next_page_is_not_a_problem(browsing, live_server):
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    held: list[Any] = []
    # Never answered: the script is still loading when the page moves on.
    page.route(f"**{HELD}", lambda route: held.append(route))
    add_script(page, HELD)
    open_page(page, f"{live_server.url}/accounts/login/")
    assert browsing.problems(page) == []


def test_a_request_aborted_while_the_page_stays_is_a_problem(browsing, live_server):
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    page.route(f"**{HELD}", lambda route: route.abort("aborted"))
    with page.expect_event("requestfailed"):
        add_script(page, HELD)
    problems = browsing.problems(page)
    assert f"request failed: {live_server.url}{HELD} (net::ERR_ABORTED)" in problems, problems


def test_a_request_the_next_page_makes_is_watched_again(browsing, live_server):
    """A navigation forgives only what was under way before it, not what the new page does."""
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    open_page(page, f"{live_server.url}/accounts/login/")
    page.route(f"**{HELD}", lambda route: route.abort("aborted"))
    with page.expect_event("requestfailed"):
        add_script(page, HELD)
    problems = browsing.problems(page)
    assert f"request failed: {live_server.url}{HELD} (net::ERR_ABORTED)" in problems, problems


def test_an_abort_reported_just_before_the_next_page_is_not_a_problem(browsing, live_server):
    """Leaving a page stops its loads first: chromium may report the abort before the
    navigation's own request."""
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    page.route(f"**{HELD}", lambda route: route.abort("aborted"))
    with page.expect_event("requestfailed"):
        add_script(page, HELD)
    open_page(page, f"{live_server.url}/accounts/login/")
    assert browsing.problems(page) == []


def test_an_abort_long_before_the_next_page_is_still_a_problem(browsing, live_server, monkeypatch):
    from tests.e2e import browsing as watching

    monkeypatch.setattr(watching, "ABORT_BEFORE_NAVIGATION_S", -1.0)  # "long" without waiting
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    page.route(f"**{HELD}", lambda route: route.abort("aborted"))
    with page.expect_event("requestfailed"):
        add_script(page, HELD)
    open_page(page, f"{live_server.url}/accounts/login/")
    problems = browsing.problems(page)
    assert f"request failed: {live_server.url}{HELD} (net::ERR_ABORTED)" in problems, problems


def _refused_socket(browsing: Any, live_server: Any) -> None:
    """A page of ``browsing`` opens a live page's socket; the WSGI live server refuses it."""
    page = browsing.new_page()
    open_page(page, f"{live_server.url}/")
    with page.expect_event("console", predicate=lambda message: message.type == "error"):
        page.evaluate("() => { new WebSocket(`ws://${location.host}/ws/sessions/1/`); }")


def test_a_refused_websocket_left_for_the_teardown_is_let_through_by_the_wsgi_live_server(
    browser, live_server
):
    """A live page tries its socket again with a back-off, after a test's last look too."""
    from tests.e2e.conftest import Browsing

    browsing = Browsing(browser, live_server.url, refuses_websocket=True)
    _refused_socket(browsing, live_server)
    assert browsing.close() == []


def test_a_refused_websocket_counts_at_the_teardown_of_a_real_server(browser, live_server):
    """Against ``make run`` or the production topology a socket must open: a refusal counts."""
    from tests.e2e.conftest import Browsing

    browsing = Browsing(browser, live_server.url)
    _refused_socket(browsing, live_server)
    left = browsing.close()
    assert any("/ws/sessions/1/" in problem for problem in left), left
