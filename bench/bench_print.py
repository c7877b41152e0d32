"""Benchmark: the full ZnajZnak print set, printed as the Celery worker prints it.

133 symbols, the order-11 deck printing 132 game cards (``build_deck(...,
cards_to_print=132)``, ``deck_layouts``), and 133 auxiliary cards, both sides, on A4; and
the 57-symbol set (order 7: 57 game cards, 57 auxiliary cards):

(a) Talia's renderer (``content.printing.render``) run in a daemonic billiard pool process,
    the kind of process in which ``celery -A config worker`` (prefork, the documented worker)
    runs a task: its render pool (``content.printing.pool``) is started there. The first
    print in that process is **cold** (the render processes start and import WeasyPrint);
    the next ones are **warm** (the pool is up). Every print but the last line's prepares
    its pictures anew (an empty picture cache). The task's own database work (reading the
    deck, storing the files) is not part of the figure;
(b) the straightforward baseline, measured in the same run: the same cards as ONE
    WeasyPrint document in one process, the pictures as ``<img>`` of the original files
    (for the 133 PNGs it is also reported, not judged, with Talia's prepared pictures);
(c) the stretch figure: Talia's 132 game-card fronts against ReportLab drawing them.

Two sets of pictures: 133 distinct placeholder SVGs (``content.demo.placeholders``,
sanitised like uploads) and 133 distinct 600 × 600 PNGs drawn with Pillow. Peak memory is
the largest sum of the resident set sizes of this process and all its descendants (the
worker process and its render processes), sampled from /proc every 20 ms; CPU seconds
are summed the same way (approximate: a process's last 20 ms can be missed). WeasyPrint's
CPU, Talia's and the baseline's, is split into its three stages (reading the HTML, styles
and layout, drawing and writing the PDF: ``content.printing.worker.render_chunk``). Wall times
are measured around each print; warm figures are the best of ``--runs`` with the median
beside it. The load average is printed before and after.

Targets (issue), judged on measured wall time: full set warm < 6 s (SVG and PNG); peak
< 1 GB; ≥ 3× faster than (b) for SVG and PNG; the 57-symbol set ≥ 2× faster than its (b).
Stretch (reported, not judged): Talia's fronts ÷ ReportLab ≤ 1.0. Exit status 1 when a
target is missed.

Run: ``.venv/bin/python bench/bench_print.py`` (2–4 minutes).
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from results import load_average, record

ROOT = Path(__file__).resolve().parent.parent

TARGET_SECONDS = 6.0
TARGET_RSS_MB = 1024
TARGET_RATIO = 3.0
TARGET_RATIO_57 = 2.0
STRETCH_REPORTLAB = 1.0

#: What a print in the worker process renders, filled in before the worker process is forked.
PRINTS: dict[str, Callable[[], tuple[int, int]]] = {}
#: WeasyPrint's stages in the last one-document baseline (CPU seconds).
BASELINE_STAGES: dict[str, float] = {}


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
        super().__init__(logging.INFO)
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        timings = getattr(record, "print_timings", None)
        if timings is not None:
            self.records.append(timings)


TIMINGS = TimingsHandler()


def in_worker(name: str, cache: str) -> dict[str, Any]:
    """Runs in the worker process: one print of ``PRINTS[name]`` with ``cache`` as the
    picture cache; what it made and where its time went."""
    import multiprocessing

    from django.conf import settings

    settings.PRINT_PICTURE_CACHE = cache
    TIMINGS.records.clear()
    pages, size = PRINTS[name]()
    return {
        "pages": pages,
        "bytes": size,
        "timings": list(TIMINGS.records),
        "daemon": multiprocessing.current_process().daemon,
    }


def where(timings: list[dict[str, Any]]) -> str:
    """CPU seconds per phase, summed over a print's documents: the worker process's own
    and its render processes' (how many of them did the work). WeasyPrint's stages
    (``weasyprint: parse`` and so on, ``content.printing.worker.render_chunk``) are shown
    in brackets after its total."""
    own: dict[str, float] = {}
    pooled: dict[str, float] = {}
    pids: dict[str, set[int]] = {}
    for t in timings:
        for phase, cpu in t["parent_cpu"].items():
            own[phase] = own.get(phase, 0.0) + cpu
        for phase, per_pid in t["worker_cpu"].items():
            pooled[phase] = pooled.get(phase, 0.0) + sum(per_pid.values())
            pids.setdefault(phase, set()).update(int(pid) for pid in per_pid)

    def listed(phases: dict[str, float], processes: bool) -> str:
        parts = []
        for phase, cpu in sorted(phases.items()):
            if ": " in phase:
                continue
            stages = [
                f"{p.split(': ', 1)[1]} {c:.2f}" for p, c in phases.items() if p.startswith(f"{phase}: ")
            ]
            note = [f"{len(pids[phase])} processes"] if processes else []
            brackets = "; ".join(x for x in (", ".join(note), ", ".join(stages)) if x)
            parts.append(f"{phase} {cpu:.2f}" + (f" ({brackets})" if brackets else ""))
        return ", ".join(parts) or "-"

    return f"CPU s: the worker process {listed(own, False)}; its render processes {listed(pooled, True)}"


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    for name in ("weasyprint", "weasyprint.progress", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    render_logger = logging.getLogger("content.printing.render")
    render_logger.setLevel(logging.INFO)
    render_logger.addHandler(TIMINGS)
    render_logger.propagate = False

    import atexit
    import io
    import json
    import math
    import random
    import shutil
    import tempfile
    from contextlib import ExitStack

    import billiard
    from PIL import Image, ImageDraw, ImageFont
    from pypdf import PdfReader

    from content.decks import build_deck, deck_layouts, default_labels, round_robin_sets
    from content.demo.placeholders import placeholder_svg
    from content.pictures import sanitise_svg
    from content.printing import cards as faces
    from content.printing import pictures as picture_module
    from content.printing import render
    from content.printing import worker as worker_module
    from content.printing.data import GameCard, PeriodData, PlacementData, PrintOptions, SymbolData
    from content.printing.pictures import PreparedPicture
    from content.printing.worker import render_chunk

    sampler = ProcessTreeSampler()
    print(
        f"Print benchmark: {os.cpu_count()} CPUs, load average {load_average()} before the run "
        "(the machine may be shared: figures taken under load are slower)."
    )

    # -- the decks -------------------------------------------------------------------------
    def deck_cards(keys: list[str], cards_to_print: int | None) -> list[GameCard]:
        deck = build_deck(keys, cards_to_print=cards_to_print)
        layouts = deck_layouts(deck.cards, seed=0)
        sets = round_robin_sets(deck.cards, default_labels(13 if len(deck.cards) > 100 else 7))
        label_of = {card: cs.label for cs in sets for card in cs.cards}
        return [
            GameCard(
                label_of[i],
                tuple(card),
                tuple(PlacementData(p.symbol, p.x, p.y, p.size, p.rotation) for p in layouts[i]),
            )
            for i, card in enumerate(deck.cards)
        ]

    keys = [f"sym-{i:03d}" for i in range(1, 134)]
    keys57 = keys[:57]
    cards = deck_cards(keys, 132)
    cards57 = deck_cards(keys57, None)
    periods = [
        PeriodData("ii-rp", "II RP", "1918–1939", "#2e6db4"),
        PeriodData("ii-wojna-swiatowa", "II wojna światowa", "1939–1945", "#b3262d"),
        PeriodData("prl", "PRL", "1944/45–1989", "#3f8a3c"),
    ]
    demo = json.loads((ROOT / "content/demo/data/symbols.json").read_text())
    print(
        f"Decks: {len(cards)} game cards of 12 symbols + {len(keys)} auxiliary cards; "
        f"{len(cards57)} game cards of 8 symbols + {len(keys57)} auxiliary cards (demo symbols' texts)."
    )

    work = Path(tempfile.mkdtemp(prefix="talia-bench-print-"))
    atexit.register(shutil.rmtree, work, True)

    def draw_png(path: Path, i: int, rng: random.Random) -> None:
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

    def symbols_for(kind: str) -> dict[str, SymbolData]:
        out = {}
        rng = random.Random(7)
        for i, key in enumerate(keys, start=1):
            source = demo[(i - 1) % len(demo)]
            name = source["name"] if i <= len(demo) else f"{source['name']} ({i})"
            path = work / f"{key}.{kind}"
            if kind == "svg":
                path.write_bytes(sanitise_svg(placeholder_svg(i)))
            else:
                draw_png(path, i, rng)
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

    svg_symbols, png_symbols = symbols_for("svg"), symbols_for("png")
    options = PrintOptions(paper="A4")

    def pages(*pdfs: bytes) -> int:
        return sum(len(PdfReader(io.BytesIO(pdf)).pages) for pdf in pdfs)

    def full_set(deck: list[GameCard], order: list[str], symbols: dict[str, SymbolData]) -> tuple[int, int]:
        game = render.render_game_cards(deck, symbols, periods, options)
        aux = render.render_auxiliary_cards([symbols[k] for k in order], periods, options)
        return pages(game, aux), len(game) + len(aux)

    def talia_fronts() -> tuple[int, int]:
        job = render._GamePrint(cards, png_symbols, periods, options)
        pdf = render._run(
            lambda pool, tracker, out: job.document(pool, tracker, out, backs=False),
            job.steps(backs=False),
            options,
            None,
            True,
        )
        return pages(pdf), len(pdf)

    PRINTS["svg"] = lambda: full_set(cards, keys, svg_symbols)
    PRINTS["png"] = lambda: full_set(cards, keys, png_symbols)
    PRINTS["png57"] = lambda: full_set(cards57, keys57, png_symbols)
    PRINTS["fronts"] = talia_fronts

    def original(job: Any) -> Any:
        """A picture drawn from its own file, as ``prepare_picture`` draws an SVG when no
        rasteriser is installed (the miniature's period fields are still a PNG)."""
        return picture_module._with_mini(job, PreparedPicture(job.key, "original", path=job.path), None)

    def baseline(
        deck: list[GameCard], order: list[str], symbols: dict[str, SymbolData], *, originals: bool = True
    ) -> tuple[int, int]:
        """One document, one process, the original pictures as <img> (SVG not rasterised,
        PNG not turned into JPEG); with ``originals=False``, Talia's prepared pictures."""
        saved = picture_module.svg_surface, render.predict, worker_module.prepare_picture
        if originals:
            picture_module.svg_surface = None  # SVG pictures are drawn as they are
            render.predict = worker_module.prepare_picture = original  # and PNG pictures too
        try:
            with ExitStack() as stack:
                out_dir = stack.enter_context(tempfile.TemporaryDirectory())
                tracker = render._Tracker(0, None)
                game = render._GamePrint(deck, symbols, periods, options).document(None, tracker, out_dir)
                aux = render._AuxiliaryPrint([symbols[k] for k in order], periods, options).document(
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
                rendered = render_chunk(html, render.HERE.as_uri() + "/", policy)
                BASELINE_STAGES.update(rendered.phases)
                return pages(rendered.pdf), len(rendered.pdf)
        finally:
            picture_module.svg_surface, render.predict, worker_module.prepare_picture = saved

    def reportlab_fronts() -> tuple[int, int]:
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
                pdf.drawImage(png_symbols[p.key].picture_path, -side / 2, -side / 2, side, side, mask="auto")
                pdf.restoreState()
        pdf.showPage()
        pdf.save()
        data = out.getvalue()
        return pages(data), len(data)

    # The worker process: forked now, before any thread of this one runs, as a prefork
    # worker forks its pool processes; daemonic, as theirs are.
    worker = billiard.Pool(1)
    atexit.register(worker.terminate)

    class Run:
        def __init__(self, wall: float, rss: float, cpu: float, result: dict[str, Any]) -> None:
            self.wall, self.rss, self.cpu, self.result = wall, rss, cpu, result

    def measure(func: Callable[[], Any]) -> Run:
        with sampler:
            start = time.perf_counter()
            result = func()
            wall = time.perf_counter() - start
        return Run(wall, sampler.peak / 2**20, sampler.cpu_seconds, result)

    def in_the_worker(name: str, cache: str | None = None) -> Run:
        cache = cache or tempfile.mkdtemp(prefix="cache-", dir=work)  # empty: pictures prepared anew
        run = measure(lambda: worker.apply(in_worker, (name, cache)))
        run.result["cache"] = cache
        assert run.result["daemon"], "the print did not run in a daemonic process"
        return run

    def here(func: Callable[[], tuple[int, int]]) -> Run:
        run = measure(func)
        page_count, size = run.result
        run.result = {"pages": page_count, "bytes": size, "timings": []}
        return run

    def line(label: str, run: Run, extra: str = "") -> None:
        r = run.result
        print(
            f"  {label:<52} {run.wall:6.2f} s wall, {run.cpu:5.1f} CPU-s, peak {run.rss:5.0f} MB; "
            f"{r['pages']} pages, {r['bytes'] / 2**20:.1f} MB{extra}"
        )

    def warm_line(label: str, runs: list[Run]) -> float:
        best = min(runs, key=lambda r: r.wall)
        median = statistics.median(r.wall for r in runs)
        line(f"{label} (best of {len(runs)}; median {median:.2f} s)", best)
        print(f"      where the time went: {where(best.result['timings'])}")
        return best.wall

    runs_n = int(os.environ.get("BENCH_PRINT_RUNS", "2"))
    peaks: list[float] = []
    figures: dict[str, float] = {}

    def against_baseline(
        key: str,
        deck: list[GameCard],
        order: list[str],
        symbols: dict[str, SymbolData],
        then: Callable[[list[Run]], None] | None = None,
    ) -> None:
        """Warm prints of ``PRINTS[key]`` in the worker process, then the one-document baseline."""
        warm = [in_the_worker(key) for _ in range(runs_n)]
        peaks.extend(r.rss for r in warm)
        figures[key] = warm_line("(a) Talia in the worker process, warm", warm)
        if then is not None:
            then(warm)
        base = here(lambda: baseline(deck, order, symbols))
        figures[f"{key}_base"] = base.wall
        line("(b) one WeasyPrint document, one process", base)
        stages = ", ".join(f"{stage} {cpu:.2f}" for stage, cpu in BASELINE_STAGES.items())
        print(f"      where the time went: CPU s: weasyprint {sum(BASELINE_STAGES.values()):.2f} ({stages})")
        if key == "png":  # how much of the gain is the prepared pictures: reported, not judged
            line(
                "(b) the same, with Talia's prepared pictures",
                here(lambda: baseline(deck, order, symbols, originals=False)),
            )

    def prepared(warm: list[Run]) -> None:
        line("(a) Talia, warm, pictures already prepared", in_the_worker("svg", warm[-1].result["cache"]))

    print("\n== 133 symbols, 133 placeholder SVG pictures ==")
    cold = in_the_worker("svg")
    peaks.append(cold.rss)
    line("(a) Talia in the worker process, cold", cold)
    print(f"      where the time went: {where(cold.result['timings'])}")
    against_baseline("svg", cards, keys, svg_symbols, prepared)
    print("\n== 133 symbols, 133 distinct 600 × 600 PNG pictures ==")
    against_baseline("png", cards, keys, png_symbols)
    print("\n== 57 symbols, PNG pictures ==")
    against_baseline("png57", cards57, keys57, png_symbols)

    print("\n== the 132 game-card fronts (PNG), Talia against ReportLab ==")
    fronts = [in_the_worker("fronts") for _ in range(runs_n)]
    figures["fronts"] = warm_line("(c) Talia in the worker process, warm", fronts)
    reportlab = [here(reportlab_fronts) for _ in range(runs_n)]
    best_rl = min(reportlab, key=lambda r: r.wall)
    figures["reportlab"] = best_rl.wall
    line(f"(c) ReportLab in this process (best of {runs_n})", best_rl)

    worker.close()
    worker.join()
    print(f"\nLoad average after the run: {load_average()}.")

    name = "bench_print.py"
    ok = True
    print("\nAgainst the issue's targets (measured wall times, warm = best of the warm runs):")

    def judge(figure: str, measured: float, unit: str, target: str, met: bool) -> None:
        nonlocal ok
        ok &= record(name, figure, f"{measured:.2f}{unit}", target, met)
        print(f"  {figure}: {measured:.2f}{unit} (target {target}): {'met' if met else 'MISSED'}")

    judge(
        "133-symbol set, SVG, warm",
        figures["svg"],
        " s",
        f"< {TARGET_SECONDS:g} s",
        figures["svg"] < TARGET_SECONDS,
    )
    judge(
        "133-symbol set, PNG, warm",
        figures["png"],
        " s",
        f"< {TARGET_SECONDS:g} s",
        figures["png"] < TARGET_SECONDS,
    )
    print(f"  (cold, SVG: {cold.wall:.2f} s; not judged)")
    for key, label, target in (
        ("svg", "133-symbol set, SVG: one document ÷ Talia", TARGET_RATIO),
        ("png", "133-symbol set, PNG: one document ÷ Talia", TARGET_RATIO),
        ("png57", "57-symbol set, PNG: one document ÷ Talia", TARGET_RATIO_57),
    ):
        ratio = figures[f"{key}_base"] / figures[key]
        judge(label, ratio, "×", f">= {target:g}×", ratio >= target)
    peak = max(peaks)
    judge(
        "peak memory, the bench's whole process tree (the worker's is less)",
        peak,
        " MB",
        f"< {TARGET_RSS_MB} MB",
        peak < TARGET_RSS_MB,
    )
    stretch = figures["fronts"] / figures["reportlab"]
    print(f"  stretch, not judged: fronts, Talia ÷ ReportLab {stretch:.2f} (goal ≤ {STRETCH_REPORTLAB:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
