"""What the rendering processes run: prepare pictures, turn one HTML chunk into a PDF.

Imported by the render processes (``content.printing.pool``), so it imports neither
Django nor the templates: the parent renders the HTML, a worker only calls WeasyPrint.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from weasyprint import CSS, HTML
from weasyprint.css.counters import CounterStyle
from weasyprint.html import UA, UA_STYLESHEET

from .fetcher import FetchPolicy, SafeFetcher
from .pictures import PictureJob, PreparedPicture, prepare_picture
from .qr import qr_png_uri

__all__ = ["QrCode", "QrJob", "Rendered", "Timed", "prepare_batch", "render_chunk", "render_pdf", "timed"]

T = TypeVar("T")


@dataclass(frozen=True)
class Timed:
    """A worker's result with the process that made it and the CPU seconds it took."""

    value: Any
    pid: int
    cpu: float


def timed(func: Callable[..., T], *args: Any) -> Timed:
    start = time.process_time()
    value = func(*args)
    return Timed(value, os.getpid(), time.process_time() - start)


@dataclass(frozen=True)
class QrJob:
    """Make the QR code of ``url`` (segno is pure Python: worth doing in parallel)."""

    key: str
    url: str


@dataclass(frozen=True)
class QrCode:
    key: str
    uri: str  # a PNG data: URI, one pixel per module (``qr.qr_png_uri``)


#: The user-agent stylesheet's rules for list markers, footnotes and notes are written
#: for every element (``::marker { … }``), so WeasyPrint computes six pseudo-element
#: styles per element; cards have no lists or notes, and dropping these rules saves
#: about a fifth of a render.
_UNUSED_PSEUDO = re.compile(
    r"^::(marker|footnote-call|footnote-marker|note-call|note-marker|note-callback) \{[^}\n]*\}$", re.M
)
_CARD_UA, _REMOVED = _UNUSED_PSEUDO.subn("", UA)
#: If a WeasyPrint upgrade changes these rules, fall back to its stylesheet unchanged.
# (Its @counter-style rules are already in WeasyPrint's UA_COUNTER_STYLE, which every
# document uses: they are read here into a throwaway dictionary.)
CARD_UA_STYLESHEET = CSS(string=_CARD_UA, counter_style=CounterStyle()) if _REMOVED == 6 else UA_STYLESHEET


class CardHTML(HTML):  # type: ignore[misc]  # WeasyPrint ships no types
    """WeasyPrint's HTML with :data:`CARD_UA_STYLESHEET` as the user-agent stylesheet."""

    def _ua_stylesheets(self, forms: bool = False) -> list[CSS]:
        return [CARD_UA_STYLESHEET]


@dataclass(frozen=True)
class Rendered:
    """A chunk's PDF and the CPU seconds of WeasyPrint's three stages: reading the HTML
    (``parse``), styles and layout (``layout``), drawing and writing the PDF (``pdf``)."""

    pdf: bytes
    phases: dict[str, float]


def render_chunk(html: str, base_url: str, policy: FetchPolicy) -> Rendered:
    """:func:`render_pdf`, timed per stage (``bench/bench_print.py`` reports the stages)."""
    start = time.process_time()
    parsed = CardHTML(string=html, base_url=base_url, url_fetcher=SafeFetcher(policy))
    read = time.process_time()
    document = parsed.render()
    laid_out = time.process_time()
    pdf = document.write_pdf()
    assert isinstance(pdf, bytes)
    done = time.process_time()
    return Rendered(pdf, {"parse": read - start, "layout": laid_out - read, "pdf": done - laid_out})


def render_pdf(html: str, base_url: str, policy: FetchPolicy) -> bytes:
    """One PDF from ``html``; every resource goes through a :class:`SafeFetcher`."""
    return render_chunk(html, base_url, policy).pdf


def prepare_batch(jobs: list[PictureJob | QrJob]) -> list[PreparedPicture | QrCode]:
    """Pictures and QR codes, in the order given."""
    return [
        QrCode(job.key, qr_png_uri(job.url)) if isinstance(job, QrJob) else prepare_picture(job)
        for job in jobs
    ]
