"""Reading progress: what a student knows and what is due; a class's mastery and weak spots,
over the weeks too; the item analysis of a quiz homework (computed in ``analysis``).

Mastery of an item is the chance the student would recall it tomorrow (``memory.mastery``).
Mastery of a period or theme is the mean over the symbols of that period or theme the
student has met; symbols never met are not counted (they are "not yet seen", which the
pages say separately).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.apps import apps
from django.db.models import Count, F, Q, Sum
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext

from games.engines import quiz as quiz_engine
from games.quiz.answers import answer_text, knowledge_label
from games.quiz.models import KIND_LABELS, QuizItem, QuizResponse
from lms.classes.selectors import classes_taught_by
from lms.models import Assignment, ClassMember, Submission

from . import analysis, memory
from .models import MemoryState, Review


@dataclass(frozen=True)
class Item:
    """What an item key stands for, as a page shows it."""

    key: str
    kind: str  # symbol | knowledge | know | question
    label: str
    picture: str = ""
    periods: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()


@dataclass
class ItemMemory:
    item: Item
    mastery: float
    due: datetime
    reviews: int
    correct: float

    @property
    def known(self) -> bool:
        return self.mastery >= memory.DESIRED_RETENTION

    @property
    def percent(self) -> int:
        return round(self.mastery * 100)


@dataclass
class StudentSummary:
    memories: list[ItemMemory]
    now: datetime
    due: list[ItemMemory] = field(default_factory=list)
    known: list[ItemMemory] = field(default_factory=list)
    learning: list[ItemMemory] = field(default_factory=list)


def _picture_url(symbol: Any) -> str:
    # ``v`` follows the stored (random) name, so a new upload is not hidden by a cached copy.
    version = hashlib.sha256(symbol.picture.name.encode()).hexdigest()[:10]
    return f"{reverse('progress:picture', args=[symbol.pk])}?v={version}"


def symbol_picture_allowed(user: Any, symbol_pk: int) -> bool:
    """Whether ``user``'s progress pages show symbol ``symbol_pk``: it is in their own
    memory or reviews, or in those of a student of a class they teach."""
    if not getattr(user, "is_authenticated", False):
        return False
    key = f"symbol:{symbol_pk}"
    students = ClassMember.objects.filter(
        school_class__in=classes_taught_by(user).values("pk"), role=ClassMember.Role.STUDENT
    ).values("user")
    whose = Q(user=user) | Q(user__in=students)
    return (
        MemoryState.objects.filter(whose, item_key=key).exists()
        or Review.objects.filter(whose, item_key=key).exists()
    )


def items_describe(keys: Iterable[str]) -> dict[str, Item]:
    """Labels, pictures, periods and themes for item keys; unknown or deleted items are left out."""
    by_kind: dict[str, set[int]] = defaultdict(set)
    for key in keys:
        kind, _sep, pk = key.partition(":")
        if pk.isascii() and pk.isdigit():
            by_kind[kind].add(int(pk))
    items: dict[str, Item] = {}
    if by_kind["symbol"]:
        symbols = apps.get_model("content", "Symbol").objects.filter(pk__in=by_kind["symbol"])
        for symbol in symbols.prefetch_related("periods", "themes"):
            items[f"symbol:{symbol.pk}"] = Item(
                key=f"symbol:{symbol.pk}",
                kind="symbol",
                label=symbol.name,
                picture=_picture_url(symbol) if symbol.picture else "",
                periods=tuple(period.name for period in symbol.periods.all()),
                themes=tuple(theme.name for theme in symbol.themes.all()),
            )
    if by_kind["knowledge"]:
        knowledge = apps.get_model("content", "KnowledgeQuestion").objects.filter(pk__in=by_kind["knowledge"])
        for card in knowledge:
            items[f"knowledge:{card.pk}"] = Item(
                key=f"knowledge:{card.pk}", kind="knowledge", label=_shorten(card.front)
            )
    if by_kind["know"]:
        try:
            model = apps.get_model("content", "KnowQuestion")
        except LookupError:
            model = None
        if model is not None:
            for know in model.objects.filter(pk__in=by_kind["know"]):
                items[f"know:{know.pk}"] = Item(key=f"know:{know.pk}", kind="know", label=_shorten(str(know)))
    if by_kind["question"]:
        # A teacher's quiz question (multiple choice, chronology, matching).
        questions = apps.get_model("content", "QuizQuestion").objects.filter(pk__in=by_kind["question"])
        for question in questions.prefetch_related("options"):
            items[f"question:{question.pk}"] = Item(
                key=f"question:{question.pk}", kind="question", label=_shorten(str(question))
            )
    return items


def _shorten(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def student_summary(user: Any, *, now: datetime | None = None) -> StudentSummary:
    """Everything the student's progress page shows, newest knowledge first."""
    now = now or timezone.now()
    states = list(MemoryState.objects.filter(user=user, reviews__gt=0))
    items = items_describe(state.item_key for state in states)
    summary = StudentSummary(memories=[], now=now)
    for state in states:
        if state.item_key not in items:
            continue
        entry = ItemMemory(
            item=items[state.item_key],
            mastery=memory.mastery(state.card, now),
            due=state.due,
            reviews=state.reviews,
            correct=state.correct,
        )
        summary.memories.append(entry)
        if state.due <= now:
            summary.due.append(entry)
        elif entry.known:
            summary.known.append(entry)
        else:
            summary.learning.append(entry)
    summary.due.sort(key=lambda entry: (entry.due, entry.mastery))
    summary.learning.sort(key=lambda entry: entry.mastery)
    summary.known.sort(key=lambda entry: entry.item.label)
    return summary


def review_keys(user: Any, *, limit: int, now: datetime | None = None) -> list[str]:
    """The student's items to review now: due ones first (most overdue), then the weakest."""
    now = now or timezone.now()
    states = list(MemoryState.objects.filter(user=user, reviews__gt=0).only("item_key", "due", "card"))
    due = sorted((state for state in states if state.due <= now), key=lambda state: state.due)
    rest = sorted(
        (state for state in states if state.due > now),
        key=lambda state: memory.mastery(state.card, now),
    )
    return [state.item_key for state in (due + rest)[:limit]]


@dataclass
class Mastery:
    """A group's mastery table: rows are items or keys (periods, themes), columns students."""

    label: str
    mean: float  # 0..1 over students who met it
    students: int  # how many students met it

    @property
    def percent(self) -> int:
        return round(self.mean * 100)


def class_mastery(users: Iterable[Any], *, now: datetime | None = None) -> dict[str, list[Mastery]]:
    """Mastery of a group of students by symbol, period and theme (each sorted weakest first)."""
    now = now or timezone.now()
    states = list(
        MemoryState.objects.filter(user__in=list(users), reviews__gt=0).only("user_id", "item_key", "card")
    )
    items = items_describe({state.item_key for state in states})
    per_item: dict[str, list[float]] = defaultdict(list)
    per_period: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    per_theme: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for state in states:
        item = items.get(state.item_key)
        if item is None:
            continue
        value = memory.mastery(state.card, now)
        per_item[item.label].append(value)
        for period in item.periods:
            per_period[period][state.user_id].append(value)
        for theme in item.themes:
            per_theme[theme][state.user_id].append(value)

    def table(groups: dict[str, dict[int, list[float]]]) -> list[Mastery]:
        rows = []
        for label, by_user in groups.items():
            means = [sum(values) / len(values) for values in by_user.values()]
            rows.append(Mastery(label=label, mean=sum(means) / len(means), students=len(means)))
        return sorted(rows, key=lambda row: (row.mean, row.label))

    return {
        "symbols": sorted(
            (Mastery(label=label, mean=sum(v) / len(v), students=len(v)) for label, v in per_item.items()),
            key=lambda row: (row.mean, row.label),
        ),
        "periods": table(per_period),
        "themes": table(per_theme),
    }


@dataclass(frozen=True)
class WrongItem:
    item: Item
    answers: int
    wrong: float

    @property
    def wrong_percent(self) -> int:
        return round(100 * self.wrong / self.answers) if self.answers else 0


def items_wrong_most(users: Iterable[Any], *, limit: int = 10) -> list[WrongItem]:
    """The items a group of students gets wrong most, by the share of wrong answers."""
    rows = (
        Review.objects.filter(user__in=list(users))
        .values("item_key")
        .annotate(answers=Count("pk"), right=Sum("correct"))
        .annotate(wrong=F("answers") - F("right"))
        .filter(wrong__gt=0)
    )
    found = list(rows)
    items = items_describe(row["item_key"] for row in found)
    result = [
        WrongItem(item=items[row["item_key"]], answers=row["answers"], wrong=float(row["wrong"]))
        for row in found
        if row["item_key"] in items
    ]
    result.sort(key=lambda row: (-row.wrong / row.answers, -row.answers, row.item.label))
    return result[:limit]


def student_mastery_rows(users: Iterable[Any], *, now: datetime | None = None) -> list[dict[str, Any]]:
    """One row per student: items met, known, due, mean mastery (for the class table and export)."""
    now = now or timezone.now()
    users = list(users)
    by_user: dict[int, list[MemoryState]] = defaultdict(list)
    for state in MemoryState.objects.filter(user__in=users, reviews__gt=0).only("user_id", "card", "due"):
        by_user[state.user_id].append(state)
    rows = []
    for user in users:
        states = by_user.get(user.pk, [])
        values = [memory.mastery(state.card, now) for state in states]
        rows.append(
            {
                "user": user,
                "met": len(states),
                "known": sum(1 for value in values if value >= memory.DESIRED_RETENTION),
                "due": sum(1 for state in states if state.due <= now),
                "mastery": round(100 * sum(values) / len(values)) if values else None,
            }
        )
    return rows


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[Any]]


def class_progress_table(users: Iterable[Any], *, now: datetime | None = None) -> Table:
    """The class's progress for export: per student, items met/known/due and mastery per period and theme."""
    from django.utils.translation import gettext as _
    from django.utils.translation import pgettext

    now = now or timezone.now()
    users = list(users)
    per_user = {user.pk: class_mastery([user], now=now) for user in users}
    periods = sorted({row.label for table in per_user.values() for row in table["periods"]})
    themes = sorted({row.label for table in per_user.values() for row in table["themes"]})
    headers = [
        _("Student"),
        _("Username"),
        _("Items met"),
        _("Known"),
        pgettext("items due for review", "Due"),
        _("Mastery %"),
    ]
    headers += [_("Period: %(name)s") % {"name": name} for name in periods]
    headers += [_("Theme: %(name)s") % {"name": name} for name in themes]
    rows = []
    for summary in student_mastery_rows(users, now=now):
        user = summary["user"]
        table = per_user[user.pk]
        by_period = {row.label: row.percent for row in table["periods"]}
        by_theme = {row.label: row.percent for row in table["themes"]}
        row = [
            user.get_full_name() or user.get_username(),
            user.get_username(),
            summary["met"],
            summary["known"],
            summary["due"],
            "" if summary["mastery"] is None else summary["mastery"],
        ]
        row += [by_period.get(name, "") for name in periods]
        row += [by_theme.get(name, "") for name in themes]
        rows.append(row)
    return Table(headers=headers, rows=rows)


def mastery_percent(values: Iterable[float]) -> int | None:
    """A student's mastery of a period or theme, 0–100: the mean mastery of the symbols met,
    rounded; ``None`` when none was met yet ("not yet seen" is no 0).

    >>> mastery_percent([0.9, 0.6]), mastery_percent([])
    (75, None)
    """
    found = list(values)
    if not found:
        return None
    return round(100 * sum(found) / len(found))


def students_group_mastery(
    users: Iterable[Any],
    *,
    periods: Iterable[int] = (),
    themes: Iterable[int] = (),
    now: datetime | None = None,
) -> dict[int, dict[tuple[str, int], int | None]]:
    """Each student's mastery (``mastery_percent``) of the given periods and themes, by pk.

    ``{user_pk: {("period", 3): 72, ("theme", 5): None}}``: the numbers the LMS's progress
    columns show.
    """
    now = now or timezone.now()
    user_ids = [getattr(user, "pk", user) for user in users]
    period_ids, theme_ids = set(periods), set(themes)
    states = list(
        MemoryState.objects.filter(user_id__in=user_ids, reviews__gt=0, item_key__startswith="symbol:").only(
            "user_id", "item_key", "card"
        )
    )
    symbol_ids = {int(state.item_key.partition(":")[2]) for state in states}
    symbol = apps.get_model("content", "Symbol")
    groups: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for symbol_id, period_id in symbol.periods.through.objects.filter(
        symbol_id__in=symbol_ids, period_id__in=period_ids
    ).values_list("symbol_id", "period_id"):
        groups[symbol_id].append(("period", period_id))
    for symbol_id, theme_id in symbol.themes.through.objects.filter(
        symbol_id__in=symbol_ids, theme_id__in=theme_ids
    ).values_list("symbol_id", "theme_id"):
        groups[symbol_id].append(("theme", theme_id))
    values: dict[int, dict[tuple[str, int], list[float]]] = {pk: defaultdict(list) for pk in user_ids}
    for state in states:
        for group in groups.get(int(state.item_key.partition(":")[2]), ()):
            values[state.user_id][group].append(memory.mastery(state.card, now))
    wanted = [("period", pk) for pk in sorted(period_ids)] + [("theme", pk) for pk in sorted(theme_ids)]
    return {pk: {group: mastery_percent(values[pk].get(group, ())) for group in wanted} for pk in user_ids}


# --- item analysis ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionCount:
    """One option of a choice item: how many students picked it."""

    label: str
    right: bool
    count: int
    students: int

    @property
    def percent(self) -> int:
        return round(100 * self.count / self.students) if self.students else 0


@dataclass(frozen=True)
class ItemAnalysis:
    """One question of a quiz as the class answered it (``analysis.ItemStats`` with words)."""

    number: int
    kind: str
    question: str
    answer: str
    stats: analysis.ItemStats
    options: list[OptionCount]
    no_choice: int

    @property
    def percent_correct(self) -> int | None:
        share = self.stats.share_correct
        return None if share is None else round(100 * share)

    @property
    def chart_label(self) -> str:
        # Short enough for the chart's label column; the table beside it has the whole text.
        return f"{self.number}. {_shorten(self.question or self.kind, 20)}"


@dataclass(frozen=True)
class QuizAnalysis:
    items: list[ItemAnalysis]
    #: Students whose first handed-in attempt is counted; the class's students.
    counted: int
    students: int
    group_size: int


#: Items answered by picking options: their choices are counted (distractor analysis).
CHOICE_KINDS = frozenset(
    {
        quiz_engine.PICTURE_NAME,
        quiz_engine.NAME_PICTURE,
        quiz_engine.TEXT_SYMBOL,
        quiz_engine.KNOWLEDGE,
        quiz_engine.PERIOD,
        quiz_engine.PERIODS,
        quiz_engine.CHOICE,
    }
)


def _option_label(item: Any, index: int, option: Any) -> str:
    letter = quiz_engine.option_letter(index)
    if item.kind == quiz_engine.KNOWLEDGE:
        return knowledge_label(item.prompt.get("category", ""), str(option))
    names = item.key.get("names") or {}
    words = option.get("text") or option.get("label") or names.get(option.get("id"), "")
    return f"{letter}) {words}" if words else f"{letter}) {gettext('(a picture)')}"


def _option_ids(item: Any) -> list[str]:
    options = item.prompt.get("options") or []
    if item.kind == quiz_engine.KNOWLEDGE:
        return [str(option) for option in options]
    return [str(option["id"]) for option in options if isinstance(option, dict)]


def _choices(answer: Any) -> tuple[str, ...]:
    if not isinstance(answer, dict):
        return ()
    if answer.get("choice") not in (None, ""):
        return (str(answer["choice"]),)
    return tuple(str(choice) for choice in answer.get("choices") or ())


def _question_text(item: Any) -> str:
    prompt = item.prompt
    return _shorten(str(prompt.get("text") or prompt.get("name") or ""), 70)


def quiz_homework_of(school_class: Any) -> list[Assignment]:
    """The class's quiz homework, each with an item analysis, newest first."""
    return list(
        Assignment.objects.filter(
            school_class=school_class, kind=Assignment.Kind.QUIZ, quiz__isnull=False
        ).order_by("-created", "-pk")
    )


def _first_attempts(assignment: Any, students: list[Any]) -> dict[int, Any]:
    """Each student's first handed-in attempt at the homework (later ones have seen the questions)."""
    first: dict[int, Any] = {}
    submissions = (
        Submission.objects.filter(
            assignment=assignment,
            student__in=students,
            quiz_attempt__isnull=False,
            quiz_attempt__submitted_at__isnull=False,
        )
        .select_related("quiz_attempt")
        .order_by("student_id", "number")
    )
    for submission in submissions:
        first.setdefault(submission.student_id, submission.quiz_attempt)
    return first


def quiz_analysis(assignment: Any, students: Iterable[Any]) -> QuizAnalysis:
    """The item analysis of a quiz homework for the class's ``students`` (``analysis``)."""
    students = list(students)
    attempts = _first_attempts(assignment, students)
    items = list(QuizItem.objects.filter(quiz_id=assignment.quiz_id).order_by("position"))
    responses = QuizResponse.objects.filter(attempt__in=list(attempts.values()))
    by_attempt: dict[int, dict[int, QuizResponse]] = defaultdict(dict)
    for response in responses:
        by_attempt[response.attempt_id][response.item_id] = response
    totals: dict[Hashable, float] = {
        student_id: float(attempt.score or 0) for student_id, attempt in attempts.items()
    }
    answers: list[analysis.Answer] = []
    for student_id, attempt in attempts.items():
        mine = by_attempt.get(attempt.pk, {})
        seconds = analysis.answer_seconds(
            attempt.started_at,
            {item.pk: getattr(mine.get(item.pk), "first_answered_at", None) for item in items},
            handed_in=attempt.submitted_at,
        )
        for item in items:
            answered = mine.get(item.pk)
            fraction: float | None = 0.0  # grading gives every item a row; none: scored 0
            if answered is not None:
                # ``score`` is empty while the answer waits for the teacher's mark: left out.
                fraction = (
                    None if answered.score is None else answered.score / item.points if item.points else 0.0
                )
            answers.append(
                analysis.Answer(
                    student=student_id,
                    item=item.pk,
                    fraction=fraction,
                    choices=_choices(answered.answer) if answered else (),
                    seconds=seconds.get(item.pk),
                )
            )
    groups = analysis.groups_form(totals, tie_break=lambda student_id: student_id)
    rows = []
    for item in items:
        ids = _option_ids(item)
        stats = analysis.item_stats(answers, totals, item=item.pk, options=ids, groups=groups)
        right = item.key.get("answer")
        right_ids = {str(value) for value in right} if isinstance(right, list) else {str(right)}
        options = (
            [
                OptionCount(
                    label=_option_label(item, index, option),
                    right=option_id in right_ids,
                    count=stats.choices.get(option_id, 0),
                    students=len(attempts),
                )
                for index, (option_id, option) in enumerate(
                    zip(ids, item.prompt.get("options") or [], strict=False)
                )
            ]
            if item.kind in CHOICE_KINDS
            else []
        )
        rows.append(
            ItemAnalysis(
                number=item.position,
                kind=str(KIND_LABELS.get(item.kind, item.kind)),
                question=_question_text(item),
                answer=answer_text(item),
                stats=stats,
                options=options,
                no_choice=stats.no_choice if options else 0,
            )
        )
    return QuizAnalysis(
        items=rows,
        counted=len(attempts),
        students=len(students),
        group_size=analysis.group_size(len(attempts)),
    )


def quiz_analysis_table(result: QuizAnalysis) -> Table:
    """The item analysis for export: one row per question."""
    headers = [
        gettext("Question"),
        gettext("Kind"),
        gettext("Asks"),
        gettext("Right answer"),
        gettext("Students"),
        gettext("Share correct %"),
        gettext("Upper group %"),
        gettext("Lower group %"),
        gettext("Discrimination"),
        gettext("Median time (s)"),
        gettext("Students timed"),
        gettext("Choices"),
    ]

    def percent(value: float | None) -> Any:
        return "" if value is None else round(100 * value, 1)

    rows = []
    for row in result.items:
        stats = row.stats
        choices = [f"{option.label}: {option.count}" for option in row.options]
        if row.options:
            choices.append(gettext("no choice: %(n)d") % {"n": row.no_choice})
        rows.append(
            [
                row.number,
                row.kind,
                row.question,
                row.answer,
                stats.answered,
                percent(stats.share_correct),
                percent(stats.upper),
                percent(stats.lower),
                "" if stats.discrimination is None else round(stats.discrimination, 2),
                "" if stats.median_seconds is None else round(stats.median_seconds, 1),
                stats.timed,
                "; ".join(choices),
            ]
        )
    return Table(headers=headers, rows=rows)


# --- mastery over weeks -------------------------------------------------------------------------

#: How many weeks the class's progress page looks back (this one included).
WEEKS = 8


@dataclass(frozen=True)
class Weekly:
    """A group's mastery by period and by theme at the end of each week (percent; ``None``
    before anyone met the period or theme). The current week ends now."""

    weeks: list[date]  # the Monday each week starts
    periods: list[tuple[str, list[int | None]]]
    themes: list[tuple[str, list[int | None]]]


def class_mastery_weekly(users: Iterable[Any], *, weeks: int = WEEKS, now: datetime | None = None) -> Weekly:
    """Mastery by period and theme over the last ``weeks`` weeks (``analysis.mastery_by_week``)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    monday = today - timedelta(days=today.weekday())
    starts = [monday - timedelta(weeks=back) for back in range(weeks - 1, -1, -1)]
    ends = [
        timezone.make_aware(datetime.combine(start + timedelta(days=7), time())).astimezone(UTC)
        for start in starts[:-1]
    ] + [now.astimezone(UTC)]
    rows = list(
        Review.objects.filter(user__in=list(users), reviewed_at__lt=now).values_list(
            "user_id", "item_key", "correct", "reviewed_at"
        )
    )
    items = items_describe({row[1] for row in rows})
    # One replay for both: labels are told apart by their first letter.
    labels = {
        key: [f"p{name}" for name in item.periods] + [f"t{name}" for name in item.themes]
        for key, item in items.items()
    }
    result = analysis.mastery_by_week(
        (
            analysis.ReviewRow(user_id, key, float(correct), at.astimezone(UTC))
            for user_id, key, correct, at in rows
        ),
        labels,
        ends,
    )

    def percents(values: list[float | None]) -> list[int | None]:
        return [None if value is None else round(100 * value) for value in values]

    return Weekly(
        weeks=starts,
        periods=[(label[1:], percents(values)) for label, values in result.items() if label[0] == "p"],
        themes=[(label[1:], percents(values)) for label, values in result.items() if label[0] == "t"],
    )


def weekly_table(weekly: Weekly) -> Table:
    """Mastery over weeks for export: one row per period and theme, one column per week."""
    headers = [gettext("Period or theme"), gettext("Name")] + [
        formats.date_format(start, "SHORT_DATE_FORMAT") for start in weekly.weeks
    ]
    rows: list[list[Any]] = []
    for kind, group in ((gettext("Period"), weekly.periods), (gettext("Theme"), weekly.themes)):
        for label, values in group:
            rows.append([kind, label, *("" if value is None else value for value in values)])
    return Table(headers=headers, rows=rows)
