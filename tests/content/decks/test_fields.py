"""GF(p^k): the field axioms hold, so planes of orders 4, 8, 9, 16, 25, 27 are right."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from content.decks.fields import GaloisField, ImpossibleOrder, galois_field

PRIME_POWER_FIELDS = (4, 8, 9, 16, 25, 27)
PRIME_FIELDS = (2, 3, 5, 7, 11, 31)


@st.composite
def field_and_elements(
    draw: st.DrawFn, orders: tuple[int, ...] = PRIME_POWER_FIELDS
) -> tuple[GaloisField, int, int, int]:
    field = galois_field(draw(st.sampled_from(orders)))
    element = st.integers(min_value=0, max_value=field.q - 1)
    return field, draw(element), draw(element), draw(element)


@settings(max_examples=300)
@given(field_and_elements())
def test_addition_is_an_abelian_group(case: tuple[GaloisField, int, int, int]) -> None:
    f, a, b, c = case
    assert f.add(a, b) == f.add(b, a)
    assert f.add(f.add(a, b), c) == f.add(a, f.add(b, c))
    assert f.add(a, 0) == a
    assert f.add(a, f.neg(a)) == 0
    assert f.sub(f.add(a, b), b) == a


@settings(max_examples=300)
@given(field_and_elements())
def test_multiplication_of_nonzero_elements_is_an_abelian_group(
    case: tuple[GaloisField, int, int, int],
) -> None:
    f, a, b, c = case
    assert f.mul(a, b) == f.mul(b, a)
    assert f.mul(f.mul(a, b), c) == f.mul(a, f.mul(b, c))
    assert f.mul(a, 1) == a
    assert f.mul(a, 0) == 0
    if a:
        assert f.mul(a, f.inv(a)) == 1
        assert f.div(f.mul(a, b), a) == b
    if a and b:
        assert f.mul(a, b) != 0  # no zero divisors


@settings(max_examples=300)
@given(field_and_elements(PRIME_POWER_FIELDS + PRIME_FIELDS))
def test_multiplication_distributes_over_addition(case: tuple[GaloisField, int, int, int]) -> None:
    f, a, b, c = case
    assert f.mul(a, f.add(b, c)) == f.add(f.mul(a, b), f.mul(a, c))


@pytest.mark.parametrize("q", PRIME_POWER_FIELDS + PRIME_FIELDS)
def test_tables_agree_with_the_operations(q: int) -> None:
    f = galois_field(q)
    for a in f.elements:
        for b in f.elements:
            assert f.add_table[a][b] == f.add(a, b)
            assert f.mul_table[a][b] == f.mul(a, b)


@pytest.mark.parametrize("q", PRIME_POWER_FIELDS + PRIME_FIELDS)
def test_the_characteristic_is_p_and_the_multiplicative_group_is_cyclic(q: int) -> None:
    f = galois_field(q)
    total = 0
    for _ in range(f.p):
        total = f.add(total, 1)
    assert total == 0
    powers = {f.power(f.primitive_element, e) for e in range(q - 1)}
    assert powers == set(range(1, q))


@pytest.mark.parametrize("q", PRIME_FIELDS)
def test_prime_fields_are_arithmetic_modulo_p(q: int) -> None:
    f = galois_field(q)
    for a in f.elements:
        for b in f.elements:
            assert f.add(a, b) == (a + b) % q
            assert f.mul(a, b) == (a * b) % q


@pytest.mark.parametrize("q", PRIME_POWER_FIELDS)
def test_prime_power_fields_are_not_arithmetic_modulo_q(q: int) -> None:
    # Modulo q, p is a zero divisor (p * q/p == 0); in GF(q) nothing is.
    f = galois_field(q)
    assert (f.p * (q // f.p)) % q == 0
    assert all(f.mul(a, b) != 0 for a in range(1, q) for b in range(1, q))


def test_the_modulus_is_found_deterministically() -> None:
    assert galois_field(4).modulus == (1, 1, 1)  # x^2 + x + 1
    assert galois_field(8).modulus == (1, 1, 0, 1)  # x^3 + x + 1
    assert galois_field(16).modulus == (1, 1, 0, 0, 1)  # x^4 + x + 1
    assert galois_field(9).modulus == (2, 1, 1)  # x^2 + x + 2


@pytest.mark.parametrize(("q", "nearest"), [(6, "5 and 7"), (10, "9 and 11"), (12, "11 and 13"), (1, "2")])
def test_fields_exist_only_for_prime_power_orders(q: int, nearest: str) -> None:
    with pytest.raises(ImpossibleOrder) as caught:
        galois_field(q)
    assert nearest in str(caught.value)


def test_zero_has_no_inverse() -> None:
    with pytest.raises(ZeroDivisionError):
        galois_field(9).inv(0)
