"""ZnajZnak auxiliary cards (rulebook, How to Read the Cards: auxiliary card back)."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import segno
from PIL import Image

from content.printing import cards as faces
from content.printing.data import PrintOptions
from content.printing.fetcher import SafeFetcher
from content.printing.qr import MODULE_PX, qr_png, qr_png_uri, qr_svg
from content.printing.render import render_auxiliary_cards

from .helpers import card_ids, page_texts, reader


def test_back_has_name_description_outline_number_and_periods(symbols, periods) -> None:
    items = list(symbols.values())
    pdf = render_auxiliary_cards(items, periods, PrintOptions(), parallel=False)
    texts = page_texts(pdf)
    assert len(texts) == 4  # 13 cards, 9 a sheet
    assert sorted(card_ids(texts[1])) == list(range(1, 10))
    for symbol in items[:9]:
        back = texts[1]
        assert symbol.name in back
        assert symbol.description in back
        assert symbol.outline in back
        assert symbol.code in back.split()  # on the edge tab
        assert symbol.code in texts[0].split()  # and on the front's edge too
    for period in periods:
        assert f"{period.name} · {period.years}" in texts[1]
    # The front shows the picture and the number, not the name (the quiz of the teacher's notes).
    assert items[0].name not in texts[0]


def test_the_number_tab_runs_into_the_bleed(symbols, periods) -> None:
    frame = faces.aux_frame((63, 88))
    html = faces.aux_back(next(iter(symbols.values())), periods, "", frame, 3.0, "pl")
    assert "top:-3.00mm" in html  # card millimetres: 3 mm above the cut line


def test_qr_svg_encodes_the_portal_url() -> None:
    url = "https://polska1918-89.pl/symbol/42"
    svg = qr_svg(url).decode()
    assert svg.startswith("<svg") and 'viewBox="0 0' in svg and "width=" not in svg.split(">")[0]
    # Read the dark modules back from the path (segno draws each row's runs as "h" strokes).
    expected = segno.make(url, error="m", micro=False).matrix
    size = len(expected)
    commands = re.findall(
        r"([Mmh])(-?\d+(?:\.\d+)?)(?:\s(-?\d+(?:\.\d+)?))?", re.findall(r'd="(M[^"]+)"', svg)[-1]
    )
    dark = [[0] * size for _ in range(size)]
    x = y = 0.0
    for op, a, b in commands:
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            for col in range(int(x), int(x + float(a))):
                dark[int(y - 0.5) - 2][col - 2] = 1
            x += float(a)
    assert dark == [list(row) for row in expected]


def test_qr_png_holds_the_same_modules_as_the_vector_code() -> None:
    url = "https://polska1918-89.pl/symbol/42"
    expected = segno.make(url, error="m", micro=False).matrix
    size = len(expected)
    with Image.open(io.BytesIO(qr_png(url))) as image:
        assert image.mode == "L"  # drawn as it is (WeasyPrint would widen a 1-bit image to RGB)
        assert image.size == ((size + 4) * MODULE_PX,) * 2  # two modules of quiet zone a side
        centres = [
            [
                image.getpixel(((x + 2) * MODULE_PX + MODULE_PX // 2, (y + 2) * MODULE_PX + MODULE_PX // 2))
                for x in range(size)
            ]
            for y in range(size)
        ]
        assert {colour for _, colour in image.getcolors()} == {0, 255}  # sharp: no grey edges
    assert [[int(v == 0) for v in row] for row in centres] == [list(row) for row in expected]


def test_the_qr_code_is_drawn_unsmoothed(symbols, periods) -> None:
    # A few pixels a module: the PDF asks viewers and printers not to smooth them.
    pdf = render_auxiliary_cards(list(symbols.values())[:1], periods, PrintOptions(), parallel=False)
    images = [
        xobject
        for xobject in (ref.get_object() for ref in reader(pdf).pages[1]["/Resources"]["/XObject"].values())
        if xobject.get("/Subtype") == "/Image"
    ]
    qr = [image for image in images if image["/ColorSpace"] == "/DeviceGray"]
    assert len(qr) == 1 and qr[0]["/Interpolate"].value is False


def test_the_qr_code_is_embedded_and_none_without_a_url(monkeypatch, symbols, periods) -> None:
    served: list[str] = []
    original = SafeFetcher.fetch
    monkeypatch.setattr(
        SafeFetcher, "fetch", lambda self, url, h=None: served.append(url) or original(self, url, h)
    )
    with_url, without = list(symbols.values())[:2]
    without = replace(without, portal_url="")
    pdf = render_auxiliary_cards([with_url, without], periods, PrintOptions(), parallel=False)
    assert qr_png_uri(with_url.portal_url) in served
    assert sum(url.startswith("data:image/png") for url in served) == 1
    back = reader(pdf).pages[1]
    assert "Więcej o temacie" in back.extract_text()
    assert back.extract_text().count("Więcej o temacie") == 1  # the card without a URL has no QR
