"""Imposition: cards per sheet on A4 and Letter, mirrored backs, page order, options."""

from __future__ import annotations

import pytest

from content.printing.data import PrintError, PrintOptions
from content.printing.sheets import MARGIN_MM, chunk, grid_for, page_order


@pytest.mark.parametrize(
    ("paper", "card", "bleed", "per_sheet"),
    [
        ((210.0, 297.0), (90.0, 90.0), 0, 6),  # A4: 2 × 3 game cards
        ((215.9, 279.4), (90.0, 90.0), 0, 6),  # Letter: 2 × 3 (4.7 mm margins)
        ((210.0, 297.0), (95.0, 95.0), 0, 6),  # A4 still takes 3 rows of 95 mm
        ((215.9, 279.4), (95.0, 95.0), 0, 4),  # Letter does not
        ((210.0, 297.0), (90.0, 90.0), 3, 6),  # 96 mm cells fit A4 3 × ...
        ((215.9, 279.4), (90.0, 90.0), 3, 4),  # ... but not Letter
        ((210.0, 297.0), (63.0, 88.0), 0, 9),  # poker-size cards, 3 × 3
        ((215.9, 279.4), (63.0, 88.0), 0, 9),
    ],
)
def test_cards_per_sheet(paper, card, bleed, per_sheet) -> None:
    grid = grid_for(paper, card, bleed)
    assert grid.per_sheet == per_sheet
    # The grid stays inside the printable area and is centred horizontally.
    assert grid.x0 >= MARGIN_MM - 1e-9 and grid.y0 >= MARGIN_MM - 1e-9
    assert grid.x0 + grid.cols * grid.cell_w == pytest.approx(paper[0] - grid.x0)


def test_a_card_too_big_for_the_paper_is_refused() -> None:
    with pytest.raises(PrintError, match="does not fit"):
        grid_for((215.9, 279.4), (210.0, 210.0), 0)


def test_backs_mirror_each_row_so_a_long_edge_flip_aligns_them() -> None:
    grid = grid_for((210.0, 297.0), (63.0, 88.0), 2)
    for slot in range(grid.per_sheet):
        fx, fy = grid.cell(slot, "front")
        bx, by = grid.cell(slot, "back")
        assert by == fy
        # Turned over the long (vertical) edge, x becomes page_w - x - cell_w.
        assert bx == pytest.approx(grid.page_w - fx - grid.cell_w)


def test_long_edge_alternates_fronts_and_backs_separate_groups_them() -> None:
    grid = grid_for((210.0, 297.0), (90.0, 90.0), 0)
    long_edge = page_order(13, grid, "long_edge")
    assert [(p.sheet, p.side) for p in long_edge] == [
        (0, "front"),
        (0, "back"),
        (1, "front"),
        (1, "back"),
        (2, "front"),
        (2, "back"),
    ]
    assert [p.count for p in long_edge] == [6, 6, 6, 6, 1, 1]
    separate = page_order(13, grid, "separate")
    assert [(p.sheet, p.side) for p in separate] == [
        (0, "front"),
        (1, "front"),
        (2, "front"),
        (0, "back"),
        (1, "back"),
        (2, "back"),
    ]
    assert [p.first for p in separate] == [0, 6, 12, 0, 6, 12]


def test_cut_marks_stay_in_the_margin_and_follow_every_trim_line() -> None:
    grid = grid_for((210.0, 297.0), (63.0, 88.0), 3)
    marks = grid.cut_marks()
    right = grid.x0 + grid.cols * grid.cell_w
    bottom = grid.y0 + grid.rows * grid.cell_h
    vertical = {round(left, 3) for left, top, width, height in marks if width == 0}
    # Two trim lines per column (the bleed separates neighbours' cuts).
    assert len(vertical) == 2 * grid.cols
    for left, top, width, height in marks:
        assert left >= 0 and left + width <= grid.page_w and top >= 0 and top + height <= grid.page_h
        inside_x = grid.x0 < left + width and left < right
        inside_y = grid.y0 < top + height and top < bottom
        assert not (inside_x and inside_y), "a cut mark on a card"


def test_chunks_are_contiguous_and_even() -> None:
    assert chunk(list(range(7)), 2) == [[0, 1, 2, 3], [4, 5, 6]]
    assert chunk([1], 4) == [[1]]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("paper", "A3", "Unknown paper"),
        ("bleed_mm", 6, "Bleed must be 0 to 5"),
        ("bleed_mm", -1, "Bleed must be 0 to 5"),
        ("shape", "hexagon", "Unknown card shape"),
        ("duplex", "short_edge", "Unknown duplex"),
        ("language", "fr", "Cards print in"),
        ("card_mm", 10, "30 to 200"),
        ("auxiliary_mm", (10, 88), "at least 20"),
    ],
)
def test_options_refuse_what_cannot_print(field, value, message) -> None:
    with pytest.raises(PrintError, match=message):
        PrintOptions(**{field: value})
