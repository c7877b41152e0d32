"""Lesson card sets: equal sizes, every card once, as many different pair-symbols as possible."""

from __future__ import annotations

import functools
from collections import Counter

import pytest

from content.decks.cardsets import (
    CardSet,
    default_labels,
    round_robin_sets,
    split_into_sets,
    total_pair_symbols,
)
from content.decks.deck import build_deck
from content.decks.planes import plane_size


def deck_cards(order: int, cards_to_print: int | None = None) -> tuple[tuple[str, ...], ...]:
    symbols = [f"s{i:03d}" for i in range(plane_size(order))]
    return build_deck(symbols, cards_to_print=cards_to_print).cards


@functools.cache
def boxed_game_sets() -> tuple[CardSet, ...]:
    """The boxed game: 132 printed cards of order 11 into 13 lettered sets."""
    return tuple(split_into_sets(deck_cards(11, 132), default_labels(13), seed=0))


@functools.cache
def order_7_sets() -> tuple[CardSet, ...]:
    return tuple(split_into_sets(deck_cards(7), default_labels(7), seed=0))


def assert_partition(sets: tuple[CardSet, ...] | list[CardSet], card_count: int) -> None:
    seen = Counter(i for s in sets for i in s.cards)
    assert sorted(seen) == list(range(card_count))
    assert set(seen.values()) == {1}


def assert_report_is_true(
    sets: tuple[CardSet, ...] | list[CardSet], cards: tuple[tuple[str, ...], ...]
) -> None:
    for s in sets:
        counts = Counter(symbol for i in s.cards for symbol in cards[i])
        assert set(s.symbols) == set(counts)
        assert set(s.pair_symbols) == {x for x, c in counts.items() if c >= 2}
        assert set(s.crowded_symbols) == {x for x, c in counts.items() if c >= 3}
        report = s.report()
        assert report["pair_symbols"] == len(s.pair_symbols) <= s.pairs == report["upper_bound"]
        assert report["cards"] == len(s.cards)


def test_132_cards_split_into_13_sets_of_10_or_11() -> None:
    sets = boxed_game_sets()
    assert [s.label for s in sets] == list("ABCDEFGHIJKLM")
    assert sorted(len(s.cards) for s in sets) == [10] * 11 + [11] * 2


def test_every_card_is_in_exactly_one_set() -> None:
    assert_partition(boxed_game_sets(), 132)
    assert_partition(order_7_sets(), 57)


def test_the_reports_count_pair_symbols_truly() -> None:
    assert_report_is_true(boxed_game_sets(), deck_cards(11, 132))
    assert_report_is_true(order_7_sets(), deck_cards(7))


def test_the_optimiser_beats_a_round_robin_split() -> None:
    for sets, cards, k in ((boxed_game_sets(), deck_cards(11, 132), 13), (order_7_sets(), deck_cards(7), 7)):
        naive = round_robin_sets(cards, default_labels(k))
        assert total_pair_symbols(sets) >= total_pair_symbols(naive)
    assert total_pair_symbols(round_robin_sets(deck_cards(11, 132), default_labels(13))) == 358
    assert total_pair_symbols(round_robin_sets(deck_cards(7), default_labels(7))) == 57


def test_order_11_in_13_sets_reaches_the_documented_score() -> None:
    # Upper bound: 11 sets of 10 (45 pairs) + 2 of 11 (55 pairs) = 605 distinct pair-symbols.
    sets = boxed_game_sets()
    assert sum(s.pairs for s in sets) == 605
    assert total_pair_symbols(sets) >= 575
    assert sum(1 for s in sets if not s.crowded_symbols) >= 5


def test_order_7_in_7_sets_reaches_the_documented_score() -> None:
    # Upper bound 6 * 28 + 36 = 204; a set of 9 > 8 = n + 1 lines must have three through a point,
    # so the real maximum is at most 6 * 28 + 34 = 202.
    sets = order_7_sets()
    assert total_pair_symbols(sets) >= 190
    nine = [s for s in sets if len(s.cards) == 9]
    assert len(nine) == 1 and nine[0].crowded_symbols


@pytest.mark.parametrize(("order", "k"), [(7, 8), (5, 6), (3, 4), (11, 16)])
def test_no_three_cards_of_a_set_share_a_symbol_when_possible(order: int, k: int) -> None:
    cards = deck_cards(order)
    sets = split_into_sets(cards, default_labels(k), seed=0)
    assert_partition(sets, len(cards))
    for s in sets:
        assert s.crowded_symbols == ()
        assert len(s.pair_symbols) == s.pairs


def test_the_split_is_deterministic_for_the_seed() -> None:
    cards = deck_cards(5)
    first = split_into_sets(cards, default_labels(3), seed=4, iterations=20_000)
    again = split_into_sets(cards, default_labels(3), seed=4, iterations=20_000)
    assert first == again


def test_the_caller_chooses_the_labels() -> None:
    labels = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "K", "L", "M", "N"]  # A-N without J
    sets = split_into_sets(deck_cards(3), labels, seed=1)
    assert [s.label for s in sets] == labels
    assert [len(s.cards) for s in sets] == [1] * 13


def test_default_labels_skip_none() -> None:
    assert default_labels(13) == list("ABCDEFGHIJKLM")
    assert default_labels(28)[-3:] == ["Z", "AA", "AB"]
    assert default_labels(0) == []


def test_labels_must_be_given_and_different() -> None:
    with pytest.raises(ValueError):
        split_into_sets(deck_cards(2), [])
    with pytest.raises(ValueError):
        split_into_sets(deck_cards(2), ["A", "A"])
