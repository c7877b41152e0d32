"""Naming match (rules/README.md, ZnajZnak): "A typed name matches when it equals the symbol's
name or one of its accepted alternative names, ignoring case, Polish diacritics, punctuation
and extra spaces."
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import names
from games.engines.names import name_matches, normalise_name

CHRISTMAS_TREE = "Choinka bożonarodzeniowa"
CARPATHIAN = "3. Dywizja Strzelców Karpackich"


def test_name_matches_ignoring_polish_diacritics() -> None:
    assert name_matches("choinka bozonarodzeniowa", CHRISTMAS_TREE)
    assert name_matches("Zolnierze wykleci", "Żołnierze wyklęci")
    assert name_matches("lodz", "Łódź")
    assert name_matches("zazolc gesla jazn", "Zażółć gęślą jaźń")


def test_name_matches_ignoring_case() -> None:
    assert name_matches("CHOINKA BOŻONARODZENIOWA", CHRISTMAS_TREE)
    assert name_matches("cHoInKa BoZoNaRoDzEnIoWa", CHRISTMAS_TREE)
    assert name_matches("ŁÓDŹ", "łódź")


def test_name_matches_ignoring_punctuation() -> None:
    assert name_matches("3 dywizja strzelcow karpackich", CARPATHIAN)
    assert name_matches("solidarnosc", "„Solidarność”")
    assert name_matches("Armia Krajowa!", "Armia Krajowa")
    assert name_matches("Pałac Kultury i Nauki (PKiN)", "Pałac Kultury i Nauki PKiN")


def test_name_matches_a_dash_typed_as_space_or_left_out() -> None:
    assert name_matches("bialo czerwona", "Biało-Czerwona")
    assert name_matches("bialoczerwona", "Biało-Czerwona")
    assert name_matches("Biało–Czerwona", "Biało—Czerwona")  # en and em dash


def test_name_matches_ignoring_extra_spaces() -> None:
    assert name_matches("  choinka    bożonarodzeniowa ", CHRISTMAS_TREE)
    assert name_matches("3 .  Dywizja\tStrzelców  Karpackich", CARPATHIAN)


def test_an_alternative_name_matches() -> None:
    assert name_matches("3 DSK", CARPATHIAN, ["3 DSK", "Dywizja Karpacka"])
    assert name_matches("dywizja karpacka", CARPATHIAN, ["3 DSK", "Dywizja Karpacka"])
    assert not name_matches("3 DSK", CARPATHIAN)


def test_a_different_word_does_not_match() -> None:
    assert not name_matches("choinka wielkanocna", CHRISTMAS_TREE)
    assert not name_matches("choinka", CHRISTMAS_TREE)
    assert not name_matches("4. Dywizja Strzelców Karpackich", CARPATHIAN)
    assert not name_matches("choinka bozonarodzeniowa", "Orzeł Biały", ["Godło"])


@pytest.mark.parametrize("typed", ["", "   ", "...", "„”", " - "])
def test_an_empty_name_never_matches(typed: str) -> None:
    assert not name_matches(typed, CHRISTMAS_TREE)
    assert not name_matches(typed, "", [""])
    assert not name_matches(typed, "?!", ["—"])


def test_normalise_name_casefolds_strips_diacritics_and_punctuation_and_collapses_spaces() -> None:
    assert normalise_name("Choinka bożonarodzeniowa") == "choinka bozonarodzeniowa"
    assert normalise_name(CARPATHIAN) == "3 dywizja strzelcow karpackich"
    assert normalise_name("„Solidarność” — NSZZ") == "solidarnosc nszz"
    assert normalise_name("ĄĆĘŁŃÓŚŹŻ ąćęłńóśźż") == "acelnoszz acelnoszz"
    assert normalise_name("O’Neill") == "oneill"


POLISH = "aąbcćdeęfghijklłmnńoóprsśtuwyzźżAĄBCĆDEĘFGHIJKLŁMNŃOÓPRSŚTUWYZŹŻ0123456789 .,-–—„”\"'!?()"


@given(st.text(alphabet=POLISH, max_size=40))
def test_normalise_name_is_idempotent(text: str) -> None:
    assert normalise_name(normalise_name(text)) == normalise_name(text)


@given(st.text(alphabet=POLISH, max_size=40))
def test_a_name_matches_itself_in_any_case_unless_empty(text: str) -> None:
    expected = normalise_name(text) != ""
    assert name_matches(text, text) is expected
    assert name_matches(text.upper(), text.lower()) is expected
    assert name_matches(normalise_name(text), text) is expected


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(names)
    assert result.attempted > 0
    assert result.failed == 0
