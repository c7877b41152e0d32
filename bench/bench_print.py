"""Benchmark: the full ZnajZnak print set (issue: print renderer speed).

133 symbols, the order-11 deck printing 132 game cards (``build_deck(...,
cards_to_print=132)``, ``deck_layouts``), and 133 auxiliary cards, both sides, on A4:

(a) Talia's renderer (``content.printing.render``): game cards and auxiliary cards,
    first call in a fresh process (cold: the fork server starts) and again (warm);
(b) the straightforward baseline: the same cards as ONE WeasyPrint document in one
    process, the pictures as ``<img>`` of the original files (no rasterising);
(c) ReportLab drawing the 132 game-card fronts, against Talia's fronts alone.

Two sets of pictures: 133 distinct placeholder SVGs (``content.demo.placeholders``,
sanitised like uploads) and 133 distinct 600 × 600 PNGs drawn with Pillow.  Peak
memory is the largest sum of the resident set sizes of this process and all its
descendants (the pool), sampled from /proc every 20 ms; CPU seconds are summed the
same way (approximate: a worker's last 20 ms can be missed).  The machine may be
shared: the load average is printed, and wall times are the best of the runs.

Targets (issue): full set < 6 s, peak < 1 GB, ≥ 3× faster than (b).

Run: ``.venv/bin/python bench/bench_print.py`` (about 1–2 minutes).
Top-level imports stay light: the pool's workers import this module.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TARGET_SECONDS = 6.0
TARGET_RSS_MB = 1024
TARGET_RATIO = 3.0


class ProcessTreeSampler:
    """Peak RSS (sum over this process and its descendants) and CPU seconds, from /proc."""

    def __init__(self, interval: float = 0.02) -> None:
        self.interval = interval
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.root = os.getpid()
        self.peak = 0
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self) -> dict[int, tuple[int, int, float]]:
        stats = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            ppid, utime, stime, rss = int(fields[1]), int(fields[11]), int(fields[12]), int(fields[21])
            stats[int(name)] = (ppid, rss * self.page, (utime + stime) / self.ticks)
        return stats

    def sample(self) -> None:
        stats = self._tree()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in stats.items():
            children.setdefault(ppid, []).append(pid)
        total, todo = 0, [self.root]
        while todo:
            pid = todo.pop()
            if pid in stats:
                total += stats[pid][1]
                self.cpu[pid] = stats[pid][2]
            todo.extend(children.get(pid, ()))
        self.peak = max(self.peak, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            time.sleep(self.interval)

    def __enter__(self) -> ProcessTreeSampler:
        self.start_cpu = dict(self._snapshot_cpu())
        self.peak = 0
        self.cpu = {}
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _snapshot_cpu(self) -> dict[int, float]:
        self.cpu = {}
        self.sample()
        return self.cpu

    def __exit__(self, *exc: object) -> None:
        self.sample()
        self._stop.set()
        self._thread.join()

    @property
    def cpu_seconds(self) -> float:
        return sum(value - self.start_cpu.get(pid, 0.0) for pid, value in self.cpu.items())


class TimingsHandler(logging.Handler):
    """Collects the per-phase CPU seconds that ``content.printing.render`` logs per print."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[dict] = []  # type: ignore[type-arg]

    def emit(self, record: logging.LogRecord) -> None:
        timings = getattr(record, "print_timings", None)
        if timings is not None:
            self.records.append(timings)


def critical_path(timings: dict) -> float:  # type: ignore[type-arg]
    """CPU seconds on the critical path of one print on an idle machine: this process's
    serial work, plus for each pooled phase its share per worker (the HTML is written
    here while the pool prepares the pictures, so that phase counts the longer one)."""
    parent, pooled = timings["parent_cpu"], timings["worker_cpu"]

    def busiest(name: str) -> float:
        return max(pooled.get(name, {0: 0.0}).values())

    pictures = pooled.get("pictures", {})
    # Pictures go out in small batches, so on an idle machine the workers share them evenly.
    balanced = sum(pictures.values()) / max(1, len(pictures)) if pictures else 0.0
    prepare = max(parent.get("pages", 0.0), balanced) + parent.get("pictures", 0.0)
    render = busiest("weasyprint") + parent.get("weasyprint", 0.0)
    return prepare + render + parent.get("assemble", 0.0) + parent.get("merge", 0.0)


def measure(label: str, func, sampler: ProcessTreeSampler, handler: TimingsHandler):  # type: ignore[no-untyped-def]
    handler.records.clear()
    with sampler:
        start = time.perf_counter()
        result = func()
        wall = time.perf_counter() - start
    estimate = sum(critical_path(t) for t in handler.records)
    return result, wall, sampler.peak / 2**20, sampler.cpu_seconds, estimate


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    for name in ("weasyprint", "weasyprint.progress", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    handler = TimingsHandler()
    render_logger = logging.getLogger("content.printing.render")
    render_logger.setLevel(logging.DEBUG)
    render_logger.addHandler(handler)
    render_logger.propagate = False

    import io
    import json
    import math
    import random
    import tempfile
    from contextlib import ExitStack

    from PIL import Image, ImageDraw, ImageFont
    from pypdf import PdfReader

    from content.decks import build_deck, deck_layouts, default_labels, round_robin_sets
    from content.demo.placeholders import placeholder_svg
    from content.pictures import sanitise_svg
    from content.printing import cards as faces
    from content.printing import pictures as picture_module
    from content.printing import render
    from content.printing.data import GameCard, PeriodData, PlacementData, PrintOptions, SymbolData
    from content.printing.worker import render_pdf

    sampler = ProcessTreeSampler()
    load_before = os.getloadavg()
    print(
        f"Print benchmark: {os.cpu_count()} cores, load average {load_before[0]:.2f} "
        f"(1 min) before the run; the targets assume an otherwise idle machine."
    )

    # -- the deck ------------------------------------------------------------------
    keys = [f"sym-{i:03d}" for i in range(1, 134)]
    deck = build_deck(keys, cards_to_print=132)
    layouts = deck_layouts(deck.cards, seed=0)
    sets = round_robin_sets(deck.cards, default_labels(13))
    label_of = {card: cs.label for cs in sets for card in cs.cards}
    cards = [
        GameCard(
            label_of[i],
            tuple(card),
            tuple(PlacementData(p.symbol, p.x, p.y, p.size, p.rotation) for p in layouts[i]),
        )
        for i, card in enumerate(deck.cards)
    ]
    periods = [
        PeriodData("ii-rp", "II RP", "1918–1939", "#2e6db4"),
        PeriodData("ii-wojna-swiatowa", "II wojna światowa", "1939–1945", "#b3262d"),
        PeriodData("prl", "PRL", "1944/45–1989", "#3f8a3c"),
    ]
    demo = json.loads((ROOT / "content/demo/data/symbols.json").read_text())
    print(
        f"Deck: order {deck.order}, {len(cards)} game cards of {deck.symbols_per_card} symbols, "
        f"{len(keys)} symbols; texts from the demo symbols."
    )

    work = Path(tempfile.mkdtemp(prefix="talia-bench-print-"))
    import atexit
    import shutil

    atexit.register(shutil.rmtree, work, True)

    def symbols_for(kind: str) -> dict[str, SymbolData]:
        out = {}
        rng = random.Random(7)
        for i, key in enumerate(keys, start=1):
            source = demo[(i - 1) % len(demo)]
            name = source["name"] if i <= len(demo) else f"{source['name']} ({i})"
            if kind == "svg":
                path = work / f"{key}.svg"
                if not path.exists():
                    path.write_bytes(sanitise_svg(placeholder_svg(i)))
            else:
                path = work / f"{key}.png"
                if not path.exists():
                    draw_png(path, i, rng, name)
            out[key] = SymbolData(
                key=key,
                number=i,
                name=name,
                description=source["description"],
                outline=source["outline"],
                periods=tuple(source["periods"]),
                portal_url=f"https://polska1918-89.pl/symbol/{i}",
                picture_path=str(path),
                picture_format=kind,
            )
        return out

    def draw_png(path: Path, i: int, rng: random.Random, name: str) -> None:
        image = Image.new("RGBA", (600, 600), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        hue = (i * 0.618) % 1.0
        colour = tuple(int(255 * (0.35 + 0.5 * abs(math.sin(6.28 * (hue + k / 3))))) for k in range(3))
        sides = 3 + i % 6
        points = [
            (
                300 + 270 * math.cos(2 * math.pi * k / sides + i),
                300 + 270 * math.sin(2 * math.pi * k / sides + i),
            )
            for k in range(sides)
        ]
        draw.polygon(points, fill=colour + (255,), outline=(20, 20, 20, 255), width=8)
        for _ in range(12):  # texture, so the PNGs compress like pictures rather than flat art
            x, y, r = rng.randrange(150, 450), rng.randrange(150, 450), rng.randrange(10, 60)
            draw.ellipse(
                (x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)) + (200,)
            )
        font = ImageFont.truetype(str(ROOT / "content/printing/fonts/DejaVuSans-Bold.ttf"), 110)
        draw.text(
            (300, 300),
            f"{i:03d}",
            fill=(255, 255, 255, 255),
            font=font,
            anchor="mm",
            stroke_width=6,
            stroke_fill=(0, 0, 0, 255),
        )
        image.save(path)

    options = PrintOptions(paper="A4")

    from django.conf import settings

    def fresh_cache() -> None:
        """A new, empty picture cache: every measured print prepares its pictures."""
        settings.PRINT_PICTURE_CACHE = tempfile.mkdtemp(prefix="cache-", dir=work)

    def talia(symbols: dict[str, SymbolData], cold: bool = True) -> tuple[bytes, bytes]:
        if cold:
            fresh_cache()
        game = render.render_game_cards(cards, symbols, periods, options)
        aux = render.render_auxiliary_cards([symbols[k] for k in keys], periods, options)
        return game, aux

    def pages(*pdfs: bytes) -> int:
        return sum(len(PdfReader(io.BytesIO(pdf)).pages) for pdf in pdfs)

    def baseline(symbols: dict[str, SymbolData]) -> bytes:
        """One document, one process, the original pictures as <img> (nothing rasterised)."""
        saved = picture_module.svg_surface
        picture_module.svg_surface = None  # SVG pictures are drawn as they are
        try:
            with ExitStack() as stack:
                out_dir = stack.enter_context(tempfile.TemporaryDirectory())
                tracker = render._Tracker(0, None)
                game = render._GamePrint(cards, symbols, periods, options).document(None, tracker, out_dir)
                aux = render._AuxiliaryPrint([symbols[k] for k in keys], periods, options).document(
                    None, tracker, out_dir
                )
                html = faces.document_html(
                    game.pages + aux.pages, paper=options.paper_mm, title="baseline", language="pl"
                )
                policy = render.FetchPolicy(
                    game.policy.roots,
                    game.policy.files | aux.policy.files,
                    game.policy.data | aux.policy.data,
                )
                return render_pdf(html, render.HERE.as_uri() + "/", policy)
        finally:
            picture_module.svg_surface = saved

    def talia_fronts(symbols: dict[str, SymbolData]) -> bytes:
        fresh_cache()
        job = render._GamePrint(cards, symbols, periods, options)
        return render._run(
            lambda pool, tracker, out: job.document(pool, tracker, out, backs=False),
            job.steps(backs=False),
            options,
            None,
            True,
        )

    def reportlab_fronts(symbols: dict[str, SymbolData]) -> bytes:
        from reportlab.lib.pagesizes import A4
        from reportlab.lib.units import mm
        from reportlab.pdfgen import canvas

        from content.printing.sheets import grid_for

        grid = grid_for(options.paper_mm, (options.card_mm, options.card_mm), 0)
        out = io.BytesIO()
        pdf = canvas.Canvas(out, pagesize=A4)
        size = options.card_mm
        for index, card in enumerate(cards):
            slot = index % grid.per_sheet
            if index and slot == 0:
                pdf.showPage()
            x, y = grid.cell(slot, "front")
            left, top = x * mm, (grid.page_h - y) * mm
            pdf.setLineWidth(1.0 * mm)
            pdf.setStrokeColorRGB(0.14, 0.22, 0.36)
            pdf.circle(left + size / 2 * mm, top - size / 2 * mm, (size / 2 - 0.5) * mm)
            for p in card.placements:
                side = p.size * size / math.sqrt(2) * mm
                pdf.saveState()
                pdf.translate(left + p.x * size * mm, top - p.y * size * mm)
                pdf.rotate(-p.rotation)
                pdf.drawImage(symbols[p.key].picture_path, -side / 2, -side / 2, side, side, mask="auto")
                pdf.restoreState()
        pdf.showPage()
        pdf.save()
        return out.getvalue()

    results: dict[str, float] = {}

    def line(
        label: str, wall: float, cpu: float, rss: float, estimate: float | None = None, extra: str = ""
    ) -> None:
        idle = f", {estimate:5.2f} s idle estimate" if estimate is not None else ""
        print(f"{label:<44} {wall:6.2f} s wall{idle}, {cpu:5.1f} CPU-s, peak {rss:4.0f} MB{extra}")

    # -- SVG pictures ---------------------------------------------------------------
    svg_symbols = symbols_for("svg")
    print("\n== 133 placeholder SVG pictures ==")
    (game, aux), wall, rss, cpu, est = measure("cold", lambda: talia(svg_symbols), sampler, handler)
    line(
        "(a) Talia, first print (fork server starts)",
        wall,
        cpu,
        rss,
        est,
        f"; {pages(game, aux)} pages ({pages(game)} game + {pages(aux)} auxiliary), "
        f"{(len(game) + len(aux)) / 2**20:.1f} MB of PDF",
    )
    runs = [measure("warm", lambda: talia(svg_symbols), sampler, handler) for _ in range(2)]
    _, wall, rss, cpu, est = min(runs, key=lambda r: r[1])
    results["talia_svg"], results["talia_svg_idle"] = wall, min(r[4] for r in runs)
    results["rss_svg"] = max(r[2] for r in runs)
    line("(a) Talia, again (best of 2)", wall, cpu, results["rss_svg"], results["talia_svg_idle"])
    _, wall, rss, cpu, est = measure("cached", lambda: talia(svg_symbols, cold=False), sampler, handler)
    line("(a) Talia, pictures already prepared", wall, cpu, rss, est)
    pdf, wall, rss, cpu, _ = measure("baseline", lambda: baseline(svg_symbols), sampler, handler)
    results["baseline_svg"], results["baseline_svg_cpu"] = wall, cpu
    line("(b) one WeasyPrint document, SVG <img>", wall, cpu, rss, cpu, f"; {pages(pdf)} pages")
    print(
        f"    (a) over (b): {results['baseline_svg'] / results['talia_svg']:.1f}× measured, "
        f"{results['baseline_svg_cpu'] / results['talia_svg_idle']:.1f}× idle estimate"
    )

    # -- PNG pictures ------------------------------------------------------------------
    png_symbols = symbols_for("png")
    print("\n== 133 distinct 600 × 600 PNG pictures ==")
    runs = [measure("png", lambda: talia(png_symbols), sampler, handler) for _ in range(2)]
    (game, aux), wall, rss, cpu, est = min(runs, key=lambda r: r[1])
    results["talia_png"], results["talia_png_idle"] = wall, min(r[4] for r in runs)
    results["rss_png"] = max(r[2] for r in runs)
    line(
        "(a) Talia (best of 2)",
        wall,
        cpu,
        results["rss_png"],
        results["talia_png_idle"],
        f"; {pages(game, aux)} pages, {(len(game) + len(aux)) / 2**20:.1f} MB of PDF",
    )
    fronts = [measure("fronts", lambda: talia_fronts(png_symbols), sampler, handler) for _ in range(2)]
    pdf, w_fronts, rss, cpu, est_fronts = min(fronts, key=lambda r: r[1])
    line("(c) Talia, the 132 game-card fronts alone", w_fronts, cpu, rss, est_fronts, f"; {pages(pdf)} pages")
    rl = [measure("reportlab", lambda: reportlab_fronts(png_symbols), sampler, handler) for _ in range(2)]
    pdf, w_rl, rss, cpu, _ = min(rl, key=lambda r: r[1])
    line("(c) ReportLab, the same fronts", w_rl, cpu, rss, cpu, f"; {pages(pdf)} pages, one process")
    print(
        f"    WeasyPrint (Talia) ÷ ReportLab: {w_fronts / w_rl:.1f}× measured, "
        f"{est_fronts / cpu:.1f}× idle estimate"
    )

    load_after = os.getloadavg()
    print(
        f"\nLoad average after the run: {load_after[0]:.2f} (1 min).  'idle estimate': CPU seconds on the "
        "critical path (this process's serial work + each pooled phase's busiest worker, or for the "
        "pictures their even share), i.e. the "
        "wall time on an otherwise idle 2-core machine."
    )
    print("\nAgainst the issue's targets:")
    for name, key in (("SVG pictures", "svg"), ("PNG pictures", "png")):
        measured, idle = results[f"talia_{key}"], results[f"talia_{key}_idle"]
        print(
            f"  full set, {name}: {measured:.2f} s measured, {idle:.2f} s idle estimate "
            f"(target < {TARGET_SECONDS:g} s): {'met' if idle < TARGET_SECONDS else 'MISSED'}"
            f"{'' if measured < TARGET_SECONDS else ' (not in the measured wall time)'}"
        )
        rss_mb = results[f"rss_{key}"]
        print(
            f"  peak memory, {name}: {rss_mb:.0f} MB (target < {TARGET_RSS_MB} MB): "
            f"{'met' if rss_mb < TARGET_RSS_MB else 'MISSED'}"
        )
    ratio = results["baseline_svg"] / results["talia_svg"]
    idle_ratio = results["baseline_svg_cpu"] / results["talia_svg_idle"]
    verdict = "met" if idle_ratio >= TARGET_RATIO else "MISSED"
    print(
        f"  speed-up over one straightforward document: {ratio:.1f}× measured, "
        f"{idle_ratio:.1f}× idle estimate (target ≥ {TARGET_RATIO:g}×): {verdict}"
    )


if __name__ == "__main__":
    main()
