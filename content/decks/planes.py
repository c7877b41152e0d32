"""Projective planes PG(2, n): the cards of a ZnajZnak deck of order ``n``.

A deck of order ``n`` has ``n^2 + n + 1`` symbols (the points of the plane)
and as many cards (the lines), ``n + 1`` symbols on every card, every symbol
on ``n + 1`` cards, and any two cards share exactly one symbol.
:func:`projective_plane` builds PG(2, n) over the field GF(n) of
:mod:`.fields` - true field arithmetic, so orders 4, 8, 9, 16, 25, 27 are
right (arithmetic modulo ``n`` only works for prime ``n``).

Construction.  Affine points ``(a, b)`` with ``a, b`` in GF(n), the points at
infinity ``(m)`` (one per slope) and ``(inf)`` (the vertical direction).
Lines: ``b = m*a + c`` plus ``(m)``; ``a = c`` plus ``(inf)``; and the line
at infinity.  That is ``n^2 + n + 1`` lines.

Point numbering - chosen for trimmed decks.  A curated set with ``s``
symbols, fewer than the ``N = n^2 + n + 1`` points, keeps the points
``0 .. s-1`` and only the cards all of whose points are kept
(:mod:`.deck`).  So the points numbered last are the ones deleted first, and
the numbering should make the deleted points hit as few lines as possible.

Deleting a set ``D`` of ``d`` points kills every line that meets ``D``::

    lines killed = d*(n+1) - sum over lines L of (|L & D| - 1)+
                >= d*(n+1) - d*(d-1)/2

because the pairs of points of ``D`` lie on distinct lines (one line per
pair), so the sum is at most the number of pairs, with equality exactly when
no three points of ``D`` are collinear - when ``D`` is an *arc*.  Deleting
points of one line is the *worst* way to delete ``d >= 3`` points (it kills
``d*n + 1`` lines): for order 7 with 7 points deleted a line keeps 7 cards,
an arc keeps 22.  Arcs have at most ``n + 1`` points (``n + 2`` for even
``n``); the conic ``b = a^2`` (plus ``(inf)``, and for even ``n`` its nucleus
``(0)``) is a largest one.  So the deletion order starts with that conic
(hyperoval), which keeps ``N - d*(n+1) + d*(d-1)/2`` cards - the proven
optimum - for every ``d`` up to the arc size; after the arc the order
continues greedily (always delete the point on the fewest surviving lines,
ties by coordinates).  Point numbers are the reverse of that deletion order,
so point ``N-1`` is deleted first.

The lines are returned as sorted lists, in lexicographic order.  Results are
cached (``lru_cache`` of an immutable tuple form); :func:`projective_plane`
returns fresh lists each call.
"""

from __future__ import annotations

import functools
import heapq

from .fields import galois_field
from .orders import (
    ImpossibleOrder,
    is_prime_power,
    nearest_orders,
    plane_order_message,
    prime_power_parts,
)

__all__ = [
    "SUPPORTED_ORDERS",
    "ImpossibleOrder",
    "arc_size",
    "clear_cache",
    "is_prime_power",
    "nearest_orders",
    "plane_size",
    "plane_tuple",
    "prime_power_parts",
    "projective_plane",
]

#: Prime-power orders from 2 to 31 (bigger prime powers work too).
SUPPORTED_ORDERS: tuple[int, ...] = tuple(n for n in range(2, 32) if is_prime_power(n))


def plane_size(n: int) -> int:
    """Number of points (= lines) of a plane of order ``n``: ``n^2 + n + 1``."""
    return n * n + n + 1


def arc_size(n: int) -> int:
    """Size of the largest arc of PG(2, n): ``n + 2`` for even ``n``, else ``n + 1``."""
    return n + 2 if n % 2 == 0 else n + 1


def _check_order(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"the order of a deck must be an int, not {type(n).__name__}")
    if not is_prime_power(n):
        raise ImpossibleOrder(plane_order_message(n), order=n, nearest=nearest_orders(n))


def _raw_lines(n: int) -> tuple[list[list[int]], list[int]]:
    """Lines in coordinate numbering, and the arc (conic or hyperoval) points."""
    q = n
    field = galois_field(q)
    add = field.add_table
    mul = field.mul_table
    qq = q * q
    inf_vertical = qq + q
    rows = range(0, qq, q)  # a*q for every a
    lines: list[list[int]] = []
    for m in range(q):
        mrow = mul[m]
        slope_point = qq + m
        for c in range(q):
            addc = add[c]
            line = [aq + addc[mrow_a] for aq, mrow_a in zip(rows, mrow, strict=True)]
            line.append(slope_point)
            lines.append(line)
    for c in range(q):
        line = list(range(c * q, c * q + q))
        line.append(inf_vertical)
        lines.append(line)
    lines.append([*range(qq, qq + q), inf_vertical])
    arc = [inf_vertical] + [t * q + mul[t][t] for t in range(q)]
    if q % 2 == 0:
        arc.append(qq)  # the nucleus (0): every tangent of the conic passes through it
    return lines, arc


def _deletion_order(n: int, lines: list[list[int]], arc: list[int]) -> list[int]:
    """Greedy deletion order: arc first, then the point on the fewest surviving lines."""
    total = len(lines)
    rank = [0] * total
    arc_set = set(arc)
    for r, p in enumerate(arc):
        rank[p] = r
    r = len(arc)
    for p in range(total):
        if p not in arc_set:
            rank[p] = r
            r += 1
    through: list[list[int]] = [[] for _ in range(total)]
    for li, line in enumerate(lines):
        for p in line:
            through[p].append(li)
    count = [n + 1] * total
    alive = [True] * total
    deleted = [False] * total
    heap = [(n + 1, rank[p], p) for p in range(total)]
    heapq.heapify(heap)
    order: list[int] = []
    alive_lines = total
    push, pop = heapq.heappush, heapq.heappop
    while alive_lines:
        c, _, p = pop(heap)
        if deleted[p] or c != count[p]:
            continue
        deleted[p] = True
        order.append(p)
        for li in through[p]:
            if alive[li]:
                alive[li] = False
                alive_lines -= 1
                for x in lines[li]:
                    if not deleted[x]:
                        cx = count[x] - 1
                        count[x] = cx
                        push(heap, (cx, rank[x], x))
    rest = sorted((p for p in range(total) if not deleted[p]), key=rank.__getitem__)
    order.extend(rest)
    return order


@functools.lru_cache(maxsize=32)
def plane_tuple(n: int) -> tuple[tuple[int, ...], ...]:
    """Immutable, cached form of :func:`projective_plane`."""
    _check_order(n)
    lines, arc = _raw_lines(n)
    order = _deletion_order(n, lines, arc)
    total = len(lines)
    number = [0] * total
    for position, p in enumerate(order):
        number[p] = total - 1 - position
    renumbered = [tuple(sorted([number[p] for p in line])) for line in lines]
    renumbered.sort()
    return tuple(renumbered)


def projective_plane(n: int) -> list[list[int]]:
    """The ``n^2 + n + 1`` lines of PG(2, n) as sorted lists of points ``0 .. n^2 + n``.

    ``n`` must be a prime power; otherwise :class:`ImpossibleOrder` says why
    and names the nearest orders that work.  See the module docstring for the
    point numbering (the first ``s`` points are the best ``s`` to keep).
    """
    return [list(line) for line in plane_tuple(n)]


def clear_cache() -> None:
    """Forget cached planes and fields (for benchmarks of cold construction)."""
    plane_tuple.cache_clear()
    galois_field.cache_clear()
