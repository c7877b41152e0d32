"""Who reaches the content API at all: teachers and admins; never students or anonymous
users, on any endpoint, for reading or writing (Knowledge? questions carry answers)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from content.models import (
    ActivityCard,
    Collection,
    KnowledgeQuestion,
    Period,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
    Visibility,
)
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    ThemeFactory,
    symbol_set_with,
)

from .factories import TagFactory
from .helpers import url

ENDPOINTS = {
    "period": Period,
    "theme": Theme,
    "collection": Collection,
    "tag": Tag,
    "symbol": Symbol,
    "symbol-set": SymbolSet,
    "activity-card": ActivityCard,
    "knowledge-question": KnowledgeQuestion,
}
OPERATIONS = ("list", "retrieve", "create", "update", "partial_update", "destroy")
NOT_AUTHENTICATED = "Authentication credentials were not provided."
NOT_AN_AUTHOR = "Only teachers and admins may use the content API."


@pytest.fixture
def rows(db) -> dict:
    """One row per endpoint that every teacher may see (published or shared)."""
    owner = TeacherFactory()
    symbol = SymbolFactory(owner=owner)
    return {
        "period": "ii-rp",
        "theme": ThemeFactory().slug,
        "collection": CollectionFactory().slug,
        "tag": TagFactory().slug,
        "symbol": symbol.pk,
        "symbol-set": symbol_set_with([symbol], owner=owner, visibility=Visibility.SHARED).pk,
        "activity-card": ActivityCardFactory(owner=owner).pk,
        "knowledge-question": KnowledgeQuestionFactory(owner=owner).pk,
    }


def call(client: APIClient, basename: str, operation: str, key):
    if operation == "list":
        return client.get(url(basename))
    if operation == "create":
        return client.post(url(basename), {"name": "x", "slug": "x"}, format="json")
    detail = url(basename, key)
    if operation == "retrieve":
        return client.get(detail)
    if operation == "update":
        return client.put(detail, {"name": "x", "slug": "x"}, format="json")
    if operation == "partial_update":
        return client.patch(detail, {"name": "x"}, format="json")
    return client.delete(detail)


def snapshot() -> dict:
    return {name: model.objects.count() for name, model in ENDPOINTS.items()}


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("basename", ENDPOINTS)
def test_student_gets_403_on_every_endpoint(api, student, rows, basename, operation):
    before = snapshot()
    response = call(api(student), basename, operation, rows[basename])
    assert response.status_code == 403, response.content
    assert response.json() == {"detail": NOT_AN_AUTHOR}
    assert snapshot() == before


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("basename", ENDPOINTS)
def test_anonymous_gets_403_on_every_endpoint(api, rows, basename, operation):
    before = snapshot()
    response = call(api(), basename, operation, rows[basename])
    assert response.status_code == 403, response.content
    assert response.json() == {"detail": NOT_AUTHENTICATED}
    assert snapshot() == before


@pytest.mark.parametrize("basename", ENDPOINTS)
def test_teacher_reads_every_endpoint(api, teacher, rows, basename):
    # The same rows the student is refused: the 403s above are not broken endpoints.
    client = api(teacher)
    assert client.get(url(basename)).status_code == 200
    assert client.get(url(basename, rows[basename])).status_code == 200


@pytest.mark.parametrize("basename", ENDPOINTS)
def test_browsable_api_renders_for_teachers(api, teacher, rows, basename):
    client = api(teacher)
    for path in (url(basename), url(basename, rows[basename])):
        response = client.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith("text/html")


def test_api_root_is_for_authors_only(api, teacher, student):
    root = reverse("v1:api-root")
    assert api().get(root).status_code == 403
    assert api(student).get(root).status_code == 403
    response = api(teacher).get(root)
    assert response.status_code == 200
    assert set(response.json()) == {
        "periods",
        "themes",
        "collections",
        "tags",
        "symbols",
        "symbol-sets",
        "activity-cards",
        "knowledge-questions",
    }


def test_inactive_teacher_is_refused(api, teacher):
    client = api(teacher)
    teacher.is_active = False
    teacher.save()
    assert client.get(url("symbol")).status_code == 403


def test_session_writes_need_the_csrf_token(teacher):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(teacher)
    response = client.post(url("tag"), {"slug": "no-token"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not Tag.objects.filter(slug="no-token").exists()


def test_api_is_versioned(api, teacher):
    assert url("symbol").startswith("/api/v1/")
    assert api(teacher).get("/api/v2/symbols/").status_code == 404


def test_options_describe_a_write_by_what_it_takes(api, teacher):
    # The input serializer, not the output one: no id, no printed code, no dates.
    response = api(teacher).options(url("symbol"))
    assert response.status_code == 200
    takes = response.json()["actions"]["POST"]
    assert {"collection", "number", "name", "periods", "picture"} <= set(takes)
    assert not {"id", "code", "created", "updated"} & set(takes)
