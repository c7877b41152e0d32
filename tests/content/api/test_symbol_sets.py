"""``/api/v1/symbol-sets/``: ordered sets of symbols and the decks they can make."""

from __future__ import annotations

from content.decks import deck_options
from content.models import Status, SymbolSet, Visibility
from tests.factories import SymbolFactory, SymbolSetFactory, symbol_set_with

from .helpers import url


def members(symbol_set: SymbolSet) -> list[int]:
    return list(symbol_set.members.values_list("symbol_id", flat=True))


def test_teacher_creates_reads_updates_and_deletes_a_symbol_set(api, teacher):
    symbols = [SymbolFactory(owner=teacher) for _ in range(7)]
    order = [s.pk for s in reversed(symbols)]
    client = api(teacher)
    response = client.post(
        url("symbol-set"),
        {"name": "WWII only", "slug": "wwii-only", "members": order, "visibility": "shared"},
        format="json",
    )
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["members"] == order
    assert created["deck_options"] == [o.describe() for o in deck_options(7)]
    assert created["deck_options"]  # seven symbols make an order-2 deck
    symbol_set = SymbolSet.objects.get(slug="wwii-only")
    assert members(symbol_set) == order
    assert symbol_set.owner == teacher

    assert client.get(url("symbol-set", symbol_set.pk)).json() == created

    response = client.patch(url("symbol-set", symbol_set.pk), {"name": "WWII"}, format="json")
    assert response.status_code == 200
    assert response.json()["members"] == order  # untouched when not sent

    assert client.delete(url("symbol-set", symbol_set.pk)).status_code == 204
    assert not SymbolSet.objects.filter(pk=symbol_set.pk).exists()


def test_symbol_set_is_reordered_by_writing_the_list(api, teacher):
    a, b, c = (SymbolFactory(owner=teacher) for _ in range(3))
    symbol_set = symbol_set_with([a, b, c], owner=teacher)
    client = api(teacher)
    response = client.patch(url("symbol-set", symbol_set.pk), {"members": [c.pk, a.pk, b.pk]}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["members"] == [c.pk, a.pk, b.pk]
    assert members(symbol_set) == [c.pk, a.pk, b.pk]
    # Dropping one and adding none: the list is the set.
    response = client.patch(url("symbol-set", symbol_set.pk), {"members": [b.pk]}, format="json")
    assert response.json()["members"] == [b.pk]
    assert response.json()["deck_options"] == []
    assert members(symbol_set) == [b.pk]


def test_teacher_can_only_add_symbols_they_can_see(api, teacher, other_teacher):
    mine = SymbolFactory(owner=teacher, status=Status.DRAFT)
    published = SymbolFactory(owner=other_teacher, status=Status.PUBLISHED)
    hidden = SymbolFactory(owner=other_teacher, status=Status.DRAFT)
    symbol_set = SymbolSetFactory(owner=teacher)
    client = api(teacher)

    response = client.patch(
        url("symbol-set", symbol_set.pk), {"members": [mine.pk, hidden.pk]}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"members": [f"No symbol you can see has the id {hidden.pk}."]}
    assert members(symbol_set) == []

    response = client.post(
        url("symbol-set"), {"name": "S", "slug": "s", "members": [hidden.pk]}, format="json"
    )
    assert response.status_code == 400
    assert not SymbolSet.objects.filter(slug="s").exists()

    response = client.patch(
        url("symbol-set", symbol_set.pk), {"members": [mine.pk, published.pk]}, format="json"
    )
    assert response.status_code == 200
    assert members(symbol_set) == [mine.pk, published.pk]


def test_a_symbol_is_in_a_set_once(api, teacher):
    a = SymbolFactory(owner=teacher)
    symbol_set = SymbolSetFactory(owner=teacher)
    response = api(teacher).patch(url("symbol-set", symbol_set.pk), {"members": [a.pk, a.pk]}, format="json")
    assert response.status_code == 400
    assert str(a.pk) in response.json()["members"][0]


def test_editor_reorders_a_set_keeping_symbols_only_the_owner_sees(api, teacher, other_teacher):
    owners_draft = SymbolFactory(owner=other_teacher, status=Status.DRAFT)
    shared = SymbolFactory(owner=other_teacher)
    symbol_set = symbol_set_with([owners_draft, shared], owner=other_teacher)
    symbol_set.editors.add(teacher)
    response = api(teacher).patch(
        url("symbol-set", symbol_set.pk),
        {"members": [shared.pk, owners_draft.pk]},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert members(symbol_set) == [shared.pk, owners_draft.pk]


def test_teacher_cannot_change_members_of_a_shared_set_they_were_not_granted(api, teacher, other_teacher):
    a, b = SymbolFactory(), SymbolFactory()
    symbol_set = symbol_set_with([a, b], owner=other_teacher, visibility=Visibility.SHARED)
    response = api(teacher).patch(url("symbol-set", symbol_set.pk), {"members": [b.pk]}, format="json")
    assert response.status_code == 403
    assert members(symbol_set) == [a.pk, b.pk]


def test_symbol_set_slug_is_unique(api, teacher):
    SymbolSetFactory(slug="taken")
    response = api(teacher).post(url("symbol-set"), {"name": "T", "slug": "taken"}, format="json")
    assert response.status_code == 400
    assert "slug" in response.json()
