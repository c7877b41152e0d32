"""The content API fuzzed from its own OpenAPI schema, as each kind of user.

schemathesis generates requests from ``/api/schema/`` (valid ones and deliberately
invalid ones) and checks every answer: no server error, only documented status codes,
bodies that match the documented schema, valid requests accepted and invalid ones
refused. The run is derandomized and bounded, so CI sees the same requests every time;
run it on PostgreSQL, where text with NUL characters fails at the database.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from content.models import Period
from tests.factories import (
    ActivityCardFactory,
    AdminFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    ThemeFactory,
    UserFactory,
    symbol_set_with,
)

MAX_EXAMPLES = 10
# Every answer: no server error, a documented status, a body of the documented shape.
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
# Invalid requests refused, valid ones accepted. The API refuses some requests the schema
# cannot tell from valid ones (a key of a row that does not exist, a taken slug, six terms
# with a slot twice, an answer that does not fit the category), so for teachers and admins,
# whose writes reach that validation, only the refusal of invalid requests is checked for
# writes; their reads must accept every valid request too.
REFUSALS = [negative_data_rejection]
DATA_CHECKS = [negative_data_rejection, positive_data_acceptance]
# Any 32 letters are a well-formed CSRF secret; the same one goes in the cookie and the header.
CSRF = "fuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzz"
# The rows a request writes stay for the next examples of the same operation, as they would
# on a real server; only the test's transaction is rolled back at its end.
SHARED_ROWS = hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
ROLES = {"anonymous": None, "student": UserFactory, "teacher": TeacherFactory, "admin": AdminFactory}


# Loaded once, when the tests are collected: generating the schema reads no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", WSGIHandler())
schema.config.generation.update(
    max_examples=MAX_EXAMPLES,
    deterministic=True,  # the same requests on every run, so CI is reproducible
    database="none",
    with_security_parameters=False,  # the session cookie is set per user below, not fuzzed
    # No text may hold NUL (PostgreSQL cannot store it): such requests are refused before
    # any view, as tests/config/test_middleware.py checks.
    allow_x00=False,
)
schema.config.phases.update(phases=["examples", "fuzzing"])


@pytest.fixture
def wsgi_in_test_transaction(db):
    """The requests go through the real WSGI handler; as in Django's test client, it must
    not close the test's database connection (and so its transaction) after each one."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def content(wsgi_in_test_transaction, settings) -> None:
    """A little of every kind of content, owned by a teacher."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = TeacherFactory()
    symbol = SymbolFactory(owner=owner, number=1)
    symbol.periods.set([Period.objects.first()])
    ThemeFactory()
    CollectionFactory()
    symbol_set_with([symbol], owner=owner)
    ActivityCardFactory(owner=owner)
    KnowledgeQuestionFactory(owner=owner)


def cookies_of(role: str) -> dict[str, Any]:
    """The cookies of a signed-in user of ``role`` (no session for ``anonymous``)."""
    cookies = {"csrftoken": CSRF}
    factory = ROLES[role]
    if factory is not None:
        client = Client()
        client.force_login(factory())
        cookies["sessionid"] = client.cookies["sessionid"].value
    return cookies


@pytest.fixture
def signed_in(content):
    """``signed_in(role)``: the cookies of one user of ``role``, made once per test."""
    made: dict[str, dict[str, Any]] = {}

    def cookies(role: str) -> dict[str, Any]:
        if role not in made:
            made[role] = cookies_of(role)
        return made[role]

    return cookies


def call_and_check(case, cookies: dict[str, Any], checks: list[Any]) -> None:
    case.call_and_validate(cookies=cookies, headers={"X-CSRFToken": CSRF}, checks=checks)


def checks_for_author(case) -> list[Any]:
    """A teacher's or an admin's checks: every valid read accepted, writes as REFUSALS says."""
    return CHECKS + (DATA_CHECKS if case.method.upper() in ("GET", "HEAD") else REFUSALS)


@schema.parametrize()
@SHARED_ROWS
def test_api_as_anonymous(case, signed_in):
    call_and_check(case, signed_in("anonymous"), CHECKS + DATA_CHECKS)


@schema.parametrize()
@SHARED_ROWS
def test_api_as_student(case, signed_in):
    call_and_check(case, signed_in("student"), CHECKS + DATA_CHECKS)


@schema.parametrize()
@SHARED_ROWS
def test_api_as_teacher(case, signed_in):
    call_and_check(case, signed_in("teacher"), checks_for_author(case))


@schema.parametrize()
@SHARED_ROWS
def test_api_as_admin(case, signed_in):
    call_and_check(case, signed_in("admin"), checks_for_author(case))
