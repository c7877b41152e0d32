"""Projective planes: the ZnajZnak deck of every supported order, and the impossible orders."""

from __future__ import annotations

from collections import Counter

import pytest

from content.decks.planes import (
    SUPPORTED_ORDERS,
    ImpossibleOrder,
    arc_size,
    is_prime_power,
    nearest_orders,
    plane_size,
    projective_plane,
)


def assert_any_two_lines_meet_once(lines: list[list[int]]) -> None:
    through: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        for p in line:
            through.setdefault(p, []).append(i)
    for i, line in enumerate(lines):
        met = Counter(j for p in line for j in through[p] if j != i)
        assert len(met) == len(lines) - 1, f"card {i} misses some card"
        assert set(met.values()) == {1}, f"card {i} shares two symbols with a card"


def test_supported_orders_are_the_prime_powers_up_to_31() -> None:
    assert SUPPORTED_ORDERS == (2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31)


@pytest.mark.parametrize("n", SUPPORTED_ORDERS)
def test_deck_of_order_n_has_n2_plus_n_plus_1_cards_of_n_plus_1_distinct_symbols(n: int) -> None:
    lines = projective_plane(n)
    assert len(lines) == n * n + n + 1 == plane_size(n)
    for line in lines:
        assert len(line) == n + 1
        assert len(set(line)) == n + 1
        assert line == sorted(line)
    assert {p for line in lines for p in line} == set(range(plane_size(n)))


@pytest.mark.parametrize("n", SUPPORTED_ORDERS)
def test_any_two_cards_share_exactly_one_symbol(n: int) -> None:
    assert_any_two_lines_meet_once(projective_plane(n))


@pytest.mark.parametrize("n", SUPPORTED_ORDERS)
def test_every_symbol_is_on_n_plus_1_cards(n: int) -> None:
    counts = Counter(p for line in projective_plane(n) for p in line)
    assert set(counts.values()) == {n + 1}


@pytest.mark.parametrize("n", [32, 37, 49])
def test_larger_prime_powers_work_too(n: int) -> None:
    lines = projective_plane(n)
    assert len(lines) == plane_size(n)
    assert all(len(line) == n + 1 for line in lines)
    counts = Counter(p for line in lines for p in line)
    assert set(counts.values()) == {n + 1}
    assert len(set(map(tuple, lines))) == len(lines)


def test_any_two_cards_share_exactly_one_symbol_for_order_32() -> None:
    assert_any_two_lines_meet_once(projective_plane(32))


def test_arithmetic_modulo_n_would_break_order_4() -> None:
    # The same construction with mod-4 arithmetic: some pair of lines shares 0 or 2 points.
    q = 4
    lines = [[a * q + (m * a + c) % q for a in range(q)] + [q * q + m] for m in range(q) for c in range(q)]
    shared = {len(set(x) & set(y)) for i, x in enumerate(lines) for y in lines[i + 1 :]}
    assert shared != {1}
    assert_any_two_lines_meet_once(projective_plane(4))


def test_planes_are_cached_but_callers_get_fresh_lists() -> None:
    first = projective_plane(7)
    first[0].append(999)
    first.pop()
    assert projective_plane(7)[0][-1] != 999
    assert len(projective_plane(7)) == 57


def test_planes_are_deterministic() -> None:
    from content.decks import planes

    before = projective_plane(9)
    planes.clear_cache()
    assert projective_plane(9) == before


@pytest.mark.parametrize(
    ("n", "nearest"),
    [
        (6, "5 and 7"),
        (10, "9 and 11"),
        (12, "11 and 13"),
        (14, "13 and 16"),
        (15, "13 and 16"),
        (18, "17 and 19"),
        (20, "19 and 23"),
    ],
)
def test_impossible_orders_name_the_nearest_orders_that_work(n: int, nearest: str) -> None:
    with pytest.raises(ImpossibleOrder) as caught:
        projective_plane(n)
    message = str(caught.value)
    assert message.startswith(f"There is no ZnajZnak deck of order {n}:")
    assert "prime-power orders" in message
    assert f"The nearest orders that work are {nearest}." in message
    assert isinstance(caught.value, ValueError)


def test_order_6_message_reads_as_documented() -> None:
    with pytest.raises(ImpossibleOrder) as caught:
        projective_plane(6)
    assert str(caught.value) == (
        "There is no ZnajZnak deck of order 6: a projective plane is known only for prime-power "
        "orders, and one of order 6 is proven impossible. The nearest orders that work are 5 and 7."
    )


@pytest.mark.parametrize("n", [1, 0, -3])
def test_orders_below_2_say_the_order_must_be_at_least_2(n: int) -> None:
    with pytest.raises(ImpossibleOrder) as caught:
        projective_plane(n)
    message = str(caught.value)
    assert f"order {n}" in message
    assert "must be at least 2" in message
    assert "The nearest order that works is 2." in message


def test_nearest_orders_and_prime_powers() -> None:
    assert nearest_orders(6) == (5, 7)
    assert nearest_orders(10) == (9, 11)
    assert nearest_orders(12) == (11, 13)
    assert nearest_orders(8) == (8, None)
    assert nearest_orders(1) == (2, None)
    assert nearest_orders(-3) == (2, None)
    assert [n for n in range(-2, 30) if is_prime_power(n)] == list(SUPPORTED_ORDERS[:-1])


@pytest.mark.parametrize("n", SUPPORTED_ORDERS)
def test_deleting_the_last_points_keeps_the_most_cards(n: int) -> None:
    # Deleting d points kills at least d(n+1) - d(d-1)/2 cards, with equality iff no three
    # deleted points are collinear (an arc). The numbering deletes an arc first.
    lines = projective_plane(n)
    total = plane_size(n)
    for d in range(arc_size(n) + 1):
        kept = sum(1 for line in lines if line[-1] < total - d)
        assert kept == total - d * (n + 1) + d * (d - 1) // 2


def test_deleting_an_arc_beats_deleting_points_of_one_line() -> None:
    lines = projective_plane(7)
    arc_deleted = sum(1 for line in lines if line[-1] < 57 - 7)
    some_line = set(lines[0])
    doomed = sorted(some_line)[:7]
    line_deleted = sum(1 for line in lines if not set(line) & set(doomed))
    assert (arc_deleted, line_deleted) == (22, 7)
