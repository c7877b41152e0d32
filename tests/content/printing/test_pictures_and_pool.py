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


def _render_in_this_process() -> tuple[int, int, bool]:
    """Renders Know's cards in this process; returns the pages, the render processes
    logged and whether this process is daemonic."""
    import logging
    import multiprocessing

    from content.printing.render import render_know_cards

    found: list[int] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            timings = getattr(record, "print_timings", None)
            if timings is not None:
                found.append(len(timings["worker_cpu"].get("weasyprint", {})))

    log = logging.getLogger("content.printing.render")
    log.addHandler(Catch())
    log.setLevel(logging.INFO)
    pdf = render_know_cards(24, 48, PrintOptions())
    return len(page_texts(pdf)), found[-1], multiprocessing.current_process().daemon


def test_a_daemonic_process_renders_on_the_pool(monkeypatch) -> None:
    # A Celery prefork child is a daemonic billiard process, which may not start
    # multiprocessing children: the render pool's workers are started with subprocess.
    import billiard

    monkeypatch.setattr("content.printing.render.workers", lambda: 2)
    pool = billiard.Pool(1)
    try:
        pages, processes, daemonic = pool.apply(_render_in_this_process)
    finally:
        pool.terminate()
    assert daemonic
    assert pages >= 4
    assert processes == 2


def test_a_render_process_error_reaches_the_print(monkeypatch) -> None:
    from content.printing import pool as render_pool

    with render_pool.shared_pool(2) as (pool, _):
        future = pool.submit(int, "not a number")
        with pytest.raises(ValueError, match="not a number"):
            future.result(timeout=60)
        assert pool.submit(int, "7").result(timeout=60) == 7  # the worker lives on


def test_a_print_that_stops_early_leaves_no_work_queued_for_the_next(
    monkeypatch, cards, symbols, periods
) -> None:
    from content.printing import cards as card_faces
    from content.printing import pool as render_pool

    queued: list = []
    submit = render_pool.RenderPool.submit

    def recording(self, fn, /, *args):
        future = submit(self, fn, *args)
        queued.append(future)
        return future

    def broken_front(*args, **kwargs):
        raise RuntimeError("a card that cannot be drawn")

    monkeypatch.setattr(render_pool.RenderPool, "submit", recording)
    monkeypatch.setattr(card_faces, "game_front", broken_front)
    monkeypatch.setattr("content.printing.render.workers", lambda: 2)
    with pytest.raises(RuntimeError, match="cannot be drawn"):
        render_game_cards(cards, symbols, periods, PrintOptions())
    settled = [f for f in queued if f.cancelled() or f.running() or f.done()]
    assert queued and settled == queued  # none is left waiting in the queue


def test_a_render_process_answers_with_the_cycle_collector_off_and_turns_it_back_on() -> None:
    import gc
    import io

    from content.printing import pool as render_pool

    requests, answers = io.BytesIO(), io.BytesIO()
    render_pool._send(requests, (gc.isenabled, ()))
    render_pool._send(requests, (int, ("not a number",)))
    requests.seek(0)
    render_pool.serve(requests, answers)
    answers.seek(0)
    assert render_pool._receive(answers) == (True, False)  # off while it works
    ok, error = render_pool._receive(answers)
    assert not ok and isinstance(error, ValueError)  # a failed request too
    assert gc.isenabled()


@pytest.mark.parametrize("parallel", [True, False])
def test_a_print_logs_weasyprints_stages_within_its_time(monkeypatch, caplog, parallel) -> None:
    """Where a print's time went (read by ``bench/bench_print.py``): WeasyPrint's CPU per
    render process, split into reading the HTML, styles and layout, drawing and the PDF."""
    from content.printing.render import render_know_cards

    monkeypatch.setattr("content.printing.render.workers", lambda: 2)
    with caplog.at_level("INFO", logger="content.printing.render"):
        render_know_cards(24, 48, PrintOptions(), parallel=parallel)
    (timings,) = [r.print_timings for r in caplog.records if hasattr(r, "print_timings")]
    if parallel:
        total = timings["worker_cpu"]["weasyprint"]
        stages = {s: timings["worker_cpu"][f"weasyprint: {s}"] for s in ("parse", "layout", "pdf")}
        assert len(total) == 2
        for pid, cpu in total.items():
            parts = [stages[s][pid] for s in stages]
            assert all(part > 0 for part in parts)
            assert sum(parts) <= cpu + 1e-6
        assert "weasyprint" not in timings["parent_cpu"]
    else:
        cpu = timings["parent_cpu"]["weasyprint"]
        parts = [timings["parent_cpu"][f"weasyprint: {s}"] for s in ("parse", "layout", "pdf")]
        assert all(part > 0 for part in parts)
        assert sum(parts) <= cpu + 1e-6
        assert not timings["worker_cpu"]
