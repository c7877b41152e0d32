"""Item analysis of a quiz taken by a class: pure computation over plain answers.

Classical test theory, as a teacher's gradebook or Moodle's quiz statistics reports it,
computed from one graded attempt per student (``lms/progress/selectors.py`` chooses which
and reads the rows; everything here takes plain data, so a class worked out by hand drives
it in ``tests/lms/progress/test_analysis.py``):

* **share correct** (the item's facility): the mean of the students' scores on the item as a
  fraction of its points.  Partial credit counts proportionally: two of three periods ticked
  rightly is 2/3.  A question not answered counts 0; an answer still waiting for the teacher's
  mark is left out until it is marked.
* **discrimination** (upper–lower index): students are ranked by their total score on the
  attempt; the top 27 % form the upper group, the bottom 27 % the lower group, each of
  ``max(1, round(0.27 · n))`` students (3 of 10, 8 of 30).  Students tied on the total are
  ranked by ``tie_break`` (the page uses the account id: the groups are always the same
  size, and the same on every reload).  The index is the share correct in the upper group
  minus that in the lower group, from −1 to 1: around 0.3 and more the question separates
  those who know the topic from those who do not; near 0 or below it does not (ambiguous
  wording, a wrong key, or a question everybody gets right or wrong).  With fewer than two
  students there is no index.
* **choices** (distractor analysis), for items answered by picking options: how many students
  chose each option (a "tick every period" item counts each ticked option), and how many
  picked nothing.
* **time**: the median of the seconds the students took (:func:`answer_seconds`), over the
  students with a known time.

And, for a class over weeks, :func:`mastery_by_week`: its mastery of each period or theme at
the end of every week, replayed from the reviews as the scheduler saw them then.

Example::

    >>> totals = {"ala": 2.0, "ola": 1.0, "ela": 0.0}
    >>> answers = [Answer("ala", 1, 1.0, ("a",), 30.0), Answer("ola", 1, 1.0, ("a",), 50.0),
    ...            Answer("ela", 1, 0.0, ("b",), None)]
    >>> stats = item_stats(answers, totals, item=1, options=("a", "b", "c"))
    >>> round(stats.share_correct, 2), stats.discrimination, stats.choices, stats.median_seconds
    (0.67, 1.0, {'a': 2, 'b': 1, 'c': 0}, 40.0)

Pure Python, standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import median
from typing import Any

from . import memory

#: The share of the class in each of the upper and lower groups (Kelley's 27 %).
GROUP_SHARE = 0.27


@dataclass(frozen=True)
class Answer:
    """One student's answer to one item, graded.

    ``fraction`` is the score as a share of the item's points (``None``: waits for the
    teacher's mark); ``choices`` the options picked (empty for none, or for an item that is
    not answered by picking options); ``seconds`` the time taken (``None``: not known).
    """

    student: Hashable
    item: Hashable
    fraction: float | None
    choices: tuple[str, ...] = ()
    seconds: float | None = None


@dataclass(frozen=True)
class Groups:
    upper: tuple[Hashable, ...]
    lower: tuple[Hashable, ...]


@dataclass(frozen=True)
class ItemStats:
    item: Hashable
    #: Students whose answer counts (graded; a question left blank is graded 0).
    answered: int
    share_correct: float | None
    upper: float | None
    lower: float | None
    #: Option → how many students picked it (every option of the item, in its order).
    choices: dict[str, int] = field(default_factory=dict)
    #: Students who picked no option (choice items only).
    no_choice: int = 0
    median_seconds: float | None = None
    #: Students whose time is known.
    timed: int = 0

    @property
    def discrimination(self) -> float | None:
        if self.upper is None or self.lower is None:
            return None
        return round(self.upper - self.lower, 6)


def group_size(students: int) -> int:
    """How many students each of the upper and lower groups holds.

    >>> [group_size(n) for n in (1, 2, 3, 10, 30)]
    [0, 1, 1, 3, 8]
    """
    if students < 2:
        return 0
    return min(students // 2, max(1, round(GROUP_SHARE * students)))


def groups_form(
    totals: Mapping[Hashable, float], *, tie_break: Callable[[Hashable], Any] | None = None
) -> Groups:
    """The upper and lower groups by total score; ties ranked by ``tie_break(student)``
    (ascending: the lower key ranks higher), then by the student as given.

    >>> groups_form({"a": 3, "b": 2, "c": 2, "d": 0})
    Groups(upper=('a',), lower=('d',))
    """
    order_key = tie_break or (lambda student: 0)
    ranked = sorted(totals, key=lambda student: (-totals[student], order_key(student), str(student)))
    size = group_size(len(ranked))
    if size == 0:
        return Groups(upper=(), lower=())
    return Groups(upper=tuple(ranked[:size]), lower=tuple(ranked[-size:]))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def item_stats(
    answers: Iterable[Answer],
    totals: Mapping[Hashable, float],
    *,
    item: Hashable,
    options: Sequence[str] = (),
    groups: Groups | None = None,
) -> ItemStats:
    """The statistics of ``item`` from every student's answers (see the module docstring).

    ``options`` are the item's options in order, for a choice item; ``groups`` the upper and
    lower groups when already formed (they are the same for every item of a quiz).
    """
    mine = [answer for answer in answers if answer.item == item and answer.student in totals]
    graded = [answer for answer in mine if answer.fraction is not None]
    groups = groups or groups_form(totals)
    by_student = {answer.student: float(answer.fraction) for answer in graded if answer.fraction is not None}

    def group_mean(students: Sequence[Hashable]) -> float | None:
        if not students:
            return None
        # A student without a graded answer here (waiting for a mark) is left out of the group.
        return _mean([by_student[s] for s in students if s in by_student])

    choices = {option: 0 for option in options}
    no_choice = 0
    if options:
        for answer in mine:
            picked = [choice for choice in answer.choices if choice in choices]
            for choice in picked:
                choices[choice] += 1
            no_choice += not picked
    times = [float(answer.seconds) for answer in mine if answer.seconds is not None]
    return ItemStats(
        item=item,
        answered=len(graded),
        share_correct=_mean([float(answer.fraction) for answer in graded if answer.fraction is not None]),
        upper=group_mean(groups.upper),
        lower=group_mean(groups.lower),
        choices=choices,
        no_choice=no_choice,
        median_seconds=float(median(times)) if times else None,
        timed=len(times),
    )


def answer_seconds(
    started: datetime, first_answers: Mapping[Hashable, datetime | None], *, handed_in: datetime | None = None
) -> dict[Hashable, float | None]:
    """The seconds a student took over each item of one attempt.

    All the questions of a quiz are on one page, so the time of one is measured between
    answers: from the student's previous first answer to another question (or from opening
    the quiz, for the first question answered) to their first answer to this one.  An item
    never answered has no time, nor has one whose first answer came with the hand-in itself
    (``handed_in``: a page without JavaScript sends every answer at once).

    >>> from datetime import timedelta
    >>> t0 = datetime(2026, 3, 2, 10, 0)
    >>> answer_seconds(t0, {1: t0 + timedelta(seconds=40), 2: t0 + timedelta(seconds=25), 3: None})
    {1: 15.0, 2: 25.0, 3: None}
    """
    seconds: dict[Hashable, float | None] = {item: None for item in first_answers}
    timed = sorted(
        ((when, str(item), item) for item, when in first_answers.items() if when is not None),
        key=lambda entry: (entry[0], entry[1]),
    )
    previous = started
    for when, _name, item in timed:
        if handed_in is not None and when >= handed_in:
            break
        seconds[item] = max(0.0, (when - previous).total_seconds())
        previous = max(previous, when)
    return seconds


@dataclass(frozen=True)
class ReviewRow:
    """One answer to one item as ``lms.progress.models.Review`` keeps it."""

    student: Hashable
    item_key: str
    correct: float
    at: datetime


def mastery_by_week(
    reviews: Iterable[ReviewRow],
    groups_of: Mapping[str, Sequence[str]],
    week_ends: Sequence[datetime],
) -> dict[str, list[float | None]]:
    """A group's mastery of each label (period or theme) at each of ``week_ends``.

    Every student's reviews are replayed through the scheduler in time order
    (:func:`memory.review`), and at the end of each week the mastery of every item they had
    met by then is read as on the progress pages that day (:func:`memory.mastery`); a
    label's value is the mean over students of their mean over its items, like
    ``class_mastery`` today.  ``groups_of`` gives each item key's labels (an item of two
    periods counts in both); a week before anyone met a label's items is ``None``.
    """
    by_student: dict[Hashable, list[ReviewRow]] = {}
    for row in sorted(reviews, key=lambda row: row.at):
        if groups_of.get(row.item_key):
            by_student.setdefault(row.student, []).append(row)
    sums: dict[str, list[list[float]]] = {}
    for rows in by_student.values():
        cards: dict[str, dict[str, Any]] = {}
        index = 0
        for week, end in enumerate(week_ends):
            while index < len(rows) and rows[index].at < end:
                row = rows[index]
                cards[row.item_key] = memory.review(cards.get(row.item_key), row.correct, row.at).card
                index += 1
            per_label: dict[str, list[float]] = {}
            for key, card in cards.items():
                value = memory.mastery(card, end)
                for label in groups_of[key]:
                    per_label.setdefault(label, []).append(value)
            for label, values in per_label.items():
                weeks = sums.setdefault(label, [[] for _ in week_ends])
                weeks[week].append(sum(values) / len(values))
    return {label: [_mean(week) for week in weeks] for label, weeks in sorted(sums.items())}
