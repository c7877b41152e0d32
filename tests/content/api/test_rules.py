"""The admin's per-row rules, through the API: a teacher sees own, granted and shared
content (published rows, shared sets) and never another teacher's private rows (404);
changes own and granted rows, never others' (403); deletes only own rows. Admins do all."""

from __future__ import annotations

import pytest

from content.models import (
    ActivityCard,
    KnowledgeQuestion,
    Status,
    Symbol,
    SymbolSet,
    Visibility,
)
from tests.factories import (
    ActivityCardFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    SymbolSetFactory,
    symbol_set_with,
)

from .helpers import ids, url

# basename, factory, a field a PATCH may change, the model
AUTHORED = [
    ("symbol", SymbolFactory, {"name": "Changed"}, Symbol),
    ("symbol-set", SymbolSetFactory, {"name": "Changed"}, SymbolSet),
    ("activity-card", ActivityCardFactory, {"title": "Changed"}, ActivityCard),
    ("knowledge-question", KnowledgeQuestionFactory, {"front": "Changed?"}, KnowledgeQuestion),
]
AUTHORED_IDS = [row[0] for row in AUTHORED]


def shared(factory, **kwargs):
    """A row every teacher sees: published content, or a shared set."""
    if factory is SymbolSetFactory:
        return factory(visibility=Visibility.SHARED, **kwargs)
    return factory(status=Status.PUBLISHED, **kwargs)


def private(factory, **kwargs):
    """A row only its owner, editors and admins see: a draft, or a private set."""
    if factory is SymbolSetFactory:
        return factory(visibility=Visibility.PRIVATE, **kwargs)
    return factory(status=Status.DRAFT, **kwargs)


# --- Seeing ------------------------------------------------------------------------------------


def test_teacher_cannot_see_another_teachers_private_set(api, teacher, other_teacher):
    secret = SymbolSetFactory(owner=other_teacher, visibility=Visibility.PRIVATE)
    client = api(teacher)
    assert client.get(url("symbol-set", secret.pk)).status_code == 404
    assert secret.pk not in ids(client.get(url("symbol-set")))


def test_teacher_sees_shared_sets_and_published_content(api, teacher, other_teacher):
    client = api(teacher)
    for basename, factory, _change, _model in AUTHORED:
        row = shared(factory, owner=other_teacher)
        assert client.get(url(basename, row.pk)).status_code == 200, basename
        assert row.pk in ids(client.get(url(basename))), basename


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_teacher_gets_404_for_another_teachers_private_rows(
    api, teacher, other_teacher, basename, factory, change, model
):
    row = private(factory, owner=other_teacher)
    client = api(teacher)
    assert row.pk not in ids(client.get(url(basename)))
    assert client.get(url(basename, row.pk)).status_code == 404
    assert client.patch(url(basename, row.pk), change, format="json").status_code == 404
    assert client.delete(url(basename, row.pk)).status_code == 404
    assert model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_teacher_sees_own_private_rows(api, teacher, basename, factory, change, model):
    row = private(factory, owner=teacher)
    client = api(teacher)
    assert row.pk in ids(client.get(url(basename)))
    assert client.get(url(basename, row.pk)).status_code == 200


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_editor_sees_private_rows_they_are_granted(
    api, teacher, other_teacher, basename, factory, change, model
):
    row = private(factory, owner=other_teacher)
    row.editors.add(teacher)
    assert api(teacher).get(url(basename, row.pk)).status_code == 200


def test_symbols_of_a_private_set_are_not_revealed_by_the_set_filter(api, teacher, other_teacher):
    symbol = SymbolFactory(owner=other_teacher)
    secret = symbol_set_with([symbol], owner=other_teacher, visibility=Visibility.PRIVATE)
    assert ids(api(teacher).get(url("symbol", set=secret.pk))) == set()
    assert ids(api(other_teacher).get(url("symbol", set=secret.pk))) == {symbol.pk}


# --- Changing and deleting ---------------------------------------------------------------------


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_teacher_cannot_change_or_delete_another_teachers_shared_row(
    api, teacher, other_teacher, basename, factory, change, model
):
    row = shared(factory, owner=other_teacher)
    client = api(teacher)
    before = client.get(url(basename, row.pk)).json()

    response = client.patch(url(basename, row.pk), change, format="json")
    assert response.status_code == 403
    assert "may not change" in response.json()["detail"]
    response = client.put(url(basename, row.pk), {**before, **change}, format="json")
    assert response.status_code == 403
    response = client.delete(url(basename, row.pk))
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the owner or an admin may delete this."

    assert client.get(url(basename, row.pk)).json() == before


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_granted_editor_changes_but_cannot_delete(
    api, teacher, other_teacher, basename, factory, change, model
):
    row = shared(factory, owner=other_teacher)
    row.editors.add(teacher)
    client = api(teacher)

    response = client.patch(url(basename, row.pk), change, format="json")
    assert response.status_code == 200, response.content
    field, value = next(iter(change.items()))
    assert getattr(model.objects.get(pk=row.pk), field) == value

    assert client.delete(url(basename, row.pk)).status_code == 403
    assert model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_owner_changes_and_deletes_own_row(api, teacher, basename, factory, change, model):
    row = private(factory, owner=teacher)
    client = api(teacher)
    assert client.patch(url(basename, row.pk), change, format="json").status_code == 200
    assert client.delete(url(basename, row.pk)).status_code == 204
    assert not model.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize(("basename", "factory", "change", "model"), AUTHORED, ids=AUTHORED_IDS)
def test_admin_can_see_change_and_delete_any_row(
    api, admin_user, other_teacher, basename, factory, change, model
):
    row = private(factory, owner=other_teacher)
    client = api(admin_user)
    assert row.pk in ids(client.get(url(basename)))
    assert client.patch(url(basename, row.pk), change, format="json").status_code == 200
    assert client.delete(url(basename, row.pk)).status_code == 204
    assert not model.objects.filter(pk=row.pk).exists()


# --- Owner and editors -------------------------------------------------------------------------


def test_new_rows_are_owned_by_their_author(api, teacher):
    response = api(teacher).post(url("symbol-set"), {"name": "Mine", "slug": "mine"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["owner"] == teacher.pk
    assert SymbolSet.objects.get(slug="mine").owner == teacher


def test_owner_is_read_only_for_teachers(api, teacher, other_teacher):
    client = api(teacher)
    response = client.post(
        url("symbol-set"),
        {"name": "Gift", "slug": "gift", "owner": other_teacher.pk},
        format="json",
    )
    assert response.status_code == 403
    assert response.json()["detail"] == "Only an admin may change the owner."
    assert not SymbolSet.objects.filter(slug="gift").exists()

    mine = SymbolSetFactory(owner=teacher)
    response = client.patch(url("symbol-set", mine.pk), {"owner": other_teacher.pk}, format="json")
    assert response.status_code == 403
    mine.refresh_from_db()
    assert mine.owner == teacher
    # What was read may be written back unchanged.
    read = client.get(url("symbol-set", mine.pk)).json()
    assert client.put(url("symbol-set", mine.pk), read, format="json").status_code == 200


def test_granted_editor_cannot_take_over_the_owner(api, teacher, other_teacher):
    row = SymbolSetFactory(owner=other_teacher)
    row.editors.add(teacher)
    response = api(teacher).patch(url("symbol-set", row.pk), {"owner": teacher.pk}, format="json")
    assert response.status_code == 403
    row.refresh_from_db()
    assert row.owner == other_teacher


def test_admin_sets_the_owner(api, admin_user, teacher, other_teacher):
    client = api(admin_user)
    response = client.post(
        url("symbol-set"), {"name": "For T", "slug": "for-t", "owner": teacher.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    row = SymbolSet.objects.get(slug="for-t")
    assert row.owner == teacher
    response = client.patch(url("symbol-set", row.pk), {"owner": other_teacher.pk}, format="json")
    assert response.status_code == 200
    row.refresh_from_db()
    assert row.owner == other_teacher
    # Empty owner: the shared library.
    assert client.patch(url("symbol-set", row.pk), {"owner": None}, format="json").status_code == 200
    row.refresh_from_db()
    assert row.owner is None


def test_owner_grants_editors(api, teacher, other_teacher):
    row = SymbolSetFactory(owner=teacher)
    response = api(teacher).patch(url("symbol-set", row.pk), {"editors": [other_teacher.pk]}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["editors"] == [other_teacher.pk]
    assert list(row.editors.all()) == [other_teacher]


def test_granted_editor_cannot_change_the_editors(api, teacher, other_teacher, admin_user):
    row = SymbolSetFactory(owner=other_teacher)
    row.editors.add(teacher)
    client = api(teacher)
    response = client.patch(url("symbol-set", row.pk), {"editors": [admin_user.pk]}, format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "Only the owner or an admin may change the editors."
    response = client.patch(url("symbol-set", row.pk), {"editors": []}, format="json")
    assert response.status_code == 403
    assert list(row.editors.all()) == [teacher]
    # Unchanged editors are fine, so an editor may PUT what they read.
    read = client.get(url("symbol-set", row.pk)).json()
    assert client.put(url("symbol-set", row.pk), read, format="json").status_code == 200


def test_admin_grants_editors_on_any_row(api, admin_user, teacher, other_teacher):
    row = SymbolSetFactory(owner=other_teacher)
    response = api(admin_user).patch(url("symbol-set", row.pk), {"editors": [teacher.pk]}, format="json")
    assert response.status_code == 200
    assert list(row.editors.all()) == [teacher]


def test_editors_are_teachers_or_admins(api, teacher, student):
    row = SymbolSetFactory(owner=teacher)
    response = api(teacher).patch(url("symbol-set", row.pk), {"editors": [student.pk]}, format="json")
    assert response.status_code == 400
    assert "editors" in response.json()
    assert not row.editors.exists()


# --- Reference data ----------------------------------------------------------------------------


def test_periods_are_read_by_teachers_and_changed_by_admins_only(api, teacher, admin_user):
    client = api(teacher)
    slugs = [row["slug"] for row in client.get(url("period")).json()["results"]]
    assert slugs == ["ii-rp", "ii-wojna-swiatowa", "prl"]
    assert client.patch(url("period", "prl"), {"name": "X"}, format="json").status_code == 403
    new = {"slug": "iii-rp", "name": "III RP", "start_year": 1989, "end_year": 2025, "colour": "#123456"}
    assert client.post(url("period"), new, format="json").status_code == 403
    assert client.delete(url("period", "prl")).status_code == 403

    admin = api(admin_user)
    response = admin.patch(url("period", "prl"), {"label": "1945–1989"}, format="json")
    assert response.status_code == 200
    assert response.json()["years"] == "1945–1989"
    assert admin.post(url("period"), new, format="json").status_code == 201
    bad = {**new, "slug": "bad", "start_year": 2000, "end_year": 1990}
    response = admin.post(url("period"), bad, format="json")
    assert response.status_code == 400
    assert response.json()["end_year"] == ["The start year must not be after the end year."]


@pytest.mark.parametrize(
    ("basename", "payload"),
    [
        ("tag", {"slug": "wwii"}),
        ("theme", {"slug": "people", "name": "People"}),
        ("collection", {"slug": "ed-2", "name": "Edition 2"}),
    ],
)
def test_teacher_adds_reference_data_but_only_admins_change_it(api, teacher, admin_user, basename, payload):
    client = api(teacher)
    response = client.post(url(basename), payload, format="json")
    assert response.status_code == 201, response.content
    slug = payload["slug"]
    assert client.patch(url(basename, slug), {"slug": "other"}, format="json").status_code == 403
    assert client.delete(url(basename, slug)).status_code == 403
    assert api(admin_user).delete(url(basename, slug)).status_code == 204


def test_collection_in_use_cannot_be_deleted(api, admin_user):
    symbol = SymbolFactory()
    response = api(admin_user).delete(url("collection", symbol.collection.slug))
    assert response.status_code == 409
    assert "still used" in response.json()["detail"]
