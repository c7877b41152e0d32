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


def bar_chart(rows: Sequence[tuple[str, int]], *, title: str) -> SafeString:
    """A horizontal bar chart of percentages, one bar per ``(label, percent)`` row."""
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
                _colour(percent),
                LABEL_WIDTH + BAR_WIDTH + 6,
                y + BAR_HEIGHT * 0.7,
                percent,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(parts))


def _chart_id(title: str) -> str:
    return "chart-" + "".join(ch if ch.isalnum() else "-" for ch in escape(title).lower())[:40]
