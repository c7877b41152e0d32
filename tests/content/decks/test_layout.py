"""Card faces: pictures never overlap nor leave the card; every symbol is large somewhere."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from content.decks.deck import build_deck
from content.decks.layout import GAP, MIN_SIZE, Placement, Shape, deck_layouts, layout_card, min_size
from content.decks.planes import plane_size

SHAPES: tuple[Shape, ...] = ("round", "square")


def assert_valid(placements: Sequence[Placement], shape: Shape) -> None:
    for i, a in enumerate(placements):
        r = a.size / 2
        assert a.size > 0
        assert 0 <= a.rotation <= 359
        if shape == "round":
            assert math.hypot(a.x - 0.5, a.y - 0.5) + r <= 0.5 + 1e-9
        else:
            assert r - 1e-9 <= a.x <= 1 - r + 1e-9
            assert r - 1e-9 <= a.y <= 1 - r + 1e-9
        for b in placements[i + 1 :]:
            assert math.hypot(a.x - b.x, a.y - b.y) >= r + b.size / 2 + GAP - 1e-9


def symbols(m: int) -> list[str]:
    return [f"pic{i}" for i in range(m)]


@settings(max_examples=150, deadline=None)
@given(
    m=st.integers(min_value=1, max_value=14),
    seed=st.integers(min_value=0, max_value=2**32),
    shape=st.sampled_from(SHAPES),
)
def test_pictures_do_not_overlap_nor_leave_the_card(m: int, seed: int, shape: Shape) -> None:
    placements = layout_card(symbols(m), seed=seed, shape=shape)
    assert [p.symbol for p in placements] == symbols(m)
    assert_valid(placements, shape)
    if m <= 12:
        assert min(p.size for p in placements) >= MIN_SIZE


@settings(max_examples=50, deadline=None)
@given(
    m=st.integers(min_value=2, max_value=12),
    seed=st.integers(min_value=0, max_value=2**32),
    shape=st.sampled_from(SHAPES),
)
def test_layouts_are_deterministic_for_the_seed(m: int, seed: int, shape: Shape) -> None:
    assert layout_card(symbols(m), seed=seed, shape=shape) == layout_card(symbols(m), seed=seed, shape=shape)


def test_different_seeds_give_different_faces() -> None:
    faces = {tuple(layout_card(symbols(8), seed=s)) for s in range(20)}
    assert len(faces) == 20


@pytest.mark.parametrize("shape", SHAPES)
def test_sizes_and_rotations_vary(shape: Shape) -> None:
    placements = layout_card(symbols(8), seed=3, shape=shape)
    sizes = [p.size for p in placements]
    assert max(sizes) / min(sizes) >= 1.6
    assert min(sizes) >= 0.15 and max(sizes) <= 0.6
    assert len({p.rotation for p in placements}) >= 6


@pytest.mark.parametrize("shape", SHAPES)
def test_twelve_symbols_still_fit_at_the_documented_minimum(shape: Shape) -> None:
    assert min_size(12, shape) >= MIN_SIZE
    assert min_size(8, shape) >= 0.15


@pytest.mark.parametrize("shape", SHAPES)
def test_large_symbols_get_the_largest_slot(shape: Shape) -> None:
    for seed in range(30):
        placements = layout_card(symbols(12), seed=seed, shape=shape, large={"pic7"})
        biggest = max(placements, key=lambda p: p.size)
        assert biggest.symbol == "pic7"
        second = sorted(p.size for p in placements)[-2]
        assert biggest.size > second * 1.1


def full_deck(order: int, cards_to_print: int | None = None) -> tuple[tuple[str, ...], ...]:
    return build_deck([f"s{i}" for i in range(plane_size(order))], cards_to_print=cards_to_print).cards


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", [2, 7, 11])
def test_every_symbol_is_large_on_at_least_one_card(order: int, shape: Shape) -> None:
    cards = full_deck(order)
    layouts = deck_layouts(cards, seed=11, shape=shape)
    large = set()
    for card, placements in zip(cards, layouts, strict=True):
        assert [p.symbol for p in placements] == list(card)
        assert_valid(placements, shape)
        large.add(max(placements, key=lambda p: p.size).symbol)
    assert large == {s for card in cards for s in card}
    assert deck_layouts(cards, seed=11, shape=shape) == layouts


def test_a_deck_with_fewer_cards_than_symbols_makes_as_many_large_as_cards() -> None:
    cards = full_deck(11, cards_to_print=132)
    layouts = deck_layouts(cards, seed=5)
    assert len({max(p, key=lambda x: x.size).symbol for p in layouts}) == 132


def test_a_card_cannot_show_a_symbol_twice() -> None:
    with pytest.raises(ValueError):
        layout_card(["a", "b", "a"], seed=1)
