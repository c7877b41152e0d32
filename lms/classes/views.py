"""Class and homework pages: parse the request, call one service or selector, render.

A teacher reaches only the classes they own or co-teach, a student only their own
classes, homework and attempts: anything else is a 404, so nobody learns what exists.
"""

from __future__ import annotations

from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from games.models import PracticeRun
from lms import privacy
from lms.accounts import selectors as account_selectors
from lms.accounts import services as account_services
from lms.accounts.forms import ClassWithStudentsForm
from lms.models import Assignment, ClassMember, SchoolClass, Submission

from . import quizzes, selectors, services, spreadsheets
from .errors import ClassError
from .forms import AssignmentForm, CoTeacherForm, JoinForm


def _taught_class(request: HttpRequest, pk: int) -> SchoolClass:
    school_class = selectors.class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    return school_class


def _join_url(request: HttpRequest, school_class: SchoolClass) -> str:
    return request.build_absolute_uri(reverse("lms:join_code", args=[school_class.join_code]))


def _qr(url: str) -> str:
    return segno.make(url, error="m").svg_inline(
        scale=10, border=2, title=_("QR code: %(url)s") % {"url": url}
    )


# --- both ---------------------------------------------------------------------------------------


@login_required
@require_GET
def classes(request: HttpRequest) -> HttpResponse:
    """A teacher's classes, or a student's."""
    if request.user.can_author:
        return render(
            request,
            "lms/classes.html",
            {
                "classes": selectors.classes_taught_by(request.user).order_by("archived", "name"),
                "offers": selectors.classes_offered_to(request.user),
            },
        )
    return render(
        request,
        "lms/student_classes.html",
        {
            "classes": selectors.classes_of_student(request.user),
            "waiting": selectors.classes_waiting_of(request.user),
        },
    )


# --- teacher ------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def class_new(request: HttpRequest) -> HttpResponse:
    """A new class; with a pasted list or a CSV file, its students' accounts and login cards too."""
    if not request.user.can_author:
        raise PermissionDenied
    form = ClassWithStudentsForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        name = form.cleaned_data["name"]
        try:
            if form.rows:
                school_class, made = account_services.class_create_with_students(
                    teacher=request.user, name=name, rows=form.rows
                )
            else:
                school_class = services.class_create(teacher=request.user, name=name)
        except account_services.AccountError as error:
            for problem in error.problems:
                form.add_error(None, problem)
        except ClassError as error:
            form.add_error(None, str(error))
        else:
            if form.rows:
                messages.success(
                    request,
                    ngettext(
                        "The class is made with %(n)d student. Print the login card and hand it out.",
                        "The class is made with %(n)d students. Print their login cards and hand them out.",
                        len(made),
                    )
                    % {"n": len(made)},
                )
                return redirect("lms:cards", pk=school_class.pk)
            return redirect("lms:class_code", pk=school_class.pk)
    return render(request, "lms/class_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def class_code(request: HttpRequest, pk: int) -> HttpResponse:
    """The join code and its QR code, big enough to read off a projector; POST: a new code."""
    school_class = _taught_class(request, pk)
    if request.method == "POST":
        try:
            school_class = services.class_code_renew(school_class=school_class, by=request.user)
        except ClassError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("The class has a new code; the old one no longer works."))
        return redirect("lms:class_code", pk=school_class.pk)
    join_url = _join_url(request, school_class)
    return render(
        request,
        "lms/class_code.html",
        {"school_class": school_class, "join_url": join_url, "join_qr": _qr(join_url)},
    )


@login_required
@require_GET
def class_dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    """Students, homework, completion and every student's counted grade and attempts. Only
    reads: an attempt past its homework's due time shows as being graded until it is."""
    school_class = _taught_class(request, pk)
    return render(
        request,
        "lms/class_dashboard.html",
        {
            "school_class": school_class,
            "book": selectors.gradebook(school_class),
            "co_teachers": selectors.class_co_teachers(school_class),
            "waiting": selectors.class_waiting(school_class),
            "open_cards": account_selectors.students_with_open_cards(school_class),
            "signup_choices": SchoolClass.Signup.choices,
            "is_owner": school_class.teacher_id == request.user.pk,
            "co_teacher_form": CoTeacherForm(),
            "join_url": _join_url(request, school_class),
            "now": timezone.now(),
        },
    )


@login_required
@require_POST
def class_settings(request: HttpRequest, pk: int) -> HttpResponse:
    """Rename, archive or bring back a class, or add a co-teacher."""
    school_class = _taught_class(request, pk)
    action = request.POST.get("action")
    try:
        if action == "rename":
            services.class_update(
                school_class=school_class, by=request.user, name=request.POST.get("name", "")
            )
            messages.success(request, _("The class was renamed."))
        elif action in ("archive", "restore"):
            services.class_update(school_class=school_class, by=request.user, archived=action == "archive")
            messages.success(
                request,
                _("The class was archived.") if action == "archive" else _("The class is active again."),
            )
        elif action == "co_teacher":
            user = _teacher_named(request)
            services.class_member_add(school_class=school_class, user=user, role="teacher", by=request.user)
            messages.success(
                request, _("%(name)s now co-teaches this class.") % {"name": selectors.student_name(user)}
            )
        elif action == "signup":
            services.class_update(
                school_class=school_class, by=request.user, signup=request.POST.get("signup")
            )
            messages.success(request, _("The class's sign-up setting is saved."))
        elif action == "handover":
            user = _teacher_named(request)
            services.class_handover_offer(school_class=school_class, to=user, by=request.user)
            messages.success(
                request,
                _("The class is offered to %(name)s; it is theirs once they accept it on their class list.")
                % {"name": selectors.student_name(user)},
            )
        elif action == "handover_cancel":
            services.class_handover_cancel(school_class=school_class, by=request.user)
            messages.success(request, _("The class is no longer offered; it stays yours."))
        else:
            raise ClassError("invalid", _("Unknown change."))
    except ClassError as error:
        messages.error(request, str(error))
    return redirect("lms:class", pk=school_class.pk)


def _teacher_named(request: HttpRequest) -> Any:
    """The teacher whose username the form names; a refusal if there is none."""
    form = CoTeacherForm(request.POST)
    user = None
    if form.is_valid():
        user = get_user_model().objects.filter(username=form.cleaned_data["username"].strip()).first()
    if user is None or not user.can_author:
        raise ClassError("unknown_user", _("No teacher has that username."))
    return user


@login_required
@require_POST
def handover_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """The teacher a class is offered to takes it over, or declines."""
    school_class = SchoolClass.objects.filter(pk=pk, handover_to=request.user).first()
    if school_class is None:
        raise Http404
    accept = request.POST.get("accept") == "1"
    try:
        services.class_handover_answer(school_class=school_class, by=request.user, accept=accept)
    except ClassError as error:
        if error.code == "not_found":
            raise Http404 from None
        messages.error(request, str(error))
        return redirect("lms:classes")
    if accept:
        messages.success(request, _("%(name)s is your class now.") % {"name": school_class.name})
        return redirect("lms:class", pk=school_class.pk)
    messages.success(request, _("You declined the class %(name)s.") % {"name": school_class.name})
    return redirect("lms:classes")


@login_required
@require_POST
def member_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    user = get_user_model().objects.filter(pk=user_id).first()
    try:
        if user is None:
            raise ClassError("not_member", _("That person is not in this class."))
        services.class_member_remove(school_class=school_class, user=user, by=request.user)
    except ClassError as error:
        messages.error(request, str(error))
    else:
        if user.pk == request.user.pk:
            messages.success(request, _("You left the class %(name)s.") % {"name": school_class.name})
            return redirect("lms:classes")
        messages.success(
            request,
            _("%(name)s was taken out of the class; their grades are kept.")
            % {"name": selectors.student_name(user)},
        )
    return redirect("lms:class", pk=school_class.pk)


def _gradebook_filename(school_class: SchoolClass, ext: str) -> str:
    return f"{slugify(school_class.name) or 'class'}-gradebook-{timezone.localdate():%Y-%m-%d}.{ext}"


@login_required
@require_GET
def gradebook_csv(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    header, rows = selectors.gradebook_table(selectors.gradebook(school_class))
    return spreadsheets.csv_response(header, rows, filename=_gradebook_filename(school_class, "csv"))


@login_required
@require_GET
def gradebook_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    header, rows = selectors.gradebook_table(selectors.gradebook(school_class))
    return spreadsheets.xlsx_response(
        header,
        rows,
        filename=_gradebook_filename(school_class, "xlsx"),
        title=_("Gradebook"),
        freeze="C2",
    )


@login_required
@require_http_methods(["GET", "POST"])
def assignment_new(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    form = AssignmentForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            assignment = services.assignment_create(
                school_class=school_class,
                by=request.user,
                publish=form.cleaned_data.get("publish", False),
                **form.service_fields(),
            )
        except ClassError as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request,
                _("The homework is published.")
                if assignment.published
                else _("The homework is saved as a draft."),
            )
            return redirect("lms:assignment", pk=school_class.pk, assignment_pk=assignment.pk)
    return render(
        request,
        "lms/assignment_form.html",
        {"form": form, "school_class": school_class, "assignment": None},
        status=400 if form.errors else 200,
    )


def _taught_assignment(request: HttpRequest, pk: int, assignment_pk: int) -> tuple[SchoolClass, Assignment]:
    school_class = _taught_class(request, pk)
    assignment = selectors.assignment_for_teacher(request.user, school_class, assignment_pk)
    if assignment is None:
        raise Http404
    return school_class, assignment


@login_required
@require_http_methods(["GET", "POST"])
def assignment_edit(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    school_class, assignment = _taught_assignment(request, pk, assignment_pk)
    form = AssignmentForm(
        request.POST or None,
        user=request.user,
        editing=assignment,
        initial=AssignmentForm.initial_for(assignment),
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.assignment_update(assignment=assignment, by=request.user, **form.service_fields())
        except ClassError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("The homework was saved."))
            return redirect("lms:assignment", pk=school_class.pk, assignment_pk=assignment.pk)
    return render(
        request,
        "lms/assignment_form.html",
        {"form": form, "school_class": school_class, "assignment": assignment},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def assignment_publish(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    school_class, assignment = _taught_assignment(request, pk, assignment_pk)
    publish = request.POST.get("published") != "0"
    try:
        services.assignment_publish(assignment=assignment, by=request.user, published=publish)
    except ClassError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("The homework is published.") if publish else _("The homework is hidden from the class."),
        )
    return redirect("lms:assignment", pk=school_class.pk, assignment_pk=assignment.pk)


@login_required
@require_GET
def assignment_detail(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    """One homework: every student's attempts, scores and the grade that counts."""
    school_class, assignment = _taught_assignment(request, pk, assignment_pk)
    services.assignment_open(assignment=assignment)
    book = selectors.gradebook(school_class)
    submissions: dict[int, list[Submission]] = {}
    for submission in assignment.submissions.order_by("student_id", "number"):
        submissions.setdefault(submission.student_id, []).append(submission)
    rows = [
        (student, book.cell(student, assignment), submissions.get(student.pk, []))
        for student in book.students
    ]
    column = next(c for c in book.columns if c.assignment.pk == assignment.pk)
    return render(
        request,
        "lms/assignment_detail.html",
        {"school_class": school_class, "assignment": assignment, "rows": rows, "column": column},
    )


# --- student ------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@limits.codes_limited
def join(request: HttpRequest, code: str = "") -> HttpResponse:
    """Join a class with its code: typed, or from the QR code's link.

    Someone not signed in chooses: sign in (and come back here), or make an account with
    the code. Nothing is looked up for them here, so nothing is counted."""
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "lms/join_anonymous.html", {"code": code, "next": request.get_full_path()})
    form = JoinForm(request.POST or None, initial={"code": code})
    if request.method == "POST" and form.is_valid():
        try:
            member = services.class_join(code=form.cleaned_data["code"], student=request.user)
        except ClassError as error:
            if error.code == "unknown_code":
                limits.code_failure(request)
            form.add_error("code", str(error))
        else:
            if member.role == ClassMember.Role.PENDING:
                messages.info(
                    request,
                    _("Your teacher has not let you into %(name)s yet; then your homework appears here.")
                    % {"name": member.school_class.name},
                )
                return redirect("lms:classes")
            messages.success(
                request, _("You are in the class %(name)s.") % {"name": member.school_class.name}
            )
            return redirect("lms:homework")
    return render(request, "lms/join.html", {"form": form, "code": code}, status=400 if form.errors else 200)


@login_required
@require_GET
def homework(request: HttpRequest) -> HttpResponse:
    """My homework: open, due soon, upcoming, done, missed; my scores. Only reads: an attempt
    past its due time shows as being graded until it is (``selectors.homework_of``)."""
    items = selectors.homework_of(request.user)
    groups = [
        ("due_soon", _("Due soon"), [i for i in items if i.state == "due_soon"]),
        ("open", pgettext("homework state", "Open"), [i for i in items if i.state == "open"]),
        ("upcoming", _("Not open yet"), [i for i in items if i.state == "upcoming"]),
        ("done", _("Done"), [i for i in items if i.state == "done"]),
        ("missed", _("Missed"), [i for i in items if i.state == "missed"]),
    ]
    return render(
        request,
        "lms/homework.html",
        {"groups": [g for g in groups if g[2]], "classes": selectors.classes_of_student(request.user)},
    )


def _attempt_url(submission: Submission) -> str | None:
    if submission.session_id:
        return reverse("games:session", args=[submission.session_id])
    if submission.practice_run_id:
        run = PracticeRun.objects.filter(pk=submission.practice_run_id).only("session_id").first()
        return reverse("games:session", args=[run.session_id]) if run else None
    attempt = getattr(submission, "quiz_attempt", None)
    return quizzes.attempt_url(attempt) if attempt is not None else None


@login_required
@require_http_methods(["GET", "POST"])
def homework_detail(request: HttpRequest, assignment_pk: int) -> HttpResponse:
    """One homework for its student: what to do, my attempts, start or resume."""
    assignment = selectors.assignment_for_student(request.user, assignment_pk)
    if assignment is None:
        raise Http404
    error = None
    if request.method == "POST":
        try:
            submission = services.submission_start(
                assignment=assignment, student=request.user, mode=request.POST.get("mode") or None
            )
        except ClassError as refusal:
            if refusal.code == "not_found":
                raise Http404 from None
            error = str(refusal)
        else:
            url = _attempt_url(submission)
            if url:
                return redirect(url)
            error = _("The attempt could not be opened; try again.")
    else:
        services.assignment_open(assignment=assignment)
    attempts = selectors.homework_attempts_of(request.user, assignment)
    return render(
        request,
        "lms/homework_detail.html",
        {
            "assignment": assignment,
            "submissions": [
                (s, _attempt_url(s) if s.status == Submission.Status.IN_PROGRESS else None)
                for s in attempts.submissions
            ],
            "in_progress": attempts.in_progress,
            "grade": attempts.grade,
            "used": attempts.used,
            "reason": attempts.reason,
            "error": error,
            "modes": PracticeRun.Mode.choices,
        },
        status=400 if error else 200,
    )


# --- a student's data (GDPR access and erasure; lms/privacy.py) ---------------------------------


def _student_of_class(
    request: HttpRequest, pk: int, user_id: int, *, erase: bool = False
) -> tuple[SchoolClass, Any]:
    school_class = _taught_class(request, pk)
    if not school_class.members.filter(user_id=user_id, role="student").exists():
        raise Http404
    student = privacy.student_for_privacy(by=request.user, student_id=user_id, erase=erase)
    if student is None:
        raise Http404
    return school_class, student


@login_required
@require_GET
def student_data(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """A copy of everything Talia holds about one student of the class, as a JSON download."""
    _school_class, student = _student_of_class(request, pk, user_id)
    return privacy.student_data_download(student=student, by=request.user)


@login_required
@require_http_methods(["GET", "POST"])
def student_erase(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """Ask, then erase one student of the class: account, answers and grades; names pseudonymised."""
    try:
        school_class, student = _student_of_class(request, pk, user_id, erase=True)
    except privacy.PrivacyRefused as refusal:
        messages.error(request, str(refusal))
        return redirect("lms:class", pk=pk)
    name = selectors.student_name(student)
    if request.method == "POST" and request.POST.get("confirm") == student.get_username():
        privacy.student_erase(student=student, by=request.user)
        messages.success(request, _("%(name)s was erased.") % {"name": name})
        return redirect("lms:class", pk=school_class.pk)
    return render(
        request,
        "lms/student_erase.html",
        {
            "school_class": school_class,
            "student": student,
            "name": name,
            "wrong_confirmation": request.method == "POST",
        },
    )
