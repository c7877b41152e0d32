"""Imposition: how many cards go on a sheet, where, and in which order the pages come.

Every card sits in a *cell* of ``card + 2 × bleed``; cells touch (a shared cut for
rectangular cards) and the grid is centred on the page, at least ``MARGIN_MM`` from
its edges.  A back sheet holds the same cards as its front sheet with each row
reversed: turned over its long edge, a portrait sheet keeps its rows and mirrors
its columns, so front and back of every card coincide.  Cut marks (fronts only)
extend every trim line into the margin.  Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from .data import PrintError

__all__ = ["MARGIN_MM", "Grid", "Page", "chunk", "grid_for", "page_order"]

#: Smallest distance from a card to the paper's edge (most printers cannot print closer).
MARGIN_MM = 4.0
_MARK_GAP = 1.0  # between the cell and a cut mark
_MARK_LENGTH = 5.0

Side = Literal["front", "back"]


@dataclass(frozen=True)
class Grid:
    page_w: float
    page_h: float
    card_w: float
    card_h: float
    bleed: float
    cols: int
    rows: int

    @property
    def cell_w(self) -> float:
        return self.card_w + 2 * self.bleed

    @property
    def cell_h(self) -> float:
        return self.card_h + 2 * self.bleed

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def x0(self) -> float:
        return (self.page_w - self.cols * self.cell_w) / 2

    @property
    def y0(self) -> float:
        return (self.page_h - self.rows * self.cell_h) / 2

    def sheets(self, count: int) -> int:
        return max(1, math.ceil(count / self.per_sheet)) if count else 0

    def cell(self, slot: int, side: Side) -> tuple[float, float]:
        """Top-left corner (mm) of the cell of ``slot`` (0-based, row by row) on a ``side``."""
        row, col = divmod(slot, self.cols)
        if side == "back":
            col = self.cols - 1 - col
        return self.x0 + col * self.cell_w, self.y0 + row * self.cell_h

    def cut_marks(self) -> list[tuple[float, float, float, float]]:
        """Cut marks as rectangles ``(left, top, width, height)`` in mm, hairlines."""
        xs = sorted(
            {
                round(self.x0 + c * self.cell_w + self.bleed + e, 3)
                for c in range(self.cols)
                for e in (0.0, self.card_w)
            }
        )
        ys = sorted(
            {
                round(self.y0 + r * self.cell_h + self.bleed + e, 3)
                for r in range(self.rows)
                for e in (0.0, self.card_h)
            }
        )
        top, bottom = self.y0, self.y0 + self.rows * self.cell_h
        left, right = self.x0, self.x0 + self.cols * self.cell_w
        marks = []
        length_v = min(_MARK_LENGTH, top - _MARK_GAP - 0.5)
        if length_v >= 1.5:
            for x in xs:
                marks.append((x, top - _MARK_GAP - length_v, 0.0, length_v))
                marks.append((x, bottom + _MARK_GAP, 0.0, length_v))
        length_h = min(_MARK_LENGTH, left - _MARK_GAP - 0.5)
        if length_h >= 1.5:
            for y in ys:
                marks.append((left - _MARK_GAP - length_h, y, length_h, 0.0))
                marks.append((right + _MARK_GAP, y, length_h, 0.0))
        return marks


def grid_for(paper_mm: tuple[float, float], card_mm: tuple[float, float], bleed: float) -> Grid:
    """The grid of as many cards as fit on the paper (portrait)."""
    page_w, page_h = paper_mm
    card_w, card_h = card_mm
    cell_w, cell_h = card_w + 2 * bleed, card_h + 2 * bleed
    cols = math.floor((page_w - 2 * MARGIN_MM) / cell_w + 1e-9)
    rows = math.floor((page_h - 2 * MARGIN_MM) / cell_h + 1e-9)
    if cols < 1 or rows < 1:
        raise PrintError(
            f"A {card_w:g} × {card_h:g} mm card with {bleed:g} mm bleed does not fit on "
            f"{page_w:g} × {page_h:g} mm paper with {MARGIN_MM:g} mm margins: choose smaller cards."
        )
    return Grid(page_w, page_h, card_w, card_h, bleed, cols, rows)


@dataclass(frozen=True)
class Page:
    """One page of the PDF: the ``side`` of sheet ``sheet``, holding cards ``first..first+count``."""

    sheet: int
    side: Side
    first: int
    count: int

    def slots(self) -> Iterator[tuple[int, int]]:
        """``(slot, card index)`` of the cards on this page."""
        for slot in range(self.count):
            yield slot, self.first + slot


def page_order(card_count: int, grid: Grid, duplex: str, *, backs: bool = True) -> list[Page]:
    """Pages in print order: ``long_edge`` F1 B1 F2 B2 …, ``separate`` F1 F2 … B1 B2 …"""
    per = grid.per_sheet
    sheets = [(s, s * per, min(per, card_count - s * per)) for s in range(grid.sheets(card_count))]
    fronts = [Page(s, "front", first, count) for s, first, count in sheets]
    if not backs:
        return fronts
    back_pages = [Page(s, "back", first, count) for s, first, count in sheets]
    if duplex == "separate":
        return fronts + back_pages
    return [page for pair in zip(fronts, back_pages, strict=True) for page in pair]


T = TypeVar("T")


def chunk(items: Sequence[T], parts: int) -> list[list[T]]:
    """Split pages into ``parts`` contiguous runs of nearly equal length, in order."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [c for c in out if c]
