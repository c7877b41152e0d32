"""What the browser tests share besides fixtures: watching a page, signing in, running axe."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, Response, expect

# WCAG 2.0, 2.1 and 2.2, levels A and AA (axe-core has no wcag22a tag).
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
#: How long after an abort the new document that caused it may still commit (PageWatch).
ABORT_BEFORE_NAVIGATION_S = 2.0

_axe = Axe()


def refused_websocket(problem: str) -> bool:
    """The live server's refusal of a page's WebSocket (pytest-django's server speaks WSGI
    only; the pages poll instead), or the page giving up on one: not a problem there."""
    return "WebSocket" in problem or "/ws/sessions/" in problem


@dataclass
class PageWatch:
    """Collects what goes wrong on a page: console errors, script errors, failed requests.

    Only requests to the live server count (the pages load nothing from elsewhere;
    chromium's own background traffic is switched off by the launch flags).

    A request the browser aborts (``net::ERR_ABORTED``) because the page went on to another
    document before it finished is not a problem: a script the page was still importing, a
    poll under way, when a test (or a person) opens the next page right after the load event.
    Only that case is let through: the main frame must have moved to a new document (a
    commit, Playwright's ``framenavigated``) after the request started, and before the abort
    or within a moment after it. The document that made the request is then gone; its
    scripts may even have started the request after the navigation did. Chromium reports the
    abort and the commit in either order, so an abort is judged when the problems are taken.
    """

    origin: str
    problems: list[str] = field(default_factory=list)
    # When the main frame moved to each new document (time.monotonic()), and how many it had
    # moved to when each request started.
    _committed_at: list[float] = field(default_factory=list, init=False)
    _started: dict[Any, int] = field(default_factory=dict, init=False)
    # Aborted requests still to judge: what to report, the navigations when the request
    # started, and when it was aborted.
    _aborts: list[tuple[str, int, float]] = field(default_factory=list, init=False)

    def attach(self, page: Page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        page.on("request", self._request)
        page.on("framenavigated", self._frame_navigated)
        page.on("requestfinished", lambda request: self._started.pop(request, None))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)

    def take(self) -> list[str]:
        """The problems seen since the last call."""
        left = [problem for problem, started, at in self._aborts if not self._moved_on(started, at)]
        problems, self.problems, self._aborts = [*self.problems, *left], [], []
        return problems

    def _same_origin(self, url: str) -> bool:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}" == self.origin

    def _console(self, message: Any) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            if not self._is_favicon(where):
                self.problems.append(f"console error: {message.text} ({where})")

    def _is_favicon(self, url: str) -> bool:
        # Chromium asks for /favicon.ico once per browser, on whichever page comes first,
        # when that page names no icon; check_icon() checks every page names one instead.
        return self._same_origin(url) and urlsplit(url).path == "/favicon.ico"

    def _frame_navigated(self, frame: Any) -> None:
        if frame.parent_frame is None:
            self._committed_at.append(time.monotonic())

    def _request(self, request: Any) -> None:
        self._started[request] = len(self._committed_at)

    def _moved_on(self, started: int, aborted_at: float) -> bool:
        """Whether the main frame moved to a new document after the request started, by the
        abort or within a moment of it."""
        return any(at <= aborted_at + ABORT_BEFORE_NAVIGATION_S for at in self._committed_at[started:])

    def _request_failed(self, request: Any) -> None:
        started = self._started.pop(request, None)
        if not self._same_origin(request.url) or self._is_favicon(request.url):
            return
        problem = f"request failed: {request.url} ({request.failure})"
        if request.failure == "net::ERR_ABORTED" and started is not None:
            self._aborts.append((problem, started, time.monotonic()))  # moved on? see take()
        else:
            self.problems.append(problem)

    def _response(self, response: Response) -> None:
        if self._same_origin(response.url) and response.status >= 400 and not self._is_favicon(response.url):
            self.problems.append(f"HTTP {response.status}: {response.url}")


def open_page(page: Page, url: str) -> Response:
    """Go to ``url`` and wait until its scripts ran; the page must answer 200."""
    response = page.goto(url, wait_until="load")
    assert response is not None, f"{url}: no response"
    assert response.status == 200, f"{url} answered HTTP {response.status}"
    return response


def icon_missing(page: Page) -> bool:
    """Whether the page names no icon (so the browser asks for /favicon.ico, a 404)."""
    return page.locator("head link[rel~='icon']").count() == 0


def sign_in(page: Page, base_url: str, username: str, password: str) -> None:
    """Sign in as ``username``, then open the home page, where the login form leads.

    The session is the one Django's login starts (``Client.force_login``), handed to the
    browser as its cookie once the password is checked: the login form's two page loads cost
    chromium and the live server about 0.2 CPU seconds for each of the suite's hundreds of
    sign-ins. The form itself is what ``sign_in_through_form`` and the tests of signing in
    use (``test_keyboard_and_phone``, ``test_make_run``, the login cards)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.get(username=username)
    assert user.check_password(password), f"{username}: not the password of the account"
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    cookie = {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base_url,
        "httpOnly": True,
        "sameSite": "Lax",
    }
    page.context.add_cookies([cookie])
    open_page(page, f"{base_url}/")
    expect(page.locator(".site-header form[action$='/logout/'] button")).to_contain_text(username)


def sign_in_through_form(page: Page, base_url: str, username: str, password: str) -> None:
    """Sign in through the site's real login form, as a person would."""
    open_page(page, f"{base_url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(password)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    expect(page.locator(".site-header form[action$='/logout/'] button")).to_contain_text(username)


def axe_violations(page: Page, *, disabled_rules: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Run axe-core in the page, WCAG 2.2 AA rules only, and return its violations."""
    options: dict[str, Any] = {
        "runOnly": {"type": "tag", "values": WCAG_TAGS},
        "resultTypes": ["violations"],
        # Not the "cssom" asset: axe fetches every @import again by its raw relative URL,
        # resolved against the page (Django admin's forms.css imports 'widgets.css', so
        # axe asks for /content/imports/new/widgets.css, a 404, and on admin URLs for a
        # "change" page that queues an "object doesn't exist" message). Only the
        # experimental css-orientation-lock rule uses it, and experimental rules don't run.
        "preload": {"assets": ["media"], "timeout": 10_000},
    }
    if disabled_rules:
        options["rules"] = {rule: {"enabled": False} for rule in disabled_rules}
    return list(_axe.run(page, options=options).response["violations"])


def describe_violations(where: str, violations: list[dict[str, Any]]) -> str:
    """Each violation's id, help and nodes, readable in a failed test's output."""
    lines = []
    for violation in violations:
        lines.append(
            f"{where}: {violation['id']} ({violation.get('impact')}): {violation['help']}"
            f" <{violation.get('helpUrl', '')}>"
        )
        for node in violation["nodes"][:8]:
            html = re.sub(r"\s+", " ", node.get("html", ""))[:200]
            lines.append(f"    at {', '.join(map(str, node['target']))}: {html}")
            summary = (node.get("failureSummary") or "").replace("\n", " / ")
            if summary:
                lines.append(f"       {summary[:400]}")
        if len(violation["nodes"]) > 8:
            lines.append(f"    … and {len(violation['nodes']) - 8} more nodes")
    return "\n".join(lines)


def scroll_width(page: Page) -> int:
    """The page's width in CSS pixels; wider than the viewport means it scrolls sideways."""
    return int(page.evaluate("document.scrollingElement.scrollWidth"))
