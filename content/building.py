"""Building ZnajZnak decks and printing cards: the services behind the deck pages,
the admin and the ``deck_build`` command (HackSoft style: keyword arguments, the only
place that writes ``Deck`` and ``PrintJob`` rows and their files).

A deck is made in two steps:

1. :func:`deck_create` checks the options (every problem comes back at once, as a
   ``ValidationError`` keyed by option, and then nothing is stored), takes the
   **snapshot** of the symbol set - every member's number, texts, periods and a copy
   of its picture in the deck's keyed folder (``media.private_folder``) - and queues
   the build on commit.
   The build reads only the snapshot, so editing a symbol later never changes a
   deck that was already made (DESIGN.md, Data flow 1).
2. :func:`deck_build` (in a Celery task) turns the snapshot into the **plan** with
   the pure builder of :mod:`content.decks` - order, cards as symbol numbers,
   lettered lesson sets with their symbol counts, face layouts, what was dropped and
   why - then renders the PDFs (game cards, auxiliary cards) and ``deck.json``. The
   plan depends only on the snapshot's symbols, the options and the seed.

Prints of Activity cards, Knowledge? cards and Know's blank cards work the same way
(:func:`print_job_create`, :func:`print_job_run`).

Readings chosen here (ZnajZnak rulebook and ``rules/README.md``):

* Symbols are identified on the cards by their three-digit number, so a set whose
  members share a number (symbols of different collections) is refused.
* Every symbol needs a picture: the game cards show pictures only.
* The default number of lesson sets is one per ten printed cards (the Duel: five
  cards for each of two players), at least one: 13 for the boxed game's 132 cards.
* Auxiliary cards are printed for the symbols that appear on the printed cards.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from functools import partial
from pathlib import Path, PurePath
from typing import Any, Literal

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Model, Prefetch
from django.utils import timezone
from django.utils.translation import gettext_noop

from . import jobs, tasks_print
from .decks import (
    DeckError,
    ImpossibleOrder,
    build_deck,
    deck_layouts,
    default_labels,
    projective_plane,
    split_into_sets,
)
from .media import private_folder
from .models import (
    LANGUAGES,
    ActivityCard,
    ActivityTerm,
    BuildState,
    Deck,
    KnowledgeQuestion,
    Period,
    PrintJob,
    Status,
    Symbol,
    SymbolSet,
    SymbolSetMember,
    Tag,
)
from .permissions import content_visible_to, runs_for
from .printing.data import (
    ActivityCardData,
    GameCard,
    KnowledgeCardData,
    PeriodData,
    PlacementData,
    PrintOptions,
    SymbolData,
)

__all__ = [
    "CARDS_PER_SET",
    "DeckRefused",
    "deck_create",
    "deck_build",
    "deck_delete",
    "deck_plan",
    "deck_retry",
    "deck_set_count",
    "builds_requeue",
    "builds_sweep",
    "print_job_create",
    "print_job_delete",
    "print_job_retry",
    "print_job_run",
]

logger = logging.getLogger(__name__)

PAPERS = ("A4", "Letter")
SHAPES = ("round", "square")
DUPLEX = ("long_edge", "separate")
LANGUAGE_CODES = tuple(code for code, _name in LANGUAGES)
CARD_MM = (50, 120)
BLEED_MM = (0, 5)
LABEL_MAX = 3
SEED_MAX = 2_147_483_647  # PositiveIntegerField on PostgreSQL
#: Lesson sets by default: one per this many printed cards (a Duel: five cards each).
CARDS_PER_SET = 10
KNOW_MAX = 500
MIN_SYMBOLS = 3

#: The boxed ZnajZnak game cards are about 90 mm across.
DEFAULT_CARD_MM = 90
#: Activity, Knowledge? and Know cards are rectangles: width and height (mm), by default
#: a playing card (63 x 88 mm, the renderer's standard).
CARD_SIDE_MM = (40, 200)
DEFAULT_CARD_SIDES_MM = (63, 88)

_PRINT_OPTIONS = ("paper", "cut_marks", "bleed_mm", "duplex", "language", "render")
_DECK_OPTIONS = (*_PRINT_OPTIONS, "card_mm", "shape", "order", "cards_to_print", "sets", "labels")
_JOB_OPTIONS = (*_PRINT_OPTIONS, "card_width_mm", "card_height_mm", "questions", "answers")
#: The renderer's option naming the size of each kind of rectangular card.
_SIZE_OPTION = {
    PrintJob.Kind.ACTIVITY: "activity_mm",
    PrintJob.Kind.KNOWLEDGE: "knowledge_mm",
    PrintJob.Kind.KNOW: "know_mm",
}

_PICTURE_FORMATS = {".svg": "svg", ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}

#: What a deck or print says when its build failed unexpectedly (the error itself goes to
#: the log) or ran out of time. Stored in English, translated where shown, like ``STOPPED``.
UNEXPECTED = {
    "deck": gettext_noop(
        "Talia hit an unexpected error while making the deck. Nothing was lost: try again, "
        "and tell an admin if it happens again."
    ),
    "PDF": gettext_noop(
        "Talia hit an unexpected error while making the PDF. Nothing was lost: try again, "
        "and tell an admin if it happens again."
    ),
}
TOO_LONG = {
    "deck": gettext_noop(
        "Making the deck took too long and was stopped. Try a smaller card size or fewer "
        "cards, or ask an admin to allow more time."
    ),
    "PDF": gettext_noop(
        "Making the PDF took too long and was stopped. Try a smaller card size or fewer "
        "cards, or ask an admin to allow more time."
    ),
}


#: What a deck or print whose worker died says (the sweep, ``builds_sweep``). Stored in
#: English and translated where it is shown (``{% translate job.message %}``).
STOPPED = {
    "deck": gettext_noop(
        "The worker making this deck stopped before it finished: it may have run out of "
        "memory, or been restarted. Try again; if it stops again, choose fewer cards or a "
        "smaller card size, or tell an admin."
    ),
    "PDF": gettext_noop(
        "The worker making this PDF stopped before it finished: it may have run out of "
        "memory, or been restarted. Try again; if it stops again, print fewer cards at a "
        "time, or tell an admin."
    ),
}


class DeckRefused(Exception):
    """A job cannot run as asked (already done, gone); the message says why."""


# --- Checking options ----------------------------------------------------------------------


class _Checker:
    """Collects every problem with the options, keyed by option, for one ValidationError."""

    def __init__(self, raw: Mapping[str, Any] | None, allowed: Sequence[str]) -> None:
        self.raw = dict(raw or {})
        self.errors: dict[str, list[str]] = {}
        for key in sorted(set(self.raw) - set(allowed)):
            self.error("__all__", f"Unknown option {key!r}; the options are {', '.join(allowed)}.")

    def error(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def given(self, field: str) -> bool:
        value = self.raw.get(field)
        return value is not None and value != ""

    def integer(self, field: str, what: str) -> int | None:
        """The option as an int, or None when it is not given or wrong (then an error)."""
        if not self.given(field):
            return None
        value = self.raw[field]
        if isinstance(value, bool):
            self.error(field, f"Enter {what} as a whole number.")
            return None
        if isinstance(value, int):
            return value
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            self.error(field, f"Enter {what} as a whole number, not {value!r}.")
            return None
        if number != number.to_integral_value():
            self.error(field, f"Enter {what} as a whole number, not {value}.")
            return None
        return int(number)

    def number(
        self, field: str, default: float, *, low: float, high: float, what: str, unit: str = ""
    ) -> float:
        if not self.given(field):
            return default
        value = self.raw[field]
        try:
            if isinstance(value, bool):
                raise InvalidOperation
            number = Decimal(str(value).strip().replace(",", "."))
        except InvalidOperation:
            self.error(field, f"Enter {what} as a number, not {value!r}.")
            return default
        if not number.is_finite() or not low <= number <= high:
            value = f"{number.normalize():f}" if number.is_finite() else value
            self.error(
                field, f"{what.capitalize()} must be from {low:g} to {high:g}{unit}; {value} is outside."
            )
            return default
        return round(float(number), 1)

    def choice(self, field: str, choices: Sequence[str], default: str, *, what: str) -> str:
        if not self.given(field):
            return default
        value = self.raw[field]
        for choice in choices:
            if isinstance(value, str) and value.strip().lower() == choice.lower():
                return choice
        self.error(field, f"Choose {what}: {' or '.join(choices)}; {value!r} is not one of them.")
        return default

    def boolean(self, field: str, default: bool, *, what: str) -> bool:
        if field not in self.raw or self.raw[field] is None:
            return default
        value = self.raw[field]
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        self.error(field, f"Say yes or no for {what}, not {value!r}.")
        return default

    def raise_if_any(self) -> None:
        if self.errors:
            raise ValidationError(self.errors)


def _print_options(check: _Checker, *, language: str) -> dict[str, Any]:
    return {
        "paper": check.choice("paper", PAPERS, "A4", what="the paper"),
        "cut_marks": check.boolean("cut_marks", True, what="cut marks"),
        "bleed_mm": check.number(
            "bleed_mm", 0.0, low=BLEED_MM[0], high=BLEED_MM[1], what="the bleed", unit=" mm"
        ),
        "duplex": check.choice("duplex", DUPLEX, "long_edge", what="how the backs are printed"),
        "language": check.choice("language", LANGUAGE_CODES, language, what="the language"),
        "render": check.boolean("render", True, what="making the PDFs"),
    }


def _labels(check: _Checker, count: int) -> list[str]:
    raw = check.raw.get("labels")
    if raw is None or raw == "" or raw == []:
        return default_labels(count)
    if isinstance(raw, str):
        labels = [part.strip() for part in raw.replace(",", " ").replace(";", " ").split()]
    elif isinstance(raw, list | tuple):
        labels = [str(part).strip() for part in raw]
    else:
        check.error("labels", "Give the labels as text, e.g. A B C.")
        return default_labels(count)
    problems = []
    if len(labels) != count:
        problems.append(f"Give {count} labels, one per set; you gave {len(labels)}.")
    if any(not label for label in labels):
        problems.append("A label cannot be empty.")
    long = [label for label in labels if len(label) > LABEL_MAX]
    if long:
        problems.append(
            f"A label has at most {LABEL_MAX} characters (it is printed on the card "
            f"backs); too long: {', '.join(long)}."
        )
    seen: Counter[str] = Counter(labels)
    twice = [label for label, n in seen.items() if n > 1 and label]
    if twice:
        problems.append(f"Each set needs its own label; used more than once: {', '.join(twice)}.")
    for problem in problems:
        check.error("labels", problem)
    return labels if not problems else default_labels(count)


def deck_set_count(cards: int) -> int:
    """The default number of lesson sets for ``cards`` printed cards (13 for 132)."""
    return max(1, cards // CARDS_PER_SET)


def _deck_options(check: _Checker, *, keys: list[str], language: str) -> dict[str, Any]:
    options = _print_options(check, language=language)
    options["card_mm"] = check.number(
        "card_mm", DEFAULT_CARD_MM, low=CARD_MM[0], high=CARD_MM[1], what="the card size", unit=" mm"
    )
    options["shape"] = check.choice("shape", SHAPES, "round", what="the card shape")
    order = check.integer("order", "the order")
    options["order"] = order
    card_count: int | None = None
    if len(keys) >= MIN_SYMBOLS and "order" not in check.errors:
        try:
            card_count = len(build_deck(keys, order=order).cards)
        except ImpossibleOrder as error:
            check.error("order", str(error))
        except DeckError as error:
            check.error("order", str(error))

    cards_to_print = check.integer("cards_to_print", "the number of cards to print")
    if cards_to_print is not None and card_count is not None and not 1 <= cards_to_print <= card_count:
        check.error(
            "cards_to_print",
            f"The deck has {card_count} cards; print from 1 to {card_count} "
            f"of them, or leave the field empty to print them all.",
        )
        cards_to_print = None
    options["cards_to_print"] = cards_to_print
    printed = min(cards_to_print or card_count or 0, card_count or 0)

    sets = check.integer("sets", "the number of lesson sets")
    if sets is None:
        sets = deck_set_count(printed) if printed else 1
    elif printed and not 1 <= sets <= printed:
        check.error("sets", f"Split the {printed} printed cards into 1 to {printed} sets; {sets} is outside.")
        sets = deck_set_count(printed)
    elif sets < 1:
        check.error("sets", "Make at least one lesson set.")
        sets = 1
    options["sets"] = sets
    # Labels are checked against a valid number of sets only (else the count misleads).
    options["labels"] = _labels(check, sets) if "sets" not in check.errors else default_labels(sets)
    return options


# --- Small helpers -------------------------------------------------------------------------


def _require_author(user: Any) -> None:
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        raise PermissionDenied("Only teachers and admins build decks and print cards.")


def _code(number: int) -> str:
    return f"{number:03d}"


def _picture_format(name: str, data: bytes) -> str:
    fmt = _PICTURE_FORMATS.get(PurePath(name).suffix.lower())
    if fmt:
        return fmt
    head = data[:16]
    if head.startswith(b"\x89PNG"):
        return "png"
    if head.startswith(b"\xff\xd8"):
        return "jpeg"
    if head[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "svg"


def _store(name: str, data: bytes) -> str:
    """Save ``data`` under exactly ``name`` (replacing an older file) and return the name."""
    if default_storage.exists(name):
        default_storage.delete(name)
    return default_storage.save(name, ContentFile(data))


def _delete_files(names: Sequence[str]) -> None:
    for name in names:
        try:
            if name and default_storage.exists(name):
                default_storage.delete(name)
        except Exception:  # a file left behind is not worth failing a delete
            logger.warning("Could not delete %s", name, exc_info=True)


@contextmanager
def _local_files(names: Sequence[str]) -> Iterator[dict[str, str]]:
    """Absolute paths of stored files: in place on local disk, else copied to a temp folder."""
    paths: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="talia-print-") as folder:
        for i, name in enumerate(names):
            if not default_storage.exists(name):  # never print an empty frame instead
                raise FileNotFoundError(errno.ENOENT, "No such file", name)
            try:
                paths[name] = default_storage.path(name)
                continue
            except NotImplementedError:
                pass
            target = Path(folder) / f"{i}{PurePath(name).suffix}"
            with default_storage.open(name, "rb") as source:
                target.write_bytes(source.read())
            paths[name] = str(target)
        yield paths


class _Progress:
    """Writes a job's progress (never backwards, only whole-percent changes).

    The renderer may report from worker threads; only the thread that runs the
    service writes to the database (a thread's connection would need closing), the
    others just move the number the next write from this thread carries.
    """

    def __init__(self, model: type[Model], pk: int) -> None:
        self.model, self.pk = model, pk
        self.value = 0
        self.thread = threading.get_ident()
        self.lock = threading.Lock()

    def set(self, value: float) -> None:
        with self.lock:
            value = max(self.value, min(100, int(value)))
            if value == self.value:
                return
            self.value = value
        if threading.get_ident() == self.thread:
            self.model._default_manager.filter(pk=self.pk).update(progress=self.value, updated=timezone.now())

    def stage(self, start: float, end: float) -> Callable[[int, int], None]:
        def callback(done: int, total: int) -> None:
            if total > 0:
                self.set(start + (end - start) * min(done, total) / total)

        return callback


def _claimable(job: Deck | PrintJob) -> bool:
    """Whether a delivered task may run ``job`` (read under its row lock).

    A QUEUED job, or a RUNNING one whose heartbeat stopped (the broker handed out again
    the task of a worker that died before the sweep got to it). A FAILED job waits for
    "Try again" (a late redelivery does not restart it behind the teacher's back); a
    RUNNING one with a live heartbeat belongs to another worker; a DONE one is done.
    """
    if job.state == BuildState.QUEUED:
        return True
    return job.state == BuildState.RUNNING and job.updated < jobs.stale_cutoff()


def _fail(model: type[Model], pk: int, message: str) -> None:
    """Mark a job FAILED with ``message``; its progress stays where it stopped."""
    model._default_manager.filter(pk=pk).update(
        state=BuildState.FAILED, message=message, updated=timezone.now()
    )


def _teacher_message(error: Exception, *, what: Literal["deck", "PDF"]) -> str:
    if isinstance(error, DeckError | ImpossibleOrder | DeckRefused):
        return str(error)
    if type(error).__name__ == "PrintError":  # content.printing's: its message is for people
        return f"The {what} could not be printed: {error}"
    if type(error).__name__ == "SoftTimeLimitExceeded":  # celery's, raised in the worker
        return TOO_LONG[what]
    if isinstance(error, FileNotFoundError):
        return (
            f"A file the {what} needs is missing ({PurePath(str(error.filename or '')).name or error}). "
            "Build it again from the symbol set; tell an admin if it happens again."
        )
    return UNEXPECTED[what]


# --- Decks: the snapshot -------------------------------------------------------------------


def _members(symbol_set: SymbolSet) -> list[Symbol]:
    rows = (
        SymbolSetMember.objects.filter(symbol_set=symbol_set)
        .select_related("symbol")
        .prefetch_related(
            Prefetch("symbol__periods", queryset=Period.objects.order_by("position", "start_year", "pk"))
        )
        .order_by("position", "id")
    )
    return [row.symbol for row in rows]


def _check_set(members: list[Symbol], check: _Checker) -> None:
    if len(members) < MIN_SYMBOLS:
        check.error(
            "symbol_set",
            f"A ZnajZnak deck needs at least {MIN_SYMBOLS} symbols; this set has "
            f"{len(members)}. Add symbols to the set first.",
        )
        return
    by_number: dict[int, list[Symbol]] = {}
    for symbol in members:
        by_number.setdefault(symbol.number, []).append(symbol)
    clashes = [group for group in by_number.values() if len(group) > 1]
    if clashes:
        shown = "; ".join(" and ".join(f"{s.name} ({s.collection})" for s in group) for group in clashes[:5])
        check.error(
            "symbol_set",
            f"The cards tell symbols apart by number, and some symbols of this "
            f"set share one: {shown}. Keep one symbol per number in the set.",
        )
    missing = [symbol for symbol in members if not symbol.picture]
    if missing:
        shown = ", ".join(str(symbol) for symbol in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        check.error(
            "symbol_set",
            f"The game cards show pictures, and these symbols have none: "
            f"{shown}{more}. Add their pictures first.",
        )


def _snapshot(deck: Deck, symbol_set: SymbolSet, members: list[Symbol], copied: list[str]) -> dict[str, Any]:
    symbols = []
    for symbol in members:
        try:
            with symbol.picture.open("rb") as picture:
                data = picture.read()
        except (OSError, ValueError) as error:
            raise ValidationError(
                {
                    "symbol_set": [
                        f"The picture of {symbol} cannot be read ({type(error).__name__}); "
                        "upload it again and build the deck."
                    ]
                }
            ) from error
        fmt = _picture_format(symbol.picture.name, data)
        ext = ".jpg" if fmt == "jpeg" else f".{fmt}"
        name = _store(f"{private_folder('decks', deck.pk)}/pictures/{_code(symbol.number)}{ext}", data)
        copied.append(name)
        symbols.append(
            {
                "id": symbol.pk,
                "number": symbol.number,
                "name": symbol.name,
                "alternative_names": symbol.alternative_name_list,
                "description": symbol.description,
                "outline": symbol.outline,
                "periods": [period.slug for period in symbol.periods.all()],
                "portal_url": symbol.portal_url,
                "language": symbol.language,
                "picture": name,
                "picture_format": fmt,
                "picture_sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    periods = [
        {"slug": p.slug, "name": p.name, "years": p.years, "colour": p.colour}
        for p in Period.objects.order_by("position", "start_year", "pk")
    ]
    return {
        "symbol_set": {"id": symbol_set.pk, "slug": symbol_set.slug, "name": symbol_set.name},
        "symbols": symbols,
        "periods": periods,
    }


def _main_language(members: Sequence[Symbol]) -> str:
    counts = Counter(symbol.language for symbol in members)
    return counts.most_common(1)[0][0] if counts else "pl"


def deck_create(
    *,
    user: Any,
    symbol_set: SymbolSet,
    name: str | None = None,
    seed: Any = 0,
    options: Mapping[str, Any] | None = None,
    enqueue: bool = True,
) -> Deck:
    """Check the options, snapshot ``symbol_set`` and queue the build; return the new deck.

    ``options`` (all optional): ``order`` (a prime power; default: the best order for
    the set's size), ``cards_to_print``, ``sets`` (number of lesson sets) and
    ``labels`` (one per set, up to 3 characters, e.g. "A B C"), ``paper`` (A4 or
    Letter), ``card_mm`` (50-120), ``shape`` (round or square), ``cut_marks``,
    ``bleed_mm`` (0-5), ``duplex`` (long_edge or separate), ``language`` and
    ``render`` (False: plan and deck.json only, no PDFs).

    Raises ``PermissionDenied`` when ``user`` may not see the set, and
    ``ValidationError`` keyed by option (or ``symbol_set``, ``name``, ``seed``) with
    every problem at once; then no deck is stored. ``enqueue=False`` leaves the build
    to the caller (the ``deck_build`` command runs it in place).

    >>> deck = deck_create(user=teacher, symbol_set=ipn, options={"cards_to_print": 132})
    >>> deck.state
    'queued'
    """
    _require_author(user)
    if not content_visible_to(user, SymbolSet.objects.filter(pk=symbol_set.pk)).exists():
        raise PermissionDenied("You may not use this symbol set.")
    members = _members(symbol_set)
    check = _Checker(options, _DECK_OPTIONS)
    _check_set(members, check)
    name = (name or "").strip() or symbol_set.name
    if len(name) > Deck._meta.get_field("name").max_length:
        check.error("name", "The name is too long: at most 160 characters.")
    check.raw["seed"] = 0 if seed is None or seed == "" else seed
    seed_value = check.integer("seed", "the seed")
    if seed_value is None or not 0 <= seed_value <= SEED_MAX:
        if "seed" not in check.errors:
            check.error("seed", f"The seed is a whole number from 0 to {SEED_MAX}.")
        seed_value = 0
    del check.raw["seed"]
    keys = [_code(symbol.number) for symbol in members]
    clean = _deck_options(check, keys=keys, language=_main_language(members))
    check.raise_if_any()

    copied: list[str] = []
    try:
        with transaction.atomic():
            deck = Deck.objects.create(
                name=name,
                owner=user,
                symbol_set=symbol_set,
                seed=seed_value,
                options=clean,
                state=BuildState.QUEUED,
            )
            deck.snapshot = _snapshot(deck, symbol_set, members, copied)
            deck.save(update_fields=["snapshot", "updated"])
            if enqueue:
                transaction.on_commit(partial(_enqueue_deck, deck.pk))
    except BaseException:
        _delete_files(copied)
        raise
    return deck


def _enqueue_deck(deck_id: int) -> None:
    tasks_print.deck_build_task.delay(deck_id)


# --- Decks: the plan -----------------------------------------------------------------------


def _plane_lines(order: int) -> list[list[int]]:
    if order == 1:
        return [[0, 1], [0, 2], [1, 2]]  # the triangle of content.decks.deck
    return projective_plane(order)


def deck_plan(*, snapshot: Mapping[str, Any], options: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The deck a snapshot makes: cards as symbol numbers, lesson sets, layouts, what was dropped.

    Pure and deterministic: the same snapshot symbols (in the curator's order),
    options and seed give the same plan. Card indexes in ``sets`` and ``layouts``
    refer to ``cards``; ``cards_dropped`` name cards by their index in the plane.
    """
    symbols = list(snapshot["symbols"])
    names = {s["number"]: s["name"] for s in symbols}
    keys = [_code(s["number"]) for s in symbols]
    number = {key: s["number"] for key, s in zip(keys, symbols, strict=True)}
    deck = build_deck(keys, order=options.get("order"), cards_to_print=options.get("cards_to_print"))
    cards = [[number[key] for key in card] for card in deck.cards]

    labels = list(options.get("labels") or default_labels(options.get("sets") or 1))
    if len(labels) > len(cards):
        raise DeckError(f"The deck has {len(cards)} cards, too few for {len(labels)} lesson sets.")
    card_sets = split_into_sets(deck.cards, labels, seed=seed)
    label_of: dict[int, str] = {}
    sets = []
    for card_set in card_sets:
        for index in card_set.cards:
            label_of[index] = card_set.label
        sets.append(
            {
                "label": card_set.label,
                "cards": list(card_set.cards),
                "symbols": [number[key] for key in card_set.symbols],
                "pair_symbols": [number[key] for key in card_set.pair_symbols],
                "crowded_symbols": [number[key] for key in card_set.crowded_symbols],
                "pairs": card_set.pairs,
            }
        )

    shape = options.get("shape") or "round"
    layouts = [
        [
            {
                "symbol": number[p.symbol],
                "x": round(p.x, 5),
                "y": round(p.y, 5),
                "size": round(p.size, 5),
                "rotation": p.rotation,
            }
            for p in card
        ]
        for card in deck_layouts(deck.cards, seed=seed, shape=shape)
    ]

    lines = _plane_lines(deck.order) if deck.cards_dropped else []
    cards_dropped = [
        {
            "plane_card": index,
            "reason": reason,
            "symbols": [symbols[p]["number"] for p in lines[index] if p < len(symbols)],
        }
        for index, reason in deck.cards_dropped
    ]
    return {
        "order": deck.order,
        "symbols_per_card": deck.symbols_per_card,
        "card_count": len(cards),
        "cards": cards,
        "card_labels": [label_of[i] for i in range(len(cards))],
        "plane_cards": list(deck.plane_cards),
        "symbols_used": [number[key] for key in deck.symbols_used],
        "symbols_dropped": [
            {"number": number[key], "name": names[number[key]], "reason": reason}
            for key, reason in deck.symbols_dropped
        ],
        "cards_dropped": cards_dropped,
        "sets": sets,
        "shape": shape,
        "layouts": layouts,
    }


def _deck_json(deck: Deck, plan: Mapping[str, Any]) -> bytes:
    symbols = {s["number"]: s for s in deck.snapshot["symbols"]}
    document = {
        "format": "talia-znajznak-deck/1",
        "about": (
            "cards: the symbol numbers on each printed card (any two share exactly one); "
            "card_labels: each card's lesson set; sets[].cards: indexes (from 0) into cards; "
            "layouts: each card's pictures, centre x, y and diameter in card widths, "
            "rotation in degrees."
        ),
        "name": deck.name,
        "symbol_set": deck.snapshot.get("symbol_set"),
        "seed": deck.seed,
        "options": deck.options,
        "order": plan["order"],
        "symbols_per_card": plan["symbols_per_card"],
        "cards": plan["cards"],
        "card_labels": plan["card_labels"],
        "sets": plan["sets"],
        "symbols": [
            {
                "number": n,
                "name": symbols[n]["name"],
                "periods": symbols[n]["periods"],
                "picture_sha256": symbols[n]["picture_sha256"],
            }
            for n in plan["symbols_used"]
        ],
        "symbols_dropped": plan["symbols_dropped"],
        "cards_dropped": plan["cards_dropped"],
        "layouts": plan["layouts"],
    }
    return json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")


# --- Decks: the build ----------------------------------------------------------------------


def _render_options(options: Mapping[str, Any], *, kind: str = "deck") -> Any:
    common = {
        "paper": options["paper"],
        "cut_marks": options["cut_marks"],
        "bleed_mm": options["bleed_mm"],
        "duplex": options["duplex"],
        "language": options["language"],
    }
    if kind == "deck":
        return PrintOptions(card_mm=options["card_mm"], shape=options["shape"], **common)
    sides = (options["card_width_mm"], options["card_height_mm"])
    return PrintOptions(**{_SIZE_OPTION[PrintJob.Kind(kind)]: sides}, **common)


def _render_deck(deck: Deck, plan: Mapping[str, Any], progress: _Progress) -> dict[str, str]:
    from .printing import render  # WeasyPrint: imported by the worker that prints, not the web

    used = set(plan["symbols_used"]) | {n for card in plan["cards"] for n in card}
    snap = [s for s in deck.snapshot["symbols"] if s["number"] in used]
    options = _render_options(deck.options)
    periods = tuple(
        PeriodData(slug=p["slug"], name=p["name"], years=p["years"], colour=p["colour"])
        for p in deck.snapshot["periods"]
    )
    with _local_files([s["picture"] for s in snap]) as paths:
        symbols = {
            _code(s["number"]): SymbolData(
                key=_code(s["number"]),
                number=s["number"],
                name=s["name"],
                description=s["description"],
                outline=s["outline"],
                periods=tuple(s["periods"]),
                portal_url=s["portal_url"],
                picture_path=paths[s["picture"]],
                picture_format=s["picture_format"],
            )
            for s in snap
        }
        cards = tuple(
            GameCard(
                label=label,
                symbols=tuple(_code(n) for n in card),
                placements=tuple(
                    PlacementData(
                        key=_code(p["symbol"]), x=p["x"], y=p["y"], size=p["size"], rotation=p["rotation"]
                    )
                    for p in layout
                ),
            )
            for card, label, layout in zip(plan["cards"], plan["card_labels"], plan["layouts"], strict=True)
        )
        # 10-100 %: the game cards and the auxiliary cards, by their number.
        split = 10 + 90 * len(cards) / max(1, len(cards) + len(symbols))
        game = render.render_game_cards(cards, symbols, periods, options, progress=progress.stage(10, split))
        files = {"game-cards.pdf": _store(f"{private_folder('decks', deck.pk)}/game-cards.pdf", game)}
        progress.set(split)
        auxiliary = render.render_auxiliary_cards(
            symbols, periods, options, progress=progress.stage(split, 100)
        )
        files["auxiliary-cards.pdf"] = _store(
            f"{private_folder('decks', deck.pk)}/auxiliary-cards.pdf", auxiliary
        )
    return files


def deck_build(*, deck: Deck) -> Deck:
    """Build a queued deck from its snapshot: plan, ``deck.json`` and the PDFs.

    Progress: 0-10 % planning, 10-100 % rendering. Any error marks the deck FAILED
    with a message a teacher understands (progress stays where it stopped). Only a
    QUEUED deck is built (or a RUNNING one whose worker died, see ``_claimable``): a
    task delivered twice builds once, and a FAILED deck waits for :func:`deck_retry`.
    """
    with transaction.atomic():
        deck = Deck.objects.select_for_update().get(pk=deck.pk)
        if not _claimable(deck):
            return deck
        deck.state, deck.progress, deck.message = BuildState.RUNNING, 0, ""
        deck.save(update_fields=["state", "progress", "message", "updated"])

    progress = _Progress(Deck, deck.pk)
    try:
        progress.set(1)
        plan = deck_plan(snapshot=deck.snapshot, options=deck.options, seed=deck.seed)
        Deck.objects.filter(pk=deck.pk).update(plan=plan, updated=timezone.now())
        files = {"deck.json": _store(f"{private_folder('decks', deck.pk)}/deck.json", _deck_json(deck, plan))}
        progress.set(10)
        if deck.options.get("render", True):
            files.update(_render_deck(deck, plan, progress))
    except Exception as error:
        logger.warning("Deck %s failed to build", deck.pk, exc_info=True)
        _fail(Deck, deck.pk, _teacher_message(error, what="deck"))
        deck.refresh_from_db()
        return deck

    with transaction.atomic():
        deck = Deck.objects.select_for_update().get(pk=deck.pk)
        deck.plan, deck.files = plan, files
        deck.state, deck.progress = BuildState.DONE, 100
        deck.message = _deck_summary(plan)
        deck.save(update_fields=["plan", "files", "state", "progress", "message", "updated"])
    return deck


def _deck_summary(plan: Mapping[str, Any]) -> str:
    text = (
        f"Order {plan['order']}: {plan['card_count']} cards of {plan['symbols_per_card']} "
        f"symbols, {len(plan['symbols_used'])} symbols, {len(plan['sets'])} lesson sets."
    )
    if plan["symbols_dropped"]:
        text += f" {len(plan['symbols_dropped'])} symbols left out."
    return text


def deck_delete(*, deck: Deck) -> None:
    """Delete a deck, its PDFs, its deck.json and its copies of the pictures."""
    names = list((deck.files or {}).values())
    names += [s.get("picture", "") for s in (deck.snapshot or {}).get("symbols", [])]
    deck.delete()
    transaction.on_commit(partial(_delete_files, names))


def deck_fail(*, deck_id: int, message: str) -> None:
    """Mark a deck FAILED (the task's last resort); its progress is kept."""
    _fail(Deck, deck_id, message)


def _retry(model: type[Deck] | type[PrintJob], pk: int, user: Any, enqueue: Callable[[int], None]) -> Any:
    _require_author(user)
    with transaction.atomic():
        job = model.objects.select_for_update().get(pk=pk)
        if not getattr(user, "is_admin", False) and not runs_for(user, job.owner_id):
            raise PermissionDenied("This is another teacher's work.")
        if job.state != BuildState.FAILED:
            raise DeckRefused(
                f"Only a job that failed can be tried again; this one is {job.get_state_display()}."
            )
        job.state, job.progress, job.message = BuildState.QUEUED, 0, ""
        job.save(update_fields=["state", "progress", "message", "updated"])
        transaction.on_commit(partial(enqueue, job.pk))
    return job


def deck_retry(*, deck: Deck, user: Any) -> Deck:
    """Put a FAILED deck back in the queue ("Try again"); it is built from its snapshot.

    Raises ``DeckRefused`` for a deck that did not fail, ``PermissionDenied`` for
    someone else's deck.
    """
    return _retry(Deck, deck.pk, user, _enqueue_deck)


def builds_requeue(*, now: Any = None) -> int:
    """Send again to the queue every deck and print waiting there for too long (``jobs.queued_cutoff``)."""
    now = now or timezone.now()
    sent = 0
    for model, enqueue in ((Deck, _enqueue_deck), (PrintJob, _enqueue_print)):
        with transaction.atomic():
            waiting = list(
                model.objects.select_for_update(skip_locked=True)
                .filter(state=BuildState.QUEUED, updated__lt=jobs.queued_cutoff(now))
                .values_list("pk", flat=True)
            )
            model.objects.filter(pk__in=waiting).update(updated=now)  # once per window
            for pk in waiting:
                transaction.on_commit(partial(enqueue, pk))
        sent += len(waiting)
    return sent


def builds_sweep(*, now: Any = None) -> dict[str, int]:
    """Mark FAILED every deck and print still RUNNING whose heartbeat stopped.

    Their worker died (``content.jobs``); the message says so and the page offers "Try
    again". Returns how many of each were failed.
    """
    cutoff = jobs.stale_cutoff(now)
    failed = {}
    for model, what in ((Deck, "deck"), (PrintJob, "PDF")):
        stale = model.objects.filter(state=BuildState.RUNNING, updated__lt=cutoff)
        count = stale.update(state=BuildState.FAILED, message=STOPPED[what], updated=timezone.now())
        if count:
            logger.warning("%s %s(s) lost their worker and were marked failed", count, model.__name__)
        failed[model.__name__] = count
    return failed


# --- Print jobs ----------------------------------------------------------------------------


def _selection(
    check: _Checker, *, user: Any, kind: str, selection: Mapping[str, Any] | None
) -> tuple[list[Any], str | None, dict[str, Any]]:
    """The rows to print (visible to ``user``), the language they share, and the selection kept."""
    model: type[ActivityCard] | type[KnowledgeQuestion] = (
        ActivityCard if kind == PrintJob.Kind.ACTIVITY else KnowledgeQuestion
    )
    selection = dict(selection or {})
    visible = content_visible_to(user, model.objects.all())
    kept: dict[str, Any]
    if selection.get("ids"):
        try:
            ids = sorted({int(pk) for pk in selection["ids"]})
        except (TypeError, ValueError):
            check.error("selection", "The selected cards are given by their numbers (ids).")
            return [], None, {}
        rows = list(visible.filter(pk__in=ids).order_by("pk"))
        if len(rows) < len(ids):
            check.error(
                "selection",
                f"{len(ids) - len(rows)} of the selected cards are gone or "
                "not yours to print; select the cards again.",
            )
        kept = {"ids": ids}
    else:
        language = selection.get("language") or None
        if language is not None and language not in LANGUAGE_CODES:
            check.error("selection", f"Unknown language {language!r}.")
            return [], None, {}
        queryset = visible.filter(status=Status.PUBLISHED)
        if language:
            queryset = queryset.filter(language=language)
        tag = (selection.get("tag") or "").strip() or None
        if tag:
            found = Tag.objects.filter(slug=tag).first()
            if found is None:
                check.error("selection", f"There is no tag {tag!r}.")
                return [], None, {}
            queryset = queryset.filter(tags=found)
        rows = list(queryset.order_by("pk"))
        kept = {"language": language, "tag": tag}
    if not rows and "selection" not in check.errors:
        check.error("selection", "No cards match this selection: nothing to print.")
    languages = Counter(row.language for row in rows)
    return rows, (languages.most_common(1)[0][0] if languages else None), kept


def _activity_snapshot(cards: list[ActivityCard]) -> list[dict[str, Any]]:
    terms: dict[int, list[ActivityTerm]] = {}
    for term in ActivityTerm.objects.filter(card__in=cards).order_by("card_id", "slot"):
        terms.setdefault(term.card_id, []).append(term)
    return [
        {
            "id": card.pk,
            "number": card.pk,
            "terms": [[t.slot, t.kind, t.text, t.points] for t in terms.get(card.pk, [])],
        }
        for card in cards
    ]


def _knowledge_snapshot(questions: list[KnowledgeQuestion]) -> list[dict[str, Any]]:
    return [
        {
            "id": q.pk,
            "number": q.pk,
            "category": q.category,
            "front": q.front,
            "back": q.back,
            "answer_display": q.answer_display,
        }
        for q in questions
    ]


def print_job_create(
    *,
    user: Any,
    kind: str,
    options: Mapping[str, Any] | None = None,
    selection: Mapping[str, Any] | None = None,
    enqueue: bool = True,
) -> PrintJob:
    """Check, snapshot what to print and queue the print; return the job.

    ``kind``: ``activity``, ``knowledge`` or ``know``. ``selection`` (Activity and
    Knowledge?): ``{"ids": [...]}`` for chosen rows (any the user may see), or
    ``{"language": "pl", "tag": "wwii"}`` for every visible published card of that
    language and tag (both optional). Know prints blank cards: ``options``
    ``questions`` and ``answers`` are how many of each (0-500, not both 0). Other
    options: ``card_width_mm`` and ``card_height_mm`` (40-200, default 63 x 88, a
    playing card) and, as for :func:`deck_create`, paper, cut_marks, bleed_mm,
    duplex, language and render. Raises ``ValidationError`` keyed by option, or
    ``kind``/``selection``; nothing is stored then.
    """
    _require_author(user)
    if kind not in PrintJob.Kind.values:
        raise ValidationError(
            {"kind": ["Choose what to print: Activity cards, Knowledge? cards or Know's blank cards."]}
        )
    check = _Checker(options, _JOB_OPTIONS)
    snapshot: dict[str, Any]
    if kind == PrintJob.Kind.KNOW:
        counts = {}
        for field, what, default in (("questions", "question cards", 24), ("answers", "answer cards", 48)):
            value = check.integer(field, f"the number of {what}")
            if value is None and not check.given(field):
                value = default
            if value is not None and not 0 <= value <= KNOW_MAX:
                check.error(field, f"Print from 0 to {KNOW_MAX} {what}; {value} is outside.")
            counts[field] = value or 0
        if not check.errors and counts["questions"] + counts["answers"] == 0:
            check.error("questions", "Print at least one card.")
        language = "pl"
        snapshot = {"questions": counts["questions"], "answers": counts["answers"]}
        kept: dict[str, Any] = {}
    else:
        rows, language_found, kept = _selection(check, user=user, kind=kind, selection=selection)
        language = language_found or "pl"
        snapshot = {
            "cards": _activity_snapshot(rows) if kind == PrintJob.Kind.ACTIVITY else _knowledge_snapshot(rows)
        }
    clean = _print_options(check, language=language)
    for field, default, what in (
        ("card_width_mm", DEFAULT_CARD_SIDES_MM[0], "the card width"),
        ("card_height_mm", DEFAULT_CARD_SIDES_MM[1], "the card height"),
    ):
        clean[field] = check.number(
            field, default, low=CARD_SIDE_MM[0], high=CARD_SIDE_MM[1], what=what, unit=" mm"
        )
    check.raise_if_any()
    if kind == PrintJob.Kind.KNOW:
        clean.update(snapshot)
    snapshot["selection"] = kept

    with transaction.atomic():
        job = PrintJob.objects.create(
            kind=kind, owner=user, options=clean, snapshot=snapshot, state=BuildState.QUEUED
        )
        if enqueue:
            transaction.on_commit(partial(_enqueue_print, job.pk))
    return job


def _enqueue_print(job_id: int) -> None:
    tasks_print.print_job_run_task.delay(job_id)


PRINT_FILES = {
    PrintJob.Kind.ACTIVITY: "activity-cards.pdf",
    PrintJob.Kind.KNOWLEDGE: "knowledge-cards.pdf",
    PrintJob.Kind.KNOW: "know-blank-cards.pdf",
}


def _render_job(job: PrintJob, progress: _Progress) -> bytes:
    from .printing import render  # WeasyPrint: imported by the worker that prints, not the web

    options = _render_options(job.options, kind=job.kind)
    callback = progress.stage(5, 100)
    if job.kind == PrintJob.Kind.ACTIVITY:
        cards = tuple(
            ActivityCardData(number=c["number"], terms=tuple(tuple(t) for t in c["terms"]))
            for c in job.snapshot["cards"]
        )
        return bytes(render.render_activity_cards(cards, options, progress=callback))
    if job.kind == PrintJob.Kind.KNOWLEDGE:
        questions = tuple(
            KnowledgeCardData(
                number=q["number"],
                category=q["category"],
                front=q["front"],
                back=q["back"],
                answer_display=q["answer_display"],
            )
            for q in job.snapshot["cards"]
        )
        return bytes(render.render_knowledge_cards(questions, options, progress=callback))
    return bytes(
        render.render_know_cards(
            job.snapshot["questions"], job.snapshot["answers"], options, progress=callback
        )
    )


def print_job_run(*, job: PrintJob) -> PrintJob:
    """Render a queued print job from its snapshot; errors mark it FAILED (progress kept)."""
    with transaction.atomic():
        job = PrintJob.objects.select_for_update().get(pk=job.pk)
        if not _claimable(job):
            return job
        job.state, job.progress, job.message = BuildState.RUNNING, 0, ""
        job.save(update_fields=["state", "progress", "message", "updated"])

    progress = _Progress(PrintJob, job.pk)
    files: dict[str, str] = {}
    try:
        progress.set(5)
        if job.options.get("render", True):
            name = PRINT_FILES[PrintJob.Kind(job.kind)]
            files[name] = _store(f"{private_folder('prints', job.pk)}/{name}", _render_job(job, progress))
    except Exception as error:
        logger.warning("Print job %s failed", job.pk, exc_info=True)
        _fail(PrintJob, job.pk, _teacher_message(error, what="PDF"))
        job.refresh_from_db()
        return job

    with transaction.atomic():
        job = PrintJob.objects.select_for_update().get(pk=job.pk)
        job.files, job.state, job.progress = files, BuildState.DONE, 100
        job.message = ""
        job.save(update_fields=["files", "state", "progress", "message", "updated"])
    return job


def print_job_delete(*, job: PrintJob) -> None:
    names = list((job.files or {}).values())
    job.delete()
    transaction.on_commit(partial(_delete_files, names))


def print_job_fail(*, job_id: int, message: str) -> None:
    _fail(PrintJob, job_id, message)


def print_job_retry(*, job: PrintJob, user: Any) -> PrintJob:
    """Put a FAILED print back in the queue ("Try again"); it is rendered from its snapshot."""
    return _retry(PrintJob, job.pk, user, _enqueue_print)
