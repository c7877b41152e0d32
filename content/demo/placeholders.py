"""Placeholder pictures for the demo symbols: generated, distinct, and wordless.

The real ZnajZnak pictures belong to the IPN. A demo placeholder is an emblem made of a
shape, a colour and a pattern chosen by the symbol's number, with no letters and no
digits: a player has to learn which emblem is which symbol, as with the real pictures,
instead of reading the answer off the card.

Within the first ``len(SHAPES) * len(PATTERNS)`` numbers no two emblems share both their
shape and their pattern, and their colours step round the colour wheel by the golden
angle, so neighbours never look alike.
"""

from __future__ import annotations

import colorsys
import math

SHAPES = ("circle", "square", "diamond", "triangle", "hexagon", "star", "shield", "octagon")
PATTERNS = ("plain", "stripes", "dots", "rings", "checks", "cross", "chevrons", "grid", "half")


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


def _outline(kind: str) -> str:
    """The shape's geometry, without paint (used for the fill and as the clip)."""
    if kind == "circle":
        return '<circle cx="100" cy="100" r="82"/>'
    if kind == "square":
        return '<rect x="24" y="24" width="152" height="152" rx="14"/>'
    if kind == "shield":
        return '<path d="M100 14 L178 40 L170 118 Q150 168 100 188 Q50 168 30 118 L22 40 Z"/>'
    sides = {"diamond": 4, "triangle": 3, "hexagon": 6, "octagon": 8, "star": 5}[kind]
    rotation = -90.0 if kind != "octagon" else -67.5
    return f'<polygon points="{_polygon(sides, 88, rotation, star=kind == "star")}"/>'


def _pattern(kind: str, ink: str) -> str:
    """Marks drawn over the shape (clipped to it) in ``ink``."""
    if kind == "plain":
        return ""
    if kind == "stripes":
        return "".join(
            f'<rect x="{x}" y="0" width="10" height="200" fill="{ink}" transform="rotate(35 100 100)"/>'
            for x in range(-60, 260, 26)
        )
    if kind == "dots":
        return "".join(
            f'<circle cx="{x}" cy="{y}" r="7" fill="{ink}"/>'
            for x in range(20, 200, 30)
            for y in range(20, 200, 30)
        )
    if kind == "rings":
        return "".join(
            f'<circle cx="100" cy="100" r="{r}" fill="none" stroke="{ink}" stroke-width="8"/>'
            for r in (22, 46, 70)
        )
    if kind == "checks":
        return "".join(
            f'<rect x="{x}" y="{y}" width="25" height="25" fill="{ink}"/>'
            for x in range(0, 200, 25)
            for y in range(0, 200, 25)
            if (x + y) // 25 % 2 == 0
        )
    if kind == "cross":
        return (
            f'<rect x="84" y="0" width="32" height="200" fill="{ink}"/>'
            f'<rect x="0" y="84" width="200" height="32" fill="{ink}"/>'
        )
    if kind == "chevrons":
        return "".join(
            f'<polyline points="20,{y + 30} 100,{y} 180,{y + 30}" fill="none" stroke="{ink}" stroke-width="9"/>'
            for y in range(10, 200, 36)
        )
    if kind == "grid":
        lines = [f'<rect x="{x}" y="0" width="5" height="200" fill="{ink}"/>' for x in range(18, 200, 22)]
        lines += [f'<rect x="0" y="{y}" width="200" height="5" fill="{ink}"/>' for y in range(18, 200, 22)]
        return "".join(lines)
    if kind == "half":
        return f'<rect x="0" y="100" width="200" height="100" fill="{ink}"/>'
    raise ValueError(f"unknown pattern {kind!r}")


def emblem(number: int) -> tuple[str, str, str]:
    """The (shape, pattern, colour) of symbol ``number``'s placeholder."""
    shape = SHAPES[number % len(SHAPES)]
    pattern = PATTERNS[(number // len(SHAPES)) % len(PATTERNS)]
    return shape, pattern, _colour(number)


def placeholder_svg(number: int) -> bytes:
    """A 200×200 SVG emblem for symbol ``number``, with no text of any kind.

    >>> b"<text" in placeholder_svg(7), placeholder_svg(7) == placeholder_svg(7)
    (False, True)
    """
    shape, pattern, fill = emblem(number)
    background = _colour(number * 7 + 3, lightness=0.88, saturation=0.45)
    ink = _colour(number * 3 + 1, lightness=0.82, saturation=0.55)
    outline = _outline(shape)
    paint = outline.replace("/>", f' fill="{fill}"/>', 1)
    border = outline.replace("/>", ' fill="none" stroke="#1a1a1a" stroke-width="4"/>', 1)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="200" height="200">'
        f'<defs><clipPath id="c">{outline}</clipPath></defs>'
        f'<rect width="200" height="200" fill="{background}"/>'
        f"{paint}"
        f'<g clip-path="url(#c)" opacity="0.85">{_pattern(pattern, ink)}</g>'
        f"{border}"
        "</svg>\n"
    )
    return svg.encode("utf-8")
