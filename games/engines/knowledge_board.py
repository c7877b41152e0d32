"""The Knowledge? game board as data, and the checks a board must pass.

The rulebook (``../shared/rules/knowledge.md``) never draws the board; Talia's reading
(``../shared/rules/README.md``, Knowledge?) makes it data: a closed loop of spaces, each
showing one colour (red, yellow, green, blue, white) and one letter (A-E), or neither
(the finish space may be such a space), with the start/finish space (1), the opponents'
start space (2) and the harder start space (4) "in the lower area of the board".

Markers move clockwise, from index ``i`` to ``i + 1`` and from the last index to 0.
The format is the one of ``docs/replay.md`` (Knowledge?, Setup)::

    {"spaces": [null, {"colour": "green", "letter": "B"}, ...],
     "finish": 0, "opponent_start": 7, "opponent_start_hard": 17}

:data:`DEFAULT_BOARD` is the board Talia ships: 41 spaces, the finish showing neither
colour nor letter, every colour and every letter eight times, every colour-letter pair
at least once, and no space further than 6 spaces from the next space of any colour or
letter (3.2 on average), so a move by letter or colour is short, as on the printed board.

>>> board = board_from_dict(DEFAULT_BOARD)
>>> len(board.spaces), board.finish, board.start_spaces(hard=False)
(41, 0, (7, 6, 5, 4, 3))
>>> move_lengths(board)["max"]
6
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import mean
from types import MappingProxyType
from typing import Any

from .base import InvalidSetup

__all__ = [
    "COLOURS",
    "DEFAULT_BOARD",
    "LETTERS",
    "MAX_SPACES",
    "MIN_SPACES",
    "Board",
    "NearestTables",
    "Space",
    "SYMBOL_BITS",
    "board_from_dict",
    "board_svg",
    "default_board",
    "move_lengths",
    "space_positions",
    "symbol_mask",
]

#: "red, yellow, green, blue or white" (The Quiz Cards, Colour cards).
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "white")
#: "A, B, C, D or E" (The Quiz Cards, Letter cards).
LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E")
#: The finish, five opponent start spaces and room to move: a smaller loop is no board.
MIN_SPACES = 10
MAX_SPACES = 200
#: The opponents start "on this space and on the next 4 spaces behind it" (Setup).
START_SPACES = 5

_BOARD_FIELDS = frozenset({"spaces", "finish", "opponent_start", "opponent_start_hard"})


@dataclass(frozen=True)
class Space:
    """A space of the loop: the colour and the letter printed on it."""

    colour: str
    letter: str


#: Bits of the colours and letters (:func:`symbol_mask`): a set of options is one int.
SYMBOL_BITS: Mapping[str, int] = MappingProxyType(
    {name: 1 << bit for bit, name in enumerate((*COLOURS, *LETTERS))}
)


def symbol_mask(options: tuple[str, ...] | list[str] | set[str]) -> int:
    """The options of a letter or colour card as bits (``"C/D"`` is C's bit | D's bit).

    >>> symbol_mask(("C", "D")) == SYMBOL_BITS["C"] | SYMBOL_BITS["D"]
    True
    """
    mask = 0
    for option in options:
        mask |= SYMBOL_BITS[option]
    return mask


class NearestTables(dict[int, tuple[int, ...]]):
    """A board's tables of :meth:`Board.nearest`, one per set of options (as bits), each
    worked out the first time it is asked for: ``tables[mask][space]``."""

    __slots__ = ("masks",)

    def __init__(self, masks: tuple[int, ...]) -> None:
        super().__init__()
        self.masks = masks

    def __missing__(self, mask: int) -> tuple[int, ...]:
        masks = self.masks
        length = len(masks)
        found = []
        for origin in range(length):
            for steps in range(1, length):
                if masks[(origin + steps) % length] & mask:
                    break
            else:
                steps = length
            found.append(steps)
        table = self[mask] = tuple(found)
        return table


_TABLES: dict[tuple[int, ...], NearestTables] = {}
_TABLES_KEPT = 64


@dataclass(frozen=True)
class Board:
    """A checked board; build one with :func:`board_from_dict`.

    For speed the board keeps, beside its spaces, each space's printed colour and letter
    as bits (``masks``) and, per set of options, how far the nearest printed space showing
    one of them lies from every space (``tables``, see :meth:`nearest`; computed once per
    board and set of options: a lookup in the engine's hot path).
    """

    spaces: tuple[Space | None, ...]
    finish: int
    opponent_start: int
    opponent_start_hard: int | None = None
    masks: tuple[int, ...] = field(init=False, repr=False, compare=False)
    length: int = field(init=False, repr=False, compare=False)
    tables: Mapping[int, tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        masks = tuple(
            0 if space is None else SYMBOL_BITS[space.colour] | SYMBOL_BITS[space.letter]
            for space in self.spaces
        )
        object.__setattr__(self, "masks", masks)
        object.__setattr__(self, "length", len(self.spaces))
        # Boards with the same spaces share their tables (a simulation deals many games).
        if len(_TABLES) > _TABLES_KEPT:
            _TABLES.clear()
        tables = _TABLES.get(masks)
        if tables is None:
            tables = _TABLES[masks] = NearestTables(masks)
        object.__setattr__(self, "tables", tables)

    def nearest(self, mask: int) -> tuple[int, ...]:
        """For every space, the steps (1 to length - 1) to the nearest printed space ahead
        showing one of the options in ``mask``; ``length`` where none does
        (``self.tables[mask]``).

        >>> board = board_from_dict(DEFAULT_BOARD)
        >>> board.nearest(SYMBOL_BITS["E"])[0], board.spaces[3]
        (3, Space(colour='red', letter='E'))
        """
        return self.tables[mask]

    def ahead(self, space: int, steps: int) -> int:
        """The space ``steps`` clockwise from ``space``.

        >>> board_from_dict(DEFAULT_BOARD).ahead(40, 2)
        1
        """
        return (space + steps) % len(self.spaces)

    def past_finish(self, space: int) -> int:
        """How far ``space`` lies beyond the finish, clockwise: 0 on the finish itself."""
        return (space - self.finish) % len(self.spaces)

    def start_spaces(self, *, hard: bool) -> tuple[int, ...]:
        """The opponents' start space and "the next 4 spaces behind it", start space first."""
        start = self.opponent_start_hard if hard else self.opponent_start
        if start is None:
            raise InvalidSetup("This board has no harder start space ('opponent_start_hard').")
        return tuple((start - back) % len(self.spaces) for back in range(START_SPACES))

    def to_dict(self) -> dict[str, Any]:
        return {
            "spaces": [
                None if space is None else {"colour": space.colour, "letter": space.letter}
                for space in self.spaces
            ],
            "finish": self.finish,
            "opponent_start": self.opponent_start,
            "opponent_start_hard": self.opponent_start_hard,
        }


def _index(data: Mapping[str, Any], field: str, length: int, *, optional: bool = False) -> int | None:
    value = data.get(field)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < length:
        raise InvalidSetup(f"The board's {field!r} must be a space number from 0 to {length - 1}.")
    return value


def _space(index: int, raw: Any) -> Space | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"colour", "letter"}:
        raise InvalidSetup(
            f"Board space {index} must be null or {{'colour': ..., 'letter': ...}}, not {raw!r}."
        )
    colour, letter = raw["colour"], raw["letter"]
    if colour not in COLOURS:
        raise InvalidSetup(
            f"Board space {index}: the colour must be one of {', '.join(COLOURS)}, not {colour!r}."
        )
    if letter not in LETTERS:
        raise InvalidSetup(f"Board space {index}: the letter must be one of A-E, not {letter!r}.")
    return Space(colour=colour, letter=letter)


def board_from_dict(data: Any) -> Board:
    """Check a board written as data and return it; :class:`InvalidSetup` says what is wrong.

    A board is refused when some colour or some letter never occurs on it: a card asking
    for it could never be resolved ("no matching space is visible").

    >>> red_a = {"colour": "red", "letter": "A"}
    >>> board_from_dict({"spaces": [None] + [red_a] * 12, "finish": 0, "opponent_start": 7})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    games.engines.base.InvalidSetup: The board never shows the colour(s) yellow, green, blue, white ...
    """
    if not isinstance(data, Mapping):
        raise InvalidSetup("The board must be an object with 'spaces', 'finish' and 'opponent_start'.")
    unknown = sorted(set(data) - _BOARD_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown board field(s) {', '.join(unknown)}; a board has {', '.join(sorted(_BOARD_FIELDS))}."
        )
    raw_spaces = data.get("spaces")
    if not isinstance(raw_spaces, list | tuple) or not MIN_SPACES <= len(raw_spaces) <= MAX_SPACES:
        raise InvalidSetup(
            f"The board's 'spaces' must be a list of {MIN_SPACES} to {MAX_SPACES} spaces (a closed loop)."
        )
    spaces = tuple(_space(index, raw) for index, raw in enumerate(raw_spaces))
    length = len(spaces)
    finish = _index(data, "finish", length)
    start = _index(data, "opponent_start", length)
    hard = _index(data, "opponent_start_hard", length, optional=True)
    assert finish is not None and start is not None
    board = Board(spaces=spaces, finish=finish, opponent_start=start, opponent_start_hard=hard)

    shown_colours = {space.colour for space in spaces if space is not None}
    shown_letters = {space.letter for space in spaces if space is not None}
    missing = [c for c in COLOURS if c not in shown_colours], [x for x in LETTERS if x not in shown_letters]
    if missing[0] or missing[1]:
        parts = []
        if missing[0]:
            parts.append(f"the colour(s) {', '.join(missing[0])}")
        if missing[1]:
            parts.append(f"the letter(s) {', '.join(missing[1])}")
        raise InvalidSetup(
            f"The board never shows {' and '.join(parts)}: a card asking for it could never be "
            "resolved. Every colour (red, yellow, green, blue, white) and every letter (A-E) "
            "needs at least one space."
        )
    for hard_start in (False, True):
        if hard_start and hard is None:
            continue
        name = "opponent_start_hard" if hard_start else "opponent_start"
        if finish in board.start_spaces(hard=hard_start):
            raise InvalidSetup(
                f"The opponents start on {name!r} and the 4 spaces behind it; the finish space "
                f"{finish} must not be one of them."
            )
    return board


def move_lengths(board: Board) -> dict[str, Any]:
    """How far a move by colour or letter goes on the empty board, from every space.

    For every space and every colour and letter, the distance to the nearest space ahead
    showing it: ``max`` and ``mean`` over all of them, and the ``worst`` (space, colour or
    letter) pairs reaching the maximum.  A curator's check that the board plays well.
    """
    distances: list[int] = []
    worst: list[tuple[int, str]] = []
    longest = 0
    for origin in range(board.length):
        for wanted in (*COLOURS, *LETTERS):
            for steps in range(1, board.length):
                space = board.spaces[board.ahead(origin, steps)]
                if space is not None and wanted in (space.colour, space.letter):
                    break
            else:  # pragma: no cover - board_from_dict refuses such boards
                steps = board.length
            distances.append(steps)
            if steps > longest:
                longest, worst = steps, []
            if steps == longest:
                worst.append((origin, wanted))
    return {"max": longest, "mean": mean(distances), "worst": worst}


def _s(colour: str, letter: str) -> Mapping[str, str]:
    return MappingProxyType({"colour": colour, "letter": letter})


#: Talia's default board: the finish (0) shows nothing; the opponents start on 7 and the
#: 4 spaces behind it, or on 17 and the 4 behind it for the harder game.
_DEFAULT_SPACES = (
    None,
    _s("green", "B"), _s("yellow", "C"), _s("red", "E"), _s("blue", "A"), _s("white", "D"),
    _s("yellow", "B"), _s("green", "E"), _s("white", "C"), _s("red", "A"), _s("blue", "D"),
    _s("yellow", "E"), _s("green", "B"), _s("white", "C"), _s("red", "A"), _s("blue", "B"),
    _s("yellow", "D"), _s("green", "E"), _s("blue", "C"), _s("white", "A"), _s("red", "B"),
    _s("yellow", "A"), _s("green", "D"), _s("red", "E"), _s("blue", "C"), _s("white", "B"),
    _s("red", "D"), _s("yellow", "A"), _s("green", "C"), _s("blue", "E"), _s("white", "D"),
    _s("yellow", "B"), _s("red", "C"), _s("green", "A"), _s("blue", "D"), _s("white", "E"),
    _s("green", "B"), _s("yellow", "C"), _s("red", "E"), _s("blue", "A"), _s("white", "D"),
)  # fmt: skip
DEFAULT_BOARD: Mapping[str, Any] = MappingProxyType(
    {"spaces": _DEFAULT_SPACES, "finish": 0, "opponent_start": 7, "opponent_start_hard": 17}
)


def default_board() -> Board:
    """:data:`DEFAULT_BOARD`, checked."""
    return board_from_dict(DEFAULT_BOARD)


#: How the colours are drawn (print-friendly, readable on a projector) and the text on them.
SVG_FILL: Mapping[str, str] = MappingProxyType(
    {"red": "#d7263d", "yellow": "#f4c430", "green": "#2e8b57", "blue": "#1f5fbf", "white": "#ffffff"}
)
SVG_INK: Mapping[str, str] = MappingProxyType(
    {"red": "#ffffff", "yellow": "#1a1a1a", "green": "#ffffff", "blue": "#ffffff", "white": "#1a1a1a"}
)


def space_positions(length: int, *, radius: float, centre: float) -> list[tuple[float, float]]:
    """Where each space of a loop of ``length`` is drawn: clockwise on a circle, space 0 at
    the top (the same layout as the play page's ``static/games/knowledge.js``)."""
    from math import cos, pi, sin

    return [
        (
            round(centre + radius * cos(-pi / 2 + 2 * pi * index / length), 1),
            round(centre + radius * sin(-pi / 2 + 2 * pi * index / length), 1),
        )
        for index in range(length)
    ]


def board_svg(board: Board, *, size: int = 420, title: str = "") -> str:
    """The board drawn as an SVG loop: each space a disc in its colour with its letter, the
    finish marked with a flag ring, the start spaces with an outline (S, H).

    Only checked values reach the markup (colours and letters from fixed lists, numbers);
    ``title`` is escaped.

    >>> svg = board_svg(board_from_dict(DEFAULT_BOARD))
    >>> svg.startswith("<svg") and svg.count("<circle") >= 41
    True
    """
    from html import escape

    centre = size / 2
    radius = size / 2 - 34
    disc = max(6.0, min(20.0, 3.14159 * radius / board.length * 0.85))
    points = space_positions(board.length, radius=radius, centre=centre)
    starts = set(board.start_spaces(hard=False))
    hard = set(board.start_spaces(hard=True)) if board.opponent_start_hard is not None else set()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" '
        f'height="{size}" role="img" class="knowledge-board-preview">',
        f"<title>{escape(title or 'Knowledge? board')}</title>",
        f'<circle cx="{centre}" cy="{centre}" r="{radius}" fill="none" stroke="#999" stroke-width="2"/>',
    ]
    for index, (x, y) in enumerate(points):
        space = board.spaces[index]
        fill = "#e8e8e8" if space is None else SVG_FILL[space.colour]
        ink = "#1a1a1a" if space is None else SVG_INK[space.colour]
        stroke, width = ("#000", 3) if index == board.finish else ("#333", 1)
        parts.append(
            f'<circle cx="{x}" cy="{y}" r="{disc:.1f}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{width}"/>'
        )
        label = "⚑" if index == board.finish else ("" if space is None else space.letter)
        parts.append(
            f'<text x="{x}" y="{y}" fill="{ink}" font-size="{disc:.0f}" font-family="sans-serif" '
            f'font-weight="bold" text-anchor="middle" dominant-baseline="central">{label}</text>'
        )
        marks = ("S" if index == board.opponent_start else "") + (
            "H" if index == board.opponent_start_hard else ""
        )
        if marks or index in starts or index in hard:
            ox = centre + (x - centre) * (radius + disc + 9) / radius
            oy = centre + (y - centre) * (radius + disc + 9) / radius
            colour = "#1f5fbf" if index in starts else "#8a2be2"
            parts.append(
                f'<text x="{ox:.1f}" y="{oy:.1f}" fill="{colour}" font-size="11" font-family="sans-serif" '
                f'text-anchor="middle" dominant-baseline="central">{marks or "·"}</text>'
            )
        index_x = centre + (x - centre) * (radius - disc - 9) / radius
        index_y = centre + (y - centre) * (radius - disc - 9) / radius
        parts.append(
            f'<text x="{index_x:.1f}" y="{index_y:.1f}" fill="#555" font-size="9" font-family="sans-serif" '
            f'text-anchor="middle" dominant-baseline="central">{index}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
