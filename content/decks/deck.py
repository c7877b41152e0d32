"""Build a ZnajZnak deck from a curated, ordered set of symbol keys.

A deck of order ``n`` is a projective plane PG(2, n) (:mod:`.planes`) whose
points carry symbols: point ``i`` gets the ``i``-th symbol in the curator's
order.  Whatever the set, the deck keeps the ZnajZnak property - every card
has the same number of symbols and any two cards share exactly one.

Readings chosen by the project (see ``rules/README.md``, ZnajZnak):

* **Exactly** ``n^2+n+1`` symbols fill the plane of order ``n``.
* **More** symbols than the order needs: the deck is trimmed by the
  curator's ordering - the first ``n^2+n+1`` symbols are kept, the rest are
  reported in ``symbols_dropped`` ("the deck of order n has room for m
  symbols").
* **Fewer** symbols than ``n^2+n+1`` (a *trimmed plane*): the plane keeps its
  first ``s`` points (the numbering of :mod:`.planes` deletes the points of an
  arc first, which provably keeps the most cards for up to ``n+1`` deleted
  points) and only the cards whose points are all kept; any two cards through
  a deleted point would otherwise share nothing, or a card would lose a
  symbol.  Dropped cards are reported with their index in the plane; kept
  symbols that end up on no kept card are reported as dropped.
* **No order given**: the candidates are the largest order whose plane fits
  (``n^2+n+1 <= s``) and trimmed planes of the next two larger prime-power
  orders.  The deck with the **most cards** wins; a tie goes to the one that
  uses more symbols, then to the larger order.  For 132 symbols that is the
  order-11 plane without one point (121 cards, all 132 symbols) rather than
  the full order-9 plane (91 cards).
* **Tiny sets** (3 to 6 symbols): no plane of order 2 or more fits, so the
  largest order that fits is the degenerate plane of order 1 - the triangle:
  3 symbols, 3 cards of 2 symbols (``{a,b}, {a,c}, {b,c}``).  With 6 symbols
  the trimmed order-2 plane wins instead (4 cards of 3 symbols).  Fewer than
  3 symbols make no deck (:class:`DeckError`).
* ``cards_to_print``: print only the first ``N`` cards of the deck (the boxed
  game prints 132 of the 133 cards of order 11); the others are reported as
  "not printed: the deck prints N cards".  A number above the deck size
  prints the whole deck.  The order is chosen before the cut.

Cards are tuples of symbol keys in the curator's order; the cards are in the
plane's (lexicographic) order.  Everything is deterministic.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from .orders import ImpossibleOrder, is_prime_power, nearest_orders, plane_order_message
from .planes import plane_size, plane_tuple

__all__ = ["Deck", "DeckError", "DeckOption", "build_deck", "deck_options"]

MIN_SYMBOLS = 3

#: The degenerate plane of order 1 (3 points, 3 lines of 2 points).
_TRIANGLE: tuple[tuple[int, ...], ...] = ((0, 1), (0, 2), (1, 2))


class DeckError(ValueError):
    """The symbol set (or the requested options) cannot make a deck."""


@dataclass(frozen=True)
class Deck:
    """A deck: ``cards`` are tuples of symbol keys; any two share exactly one."""

    order: int
    cards: tuple[tuple[str, ...], ...]
    symbols_used: tuple[str, ...]
    symbols_dropped: tuple[tuple[str, str], ...]
    cards_dropped: tuple[tuple[int, str], ...]
    #: For every kept card, its index in the plane (``projective_plane(order)``).
    plane_cards: tuple[int, ...] = field(default=())

    @property
    def symbols_per_card(self) -> int:
        return self.order + 1

    @property
    def trimmed(self) -> bool:
        """True when cards were dropped for lack of symbols or printing."""
        return bool(self.cards_dropped)

    def to_dict(self) -> dict[str, object]:
        return {
            "order": self.order,
            "symbols_per_card": self.symbols_per_card,
            "card_count": len(self.cards),
            "cards": [list(card) for card in self.cards],
            "plane_cards": list(self.plane_cards),
            "symbols_used": list(self.symbols_used),
            "symbols_dropped": [{"symbol": key, "reason": reason} for key, reason in self.symbols_dropped],
            "cards_dropped": [
                {"plane_card": index, "reason": reason} for index, reason in self.cards_dropped
            ],
        }


@dataclass(frozen=True)
class DeckOption:
    """One deck a set of ``symbols_used + symbols_dropped`` symbols can make."""

    order: int
    symbols_per_card: int
    cards: int
    symbols_used: int
    symbols_dropped: int
    exact: bool
    #: The plane was trimmed (fewer symbols than points; cards dropped).
    trimmed: bool = False
    #: The option :func:`build_deck` picks when no order is given.
    recommended: bool = False

    @property
    def symbol_count(self) -> int:
        return self.symbols_used + self.symbols_dropped

    def describe(self) -> str:
        text = (
            f"{self.symbol_count} symbols: order {self.order}, "
            f"{self.symbols_per_card} symbols per card, {self.cards} cards"
        )
        if not self.exact:
            text += f" (uses {self.symbols_used} of {self.symbol_count} symbols)"
        return text


# -- plans: which cards of which plane ------------------------------------


@dataclass(frozen=True)
class _Plan:
    order: int
    size: int  # number of symbols in the set
    points: int  # points of the plane
    kept: tuple[int, ...]  # indexes of kept lines
    used_points: int  # points on at least one kept line

    @property
    def trimmed(self) -> bool:
        return self.size < self.points

    def option(self, *, recommended: bool = False) -> DeckOption:
        used = self.used_points
        return DeckOption(
            order=self.order,
            symbols_per_card=self.order + 1,
            cards=len(self.kept),
            symbols_used=used,
            symbols_dropped=self.size - used,
            exact=used == self.size,
            trimmed=self.trimmed,
            recommended=recommended,
        )

    def score(self) -> tuple[int, int, int]:
        return (len(self.kept), self.used_points, self.order)


def _lines(order: int) -> tuple[tuple[int, ...], ...]:
    return _TRIANGLE if order == 1 else plane_tuple(order)


@functools.lru_cache(maxsize=512)
def _plan(order: int, size: int) -> _Plan:
    lines = _lines(order)
    points = len(lines)
    if size >= points:
        return _Plan(order, size, points, tuple(range(points)), points)
    kept = tuple(i for i, line in enumerate(lines) if line[-1] < size)
    used: set[int] = set()
    for i in kept:
        used.update(lines[i])
    return _Plan(order, size, points, kept, len(used))


def _largest_fitting_order(size: int) -> int:
    """Largest prime power ``n`` with ``n^2+n+1 <= size``; 1 (the triangle) if none."""
    best = 1
    n = 2
    while plane_size(n) <= size:
        if is_prime_power(n):
            best = n
        n += 1
    return best


def _next_prime_power(n: int) -> int:
    m = max(n + 1, 2)
    while not is_prime_power(m):
        m += 1
    return m


def _previous_prime_power(n: int) -> int | None:
    m = n - 1
    while m >= 2:
        if is_prime_power(m):
            return m
        m -= 1
    return None


def _candidates(size: int) -> tuple[_Plan, list[_Plan]]:
    """The largest fitting plan and trimmed plans of the next two larger orders."""
    fitting = _plan(_largest_fitting_order(size), size)
    trimmed: list[_Plan] = []
    n = fitting.order
    for _ in range(2):
        n = _next_prime_power(n)
        plan = _plan(n, size)
        if not plan.kept:
            break
        trimmed.append(plan)
    return fitting, trimmed


def _best(size: int) -> _Plan:
    fitting, trimmed = _candidates(size)
    return max([fitting, *trimmed], key=_Plan.score)


def _dominates(a: _Plan, b: _Plan) -> bool:
    """``a`` has at least the cards and symbols of ``b`` (ties: the smaller order wins)."""
    ka, kb = len(a.kept), len(b.kept)
    if ka < kb or a.used_points < b.used_points:
        return False
    return ka > kb or a.used_points > b.used_points or a.order < b.order


def deck_options(symbol_count: int) -> list[DeckOption]:
    """The decks a set of ``symbol_count`` symbols can usefully make, largest order first.

    Listed: the largest order whose plane fits (exact, or trimmed by the
    curator's ordering), the next smaller order, and trimmed planes of the
    next two larger orders that keep at least half as many cards as the
    largest fitting order (and at least 3) and are not dominated (another
    option with at least as many cards and at least as many symbols used).
    For 70 symbols: order 8 trimmed (49 cards, all 70 symbols), order 7
    (57 cards, 57 symbols, recommended), order 5.
    The option :func:`build_deck` picks by default has ``recommended=True``.
    Fewer than 3 symbols: no options.
    """
    if symbol_count < MIN_SYMBOLS:
        return []
    fitting, trimmed = _candidates(symbol_count)
    plans = [fitting]
    smaller = _previous_prime_power(fitting.order)
    if smaller is not None:
        plans.append(_plan(smaller, symbol_count))
    for plan in trimmed:
        if len(plan.kept) < max(3, len(fitting.kept) / 2):
            continue
        dominated = any(other is not plan and _dominates(other, plan) for other in [fitting, *trimmed])
        if not dominated:
            plans.append(plan)
    best = _best(symbol_count)
    plans.sort(key=lambda p: p.order, reverse=True)
    return [p.option(recommended=p.order == best.order) for p in plans]


def _check_symbols(symbols: Sequence[str]) -> list[str]:
    keys = list(symbols)
    if len(keys) < MIN_SYMBOLS:
        raise DeckError(f"A ZnajZnak deck needs at least {MIN_SYMBOLS} symbols; this set has {len(keys)}.")
    seen: set[str] = set()
    for key in keys:
        if not isinstance(key, str):
            raise DeckError(f"Symbol keys must be strings, not {type(key).__name__}: {key!r}.")
        if key in seen:
            raise DeckError(f"The symbol {key!r} appears more than once in the set.")
        seen.add(key)
    return keys


def build_deck(
    symbols: Sequence[str],
    *,
    order: int | None = None,
    cards_to_print: int | None = None,
) -> Deck:
    """Build the deck for ``symbols`` (in the curator's order).

    ``order``: the plane order to use (a prime power, or 1 for the triangle);
    default: the best order for the set size (module docstring).
    ``cards_to_print``: print only the first that many cards.
    Raises :class:`DeckError` for fewer than 3 symbols, duplicate keys, a
    ``cards_to_print`` below 1, or an order that would keep no card, and
    :class:`ImpossibleOrder` for an order with no plane.
    """
    keys = _check_symbols(symbols)
    size = len(keys)
    if order is None:
        plan = _best(size)
    else:
        if isinstance(order, bool) or not isinstance(order, int):
            raise DeckError(f"The order must be an int, not {type(order).__name__}.")
        if order < 1 or (order > 1 and not is_prime_power(order)):
            raise ImpossibleOrder(plane_order_message(order), order=order, nearest=nearest_orders(order))
        plan = _plan(order, size)
        if not plan.kept:
            best = _best(size)
            raise DeckError(
                f"A deck of order {order} from {size} symbols would keep no card: "
                f"the plane of order {order} needs {plan.points} symbols. "
                f"Use order {best.order} ({len(best.kept)} cards) or add symbols."
            )
    if cards_to_print is not None:
        if isinstance(cards_to_print, bool) or not isinstance(cards_to_print, int):
            raise DeckError("cards_to_print must be an int.")
        if cards_to_print < 1:
            raise DeckError(f"cards_to_print must be at least 1, not {cards_to_print}.")

    n = plan.order
    lines = _lines(n)
    points = plan.points
    kept_set = set(plan.kept)
    cards_dropped: list[tuple[int, str]] = []
    if plan.trimmed:
        reason = (
            f"needs a symbol the set does not have: the plane of order {n} has "
            f"{points} points and the set {size} symbols"
        )
        cards_dropped.extend((i, reason) for i in range(points) if i not in kept_set)
    printed = list(plan.kept)
    if cards_to_print is not None and cards_to_print < len(printed):
        reason = f"not printed: the deck prints {cards_to_print} cards"
        cards_dropped.extend((i, reason) for i in printed[cards_to_print:])
        printed = printed[:cards_to_print]
    cards_dropped.sort()

    on_printed = [False] * points
    on_kept = [False] * points
    for i in plan.kept:
        for p in lines[i]:
            on_kept[p] = True
    for i in printed:
        for p in lines[i]:
            on_printed[p] = True

    symbols_used: list[str] = []
    symbols_dropped: list[tuple[str, str]] = []
    for p, key in enumerate(keys):
        if p >= points:
            symbols_dropped.append((key, f"the deck of order {n} has room for {points} symbols"))
        elif on_printed[p]:
            symbols_used.append(key)
        elif on_kept[p]:
            symbols_dropped.append((key, "appears only on cards that are not printed"))
        else:
            symbols_dropped.append(
                (
                    key,
                    f"no card of the trimmed order-{n} deck keeps it: every card "
                    "through it needs a symbol the set does not have",
                )
            )
    cards = tuple(tuple(keys[p] for p in lines[i]) for i in printed)
    return Deck(
        order=n,
        cards=cards,
        symbols_used=tuple(symbols_used),
        symbols_dropped=tuple(symbols_dropped),
        cards_dropped=tuple(cards_dropped),
        plane_cards=tuple(printed),
    )


def clear_cache() -> None:
    """Forget cached plans (planes are cached in :mod:`.planes`)."""
    _plan.cache_clear()
