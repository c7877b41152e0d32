"""The Content-Security-Policy in a real browser: an inline script on a Talia page is refused,
and the page watch of every browser test reports the refusal, so a page that needs one fails."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.browsing import open_page

pytestmark = pytest.mark.e2e


def test_an_inline_script_is_refused_and_the_refusal_fails_a_page(
    browsing: Any, demo_users_site: Any
) -> None:
    page = browsing.new_page()
    open_page(page, f"{demo_users_site.url}/")
    assert browsing.problems(page) == []
    # What an injected <script> or an inline handler would be: the browser must not run it.
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.__ran = true;";
            document.body.append(script);
            const button = document.createElement("button");
            button.id = "csp-probe";
            button.textContent = "probe";
            button.setAttribute("onclick", "window.__handler_ran = true;");
            document.querySelector("main").append(button);
        }"""
    )
    page.locator("#csp-probe").click()
    page.wait_for_timeout(300)
    assert page.evaluate("() => [window.__ran === true, window.__handler_ran === true]") == [False, False]
    # Chromium's words changed over the versions ("Refused to execute inline script
    # because it violates …", now "Executing inline script violates …"); both are
    # console errors, which the page watch reports and so fails the test that saw them.
    problems = [p for p in browsing.problems(page) if p.startswith("console error:")]
    script = re.compile(r"(Refused to execute|Executing) inline script .*Content Security Policy", re.S)
    handler = re.compile(
        r"(Refused to execute|Executing) inline event handler .*Content Security Policy", re.S
    )
    assert any(script.search(p) for p in problems), problems
    assert any(handler.search(p) for p in problems), problems
