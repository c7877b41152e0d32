"""Lesson card sets: split a deck into lettered sets (the boxed game: 13 sets, A-N).

Teacher's note of the rulebook: playing the Duel with the cards of one set
lets students meet "the largest possible number of new symbols".  In a duel
the symbol that counts is the common symbol of the two cards on the table, so
a set is good when its pairs of cards have *different* common symbols.

Objective.  For a set of ``m`` cards let ``c(s)`` be the number of its cards
showing symbol ``s``.  A symbol is the common symbol of some pair exactly
when ``c(s) >= 2``, so the set shows ``#{s : c(s) >= 2}`` distinct
pair-symbols.  In a ZnajZnak deck every pair of cards shares exactly one
symbol, so there are ``m(m-1)/2`` pairs and

    distinct pair-symbols = m(m-1)/2 - sum over s of (C(c(s), 2) - 1 for c(s) >= 2)

**Upper bound**: a set of ``m`` cards has ``m(m-1)/2`` pairs, so at most
``m(m-1)/2`` distinct pair-symbols, reached exactly when no three cards of
the set share a symbol (no three cards of one *pencil* - the cards through
one point of the plane).  In plane terms the set's cards must be a *dual
arc*: lines no three of which are concurrent.  A dual arc of PG(2, n) has at
most ``n + 1`` lines (``n + 2`` for even ``n``), so a set bigger than that
cannot reach the bound; it loses at least 2 pair-symbols.

The split: set sizes differ by at most one (the first ``len(cards) %
len(labels)`` labels get the extra card).  A seeded greedy start puts each
card into the set where it crowds the fewest symbols; then simulated
annealing swaps random pairs of cards between sets, minimising the *waste*
``sum of C(c(s), 2) - 1 over c(s) >= 3`` (exactly the pair-symbols lost
against the bound when two cards always share one symbol), and keeps the
best split seen.  It stops at the bound or after ``iterations`` proposals
(about a second for the boxed game), so it is deterministic for the seed.
The result is never worse than the naive round-robin split (checked, and
returned instead if it were).

Achieved with the default effort (tests pin the lower limits):

* order 11, the 132 printed cards, 13 sets (2 of 11, 11 of 10; bound 605):
  seed 0 gives 579 distinct pair-symbols, 6 sets at their bound, at most a
  few symbols shared by three cards in the others; seeds 0-3 give 569-580.
  Round robin gives 358.  Sets of 10-11 lines free of concurrent triples are
  near the largest dual arcs (12), so a perfect split may not exist; with
  16 sets (8-9 cards) the search reaches the bound in every set.
* order 7, 57 cards, 7 sets (one of 9, six of 8; bound 204, really at most
  202 since 9 lines of PG(2, 7) always have three through a point):
  seed 0 gives 193, five of the six sets of 8 are perfect (dual conics).
  Round robin gives 57 (it groups the cards through one symbol).  With 8
  sets every set reaches its bound.

Perfect sets have the fewest distinct symbols on their cards: ``m`` lines
with no three concurrent cover ``m(n+1) - m(m-1)/2`` points (75 for 10 cards
of order 11), because every pair-symbol is counted once.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_ITERATIONS",
    "CardSet",
    "default_labels",
    "round_robin_sets",
    "split_into_sets",
    "total_pair_symbols",
]

#: Proposed swaps of the annealing (0.9 CPU s for 132 cards of order 11 on a fast 2-core machine).
DEFAULT_ITERATIONS = 600_000


def default_labels(k: int) -> list[str]:
    """``A, B, C, ... Z, AA, AB, ...`` - ``k`` labels, skipping none."""
    if k < 0:
        raise ValueError("the number of labels cannot be negative")
    labels = []
    for i in range(k):
        text = ""
        j = i + 1
        while j:
            j, r = divmod(j - 1, 26)
            text = chr(ord("A") + r) + text
        labels.append(text)
    return labels


@dataclass(frozen=True)
class CardSet:
    """One lesson set: ``cards`` are indexes into the deck given to the split."""

    label: str
    cards: tuple[int, ...]
    #: Distinct symbols on the set's cards (first appearance, by card index).
    symbols: tuple[str, ...]
    #: Distinct common symbols of the pairs of cards in the set.
    pair_symbols: tuple[str, ...]
    #: Symbols shared by three or more cards of the set (repeats in duels).
    crowded_symbols: tuple[str, ...] = ()

    @property
    def pairs(self) -> int:
        m = len(self.cards)
        return m * (m - 1) // 2

    def report(self) -> dict[str, object]:
        return {
            "label": self.label,
            "cards": len(self.cards),
            "card_indexes": list(self.cards),
            "symbols": len(self.symbols),
            "pairs": self.pairs,
            "pair_symbols": len(self.pair_symbols),
            "upper_bound": self.pairs,
            "crowded_symbols": list(self.crowded_symbols),
        }


def total_pair_symbols(sets: Sequence[CardSet]) -> int:
    return sum(len(s.pair_symbols) for s in sets)


def _check(cards: Sequence[Sequence[str]], labels: Sequence[str]) -> None:
    if not labels:
        raise ValueError("at least one label is needed to split cards into sets")
    if len(set(labels)) != len(labels):
        raise ValueError("the set labels must be different")


def _make_sets(
    cards: Sequence[Sequence[str]], labels: Sequence[str], members: Sequence[Sequence[int]]
) -> list[CardSet]:
    result = []
    for label, group in zip(labels, members, strict=True):
        indexes = tuple(sorted(group))
        seen: dict[str, int] = {}
        for i in indexes:
            for s in dict.fromkeys(cards[i]):
                seen[s] = seen.get(s, 0) + 1
        result.append(
            CardSet(
                label=label,
                cards=indexes,
                symbols=tuple(seen),
                pair_symbols=tuple(s for s, c in seen.items() if c >= 2),
                crowded_symbols=tuple(s for s, c in seen.items() if c >= 3),
            )
        )
    return result


def _sizes(n: int, k: int) -> list[int]:
    return [n // k + (1 if g < n % k else 0) for g in range(k)]


def round_robin_sets(cards: Sequence[Sequence[str]], labels: Sequence[str]) -> list[CardSet]:
    """The naive split: card ``i`` goes to set ``i % k`` (a baseline for reports)."""
    _check(cards, labels)
    k = len(labels)
    members: list[list[int]] = [[] for _ in range(k)]
    for i in range(len(cards)):
        members[i % k].append(i)
    return _make_sets(cards, labels, members)


def split_into_sets(
    cards: Sequence[Sequence[str]],
    labels: Sequence[str],
    *,
    seed: int = 0,
    iterations: int = DEFAULT_ITERATIONS,
) -> list[CardSet]:
    """Split ``cards`` into ``len(labels)`` sets maximising distinct pair-symbols.

    See the module docstring for the objective, the bound and the search.
    ``iterations``: proposed swaps of the annealing (the run stops earlier
    when every set reaches its bound).  Deterministic for ``seed``.
    """
    _check(cards, labels)
    k = len(labels)
    n = len(cards)
    sizes = _sizes(n, k)

    ids: dict[str, int] = {}
    card_syms: list[tuple[int, ...]] = []
    for card in cards:
        card_syms.append(tuple(ids.setdefault(s, len(ids)) for s in dict.fromkeys(card)))
    card_sets = [frozenset(row) for row in card_syms]
    symbol_count = len(ids)
    rng = random.Random(seed)

    # -- greedy start: each card where it crowds the fewest symbols ----------
    counts = [[0] * symbol_count for _ in range(k)]
    fill = [0] * k
    where = [0] * n
    order = list(range(n))
    rng.shuffle(order)
    for a in order:
        best_key: tuple[int, float, float] | None = None
        best_g = -1
        for g in range(k):
            if fill[g] >= sizes[g]:
                continue
            cg = counts[g]
            crowd = sum(1 for s in card_syms[a] if cg[s] >= 2)
            key = (crowd, fill[g] / sizes[g], rng.random())
            if best_key is None or key < best_key:
                best_key, best_g = key, g
        fill[best_g] += 1
        where[a] = best_g
        for s in card_syms[a]:
            counts[best_g][s] += 1

    # -- simulated annealing on the waste -----------------------------------
    # waste(c) = C(c, 2) - 1 for c >= 3: pairs of the set whose common
    # symbol is already the common symbol of another pair.  step[c] is the
    # waste added when a count goes from c - 1 to c.
    top = max((len(row) for row in card_syms), default=0) + n + 2
    step = [0] * (top + 1)
    for c in range(3, top + 1):
        step[c] = (c * (c - 1) // 2 - 1) - ((c - 1) * (c - 2) // 2 - 1 if c > 3 else 0)
    waste = sum(_waste_of(c) for cg in counts for c in cg)
    best_waste = waste
    best_where = list(where)
    if k > 1 and n > 1 and waste > 0:
        exp = math.exp
        rand = rng.random
        # ``rng.randrange(n)`` without its three calls: the same draws from the same bits
        # (``random.Random._randbelow_with_getrandbits``), so a seed splits as it did.
        bits = rng.getrandbits
        width = n.bit_length()
        t_start, t_end = 1.0, 0.15
        ratio = (t_end / t_start) ** (1 / max(iterations, 1))
        temp = t_start
        for _ in range(iterations):
            temp *= ratio
            a = bits(width)
            while a >= n:
                a = bits(width)
            b = bits(width)
            while b >= n:
                b = bits(width)
            ga = where[a]
            gb = where[b]
            if ga == gb:
                continue
            ca = counts[ga]
            cb = counts[gb]
            in_a = card_sets[a]
            in_b = card_sets[b]
            d = 0
            for s in card_syms[a]:
                if s not in in_b:
                    d += step[cb[s] + 1] - step[ca[s]]
            for s in card_syms[b]:
                if s not in in_a:
                    d += step[ca[s] + 1] - step[cb[s]]
            if d <= 0 or rand() < exp(-d / temp):
                for s in card_syms[a]:
                    ca[s] -= 1
                    cb[s] += 1
                for s in card_syms[b]:
                    cb[s] -= 1
                    ca[s] += 1
                where[a] = gb
                where[b] = ga
                waste += d
                if waste < best_waste:
                    best_waste = waste
                    best_where = list(where)
                    if waste == 0:
                        break

    members: list[list[int]] = [[] for _ in range(k)]
    for a in range(n):
        members[best_where[a]].append(a)
    result = _make_sets(cards, labels, members)
    naive = round_robin_sets(cards, labels)
    # Never worse than the naive split (only possible for decks where two
    # cards may share no symbol or several, where the waste is a proxy).
    if total_pair_symbols(naive) > total_pair_symbols(result):
        return naive
    return result


def _waste_of(c: int) -> int:
    """Waste of a symbol shown on ``c`` cards of one set: ``C(c, 2) - 1`` for ``c >= 3``."""
    return c * (c - 1) // 2 - 1 if c >= 3 else 0
