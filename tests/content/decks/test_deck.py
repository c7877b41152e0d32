"""Decks from curated symbol sets keep the ZnajZnak property whatever the set size."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from content.decks.deck import Deck, DeckError, build_deck, deck_options
from content.decks.planes import ImpossibleOrder, plane_size, projective_plane


def keys(count: int) -> list[str]:
    return [f"sym-{i:03d}" for i in range(count)]


def assert_znajznak(deck: Deck) -> None:
    """Every card has the same number of distinct symbols; any two cards share exactly one."""
    sets = [set(card) for card in deck.cards]
    assert all(len(card) == len(s) == deck.symbols_per_card for card, s in zip(deck.cards, sets, strict=True))
    for a, b in combinations(sets, 2):
        assert len(a & b) == 1


def assert_accounts_for_everything(deck: Deck, symbols: list[str]) -> None:
    used = set(deck.symbols_used)
    dropped = [key for key, _ in deck.symbols_dropped]
    assert sorted(deck.symbols_used + tuple(dropped)) == sorted(symbols)
    assert list(deck.symbols_used) == [s for s in symbols if s in used]  # curator order kept
    assert {s for card in deck.cards for s in card} == used
    plane_cards = len(projective_plane(deck.order)) if deck.order > 1 else 3
    dropped_cards = [index for index, _ in deck.cards_dropped]
    assert sorted(dropped_cards + list(deck.plane_cards)) == list(range(plane_cards))
    assert all(reason for _, reason in deck.symbols_dropped + deck.cards_dropped)


@settings(max_examples=80, deadline=None)
@given(
    size=st.integers(min_value=3, max_value=200),
    cards_to_print=st.none() | st.integers(min_value=1, max_value=250),
)
def test_every_kept_card_has_the_same_size_and_any_two_share_exactly_one(
    size: int, cards_to_print: int | None
) -> None:
    symbols = keys(size)
    deck = build_deck(symbols, cards_to_print=cards_to_print)
    assert_znajznak(deck)
    assert_accounts_for_everything(deck, symbols)
    assert deck.cards
    if cards_to_print is not None:
        assert len(deck.cards) <= cards_to_print


@settings(max_examples=40, deadline=None)
@given(size=st.integers(min_value=3, max_value=200), order=st.sampled_from([2, 3, 4, 5, 7, 8, 9, 11, 13]))
def test_an_explicit_order_keeps_the_property_or_says_why_not(size: int, order: int) -> None:
    symbols = keys(size)
    try:
        deck = build_deck(symbols, order=order)
    except DeckError as error:
        assert "would keep no card" in str(error)
        return
    assert deck.order == order
    assert_znajznak(deck)
    assert_accounts_for_everything(deck, symbols)


def test_exactly_57_symbols_make_order_7_with_57_cards_and_nothing_dropped() -> None:
    deck = build_deck(keys(57))
    assert deck.order == 7
    assert deck.symbols_per_card == 8
    assert len(deck.cards) == 57
    assert deck.symbols_dropped == ()
    assert deck.cards_dropped == ()
    assert_znajznak(deck)


def test_133_symbols_printing_132_cards_like_the_boxed_game() -> None:
    deck = build_deck(keys(133), cards_to_print=132)
    assert deck.order == 11
    assert len(deck.cards) == 132
    assert deck.cards_dropped == ((132, "not printed: the deck prints 132 cards"),)
    assert len(deck.symbols_used) == 133
    assert_znajznak(deck)


def test_more_symbols_than_the_order_needs_are_trimmed_by_the_curators_order() -> None:
    symbols = keys(60)
    deck = build_deck(symbols)
    assert deck.order == 7
    assert deck.symbols_used == tuple(symbols[:57])
    assert deck.symbols_dropped == tuple(
        (s, "the deck of order 7 has room for 57 symbols") for s in symbols[57:]
    )


def test_a_chosen_smaller_order_drops_the_last_symbols() -> None:
    deck = build_deck(keys(133), order=7)
    assert len(deck.cards) == 57
    assert len(deck.symbols_dropped) == 76


def test_fewer_symbols_use_a_trimmed_plane_when_it_gives_more_cards() -> None:
    deck = build_deck(keys(132))  # the order-11 plane without one point: 121 cards > 91 of order 9
    assert deck.order == 11
    assert len(deck.cards) == 121
    assert len(deck.symbols_used) == 132
    assert len(deck.cards_dropped) == 12
    assert_znajznak(deck)


def test_fewer_symbols_otherwise_use_the_largest_order_that_fits() -> None:
    deck = build_deck(keys(120))
    assert deck.order == 9
    assert len(deck.cards) == 91
    assert len(deck.symbols_dropped) == 29


def test_a_trimmed_plane_reports_dropped_symbols_and_cards() -> None:
    deck = build_deck(keys(64), order=8)
    assert_znajznak(deck)
    assert len(deck.cards) == 28
    reasons = {reason for _, reason in deck.cards_dropped}
    assert reasons == {
        "needs a symbol the set does not have: the plane of order 8 has 73 points and the set 64 symbols"
    }
    assert [key for key, _ in deck.symbols_dropped] == ["sym-063"]
    assert "no card of the trimmed order-8 deck keeps it" in deck.symbols_dropped[0][1]


def test_tiny_sets_make_the_triangle_deck() -> None:
    deck = build_deck(["a", "b", "c"])
    assert deck.order == 1
    assert deck.cards == (("a", "b"), ("a", "c"), ("b", "c"))
    deck = build_deck(keys(6))
    assert (deck.order, len(deck.cards)) == (2, 4)


@pytest.mark.parametrize("count", [0, 1, 2])
def test_fewer_than_3_symbols_make_no_deck(count: int) -> None:
    with pytest.raises(DeckError, match="at least 3 symbols"):
        build_deck(keys(count))
    assert deck_options(count) == []


def test_symbol_keys_must_be_unique() -> None:
    with pytest.raises(DeckError, match="more than once"):
        build_deck(["a", "b", "a", "c"])


@pytest.mark.parametrize("order", [6, 10, 0, -1])
def test_an_impossible_order_raises_impossible_order(order: int) -> None:
    with pytest.raises(ImpossibleOrder):
        build_deck(keys(100), order=order)


def test_an_order_that_keeps_no_card_is_an_error() -> None:
    with pytest.raises(DeckError, match="would keep no card"):
        build_deck(keys(10), order=11)


def test_cards_to_print_must_be_positive() -> None:
    with pytest.raises(DeckError):
        build_deck(keys(57), cards_to_print=0)
    assert len(build_deck(keys(57), cards_to_print=1000).cards) == 57


def test_printing_few_cards_reports_symbols_left_off() -> None:
    deck = build_deck(keys(57), cards_to_print=2)
    assert len(deck.cards) == 2
    assert len(deck.symbols_used) == 15
    assert {reason for _, reason in deck.symbols_dropped} == {"appears only on cards that are not printed"}


def test_decks_are_deterministic_and_serialise_to_json() -> None:
    a = build_deck(keys(100), cards_to_print=50)
    b = build_deck(keys(100), cards_to_print=50)
    assert a == b
    data = json.loads(json.dumps(a.to_dict()))
    assert data["order"] == 9
    assert data["card_count"] == 50
    assert len(data["cards"]) == 50


def test_deck_options_for_57_symbols() -> None:
    options = deck_options(57)
    assert options[0].describe() == "57 symbols: order 7, 8 symbols per card, 57 cards"
    assert options[0].exact and options[0].recommended
    assert [o.order for o in options] == [7, 5]
    assert (
        options[1].describe() == "57 symbols: order 5, 6 symbols per card, 31 cards (uses 31 of 57 symbols)"
    )


def test_deck_options_describe_unused_symbols() -> None:
    options = deck_options(60)
    assert (
        options[0].describe() == "60 symbols: order 7, 8 symbols per card, 57 cards (uses 57 of 60 symbols)"
    )
    assert not options[0].exact


def test_deck_options_offer_a_trimmed_plane_that_uses_every_symbol() -> None:
    options = deck_options(70)
    assert [(o.order, o.cards, o.symbols_used, o.trimmed) for o in options] == [
        (8, 49, 70, True),
        (7, 57, 57, False),
        (5, 31, 31, False),
    ]
    assert [o.recommended for o in options] == [False, True, False]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=3, max_value=200))
def test_deck_options_are_sorted_and_the_recommended_one_is_what_build_deck_picks(size: int) -> None:
    options = deck_options(size)
    orders = [o.order for o in options]
    assert orders == sorted(orders, reverse=True)
    assert len(set(orders)) == len(orders)
    recommended = [o for o in options if o.recommended]
    assert len(recommended) == 1
    deck = build_deck(keys(size))
    assert (deck.order, len(deck.cards), len(deck.symbols_used)) == (
        recommended[0].order,
        recommended[0].cards,
        recommended[0].symbols_used,
    )
    for option in options:
        assert option.symbols_used + option.symbols_dropped == size
        assert option.symbols_per_card == option.order + 1
        assert option.exact == (option.symbols_used == size)
        if option.order > 1:
            assert option.symbols_used <= plane_size(option.order)
