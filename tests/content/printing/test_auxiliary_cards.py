"""ZnajZnak auxiliary cards (rulebook, How to Read the Cards: auxiliary card back)."""

from __future__ import annotations

import re
from dataclasses import replace

import segno

from content.printing import cards as faces
from content.printing.data import PrintOptions
from content.printing.fetcher import SafeFetcher
from content.printing.qr import qr_data_uri, qr_svg
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


def test_the_qr_code_is_embedded_and_none_without_a_url(monkeypatch, symbols, periods) -> None:
    served: list[str] = []
    original = SafeFetcher.fetch
    monkeypatch.setattr(
        SafeFetcher, "fetch", lambda self, url, h=None: served.append(url) or original(self, url, h)
    )
    with_url, without = list(symbols.values())[:2]
    without = replace(without, portal_url="")
    pdf = render_auxiliary_cards([with_url, without], periods, PrintOptions(), parallel=False)
    assert qr_data_uri(with_url.portal_url) in served
    assert sum(url.startswith("data:image/svg+xml") and "segno" in _decode(url) for url in served) == 1
    back = reader(pdf).pages[1]
    assert "Więcej o temacie" in back.extract_text()
    assert back.extract_text().count("Więcej o temacie") == 1  # the card without a URL has no QR


def _decode(uri: str) -> str:
    import base64

    return base64.b64decode(uri.split(",", 1)[1]).decode()
