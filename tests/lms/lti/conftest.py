"""Fixtures for the LTI tests: a real platform (lti1p3platform) on 127.0.0.1, and a browser."""

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
def platform():
    lms = Platform(tool_base=TOOL).start()
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
def browser(client, platform) -> Browser:
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
