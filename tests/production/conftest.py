"""The production path: Talia behind nginx over https, as ``.ci/production-up`` starts it.

The topology is the one ``docs/deploy.md`` describes and ``deploy/`` holds: nginx with TLS
in front of two daphne processes, a Celery worker and beat, PostgreSQL and Redis. The
tests reach it only as a school would, through ``https://talia.example.org`` (trusting the
CA the up script made), and prepare what they need (people, content, an LMS) with
``manage.py`` commands under the production environment file.

Without ``TALIA_PRODUCTION_URL`` the suite is skipped on a laptop; under CI=true it fails,
and so does an address that does not answer anywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from playwright.sync_api import sync_playwright

from tests.e2e.browsing import PageWatch
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.production.site import Production, production_from_environment

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
HOST = "talia.example.org"


@pytest.fixture(scope="session")
def production() -> Production:
    site = production_from_environment()
    if site is None:
        reason = (
            "TALIA_PRODUCTION_URL is not set: start the production topology with .ci/production-up "
            "and load its exports (. /run/talia/exports.sh)."
        )
        if IN_CI:
            pytest.fail(f"{reason} Under CI=true the production suite never skips.", pytrace=False)
        pytest.skip(reason)
    url = site.url
    try:
        answer = site.session().get(f"{url}/healthz", timeout=15)
    except requests.RequestException as exc:
        pytest.fail(f"{url}/healthz is unreachable: {exc}", pytrace=False)
    if answer.status_code != 200:
        pytest.fail(f"{url}/healthz answered {answer.status_code}", pytrace=False)
    return site


# People and the demo content (the shared 57-symbol set), made once per run with the
# services an operator's scripts would call. Names are new each run: the database outlives it.
PEOPLE = """
import json, secrets
from content.demo.loader import demo_content
from lms.services import user_create
tag = secrets.token_hex(3)
made = {}
for key, role in (("teacher", "teacher"), ("ala", "student"), ("kuba", "student")):
    username, password = f"prod-{key}-{tag}", secrets.token_urlsafe(12)
    user = user_create(username=username, password=password, role=role)
    made[key] = [username, password]
    if role == "teacher":
        teacher = user
demo_content(owner=teacher)
print(json.dumps(made))
"""


@dataclass(frozen=True)
class Login:
    username: str
    password: str


@pytest.fixture(scope="session")
def people(production: Production) -> dict[str, Login]:
    return {key: Login(*value) for key, value in production.shell(PEOPLE).items()}


def signed_in(production: Production, login: Login) -> requests.Session:
    """A client signed in through the login form, over https, with the CSRF token as a browser."""
    client = production.session()
    form = client.get(f"{production.url}/accounts/login/", timeout=30)
    assert form.status_code == 200, form.status_code
    answer = client.post(
        f"{production.url}/accounts/login/",
        data={
            "username": login.username,
            "password": login.password,
            "csrfmiddlewaretoken": csrf_of(form.text),
        },
        headers={"Referer": f"{production.url}/accounts/login/", "Origin": production.url},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 302, (answer.status_code, answer.text[:500])
    return client


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


# --- Chromium, reaching talia.example.org at 127.0.0.1 ----------------------------------------


class Browsing:
    """Fresh contexts of one chromium on the production address, each page watched for problems."""

    def __init__(self, browser: Any, url: str) -> None:
        self.browser = browser
        self.url = url
        self._contexts: list[Any] = []
        self._watches: dict[int, PageWatch] = {}

    def new_page(self, **options: Any) -> Any:
        settings = {"locale": "en-GB", "viewport": {"width": 1280, "height": 800}, **options}
        context = self.browser.new_context(base_url=self.url, **settings)
        context.set_default_timeout(TIMEOUT_MS)
        self._contexts.append(context)
        page = context.new_page()
        watch = PageWatch(origin=self.url)
        watch.attach(page)
        self._watches[id(page)] = watch
        return page

    def problems(self, page: Any) -> list[str]:
        return self._watches[id(page)].take()

    def close(self) -> list[str]:
        left = [p for watch in self._watches.values() for p in watch.take()]
        for context in self._contexts:
            context.close()
        self._contexts = []
        return left


@pytest.fixture(scope="module")
def chromium(production: Production) -> Iterator[Any]:
    """Chromium resolving the site's name to this machine. The certificate is checked by the
    ``requests`` tests against the CA; chromium, which keeps its own trust store, is told
    to accept it."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        message = f"No chromium at {CHROMIUM}: apt-get install chromium-headless-shell."
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                *CHROMIUM_ARGS,
                f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
                "--ignore-certificate-errors",
            ],
        )
        yield browser
        browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def browsing(chromium: Any, production: Production) -> Iterator[Browsing]:
    session = Browsing(chromium, production.url)
    yield session
    left = session.close()
    if left:
        pytest.fail("The pages reported problems:\n" + "\n".join(left), pytrace=False)
