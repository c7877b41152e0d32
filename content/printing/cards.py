"""HTML of every card face, from the plain print data (``content.printing.data``).

Geometry is computed here in millimetres and handed to small Django templates
(``templates/printing/``) that autoescape every authored string.  Numbers reach the
templates as preformatted strings, so no locale ever turns ``12.5mm`` into ``12,5mm``.

Rulebook references: ZnajZnak, How to Read the Cards (game card and auxiliary card
backs); Activity, Play (areas A–F, chain, rhyme, open game); Knowledge?, The Quiz
Cards (categories 123 / ABC / palette); Know, Definitions (Question and Answer
Cards, Team ID).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.template import Context, Engine
from django.utils.safestring import SafeString, mark_safe

from . import labels as words
from .data import (
    ActivityCardData,
    GameCard,
    KnowledgeCardData,
    PeriodData,
    PrintError,
    SymbolData,
)
from .fetcher import data_uri
from .pictures import FIELD_GAP, PreparedPicture, field_size, mini_ratio
from .sheets import Grid, Page
from .textfit import LINE_HEIGHT, PT_MM, fit_size, height_mm, lines_needed, max_lines, text_width_em

HERE = Path(__file__).resolve().parent

ENGINE = Engine(
    dirs=[str(HERE / "templates")],
    autoescape=True,
    debug=False,
    loaders=[("django.template.loaders.cached.Loader", ["django.template.loaders.filesystem.Loader"])],
)

#: Edge colours of each kind of card (the band that bleed extends past the cut).
COLOURS = {
    "game": "#23395d",
    "auxiliary": "#8c1c13",
    "activity": "#00695c",
    "knowledge": "#4527a0",
    "know": "#37474f",
}
KNOWLEDGE_HEAD = {"number": "#1565c0", "letter": "#6a1b9a", "colour": "#37474f"}
KNOWLEDGE_ICONS = {"number": "123", "letter": "ABC", "colour": ""}
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_GREY = "#9e9e9e"
SQRT2 = math.sqrt(2.0)


def render(template: str, context: Mapping[str, Any]) -> SafeString:
    return mark_safe(
        ENGINE.get_template(f"printing/{template}").render(Context(dict(context), autoescape=True))
    )


def f2(value: float) -> str:
    return f"{value:.2f}"


#: Where card millimetres start in the containing block of a face (see ``sheet_html``).
_ORIGIN: ContextVar[tuple[float, float]] = ContextVar("print_origin", default=(0.0, 0.0))


def box(left: float, top: float, width: float, height: float, extra: str = "") -> str:
    """CSS placing a box at ``left``, ``top`` (card millimetres) with its size."""
    dx, dy = _ORIGIN.get()
    return (
        f"left:{left + dx:.2f}mm;top:{top + dy:.2f}mm;width:{max(width, 0):.2f}mm;"
        f"height:{max(height, 0):.2f}mm;{extra}"
    )


def colour(value: str) -> str:
    """An authored colour if it is ``#rrggbb``; grey otherwise (never raw CSS)."""
    return value if _HEX.match(value or "") else _GREY


def is_light(hex_colour: str) -> bool:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6


def lh(size_pt: float) -> float:
    """Line height in mm of ``size_pt`` text."""
    return size_pt * PT_MM * LINE_HEIGHT


def clamp(size_pt: float, lines: int) -> str:
    """CSS for text of ``size_pt`` cut after ``lines`` lines with an ellipsis."""
    return f"font-size:{size_pt:.2f}pt;max-lines:{lines};continue:discard;block-ellipsis:auto;"


# -- frames -----------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """The outline of one kind of card: size, shape, edge band and its colour."""

    width: float
    height: float
    shape: str  # "round", "square" or "rect"
    band: float
    colour: str
    fill: str = "#fff"  # the card's face inside the band

    @property
    def radius(self) -> float:
        return 0.0 if self.shape == "round" else min(3.0, self.width / 12)


def sheet_html(
    grid: Grid,
    page: Page,
    frame: Frame,
    faces: Callable[[int], SafeString],
    *,
    cut_marks: bool,
    back_fill: str | None = None,
) -> SafeString:
    """One page: the cards of ``page`` with their faces, cut marks on fronts.

    A card is one box the size of its cell whose border is the edge band plus the
    bleed, so the band's colour runs past the cut line by exactly the bleed.  Its
    faces are positioned in card millimetres; the border shifts the containing block
    by the band and the bleed, which ``box`` takes back through ``_ORIGIN``.
    """
    bleed = grid.bleed
    fill = back_fill if (back_fill and page.side == "back") else frame.fill
    # Rounded corners are cut: with bleed the printed edge runs square past them.
    radius = "50%" if frame.shape == "round" else (f"{frame.radius:.2f}mm" if bleed == 0 else "0")
    edge = f"border:{frame.band + bleed:.2f}mm solid {frame.colour};background:{fill};border-radius:{radius};"
    token = _ORIGIN.set((-frame.band, -frame.band))
    try:
        if frame.shape == "round":
            cid_style = box(frame.width + bleed - 7.2, frame.height + bleed - 2.4, 7, 1.2)
        else:
            cid_style = box(
                frame.width - frame.band - 9,
                frame.height - frame.band + (frame.band - 1.15) / 2,
                8,
                1.2,
                "text-align:right;color:#fff;",
            )
        cells = []
        for slot, index in page.slots():
            x, y = grid.cell(slot, page.side)
            cells.append(
                {"card": f"left:{x:.2f}mm;top:{y:.2f}mm;", "html": faces(index), "cid": f"#{index + 1:03d}"}
            )
    finally:
        _ORIGIN.reset(token)
    marks = cut_marks_image(grid) if cut_marks and page.side == "front" else ""
    return render(
        "sheet.html",
        {
            "cells": cells,
            "marks": marks,
            "marks_style": f"left:0;top:0;width:{grid.page_w:.2f}mm;height:{grid.page_h:.2f}mm;",
            "card_style": f"width:{grid.cell_w:.2f}mm;height:{grid.cell_h:.2f}mm;{edge}",
            "cid_style": cid_style,
        },
    )


#: Every data: URI these builders made; the fetcher serves these and no other.
GENERATED: set[str] = set()


def cut_marks_image(grid: Grid) -> str:
    """All cut marks of a sheet as one SVG (a data: URI) the size of the page."""
    lines = "".join(
        f'<path d="M{left:.2f} {top:.2f}l{width:.2f} {height:.2f}"/>'
        for left, top, width, height in grid.cut_marks()
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {grid.page_w:.2f} {grid.page_h:.2f}">'
        f'<g stroke="#000" stroke-width="0.15" fill="none">{lines}</g></svg>'
    )
    uri = data_uri(svg.encode("ascii"), "image/svg+xml")
    GENERATED.add(uri)
    return uri


_STYLED = re.compile(r'class="([^"]*)" style="([^"]*)"')


def intern_styles(html: str) -> tuple[str, str]:
    """Turn every inline style used twice or more into a class, and return its CSS.

    WeasyPrint parses each ``style`` attribute on its own; the same card geometry
    repeats on every sheet, so one rule per distinct style is parsed once.  The
    rules are ``!important`` to keep the precedence the inline styles had.
    """
    counts = Counter(match.group(2) for match in _STYLED.finditer(html))
    names: dict[str, str] = {}

    def replace(match: re.Match[str]) -> str:
        style = match.group(2)
        if counts[style] < 2:
            return match.group(0)
        name = names.setdefault(style, f"z{len(names)}")
        return f'class="{match.group(1)} {name}"'

    html = _STYLED.sub(replace, html)
    rules = []
    for style, name in names.items():
        declarations = ";".join(f"{d.strip()} !important" for d in style.split(";") if d.strip())
        rules.append(f".{name}{{{declarations}}}")
    return html, "\n".join(rules)


def document_html(sheets: Sequence[str], *, paper: tuple[float, float], title: str, language: str) -> str:
    body, styles = intern_styles("".join(sheets))
    return str(
        render(
            "document.html",
            {
                "sheets": mark_safe(body),
                "styles": mark_safe(styles),
                "page_w": f2(paper[0]),
                "page_h": f2(paper[1]),
                "title": title,
                "language": language,
            },
        )
    )


# -- pictures ----------------------------------------------------------------


def picture(
    prepared: PreparedPicture | None, cx: float, cy: float, d: float, rotation: float = 0
) -> dict[str, str]:
    """An ``<img>`` for a picture whose bounding circle has centre ``(cx, cy)``, diameter ``d``."""
    turn = f"transform:rotate({rotation:.0f}deg);" if rotation % 360 else ""
    if prepared is None or prepared.kind == "missing":
        return {"src": "", "style": box(cx - d / 2, cy - d / 2, d, d)}
    src = Path(prepared.path).as_uri()
    if prepared.kind == "raster":
        return {"src": src, "cls": "clip", "style": box(cx - d / 2, cy - d / 2, d, d, turn)}
    side = d / SQRT2  # vector fallback: the square inscribed in the circle
    return {"src": src, "cls": "vec", "style": box(cx - side / 2, cy - side / 2, side, side, turn)}


# -- chronological marking ---------------------------------------------------------


def chrono(symbol: SymbolData, periods: Sequence[PeriodData]) -> tuple[str, ...]:
    """One entry per period: its colour where the symbol belongs, empty (outlined) otherwise."""
    own = set(symbol.periods)
    return tuple(colour(p.colour) if p.slug in own else "" for p in periods)


# -- ZnajZnak game cards ----------------------------------------------------------


def game_frame(card_mm: float, shape: str) -> Frame:
    return Frame(
        card_mm,
        card_mm,
        "round" if shape == "round" else "square",
        1.0 if shape == "round" else 1.6,
        COLOURS["game"],
    )


def game_front(card: GameCard, pictures: Mapping[str, PreparedPicture], frame: Frame) -> SafeString:
    size = frame.width
    pics = [
        picture(pictures.get(p.key), p.x * size, p.y * size, p.size * size, p.rotation)
        for p in card.placements
    ]
    return render("game_front.html", {"pics": pics})


_BACK_SIZES = (8.5, 8.0, 7.5, 7.0, 6.5, 6.0, 5.6, 5.2, 4.8, 4.5, 4.2, 3.9)


@dataclass(frozen=True)
class BackLayout:
    """Where things go on the back of a game card of ``count`` symbols (card mm)."""

    size: float
    round: bool
    k: float
    radius: float
    inner_left: float
    badge: tuple[float, float, float]  # left, top, diameter
    legend: tuple[float, float, float, float]  # left, top, width, height
    legend_font: float
    top: float
    row_h: float
    mini: float  # height of a miniature (its picture's circle)

    def row(self, i: int) -> tuple[float, float, float]:
        """``(left, top, width)`` of row ``i``, inside the circle on a round card."""
        y0 = self.top + i * self.row_h
        if self.round:
            centre = self.size / 2
            far = max(abs(y0 - centre), abs(y0 + self.row_h - centre))
            half = math.sqrt(max(0.0, self.radius**2 - far**2))
            return centre - half, y0, 2 * half
        return self.inner_left, y0, self.size - 2 * self.inner_left


def back_layout(frame: Frame, count: int, periods: Sequence[PeriodData]) -> BackLayout:
    size = frame.width
    k = size / 90
    round_ = frame.shape == "round"
    centre = size / 2
    pad = 1.5 * k
    radius = size / 2 - frame.band - pad
    inner_left = frame.band + pad
    inner_width = size - 2 * inner_left
    badge = 6.2 * k
    if round_:
        badge_left, badge_top = centre - badge / 2, frame.band + 0.9 * k
    else:
        badge_left, badge_top = inner_left, inner_left
    # The legend's fields are the miniatures' fields, so its lines follow their pitch.
    top = badge_top + badge + 0.7 * k
    mini = 5.2 * k
    for _ in range(3):  # the legend's height depends on the miniature's, and back
        field = field_size(len(periods)) * mini
        pitch = field + FIELD_GAP * mini
        legend_font = pitch / (PT_MM * LINE_HEIGHT)
        legend_h = len(periods) * field + max(0, len(periods) - 1) * FIELD_GAP * mini
        widest = max((text_width_em(f"{p.name} {p.years}") for p in periods), default=0.0)
        legend_w = min(widest * legend_font * PT_MM + field + 1.8, inner_width)
        if round_:
            bottom = centre + math.sqrt(max(0.0, radius**2 - (legend_w / 2) ** 2))
            legend_left = centre - legend_w / 2
        else:
            bottom = size - inner_left
            legend_left = size - inner_left - legend_w
        legend_top = bottom - legend_h - 0.3 * k
        row_h = (legend_top - 0.6 * k - top) / max(1, count)
        mini = min(row_h - 0.5 * k, 6.0 * k)
    if row_h <= 1.5:
        raise PrintError(f"{count} symbols do not fit on the back of a {size:g} mm card.")
    return BackLayout(
        size,
        round_,
        k,
        radius,
        inner_left,
        (badge_left, badge_top, badge),
        (legend_left, legend_top, legend_w, legend_h),
        legend_font,
        top,
        row_h,
        mini,
    )


def game_back(
    card: GameCard,
    symbols: Mapping[str, SymbolData],
    periods: Sequence[PeriodData],
    pictures: Mapping[str, PreparedPicture],
    frame: Frame,
    legend_src: str,
) -> SafeString:
    """Back of a game card: per symbol a miniature with its chronological fields, the
    number, the name in bold and the description; the set letter on top, the legend
    (fields and period names with years) below."""
    keys = list(card.symbols)
    layout = back_layout(frame, len(keys), periods)
    k, row_h, mini = layout.k, layout.row_h, layout.mini
    mini_w = mini * mini_ratio(len(periods))
    text_left = mini_w + 0.9 * k
    geometry = []
    blocks = []
    for i, key in enumerate(keys):
        symbol = symbols[key]
        left, y0, width = layout.row(i)
        runs = [(f"{symbol.code} {symbol.name} ", True), (symbol.description, False)]
        geometry.append((symbol, left, y0, width - text_left, runs))
        blocks.append((runs, max(0.1, width - text_left), row_h))
    font = fit_size(blocks, [s * k for s in _BACK_SIZES])
    limit = max_lines(font, row_h)
    rows = []
    for symbol, left, y0, text_w, runs in geometry:
        used = min(limit, max(1, lines_needed(runs, font, max(0.1, text_w))))
        text_top = max(0.0, (row_h - height_mm(used, font)) / 2)
        prepared = pictures.get(symbol.key)
        vector = None
        if prepared is not None and prepared.kind == "original":  # not rasterised: drawn on top
            vector = picture(prepared, left + mini / 2, y0 + row_h / 2, mini)
        rows.append(
            {
                "mini": Path(prepared.mini).as_uri() if prepared is not None and prepared.mini else "",
                "mini_style": box(left, y0 + (row_h - mini) / 2, mini_w, mini),
                "vector": vector,
                # Exactly ``limit`` lines high: overflow cuts between lines (cheaper than max-lines).
                "text_style": box(
                    left + text_left,
                    y0 + text_top,
                    text_w,
                    height_mm(limit, font) - 0.01,
                    f"font-size:{font:.2f}pt;",
                ),
                "code": symbol.code,
                "name": symbol.name,
                "desc": symbol.description,
            }
        )
    badge_left, badge_top, badge = layout.badge
    legend_left, legend_top, legend_w, legend_h = layout.legend
    field = field_size(len(periods)) * mini
    pitch = field + FIELD_GAP * mini
    return render(
        "game_back.html",
        {
            "label": card.label,
            "badge_style": box(
                badge_left,
                badge_top,
                badge,
                badge,
                f"background:{frame.colour};font-size:{10.5 * k:.2f}pt;padding-top:{1.1 * k:.2f}mm;",
            ),
            "rows": rows,
            "legend": bool(periods),
            "legend_text": "\n".join(f"{p.name} {p.years}" for p in periods),
            "legend_src": legend_src,
            "legend_strip_style": box(legend_left, legend_top, field, legend_h),
            "legend_style": box(
                legend_left + field + 0.8,
                legend_top - FIELD_GAP * mini / 2,
                legend_w - field - 0.8,
                legend_h + pitch,
                f"font-size:{layout.legend_font:.2f}pt;line-height:{pitch:.3f}mm;",
            ),
        },
    )


# -- ZnajZnak auxiliary cards --------------------------------------------------------


def aux_frame(size: tuple[float, float]) -> Frame:
    return Frame(size[0], size[1], "rect", 1.6, COLOURS["auxiliary"])


def _tab(frame: Frame, bleed: float) -> str:
    """The number tab on the card's top edge (it runs into the bleed)."""
    k = min(frame.width, frame.height) / 63
    width, depth = 13.5 * k, 5.4 * k
    return box(
        frame.width - frame.radius - 1.5 - width,
        -bleed,
        width,
        depth + bleed,
        f"background:{frame.colour};font-size:{8.5 * k:.2f}pt;padding-top:{bleed + 1.35 * k:.2f}mm;"
        f"box-sizing:border-box;height:{depth + bleed:.2f}mm;border-radius:0 0 1.2mm 1.2mm;",
    )


def aux_picture_mm(frame: Frame) -> float:
    """Diameter of the picture's circle on the front of an auxiliary card."""
    return min(frame.width, frame.height) - 2 * (frame.band + 4.5)


def aux_front(
    symbol: SymbolData, pictures: Mapping[str, PreparedPicture], frame: Frame, bleed: float
) -> SafeString:
    w, h = frame.width, frame.height
    d = aux_picture_mm(frame)
    return render(
        "aux_front.html",
        {
            "tab_style": _tab(frame, bleed),
            "code": symbol.code,
            "pic": picture(pictures.get(symbol.key), w / 2, h / 2 + 1.5, d),
        },
    )


_AUX_SIZES = (8.6, 8.2, 7.8, 7.4, 7.0, 6.6, 6.2, 5.8, 5.4, 5.0, 4.7, 4.4)


def aux_back(
    symbol: SymbolData,
    periods: Sequence[PeriodData],
    qr: str,
    frame: Frame,
    bleed: float,
    language: str,
) -> SafeString:
    """Back of an auxiliary card: name and description, outline, number on the edge,
    chronological marking and the QR code to the portal page."""
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    inset = frame.band + 2.2 * k
    text_top = frame.band + 6.4 * k
    qr_size = 15.5 * k if qr else 0.0
    footer = max(qr_size + 3.2 * k, len(periods) * 5.3 * k) if (qr or periods) else 0.0
    footer_top = h - frame.band - 1.6 * k - footer
    text_w = w - 2 * inset
    text_h = footer_top - 1.2 * k - text_top

    def needed(size: float) -> float:
        title = size + 2.2
        total = height_mm(lines_needed([(symbol.name, True)], title, text_w), title)
        if symbol.description:
            total += height_mm(lines_needed([(symbol.description, False)], size, text_w), size) + 0.6
        if symbol.outline:
            total += height_mm(lines_needed([(symbol.outline, False)], size - 0.4, text_w), size - 0.4) + 1.2
        return total

    size = next((s * k for s in _AUX_SIZES if needed(s * k) <= text_h), _AUX_SIZES[-1] * k)
    title = size + 2.2
    title_lines = min(3, lines_needed([(symbol.name, True)], title, text_w))
    used = height_mm(title_lines, title)
    desc_lines = 0
    if symbol.description:
        desc_lines = max(
            1,
            min(
                lines_needed([(symbol.description, False)], size, text_w),
                max_lines(size, (text_h - used) * 0.5),
            ),
        )
        used += height_mm(desc_lines, size) + 0.6
    outline_lines = max_lines(size - 0.4, text_h - used - 1.2)

    fields = []
    if periods:
        field_h = 4.5 * k
        gap = (footer - len(periods) * field_h) / max(1, len(periods))
        field_w = w - 2 * inset - (qr_size + 2.0 * k if qr else 0.0)
        own = set(symbol.periods)
        for i, period in enumerate(periods):
            on = period.slug in own
            fill = colour(period.colour)
            label = f"{period.name} · {period.years}"
            fsize = min(5.4 * k, (field_w - 1.5) / max(0.1, text_width_em(label, bold=True) * PT_MM * 1.02))
            style = box(
                0,
                i * (field_h + gap),
                field_w,
                field_h,
                f"font-size:{fsize:.2f}pt;padding-top:{(field_h - lh(fsize)) / 2:.2f}mm;",
            )
            if on:
                style += f"background:{fill};"
            fields.append(
                {
                    "on": on,
                    "light": on and is_light(fill),
                    "name": period.name,
                    "years": period.years,
                    "style": style,
                }
            )
    qr_left = w - inset - qr_size
    return render(
        "aux_back.html",
        {
            "tab_style": _tab(frame, bleed),
            "code": symbol.code,
            "text_style": box(inset, text_top, text_w, text_h, "overflow:hidden;"),
            "name": symbol.name,
            "title_style": clamp(title, 3) + "margin:0 0 0.6mm 0;",
            "description": symbol.description,
            "desc_style": clamp(size, desc_lines or 1) + "margin:0;",
            "outline": symbol.outline,
            "outline_style": clamp(size - 0.4, outline_lines) + "margin:1.2mm 0 0 0;",
            "periods": fields,
            "periods_style": box(inset, footer_top, w - 2 * inset, footer),
            "qr": qr,
            "qr_style": box(qr_left, footer_top, qr_size, qr_size),
            "qrcap_style": box(qr_left - 1.0, footer_top + qr_size + 0.3 * k, qr_size + 2.0, 2.8 * k),
            "portal_label": words.labels(language)["portal"],
        },
    )


# -- Activity ----------------------------------------------------------------


def activity_frame(size: tuple[float, float]) -> Frame:
    return Frame(size[0], size[1], "rect", 1.6, COLOURS["activity"])


def _head(frame: Frame, height: float, fill: str) -> str:
    return box(
        frame.band,
        frame.band,
        frame.width - 2 * frame.band,
        height,
        f"background:{fill};border-radius:{max(0.0, frame.radius - frame.band):.2f}mm "
        f"{max(0.0, frame.radius - frame.band):.2f}mm 0 0;",
    )


def activity_front(card: ActivityCardData, frame: Frame, language: str) -> SafeString:
    """Six terms A–F: the letter with its form (draw / describe / mime), the term, its points."""
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    text = words.labels(language)
    head_h = 6.2 * k
    top = frame.band + head_h + 1.2 * k
    bottom = h - frame.band - 1.2 * k
    inset = frame.band + 1.6 * k
    by_slot = {slot: (slot, kind, word, points) for slot, kind, word, points in card.terms}
    slots = [by_slot.get(s, (s, "term", "", None)) for s in "ABCDEF"]
    row_h = (bottom - top) / 6
    slot_w = 9.5 * k
    pts_d = min(6.2 * k, row_h - 3.2 * k)
    word_left = slot_w + 1.6 * k
    word_w = w - 2 * inset - word_left - pts_d - 2.0 * k
    runs = []
    for _, kind, word, _ in slots:
        label = text.get(kind, "") if kind in ("chain", "rhyme") else ""
        runs.append(([(f"{label}: " if label else "", True), (word, True)], word_w, row_h - 0.6 * k))
    font = fit_size(runs, [s * k for s in (9.5, 9.0, 8.5, 8.0, 7.5, 7.0, 6.5, 6.0, 5.5)])
    terms = []
    for i, (slot, kind, word, points) in enumerate(slots):
        form = words.SLOT_FORMS[slot]
        special = kind in ("chain", "rhyme")
        shown = words.SPECIAL_POINTS[kind] if special else points
        used = min(max_lines(font, row_h), lines_needed(runs[i][0], font, word_w))
        word_top = max(0.0, (row_h - height_mm(used, font)) / 2)
        pts_top = (row_h - pts_d) / 2 - (0.9 * k if (special or points == 6) else 0)
        hint = ""
        if points == 6 and not special:
            hint = text["open"]
        elif special:
            hint = f"+{shown}"
        terms.append(
            {
                "style": box(
                    inset,
                    top + i * row_h,
                    w - 2 * inset,
                    row_h,
                    "border-bottom:0.2mm solid #d0d0d0;" if i < 5 else "",
                ),
                "slot": slot,
                "slot_style": box(
                    0,
                    0.6 * k,
                    slot_w,
                    5.2 * k,
                    f"background:{frame.colour};font-size:{10 * k:.2f}pt;padding-top:{0.9 * k:.2f}mm;"
                    "box-sizing:border-box;",
                ),
                "icon": words.FORM_ICONS[form],
                "form": text[form],
                "form_style": box(
                    -1.0 * k, 6.2 * k, slot_w + 2.0 * k, 2.2 * k, f"font-size:{4.6 * k:.2f}pt;"
                ),
                "kind_label": text[kind] if special else "",
                "text": word,
                "word_style": box(
                    word_left, word_top, word_w, row_h - word_top, clamp(font, max_lines(font, row_h))
                ),
                "points": "" if shown is None else (f"+{shown}" if special else str(shown)),
                "open": points == 6 and not special,
                "pts_style": box(
                    w - 2 * inset - pts_d,
                    pts_top,
                    pts_d,
                    pts_d,
                    f"font-size:{min(9.0, pts_d * 1.6) * (0.8 if special else 1):.2f}pt;"
                    f"padding-top:{pts_d * 0.26:.2f}mm;" + ("border-style:dashed;" if special else ""),
                ),
                "hint": hint if (points == 6 and not special) else "",
                "hint_style": box(
                    w - 2 * inset - pts_d - 3.5 * k,
                    pts_top + pts_d + 0.3 * k,
                    pts_d + 7 * k,
                    2.2 * k,
                    f"font-size:{4.2 * k:.2f}pt;",
                ),
            }
        )
    return render(
        "activity_front.html",
        {
            "title": text["activity"],
            "card_label": text["card"],
            "number": card.number,
            "head_style": _head(frame, head_h, frame.colour),
            "head_title_style": box(
                2.0 * k, 1.6 * k, 30 * k, 4 * k, f"font-size:{8.5 * k:.2f}pt;text-align:left;"
            ),
            "head_sub_style": box(
                w - 2 * frame.band - 24 * k,
                2.0 * k,
                22 * k,
                4 * k,
                f"font-size:{6 * k:.2f}pt;text-align:right;",
            ),
            "terms": terms,
        },
    )


def plain_back(frame: Frame, title: str, subtitle: str = "") -> SafeString:
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    return render(
        "plain_back.html",
        {
            "title": title,
            "title_style": box(0, h / 2 - 6 * k, w, 10 * k, f"font-size:{15 * k:.2f}pt;"),
            "subtitle": subtitle,
            "sub_style": box(0, h / 2 + 4 * k, w, 5 * k, f"font-size:{7 * k:.2f}pt;"),
        },
    )


# -- Knowledge? ----------------------------------------------------------------------


def knowledge_frame(size: tuple[float, float]) -> Frame:
    return Frame(size[0], size[1], "rect", 1.6, COLOURS["knowledge"])


def _knowledge_head(card: KnowledgeCardData, frame: Frame, language: str) -> dict[str, Any]:
    w = frame.width
    k = min(w, frame.height) / 63
    text = words.labels(language)
    category = card.category if card.category in KNOWLEDGE_HEAD else "number"
    palette = list(words.KNOWLEDGE_COLOURS.values()) if category == "colour" else []
    return {
        "head_style": _head(frame, 7.5 * k, KNOWLEDGE_HEAD[category]),
        "category": text[category],
        "cat_style": box(2.2 * k, 2.0 * k, 30 * k, 4 * k, f"font-size:{8 * k:.2f}pt;"),
        "icon": KNOWLEDGE_ICONS[category],
        "palette": palette,
        "icon_style": box(w - 2 * frame.band - 26 * k, 1.8 * k, 24 * k, 4.5 * k, f"font-size:{9 * k:.2f}pt;"),
    }


def _fitted_text(text: str, width: float, height: float, sizes: Sequence[float]) -> tuple[float, int]:
    size = fit_size([([(text, False)], width, height)], sizes)
    return size, max_lines(size, height)


def knowledge_front(card: KnowledgeCardData, frame: Frame, language: str) -> SafeString:
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    inset = frame.band + 3.0 * k
    top = frame.band + 7.5 * k + 3.5 * k
    height = h - frame.band - 3.0 * k - top
    size, lines = _fitted_text(
        card.front, w - 2 * inset, height, [s * k for s in (11, 10, 9, 8, 7.5, 7, 6.5, 6, 5.5)]
    )
    return render(
        "knowledge_front.html",
        {
            **_knowledge_head(card, frame, language),
            "text": card.front,
            "text_style": box(inset, top, w - 2 * inset, height, clamp(size, lines) + "line-height:1.18;"),
        },
    )


def _answer_parts(card: KnowledgeCardData, language: str) -> list[dict[str, str]]:
    text = words.labels(language)
    parts = []
    for piece in (card.answer_display or "").split("/"):
        piece = piece.strip()
        if card.category == "colour" and piece.lower() in words.KNOWLEDGE_COLOURS:
            parts.append({"swatch": words.KNOWLEDGE_COLOURS[piece.lower()], "text": text[piece.lower()]})
        elif piece:
            parts.append({"swatch": "", "text": piece})
    return parts


def knowledge_back(card: KnowledgeCardData, frame: Frame, language: str) -> SafeString:
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    inset = frame.band + 3.0 * k
    head_bottom = frame.band + 7.5 * k
    answer_top = head_bottom + 6.2 * k
    parts = _answer_parts(card, language)
    shown = " / ".join(part["text"] for part in parts)
    swatches = sum(1 for part in parts if part["swatch"]) * 4.5
    width_em = text_width_em(shown, bold=True) * PT_MM  # mm per pt of font size
    answer_size = min(15 * k, (w - 2 * inset - swatches - 1) / max(width_em, 0.1))
    top = answer_top + lh(15 * k) + 2.5 * k
    height = h - frame.band - 3.0 * k - top
    size, lines = _fitted_text(
        card.back, w - 2 * inset, height, [s * k for s in (9, 8.5, 8, 7.5, 7, 6.5, 6, 5.5, 5)]
    )
    return render(
        "knowledge_back.html",
        {
            **_knowledge_head(card, frame, language),
            "answer_label": words.labels(language)["answer"],
            "label_style": box(inset, head_bottom + 2.2 * k, w - 2 * inset, 3 * k),
            "answer_parts": parts,
            "answer_style": box(
                inset,
                answer_top + (lh(15 * k) - lh(answer_size)),
                w - 2 * inset,
                lh(answer_size) + 0.5,
                f"font-size:{answer_size:.2f}pt;white-space:nowrap;overflow:hidden;",
            ),
            "text": card.back,
            "text_style": box(inset, top, w - 2 * inset, height, clamp(size, lines) + "line-height:1.18;"),
        },
    )


# -- Know --------------------------------------------------------------------------


def know_frame(size: tuple[float, float]) -> Frame:
    return Frame(size[0], size[1], "rect", 1.6, COLOURS["know"])


def know_front(number: int | None, frame: Frame, language: str) -> SafeString:
    """A blank Question Card (its unique number printed) or Answer Card (number box empty)."""
    w, h = frame.width, frame.height
    k = min(w, h) / 63
    text = words.labels(language)
    inset = frame.band + 3.0 * k
    head_h = 6.2 * k
    question = number is not None
    label_top = frame.band + head_h + 2.6 * k
    box_h = 10.5 * k if question else 9.0 * k
    box_w = 20 * k if question else 17 * k
    box_top = label_top + 3.2 * k
    team_h = 9.5 * k
    team_top = h - frame.band - 3.0 * k - team_h
    team_label_top = team_top - 3.2 * k
    lines_top = box_top + box_h + 5.5 * k
    spacing = 6.5 * k
    count = max(1, math.floor((team_label_top - 1.5 * k - lines_top) / spacing) + 1)
    return render(
        "know_front.html",
        {
            "head_style": _head(frame, head_h, frame.colour),
            "head_title_style": box(
                2.0 * k, 1.6 * k, 20 * k, 4 * k, f"font-size:{8.5 * k:.2f}pt;text-align:left;"
            ),
            "head_sub_style": box(
                w - 2 * frame.band - 34 * k,
                2.0 * k,
                32 * k,
                4 * k,
                f"font-size:{6.5 * k:.2f}pt;text-align:right;",
            ),
            "heading": text["question"] if question else text["answer"],
            "number_label": text["question_no"] if question else text["answer_to"],
            "number_label_style": box(inset, label_top, w - 2 * inset, 3 * k),
            "number_box_style": box(inset, box_top, box_w, box_h),
            "number": number if question else "",
            "number_style": box(
                0,
                0,
                box_w - 0.6,
                box_h - 0.6,
                f"font-size:{18 * k:.2f}pt;padding-top:{(box_h - lh(18 * k) / LINE_HEIGHT) / 2:.2f}mm;"
                "box-sizing:border-box;",
            ),
            "lines": [box(inset, lines_top + i * spacing, w - 2 * inset, 0.01) for i in range(count)],
            "team_label": text["team_id"],
            "team_label_style": box(inset, team_label_top, w - 2 * inset, 3 * k),
            "team_box_style": box(inset, team_top, w - 2 * inset, team_h),
        },
    )
