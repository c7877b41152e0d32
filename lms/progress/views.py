"""Progress pages: the student's own memory; a teacher's class by symbol, period and theme.

The pages only read: namings in play reach memory when their game ends, or by the sweep
(``services.namings_absorb``). "Review now" is a POST: it takes in the student's own first.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils import formats
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from content.media import picture_response
from content.models import Symbol
from content.permissions import content_visible_to
from games.quiz import services as quizzes
from lms.classes import spreadsheets
from lms.classes.selectors import assignment_for_teacher, class_for_teacher, class_students
from lms.models import Assignment

from . import selectors, services
from .charts import NEUTRAL, bar_chart, weekly_chart


@login_required
@require_GET
def mine(request: HttpRequest) -> HttpResponse:
    """What I know, what is due for review, what I am still learning."""
    summary = selectors.student_summary(request.user)
    return render(
        request,
        "progress/mine.html",
        {
            "summary": summary,
            "chart": bar_chart(
                [(entry.item.label, entry.percent) for entry in (summary.due + summary.learning)[:12]],
                title=_("How well I remember the items I am learning"),
            )
            if summary.due or summary.learning
            else None,
        },
    )


@login_required
@require_POST
def review(request: HttpRequest) -> HttpResponse:
    """Review now: a short quiz of my own items that are due, then the weakest."""
    services.namings_absorb(user=request.user)
    keys = selectors.review_keys(request.user, limit=quizzes.REVIEW_ITEMS)
    try:
        quiz = quizzes.review_quiz_create(student=request.user, item_keys=keys)
        attempt = quizzes.attempt_resume_or_start(quiz=quiz, student=request.user)
    except quizzes.QuizError as error:
        messages.error(request, str(error))
        return redirect("progress:mine")
    return redirect("quiz:attempt", pk=attempt.pk)


def _taught_class(request: HttpRequest, pk: int) -> Any:
    school_class = class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    return school_class


def _mastery_charts(mastery: dict[str, Any]) -> dict[str, Any]:
    """The charts of mastery by period and by theme (none for a table with no rows)."""
    return {
        "period_chart": bar_chart(
            [(row.label, row.percent) for row in mastery["periods"]], title=_("Mastery by period")
        )
        if mastery["periods"]
        else None,
        "theme_chart": bar_chart(
            [(row.label, row.percent) for row in mastery["themes"]], title=_("Mastery by theme")
        )
        if mastery["themes"]
        else None,
    }


def _weekly_charts(weekly: selectors.Weekly) -> dict[str, Any]:
    """Mastery over the weeks by period and by theme: a chart each, its table beside it."""
    weeks = [formats.date_format(start, "j.m") for start in weekly.weeks]
    return {
        "weekly": weekly,
        "week_labels": [formats.date_format(start, "SHORT_DATE_FORMAT") for start in weekly.weeks],
        "period_weeks_chart": weekly_chart(
            weekly.periods, weeks=weeks, title=_("Mastery by period, week by week")
        )
        if weekly.periods
        else None,
        "theme_weeks_chart": weekly_chart(
            weekly.themes, weeks=weeks, title=_("Mastery by theme, week by week")
        )
        if weekly.themes
        else None,
    }


def _class_context(school_class: Any) -> dict[str, Any]:
    students = class_students(school_class)
    mastery = selectors.class_mastery(students)
    return {
        "school_class": school_class,
        "students": students,
        "mastery": mastery,
        "rows": selectors.student_mastery_rows(students),
        "wrong_most": selectors.items_wrong_most(students),
        "quiz_homework": selectors.quiz_homework_of(school_class),
        **_mastery_charts(mastery),
        **_weekly_charts(selectors.class_mastery_weekly(students)),
    }


@login_required
@require_GET
def class_progress(request: HttpRequest, pk: int) -> HttpResponse:
    """A class's mastery by period, theme and symbol; the items it gets wrong most; each student."""
    return render(request, "progress/class.html", _class_context(_taught_class(request, pk)))


@login_required
@require_GET
def class_student(request: HttpRequest, pk: int, user_pk: int) -> HttpResponse:
    """One student of the class, as the student sees their own progress, with their mastery
    by period and by theme as on the class's page."""
    school_class = _taught_class(request, pk)
    student = next((user for user in class_students(school_class) if user.pk == user_pk), None)
    if student is None:
        raise Http404
    mastery = selectors.class_mastery([student])
    return render(
        request,
        "progress/student.html",
        {
            "school_class": school_class,
            "student": student,
            "summary": selectors.student_summary(student),
            "mastery": mastery,
            **_mastery_charts(mastery),
        },
    )


@login_required
@require_GET
def class_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """The class's progress as CSV or XLSX: one row per student, one column per period and theme
    (formula-safe, as the gradebook: ``lms.classes.spreadsheets``)."""
    school_class = _taught_class(request, pk)
    if fmt not in ("csv", "xlsx"):
        raise Http404
    students = class_students(school_class)
    data = selectors.class_progress_table(students)
    name = f"progress-{slugify(school_class.name) or pk}.{fmt}"
    if fmt == "xlsx":
        return spreadsheets.xlsx_response(data.headers, data.rows, filename=name, title=_("Progress"))
    return spreadsheets.csv_response(data.headers, data.rows, filename=name)


@login_required
@require_GET
def class_weeks_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """The class's mastery by period and theme week by week, as CSV or XLSX."""
    school_class = _taught_class(request, pk)
    if fmt not in ("csv", "xlsx"):
        raise Http404
    data = selectors.weekly_table(selectors.class_mastery_weekly(class_students(school_class)))
    name = f"progress-weeks-{slugify(school_class.name) or pk}.{fmt}"
    if fmt == "xlsx":
        return spreadsheets.xlsx_response(data.headers, data.rows, filename=name, title=_("Progress by week"))
    return spreadsheets.csv_response(data.headers, data.rows, filename=name)


def _quiz_homework(request: HttpRequest, pk: int, assignment_pk: int) -> tuple[Any, Assignment]:
    """A quiz homework of a class the teacher owns or co-teaches; 404 for anything else."""
    school_class = _taught_class(request, pk)
    assignment = assignment_for_teacher(request.user, school_class, assignment_pk)
    if assignment is None or assignment.kind != Assignment.Kind.QUIZ or assignment.quiz_id is None:
        raise Http404
    return school_class, assignment


@login_required
@require_GET
def homework_analysis(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    """Item analysis of a quiz homework: per question, share correct, discrimination,
    the options chosen and the time taken (``lms.progress.analysis``)."""
    school_class, assignment = _quiz_homework(request, pk, assignment_pk)
    result = selectors.quiz_analysis(assignment, class_students(school_class))
    chart = (
        bar_chart(
            [(row.chart_label, row.percent_correct or 0) for row in result.items],
            title=_("Share correct by question"),
        )
        if result.counted
        else None
    )
    choice_charts = {
        row.number: bar_chart(
            [(option.label + (" ✓" if option.right else ""), option.percent) for option in row.options],
            title=_("Question %(number)d: options chosen") % {"number": row.number},
            colours=[NEUTRAL] * len(row.options),
        )
        for row in result.items
        if row.options and result.counted
    }
    return render(
        request,
        "progress/homework_analysis.html",
        {
            "school_class": school_class,
            "assignment": assignment,
            "result": result,
            "chart": chart,
            "rows": [(row, choice_charts.get(row.number)) for row in result.items],
        },
    )


@login_required
@require_GET
def homework_analysis_export(request: HttpRequest, pk: int, assignment_pk: int, fmt: str) -> HttpResponse:
    """The item analysis as CSV or XLSX: one row per question."""
    school_class, assignment = _quiz_homework(request, pk, assignment_pk)
    if fmt not in ("csv", "xlsx"):
        raise Http404
    data = selectors.quiz_analysis_table(selectors.quiz_analysis(assignment, class_students(school_class)))
    name = f"item-analysis-{slugify(assignment.title) or assignment.pk}.{fmt}"
    if fmt == "xlsx":
        return spreadsheets.xlsx_response(data.headers, data.rows, filename=name, title=_("Item analysis"))
    return spreadsheets.csv_response(data.headers, data.rows, filename=name)


@login_required
@require_GET
def symbol_picture(request: HttpRequest, symbol_pk: int) -> HttpResponseBase:
    """A symbol's picture beside its name on a progress page, to the student whose items
    it is among, their teachers, and the authors who may see the symbol; 404 to others."""
    symbol = Symbol.objects.filter(pk=symbol_pk).first()
    if symbol is None or not symbol.picture:
        raise Http404
    allowed = selectors.symbol_picture_allowed(request.user, symbol_pk) or (
        content_visible_to(request.user, Symbol.objects.filter(pk=symbol_pk)).exists()
    )
    if not allowed:
        raise Http404
    return picture_response(symbol.picture.name)
