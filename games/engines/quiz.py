"""Quizzes: what was played becomes a quiz, generated from plain data and graded here.

Issue 8 (post-game quizzes) and the ZnajZnak rulebook's teacher's notes ask for a
follow-up quiz that checks what was learned.  This module takes an item :class:`Pool`
(symbols with their names, accepted alternative names, periods, themes, description,
outline and picture key; Knowledge? quiz cards; Know questions with their best-marked
answers), a seed and the number of items wanted of each kind, and returns the items,
always the same for the same pool, counts and seed.

Item kinds (``KINDS``) and how each is graded (:func:`grade`):

* ``picture_name``: a symbol's picture, pick its name among 4 (3 distractors, at least 2).
  Right or wrong.
* ``picture_name_typed``: a symbol's picture, type its name.  It counts exactly as a
  naming in play does (:func:`games.engines.names.name_matches`: case, Polish diacritics,
  punctuation and spaces ignored; the accepted alternative names count).
* ``name_picture``: a symbol's name, pick its picture among 4.
* ``periods``: a symbol (name and picture), tick every period it belongs to.  Partial
  credit: every period ticked rightly earns ``1/n`` of the point (``n`` = the symbol's
  periods), every period ticked wrongly takes ``1/n`` away, never below 0.  So all the
  right periods and no other is the full point; nothing ticked is 0.
* ``text_symbol``: a symbol's explanatory description or historical outline with its
  name (and the alternative names, inflected forms included) blanked out as ``___``;
  pick the symbol's name among 4.  A text still showing the name is never used.
* ``knowledge``: a Knowledge? quiz card's front; the answer is a number 0–5, a letter
  A–E or a colour, "checked against the card" (Knowledge? rulebook, The Quiz Cards).
  A card listing several letters or colours ("C/D") takes any one of them as right:
  at the table they mean "the nearest available of these", and any of them moves the
  marker.
* ``know``: a question written in a Know game; the student types the answer.  An answer
  matching one of the best-marked answers (compared as names are) is marked right at once;
  anything else non-empty waits for the teacher's mark (``needs_marking``).
* ``connect``: "Connect the symbols": a handful of symbols (4–6) sorted into 2–3 groups by
  a key (their period or theme); each symbol belongs to exactly one of the groups shown.
  One point per symbol placed rightly.
* ``period``: a symbol's name; pick the one chronological period it belongs to among the
  periods (at least 3).  Only symbols of exactly one of the periods shown are asked.
  Right or wrong.
* ``chronology``: 3–6 events (symbols with dates, or a teacher's chronology question) shown
  in a shuffled order; put them in order, earliest first.  Partial credit by pairs in
  order (:func:`order_pairs`): of the ``n·(n−1)/2`` pairs of events, the share the student
  put in the same order as the dates is the score.  All in order is 1, all reversed 0.
  No two events of one item have dates that cannot be told apart (:func:`dates_apart`).
* ``matching``: 3–6 things on the left (symbols, or a teacher's left-hand side) paired one to
  one with as many on the right (their periods, their themes or their descriptions with the
  name blanked out, or the teacher's right-hand side).  One point per pair matched rightly.
* ``choice``: a teacher-written multiple-choice question (text and maybe a picture) with 2–6
  options (texts, pictures or both), exactly one of them right.  Right or wrong.

Teacher-written questions (:class:`QuestionEntry`: ``choice``, ``chronology`` and
``matching``) are checked by :func:`question_problems` where they are authored and
imported; a question that cannot be answered fairly is never asked.  Every question in a
pool is asked (:func:`counts_plan` keeps a place for each) before anything else is shared out.

Rules every quiz keeps (tested as properties in ``tests/games/engines``):

* determinism: same pool, counts and seed give the same items;
* no repeats: a symbol, card or question is the subject of at most one item (a connect
  item's symbols included), so one item never answers another;
* no item pairs a symbol's name with its picture (``periods`` and ``connect`` show names
  only), so the pictures of one item never tell the answer of another;
* no leaks: no distractor equals the answer or one of its accepted names (compared as
  names are), no two options read the same; the public ``prompt`` of an item holds no
  answer, no symbol key and no picture key: pictures are named by tokens (``q`` for the
  prompt's picture, the option id otherwise) that only the secret ``key`` resolves;
* a pool too small for what was asked raises :class:`QuizTooSmall`, saying which kind,
  how many were asked and how many the pool allows.

Example::

    >>> pool = Pool(symbols=tuple(
    ...     SymbolEntry(key=f"symbol:{n}", name=f"Name {n}", periods=("prl",), picture=f"p{n}")
    ...     for n in range(1, 7)), periods=(Label("prl", "PRL"),))
    >>> quiz = generate(pool, {"picture_name": 2}, seed=1)
    >>> [item.kind for item in quiz]
    ['picture_name', 'picture_name']
    >>> grade(quiz[0], {"choice": quiz[0].key["answer"]}).score
    1.0

Pure Python, standard library only.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date as _date
from functools import lru_cache
from random import Random
from typing import Any

from .base import rng_for
from .names import name_matches, normalise_name

__all__ = [
    "KINDS",
    "Grade",
    "InvalidAnswer",
    "Item",
    "KnowEntry",
    "KnowledgeEntry",
    "Label",
    "OptionEntry",
    "Part",
    "Pool",
    "Problem",
    "QuestionEntry",
    "QuizTooSmall",
    "SymbolEntry",
    "answer_clean",
    "capacity",
    "capacity_of_questions",
    "counts_plan",
    "date_parse",
    "dates_apart",
    "generate",
    "grade",
    "item_new",
    "order_pairs",
    "question_problems",
    "redact",
]

PICTURE_NAME = "picture_name"
PICTURE_NAME_TYPED = "picture_name_typed"
NAME_PICTURE = "name_picture"
PERIODS = "periods"
TEXT_SYMBOL = "text_symbol"
KNOWLEDGE = "knowledge"
KNOW = "know"
CONNECT = "connect"
PERIOD = "period"
CHRONOLOGY = "chronology"
MATCHING = "matching"
CHOICE = "choice"

#: Every item kind, in the order a quiz is filled (the kinds needing most of the pool first).
KINDS = (
    CHOICE,
    CHRONOLOGY,
    MATCHING,
    CONNECT,
    NAME_PICTURE,
    PERIODS,
    PERIOD,
    TEXT_SYMBOL,
    PICTURE_NAME,
    PICTURE_NAME_TYPED,
    KNOWLEDGE,
    KNOW,
)
SYMBOL_KINDS = frozenset({CONNECT, NAME_PICTURE, PERIODS, TEXT_SYMBOL, PICTURE_NAME, PICTURE_NAME_TYPED})
#: The kinds a teacher writes questions of (:class:`QuestionEntry`).
QUESTION_KINDS = (CHOICE, CHRONOLOGY, MATCHING)
#: Kinds whose items report each of their symbols to progress on its own (:func:`subject_results`).
SPLIT_KINDS = frozenset({CONNECT, CHRONOLOGY, MATCHING})

OPTIONS = 4
MIN_OPTIONS = 3
OPTION_IDS = "abcdef"
CONNECT_SIZES = (6, 5, 4)
#: Events of a chronology made of symbols, most first; a teacher's question has 3–6.
CHRONOLOGY_SIZES = (4, 3)
#: Pairs of a matching made of symbols, most first; a teacher's question has 3–6.
MATCHING_SIZES = (4, 3)
#: How many options, events and pairs a teacher-written question may have.
QUESTION_SIZES = {CHOICE: (2, 6), CHRONOLOGY: (3, 6), MATCHING: (3, 6)}
NUMBERS = (0, 1, 2, 3, 4, 5)
LETTERS = ("A", "B", "C", "D", "E")
COLOURS = ("red", "yellow", "green", "blue", "white")
BLANK = "___"


class QuizTooSmall(ValueError):
    """The pool cannot give as many items of ``kind`` as were asked.

    ``available`` is how many it can give (given the items already chosen).
    """

    def __init__(self, kind: str, wanted: int, available: int, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.wanted = wanted
        self.available = available


class InvalidAnswer(ValueError):
    """An answer does not fit its item (wrong shape or an option the item does not have)."""


@dataclass(frozen=True)
class Label:
    """A period or theme: its key and the label shown."""

    key: str
    label: str


@dataclass(frozen=True)
class SymbolEntry:
    """A ZnajZnak symbol as the quiz needs it; ``key`` is its progress item key.

    ``picture`` is an opaque picture key ("" for none) that stays on the server.
    ``weight`` > 1 makes the symbol likelier to be asked (named wrongly in play, say).
    """

    key: str
    name: str
    alternatives: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    description: str = ""
    outline: str = ""
    picture: str = ""
    weight: float = 1.0
    #: When the symbol's event happened (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``; "" for none).
    date: str = ""


@dataclass(frozen=True)
class KnowledgeEntry:
    """A Knowledge? quiz card: ``answer`` is 0–5 (number) or letters/colours."""

    key: str
    category: str
    front: str
    answer: int | tuple[str, ...]
    back: str = ""
    weight: float = 1.0


@dataclass(frozen=True)
class KnowEntry:
    """A Know question with the answers its marking named best (maybe none)."""

    key: str
    question: str
    best_answers: tuple[str, ...] = ()
    weight: float = 1.0


@dataclass(frozen=True)
class OptionEntry:
    """One option of a teacher-written question.

    For ``choice`` an answer to pick (``correct`` marks the right one); for ``chronology``
    an event and its ``date``; for ``matching`` the left-hand side and, in ``match``, the
    right-hand side it pairs with.  ``picture`` is an opaque picture key ("" for none).
    """

    text: str = ""
    picture: str = ""
    correct: bool = False
    date: str = ""
    match: str = ""


@dataclass(frozen=True)
class QuestionEntry:
    """A question a teacher wrote: ``kind`` is ``choice``, ``chronology`` or ``matching``."""

    key: str
    kind: str
    text: str
    options: tuple[OptionEntry, ...]
    picture: str = ""
    explanation: str = ""
    weight: float = 1.0


@dataclass(frozen=True)
class Pool:
    symbols: tuple[SymbolEntry, ...] = ()
    knowledge: tuple[KnowledgeEntry, ...] = ()
    know: tuple[KnowEntry, ...] = ()
    periods: tuple[Label, ...] = ()
    themes: tuple[Label, ...] = ()
    questions: tuple[QuestionEntry, ...] = ()

    def symbol(self, key: str) -> SymbolEntry:
        for entry in self.symbols:
            if entry.key == key:
                return entry
        raise KeyError(key)


@dataclass(frozen=True)
class Item:
    """One quiz item: ``prompt`` is public, ``key`` secret (answer, subjects, pictures).

    ``key["subjects"]`` are the progress item keys the item asks about.
    """

    kind: str
    prompt: Mapping[str, Any]
    key: Mapping[str, Any]
    points: int = 1

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(self.key.get("subjects", ()))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "prompt": dict(self.prompt), "key": dict(self.key), "points": self.points}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Item:
        return cls(kind=str(data["kind"]), prompt=data["prompt"], key=data["key"], points=int(data["points"]))


@dataclass(frozen=True)
class Part:
    """Feedback on one part of an answer: what was asked, given and expected."""

    label: str
    correct: bool
    given: str
    expected: str


@dataclass(frozen=True)
class Grade:
    """``score`` of ``points``; ``fraction`` is what progress records (0–1)."""

    score: float
    points: int
    needs_marking: bool = False
    parts: tuple[Part, ...] = field(default=())

    @property
    def fraction(self) -> float:
        return self.score / self.points if self.points else 0.0


# --- names and texts ----------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _normal(text: str) -> str:
    return normalise_name(text)


@lru_cache(maxsize=16384)
def _names_of(entry: SymbolEntry) -> frozenset[str]:
    """The compared forms of a symbol's name and alternative names (as ``name_matches`` does)."""
    forms = (_normal(name).replace(" ", "") for name in (entry.name, *entry.alternatives))
    return frozenset(form for form in forms if form)


def _same_name(a: SymbolEntry, b: SymbolEntry) -> bool:
    """Whether ``a`` and ``b`` could be taken for one another by their names (or aliases):
    one of ``a``'s names typed for ``b`` would count (``names.name_matches``)."""
    return not _names_of(a).isdisjoint(_names_of(b))


@lru_cache(maxsize=262144)
def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, _normal(a), _normal(b)).ratio()


_UNDECOMPOSABLE = str.maketrans({"ł": "l", "Ł": "l", "đ": "d", "ø": "o", "æ": "a", "œ": "o"})


def _fold_char(char: str) -> str:
    """One character, casefolded and without its accent; always exactly one character."""
    base = unicodedata.normalize("NFKD", char.translate(_UNDECOMPOSABLE))
    kept = "".join(c for c in base if unicodedata.category(c) not in ("Mn", "Me")).casefold()
    return kept[:1] if kept else char.casefold()[:1] or " "


def _word_pattern(word: str) -> str:
    """A word and its inflected forms: "krajowa" also matches "krajowej", "armia" "armii"."""
    if len(word) <= 3:
        return re.escape(word)
    stem = word[: max(3, len(word) - 2)]
    return re.escape(stem) + r"\w*"


def redact(text: str, names: Iterable[str]) -> str:
    """``text`` with every one of ``names`` (inflected, any case or accents) blanked out.

    >>> redact("Żołnierze Armii Krajowej walczyli.", ["Armia Krajowa", "AK"])
    'Żołnierze ___ walczyli.'
    >>> redact("Symbol AK na murze.", ["Armia Krajowa", "AK"])
    'Symbol ___ na murze.'
    """
    folded = "".join(_fold_char(char) for char in text)
    spans: list[tuple[int, int]] = []
    for name in names:
        words = normalise_name(name).split()
        if not words:
            continue
        pattern = r"(?<!\w)" + r"[\W_]*".join(_word_pattern(word) for word in words) + r"(?!\w)"
        spans.extend(match.span() for match in re.finditer(pattern, folded))
    if not spans:
        return text
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    out, last = [], 0
    for start, end in merged:
        out.append(text[last:start])
        out.append(BLANK)
        last = end
    out.append(text[last:])
    return "".join(out)


def _mentions(text: str, entry: SymbolEntry) -> bool:
    """Whether ``text`` still shows the symbol's name or an alternative name."""
    haystack = " " + normalise_name(text) + " "
    return any(
        f" {normalise_name(name)} " in haystack
        for name in (entry.name, *entry.alternatives)
        if normalise_name(name)
    )


# --- dates and teacher-written questions ---------------------------------------------------------

_DATE = re.compile(r"(\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def date_parse(text: str) -> tuple[int, ...]:
    """A date as ``(year,)``, ``(year, month)`` or ``(year, month, day)``; ``ValueError``
    when ``text`` is not ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` or no such day exists.

    >>> date_parse("1944-08-01"), date_parse("1980-08"), date_parse("1918")
    ((1944, 8, 1), (1980, 8), (1918,))
    """
    match = _DATE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a date: write YYYY, YYYY-MM or YYYY-MM-DD.")
    parts = tuple(int(part) for part in match.groups() if part is not None)
    try:
        _date(parts[0], *(parts[1:] + (1, 1))[:2])
    except ValueError as error:
        raise ValueError(f"{text!r} is no day of the calendar.") from error
    return parts


def dates_apart(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether one of two dates is surely before the other: they differ in a part both give.

    "1918" and "1918-11-11" cannot be told apart (November 1918 is in 1918), nor can two
    equal dates; "1918-03" and "1918-11" can.

    >>> dates_apart((1918,), (1918, 11, 11)), dates_apart((1918, 3), (1918, 11))
    (False, True)
    """
    return any(x != y for x, y in zip(a, b, strict=False))


@dataclass(frozen=True)
class Problem:
    """Why a teacher-written question cannot be answered fairly.

    ``code`` names the rule; ``options`` are the positions (from 0) of the options concerned
    and ``part`` the part of them to change (``text``, ``picture``, ``correct``, ``date``,
    ``match``), or of the question itself when ``options`` is empty (``text``, ``options``).
    The authoring pages and the import word it for people.
    """

    code: str
    options: tuple[int, ...] = ()
    part: str = ""


def _comparable(text: str) -> str:
    """A text as options are compared: case, accents, punctuation and spacing aside (the
    text itself, casefolded, when nothing but punctuation is left)."""
    return " ".join(normalise_name(text).split()) or " ".join(text.casefold().split())


def _same_text(a: str, b: str) -> bool:
    return _comparable(a) == _comparable(b)


def _doubles(values: Sequence[tuple[str, str]]) -> list[tuple[int, int]]:
    """Pairs of positions whose (text, picture) read the same; empty ones are left out."""
    found = []
    for i, (text_a, picture_a) in enumerate(values):
        for j in range(i + 1, len(values)):
            text_b, picture_b = values[j]
            if not (text_a.strip() or picture_a) or not (text_b.strip() or picture_b):
                continue
            if _same_text(text_a, text_b) and picture_a == picture_b:
                found.append((i, j))
    return found


def question_problems(
    kind: str, text: str, options: Sequence[OptionEntry], picture: str = ""
) -> list[Problem]:
    """Everything that keeps a teacher-written question from being answered fairly; [] if none.

    ``choice``: a question (text or picture), 2–6 options, each with a text or a picture,
    no two alike (same text, ignoring case and accents, and same picture), exactly one right.
    ``chronology``: 3–6 events, each with a text or picture and a date; no two events whose
    dates cannot be told apart (:func:`dates_apart`).
    ``matching``: 3–6 pairs, each with both sides (a left text or picture and a right text);
    no two left sides alike and no two right sides alike.

    ``picture`` values are compared as given: pass a digest of the file to compare contents.

    >>> [p.code for p in question_problems("choice", "Kiedy?", [OptionEntry("1918"), OptionEntry("1918 ")])]
    ['same_options', 'no_right']
    >>> question_problems("chronology", "", [OptionEntry("A", date="1918"), OptionEntry("B", date="1918-11"),
    ...     OptionEntry("C", date="1920")])
    [Problem(code='same_date', options=(0, 1), part='date')]
    """
    if kind not in QUESTION_SIZES:
        return [Problem("unknown_kind", (), "kind")]
    problems: list[Problem] = []
    low, high = QUESTION_SIZES[kind]
    if len(options) < low:
        problems.append(Problem("too_few", (), "options"))
    if len(options) > high:
        problems.append(Problem("too_many", (), "options"))
    if kind == CHOICE:
        if not text.strip() and not picture:
            problems.append(Problem("no_question", (), "text"))
        problems.extend(
            Problem("empty_option", (i,), "text")
            for i, option in enumerate(options)
            if not option.text.strip() and not option.picture
        )
        problems.extend(
            Problem("same_options", pair, "text") for pair in _doubles([(o.text, o.picture) for o in options])
        )
        right = tuple(i for i, option in enumerate(options) if option.correct)
        if not right:
            problems.append(Problem("no_right", (), "correct"))
        elif len(right) > 1:
            problems.append(Problem("several_right", right, "correct"))
    elif kind == CHRONOLOGY:
        dates: list[tuple[int, tuple[int, ...]]] = []
        for i, option in enumerate(options):
            if not option.text.strip() and not option.picture:
                problems.append(Problem("empty_option", (i,), "text"))
            if not option.date.strip():
                problems.append(Problem("no_date", (i,), "date"))
                continue
            try:
                dates.append((i, date_parse(option.date)))
            except ValueError:
                problems.append(Problem("bad_date", (i,), "date"))
        problems.extend(
            Problem("same_date", (i, j), "date")
            for n, (i, a) in enumerate(dates)
            for j, b in dates[n + 1 :]
            if not dates_apart(a, b)
        )
        problems.extend(
            Problem("same_options", pair, "text") for pair in _doubles([(o.text, o.picture) for o in options])
        )
    else:
        for i, option in enumerate(options):
            has_left = bool(option.text.strip() or option.picture)
            has_right = bool(option.match.strip())
            if has_left and not has_right:
                problems.append(Problem("unpaired", (i,), "match"))
            elif has_right and not has_left:
                problems.append(Problem("unpaired", (i,), "text"))
            elif not has_left:
                problems.append(Problem("empty_option", (i,), "text"))
        problems.extend(
            Problem("same_options", pair, "text") for pair in _doubles([(o.text, o.picture) for o in options])
        )
        problems.extend(
            Problem("same_options", pair, "match") for pair in _doubles([(o.match, "") for o in options])
        )
    return problems


# --- choosing -----------------------------------------------------------------------------------


def _weighted_order(entries: Sequence[Any], rng: Random) -> list[Any]:
    """``entries`` in a random order where heavier ones tend to come first.

    Efraimidis–Spirakis: each entry draws ``u ** (1 / weight)``; the largest come first.
    """
    keyed = []
    for index, entry in enumerate(entries):
        weight = max(float(entry.weight), 1e-6)
        keyed.append((rng.random() ** (1.0 / weight), -index, entry))
    keyed.sort(key=lambda triple: (triple[0], triple[1]), reverse=True)
    return [entry for _, _, entry in keyed]


def _plausibility(answer: SymbolEntry, other: SymbolEntry) -> float:
    """How easily ``other`` is mistaken for ``answer``: same period, same theme, similar name."""
    score = 0.0
    if set(answer.periods) & set(other.periods):
        score += 2.0
    if set(answer.themes) & set(other.themes):
        score += 2.0
    score += 2.0 * _similarity(answer.name, other.name)
    return score


def _distractors(
    answer: SymbolEntry, pool: Pool, rng: Random, *, need_picture: bool, wanted: int = OPTIONS - 1
) -> list[SymbolEntry]:
    """Up to ``wanted`` plausible wrong options: never the answer or a name taken for it."""
    candidates = [
        other
        for other in pool.symbols
        if other.key != answer.key
        and not _same_name(answer, other)
        and (not need_picture or (other.picture and other.picture != answer.picture))
    ]
    # The most plausible, with a random tie-break so that a set of lookalikes is not always
    # offered in the same company.
    ranked = sorted(candidates, key=lambda other: (-_plausibility(answer, other), rng.random()))
    chosen: list[SymbolEntry] = []
    for other in ranked[: wanted * 2] + ranked[wanted * 2 :]:
        if len(chosen) == wanted:
            break
        if any(_same_name(other, taken) for taken in chosen):
            continue
        if need_picture and any(other.picture == taken.picture for taken in chosen):
            continue
        chosen.append(other)
    return chosen


def _options(answer: Any, distractors: Sequence[Any], rng: Random) -> tuple[list[tuple[str, Any]], str]:
    """Shuffle answer and distractors; label them a, b, c...; return them and the answer's id."""
    entries = [answer, *distractors]
    rng.shuffle(entries)
    labelled = [(OPTION_IDS[index], entry) for index, entry in enumerate(entries)]
    answer_id = next(option for option, entry in labelled if entry is answer)
    return labelled, answer_id


def option_letter(index: int) -> str:
    """The letter the option at ``index`` is shown and printed with.

    An option's id may be an internal key (a period's slug, a colour's code) that nobody
    should have to read, so every list of options is lettered by position instead.

    >>> option_letter(0), option_letter(2)
    ('A', 'C')
    """
    return chr(ord("A") + index) if index < 26 else str(index + 1)


# --- one item of each kind ----------------------------------------------------------------------


def _period_labels(pool: Pool) -> dict[str, str]:
    return {label.key: label.label for label in pool.periods}


def _theme_labels(pool: Pool) -> dict[str, str]:
    return {label.key: label.label for label in pool.themes}


def _picture_name(entry: SymbolEntry, pool: Pool, rng: Random, typed: bool) -> Item | None:
    if not entry.picture:
        return None
    if typed:
        return Item(
            PICTURE_NAME_TYPED,
            {"picture": "q"},
            {
                "subjects": [entry.key],
                "name": entry.name,
                "alternatives": list(entry.alternatives),
                "pictures": {"q": entry.picture},
            },
        )
    distractors = _distractors(entry, pool, rng, need_picture=False)
    if len(distractors) < MIN_OPTIONS - 1:
        return None
    options, answer = _options(entry, distractors, rng)
    return Item(
        PICTURE_NAME,
        {"picture": "q", "options": [{"id": option, "text": other.name} for option, other in options]},
        {"subjects": [entry.key], "answer": answer, "name": entry.name, "pictures": {"q": entry.picture}},
    )


def _name_picture(entry: SymbolEntry, pool: Pool, rng: Random) -> Item | None:
    if not entry.picture:
        return None
    distractors = _distractors(entry, pool, rng, need_picture=True)
    if len(distractors) < MIN_OPTIONS - 1:
        return None
    options, answer = _options(entry, distractors, rng)
    return Item(
        NAME_PICTURE,
        {"name": entry.name, "options": [{"id": option, "picture": option} for option, _ in options]},
        {
            "subjects": [entry.key],
            "answer": answer,
            "name": entry.name,
            "pictures": {option: other.picture for option, other in options},
            "names": {option: other.name for option, other in options},
        },
    )


def _periods(entry: SymbolEntry, pool: Pool) -> Item | None:
    labels = _period_labels(pool)
    right = [period for period in labels if period in entry.periods]
    if not right or len(labels) < 2:
        return None
    # The name only: a picture beside it would answer another item's "which picture".
    prompt: dict[str, Any] = {
        "name": entry.name,
        "options": [{"id": key, "label": label} for key, label in labels.items()],
    }
    return Item(PERIODS, prompt, {"subjects": [entry.key], "answer": right, "name": entry.name})


def _text_symbol(entry: SymbolEntry, pool: Pool, rng: Random) -> Item | None:
    names = (entry.name, *entry.alternatives)
    texts = [("outline", entry.outline), ("description", entry.description)]
    rng.shuffle(texts)
    for source, text in texts:
        if not text.strip():
            continue
        shown = redact(text, names)
        if _mentions(shown, entry) or not normalise_name(shown.replace(BLANK, " ")):
            continue
        distractors = _distractors(entry, pool, rng, need_picture=False)
        if len(distractors) < MIN_OPTIONS - 1:
            return None
        options, answer = _options(entry, distractors, rng)
        return Item(
            TEXT_SYMBOL,
            {
                "source": source,
                "text": shown,
                "options": [{"id": o, "text": other.name} for o, other in options],
            },
            {"subjects": [entry.key], "answer": answer, "name": entry.name},
        )
    return None


def _knowledge_options(category: str) -> list[str]:
    if category == "number":
        return [str(number) for number in NUMBERS]
    return list(LETTERS if category == "letter" else COLOURS)


def _knowledge(entry: KnowledgeEntry) -> Item | None:
    if entry.category not in ("number", "letter", "colour") or not entry.front.strip():
        return None
    answer = [str(entry.answer)] if isinstance(entry.answer, int) else [str(a) for a in entry.answer]
    if not answer or any(value not in _knowledge_options(entry.category) for value in answer):
        return None
    return Item(
        KNOWLEDGE,
        {"category": entry.category, "text": entry.front, "options": _knowledge_options(entry.category)},
        {"subjects": [entry.key], "answer": answer, "back": entry.back},
    )


def _know(entry: KnowEntry) -> Item | None:
    if not entry.question.strip():
        return None
    return Item(
        KNOW,
        {"text": entry.question},
        {"subjects": [entry.key], "best_answers": [a for a in entry.best_answers if a.strip()]},
    )


def _connect(pool: Pool, free: Sequence[SymbolEntry], rng: Random) -> Item | None:
    """A handful of symbols sorted into 2–3 groups of one key (period or theme).

    Only symbols belonging to exactly one of the chosen groups are dealt, so every symbol
    has one right group.
    """
    keys = [("period", _period_labels(pool)), ("theme", _theme_labels(pool))]
    rng.shuffle(keys)
    ordered = _weighted_order(free, rng)
    for key_kind, labels in keys:
        group_keys = list(labels)
        rng.shuffle(group_keys)
        for group_count in (3, 2):
            for start in range(max(0, len(group_keys) - group_count + 1)):
                groups = group_keys[start : start + group_count]
                if len(groups) < group_count:
                    continue
                members: dict[str, list[SymbolEntry]] = {group: [] for group in groups}
                for entry in ordered:
                    held = entry.periods if key_kind == "period" else entry.themes
                    inside = [group for group in groups if group in held]
                    if len(inside) == 1:
                        members[inside[0]].append(entry)
                if any(len(found) < 2 for found in members.values()):
                    continue
                for size in CONNECT_SIZES:
                    picked = _connect_pick(members, size)
                    if picked is not None:
                        return _connect_item(key_kind, labels, groups, picked, rng)
    return None


def _connect_pick(
    members: Mapping[str, list[SymbolEntry]], size: int
) -> list[tuple[str, SymbolEntry]] | None:
    """``size`` symbols, at least two per group, taken round-robin; none sharing a name."""
    if sum(len(found) for found in members.values()) < size or size < 2 * len(members):
        return None
    picked: list[tuple[str, SymbolEntry]] = []
    queues = {group: list(found) for group, found in members.items()}
    while len(picked) < size and any(queues.values()):
        for group, queue in queues.items():
            while queue and len(picked) < size:
                entry = queue.pop(0)
                if not any(_same_name(entry, other) for _, other in picked):
                    picked.append((group, entry))
                    break
    counts = {group: sum(1 for g, _ in picked if g == group) for group in members}
    if len(picked) < size or min(counts.values()) < 2:
        return None
    return picked


def _connect_item(
    key_kind: str,
    labels: Mapping[str, str],
    groups: Sequence[str],
    picked: list[tuple[str, SymbolEntry]],
    rng: Random,
) -> Item:
    rng.shuffle(picked)
    ids = [f"s{index}" for index in range(1, len(picked) + 1)]
    # Names only, as for ``periods``: no item pairs a name with its picture.
    prompt_symbols = [
        {"id": symbol_id, "name": entry.name} for symbol_id, (_, entry) in zip(ids, picked, strict=True)
    ]
    ordered_groups = sorted(groups, key=lambda group: list(labels).index(group))
    return Item(
        CONNECT,
        {
            "by": key_kind,
            "groups": [{"id": group, "label": labels[group]} for group in ordered_groups],
            "symbols": prompt_symbols,
        },
        {
            "subjects": [entry.key for _, entry in picked],
            "answer": {symbol_id: group for symbol_id, (group, _) in zip(ids, picked, strict=True)},
            "names": {symbol_id: entry.name for symbol_id, (_, entry) in zip(ids, picked, strict=True)},
            "symbol_subjects": {
                symbol_id: entry.key for symbol_id, (_, entry) in zip(ids, picked, strict=True)
            },
        },
        points=len(picked),
    )


def _period(entry: SymbolEntry, pool: Pool) -> Item | None:
    """Which one period: only a symbol of exactly one of the pool's periods, among 3 or more."""
    labels = list(pool.periods)
    held = [index for index, label in enumerate(labels) if label.key in entry.periods]
    if len(held) != 1 or len(labels) < MIN_OPTIONS or len(labels) > len(OPTION_IDS):
        return None
    # The name only, as for ``periods``: a picture beside it would answer another item.
    return Item(
        PERIOD,
        {
            "name": entry.name,
            "options": [{"id": OPTION_IDS[i], "label": label.label} for i, label in enumerate(labels)],
        },
        {"subjects": [entry.key], "answer": OPTION_IDS[held[0]], "name": entry.name},
    )


@dataclass(frozen=True)
class _Event:
    text: str
    when: tuple[int, ...]
    date: str
    picture: str = ""
    subject: str = ""


def _chronology_symbols(free: Sequence[SymbolEntry], rng: Random) -> Item | None:
    """3–4 dated symbols, heavier first, no two whose dates cannot be told apart."""
    picked: list[tuple[SymbolEntry, tuple[int, ...]]] = []
    for entry in _weighted_order(free, rng):
        if not entry.date:
            continue
        try:
            when = date_parse(entry.date)
        except ValueError:
            continue
        if any(not dates_apart(when, other) or _same_name(entry, taken) for taken, other in picked):
            continue
        picked.append((entry, when))
        if len(picked) == CHRONOLOGY_SIZES[0]:
            break
    if len(picked) < CHRONOLOGY_SIZES[-1]:
        return None
    # Names only: no item pairs a symbol's name with its picture.
    events = [_Event(entry.name, when, entry.date, subject=entry.key) for entry, when in picked]
    return _order_item(events, rng, subjects=[entry.key for entry, _ in picked], per_event=True)


def _order_item(
    events: Sequence[_Event],
    rng: Random,
    *,
    subjects: list[str],
    per_event: bool,
    text: str = "",
    picture: str = "",
) -> Item:
    """The events shuffled (never already in order); ids given in the shown order, so that
    an id says nothing about a date."""
    right = sorted(range(len(events)), key=lambda index: events[index].when)
    shown = list(range(len(events)))
    rng.shuffle(shown)
    if shown == right:
        shown = shown[1:] + shown[:1]
    ids = {index: f"e{position}" for position, index in enumerate(shown, start=1)}
    prompt: dict[str, Any] = {
        "events": [
            {"id": ids[i], "text": events[i].text, **({"picture": ids[i]} if events[i].picture else {})}
            for i in shown
        ]
    }
    pictures = {ids[i]: events[i].picture for i in shown if events[i].picture}
    if text.strip():
        prompt["text"] = text
    if picture:
        prompt["picture"] = "q"
        pictures["q"] = picture
    key: dict[str, Any] = {
        "subjects": subjects,
        "answer": [ids[i] for i in right],
        "dates": {ids[i]: events[i].date for i in right},
        "names": {ids[i]: events[i].text for i in right},
    }
    if pictures:
        key["pictures"] = pictures
    if per_event:
        key["event_subjects"] = {ids[i]: events[i].subject for i in right}
    return Item(CHRONOLOGY, prompt, key)


@dataclass(frozen=True)
class _Pair:
    left: str
    right: str
    picture: str = ""
    subject: str = ""


def _matching_symbols(pool: Pool, free: Sequence[SymbolEntry], rng: Random) -> Item | None:
    """3–4 symbols, each paired with its own period, theme or description (the name blanked out)."""
    ordered = _weighted_order(free, rng)
    sources = ["period", "theme", "description"]
    rng.shuffle(sources)
    for by in sources:
        pairs = (
            _matching_by_text(ordered) if by == "description" else _matching_by_label(pool, ordered, by, rng)
        )
        if len(pairs) >= MATCHING_SIZES[-1]:
            return _matching_item(pairs, rng, by=by, subjects=[pair.subject for pair in pairs], per_pair=True)
    return None


def _matching_by_label(pool: Pool, ordered: Sequence[SymbolEntry], by: str, rng: Random) -> list[_Pair]:
    """Symbols each holding exactly one of the labels shown, a different one each."""
    labels = _period_labels(pool) if by == "period" else _theme_labels(pool)

    def held(entry: SymbolEntry) -> list[str]:
        return [key for key in (entry.periods if by == "period" else entry.themes) if key in labels]

    picked: list[tuple[SymbolEntry, str]] = []
    for entry in ordered:
        own = held(entry)
        chosen = {label for _, label in picked}
        if chosen & set(own) or any(_same_name(entry, other) for other, _ in picked):
            continue  # it belongs to a label already shown: two right pairs
        free = [label for label in own if not any(label in held(other) for other, _ in picked)]
        if not free:
            continue
        rng.shuffle(free)
        picked.append((entry, free[0]))
        if len(picked) == MATCHING_SIZES[0]:
            break
    return [_Pair(entry.name, labels[label], subject=entry.key) for entry, label in picked]


def _matching_by_text(ordered: Sequence[SymbolEntry]) -> list[_Pair]:
    """Symbols with their descriptions, the name blanked out; no description naming another
    symbol shown, no two descriptions alike."""
    picked: list[tuple[SymbolEntry, str]] = []
    for entry in ordered:
        if not entry.description.strip():
            continue
        shown = redact(entry.description, (entry.name, *entry.alternatives))
        if _mentions(shown, entry) or not normalise_name(shown.replace(BLANK, " ")):
            continue
        if any(
            _same_name(entry, other)
            or _mentions(shown, other)
            or _mentions(text, entry)
            or _same_text(shown, text)
            for other, text in picked
        ):
            continue
        picked.append((entry, shown))
        if len(picked) == MATCHING_SIZES[0]:
            break
    return [_Pair(entry.name, shown, subject=entry.key) for entry, shown in picked]


def _matching_item(
    pairs: Sequence[_Pair],
    rng: Random,
    *,
    by: str,
    subjects: list[str],
    per_pair: bool,
    text: str = "",
    picture: str = "",
) -> Item:
    """Both sides shuffled on their own (never pair for pair in line); ids given in the
    shown order, so that ``l2`` says nothing about ``r2``."""
    count = len(pairs)
    left = list(range(count))
    right = list(range(count))
    rng.shuffle(left)
    rng.shuffle(right)
    if right == left:
        right = right[1:] + right[:1]
    left_ids = {index: f"l{position}" for position, index in enumerate(left, start=1)}
    right_ids = {index: f"r{position}" for position, index in enumerate(right, start=1)}
    prompt: dict[str, Any] = {
        "by": by,
        "left": [
            {
                "id": left_ids[i],
                "text": pairs[i].left,
                **({"picture": left_ids[i]} if pairs[i].picture else {}),
            }
            for i in left
        ],
        "right": [{"id": right_ids[i], "text": pairs[i].right} for i in right],
    }
    pictures = {left_ids[i]: pairs[i].picture for i in left if pairs[i].picture}
    if text.strip():
        prompt["text"] = text
    if picture:
        prompt["picture"] = "q"
        pictures["q"] = picture
    key: dict[str, Any] = {
        "subjects": subjects,
        "answer": {left_ids[i]: right_ids[i] for i in left},
        "names": {left_ids[i]: pairs[i].left for i in left},
    }
    if pictures:
        key["pictures"] = pictures
    if per_pair:
        key["pair_subjects"] = {left_ids[i]: pairs[i].subject for i in left}
    return Item(MATCHING, prompt, key, points=count)


def _question_item(question: QuestionEntry, rng: Random) -> Item | None:
    """The item of a teacher-written question, or None if it cannot be answered fairly."""
    if question_problems(question.kind, question.text, question.options, question.picture):
        return None
    options = question.options
    if question.kind == CHRONOLOGY:
        events = [
            _Event(option.text, date_parse(option.date), option.date.strip(), option.picture)
            for option in options
        ]
        return _order_item(
            events,
            rng,
            subjects=[question.key],
            per_event=False,
            text=question.text,
            picture=question.picture,
        )
    if question.kind == MATCHING:
        pairs = [_Pair(option.text, option.match, option.picture) for option in options]
        return _matching_item(
            pairs,
            rng,
            by="question",
            subjects=[question.key],
            per_pair=False,
            text=question.text,
            picture=question.picture,
        )
    # Multiple choice: the options in the author's order ("none of the above" stays last).
    ids = OPTION_IDS[: len(options)]
    answer = next(ids[i] for i, option in enumerate(options) if option.correct)
    prompt: dict[str, Any] = {
        "text": question.text,
        "options": [
            {"id": ids[i], "text": option.text, **({"picture": ids[i]} if option.picture else {})}
            for i, option in enumerate(options)
        ],
    }
    pictures = {ids[i]: option.picture for i, option in enumerate(options) if option.picture}
    if question.picture:
        prompt["picture"] = "q"
        pictures["q"] = question.picture
    key: dict[str, Any] = {"subjects": [question.key], "answer": answer}
    if pictures:
        key["pictures"] = pictures
    if question.explanation.strip():
        key["explanation"] = question.explanation
    return Item(CHOICE, prompt, key)


def capacity_of_questions(pool: Pool) -> dict[str, int]:
    """How many of the pool's teacher-written questions of each kind can be asked (fair ones).

    >>> capacity_of_questions(Pool())
    {'choice': 0, 'chronology': 0, 'matching': 0}
    """
    return _questions_usable(pool)


def _questions_usable(pool: Pool) -> dict[str, int]:
    """How many of the pool's teacher-written questions of each kind can be asked."""
    found = dict.fromkeys(QUESTION_KINDS, 0)
    for question in pool.questions:
        if question.kind in found and not question_problems(
            question.kind, question.text, question.options, question.picture
        ):
            found[question.kind] += 1
    return found


def item_new(pool: Pool, kind: str, rng: Random, used: set[str]) -> Item | None:
    """One new item of ``kind`` about a subject not in ``used`` (``used`` grows), or None.

    >>> pool = Pool(symbols=tuple(SymbolEntry(key=f"symbol:{n}", name=f"S{n}", picture="p")
    ...     for n in range(3)))
    >>> item_new(pool, "picture_name_typed", rng_for(1), set()).kind
    'picture_name_typed'
    """
    if kind not in KINDS:
        raise ValueError(f"Unknown item kind {kind!r}; use one of {', '.join(KINDS)}.")
    item: Item | None = None
    if kind in QUESTION_KINDS:
        # The teacher's own questions first; then, for chronology and matching, the symbols.
        questions = [q for q in pool.questions if q.kind == kind and q.key not in used]
        item = next((made for q in _weighted_order(questions, rng) if (made := _question_item(q, rng))), None)
        free = [entry for entry in pool.symbols if entry.key not in used]
        if item is None and kind == CHRONOLOGY:
            item = _chronology_symbols(free, rng)
        elif item is None and kind == MATCHING:
            item = _matching_symbols(pool, free, rng)
    elif kind == CONNECT:
        free = [entry for entry in pool.symbols if entry.key not in used]
        item = _connect(pool, free, rng)
    elif kind == PERIOD:
        item = next(
            (
                made
                for entry in _weighted_order([e for e in pool.symbols if e.key not in used], rng)
                if (made := _period(entry, pool))
            ),
            None,
        )
    elif kind in SYMBOL_KINDS:
        item = None
        for entry in _weighted_order([e for e in pool.symbols if e.key not in used], rng):
            if kind in (PICTURE_NAME, PICTURE_NAME_TYPED):
                item = _picture_name(entry, pool, rng, typed=kind == PICTURE_NAME_TYPED)
            elif kind == NAME_PICTURE:
                item = _name_picture(entry, pool, rng)
            elif kind == PERIODS:
                item = _periods(entry, pool)
            else:
                item = _text_symbol(entry, pool, rng)
            if item is not None:
                break
    elif kind == KNOWLEDGE:
        item = next(
            (
                made
                for e in _weighted_order([e for e in pool.knowledge if e.key not in used], rng)
                if (made := _knowledge(e))
            ),
            None,
        )
    else:
        item = next(
            (
                made
                for e in _weighted_order([e for e in pool.know if e.key not in used], rng)
                if (made := _know(e))
            ),
            None,
        )
    if item is not None:
        used.update(item.subjects)
    return item


TOO_SMALL = {
    PICTURE_NAME: "symbols with a picture and at least 2 others whose names cannot be taken for theirs",
    PICTURE_NAME_TYPED: "symbols with a picture",
    NAME_PICTURE: "symbols with a picture and at least 2 others with different pictures",
    PERIODS: "symbols with a period (and at least 2 periods to choose from)",
    TEXT_SYMBOL: (
        "symbols with a description or outline that still says something once the name is blanked out"
    ),
    KNOWLEDGE: "Knowledge? cards",
    KNOW: "Know questions",
    CONNECT: "handfuls of 4 symbols in 2 periods or themes (2 per group, each in only one group)",
    PERIOD: "symbols of exactly one period (and at least 3 periods to choose from)",
    CHRONOLOGY: "chronology questions or handfuls of 3 symbols with dates that can be told apart",
    MATCHING: ("matching questions or handfuls of 3 symbols, each with its own period, theme or description"),
    CHOICE: "multiple-choice questions written by teachers",
}


def generate(pool: Pool, counts: Mapping[str, int], seed: int) -> list[Item]:
    """``counts[kind]`` items of each kind, deterministic for ``seed``, in a shuffled order.

    Raises :class:`QuizTooSmall` for the first kind the pool cannot fill, and ``ValueError``
    for an unknown kind or a negative count.

    >>> pool = Pool(symbols=(SymbolEntry(key="symbol:1", name="Kotwica", picture="p1"),))
    >>> generate(pool, {"picture_name_typed": 2}, seed=3)
    Traceback (most recent call last):
    ...
    games.engines.quiz.QuizTooSmall: Only 1 picture → name (typed) item can be made from this pool, \
not 2: it needs symbols with a picture.
    """
    for kind, count in counts.items():
        if kind not in KINDS:
            raise ValueError(f"Unknown item kind {kind!r}; use one of {', '.join(KINDS)}.")
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"The number of {kind} items must be a whole number, 0 or more.")
    used: set[str] = set()
    items: list[Item] = []
    for kind in KINDS:
        wanted = counts.get(kind, 0)
        rng = rng_for(seed, "quiz", kind)
        made = 0
        while made < wanted:
            item = item_new(pool, kind, rng, used)
            if item is None:
                raise QuizTooSmall(
                    kind,
                    wanted,
                    made,
                    f"Only {made} {KIND_LABELS[kind]} item{'' if made == 1 else 's'} can be made "
                    f"from this pool, not {wanted}: it needs {TOO_SMALL[kind]}.",
                )
            items.append(item)
            made += 1
    rng_for(seed, "quiz", "order").shuffle(items)
    return items


#: English names of the kinds, for messages (the pages translate their own).
KIND_LABELS = {
    PICTURE_NAME: "picture → name",
    PICTURE_NAME_TYPED: "picture → name (typed)",
    NAME_PICTURE: "name → picture",
    PERIODS: "which period",
    TEXT_SYMBOL: "description → symbol",
    KNOWLEDGE: "Knowledge? question",
    KNOW: "Know question",
    CONNECT: "connect the symbols",
    PERIOD: "which period (one)",
    CHRONOLOGY: "chronology",
    MATCHING: "matching",
    CHOICE: "multiple choice",
}


def capacity(pool: Pool, seed: int = 0) -> dict[str, int]:
    """How many items of each kind the pool gives on its own (each kind alone)."""
    found: dict[str, int] = {}
    for kind in KINDS:
        used: set[str] = set()
        rng = rng_for(seed, "capacity", kind)
        count = 0
        while item_new(pool, kind, rng, used) is not None:
            count += 1
        found[kind] = count
    return found


#: How a quiz of N items is shared out when the teacher gives only N (weights per kind).
DEFAULT_MIX = {
    PICTURE_NAME: 4,
    PICTURE_NAME_TYPED: 2,
    NAME_PICTURE: 2,
    PERIODS: 2,
    TEXT_SYMBOL: 2,
    KNOWLEDGE: 4,
    KNOW: 2,
    CONNECT: 1,
    PERIOD: 2,
    CHRONOLOGY: 1,
    MATCHING: 1,
    # Teacher-written questions are not shared out: each one in the pool is asked.
    CHOICE: 0,
}


_COST = {CONNECT: CONNECT_SIZES[0], CHRONOLOGY: CHRONOLOGY_SIZES[0], MATCHING: MATCHING_SIZES[0]}


def counts_plan(
    pool: Pool, total: int, seed: int = 0, mix: Mapping[str, int] | None = None
) -> dict[str, int]:
    """Share ``total`` items among the kinds the pool allows, following ``mix``.

    Every teacher-written question in the pool gets its item first (as many as ``total``
    allows, in the order of ``QUESTION_KINDS``): a teacher who chose them wants them asked.
    Then one item at a time goes to the kind furthest behind its share of ``mix``; a kind the
    pool cannot feed one more item (given the others) is closed.  Raises
    :class:`QuizTooSmall` when the pool cannot give ``total`` items at all.

    >>> pool = Pool(symbols=tuple(SymbolEntry(key=f"symbol:{n}", name=f"S{n}", picture=f"{n}")
    ...     for n in range(5)))
    >>> counts_plan(pool, 5)
    {'name_picture': 2, 'picture_name': 2, 'picture_name_typed': 1}
    """
    mix = dict(mix or DEFAULT_MIX)
    if total < 1:
        raise ValueError("A quiz has at least one item.")
    plan = {kind: 0 for kind in KINDS}
    room = total
    for kind, count in _questions_usable(pool).items():
        plan[kind] = min(count, room)
        room -= plan[kind]
    closed: set[str] = set()
    while sum(plan.values()) < total:
        open_kinds = [kind for kind in KINDS if mix.get(kind, 0) > 0 and kind not in closed]
        if not open_kinds:
            break
        # A connect item uses up a handful of symbols: it counts as that many items here.
        kind = min(open_kinds, key=lambda k: (plan[k] * _COST.get(k, 1) / mix[k], KINDS.index(k)))
        trial = {**plan, kind: plan[kind] + 1}
        try:
            generate(pool, trial, seed)
        except QuizTooSmall:
            closed.add(kind)
            continue
        plan = trial
    made = sum(plan.values())
    handfuls = [kind for kind in (CONNECT, MATCHING, CHRONOLOGY) if plan[kind] and mix.get(kind, 0) > 0]
    if made < total and handfuls:
        # A handful of symbols in one connect, matching or chronology item may be what the
        # total lacks: leave out the biggest handfuls first.
        try:
            return counts_plan(pool, total, seed, {**mix, handfuls[0]: 0})
        except QuizTooSmall as error:
            made = max(made, error.available)
    if made < total:
        raise QuizTooSmall(
            "",
            total,
            made,
            f"This pool gives only {made} quiz item{'' if made == 1 else 's'}, not {total}: "
            "add symbols (with pictures, periods and descriptions) or Knowledge? questions.",
        )
    return {kind: count for kind, count in plan.items() if count}


# --- answers and grading ------------------------------------------------------------------------


def _option_ids(item: Item) -> list[str]:
    return [str(option["id"]) for option in item.prompt.get("options", ())]


def answer_clean(item: Item, raw: Any) -> dict[str, Any]:
    """The answer in its stored form, or :class:`InvalidAnswer` saying what fits.

    Choice kinds (``period`` and ``choice`` too) take ``{"choice": id}``; ``periods``
    ``{"choices": [ids]}``; typed kinds ``{"text": str}``; ``knowledge`` ``{"choice": value}``;
    ``connect`` ``{"groups": {symbol id: group id}}`` (symbols left out are unsorted);
    ``chronology`` ``{"order": [every event id, earliest first]}``; ``matching``
    ``{"pairs": {left id: right id}}`` (left sides left out are unpaired).  An empty
    answer (no choice yet) is allowed: it is what autosave stores for a cleared answer.
    """
    if not isinstance(raw, Mapping):
        raise InvalidAnswer("An answer is a JSON object.")
    kind = item.kind
    if kind == CHRONOLOGY:
        order = raw.get("order") or []
        events = [str(event["id"]) for event in item.prompt.get("events", ())]
        if not isinstance(order, list) or (order and sorted(str(e) for e in order) != sorted(events)):
            raise InvalidAnswer("Put every event of this item in order, each once.")
        return {"order": [str(event) for event in order]}
    if kind == MATCHING:
        pairs = raw.get("pairs") or {}
        if not isinstance(pairs, Mapping):
            raise InvalidAnswer("Pair the sides as {left: right}.")
        lefts = {str(side["id"]) for side in item.prompt.get("left", ())}
        rights = {str(side["id"]) for side in item.prompt.get("right", ())}
        paired: dict[str, str] = {}
        for left, right in pairs.items():
            if str(left) not in lefts:
                raise InvalidAnswer(f"{left!r} is not one of this item's left-hand sides.")
            if right in (None, ""):
                continue
            if str(right) not in rights:
                raise InvalidAnswer(f"{right!r} is not one of this item's right-hand sides.")
            paired[str(left)] = str(right)
        return {"pairs": paired}
    if kind in (PICTURE_NAME, NAME_PICTURE, TEXT_SYMBOL, KNOWLEDGE, PERIOD, CHOICE):
        choice = raw.get("choice")
        if choice in (None, ""):
            return {"choice": None}
        allowed = list(item.prompt.get("options", ())) if kind == KNOWLEDGE else _option_ids(item)
        if str(choice) not in [str(option) for option in allowed]:
            raise InvalidAnswer(f"{choice!r} is not one of this item's options.")
        return {"choice": str(choice)}
    if kind == PERIODS:
        choices = raw.get("choices") or []
        if not isinstance(choices, list) or any(str(c) not in _option_ids(item) for c in choices):
            raise InvalidAnswer("Tick periods from this item's list.")
        return {"choices": sorted({str(c) for c in choices}, key=_option_ids(item).index)}
    if kind in (PICTURE_NAME_TYPED, KNOW):
        text = raw.get("text", "")
        if not isinstance(text, str):
            raise InvalidAnswer("A typed answer is text.")
        limit = 200 if kind == PICTURE_NAME_TYPED else 1000
        if len(text) > limit:
            raise InvalidAnswer(f"An answer here is at most {limit} characters.")
        return {"text": text}
    if kind == CONNECT:
        placed = raw.get("groups") or {}
        if not isinstance(placed, Mapping):
            raise InvalidAnswer("Sort the symbols as {symbol: group}.")
        symbols = [str(s["id"]) for s in item.prompt.get("symbols", ())]
        groups = [str(g["id"]) for g in item.prompt.get("groups", ())]
        clean: dict[str, str] = {}
        for symbol, group in placed.items():
            if str(symbol) not in symbols:
                raise InvalidAnswer(f"{symbol!r} is not one of this item's symbols.")
            if group in (None, ""):
                continue
            if str(group) not in groups:
                raise InvalidAnswer(f"{group!r} is not one of this item's groups.")
            clean[str(symbol)] = str(group)
        return {"groups": clean}
    raise InvalidAnswer(f"Unknown item kind {kind!r}.")


def _option_text(item: Item, option: str | None) -> str:
    if option is None:
        return ""
    for index, entry in enumerate(item.prompt.get("options", ())):
        if isinstance(entry, Mapping) and str(entry.get("id")) == option:
            # An option that is a picture alone is named by its letter.
            return str(entry.get("text") or entry.get("label") or f"({option_letter(index)})")
    return str(option)


def order_pairs(given: Sequence[str], right: Sequence[str]) -> tuple[int, int]:
    """(pairs of events in the same order in ``given`` as in ``right``, all pairs).

    The chronology's partial credit: an order is worth the share of its pairs in order.

    >>> order_pairs(["a", "b", "c", "d"], ["a", "b", "c", "d"])
    (6, 6)
    >>> order_pairs(["b", "a", "c", "d"], ["a", "b", "c", "d"])  # one pair swapped
    (5, 6)
    >>> order_pairs(["d", "c", "b", "a"], ["a", "b", "c", "d"])
    (0, 6)
    """
    total = len(right) * (len(right) - 1) // 2
    if sorted(given) != sorted(right):
        return 0, total
    position = {event: index for index, event in enumerate(given)}
    good = sum(
        1
        for i, earlier in enumerate(right)
        for later in right[i + 1 :]
        if position[earlier] < position[later]
    )
    return good, total


def _event_in_order(given: Sequence[str], right: Sequence[str], event: str) -> float:
    """The share of the pairs ``event`` is in that ``given`` puts in the right order."""
    if sorted(given) != sorted(right) or len(right) < 2:
        return 0.0
    position = {e: index for index, e in enumerate(given)}
    truth = {e: index for index, e in enumerate(right)}
    good = sum(
        1
        for other in right
        if other != event and (position[other] < position[event]) == (truth[other] < truth[event])
    )
    return good / (len(right) - 1)


def grade(item: Item, answer: Mapping[str, Any] | None) -> Grade:
    """Grade ``answer`` (as :func:`answer_clean` stores it; ``None`` = not answered).

    A malformed answer counts as not answered: grading never fails.

    >>> item = Item("periods", {"options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"},
    ...     {"id": "c", "label": "C"}]}, {"answer": ["a", "b"]})
    >>> grade(item, {"choices": ["a", "c"]}).score
    0.0
    >>> grade(item, {"choices": ["a"]}).score
    0.5
    """
    try:
        given = answer_clean(item, answer or {})
    except InvalidAnswer:
        given = answer_clean(item, {})
    kind, key, points = item.kind, item.key, item.points
    if kind in (PERIOD, CHOICE):
        right = given["choice"] == key["answer"]
        part = Part("", right, _option_text(item, given["choice"]), _option_text(item, key["answer"]))
        return Grade(float(points) if right else 0.0, points, parts=(part,))
    if kind == CHRONOLOGY:
        order, right_order = given["order"], [str(e) for e in key["answer"]]
        good, total = order_pairs(order, right_order)
        names, dates = key.get("names") or {}, key.get("dates") or {}
        place = {event: index for index, event in enumerate(order)}
        chronology_parts = tuple(
            Part(
                str(names.get(event, event)),
                place.get(event) == index,
                str(place[event] + 1) if event in place else "",
                f"{index + 1} ({dates.get(event, '')})",
            )
            for index, event in enumerate(right_order)
        )
        return Grade(round(points * good / total, 4) if total else 0.0, points, parts=chronology_parts)
    if kind == MATCHING:
        paired = given["pairs"]
        rights = {str(side["id"]): str(side["text"]) for side in item.prompt.get("right", ())}
        names = key.get("names") or {}
        matching_parts = tuple(
            Part(
                str(names.get(left, left)),
                paired.get(left) == right,
                rights.get(paired.get(left, ""), ""),
                rights.get(right, right),
            )
            for left, right in key["answer"].items()
        )
        right_count = sum(part.correct for part in matching_parts)
        return Grade(
            round(float(right_count) * points / max(len(key["answer"]), 1), 4), points, parts=matching_parts
        )
    if kind in (PICTURE_NAME, NAME_PICTURE, TEXT_SYMBOL):
        right = given["choice"] == key["answer"]
        names = key.get("names") or {}
        shown = (
            names.get(given["choice"], "") if kind == NAME_PICTURE else _option_text(item, given["choice"])
        )
        part = Part("", right, str(shown), str(key.get("name", "")))
        return Grade(float(points) if right else 0.0, points, parts=(part,))
    if kind == PICTURE_NAME_TYPED:
        right = name_matches(given["text"], str(key["name"]), key.get("alternatives") or ())
        return Grade(
            float(points) if right else 0.0, points, parts=(Part("", right, given["text"], str(key["name"])),)
        )
    if kind == PERIODS:
        wanted = set(key["answer"])
        ticked = set(given["choices"])
        per = 1.0 / len(wanted)
        fraction = max(0.0, per * len(ticked & wanted) - per * len(ticked - wanted))
        parts = tuple(
            Part(
                _option_text(item, option),
                (option in ticked) == (option in wanted),
                "x" if option in ticked else "",
                "x" if option in wanted else "",
            )
            for option in _option_ids(item)
        )
        return Grade(round(points * fraction, 4), points, parts=parts)
    if kind == KNOWLEDGE:
        right = given["choice"] is not None and given["choice"] in [str(a) for a in key["answer"]]
        part = Part("", right, given["choice"] or "", "/".join(str(a) for a in key["answer"]))
        return Grade(float(points) if right else 0.0, points, parts=(part,))
    if kind == KNOW:
        text = given["text"]
        best = [str(a) for a in key.get("best_answers") or ()]
        expected = " / ".join(best)
        if not normalise_name(text):
            return Grade(0.0, points, parts=(Part("", False, text, expected),))
        if any(name_matches(text, answer) for answer in best):
            return Grade(float(points), points, parts=(Part("", True, text, expected),))
        return Grade(0.0, points, needs_marking=True, parts=(Part("", False, text, expected),))
    if kind == CONNECT:
        placed = given["groups"]
        groups = {str(g["id"]): str(g["label"]) for g in item.prompt.get("groups", ())}
        names = key.get("names") or {}
        sorted_parts: list[Part] = []
        right_count = 0
        for symbol, group in key["answer"].items():
            right = placed.get(symbol) == group
            right_count += right
            sorted_parts.append(
                Part(
                    str(names.get(symbol, symbol)),
                    right,
                    groups.get(placed.get(symbol, ""), ""),
                    groups.get(group, group),
                )
            )
        return Grade(
            float(right_count) * points / max(len(key["answer"]), 1), points, parts=tuple(sorted_parts)
        )
    raise InvalidAnswer(f"Unknown item kind {kind!r}.")


def subject_results(item: Item, answer: Mapping[str, Any] | None) -> dict[str, float]:
    """Per subject (progress item key), how right the answer was, 0–1.

    A connect item reports each symbol on its own, as do a chronology and a matching made
    of symbols (a symbol's share of its pairs in order; its pair matched or not); every
    other item, a teacher's question included, its one subject.
    """
    result = grade(item, answer)
    if item.kind == CHRONOLOGY and "event_subjects" in item.key:
        try:
            order = answer_clean(item, answer or {})["order"]
        except InvalidAnswer:
            order = []
        right = list(item.key["answer"])
        return {
            subject: _event_in_order(order, right, event)
            for event, subject in item.key["event_subjects"].items()
        }
    if item.kind == MATCHING and "pair_subjects" in item.key:
        try:
            paired = answer_clean(item, answer or {})["pairs"]
        except InvalidAnswer:
            paired = {}
        return {
            subject: float(paired.get(left) == item.key["answer"][left])
            for left, subject in item.key["pair_subjects"].items()
        }
    if item.kind != CONNECT:
        return {subject: result.fraction for subject in item.subjects}
    try:
        placed = answer_clean(item, answer or {})["groups"]
    except InvalidAnswer:
        placed = {}
    keyed = item.key["symbol_subjects"]
    return {keyed[symbol]: float(placed.get(symbol) == group) for symbol, group in item.key["answer"].items()}
