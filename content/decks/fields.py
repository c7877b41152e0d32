"""Finite fields GF(q), q = p**k, in pure Python.

Elements are the integers ``0 .. q-1``.  An element stands for the polynomial
over GF(p) whose coefficients are its base-``p`` digits, lowest digit first:
with ``p = 3`` the integer ``5 = 2 + 1*3`` is the polynomial ``2 + x``.  So
``0`` is zero, ``1`` is one and, for ``k > 1``, the integer ``p`` is ``x``.
For ``k == 1`` this is ordinary arithmetic modulo ``p``.

Addition adds the digits modulo ``p``; multiplication is done modulo a monic
polynomial of degree ``k`` that is *primitive* (``x`` generates the whole
multiplicative group, which also makes it irreducible).  The polynomial is the
first primitive one in a fixed enumeration order (lowest coefficients counted
first, like the base-``p`` integers), so every build is the same:
GF(4) uses ``x^2 + x + 1``, GF(8) ``x^3 + x + 1``, GF(9) ``x^2 + x + 2``,
GF(16) ``x^4 + x + 1``.  For prime ``q`` the primitive element is a primitive
root modulo ``q``.

Multiplication goes through exp/log tables (``a*b = exp[log a + log b]``);
:attr:`GaloisField.add_table` and :attr:`GaloisField.mul_table` are full
``q x q`` tables, built on first use.
"""

from __future__ import annotations

import functools

from .orders import ImpossibleOrder, field_order_message, nearest_orders, prime_power_parts

__all__ = ["GaloisField", "ImpossibleOrder", "galois_field"]


def _digits(a: int, p: int, k: int) -> list[int]:
    out = []
    for _ in range(k):
        a, d = divmod(a, p)
        out.append(d)
    return out


def _undigits(ds: list[int], p: int) -> int:
    v = 0
    for d in reversed(ds):
        v = v * p + d
    return v


def _primitive_modulus(p: int, k: int) -> tuple[tuple[int, ...], list[int]]:
    """First monic primitive polynomial of degree ``k`` over GF(p), and the powers of x.

    Returns the coefficients ``(c_0, ..., c_{k-1}, 1)`` and ``exp`` with
    ``exp[i] = x**i`` (as field integers) for ``i`` in ``0 .. q-2``.
    """
    q = p**k
    for code in range(q):
        low = _digits(code, p, k)
        if low[0] == 0:
            continue  # divisible by x
        # Walk x^0, x^1, ... modulo  x^k + low(x); x is primitive iff the
        # first return to 1 is at exponent q - 1.
        cur = [1] + [0] * (k - 1)
        powers = [1]
        ok = True
        for i in range(1, q - 1 + 1):
            top = cur[-1]
            nxt = [0, *cur[:-1]]
            if top:
                nxt = [(c - top * f) % p for c, f in zip(nxt, low, strict=True)]
            cur = nxt
            v = _undigits(cur, p)
            if v == 1:
                ok = i == q - 1
                break
            if v == 0:
                ok = False
                break
            powers.append(v)
        if ok and len(powers) == q - 1:
            return (*low, 1), powers
    raise AssertionError(f"no primitive polynomial of degree {k} over GF({p})")  # unreachable


class GaloisField:
    """The finite field with ``q = p**k`` elements, elements ``0 .. q-1``.

    Build it with :func:`galois_field` (cached) rather than directly.
    """

    __slots__ = (
        "p",
        "k",
        "q",
        "modulus",
        "primitive_element",
        "_exp",
        "_log",
        "_neg",
        "_add_table",
        "_mul_table",
    )

    p: int
    k: int
    q: int
    modulus: tuple[int, ...]
    primitive_element: int
    _exp: tuple[int, ...]
    _log: tuple[int, ...]
    _neg: tuple[int, ...]
    _add_table: tuple[tuple[int, ...], ...] | None
    _mul_table: tuple[tuple[int, ...], ...] | None

    def __init__(self, q: int) -> None:
        parts = prime_power_parts(q)
        if parts is None:
            raise ImpossibleOrder(field_order_message(q), order=q, nearest=nearest_orders(q))
        p, k = parts
        self.p, self.k, self.q = p, k, q
        modulus, powers = _primitive_modulus(p, k)
        self.modulus = modulus
        self.primitive_element = powers[1] if q > 2 else 1
        # exp is doubled so that exp[log a + log b] needs no modulo.
        self._exp = tuple(powers + powers)
        log = [-1] * q
        for i, v in enumerate(powers):
            log[v] = i
        self._log = tuple(log)
        if k == 1:
            self._neg = tuple((-a) % p for a in range(q))
        else:
            self._neg = tuple(_undigits([(-d) % p for d in _digits(a, p, k)], p) for a in range(q))
        self._add_table = None
        self._mul_table = None

    def __repr__(self) -> str:
        return f"GaloisField({self.q})"

    # -- element arithmetic -------------------------------------------------

    def add(self, a: int, b: int) -> int:
        p = self.p
        if self.k == 1:
            return (a + b) % p
        if p == 2:
            return a ^ b
        out = 0
        scale = 1
        while a or b:
            a, da = divmod(a, p)
            b, db = divmod(b, p)
            out += ((da + db) % p) * scale
            scale *= p
        return out

    def neg(self, a: int) -> int:
        return self._neg[a]

    def sub(self, a: int, b: int) -> int:
        return self.add(a, self._neg[b])

    def mul(self, a: int, b: int) -> int:
        if a == 0 or b == 0:
            return 0
        return self._exp[self._log[a] + self._log[b]]

    def inv(self, a: int) -> int:
        if a == 0:
            raise ZeroDivisionError("0 has no inverse in a field")
        return self._exp[(self.q - 1 - self._log[a]) % (self.q - 1)]

    def div(self, a: int, b: int) -> int:
        return self.mul(a, self.inv(b))

    def power(self, a: int, e: int) -> int:
        if e == 0:
            return 1
        if a == 0:
            if e < 0:
                raise ZeroDivisionError("0 has no inverse in a field")
            return 0
        return self._exp[(self._log[a] * e) % (self.q - 1)]

    def log(self, a: int) -> int:
        """Discrete logarithm to base :attr:`primitive_element` (``a != 0``)."""
        if a == 0:
            raise ValueError("0 has no logarithm")
        return self._log[a]

    # -- tables -------------------------------------------------------------

    @property
    def elements(self) -> range:
        return range(self.q)

    @property
    def add_table(self) -> tuple[tuple[int, ...], ...]:
        """``add_table[a][b] == a + b`` (built on first use)."""
        if self._add_table is None:
            q, p, k = self.q, self.p, self.k
            if k == 1:
                table = tuple(tuple(range(a, q)) + tuple(range(a)) for a in range(q))
            elif p == 2:
                table = tuple(tuple(a ^ b for b in range(q)) for a in range(q))
            else:
                digits = [_digits(a, p, k) for a in range(q)]
                weights = [p**i for i in range(k)]
                table = tuple(
                    tuple(
                        sum(((x + y) % p) * w for x, y, w in zip(da, db, weights, strict=True))
                        for db in digits
                    )
                    for da in digits
                )
            self._add_table = table
        return self._add_table

    @property
    def mul_table(self) -> tuple[tuple[int, ...], ...]:
        """``mul_table[a][b] == a * b`` (built on first use)."""
        if self._mul_table is None:
            q = self.q
            exp, log = self._exp, self._log
            zero_row = (0,) * q
            rows = [zero_row]
            for a in range(1, q):
                la = log[a]
                rows.append((0, *(exp[la + log[b]] for b in range(1, q))))
            self._mul_table = tuple(rows)
        return self._mul_table


@functools.lru_cache(maxsize=64)
def galois_field(q: int) -> GaloisField:
    """The field GF(q); raises :class:`ImpossibleOrder` unless ``q`` is a prime power."""
    if isinstance(q, bool) or not isinstance(q, int):
        raise TypeError(f"the order of a field must be an int, not {type(q).__name__}")
    return GaloisField(q)
