"""Activity term cards, Knowledge? quiz cards and Know's blank cards."""

from __future__ import annotations

import re

import pytest

from content.printing.data import ActivityCardData, KnowledgeCardData, PrintError, PrintOptions
from content.printing.render import render_activity_cards, render_know_cards, render_knowledge_cards

from .helpers import card_ids, page_texts

TERMS = (
    ("A", "term", "Okrągły Stół", 4),
    ("B", "chain", "dějepis", None),
    ("C", "term", "robienie na drutach", 6),
    ("D", "rhyme", "kotě", None),
    ("E", "term", "Bolek i Lolek", 3),
    ("F", "term", "Maria Skłodowska-Curie", 5),
)


def test_activity_shows_six_terms_with_points_forms_chain_and_rhyme() -> None:
    pdf = render_activity_cards([ActivityCardData(7, TERMS)], PrintOptions(), parallel=False)
    front, back = page_texts(pdf)
    assert "ŁAŃCUCH: dějepis" in front and "RYM: kotě" in front  # Activity rulebook, Play
    assert "+4" in front and "+5" in front  # chain: 4 fields, rhyme: 5
    squashed = "".join(front.split())  # a long term wraps (at its hyphen, too)
    for slot, _, text, points in TERMS:
        assert re.search(rf"\b{slot}\b", front)
        assert "".join(text.split()) in squashed
        if points:
            assert str(points) in front.split()
    assert "gra otwarta" in front  # 6 points: an open game
    for form in ("rysuj", "opisz", "pokaż"):  # A/D draw, B/E describe, C/F mime
        assert front.count(form) == 2
    assert "karta 7" in front
    assert "ACTIVITY" in back and "dějepis" not in back  # a plain back hides the terms


def test_activity_speaks_the_card_language() -> None:
    pdf = render_activity_cards([ActivityCardData(1, TERMS)], PrintOptions(language="cs"), parallel=False)
    front = page_texts(pdf)[0]
    assert "ŘETĚZ: dějepis" in front and "RÝM: kotě" in front and "nakreslit" in front


def test_activity_needs_all_six_slots() -> None:
    with pytest.raises(PrintError, match="A–F"):
        render_activity_cards([ActivityCardData(1, TERMS[:5])], PrintOptions(), parallel=False)


def test_knowledge_front_has_category_and_question_back_the_answer() -> None:
    cards = [
        KnowledgeCardData(1, "number", "Ile kolorów ma flaga Polski?", "Biało-czerwona: 2 barwy.", "2"),
        KnowledgeCardData(
            2,
            "letter",
            "Kto był pierwszym prezydentem? A) Mościcki B) Narutowicz",
            "Gabriel Narutowicz, wybrany w 1922 r.",
            "B",
        ),
        KnowledgeCardData(
            3, "colour", "Jakie barwy ma flaga Polski?", "Biały u góry, czerwony u dołu.", "white/red"
        ),
    ]
    front, back = page_texts(render_knowledge_cards(cards, PrintOptions(), parallel=False))
    assert "Liczba 123 Ile kolorów ma flaga Polski?" in front
    assert "Litera ABC" in front and "Kolor" in front
    assert "ODPOWIEDŹ 2 Biało-czerwona: 2 barwy." in back  # the label prints in capitals
    assert "ODPOWIEDŹ B Gabriel Narutowicz" in back
    assert "biały / czerwony" in back  # colour answers in the card's language
    assert sorted(card_ids(front)) == sorted(card_ids(back)) == [1, 2, 3]


def test_know_question_cards_are_numbered_and_answer_cards_are_blank() -> None:
    pdf = render_know_cards(11, 4, PrintOptions(paper="Letter"), parallel=False)
    texts = page_texts(pdf)
    assert len(texts) == 4  # 15 cards, 9 a sheet
    fronts = " ".join(texts[0::2])
    numbers = [int(n) for n in re.findall(r"PYTANIE NR (\d+)", fronts)]  # labels print in capitals
    assert numbers == list(range(1, 12))
    assert fronts.count("ODPOWIEDŹ NA PYTANIE NR") == 4
    assert fronts.count("ID DRUŻYNY") == 15
    backs = " ".join(texts[1::2])
    assert backs.count("KNOW") == 15
    assert "PYTANIE" not in backs.upper()  # one plain back for all


def test_know_needs_a_card() -> None:
    with pytest.raises(PrintError):
        render_know_cards(0, 0, PrintOptions())
