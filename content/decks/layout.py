"""Where the pictures go on the face of a card.

Coordinates are in card units: a round card is the circle of radius 0.5
centred at (0.5, 0.5); a square card is the unit square.  Each picture is
drawn inside a bounding circle of diameter ``size`` centred at ``(x, y)`` and
turned by ``rotation`` degrees (0-359).  Bounding circles never overlap
(there is a small gap) and never leave the card.

Templates.  For every symbol count and shape a few circle packings with
varied sizes are computed once (deterministically: fixed seeds, a few hundred
steps of push-apart relaxation, then a uniform scale that makes the packing
exactly valid) and cached.  A card picks one template, turns it (any angle on
a round card, one of the 8 symmetries of the square on a square card),
deals its symbols to the slots and turns each picture.  The largest slot of
every template is clearly larger than the second one, so "large" means
something.

Sizes (diameters, fraction of the card width) reached by the templates
(smallest slot of any template - largest slot of any template):

=========  ===========  ===========
symbols    round        square
=========  ===========  ===========
3          0.21 - 0.47  0.25 - 0.56
8          0.17 - 0.38  0.17 - 0.44
12         0.14 - 0.34  0.16 - 0.37
18         0.13 - 0.27  0.14 - 0.32
32         0.09 - 0.21  0.11 - 0.24
=========  ===========  ===========

The documented minimum (tested) is :data:`MIN_SIZE` = 0.12 for up to 12
symbols: 11 mm on a 90 mm card, big enough to recognise a picture.  More
symbols per card (orders 13 and up) get proportionally smaller pictures.
Cold, the templates for one symbol count take about 25 ms (12 symbols);
laying out 133 cards of 12 symbols takes about 3 ms with warm templates.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MIN_SIZE",
    "Placement",
    "Shape",
    "clear_cache",
    "deck_layouts",
    "layout_card",
    "min_size",
    "templates",
]

Shape = Literal["round", "square"]

#: Smallest picture diameter guaranteed for cards of up to 12 symbols.
MIN_SIZE = 0.12

#: Gap kept between two pictures and between a picture and the edge.
GAP = 0.01

_VARIANTS = 6
_RELAX_STEPS = 160


@dataclass(frozen=True)
class Placement:
    """One picture on a card: centre ``(x, y)``, diameter ``size``, ``rotation`` degrees."""

    symbol: str
    x: float
    y: float
    size: float
    rotation: int

    def to_dict(self) -> dict[str, object]:
        return {
            "symbol": self.symbol,
            "x": self.x,
            "y": self.y,
            "size": self.size,
            "rotation": self.rotation,
        }


Slot = tuple[float, float, float]  # x, y, diameter
Template = tuple[Slot, ...]


def _relative_sizes(m: int, rng: random.Random) -> list[float]:
    """Diameters relative to the largest: 1, then about 0.8 down to 0.47."""
    if m == 1:
        return [1.0]
    rest = []
    for i in range(m - 1):
        t = i / (m - 2) if m > 2 else 0.0
        base = 0.8 - 0.33 * t
        rest.append(base * (1 + rng.uniform(-0.06, 0.06)))
    rest.sort(reverse=True)
    return [1.0, *(min(r, 0.82) for r in rest)]


def _fit_scale(shape: Shape, pos: list[list[float]], rad: list[float]) -> float:
    """Largest factor for the radii that keeps the packing valid (with gaps)."""
    scale = math.inf
    m = len(rad)
    for i in range(m):
        xi, yi = pos[i]
        ri = rad[i]
        if shape == "round":
            room = 0.5 - GAP - math.hypot(xi - 0.5, yi - 0.5)
        else:
            room = min(xi, yi, 1 - xi, 1 - yi) - GAP
        scale = min(scale, room / ri)
        for j in range(i + 1, m):
            xj, yj = pos[j]
            d = math.hypot(xi - xj, yi - yj) - GAP
            scale = min(scale, d / (ri + rad[j]))
    return max(scale, 0.0)


def _relax(shape: Shape, m: int, seed: int) -> Template:
    rng = random.Random(seed)
    rel = _relative_sizes(m, rng)
    # Aim at covering ~70% of the card, then let the relaxation find room.
    area = math.pi * 0.25 if shape == "round" else 1.0
    target = 0.72 * area
    unit = math.sqrt(target / (math.pi * sum(r * r for r in rel)))
    rad = [r * unit for r in rel]
    pos: list[list[float]] = []
    golden = math.pi * (3 - math.sqrt(5))
    spin = rng.uniform(0, 2 * math.pi)
    for i in range(m):
        # Sunflower start: big pictures near the middle.
        rr = 0.36 * math.sqrt((i + 0.5) / m)
        a = spin + i * golden
        pos.append([0.5 + rr * math.cos(a), 0.5 + rr * math.sin(a)])
    weights = [1.0 / (r * r) for r in rad]
    for step in range(_RELAX_STEPS):
        moved = False
        shrink = 1.0 - 0.25 * step / _RELAX_STEPS  # settle: less push later on
        for i in range(m):
            pi_ = pos[i]
            ri = rad[i] + GAP / 2
            for j in range(i + 1, m):
                pj = pos[j]
                dx = pj[0] - pi_[0]
                dy = pj[1] - pi_[1]
                need = ri + rad[j] + GAP / 2
                d2 = dx * dx + dy * dy
                if d2 >= need * need:
                    continue
                d = math.sqrt(d2)
                if d < 1e-9:
                    a = rng.uniform(0, 2 * math.pi)
                    dx, dy, d = math.cos(a), math.sin(a), 1.0
                    overlap = need
                else:
                    overlap = need - d
                wi, wj = weights[i], weights[j]
                push = overlap * shrink / (wi + wj) / d
                pi_[0] -= dx * push * wi
                pi_[1] -= dy * push * wi
                pj[0] += dx * push * wj
                pj[1] += dy * push * wj
                moved = True
        for i in range(m):
            p = pos[i]
            r = rad[i] + GAP
            if shape == "round":
                dx, dy = p[0] - 0.5, p[1] - 0.5
                d = math.hypot(dx, dy)
                limit = 0.5 - r
                if d > limit:
                    k = limit / d if d > 0 else 0.0
                    p[0], p[1] = 0.5 + dx * k, 0.5 + dy * k
                    moved = True
            else:
                for c in (0, 1):
                    if p[c] < r:
                        p[c], moved = r, True
                    elif p[c] > 1 - r:
                        p[c], moved = 1 - r, True
        if not moved:
            # Free room: grow everything a little and go on.
            rad = [r * 1.02 for r in rad]
    scale = _fit_scale(shape, pos, rad)
    slots = [(pos[i][0], pos[i][1], 2 * rad[i] * scale) for i in range(m)]
    slots.sort(key=lambda s: -s[2])
    return tuple(slots)


def _template_seed(shape: Shape, m: int, variant: int, attempt: int) -> int:
    return (1_000_003 * m + 7_919 * variant + 104_729 * attempt) * (2 if shape == "round" else 3)


@functools.lru_cache(maxsize=256)
def templates(m: int, shape: Shape = "round") -> tuple[Template, ...]:
    """The packings used for cards of ``m`` symbols (largest slot first in each)."""
    if m < 0:
        raise ValueError("the number of symbols cannot be negative")
    if shape not in ("round", "square"):
        raise ValueError(f"unknown card shape {shape!r}; use 'round' or 'square'")
    if m == 0:
        return ((),)
    if m == 1:
        return (((0.5, 0.5, 1.0 - 2 * GAP),),)
    out = []
    for variant in range(_VARIANTS):
        best: Template | None = None
        for attempt in range(2):
            t = _relax(shape, m, _template_seed(shape, m, variant, attempt))
            if best is None or min(s[2] for s in t) > min(s[2] for s in best):
                best = t
        assert best is not None
        out.append(best)
    return tuple(out)


def min_size(m: int, shape: Shape = "round") -> float:
    """Smallest picture diameter of any template for ``m`` symbols."""
    return min((s[2] for t in templates(m, shape) for s in t), default=0.0)


def _transform(shape: Shape, slots: Template, rng: random.Random) -> list[Slot]:
    if shape == "round":
        a = rng.uniform(0, 2 * math.pi)
        c, s = math.cos(a), math.sin(a)
        return [
            (0.5 + (x - 0.5) * c - (y - 0.5) * s, 0.5 + (x - 0.5) * s + (y - 0.5) * c, d) for x, y, d in slots
        ]
    sym = rng.randrange(8)
    out = []
    for x, y, d in slots:
        u, v = x - 0.5, y - 0.5
        if sym & 4:
            u = -u
        for _ in range(sym & 3):
            u, v = -v, u
        out.append((0.5 + u, 0.5 + v, d))
    return out


def layout_card(
    symbols: Sequence[str],
    *,
    seed: int,
    shape: Shape = "round",
    large: Collection[str] = (),
) -> list[Placement]:
    """Place ``symbols`` on one card face; the result follows the order of ``symbols``.

    Deterministic for ``seed``.  Symbols in ``large`` get the largest slots
    (in the order they appear in ``symbols``); the others are dealt at random.
    """
    keys = list(symbols)
    if isinstance(large, str):
        large = (large,)
    if len(set(keys)) != len(keys):
        raise ValueError("a card cannot show the same symbol twice")
    rng = random.Random(seed)
    options = templates(len(keys), shape)
    template = options[rng.randrange(len(options))]
    slots = _transform(shape, template, rng)
    big = [i for i, key in enumerate(keys) if key in large]
    rest = [i for i, key in enumerate(keys) if key not in large]
    rng.shuffle(rest)
    slot_of = [0] * len(keys)
    for slot, i in enumerate(big + rest):
        slot_of[i] = slot
    placements = []
    for i, key in enumerate(keys):
        x, y, d = slots[slot_of[i]]
        placements.append(Placement(key, x, y, d, rng.randrange(360)))
    return placements


def _large_choice(cards: Sequence[Sequence[str]], rng: random.Random) -> list[str | None]:
    """One symbol per card, so that as many symbols as possible are chosen somewhere.

    A maximum bipartite matching symbols -> cards (augmenting paths).  For a
    full plane (as many cards as symbols, every symbol on n+1 cards, every
    card with n+1 symbols) Hall's condition holds, so every symbol is matched.
    With fewer cards than symbols some symbols stay unmatched (and small).
    """
    owners: dict[str, list[int]] = {}
    for ci, card in enumerate(cards):
        for key in card:
            owners.setdefault(key, []).append(ci)
    symbols = list(owners)
    rng.shuffle(symbols)
    for key in symbols:
        rng.shuffle(owners[key])
    card_owner: list[str | None] = [None] * len(cards)

    def augment(root: str) -> None:
        # Breadth-first search for an augmenting path from ``root`` to a free card.
        reach_sym: dict[int, str] = {}
        parent: dict[int, int] = {}
        queue = [(root, -1)]
        for key, via in queue:
            for ci in owners[key]:
                if ci in reach_sym:
                    continue
                reach_sym[ci] = key
                parent[ci] = via
                holder = card_owner[ci]
                if holder is None:
                    while ci != -1:
                        card_owner[ci] = reach_sym[ci]
                        ci = parent[ci]
                    return
                queue.append((holder, ci))

    for key in symbols:
        # Cheap first pass: a free card of this symbol.
        for ci in owners[key]:
            if card_owner[ci] is None:
                card_owner[ci] = key
                break
        else:
            augment(key)
    return card_owner


def deck_layouts(
    cards: Sequence[Sequence[str]], *, seed: int, shape: Shape = "round"
) -> list[list[Placement]]:
    """Lay out every card; every symbol gets the largest slot of at least one card.

    That is guaranteed whenever the cards allow it (a full plane always does;
    with fewer cards than symbols, as many symbols as there are cards).
    """
    rng = random.Random(seed)
    chosen = _large_choice(cards, rng)
    base = rng.randrange(1 << 30)
    layouts = []
    for i, card in enumerate(cards):
        key = chosen[i]
        large = () if key is None else (key,)
        layouts.append(layout_card(card, seed=base + 7_919 * i, shape=shape, large=large))
    return layouts


def clear_cache() -> None:
    """Forget the templates (for benchmarks of cold layout)."""
    templates.cache_clear()
