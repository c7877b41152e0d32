"""ZnajZnak game cards (rulebook, How to Read the Cards: game card back)."""

from __future__ import annotations

import pytest

from content.printing.data import PrintOptions
from content.printing.render import render_game_cards

from .helpers import LETTERS, card_ids, id_positions, page_texts, reader

A4 = PrintOptions(paper="A4")


@pytest.fixture
def pdf(cards, symbols, periods) -> bytes:
    return render_game_cards(cards, symbols, periods, A4, parallel=False)


def test_each_back_names_every_symbol_of_its_card_with_its_number(pdf, cards, symbols) -> None:
    texts = page_texts(pdf)
    backs = texts[1::2]  # long_edge: front, back, front, back, ...
    for index, card in enumerate(cards):
        back = backs[index // 6]
        assert index + 1 in card_ids(back)
        for key in card.symbols:
            symbol = symbols[key]
            assert symbol.name in back, (index, symbol.name)
            assert f"{symbol.code} {symbol.name}" in back
            assert symbol.description in back


def test_the_back_shows_the_set_letter_and_the_periods_as_text(pdf, cards, periods) -> None:
    back = page_texts(pdf)[1]
    for card in cards[:6]:
        assert card.label in back.split()
    for period in periods:
        assert f"{period.name} {period.years}" in back


def test_a4_holds_six_cards_a_side_and_fronts_pair_with_backs(pdf, cards) -> None:
    texts = page_texts(pdf)
    assert len(texts) == 6  # 13 cards: 3 sheets, both sides
    for sheet in range(3):
        front, back = texts[2 * sheet], texts[2 * sheet + 1]
        expected = list(range(6 * sheet + 1, min(6 * sheet + 6, 13) + 1))
        assert sorted(card_ids(front)) == expected
        assert sorted(card_ids(back)) == expected
    # Fronts show pictures only: no symbol names.
    assert "Orzeł Biały" not in texts[0]


def test_long_edge_backs_are_mirrored_per_row(pdf) -> None:
    front, back = id_positions(pdf, 0), id_positions(pdf, 1)
    width = float(reader(pdf).pages[0].mediabox.width)
    assert sorted(front) == sorted(back) == [1, 2, 3, 4, 5, 6]
    for card, (_, y) in front.items():
        assert back[card][1] == pytest.approx(y, abs=0.5)  # same row
    # Card 1 is top left on the front, top right on the back (and card 2 the reverse).
    assert front[1][0] < width / 2 < front[2][0]
    assert back[2][0] < width / 2 < back[1][0]
    # Mirrored: the id, always at its cell's right, sits a cell width further left.
    assert back[1][0] - front[2][0] == pytest.approx(back[2][0] - front[1][0], abs=0.5)


def test_separate_prints_all_fronts_then_all_backs_in_the_same_order(cards, symbols, periods) -> None:
    pdf = render_game_cards(cards, symbols, periods, PrintOptions(duplex="separate"), parallel=False)
    texts = page_texts(pdf)
    assert [sorted(card_ids(t)) for t in texts[:3]] == [sorted(card_ids(t)) for t in texts[3:]]
    assert all("Opis symbolu" not in t for t in texts[:3])
    assert all("Opis symbolu" in t for t in texts[3:])


def test_letter_with_bleed_holds_four_cards_a_side(cards, symbols, periods) -> None:
    options = PrintOptions(paper="Letter", bleed_mm=3, cut_marks=False)
    pdf = render_game_cards(cards, symbols, periods, options, parallel=False)
    pages = reader(pdf).pages
    assert len(pages) == 8  # 13 cards, 4 a sheet: 4 sheets
    assert float(pages[0].mediabox.width) == pytest.approx(612, abs=0.5)  # 8.5 in
    assert float(pages[0].mediabox.height) == pytest.approx(792, abs=0.5)  # 11 in
    assert sorted(card_ids(page_texts(pdf)[1])) == [1, 2, 3, 4]


def test_polish_czech_and_german_letters_survive_in_the_shipped_font(pdf) -> None:
    texts = " ".join(page_texts(pdf))
    assert f"Znaki {LETTERS}" in texts
    fonts = set()
    for page in reader(pdf).pages:
        for font in page["/Resources"]["/Font"].values():
            fonts.add(str(font.get_object()["/BaseFont"]))
    # Only the @font-face family of content/printing/fonts is embedded (a system font
    # would appear under its own name, e.g. DejaVuSans).
    assert fonts and all(name.endswith(("+Talia-Print-Sans", "+Talia-Print-Sans-Bold")) for name in fonts), (
        fonts
    )


def test_square_cards_print_too(symbols, periods) -> None:
    from .helpers import make_cards

    cards = make_cards(symbols, order=3, shape="square")
    pdf = render_game_cards(cards[:4], symbols, periods, PrintOptions(shape="square"), parallel=False)
    texts = page_texts(pdf)
    assert len(texts) == 2
    assert all(symbols[key].name in texts[1] for card in cards[:4] for key in card.symbols)


def test_cards_without_placements_are_laid_out(cards, symbols, periods) -> None:
    from content.printing.data import GameCard

    bare = [GameCard(card.label, card.symbols) for card in cards[:2]]
    texts = page_texts(render_game_cards(bare, symbols, periods, A4, parallel=False))
    assert sorted(card_ids(texts[0])) == [1, 2]
