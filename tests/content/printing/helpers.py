"""Small decks, symbol sets and PDF readers for the print renderer's tests.

Pictures are the demo's placeholder SVGs and Pillow-drawn PNGs in ``tmp_path``; the
names carry Polish, Czech and German letters so every render also checks the fonts.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image, ImageDraw
from pypdf import PdfReader

from content.decks import build_deck, deck_layouts
from content.demo.placeholders import placeholder_svg
from content.printing.data import GameCard, PeriodData, PlacementData, SymbolData

PERIODS = (
    PeriodData("ii-rp", "II RP", "1918–1939", "#2e6db4"),
    PeriodData("ii-wojna-swiatowa", "II wojna światowa", "1939–1945", "#b3262d"),
    PeriodData("prl", "PRL", "1944/45–1989", "#3f8a3c"),
)

NAMES = [
    "Orzeł Biały",
    "Kotwica Polski Walczącej",
    "Gęś źródlana",
    "Łódź ćma",
    "Żółw Ńśą",
    "Ćwierć ĄĘŁŃÓŚŹŻ",
    "Dvořák řůě",
    "Straße Häöü",
    "Szczerbiec",
    "Ryngraf",
    "Solidarność",
    "Gwiazda",
    "Choinka bożonarodzeniowa",
]
#: Letters that must survive the shipped font and text extraction.
LETTERS = "ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ řůě ßäöü"


def make_symbols(tmp_path: Path, count: int, *, picture: str = "svg") -> dict[str, SymbolData]:
    symbols = {}
    for i in range(1, count + 1):
        key = f"s{i:02d}"
        name = NAMES[(i - 1) % len(NAMES)]
        if i == 6:
            name = f"Znaki {LETTERS}"
        if picture == "svg":
            path = tmp_path / f"{key}.svg"
            path.write_bytes(placeholder_svg(i))
        else:
            path = tmp_path / f"{key}.png"
            image = Image.new("RGBA", (200, 200), (0, 0, 0, 0))
            ImageDraw.Draw(image).ellipse((10, 10, 190, 190), fill=(40 * (i % 6), 90, 160, 255))
            image.save(path)
        symbols[key] = SymbolData(
            key=key,
            number=i,
            name=name,
            description=f"Opis symbolu numer {i}.",
            outline=f"Rys historyczny symbolu {i}: krótka historia.",
            periods=tuple(p.slug for j, p in enumerate(PERIODS) if (i >> j) & 1) or ("prl",),
            portal_url=f"https://polska1918-89.pl/symbol/{i}",
            picture_path=str(path),
            picture_format=picture,
        )
    return symbols


def make_cards(symbols: dict[str, SymbolData], *, order: int, shape: str = "round") -> list[GameCard]:
    keys = sorted(symbols)
    deck = build_deck(keys, order=order)
    layouts = deck_layouts(deck.cards, seed=3, shape=shape)  # type: ignore[arg-type]
    return [
        GameCard(
            "ABCDEFGHIJKLMN"[i % 13],
            tuple(card),
            tuple(PlacementData(p.symbol, p.x, p.y, p.size, p.rotation) for p in layouts[i]),
        )
        for i, card in enumerate(deck.cards)
    ]


# -- reading PDFs back ---------------------------------------------------------------


def reader(pdf: bytes) -> PdfReader:
    assert pdf.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(pdf))


def flat(text: str) -> str:
    """Extracted text with every run of whitespace as one space (lines wrap anywhere)."""
    return re.sub(r"\s+", " ", text).strip()


def page_texts(pdf: bytes) -> list[str]:
    return [flat(page.extract_text()) for page in reader(pdf).pages]


CARD_ID = re.compile(r"#(\d{3})")


def card_ids(text: str) -> list[int]:
    """The tiny card ids (``#001``) printed on both faces of every card, 1-based."""
    return [int(n) for n in CARD_ID.findall(text)]


def id_positions(pdf: bytes, page: int) -> dict[int, tuple[float, float]]:
    """Where each card id is drawn on a page (PDF points from the bottom left)."""
    found: dict[int, tuple[float, float]] = {}

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        match = CARD_ID.fullmatch(text.strip())
        if match:
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            found[int(match.group(1))] = (x, y)

    reader(pdf).pages[page].extract_text(visitor_text=visit)
    return found
