"""Fixtures for the LTI tests: a real platform (lti1p3platform) on 127.0.0.1, and a browser.

Every test that talks to the platform runs twice: over plain HTTP, and over HTTPS as in
production, where a proxy ends TLS and tells Django with ``X-Forwarded-Proto: https``
(config/settings.py with ``HTTPS=true``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from django.core.cache import caches
from django.test import Client
from lti_tool.models import LtiDeployment, LtiRegistration

from lms.lti.keys import key_signing
from tests.lms.lti.platform import INSTRUCTOR, LEARNER, PendingLaunch, Person, Platform, form_of

TOOL = "http://testserver"
SCHEMES = {"http": "http", "https-behind-proxy": "https"}


def pytest_generate_tests(metafunc):
    """Each test that launches (through ``browser``, or asking for ``scheme``) runs over HTTP and HTTPS."""
    if "scheme" in metafunc.fixturenames:
        metafunc.parametrize("scheme", list(SCHEMES.values()), ids=list(SCHEMES), indirect=True)


@pytest.fixture
def scheme(request, settings) -> str:
    """``https``: the settings ``HTTPS=true`` gives, for a request that came through the proxy."""
    if request.param == "https":
        settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
        settings.SECURE_SSL_REDIRECT = True
        settings.SESSION_COOKIE_SECURE = True
        settings.CSRF_COOKIE_SECURE = True
        settings.SESSION_COOKIE_SAMESITE = "None"
        settings.CSRF_COOKIE_SAMESITE = "None"
        settings.SESSION_COOKIE_NAME = "__Secure-sessionid"
        settings.CSRF_COOKIE_NAME = "__Secure-csrftoken"
    return request.param


@pytest.fixture
def tool(request) -> str:
    """Talia's base URL as the LMS and the browser see it."""
    scheme = request.getfixturevalue("scheme") if "scheme" in request.fixturenames else "http"
    return f"{scheme}://testserver"


def _client_for(request) -> Client:
    """A test client; behind the proxy every request carries the proxy's headers (the
    browser's Host, and the scheme the browser used)."""
    if "scheme" in request.fixturenames and request.getfixturevalue("scheme") == "https":
        return Client(HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="testserver")
    return Client()


@pytest.fixture
def client(request) -> Client:
    return _client_for(request)


@pytest.fixture
def admin_client(request, db, admin_user) -> Client:
    client = _client_for(request)
    client.force_login(admin_user)
    return client


def frame_ancestors(response: Any) -> str:
    """The frame-ancestors directive of the response's one Content-Security-Policy."""
    directives = [d.strip() for d in response.headers["Content-Security-Policy"].split(";")]
    found = [d for d in directives if d.startswith("frame-ancestors")]
    assert len(found) == 1, directives
    return found[0]


@pytest.fixture(autouse=True)
def lti_cache_empty(settings):
    """The LTI cache (JWKS, platform origins, states) outlives a test's database: start empty."""
    caches[settings.LTI_CACHE].clear()
    yield
    caches[settings.LTI_CACHE].clear()


@pytest.fixture
def platform(tool):
    lms = Platform(tool_base=tool).start()
    yield lms
    lms.stop()


def register(lms: Platform, *, deployment_active: bool = True) -> LtiRegistration:
    """Manual registration of ``lms`` in Talia, as an admin would enter it."""
    registration = LtiRegistration.objects.create(name="Test LMS", **lms.tool_settings)
    LtiDeployment.objects.create(
        registration=registration, deployment_id=lms.deployment_id, is_active=deployment_active
    )
    key_signing()
    return registration


@pytest.fixture
def registration(db, platform, client) -> LtiRegistration:
    registration = register(platform)
    platform.tool_jwks = client.get("/lti/jwks/").json()
    return registration


@dataclass
class Browser:
    """A person's browser: the test client for Talia, plain HTTP for the LMS's pages."""

    client: Client
    platform: Platform

    def login(self, pending: PendingLaunch, *, client_id: bool = True) -> Any:
        """LMS → Talia's login initiation; returns Talia's answer (a redirect to the LMS)."""
        url = urlsplit(self.platform.launch(pending, client_id=client_id))
        return self.client.get(url.path + "?" + url.query)

    def authenticate(self, login_response: Any) -> tuple[str, dict[str, str]]:
        """Follow Talia's redirect to the LMS's auth endpoint; return the launch form it answers."""
        assert login_response.status_code == 302, login_response.content[:500]
        page = requests.get(login_response["Location"], timeout=5)
        assert page.status_code == 200, page.text
        return form_of(page.text)

    def post_launch(self, action: str, fields: dict[str, str]) -> Any:
        return self.client.post(urlsplit(action).path, fields)

    def launch(self, pending: PendingLaunch, *, client_id: bool = True) -> Any:
        """The full flow: login initiation → LMS auth → form post of the id_token."""
        action, fields = self.authenticate(self.login(pending, client_id=client_id))
        return self.post_launch(action, fields)


@pytest.fixture
def browser(scheme, client, platform) -> Browser:
    return Browser(client, platform)


def teacher_person(n: int = 1) -> Person:
    return Person(
        sub=f"t-{n}",
        name=f"Anna Nowak {n}",
        given_name="Anna",
        family_name=f"Nowak {n}",
        roles=[INSTRUCTOR],
        email=f"anna{n}@school.example",
    )


def student_person(n: int = 1) -> Person:
    return Person(
        sub=f"s-{n}", name=f"Jan Kowalski {n}", given_name="Jan", family_name=f"Kowalski {n}", roles=[LEARNER]
    )
