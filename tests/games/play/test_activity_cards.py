"""Activity cards from a teacher's own term list (``content/activity_terms.py``) and the page that
makes them (Activity rulebook, Components: "Each card holds 6 terms marked with the letters
A–F, which match the 6 areas of the board"), and the demo decks in two languages."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse

from content.activity_terms import (
    TermListError,
    activity_cards_for_game,
    activity_cards_from_terms,
    activity_cards_playable,
    activity_terms_parse,
)
from content.models import SLOT_FORMS, ActivityCard, Status
from games.engines import activity

from .activity_helpers import make_cards, signed_in

pytestmark = pytest.mark.django_db

HISTORY = "\n".join(
    [
        "Westerplatte; 5",
        "Solidarność; describe",
        "Enigma; 6; draw",
        "Okrągły Stół",
        "strajk; mime",
        "kartki na mięso",
        "chain: dějepis",
        "rhyme: kotě",
        "Piłsudski",
        "# a comment line",
        "",
        "westerplatte",
    ]
)


def test_a_line_is_a_term_with_optional_points_and_form_and_a_repeated_term_is_left_out():
    terms, repeats = activity_terms_parse(HISTORY, default_points=3)
    by_text = {t.text: t for t in terms}
    assert (by_text["Westerplatte"].points, by_text["Westerplatte"].form) == (5, None)
    assert (by_text["Solidarność"].points, by_text["Solidarność"].form) == (3, "describe")
    assert (by_text["Enigma"].points, by_text["Enigma"].form) == (6, "draw")
    assert (by_text["dějepis"].kind, by_text["dějepis"].points) == ("chain", None)
    assert by_text["kotě"].kind == "rhyme"
    assert repeats == ["westerplatte"] and len(terms) == 9


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Westerplatte; 8\na\nb\nc\nd\ne", "Line 1: points are 3 to 6"),
        ("a\nb; sing\nc\nd\ne\nf", "Line 2: “sing” is neither points"),
        ("a\nb\nc\nd\nchain: e; 4\nf\ng", "Line 5: a chain or a rhyme has no points"),
        ("a\nb\nc\nd\ne", "at least 6 different terms"),
        ("a\nA\nb\nc\nd\ne", "at least 6 different terms"),
        ("a\nb\nc\nchain: d\nrhyme: d", "at least 6 different terms"),
        ("chain: a\nchain: b\nchain: c\nrhyme: d\nrhyme: e\nrhyme: f", "at least one term to present"),
        ("x" * 121 + "\na\nb\nc\nd\ne", "at most 120 characters"),
    ],
)
def test_a_list_that_cannot_make_cards_is_refused_with_the_line_and_nothing_is_written(
    teacher, text, message
):
    with pytest.raises(TermListError, match=message):
        activity_cards_from_terms(owner=teacher, name="Lekcja", text=text)
    assert not ActivityCard.objects.exists()


def test_six_terms_per_card_each_in_a_slot_of_its_form_and_the_cards_are_the_teachers_drafts(teacher):
    made = activity_cards_from_terms(owner=teacher, name="Historia 7b: 1939", text=HISTORY, default_points=4)
    assert len(made.cards) == 2 and made.tag.slug == "historia-7b-1939" and made.terms == 9
    assert made.repeated == 3 and made.duplicates == ["westerplatte"]
    for card in made.cards:
        card.refresh_from_db()
        assert card.owner == teacher and card.status == Status.DRAFT and card.language == "pl"
        terms = list(card.terms.all())
        assert sorted(t.slot for t in terms) == list("ABCDEF")
        assert len({t.text for t in terms}) == 6, "no term twice on one card"
        for term in terms:
            if term.text in ("Solidarność", "Enigma", "strajk"):
                expected = {"Solidarność": "describe", "Enigma": "draw", "strajk": "mime"}[term.text]
                assert SLOT_FORMS[term.slot] == expected
    texts = Counter(t.text for card in made.cards for t in card.terms.all())
    assert all(texts[name] >= 1 for name in ("Westerplatte", "Piłsudski", "dějepis", "kotě"))


@pytest.mark.parametrize("specials", [8, 3])
def test_chains_and_rhymes_count_toward_the_six_slots_of_a_card(teacher, specials):
    """Rulebook: "Two special tasks appear now and then in all 6 areas": a line "chain: word"
    fills a slot like a term, so 4 terms and some chains and rhymes make full cards."""
    lines = ["Westerplatte", "Enigma; draw", "Solidarność", "strajk; mime"]
    lines += [f"{'chain' if n % 2 else 'rhyme'}: słowo{n}" for n in range(specials)]
    made = activity_cards_from_terms(owner=teacher, name="Lekcja", text="\n".join(lines))
    assert made.terms == 4 + specials and len(made.cards) == 2
    for card in made.cards:
        terms = list(card.terms.all())
        assert sorted(t.slot for t in terms) == list("ABCDEF")
        assert len({t.text for t in terms}) == 6, "no line twice on one card"
        for term in terms:
            if term.text in ("Enigma", "strajk"):
                assert SLOT_FORMS[term.slot] == {"Enigma": "draw", "strajk": "mime"}[term.text]
    on_cards = {t.text for card in made.cards for t in card.terms.all()}
    assert {"Westerplatte", "Enigma", "Solidarność", "strajk"} <= on_cards
    assert {f"słowo{n}" for n in range(specials)} <= on_cards


def test_the_cards_play_in_the_engine(teacher):
    made = activity_cards_from_terms(owner=teacher, name="Lekcja", text=HISTORY, publish=True)
    cards = activity_cards_for_game(ActivityCard.objects.filter(pk__in=[c.pk for c in made.cards]))
    setup = {
        "teams": [{"id": "a", "players": ["p1", "p2"]}, {"id": "b", "players": ["p3", "p4"]}],
        "cards": cards,
    }
    state = activity.new_game(setup, seed=1, variant="teams")
    assert len(state.stack) == 2
    assert all(c.status == Status.PUBLISHED for c in ActivityCard.objects.all())


def test_a_tag_someone_else_uses_becomes_the_teachers_own(teacher, other_teacher):
    theirs = activity_cards_from_terms(owner=other_teacher, name="Historia", text=HISTORY)
    mine = activity_cards_from_terms(owner=teacher, name="Historia", text=HISTORY)
    assert theirs.tag.slug == "historia" and mine.tag != theirs.tag
    only_mine = activity_cards_playable(teacher, tags=[mine.tag.slug])
    assert sorted(c.pk for c in only_mine) == sorted(c.pk for c in mine.cards)


def test_drafts_of_another_teacher_are_never_dealt(teacher, other_teacher):
    activity_cards_from_terms(owner=other_teacher, name="Cudze", text=HISTORY)
    mine = make_cards(teacher, 2)
    assert sorted(c.pk for c in activity_cards_playable(teacher)) == sorted(c.pk for c in mine)


def test_the_term_list_page_makes_the_cards_and_leads_to_the_setup_with_their_tag(teacher, student):
    url = reverse("games:activity_terms")
    assert signed_in(student).get(url).status_code == 403
    client = signed_in(teacher)
    assert client.get(url).status_code == 200
    response = client.post(url, {"name": "Powstanie", "text": HISTORY, "language": "pl", "default_points": 4})
    assert response.status_code == 302
    assert response["Location"] == reverse("games:activity_new") + "?tag=powstanie&language=pl"
    page = client.get(response["Location"])
    assert "9 terms made 2 cards, tagged powstanie." in page.content.decode()
    assert "A card is one turn of the game: 2 turns." in page.content.decode()
    assert ActivityCard.objects.filter(owner=teacher).count() == 2


def test_the_term_list_page_shows_the_reason_and_writes_nothing(teacher):
    response = signed_in(teacher).post(
        reverse("games:activity_terms"),
        {"name": "X", "text": "a\nb; 9", "language": "pl", "default_points": 4},
    )
    assert response.status_code == 400 and "Line 2: points are 3 to 6" in response.content.decode()
    assert not ActivityCard.objects.exists()


def test_the_demo_has_an_activity_deck_in_polish_and_one_in_english(teacher):
    from content.demo.loader import demo_content

    demo_content(owner=teacher)
    counts = Counter(ActivityCard.objects.values_list("language", flat=True))
    assert counts["pl"] >= 30 and counts["en"] >= 12
    english = activity_cards_for_game(activity_cards_playable(teacher, language="en"))
    state = activity.new_game(
        {
            "teams": [{"id": "a", "players": ["p1", "p2"]}, {"id": "b", "players": ["p3", "p4"]}],
            "cards": english,
        },
        seed=1,
        variant="teams",
    )
    assert len(state.stack) == counts["en"]
    demo_content(owner=teacher)
    assert Counter(ActivityCard.objects.values_list("language", flat=True)) == counts


def test_superscript_digit_is_not_points_of_a_term():
    # '⁴'.isdigit() is true but int('⁴') fails: it is an unknown option, as any other word.
    with pytest.raises(TermListError, match="neither points"):
        activity_terms_parse("Westerplatte; ⁴")
    terms, _ = activity_terms_parse("Westerplatte; 5\n" + "\n".join(f"Term {i}" for i in range(5)))
    assert terms[0].points == 5
