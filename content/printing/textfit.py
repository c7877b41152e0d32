"""Estimate how much room authored text needs, to pick a font size that fits.

WeasyPrint cannot shrink text to fit a box, and authored descriptions vary from a
few words to 400 characters.  The shipped fonts' advance widths (fontTools, read
once) give a close estimate of a text's width; a small slack covers word wrapping.
The templates also clamp each block with ``max-lines`` and an ellipsis, so an
estimate that is off never spills text over a neighbour.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from pathlib import Path

from fontTools.ttLib import TTFont

FONTS = Path(__file__).resolve().parent / "fonts"
PT_MM = 25.4 / 72
LINE_HEIGHT = 1.18
_WRAP_SLACK = 1.12  # lines break at spaces, so they are rarely full


@functools.lru_cache(maxsize=2)
def _advances(bold: bool) -> tuple[dict[int, float], float]:
    font = TTFont(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"), lazy=True)
    units = font["head"].unitsPerEm
    metrics = font["hmtx"].metrics
    widths = {code: metrics[name][0] / units for code, name in font.getBestCmap().items()}
    fallback = metrics[".notdef"][0] / units if ".notdef" in metrics else 0.6
    return widths, fallback


@functools.lru_cache(maxsize=4096)
def text_width_em(text: str, *, bold: bool = False) -> float:
    """Width of ``text`` on one line, in ems (remembered: a symbol's name and description
    are measured again on every game-card back that lists the symbol)."""
    widths, fallback = _advances(bold)
    return sum(widths.get(ord(ch), fallback) for ch in text)


def lines_needed(runs: Sequence[tuple[str, bool]], size_pt: float, width_mm: float) -> int:
    """Lines that ``runs`` (``(text, bold)`` pieces of one paragraph) take at ``size_pt``."""
    if width_mm <= 0:
        return 10**6
    em = sum(text_width_em(text, bold=bold) for text, bold in runs)
    if em == 0:
        return 0
    return max(1, math.ceil(em * size_pt * PT_MM * _WRAP_SLACK / width_mm))


def height_mm(lines: int, size_pt: float) -> float:
    return lines * size_pt * PT_MM * LINE_HEIGHT


def fit_size(
    blocks: Sequence[tuple[Sequence[tuple[str, bool]], float, float]],
    sizes: Sequence[float],
) -> float:
    """The largest size in ``sizes`` (descending) at which every block fits.

    Each block is ``(runs, width_mm, height_mm)``; the smallest size if none fits.
    """
    for size in sizes:
        if all(height_mm(lines_needed(runs, size, w), size) <= h + 1e-6 for runs, w, h in blocks):
            return size
    return sizes[-1]


def max_lines(size_pt: float, height: float) -> int:
    """Lines of ``size_pt`` text that fit in ``height`` millimetres (at least one)."""
    return max(1, math.floor(height / (size_pt * PT_MM * LINE_HEIGHT) + 1e-6))
