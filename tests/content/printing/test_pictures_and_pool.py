"""Pictures prepared once per print; the process pool; progress; what WeasyPrint is given."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from content.printing import cards as faces
from content.printing import pictures, worker
from content.printing.data import PrintOptions
from content.printing.pictures import PictureJob, predict, prepare_picture
from content.printing.render import render_game_cards
from content.printing.sheets import grid_for

from .helpers import page_texts


def job(path: Path, tmp_path: Path, fmt: str = "", **extra) -> PictureJob:
    return PictureJob("k", str(path), fmt, 300, str(tmp_path), **extra)


def test_a_round_emblem_fills_its_circle_and_a_square_picture_fits_inside_it(tmp_path: Path) -> None:
    round_ = tmp_path / "round.png"
    image = Image.new("RGBA", (400, 400), (0, 0, 0, 0))
    ImageDraw.Draw(image).ellipse((0, 0, 399, 399), fill=(200, 0, 0, 255))
    image.save(round_)
    square = tmp_path / "square.jpg"
    Image.new("RGB", (400, 400), (0, 0, 200)).save(square)

    prepared = prepare_picture(job(round_, tmp_path))
    with Image.open(prepared.path) as out:
        assert prepared.kind == "raster" and out.format == "JPEG"
        assert abs(out.width - 300) <= 8  # the circle is the picture: drawn at full size
        assert out.getpixel((out.width // 2, 4))[0] > 150  # red reaches the top edge
    prepared = prepare_picture(job(square, tmp_path))
    with Image.open(prepared.path) as out:
        side = out.width
        assert out.getpixel((2, 2)) == pytest.approx((255, 255, 255), abs=8)  # white beyond the corners
        inner = round(side * (1 - 2**-0.5) / 2) + 3
        assert out.getpixel((inner, inner))[2] > 150  # the square's corner touches the circle


def test_svg_is_rasterised_once_and_named_by_its_content(tmp_path: Path, symbols) -> None:
    symbol = next(iter(symbols.values()))
    svg_job = job(Path(symbol.picture_path), tmp_path, "svg", strip=("#2e6db4", "", "#3f8a3c"), mini_px=80)
    first = prepare_picture(svg_job)
    assert first.kind == ("raster" if pictures.can_rasterise_svg() else "original")
    assert (first.kind, first.path, first.mini) == (
        predict(svg_job).kind,
        predict(svg_job).path,
        predict(svg_job).mini,
    )
    with Image.open(first.mini) as mini:
        assert mini.height == 80 and mini.width > 80  # the circle, then the period fields
    again = prepare_picture(svg_job)
    assert again == first  # the same file, not prepared twice


def test_missing_and_broken_pictures_print_an_empty_circle(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG not really")
    assert prepare_picture(job(tmp_path / "gone.png", tmp_path)).kind == "missing"
    result = prepare_picture(job(broken, tmp_path, "png"))
    assert result.kind == "missing" and "unreadable" in result.message
    assert faces.picture(result, 10, 10, 8)["src"] == ""


def test_the_card_user_agent_stylesheet_drops_only_the_six_unused_pseudo_element_rules() -> None:
    # If a WeasyPrint upgrade changes these rules, this fails and the renderer falls back
    # to WeasyPrint's own stylesheet (slower, same look).
    assert worker._REMOVED == 6
    assert "::marker" not in worker._CARD_UA and "::footnote-call" not in worker._CARD_UA
    assert worker._CARD_UA.count("{") == worker.UA.count("{") - 6


def test_cut_marks_are_one_image_on_fronts_only(cards, symbols) -> None:
    grid = grid_for((210.0, 297.0), (90.0, 90.0), 0)
    frame = faces.game_frame(90, "round")
    from content.printing.sheets import page_order

    front, back = page_order(2, grid, "long_edge")
    html = faces.sheet_html(grid, front, frame, lambda i: faces.SafeString(""), cut_marks=True)
    assert html.count('class="marks"') == 1
    assert 'class="marks"' not in faces.sheet_html(
        grid, back, frame, lambda i: faces.SafeString(""), cut_marks=True
    )
    assert 'class="marks"' not in faces.sheet_html(
        grid, front, frame, lambda i: faces.SafeString(""), cut_marks=False
    )


def test_parallel_rendering_matches_serial_and_reports_progress(cards, symbols, periods) -> None:
    calls: list[tuple[int, int]] = []
    parallel = render_game_cards(cards, symbols, periods, PrintOptions(), lambda d, t: calls.append((d, t)))
    serial = render_game_cards(cards, symbols, periods, PrintOptions(), parallel=False)
    assert page_texts(parallel) == page_texts(serial)
    total = calls[0][1]
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert total == len(symbols) + 6  # one step per picture, one per page
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_a_daemonic_process_renders_alone(monkeypatch, caplog, cards, symbols, periods) -> None:
    # A Celery prefork child is daemonic and may not start processes: print anyway.
    from types import SimpleNamespace

    from content.printing import render

    monkeypatch.setattr(render.multiprocessing, "current_process", lambda: SimpleNamespace(daemon=True))
    with caplog.at_level("INFO", logger="content.printing.render"):
        pdf = render_game_cards(cards[:2], symbols, periods, PrintOptions())
    assert len(page_texts(pdf)) == 2
    assert "daemonic" in caplog.text
