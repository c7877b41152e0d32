"""``content/services.py``: the one writer of content rows, and the rules every writer
meets there (an Activity card's six slots, a term's points, a Knowledge? answer)."""

import pytest
from django.core.exceptions import ValidationError

from content import services
from content.activity_terms import activity_cards_from_terms
from content.models import ActivityCard, ActivityTerm, KnowledgeQuestion, Symbol, term_points_problem
from tests.factories import ActivityCardFactory, CollectionFactory, SymbolFactory

pytestmark = pytest.mark.django_db


def six_terms(**changes):
    terms = [{"slot": slot, "kind": "term", "text": f"term {slot}", "points": 4} for slot in "ABCDEF"]
    terms[4] = {"slot": "E", "kind": "chain", "text": "dom", "points": None}
    for slot, change in changes.items():
        terms["ABCDEF".index(slot)].update(change)
    return terms


@pytest.mark.parametrize(
    ("kind", "points", "problem"),
    [
        ("term", 3, None),
        ("term", 6, None),
        ("term", 2, "range"),
        ("term", 7, "range"),
        ("term", None, "missing"),
        ("chain", None, None),
        ("rhyme", 5, "unexpected"),
    ],
)
def test_a_term_scores_3_to_6_points_and_a_chain_or_a_rhyme_none(kind, points, problem):
    assert term_points_problem(kind, points) == problem


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"B": {"points": 7}}, "Ensure this value is less than or equal to 6."),
        ({"B": {"points": None}}, "Give the term its points, from 3 to 6."),
        ({"E": {"points": 4}}, "Chain and rhyme have no points: leave the field empty."),
    ],
)
def test_card_create_refuses_a_term_against_the_points_rule_and_writes_nothing(teacher, change, message):
    with pytest.raises(ValidationError) as refused:
        services.activity_card_create(owner=teacher, data={"title": "War"}, terms=six_terms(**change))
    assert refused.value.message_dict == {"points": [message]}
    assert not ActivityCard.objects.exists()


def test_card_create_refuses_a_card_without_its_six_slots(teacher):
    terms = [term for term in six_terms() if term["slot"] != "D"]
    with pytest.raises(ValidationError) as refused:
        services.activity_card_create(owner=teacher, data={}, terms=terms)
    assert refused.value.message_dict == {"terms": ["A card has six terms, A to F; fill in D."]}
    assert not ActivityCard.objects.exists()


def test_replacing_a_cards_terms_keeps_each_slots_term_and_its_id(teacher):
    card = ActivityCardFactory(owner=teacher)
    ids = dict(card.terms.values_list("slot", "pk"))
    services.activity_card_update(
        card=card, data={"title": "New"}, terms=six_terms(A={"text": "Westerplatte"})
    )
    terms = {t.slot: t for t in ActivityTerm.objects.filter(card=card)}
    assert {slot: t.pk for slot, t in terms.items()} == ids
    assert (terms["A"].text, terms["E"].kind, terms["E"].points) == ("Westerplatte", "chain", None)
    card.refresh_from_db()
    assert card.title == "New"


def test_a_term_list_reaches_the_same_rule(teacher):
    """The term lists' cards are written by the same service: six slots, points as given."""
    made = activity_cards_from_terms(owner=teacher, name="War", text="a; 6\nb\nc\nd\nchain: e\nf")
    card = made.cards[0]
    assert card.terms.count() == 6
    assert dict(card.terms.values_list("text", "points"))["a"] == 6


def test_knowledge_question_answer_must_fit_its_category(teacher):
    with pytest.raises(ValidationError) as refused:
        services.knowledge_question_create(
            owner=teacher, data={"category": "letter", "front": "Which?", "back": "B", "answer": 9}
        )
    assert "answer" in refused.value.message_dict
    assert not KnowledgeQuestion.objects.exists()


def test_symbol_set_create_and_update_keep_the_order_given(teacher):
    collection = CollectionFactory()
    first, second, third = (SymbolFactory(collection=collection, owner=teacher) for _ in range(3))
    symbol_set = services.symbol_set_create(
        owner=teacher, data={"name": "Set", "slug": "set"}, symbol_ids=[third.pk, first.pk]
    )
    assert [m.symbol_id for m in symbol_set.members.all()] == [third.pk, first.pk]
    services.symbol_set_update(symbol_set=symbol_set, data={}, symbol_ids=[second.pk, third.pk, first.pk])
    assert [m.symbol_id for m in symbol_set.members.all()] == [second.pk, third.pk, first.pk]
    assert Symbol.objects.count() == 3
