"""The content API fuzzed from its own OpenAPI schema, as each kind of user.

schemathesis generates requests from ``/api/schema/`` (valid ones and deliberately
invalid ones) and checks every answer: no server error, only documented status codes,
bodies that match the documented schema, valid requests accepted and invalid ones
refused, for every user and every method. The run is derandomized and bounded, so CI
sees the same requests every time; run it on PostgreSQL, where text with NUL characters
fails at the database.

The schema states what OpenAPI can: required fields, lengths, enums, patterns, required
text that holds more than spaces, six terms on a card, points for a term and none for a
chain or a rhyme, at least one period, a set's members each once, a multipart picture
that is a file (``content/api/schema.py``). What it cannot state, the hook
``valid_rows_and_rules`` below supplies to the requests generated as valid, so that
"valid" means accepted:

- rows that must exist: a detail path names a row the fixture made (the teacher owns
  the content), so writes reach the row's rules rather than "not found"; a symbol's
  collection, periods and themes, the tags of cards and questions, the members of a set
  (symbols the user can see), owners and editors (authors) become keys of rows that exist;
- uniqueness: a slug another row has gets a suffix; a symbol's number taken in its
  collection becomes a free one;
- rules across fields: a period's start year comes before its end year (swapped, or
  judged against the stored row for a partial write); a card's six terms take the slots
  A-F, each once; a Knowledge? answer fits the category (0-5, letters A-E or colours),
  the category being sent with it;
- what the format cannot say: a multipart body has no null (schemathesis would send the
  text "null"), so nulls are left out of it; a portal URL that Django's URL rules accept
  (a scheme and a host with a top-level domain, stricter than ``format: uri``); an
  alternative name without a line break; a picture that is a picture (a PNG in multipart;
  in JSON the picture takes only null or its own URL back, so null).

No operation is left out: every role's every request is checked for acceptance.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from PIL import Image
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from content.models import (
    SLOTS,
    ActivityCard,
    Collection,
    KnowledgeCategory,
    KnowledgeQuestion,
    Period,
    Status,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
)
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

from .factories import TagFactory

MAX_EXAMPLES = 10
# Every answer: no server error, a documented status, a body of the documented shape.
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
# Invalid requests refused, valid ones accepted (for valid writes, thanks to the hook below).
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


# --- Valid data for what the schema cannot say ------------------------------------------------
# Each rule below is one the API enforces and OpenAPI cannot express; the module's docstring
# lists them. The hook rewrites only requests schemathesis generated as valid, and only in
# ways the schema allows, so they stay valid (schemathesis checks them again after the hook).

_SLUGGED = {
    "periods": Period,
    "themes": Theme,
    "collections": Collection,
    "tags": Tag,
    "symbol-sets": SymbolSet,
}
_ROWS = {
    **_SLUGGED,
    "symbols": Symbol,
    "activity-cards": ActivityCard,
    "knowledge-questions": KnowledgeQuestion,
}
# A small PNG: the schema can say "a file", not "a picture Pillow can open".
_PICTURE = io.BytesIO()
Image.new("RGB", (8, 8), "navy").save(_PICTURE, "PNG")


def _resource(case) -> str:
    """``"symbols"`` for ``/api/v1/symbols/{id}/``."""
    return case.path.removeprefix("/api/v1/").split("/")[0]


def _row(case) -> Any:
    """The row a detail path names, if it exists (its current values judge a partial write)."""
    model = _ROWS.get(_resource(case))
    key = case.path_parameters or {}
    if model is None or not key:
        return None
    lookup = {"slug": key["slug"]} if "slug" in key else {"pk": key.get("id")}
    try:
        return model.objects.filter(**lookup).first()
    except (TypeError, ValueError):
        return None


def _existing(values: list[Any], keys: list[Any]) -> list[Any]:
    """As many of ``keys`` (keys of rows that exist) as ``values`` had, each once."""
    return keys[: len(values)]


def _free_slug(model, slug: str, row: Any) -> str:
    """``slug``, or one made from it that no other row has (a slug is unique)."""
    others = model.objects.exclude(pk=getattr(row, "pk", None))
    candidate, n = slug, 1
    while others.filter(slug=candidate).exists():
        candidate, n = f"{slug[:44]}-{n}", n + 1
    return candidate


def _years_in_order(body: dict[str, Any], row: Any) -> None:
    start = body.get("start_year", getattr(row, "start_year", None))
    end = body.get("end_year", getattr(row, "end_year", None))
    if start is None or end is None or start <= end:
        return
    if "start_year" in body and "end_year" in body:
        body["start_year"], body["end_year"] = end, start
    elif "start_year" in body:
        body["start_year"] = end
    else:
        body["end_year"] = start


def _free_number(body: dict[str, Any], row: Any) -> None:
    """A symbol's number is unique within its collection."""
    collection = body.get("collection", getattr(getattr(row, "collection", None), "slug", None))
    number = body.get("number", getattr(row, "number", None))
    if collection is None or number is None:
        return
    taken = set(
        Symbol.objects.filter(collection__slug=collection)
        .exclude(pk=getattr(row, "pk", None))
        .values_list("number", flat=True)
    )
    if number in taken:
        body["number"] = min(set(range(1, 1000)) - taken)


def _answer_fits(body: dict[str, Any], row: Any) -> None:
    """A Knowledge? answer is one of the category's: 0–5, letters A–E or colours."""
    if "answer" not in body and "category" not in body:
        return
    category = body.get("category", getattr(row, "category", KnowledgeCategory.NUMBER))
    body["category"] = category
    seed = len(str(body.get("answer", "")))
    if category == KnowledgeCategory.NUMBER:
        body["answer"] = seed % 6
    elif category == KnowledgeCategory.LETTER:
        body["answer"] = ["ABCDE"[seed % 5]]
    else:
        body["answer"] = [("red", "yellow", "green", "blue", "white")[seed % 5]]


def _six_slots(body: dict[str, Any]) -> None:
    """An Activity card's terms fill the slots A–F, each once (which term has points the
    schema says)."""
    terms = [dict(term) for term in body.get("terms") or []]
    for i, term in enumerate(terms):
        term["slot"] = SLOTS[i % len(SLOTS)]
    if "terms" in body:
        body["terms"] = terms


def _existing_row_named(case) -> None:
    """A detail path names a row that exists (the first one left), so valid reads, writes
    and deletes reach the row and its rules instead of stopping at "not found"."""
    model = _ROWS.get(_resource(case))
    params = case.path_parameters or {}
    if model is None or not params:
        return
    row = model.objects.order_by("pk").first()
    if row is not None:
        key = "slug" if "slug" in params else "id"
        case.path_parameters = {**params, key: row.slug if key == "slug" else row.pk}


@schema.hook("map_case")
def valid_rows_and_rules(context, case):
    """Refer to rows that exist and keep the rules the schema cannot state (see above)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return case
    _existing_row_named(case)
    if isinstance(case.body, dict):
        case.body = _valid_body(case)
    return case


def _valid_body(case) -> dict[str, Any]:
    body = dict(case.body)
    if case.media_type == "multipart/form-data":
        # A multipart body has no null: schemathesis would send the text "null".
        body = {key: value for key, value in body.items() if value is not None}
    resource, row = _resource(case), _row(case)
    model = _SLUGGED.get(resource)
    if model is not None and isinstance(body.get("slug"), str):
        body["slug"] = _free_slug(model, body["slug"], row)
    if resource == "periods":
        _years_in_order(body, row)
    authors = list(get_user_model().objects.authors().order_by("pk").values_list("pk", flat=True))
    if body.get("owner") is not None:
        body["owner"] = authors[0]
    if "editors" in body:
        body["editors"] = _existing(body["editors"], authors)
    if "tags" in body:
        body["tags"] = _existing(
            body["tags"], list(Tag.objects.order_by("slug").values_list("slug", flat=True))
        )
    if resource == "symbols":
        if "collection" in body:
            body["collection"] = Collection.objects.order_by("pk").values_list("slug", flat=True)[0]
        for field, rows in (("periods", Period.objects), ("themes", Theme.objects)):
            if field in body:
                body[field] = _existing(body[field], list(rows.order_by("pk").values_list("slug", flat=True)))
        _free_number(body, row)
        if "alternative_names" in body:
            # One name per item: a line break inside one is refused.
            body["alternative_names"] = [
                re.sub(r"[\r\n]", " ", name).strip() or "x" for name in body["alternative_names"]
            ]
        if body.get("portal_url"):
            body["portal_url"] = "https://epodreczniki.pl/"
        if "picture" in body:
            # JSON takes no file (null, or the picture's own URL back); multipart takes a picture.
            body["picture"] = _PICTURE.getvalue() if case.media_type == "multipart/form-data" else None
    if resource == "symbol-sets" and "members" in body:
        visible = Symbol.objects.filter(status=Status.PUBLISHED).order_by("pk").values_list("pk", flat=True)
        body["members"] = _existing(body["members"], list(visible))
    if resource == "activity-cards":
        _six_slots(body)
    if resource == "knowledge-questions":
        _answer_fits(body, row)
    return body


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
def content(wsgi_in_test_transaction) -> Any:
    """A little of every kind of content, owned by a teacher (returned)."""
    owner = TeacherFactory()
    symbol = SymbolFactory(owner=owner, number=1)
    symbol.periods.set([Period.objects.first()])
    ThemeFactory()
    CollectionFactory()
    symbol_set_with([symbol], owner=owner)
    ActivityCardFactory(owner=owner)
    KnowledgeQuestionFactory(owner=owner)
    TagFactory()
    return owner


def cookies_of(user: Any) -> dict[str, Any]:
    """The cookies of ``user`` signed in (no session for ``None``, the anonymous user)."""
    cookies = {"csrftoken": CSRF}
    if user is not None:
        client = Client()
        client.force_login(user)
        cookies["sessionid"] = client.cookies["sessionid"].value
    return cookies


@pytest.fixture
def signed_in(content):
    """``signed_in(role)``: the cookies of one user of ``role``, made once per test. The
    teacher is the content's owner, so their writes to it are allowed and judged."""
    made: dict[str, dict[str, Any]] = {}

    def cookies(role: str) -> dict[str, Any]:
        if role not in made:
            factory = ROLES[role]
            user = content if role == "teacher" else factory() if factory is not None else None
            made[role] = cookies_of(user)
        return made[role]

    return cookies


def call_and_check(case, cookies: dict[str, Any], checks: list[Any]) -> None:
    case.call_and_validate(cookies=cookies, headers={"X-CSRFToken": CSRF}, checks=checks)


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
    call_and_check(case, signed_in("teacher"), CHECKS + DATA_CHECKS)


@schema.parametrize()
@SHARED_ROWS
def test_api_as_admin(case, signed_in):
    call_and_check(case, signed_in("admin"), CHECKS + DATA_CHECKS)
