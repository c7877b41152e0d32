"""Placeholder pictures for the demo symbols, generated, distinct and marked as such.

The real ZnajZnak pictures belong to the IPN; the demo draws a coloured emblem with
the symbol's number and initials and the word PLACEHOLDER, so nobody mistakes it
for the real artwork.
"""

from __future__ import annotations

import colorsys
import math
from xml.sax.saxutils import escape

SHAPES = ("circle", "square", "diamond", "triangle", "hexagon", "star", "shield", "octagon")


def _colour(number: int, lightness: float = 0.42, saturation: float = 0.65) -> str:
    hue = (number * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def _polygon(sides: int, radius: float, rotation: float = -90.0, star: bool = False) -> str:
    points = []
    count = sides * 2 if star else sides
    for i in range(count):
        r = radius if not star or i % 2 == 0 else radius * 0.45
        angle = math.radians(rotation + 360.0 * i / count)
        points.append(f"{100 + r * math.cos(angle):.1f},{100 + r * math.sin(angle):.1f}")
    return " ".join(points)


def _shape(kind: str, fill: str) -> str:
    stroke = 'stroke="#1a1a1a" stroke-width="4"'
    if kind == "circle":
        return f'<circle cx="100" cy="100" r="82" fill="{fill}" {stroke}/>'
    if kind == "square":
        return f'<rect x="24" y="24" width="152" height="152" rx="14" fill="{fill}" {stroke}/>'
    if kind == "shield":
        return f'<path d="M100 14 L178 40 L170 118 Q150 168 100 188 Q50 168 30 118 L22 40 Z" fill="{fill}" {stroke}/>'
    sides = {"diamond": 4, "triangle": 3, "hexagon": 6, "octagon": 8, "star": 5}[kind]
    rotation = -90.0 if kind != "octagon" else -67.5
    return f'<polygon points="{_polygon(sides, 88, rotation, star=kind == "star")}" fill="{fill}" {stroke}/>'


def initials(name: str) -> str:
    words = [w for w in name.replace("„", " ").replace("”", " ").split() if w[:1].isalpha()]
    letters = "".join(w[0].upper() for w in words[:3])
    return letters or "?"


def placeholder_svg(number: int, name: str) -> bytes:
    """A 200×200 SVG emblem for symbol ``number``: shape and colour vary with the number."""
    fill = _colour(number)
    kind = SHAPES[number % len(SHAPES)]
    ring = _colour(number * 7 + 3, lightness=0.85, saturation=0.5)
    label = escape(initials(name))
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200">
<title>{escape(name)} (placeholder picture)</title>
<rect width="200" height="200" fill="{ring}"/>
{_shape(kind, fill)}
<text x="100" y="96" font-family="DejaVu Sans, sans-serif" font-size="46" font-weight="700" text-anchor="middle" fill="#ffffff">{label}</text>
<text x="100" y="138" font-family="DejaVu Sans, sans-serif" font-size="30" text-anchor="middle" fill="#ffffff">{number:03d}</text>
<text x="100" y="194" font-family="DejaVu Sans, sans-serif" font-size="13" text-anchor="middle" fill="#1a1a1a">PLACEHOLDER · ZASTĘPCZY</text>
</svg>
"""
    return svg.encode("utf-8")
