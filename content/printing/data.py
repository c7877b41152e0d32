"""The print renderer's data contract: plain, frozen dataclasses, no models.

The deck and print services load rows, snapshot them into these objects and call
:mod:`content.printing.render`; the renderer never queries the database, so a print
shows exactly the snapshot it was given (DESIGN.md, "Data flow").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "ActivityCardData",
    "ActivityTermData",
    "GameCard",
    "KnowledgeCardData",
    "PeriodData",
    "PlacementData",
    "PrintError",
    "PrintOptions",
    "SymbolData",
]

Paper = Literal["A4", "Letter"]
Shape = Literal["round", "square"]
Duplex = Literal["long_edge", "separate"]

#: Paper sizes in millimetres, portrait (width, height).
PAPER_MM: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}
#: Card languages the printed labels exist in (``content.printing.labels``).
LANGUAGES = ("pl", "en", "cs", "de")
#: Playing-card size (poker, 63 × 88 mm): the default of every rectangular card.
STANDARD_CARD_MM = (63.0, 88.0)
MAX_BLEED_MM = 5.0


class PrintError(ValueError):
    """The data or the options cannot be printed; ``str(error)`` says what to change."""


def _size(value: object, name: str) -> tuple[float, float]:
    try:
        width, height = (float(v) for v in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError) as error:
        raise PrintError(f"{name} must be (width, height) in millimetres.") from error
    if not (math.isfinite(width) and math.isfinite(height)) or min(width, height) < 20:
        raise PrintError(f"{name} must be at least 20 × 20 mm, not {width:g} × {height:g}.")
    return width, height


@dataclass(frozen=True)
class PrintOptions:
    """How to print: paper, card sizes, cut marks, bleed and duplex.

    ``card_mm`` is the diameter (round) or side (square) of a ZnajZnak game card; the
    other kinds default to 63 × 88 mm (``*_mm`` fields, width × height).  ``bleed_mm``
    extends each card's coloured edge beyond the cut line.  ``duplex="long_edge"``
    puts each sheet of fronts right before its sheet of backs; ``"separate"`` prints
    all fronts, then all backs in the same sheet order.  Backs are always mirrored
    per row, so front and back of a card coincide once the sheet is turned over its
    long edge (by the printer, or by hand when the backs are fed again).
    """

    paper: Paper = "A4"
    card_mm: float = 90.0
    shape: Shape = "round"
    cut_marks: bool = True
    bleed_mm: float = 0.0
    duplex: Duplex = "long_edge"
    language: str = "pl"
    auxiliary_mm: tuple[float, float] = STANDARD_CARD_MM
    activity_mm: tuple[float, float] = STANDARD_CARD_MM
    knowledge_mm: tuple[float, float] = STANDARD_CARD_MM
    know_mm: tuple[float, float] = STANDARD_CARD_MM

    def __post_init__(self) -> None:
        if self.paper not in PAPER_MM:
            raise PrintError(f"Unknown paper {self.paper!r}: use 'A4' or 'Letter'.")
        if self.shape not in ("round", "square"):
            raise PrintError(f"Unknown card shape {self.shape!r}: use 'round' or 'square'.")
        if self.duplex not in ("long_edge", "separate"):
            raise PrintError(f"Unknown duplex mode {self.duplex!r}: use 'long_edge' or 'separate'.")
        if self.language not in LANGUAGES:
            raise PrintError(f"Cards print in {', '.join(LANGUAGES)}, not {self.language!r}.")
        card = float(self.card_mm)
        if not math.isfinite(card) or not 30 <= card <= 200:
            raise PrintError(f"A game card must be 30 to 200 mm across, not {self.card_mm} mm.")
        bleed = float(self.bleed_mm)
        if not math.isfinite(bleed) or not 0 <= bleed <= MAX_BLEED_MM:
            raise PrintError(f"Bleed must be 0 to {MAX_BLEED_MM:g} mm, not {self.bleed_mm} mm.")
        object.__setattr__(self, "card_mm", card)
        object.__setattr__(self, "bleed_mm", bleed)
        object.__setattr__(self, "cut_marks", bool(self.cut_marks))
        for name in ("auxiliary_mm", "activity_mm", "knowledge_mm", "know_mm"):
            object.__setattr__(self, name, _size(getattr(self, name), name))

    @property
    def paper_mm(self) -> tuple[float, float]:
        return PAPER_MM[self.paper]


@dataclass(frozen=True)
class PeriodData:
    """A chronological marking field: ``name`` and ``years`` as printed, ``colour`` #rrggbb."""

    slug: str
    name: str
    years: str
    colour: str


@dataclass(frozen=True)
class SymbolData:
    """A ZnajZnak symbol as printed on the game card's back and its auxiliary card.

    ``picture_path`` is an absolute path to the picture file (PNG, JPEG, WebP, or an
    SVG already sanitised by ``content.pictures``); ``picture_format`` is one of
    ``png``, ``jpeg``, ``webp``, ``svg`` (empty: taken from the file's name).  An empty
    path prints an empty frame.
    """

    key: str
    number: int
    name: str
    description: str = ""
    outline: str = ""
    periods: tuple[str, ...] = ()
    portal_url: str = ""
    picture_path: str = ""
    picture_format: str = ""

    @property
    def code(self) -> str:
        """The number as printed: three digits (``002``)."""
        return f"{self.number:03d}"


@dataclass(frozen=True)
class PlacementData:
    """One picture on a game card's front, in card units (``content.decks.layout``)."""

    key: str
    x: float
    y: float
    size: float
    rotation: float = 0.0


@dataclass(frozen=True)
class GameCard:
    """A ZnajZnak game card: its set letter, its symbols and where their pictures go."""

    label: str
    symbols: tuple[str, ...]
    placements: tuple[PlacementData, ...] = field(default=())


#: ``(slot, kind, text, points)``: slot A–F, kind term/chain/rhyme, points 3–6 or None.
ActivityTermData = tuple[str, str, str, "int | None"]


@dataclass(frozen=True)
class ActivityCardData:
    """An Activity term card: six terms A–F (``ActivityTermData`` tuples)."""

    number: int
    terms: tuple[ActivityTermData, ...]


@dataclass(frozen=True)
class KnowledgeCardData:
    """A Knowledge? quiz card: category ``number``/``letter``/``colour``, front, back, answer."""

    number: int
    category: str
    front: str
    back: str
    answer_display: str
