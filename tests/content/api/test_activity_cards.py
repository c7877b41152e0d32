"""``/api/v1/activity-cards/``: six terms A–F, validated as in the admin."""

from __future__ import annotations

import pytest

from content.models import ActivityCard, ActivityTerm
from tests.factories import ActivityCardFactory

from .factories import TagFactory
from .helpers import url


def six_terms() -> list[dict]:
    return [
        {"slot": "A", "kind": "term", "text": "Orzeł", "points": 3},
        {"slot": "B", "kind": "term", "text": "Kotwica", "points": 4},
        {"slot": "C", "kind": "chain", "text": "Wolność", "points": None},
        {"slot": "D", "kind": "term", "text": "Solidarność", "points": 6},
        {"slot": "E", "kind": "rhyme", "text": "Sierpień", "points": None},
        {"slot": "F", "kind": "term", "text": "Okrągły stół", "points": 5},
    ]


def test_teacher_creates_reads_updates_and_deletes_an_activity_card(api, teacher):
    TagFactory(slug="prl")
    client = api(teacher)
    response = client.post(
        url("activity-card"),
        {"title": "PRL", "tags": ["prl"], "terms": six_terms()},
        format="json",
    )
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["terms"] == six_terms()
    assert created["tags"] == ["prl"]
    assert created["owner"] == teacher.pk
    card = ActivityCard.objects.get(pk=created["id"])
    assert card.terms.count() == 6

    assert client.get(url("activity-card", card.pk)).json() == created

    terms = six_terms()
    terms[0] = {"slot": "A", "kind": "term", "text": "Godło", "points": 4}
    response = client.patch(url("activity-card", card.pk), {"terms": terms}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["terms"][0] == terms[0]
    assert ActivityTerm.objects.get(card=card, slot="A").text == "Godło"
    assert ActivityTerm.objects.filter(card=card).count() == 6

    response = client.patch(url("activity-card", card.pk), {"title": "New"}, format="json")
    assert response.json()["terms"] == terms  # untouched when not sent

    assert client.delete(url("activity-card", card.pk)).status_code == 204
    assert not ActivityTerm.objects.filter(card_id=card.pk).exists()


def test_activity_card_with_five_slots_names_the_missing_slot(api, teacher):
    terms = [term for term in six_terms() if term["slot"] != "D"]
    response = api(teacher).post(url("activity-card"), {"terms": terms}, format="json")
    assert response.status_code == 400
    assert response.json() == {"terms": ["A card has six terms, A to F; fill in D."]}
    assert not ActivityCard.objects.exists()


def test_activity_card_slot_appears_once(api, teacher):
    terms = six_terms()
    terms[5] = {**terms[5], "slot": "A"}
    response = api(teacher).post(url("activity-card"), {"terms": terms}, format="json")
    assert response.status_code == 400
    assert response.json() == {"terms": ["Each slot appears once; A appear more than once."]}


def test_activity_card_needs_its_terms(api, teacher):
    response = api(teacher).post(url("activity-card"), {"title": "Empty"}, format="json")
    assert response.status_code == 400
    assert "terms" in response.json()


@pytest.mark.parametrize(
    ("term", "message"),
    [
        ({"kind": "term", "points": None}, "Give the term its points, from 3 to 6."),
        ({"kind": "chain", "points": 4}, "Chain and rhyme have no points: leave the field empty."),
        ({"kind": "rhyme", "points": 3}, "Chain and rhyme have no points: leave the field empty."),
        ({"kind": "term", "points": 2}, "Ensure this value is greater than or equal to 3."),
        ({"kind": "term", "points": 7}, "Ensure this value is less than or equal to 6."),
    ],
)
def test_term_points_are_3_to_6_and_none_for_chain_and_rhyme(api, teacher, term, message):
    terms = six_terms()
    terms[1] = {**terms[1], **term}
    response = api(teacher).post(url("activity-card"), {"terms": terms}, format="json")
    assert response.status_code == 400
    # The term at index 1 (slot B) is named with its field.
    assert response.json() == {"terms": {"1": {"points": [message]}}}
    assert not ActivityCard.objects.exists()


def test_activity_cards_filter_by_status_and_tag_and_search_terms(api, teacher):
    tag = TagFactory(slug="wwii")
    tagged = ActivityCardFactory(owner=teacher)
    tagged.tags.add(tag)
    draft = ActivityCardFactory(owner=teacher, status="draft")
    client = api(teacher)
    found = client.get(url("activity-card", tag="wwii")).json()["results"]
    assert [row["id"] for row in found] == [tagged.pk]
    found = client.get(url("activity-card", status="draft")).json()["results"]
    assert [row["id"] for row in found] == [draft.pk]
    found = client.get(url("activity-card", search=f"term C{draft.pk}")).json()["results"]
    assert [row["id"] for row in found] == [draft.pk]


@pytest.mark.parametrize("tag", ["\x1c", " ", "a b"])
def test_a_tag_filter_that_is_no_key_is_refused_not_stripped_to_nothing(api, teacher, tag):
    # Python strips "\x1c" as whitespace; stripped, it would silently filter nothing.
    response = api(teacher).get(url("activity-card", tag=tag))
    assert response.status_code == 400
    assert "tag" in response.json()
