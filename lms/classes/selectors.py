"""Reads for the class and homework pages. Every read is scoped to the person asking."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from lms.models import Assignment, ClassMember, Grade, SchoolClass, Submission, User

#: Homework due within this time is "due soon" on the student's list.
DUE_SOON = timedelta(days=2)


def classes_taught_by(user: Any) -> QuerySet[SchoolClass]:
    """The classes ``user`` owns or co-teaches, with their number of students."""
    if not getattr(user, "is_authenticated", False):
        return SchoolClass.objects.none()
    return (
        SchoolClass.objects.filter(
            Q(teacher=user) | Q(members__user=user, members__role=ClassMember.Role.TEACHER)
        )
        .distinct()
        .annotate(
            student_count=Count("members", filter=Q(members__role=ClassMember.Role.STUDENT), distinct=True)
        )
        .select_related("teacher")
    )


def class_for_teacher(user: Any, pk: int) -> SchoolClass | None:
    """The class ``pk`` if ``user`` teaches it; ``None`` otherwise (the page answers 404)."""
    return classes_taught_by(user).filter(pk=pk).first()


def classes_of_student(user: Any) -> QuerySet[SchoolClass]:
    if not getattr(user, "is_authenticated", False):
        return SchoolClass.objects.none()
    return SchoolClass.objects.filter(
        members__user=user, members__role=ClassMember.Role.STUDENT
    ).select_related("teacher")


def class_students(school_class: SchoolClass) -> list[Any]:
    """The class's students (users), by surname, first name, username."""
    members = (
        ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.STUDENT)
        .select_related("user")
        .order_by("user__last_name", "user__first_name", "user__username")
    )
    return [member.user for member in members]


def class_waiting(school_class: SchoolClass) -> list[Any]:
    """The students whose own new accounts wait for the teacher to let them into the class."""
    members = ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.PENDING)
    return [m.user for m in members.select_related("user").order_by("joined", "pk")]


def classes_waiting_of(user: Any) -> QuerySet[SchoolClass]:
    """The classes ``user`` waits to be let into."""
    if not getattr(user, "is_authenticated", False):
        return SchoolClass.objects.none()
    return SchoolClass.objects.filter(members__user=user, members__role=ClassMember.Role.PENDING)


def classes_offered_to(user: Any) -> QuerySet[SchoolClass]:
    """The classes another teacher offers to hand over to ``user``, with their students and co-teachers."""
    if not getattr(user, "is_authenticated", False):
        return SchoolClass.objects.none()
    return (
        SchoolClass.objects.filter(handover_to=user)
        .annotate(
            student_count=Count("members", filter=Q(members__role=ClassMember.Role.STUDENT), distinct=True)
        )
        .select_related("teacher")
    )


def class_co_teachers(school_class: SchoolClass) -> list[Any]:
    members = ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.TEACHER)
    return [member.user for member in members.select_related("user")]


def assignment_for_teacher(user: Any, school_class: SchoolClass, pk: int) -> Assignment | None:
    """Homework ``pk`` of a class the caller already proved they teach."""
    return Assignment.objects.filter(school_class=school_class, pk=pk).first()


def assignment_for_student(user: Any, pk: int) -> Assignment | None:
    """Published homework ``pk`` of a class ``user`` is a student in; ``None`` otherwise."""
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        Assignment.objects.filter(
            pk=pk,
            published=True,
            school_class__members__user=user,
            school_class__members__role=ClassMember.Role.STUDENT,
        )
        .select_related("school_class", "practice")
        .first()
    )


def submissions_of(student: Any, assignment: Assignment) -> QuerySet[Submission]:
    """``student``'s own attempts at ``assignment``; never anyone else's."""
    return Submission.objects.filter(assignment=assignment, student=student).order_by("number")


def when_shown(moment: datetime) -> str:
    """A moment as the pages and the refusals show it: local time, the locale's format."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


@dataclass
class HomeworkAttempts:
    """A student's attempts at one homework, the counted grade, and why a new attempt
    cannot start now (``None`` when it can, or when one in progress can be resumed)."""

    submissions: list[Submission]
    in_progress: Submission | None
    grade: Grade | None
    reason: str | None

    @property
    def used(self) -> int:
        return len(self.submissions)


def homework_attempts_of(
    student: Any, assignment: Assignment, *, now: datetime | None = None
) -> HomeworkAttempts:
    """``student``'s attempts at ``assignment`` and whether another can start.

    The rules are those ``services.submission_start`` enforces: not before ``opens_at``,
    not from ``due_at`` on, and no new attempt once ``max_attempts`` are used (an attempt
    in progress can still be resumed). The homework page shows the reason in place of
    the start button; the service still decides when the student presses it.
    """
    now = now or timezone.now()
    submissions = list(submissions_of(student, assignment))
    in_progress = next((s for s in submissions if s.status == Submission.Status.IN_PROGRESS), None)
    reason = None
    if assignment.opens_at and now < assignment.opens_at:
        reason = _("It opens on %(when)s.") % {"when": when_shown(assignment.opens_at)}
    elif assignment.due_at and now >= assignment.due_at:
        reason = _("It was due on %(when)s.") % {"when": when_shown(assignment.due_at)}
    elif (
        in_progress is None
        and assignment.max_attempts is not None
        and len(submissions) >= assignment.max_attempts
    ):
        reason = _("You have used all your attempts.")
    return HomeworkAttempts(
        submissions=submissions,
        in_progress=in_progress,
        grade=assignment.grades.filter(student=student).first(),
        reason=reason,
    )


# --- the gradebook --------------------------------------------------------------------------------


@dataclass
class Cell:
    """One student on one assignment: the counted grade and the attempts."""

    grade: Grade | None = None
    attempts: int = 0
    in_progress: bool = False
    #: An attempt in progress past the due time: the due-time task or the sweep grades it.
    being_graded: bool = False

    @property
    def done(self) -> bool:
        return self.grade is not None


@dataclass
class AssignmentColumn:
    assignment: Assignment
    done: int = 0
    started: int = 0
    students: int = 0

    @property
    def percent_done(self) -> int:
        return round(100 * self.done / self.students) if self.students else 0


@dataclass
class Gradebook:
    students: list[Any]
    columns: list[AssignmentColumn]
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)

    def cell(self, student: Any, assignment: Assignment) -> Cell:
        return self.cells.get((student.pk, assignment.pk), Cell())

    @property
    def rows(self) -> list[tuple[Any, list[Cell]]]:
        return [(s, [self.cell(s, c.assignment) for c in self.columns]) for s in self.students]


def gradebook(school_class: SchoolClass, *, now: datetime | None = None) -> Gradebook:
    """Every student × every assignment of the class: counted grade, attempts, completion.

    Four queries whatever the class's size. Nothing is graded here: an attempt in progress
    past its homework's due time is shown as being graded (``Cell.being_graded``).
    """
    now = now or timezone.now()
    students = class_students(school_class)
    assignments = list(school_class.assignments.order_by("due_at", "pk"))
    past_due = {a.pk for a in assignments if _past_due(a, now)}
    book = Gradebook(
        students=students, columns=[AssignmentColumn(a, students=len(students)) for a in assignments]
    )
    ids = [s.pk for s in students]
    for grade in Grade.objects.filter(assignment__school_class=school_class, student_id__in=ids):
        book.cells.setdefault((grade.student_id, grade.assignment_id), Cell()).grade = grade
    counts = (
        Submission.objects.filter(assignment__school_class=school_class, student_id__in=ids)
        .values("student_id", "assignment_id")
        .annotate(n=Count("pk"), open=Count("pk", filter=Q(status=Submission.Status.IN_PROGRESS)))
    )
    for row in counts:
        cell = book.cells.setdefault((row["student_id"], row["assignment_id"]), Cell())
        cell.attempts, cell.in_progress = row["n"], row["open"] > 0
        cell.being_graded = cell.in_progress and row["assignment_id"] in past_due
    for column in book.columns:
        for student in students:
            cell = book.cell(student, column.assignment)
            column.done += cell.done
            column.started += cell.attempts > 0
    return book


def _past_due(assignment: Assignment, now: datetime) -> bool:
    """Past the due time, and its attempts in progress not graded at it yet."""
    return assignment.due_at is not None and now >= assignment.due_at and assignment.due_graded_at is None


def student_name(user: User) -> str:
    return user.get_full_name() or user.get_username()


def gradebook_table(book: Gradebook) -> tuple[list[str], list[list[Any]]]:
    """The gradebook as a header and rows, for CSV and XLSX: a score and an attempts column per homework."""
    from django.utils.translation import gettext as _

    header = [_("Student"), _("Username")]
    for column in book.columns:
        a = column.assignment
        header.append(
            _("%(title)s (out of %(points)s)") % {"title": a.title, "points": _number(a.points_possible)}
        )
        header.append(_("%(title)s: attempts") % {"title": a.title})
    rows = []
    for student, cells in book.rows:
        row: list[Any] = [student_name(student), student.get_username()]
        for cell in cells:
            row.append(cell.grade.score if cell.grade else None)
            row.append(cell.attempts)
        rows.append(row)
    return header, rows


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral() else format(value, "f")


# --- the student's homework -----------------------------------------------------------------------


@dataclass
class Homework:
    """One assignment as its student sees it."""

    assignment: Assignment
    grade: Grade | None
    attempts: int
    in_progress: bool
    state: str  # "upcoming", "open", "due_soon", "done", "missed"
    #: An attempt in progress past the due time: done, its grade on the way.
    being_graded: bool = False

    @property
    def attempts_left(self) -> int | None:
        if self.assignment.max_attempts is None:
            return None
        return max(0, self.assignment.max_attempts - self.attempts)


def homework_of(student: Any, *, now: datetime | None = None) -> list[Homework]:
    """The published homework of every class ``student`` is in, with their own grades only.

    Nothing is graded here: an attempt in progress past the due time is done and shown as
    being graded until the due-time task or the sweep grades it."""
    now = now or timezone.now()
    assignments = list(
        Assignment.objects.filter(
            published=True,
            school_class__members__user=student,
            school_class__members__role=ClassMember.Role.STUDENT,
        )
        .select_related("school_class")
        .order_by("due_at", "pk")
    )
    grades = {g.assignment_id: g for g in Grade.objects.filter(student=student, assignment__in=assignments)}
    counts = {
        row["assignment_id"]: row
        for row in Submission.objects.filter(student=student, assignment__in=assignments)
        .values("assignment_id")
        .annotate(n=Count("pk"), open=Count("pk", filter=Q(status=Submission.Status.IN_PROGRESS)))
    }
    items = []
    for assignment in assignments:
        row = counts.get(assignment.pk, {"n": 0, "open": 0})
        grade = grades.get(assignment.pk)
        in_progress = row["open"] > 0
        being_graded = in_progress and _past_due(assignment, now)
        attempts_left = None if assignment.max_attempts is None else assignment.max_attempts - row["n"]
        if assignment.opens_at and now < assignment.opens_at:
            state = "upcoming"
        elif assignment.due_at and now >= assignment.due_at:
            state = "done" if grade or being_graded else "missed"
        elif grade and not in_progress and attempts_left is not None and attempts_left <= 0:
            state = "done"
        elif assignment.due_at and assignment.due_at - now <= DUE_SOON:
            state = "due_soon"
        else:
            state = "open"
        items.append(
            Homework(assignment, grade, row["n"], in_progress and not being_graded, state, being_graded)
        )
    return items
