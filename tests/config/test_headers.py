"""Headers on every response (config/headers.py): one Content-Security-Policy, Permissions-Policy,
and Cache-Control private, no-store for signed-in people and the API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse

from content.models import Status
from tests.factories import SymbolFactory

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)


def directives(response) -> dict[str, str]:
    policy = response["Content-Security-Policy"]
    parsed = {}
    for part in policy.split(";"):
        name, _, value = part.strip().partition(" ")
        assert name not in parsed, f"{name} twice in {policy!r}"
        parsed[name] = value
    return parsed


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_pages_run_only_scripts_from_talia_and_are_framed_by_nobody():
    policy = directives(Client().get("/"))
    assert policy["script-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]


def test_lti_pages_merge_their_frame_ancestors_into_the_one_policy():
    response = Client().get("/lti/launch/")  # a refusal page, framed by the LMS
    policy = directives(response)
    assert policy["script-src"] == "'self'" and policy["object-src"] == "'none'"
    assert policy["frame-ancestors"].startswith("'self'")
    assert "X-Frame-Options" not in response


def test_a_view_with_its_own_policy_keeps_it(teacher):
    symbol = SymbolFactory(owner=teacher, status=Status.DRAFT)
    symbol.picture.save("a.svg", ContentFile(b'<svg xmlns="http://www.w3.org/2000/svg"/>'))
    response = signed_in(teacher).get(reverse("content:symbol_picture", args=[symbol.pk]))
    assert response.status_code == 200
    policy = directives(response)
    assert policy["default-src"] == "'none'" and "sandbox" in policy and "script-src" not in policy
    assert policy["frame-ancestors"] == "'none'"
    # Its own private caching stays for a signed-in person: the browser keeps the picture.
    assert response["Cache-Control"] == "private, max-age=3600"


def test_every_response_denies_the_powerful_features(student):
    for response in (Client().get("/"), signed_in(student).get("/"), Client().get("/api/v1/periods/")):
        features = dict(item.split("=") for item in response["Permissions-Policy"].split(", "))
        for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
            assert features[feature] == "()"


def test_signed_in_pages_are_never_stored_and_public_ones_keep_their_caching(student):
    assert signed_in(student).get("/")["Cache-Control"] == "private, no-store"
    assert signed_in(student).get("/classes/homework/")["Cache-Control"] == "private, no-store"
    assert "Cache-Control" not in Client().get("/")
    # A page that already forbids storing keeps its own words.
    assert "no-store" in signed_in(student).get("/lti/jwks/")["Cache-Control"]
    assert Client().get("/lti/jwks/")["Cache-Control"] == "public, max-age=300"


def test_every_api_response_is_private_signed_in_or_not(teacher):
    assert Client().get("/api/v1/periods/")["Cache-Control"] == "private, no-store"
    response = signed_in(teacher).get("/api/v1/periods/")
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
    assert Client().get("/api/schema/")["Cache-Control"] == "private, no-store"


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def test_no_template_has_an_inline_script_or_handler():
    """The policy would refuse them: scripts are files in static/, data is JSON in <script type=application/json>."""
    templates = [
        path
        for folder in ("templates", "content", "games", "lms")
        for path in (ROOT / folder).rglob("*.html")
        if "printing" not in path.parts  # print templates are rendered by WeasyPrint, not a browser
    ]
    assert len(templates) > 50
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in templates
        for pattern in (INLINE_SCRIPT, HANDLER)
        for match in pattern.finditer(path.read_text())
    ]
    assert found == []
