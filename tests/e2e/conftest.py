"""Fixtures of the browser tests: Debian's chromium driven by Playwright, pytest-django's
live server holding the demo content, and pages signed in as the demo teacher or a student.

One chromium serves every browser test of a run: the first test starts it and it is
closed after the last (``pytest_runtest_teardown`` below), so the rest of the suite
runs without Playwright's event loop in its thread. Each test gets its own browser
context, so cookies, language and viewport never leak from one test into the next.

The live server needs the transactional database, which is emptied after every
test; a serialized rollback brings back what the migrations seed (the periods and
the Teachers group) before each test, which then loads the demo users and content.

Without chromium the browser tests are skipped on a laptop and fail under CI=true.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.browsing import PageWatch, refused_websocket, sign_in

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: Debian's chromium-headless-shell where it is installed: the same Blink, without the
#: full browser's window machinery, for less CPU per page (README, "Two commands").
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("PLAYWRIGHT_CHROMIUM_EXECUTABLE") or (
    HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else "/usr/bin/chromium"
)
# Headless, no sandbox (containers run as root), and none of chromium's own traffic:
# a test must depend on nothing but the live server.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} Under CI=true the browser tests never skip.", pytrace=False)
    pytest.skip(reason)


class _Chromium:
    """The run's one chromium: started on first use, stopped after the last browser test."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self.browser: Any = None
        self._async_unsafe: str | None = None
        self._aliases: list[str] = []

    def get(self) -> Any:
        if self.browser is None:
            self._start()
        return self.browser

    def _start(self) -> None:
        if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
            _unavailable(
                f"No chromium at {CHROMIUM}: apt-get install chromium-headless-shell, or point "
                "PLAYWRIGHT_CHROMIUM_EXECUTABLE at one (Talia never downloads browsers)."
            )
        from django.db import connections

        # Playwright's sync API keeps an asyncio loop running in this thread for as long
        # as the browser lives. Django then takes every ORM call of the (synchronous)
        # tests for one made from a coroutine: it refuses them unless
        # DJANGO_ALLOW_ASYNC_UNSAFE is set, and it keeps the database connections of
        # "async code" apart from the thread's. Without the thread's connections the
        # test database loses what pytest-django keeps on them (the serialized state
        # the transactional tests are rolled back to), so the same connection objects
        # are put where the async side looks for them. Both are undone when chromium stops.
        self._async_unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        thread_connections = {alias: connections[alias] for alias in connections}
        playwright = sync_playwright().start()
        for alias, connection in thread_connections.items():
            setattr(connections._connections, alias, connection)
        self._aliases = list(thread_connections)
        try:
            self.browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
        except Exception:
            playwright.stop()
            self._restore_env()
            raise
        self._playwright = playwright

    def stop(self) -> None:
        if self._playwright is None:
            return
        from django.db import connections

        for alias in self._aliases:  # the loop still runs: this is the async side's storage
            with contextlib.suppress(AttributeError):
                delattr(connections._connections, alias)
        try:
            self.browser.close()
        finally:
            self._playwright.stop()
            self._playwright = self.browser = None
            self._restore_env()

    def _restore_env(self) -> None:
        if self._async_unsafe is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = self._async_unsafe


_CHROMIUM = _Chromium()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    # trylast: after the test's own fixtures (its browser contexts) were torn down.
    if nextitem is None or nextitem.get_closest_marker("e2e") is None:
        _CHROMIUM.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _CHROMIUM.stop()


# --- The live server and the demo content ----------------------------------------------------


@dataclass(frozen=True)
class Login:
    username: str
    password: str


@dataclass(frozen=True)
class DemoSite:
    """The live server's address and the demo logins; ``teacher_user`` is the teacher's row."""

    url: str
    teacher: Login
    students: tuple[Login, ...]
    teacher_user: Any


@pytest.fixture
def demo_users_site(
    live_server: Any, django_db_serialized_rollback: None, settings: Any, tmp_path: Path
) -> DemoSite:
    """The live server with the demo users (no content): enough for the site's own pages."""
    from lms.demo import demo_users
    from lms.models import User

    # demo_users() keeps the passwords in VAR_DIR: a throwaway one, not the developer's.
    settings.VAR_DIR = tmp_path / "var"
    # Static files: tests/conftest.py switches to the plain storage (no manifest without
    # collectstatic) and the live server's StaticFilesHandler serves them from the finders.
    logins = demo_users()
    teacher = next(x for x in logins if x.role == "teacher")
    students = tuple(Login(x.username, x.password) for x in logins if x.role == "student")
    return DemoSite(
        url=live_server.url,
        teacher=Login(teacher.username, teacher.password),
        students=students,
        teacher_user=User.objects.get(username=teacher.username),
    )


@pytest.fixture
def demo_site(demo_users_site: DemoSite) -> DemoSite:
    """The live server with the demo users and all the demo content, owned by the teacher."""
    from tests.e2e.demo_snapshot import demo_content_for

    demo_content_for(demo_users_site.teacher_user)
    return demo_users_site


# --- Browser contexts and pages --------------------------------------------------------------


class Browsing:
    """Opens pages in fresh contexts of the one chromium and watches each for problems.

    Every console error, script error and failed request to the live server is
    recorded; a test reads them with ``problems(page)``, and what it left unread
    fails the test at teardown. Against a server that ``refuses_websocket`` (pytest-django's
    WSGI live server), the teardown lets the refused handshakes through: a live page tries
    its socket again with a back-off (``live.js``), so a try may come after a test's last
    look. Against a real ASGI server (``make run``, the production topology) it counts.
    """

    def __init__(self, browser: Any, base_url: str, *, refuses_websocket: bool = False) -> None:
        self.browser = browser
        self.base_url = base_url
        self.refuses_websocket = refuses_websocket
        self._contexts: list[Any] = []
        self._watches: dict[int, PageWatch] = {}

    def new_page(self, **context_options: Any) -> Any:
        # A projector's 1280×800 unless a test asks for another screen.
        options = {"locale": "en-GB", "viewport": {"width": 1280, "height": 800}}
        options.update(context_options)
        context = self.browser.new_context(base_url=self.base_url, **options)
        context.set_default_timeout(TIMEOUT_MS)
        self._contexts.append(context)
        page = context.new_page()
        watch = PageWatch(origin=self.base_url)
        watch.attach(page)
        self._watches[id(page)] = watch
        return page

    def new_phone_page(self, **context_options: Any) -> Any:
        """A 360×740 touch phone."""
        return self.new_page(
            viewport={"width": 360, "height": 740},
            has_touch=True,
            is_mobile=True,
            **context_options,
        )

    def problems(self, page: Any) -> list[str]:
        return self._watches[id(page)].take()

    def close(self) -> list[str]:
        left = [p for watch in self._watches.values() for p in watch.take()]
        if self.refuses_websocket:
            left = [p for p in left if not refused_websocket(p)]
        for context in self._contexts:
            context.close()
        return left


@pytest.fixture
def browser() -> Any:
    return _CHROMIUM.get()


@pytest.fixture
def browsing(browser: Any, live_server: Any) -> Iterator[Browsing]:
    session = Browsing(browser, live_server.url, refuses_websocket=True)
    yield session
    left = session.close()
    if left:
        pytest.fail("The pages reported problems:\n" + "\n".join(left), pytrace=False)


def _signed_in_page(browsing: Browsing, site: DemoSite, login: Login) -> Any:
    page = browsing.new_page()
    sign_in(page, site.url, login.username, login.password)
    return page


@pytest.fixture
def teacher_page(browsing: Browsing, demo_site: DemoSite) -> Any:
    """A page signed in, through the login form, as the demo teacher, with the demo content."""
    return _signed_in_page(browsing, demo_site, demo_site.teacher)


@pytest.fixture
def student_page(browsing: Browsing, demo_users_site: DemoSite) -> Any:
    """A page signed in, through the login form, as a demo student."""
    return _signed_in_page(browsing, demo_users_site, demo_users_site.students[0])
