"""Which orders a ZnajZnak deck (a finite projective plane) can have.

A projective plane of order ``n`` is known for every prime power ``n = p**k``
(2, 3, 4, 5, 7, 8, 9, 11, 13, 16, ...).  For other orders none is known: for
some (6, 10, 14, 21, 22, ...) one is proven impossible (Bruck-Ryser theorem,
and Lam's computer search for 10); for the rest (12, 15, 18, 20, ...) the
question is open, so Talia treats every non-prime-power order as impossible.

This module is the shared number theory of :mod:`fields` and :mod:`planes`;
both re-export what they need from it.
"""

from __future__ import annotations

import math

__all__ = [
    "ImpossibleOrder",
    "is_prime_power",
    "nearest_orders",
    "field_order_message",
    "plane_order_message",
    "prime_power_parts",
]


class ImpossibleOrder(ValueError):
    """No deck (or finite field) exists for the requested order.

    The message is written for people: it says why and names the nearest
    orders that work.  ``order`` is the requested order and ``nearest`` the
    result of :func:`nearest_orders` for it.
    """

    def __init__(self, message: str, *, order: int, nearest: tuple[int, int | None]) -> None:
        super().__init__(message)
        self.order = order
        self.nearest = nearest


def prime_power_parts(n: int) -> tuple[int, int] | None:
    """Return ``(p, k)`` with ``n == p**k``, ``p`` prime and ``k >= 1``; else ``None``."""
    if n < 2:
        return None
    p = 0
    if n % 2 == 0:
        p = 2
    else:
        limit = math.isqrt(n)
        d = 3
        while d <= limit:
            if n % d == 0:
                p = d
                break
            d += 2
        if p == 0:
            return (n, 1)  # n is prime
    k = 0
    m = n
    while m % p == 0:
        m //= p
        k += 1
    return (p, k) if m == 1 else None


def is_prime_power(n: int) -> bool:
    """True when ``n`` is ``p**k`` for a prime ``p`` and ``k >= 1`` (so 1 is not)."""
    return prime_power_parts(n) is not None


def nearest_orders(n: int) -> tuple[int, int | None]:
    """The nearest orders that work (prime powers, at least 2) around ``n``.

    * ``n`` below 2: ``(2, None)`` - the smallest order is the only neighbour;
    * ``n`` a prime power: ``(n, None)`` - ``n`` itself works;
    * otherwise: ``(largest prime power below n, smallest prime power above n)``.
    """
    if n < 2:
        return (2, None)
    if is_prime_power(n):
        return (n, None)
    below = n - 1
    while not is_prime_power(below):
        below -= 1
    above = n + 1
    while not is_prime_power(above):
        above += 1
    return (below, above)


def _sum_of_two_squares(n: int) -> bool:
    a = 0
    while a * a <= n:
        b = math.isqrt(n - a * a)
        if b * b == n - a * a:
            return True
        a += 1
    return False


def _proven_impossible(n: int) -> bool:
    """Bruck-Ryser (n = 1 or 2 mod 4 and not a sum of two squares) or n == 10."""
    return n == 10 or (n % 4 in (1, 2) and not _sum_of_two_squares(n))


def plane_order_message(n: int) -> str:
    """The people-facing reason why there is no ZnajZnak deck of order ``n``."""
    if n < 2:
        return (
            f"There is no ZnajZnak deck of order {n}: the order must be at least 2 "
            "(the smallest deck, order 2, has 7 cards with 3 symbols each). "
            "The nearest order that works is 2."
        )
    below, above = nearest_orders(n)
    if above is None:  # pragma: no cover - only called for impossible orders
        return f"A ZnajZnak deck of order {n} exists."
    why = (
        f"one of order {n} is proven impossible"
        if _proven_impossible(n)
        else f"none of order {n} has ever been found"
    )
    return (
        f"There is no ZnajZnak deck of order {n}: a projective plane is known only for "
        f"prime-power orders, and {why}. "
        f"The nearest orders that work are {below} and {above}."
    )


def field_order_message(q: int) -> str:
    """The reason why there is no finite field with ``q`` elements."""
    if q < 2:
        return (
            f"There is no finite field of order {q}: a field has at least 2 elements. "
            "The nearest order that works is 2."
        )
    below, above = nearest_orders(q)
    return (
        f"There is no finite field of order {q}: finite fields exist only for "
        f"prime-power orders. The nearest orders that work are {below} and {above}."
    )
