"""Bar charts drawn on the server as SVG: no chart library, no CDN, readable on a projector.

Each chart is a picture of a table that the page also shows as a table, so the SVG has a
title for screen readers and the numbers stay reachable by keyboard in the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

BAR_HEIGHT = 28
GAP = 10
LABEL_WIDTH = 220
BAR_WIDTH = 300
WIDTH = LABEL_WIDTH + BAR_WIDTH + 60


def _colour(percent: int) -> str:
    # Dark enough on white for text and bar edges (WCAG non-text contrast ≥ 3:1).
    if percent >= 90:
        return "#1a6b32"
    if percent >= 60:
        return "#8a5a00"
    return "#b3261e"


#: Bars of a chart whose colour says nothing of good or bad (a question's options).
NEUTRAL = "#2f5d8a"


def bar_chart(
    rows: Sequence[tuple[str, int]], *, title: str, colours: Sequence[str] | None = None
) -> SafeString:
    """A horizontal bar chart of percentages, one bar per ``(label, percent)`` row;
    ``colours`` (one per row) replace the colours that grade the percentage."""
    height = max(1, len(rows)) * (BAR_HEIGHT + GAP) + GAP
    parts = [
        format_html(
            '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="{}" '
            'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMinYMin meet">',
            WIDTH,
            height,
            _chart_id(title),
        ),
        format_html('<title id="{}">{}</title>', _chart_id(title), title),
    ]
    for index, (label, percent) in enumerate(rows):
        percent = max(0, min(100, int(percent)))
        y = GAP + index * (BAR_HEIGHT + GAP)
        short = label if len(label) <= 28 else label[:27] + "…"
        parts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end" font-size="16" fill="#1b1b1b">{}</text>'
                '<rect x="{}" y="{}" width="{}" height="{}" fill="#e6e6e6" stroke="#6b6b6b"/>'
                '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>'
                '<text x="{}" y="{}" font-size="16" fill="#1b1b1b">{} %</text>',
                LABEL_WIDTH - 8,
                y + BAR_HEIGHT * 0.7,
                short,
                LABEL_WIDTH,
                y,
                BAR_WIDTH,
                BAR_HEIGHT,
                LABEL_WIDTH,
                y,
                BAR_WIDTH * percent // 100,
                BAR_HEIGHT,
                colours[index] if colours else _colour(percent),
                LABEL_WIDTH + BAR_WIDTH + 6,
                y + BAR_HEIGHT * 0.7,
                percent,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(parts))


WEEK_WIDTH = 44
ROW_HEIGHT = 48
AXIS_HEIGHT = 28


def weekly_chart(
    rows: Sequence[tuple[str, Sequence[int | None]]], *, weeks: Sequence[str], title: str
) -> SafeString:
    """Small bar charts side by side: one row per ``(label, percents by week)``, one column
    per week (``None``: nothing met yet, drawn as a dash). The height of each bar is the
    percentage, so the trend reads without colour."""
    width = LABEL_WIDTH + len(weeks) * WEEK_WIDTH + GAP
    height = max(1, len(rows)) * (ROW_HEIGHT + GAP) + GAP + AXIS_HEIGHT
    parts = [
        format_html(
            '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="{}" '
            'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMinYMin meet">',
            width,
            height,
            _chart_id(title),
        ),
        format_html('<title id="{}">{}</title>', _chart_id(title), title),
    ]
    for index, (label, percents) in enumerate(rows):
        top = GAP + index * (ROW_HEIGHT + GAP)
        short = label if len(label) <= 28 else label[:27] + "…"
        parts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end" font-size="16" fill="#1b1b1b">{}</text>'
                '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#6b6b6b"/>',
                LABEL_WIDTH - 8,
                top + ROW_HEIGHT * 0.6,
                short,
                LABEL_WIDTH,
                top + ROW_HEIGHT,
                width - GAP,
                top + ROW_HEIGHT,
            )
        )
        for week, percent in enumerate(percents):
            x = LABEL_WIDTH + week * WEEK_WIDTH + 6
            if percent is None:
                parts.append(
                    format_html(
                        '<text x="{}" y="{}" font-size="16" fill="#1b1b1b">–</text>',
                        x + 10,
                        top + ROW_HEIGHT - 6,
                    )
                )
                continue
            percent = max(0, min(100, int(percent)))
            bar = max(1, ROW_HEIGHT * percent // 100)
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>',
                    x,
                    top + ROW_HEIGHT - bar,
                    WEEK_WIDTH - 12,
                    bar,
                    _colour(percent),
                )
            )
    axis = GAP + len(rows) * (ROW_HEIGHT + GAP) + 18
    for week, name in enumerate(weeks):
        parts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="middle" font-size="13" fill="#1b1b1b">{}</text>',
                LABEL_WIDTH + week * WEEK_WIDTH + WEEK_WIDTH // 2,
                axis,
                name,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(parts))


def _chart_id(title: str) -> str:
    return "chart-" + "".join(ch if ch.isalnum() else "-" for ch in escape(title).lower())[:40]
