"""Print-ready PDFs of every game's cards: plain data in, PDF bytes out.

The deck and print services snapshot their rows into ``content.printing.data`` and
call one function here; nothing is read from the database or the network.  Every
function returns the bytes of one PDF holding fronts and backs (``PrintOptions.duplex``)
and calls ``progress(done, total)`` as pictures and pages finish; ``parallel=False``
keeps all the work in the calling process.

How it stays fast (measured by ``bench/bench_print.py``):

* each symbol picture is prepared once, at print resolution, as a JPEG that
  WeasyPrint embeds unchanged and draws as one shared image (``pictures``);
* the pages are split into one chunk per core, rendered by a pool of worker
  processes (``content.printing.pool``: started with subprocess, so a Celery prefork
  child may use it, and kept warm between prints) and merged with pypdf
  (:func:`render_many`); the HTML is written in the calling process while the pool
  prepares the pictures, and the workers only run WeasyPrint, so they need no Django;
* cards are absolutely positioned boxes, pictures ``<img>`` (no flex or grid, no
  inline SVG), repeated inline styles become classes; the shipped fonts are subset
  by HarfBuzz where Debian provides libharfbuzz-subset;
* a render process runs Python's cycle collector between requests, not during them
  (``content.printing.pool``), and the auxiliary back's QR code is a small image drawn
  unsmoothed, not an SVG path WeasyPrint parses on every card (``content.printing.qr``).
  Together, for the 74 pages of the 133-symbol set (SVG pictures) rendered as a 2-core
  print's four chunks, WeasyPrint's CPU went from 94–100 to 77–80 ms a page (game-card
  chunks 105–115 to 90–96, auxiliary 71–85 to 57–61), A/B runs taken alternately at a
  load average of 5–6 on 2 cores (2026-12-06).

Example::

    pdf = render_know_cards(12, 36, PrintOptions(paper="Letter"), parallel=False)
"""

from __future__ import annotations

import atexit
import hashlib
import io
import logging
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypdf import PdfReader, PdfWriter

from . import cards as faces
from . import pool as render_pool
from .data import (
    ActivityCardData,
    GameCard,
    KnowledgeCardData,
    PeriodData,
    PlacementData,
    PrintError,
    PrintOptions,
    SymbolData,
)
from .fetcher import FetchPolicy
from .labels import labels
from .pictures import DPI, PictureJob, PreparedPicture, legend_strip, picture_format, predict
from .sheets import Grid, Page, chunk, grid_for, page_order
from .worker import QrCode, QrJob, Rendered, Timed, prepare_batch, render_chunk, timed

__all__ = [
    "Progress",
    "render_activity_cards",
    "render_auxiliary_cards",
    "render_game_cards",
    "render_know_cards",
    "render_knowledge_cards",
    "render_many",
    "warm_up",
]

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
HERE = Path(__file__).resolve().parent
#: Largest side of a prepared picture, whatever the card size.
MAX_PICTURE_PX = 1400
#: Pictures are prepared for at least this diameter, so the game cards' pictures (about
#: 31 mm at most on a 90 mm card) and the auxiliary cards' (about 50 mm) are one file.
STANDARD_PICTURE_MM = 52.0
#: Resolution of the game-card back's miniatures (small, so sharper than the pictures).
MINI_DPI = 600
#: Fewer pages than this render in the calling process: a pool would cost more than it saves.
MIN_PARALLEL_PAGES = 4


# -- the process pool ----------------------------------------------------------------


def workers() -> int:
    return max(1, os.cpu_count() or 1)


def warm_up() -> None:
    """Start this process's render pool now, so that the next print finds it warm."""
    with render_pool.shared_pool(workers()):
        pass


def _open_pool(stack: ExitStack, parallel: bool, size: int) -> Executor | None:
    """This process's render pool of ``size`` workers (``content.printing.pool``: plain
    child processes, so a daemonic Celery prefork child can use it too), or None to work
    in this process."""
    if not parallel or size < 2:
        return None
    try:
        pool, started = stack.enter_context(render_pool.shared_pool(size))
        if started:
            # Find out now whether the workers run at all (a broken environment, say).
            for future in [pool.submit(os.getpid) for _ in range(size)]:
                future.result(timeout=60)
    except Exception as error:  # no processes allowed, a worker that cannot import, ...
        logger.warning("Rendering in one process: the render pool did not start (%r).", error)
        return None
    this_print = _PrintShare(pool)
    stack.callback(this_print.cancel)
    return this_print


class _PrintShare(Executor):
    """One print's use of the shared pool: what it queued and has not started is dropped
    when the print stops early (an error, Celery's soft time limit), so the next print
    does not wait behind it."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = self.pool.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()


class _Tracker:
    """Progress in steps (one per prepared picture or QR code, one per page) and where
    the time went: CPU seconds of this process per phase, and of each worker process
    per phase (logged at the end; ``bench/bench_print.py`` reads it)."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done, self.progress = total, 0, progress
        self.parent: dict[str, float] = {}
        self.workers: dict[str, dict[int, float]] = {}
        self.started = time.perf_counter()
        self.report()

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.process_time()
        try:
            yield
        finally:
            self.parent[name] = self.parent.get(name, 0.0) + time.process_time() - start

    def worker(self, name: str, result: Timed) -> Any:
        per_pid = self.workers.setdefault(name, {})
        per_pid[result.pid] = per_pid.get(result.pid, 0.0) + result.cpu
        return result.value

    def stages(self, name: str, rendered: Rendered, pid: int | None = None) -> bytes:
        """Count a chunk's WeasyPrint stages as phases ``name: stage`` of ``pid``'s (of
        this process's without a pool); the chunk's PDF."""
        for stage, cpu in rendered.phases.items():
            if pid is None:
                self.parent[f"{name}: {stage}"] = self.parent.get(f"{name}: {stage}", 0.0) + cpu
            else:
                per_pid = self.workers.setdefault(f"{name}: {stage}", {})
                per_pid[pid] = per_pid.get(pid, 0.0) + cpu
        return rendered.pdf

    def summary(self) -> dict[str, Any]:
        return {
            "wall": time.perf_counter() - self.started,
            "parent_cpu": dict(self.parent),
            "worker_cpu": {name: dict(per_pid) for name, per_pid in self.workers.items()},
        }

    def render_pids(self) -> set[int]:
        """The processes that ran WeasyPrint for this print (this one without a pool)."""
        pids = set(self.workers.get("weasyprint", {}))
        if "weasyprint" in self.parent:
            pids.add(os.getpid())
        return pids

    def add(self, count: int) -> None:
        self.done = min(self.total, self.done + count)
        self.report()

    def report(self) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total)


# -- pictures ----------------------------------------------------------------------


def _media_root() -> str | None:
    try:
        from django.conf import settings

        return str(settings.MEDIA_ROOT) if settings.configured and settings.MEDIA_ROOT else None
    except Exception:  # Django not set up: the caller gave absolute paths anyway
        return None


_process_cache: str | None = None
_CACHE_LIMIT = 256 * 2**20
_CACHE_KEEP_SECONDS = 3600


def _cache_dir(stack: ExitStack) -> str:
    """Where prepared pictures go.  File names are content hashes, so prints share them
    safely: the game cards and then the auxiliary cards of a deck prepare each picture
    once.  ``settings.PRINT_PICTURE_CACHE`` if set, else a folder of this process's,
    removed when it exits and trimmed (oldest files first) past 256 MB."""
    global _process_cache
    try:
        from django.conf import settings

        configured = getattr(settings, "PRINT_PICTURE_CACHE", None) if settings.configured else None
    except Exception:
        configured = None
    if configured:
        os.makedirs(configured, exist_ok=True)
        return str(configured)
    if _process_cache is None or not os.path.isdir(_process_cache):
        _process_cache = tempfile.mkdtemp(prefix="talia-print-")
        atexit.register(shutil.rmtree, _process_cache, True)
    _trim(_process_cache)
    return _process_cache


def _trim(folder: str) -> None:
    entries = []
    for entry in os.scandir(folder):
        try:
            info = entry.stat()
        except OSError:
            continue
        entries.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    cutoff = time.time() - _CACHE_KEEP_SECONDS  # never a file a print may still be using
    for mtime, size, path in sorted(entries):
        if total <= _CACHE_LIMIT * 3 // 4 or mtime > cutoff:
            break
        with suppress(OSError):
            os.remove(path)
            total -= size


class _Preparation:
    """Picture and QR jobs running (in the pool when there is one) while the caller
    writes the HTML with the predicted results; :meth:`finish` waits and says whether
    the predictions held (a broken picture is the only reason they would not)."""

    def __init__(self, jobs: Sequence[PictureJob | QrJob], pool: Executor | None, tracker: _Tracker) -> None:
        self.jobs, self.pool, self.tracker = list(jobs), pool, tracker
        self.predicted = {job.key: predict(job) for job in self.jobs if isinstance(job, PictureJob)}
        self.futures: dict[Future[Timed], int] = {}
        if pool is not None and len(self.jobs) >= 8:
            parts = workers() * 3  # small batches: progress moves, and the load evens out
            for i in range(parts):
                batch = self.jobs[i::parts]
                if batch:
                    self.futures[pool.submit(timed, prepare_batch, batch)] = len(batch)

    def finish(self) -> tuple[dict[str, PreparedPicture], dict[str, str], bool]:
        results: list[PreparedPicture | QrCode] = []
        if self.futures:
            for future in as_completed(self.futures):
                results.extend(self.tracker.worker("pictures", future.result()))
                self.tracker.add(self.futures[future])
        else:
            with self.tracker.phase("pictures"):
                for job in self.jobs:
                    results.extend(prepare_batch([job]))
                    self.tracker.add(1)
        pictures: dict[str, PreparedPicture] = {}
        codes: dict[str, str] = {}
        for item in results:
            if isinstance(item, QrCode):
                codes[item.key] = item.uri
                continue
            pictures[item.key] = item
            if item.message:
                logger.warning("Symbol %s: %s", item.key, item.message)
        held = all(
            (p.kind, p.path, p.mini)
            == (self.predicted[k].kind, self.predicted[k].path, self.predicted[k].mini)
            for k, p in pictures.items()
        )
        return pictures, codes, held


def _picture_jobs(
    needs: Mapping[str, float],
    symbols: Mapping[str, SymbolData],
    out_dir: str,
    strips: Mapping[str, tuple[str, ...]] | None = None,
    mini_mm: float = 0.0,
) -> list[PictureJob]:
    """One job per symbol, big enough for its largest use (``needs``, in mm)."""
    mini_px = math.ceil(mini_mm / 25.4 * MINI_DPI) if mini_mm else 0
    jobs = []
    for key, mm in needs.items():
        symbol = symbols[key]
        px = min(MAX_PICTURE_PX, math.ceil(max(mm, STANDARD_PICTURE_MM) / 25.4 * DPI))
        fmt = picture_format(symbol.picture_path, symbol.picture_format)
        strip = strips.get(key) if strips is not None else None
        jobs.append(PictureJob(key, symbol.picture_path, fmt, px, out_dir, strip, mini_px))
    return jobs


# -- pages and chunks ------------------------------------------------------------------


@dataclass
class _Document:
    """Pages of HTML ready to render, with what they may fetch."""

    pages: list[str]
    policy: FetchPolicy
    title: str


def render_many(
    pages: Sequence[str],
    *,
    options: PrintOptions,
    title: str,
    policy: FetchPolicy,
    pool: Executor | None,
    tracker: _Tracker | None = None,
) -> bytes:
    """Render pages of HTML as one chunk per worker (one document in this process
    without a pool) and merge the chunks' PDFs in order."""
    parts = workers() if (pool is not None and len(pages) >= MIN_PARALLEL_PAGES) else 1
    runs = chunk(list(range(len(pages))), parts)
    base_url = HERE.as_uri() + "/"
    tracker = tracker or _Tracker(len(pages), None)
    with tracker.phase("assemble"):
        docs = [
            faces.document_html(
                [pages[i] for i in run], paper=options.paper_mm, title=title, language=options.language
            )
            for run in runs
        ]
    results: list[bytes] = [b""] * len(docs)
    if len(docs) == 1 or pool is None:
        for i, doc in enumerate(docs):
            with tracker.phase("weasyprint"):
                rendered = render_chunk(doc, base_url, policy)
            results[i] = tracker.stages("weasyprint", rendered)
            tracker.add(len(runs[i]))
    else:
        futures = {pool.submit(timed, render_chunk, doc, base_url, policy): i for i, doc in enumerate(docs)}
        for future in as_completed(futures):
            i = futures[future]
            result = future.result()
            results[i] = tracker.stages("weasyprint", tracker.worker("weasyprint", result), result.pid)
            tracker.add(len(runs[i]))
    if len(results) == 1:
        return results[0]
    with tracker.phase("merge"):
        writer = PdfWriter()
        for data in results:
            writer.append(PdfReader(io.BytesIO(data)))
        writer.add_metadata({"/Title": title, "/Producer": "Talia (WeasyPrint, pypdf)"})
        # Every chunk embedded the pictures and fonts it used: keep one copy of each.
        writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()


def _policy(files: Iterable[str], data: Iterable[str], extra_roots: Iterable[str]) -> FetchPolicy:
    roots = [str(HERE / "fonts"), str(HERE / "css"), *extra_roots]
    media = _media_root()
    if media:
        roots.append(media)
    return FetchPolicy.build(roots=roots, files=files, data=[*data, *faces.GENERATED])


def _sheets(
    count: int,
    grid: Grid,
    options: PrintOptions,
    frame: faces.Frame,
    front: Callable[[int], str],
    back: Callable[[int], str] | None,
    back_fill: str | None = None,
) -> list[str]:
    pages: list[Page] = page_order(count, grid, options.duplex, backs=back is not None)
    return [
        faces.sheet_html(
            grid,
            page,
            frame,
            front if page.side == "front" else back,  # type: ignore[arg-type]
            cut_marks=options.cut_marks,
            back_fill=back_fill,
        )
        for page in pages
    ]


def _run(
    build: Callable[[Executor | None, _Tracker, str], _Document],
    steps: int,
    options: PrintOptions,
    progress: Progress | None,
    parallel: bool,
) -> bytes:
    """Open the pool and the picture folder, build the document, render it."""
    tracker = _Tracker(steps, progress)
    with ExitStack() as stack:
        pool = _open_pool(stack, parallel, workers())
        document = build(pool, tracker, _cache_dir(stack))
        pdf = render_many(
            document.pages,
            options=options,
            title=document.title,
            policy=document.policy,
            pool=pool,
            tracker=tracker,
        )
    summary = tracker.summary()
    # Read by bench/bench_print.py (the timings) and by the tests of a real worker (the
    # processes that rendered).
    logger.info(
        "Printed %s: %d pages in %.2f s, rendered by %d process(es)",
        document.title,
        len(document.pages),
        summary["wall"],
        len(tracker.render_pids()),
        extra={"print_timings": summary},
    )
    return pdf


# -- ZnajZnak ----------------------------------------------------------------------------


def _check_symbols(keys: Iterable[str], symbols: Mapping[str, SymbolData]) -> None:
    missing = sorted({k for k in keys if k not in symbols})
    if missing:
        raise PrintError(f"No symbol data for {', '.join(missing[:5])}{'…' if len(missing) > 5 else ''}.")


def _placements(card: GameCard, index: int, shape: str) -> tuple[PlacementData, ...]:
    if card.placements:
        extra = {p.key for p in card.placements} - set(card.symbols)
        if extra:
            raise PrintError(f"Card {index + 1} places symbols it does not show: {', '.join(sorted(extra))}.")
        return card.placements
    from content.decks.layout import layout_card  # pure Python; only when a card comes unlaid

    return tuple(
        PlacementData(p.symbol, p.x, p.y, p.size, p.rotation)
        for p in layout_card(card.symbols, seed=index, shape=shape)  # type: ignore[arg-type]
    )


def _legend(periods: Sequence[PeriodData], mini_mm: float, out_dir: str) -> str:
    """The legend's period fields (all filled) as a PNG in ``out_dir``; its file URL."""
    if not periods:
        return ""
    fills = tuple(faces.colour(p.colour) for p in periods)
    height = max(8, math.ceil(mini_mm / 25.4 * MINI_DPI))
    path = Path(out_dir) / f"legend-{hashlib.sha256(repr((fills, height)).encode()).hexdigest()[:24]}.png"
    if not path.exists():
        legend_strip(fills, height).save(path)
    return path.as_uri()


class _GamePrint:
    """The ZnajZnak game cards of one print: validated, laid out, sized."""

    def __init__(
        self,
        cards: Sequence[GameCard],
        symbols: Mapping[str, SymbolData],
        periods: Sequence[PeriodData],
        options: PrintOptions,
    ) -> None:
        if not cards:
            raise PrintError("There are no cards to print.")
        for card in cards:
            _check_symbols(card.symbols, symbols)
        self.cards = [
            GameCard(c.label, c.symbols, _placements(c, i, options.shape)) for i, c in enumerate(cards)
        ]
        self.symbols, self.periods, self.options = symbols, list(periods), options
        self.frame = faces.game_frame(options.card_mm, options.shape)
        self.grid = grid_for(options.paper_mm, (self.frame.width, self.frame.height), options.bleed_mm)
        counts = {len(card.symbols) for card in self.cards}
        self.mini_mm = max(faces.back_layout(self.frame, n, self.periods).mini for n in counts)
        self.needs: dict[str, float] = {}
        for card in self.cards:
            for p in card.placements:
                self.needs[p.key] = max(self.needs.get(p.key, 0.0), p.size * self.frame.width)
            for key in card.symbols:
                self.needs.setdefault(key, self.mini_mm)

    def steps(self, backs: bool = True) -> int:
        return len(self.needs) + (2 if backs else 1) * self.grid.sheets(len(self.cards))

    def document(
        self, pool: Executor | None, tracker: _Tracker, out_dir: str, *, backs: bool = True
    ) -> _Document:
        strips = {key: faces.chrono(self.symbols[key], self.periods) for key in self.needs}
        jobs = _picture_jobs(self.needs, self.symbols, out_dir, strips, self.mini_mm)
        preparation = _Preparation(jobs, pool, tracker)
        legend = _legend(self.periods, self.mini_mm, out_dir)

        def pages(pictures: Mapping[str, PreparedPicture]) -> list[str]:
            return _sheets(
                len(self.cards),
                self.grid,
                self.options,
                self.frame,
                lambda i: faces.game_front(self.cards[i], pictures, self.frame),
                (
                    lambda i: faces.game_back(
                        self.cards[i], self.symbols, self.periods, pictures, self.frame, legend
                    )
                )
                if backs
                else None,
            )

        with tracker.phase("pages"):
            html = pages(preparation.predicted)
        pictures, _, held = preparation.finish()
        if not held:
            with tracker.phase("pages"):
                html = pages(pictures)
        files = [p.path for p in pictures.values() if p.path]
        return _Document(html, _policy(files, (), [out_dir]), "ZnajZnak")


def render_game_cards(
    cards: Sequence[GameCard],
    symbols: Mapping[str, SymbolData],
    periods: Sequence[PeriodData],
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    parallel: bool = True,
) -> bytes:
    """ZnajZnak game cards: fronts with the pictures as placed (cards without placements
    are laid out here); backs with each symbol's miniature, its name in bold with the
    description, its number, its chronological marking, and the card-set letter."""
    job = _GamePrint(cards, symbols, periods, options)
    return _run(job.document, job.steps(), options, progress, parallel)


class _AuxiliaryPrint:
    def __init__(
        self,
        symbols: Mapping[str, SymbolData] | Sequence[SymbolData],
        periods: Sequence[PeriodData],
        options: PrintOptions,
    ) -> None:
        self.items = list(symbols.values()) if isinstance(symbols, Mapping) else list(symbols)
        if not self.items:
            raise PrintError("There are no symbols to print.")
        self.by_key = {s.key: s for s in self.items}
        self.periods, self.options = list(periods), options
        self.frame = faces.aux_frame(options.auxiliary_mm)
        self.grid = grid_for(options.paper_mm, (self.frame.width, self.frame.height), options.bleed_mm)
        diameter = faces.aux_picture_mm(self.frame)
        self.needs = {s.key: diameter for s in self.items}
        self.urls = {s.key: s.portal_url for s in self.items if s.portal_url}

    def steps(self) -> int:
        return len(self.needs) + len(self.urls) + 2 * self.grid.sheets(len(self.items))

    def document(self, pool: Executor | None, tracker: _Tracker, out_dir: str) -> _Document:
        jobs: list[PictureJob | QrJob] = [*_picture_jobs(self.needs, self.by_key, out_dir)]
        jobs += [QrJob(key, url) for key, url in self.urls.items()]
        preparation = _Preparation(jobs, pool, tracker)
        frame, bleed, language = self.frame, self.options.bleed_mm, self.options.language

        # QR codes are made in the pool too: the pages hold a token until they are done.
        tokens = {key: f"talia-qr-{i}" for i, key in enumerate(self.urls)}

        def pages(pictures: Mapping[str, PreparedPicture]) -> list[str]:
            return _sheets(
                len(self.items),
                self.grid,
                self.options,
                frame,
                lambda i: faces.aux_front(self.items[i], pictures, frame, bleed),
                lambda i: faces.aux_back(
                    self.items[i], self.periods, tokens.get(self.items[i].key, ""), frame, bleed, language
                ),
            )

        with tracker.phase("pages"):
            html = pages(preparation.predicted)
        pictures, codes, held = preparation.finish()
        if not held:
            with tracker.phase("pages"):
                html = pages(pictures)
        if codes:
            swaps = {f'src="{tokens[key]}"': f'src="{uri}"' for key, uri in codes.items()}
            html = [_swap(page, swaps) for page in html]
        files = [p.path for p in pictures.values() if p.path]
        return _Document(html, _policy(files, codes.values(), [out_dir]), "ZnajZnak")


def _swap(page: str, swaps: Mapping[str, str]) -> str:
    for token, value in swaps.items():
        if token in page:
            page = page.replace(token, value)
    return page


def render_auxiliary_cards(
    symbols: Mapping[str, SymbolData] | Sequence[SymbolData],
    periods: Sequence[PeriodData],
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    parallel: bool = True,
) -> bytes:
    """ZnajZnak auxiliary cards, one per symbol in the given order: the picture on the
    front; name and description, short historical outline, the number on the card's
    edge, chronological marking and a QR code to the portal page (none without a URL)
    on the back."""
    job = _AuxiliaryPrint(symbols, periods, options)
    return _run(job.document, job.steps(), options, progress, parallel)


# -- the other games -------------------------------------------------------------------


def _render_plain(
    count: int,
    frame: faces.Frame,
    options: PrintOptions,
    front: Callable[[int], str],
    back: Callable[[int], str],
    title: str,
    progress: Progress | None,
    parallel: bool,
    back_fill: str | None = None,
) -> bytes:
    grid = grid_for(options.paper_mm, (frame.width, frame.height), options.bleed_mm)

    def build(pool: Executor | None, tracker: _Tracker, out_dir: str) -> _Document:
        with tracker.phase("pages"):
            pages = _sheets(count, grid, options, frame, front, back, back_fill)
        return _Document(pages, _policy((), (), ()), title)

    steps = 2 * grid.sheets(count)
    return _run(build, steps, options, progress, parallel and steps >= MIN_PARALLEL_PAGES)


def render_activity_cards(
    cards: Sequence[ActivityCardData],
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    parallel: bool = True,
) -> bytes:
    """Activity term cards: six terms A–F with their points and the form each area asks
    for (draw, describe, mime); chain and rhyme named as such; a plain back, so a
    stack shows no term."""
    if not cards:
        raise PrintError("There are no cards to print.")
    for card in cards:
        slots = sorted(t[0] for t in card.terms)
        if slots != list("ABCDEF"):
            raise PrintError(f"Activity card {card.number} needs one term for each of A–F, not {slots}.")
    frame = faces.activity_frame(options.activity_mm)
    label = labels(options.language)["activity"]
    return _render_plain(
        len(cards),
        frame,
        options,
        lambda i: faces.activity_front(cards[i], frame, options.language),
        lambda i: faces.plain_back(frame, label),
        "Activity",
        progress,
        parallel,
        back_fill=frame.colour,
    )


def render_knowledge_cards(
    cards: Sequence[KnowledgeCardData],
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    parallel: bool = True,
) -> bytes:
    """Knowledge? quiz cards: the category (123 / ABC / palette) and the question on the
    front, the answer and its explanation on the back."""
    if not cards:
        raise PrintError("There are no cards to print.")
    frame = faces.knowledge_frame(options.knowledge_mm)
    return _render_plain(
        len(cards),
        frame,
        options,
        lambda i: faces.knowledge_front(cards[i], frame, options.language),
        lambda i: faces.knowledge_back(cards[i], frame, options.language),
        "Knowledge?",
        progress,
        parallel,
    )


def render_know_cards(
    question_count: int,
    answer_count: int,
    options: PrintOptions,
    progress: Progress | None = None,
    *,
    parallel: bool = True,
) -> bytes:
    """Know's blank cards: Question Cards numbered 1..question_count (lines to write on,
    a Team ID box), then Answer Cards (a box for the question number, lines, a Team ID
    box); one plain back for all, so a shuffled Round Deck gives nothing away."""
    if question_count < 0 or answer_count < 0 or question_count + answer_count == 0:
        raise PrintError("Print at least one Question or Answer Card.")
    frame = faces.know_frame(options.know_mm)
    return _render_plain(
        question_count + answer_count,
        frame,
        options,
        lambda i: faces.know_front(i + 1 if i < question_count else None, frame, options.language),
        lambda i: faces.plain_back(frame, "KNOW"),
        "Know",
        progress,
        parallel,
        back_fill=frame.colour,
    )
