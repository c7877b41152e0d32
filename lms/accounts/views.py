"""Account pages: a class list, login cards, a card's QR link, the first password, signing up.

Teachers reach only the classes they own or co-teach (404 otherwise); a class code or a
card's link that opens nothing is counted against the client's guesses (``config.limits``).
"""

from __future__ import annotations

import segno
from django.contrib import messages
from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model, login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from lms.classes import selectors as class_selectors
from lms.classes.errors import ClassError
from lms.models import SchoolClass

from . import cards, selectors, services
from .backends import CARD_BACKEND
from .forms import PasswordForm, SignupForm, StudentListForm

#: Django's own backend: a session signed in with a password chosen by the student.
PASSWORD_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _taught_class(request: HttpRequest, pk: int) -> SchoolClass:
    school_class = class_selectors.class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    return school_class


def _student_id(request: HttpRequest) -> int | None:
    """``?student=ID``: one student's card rather than the class's."""
    student = request.GET.get("student", "")
    return int(student) if student.isascii() and student.isdigit() and len(student) < 12 else None


def _printed(request: HttpRequest, school_class: SchoolClass) -> list[cards.PrintedCard]:
    found = list(selectors.class_cards(school_class, student_id=_student_id(request)))
    return cards.printed_cards(
        found, link_for=lambda token: request.build_absolute_uri(reverse("card_signin", args=[token]))
    )


def _qr_svg(url: str) -> str:
    # No width or height: the stylesheet sizes it (a phone, a screen, paper).
    code = segno.make(url, error="m")
    return code.svg_inline(border=2, omitsize=True, title=_("QR code that signs in once"))


# --- the teacher's pages ----------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def students_new(request: HttpRequest, pk: int) -> HttpResponse:
    """Add students from a pasted list or a CSV file: accounts, places in the class, login cards."""
    school_class = _taught_class(request, pk)
    form = StudentListForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = services.class_students_create(school_class=school_class, by=request.user, rows=form.rows)
        except services.AccountError as error:
            for problem in error.problems:
                form.add_error(None, problem)
        except ClassError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _created_message(len(made)))
            return redirect("lms:cards", pk=school_class.pk)
    return render(
        request,
        "lms/students_new.html",
        {"form": form, "school_class": school_class},
        status=400 if form.errors else 200,
    )


def _created_message(count: int) -> str:
    return ngettext(
        "%(n)d account was made. Print the login card and hand it out.",
        "%(n)d accounts were made. Print their login cards and hand them out.",
        count,
    ) % {"n": count}


@login_required
@require_GET
@never_cache
def cards_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The open login cards of the class, to print from the browser (or as a PDF)."""
    school_class = _taught_class(request, pk)
    printed = _printed(request, school_class)
    response = render(
        request,
        "lms/cards.html",
        {
            "school_class": school_class,
            "cards": [(card, _qr_svg(card.link)) for card in printed],
            "signin_url": request.build_absolute_uri(reverse("login")),
            "pdf_url": reverse("lms:cards_pdf", args=[school_class.pk])
            + (f"?student={student_id}" if (student_id := _student_id(request)) is not None else ""),
        },
    )
    response["Cache-Control"] = "no-store, private"
    return response


@login_required
@require_GET
def cards_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    printed = _printed(request, school_class)
    if not printed:
        messages.error(request, _("No student of this class has an open login card."))
        return redirect("lms:cards", pk=school_class.pk)
    # WeasyPrint is imported by the one view that prints, not by every process that loads
    # the URLs (it is a third of a web process's or a worker's start).
    from . import printing

    try:
        pdf = printing.cards_pdf(
            printed, school_class=school_class, signin_url=request.build_absolute_uri(reverse("login"))
        )
    except printing.PrintError as error:
        messages.error(request, str(error))
        return redirect("lms:cards", pk=school_class.pk)
    response = HttpResponse(pdf, content_type="application/pdf")
    name = slugify(school_class.name) or "class"
    response["Content-Disposition"] = f'attachment; filename="{name}-login-cards.pdf"'
    response["Cache-Control"] = "no-store, private"
    return response


@login_required
@require_POST
def card_new(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """A new login card for a student who forgot their password (the old one stops working)."""
    school_class = _taught_class(request, pk)
    student = get_user_model().objects.filter(pk=user_id).first()
    try:
        if student is None:
            raise ClassError("not_member", _("That person is not a student of this class."))
        services.login_card_issue(school_class=school_class, student=student, by=request.user)
    except ClassError as error:
        messages.error(request, str(error))
        return redirect("lms:class", pk=school_class.pk)
    messages.success(
        request,
        _("%(name)s has a new login card; their old password no longer works.")
        % {"name": class_selectors.student_name(student)},
    )
    return redirect(reverse("lms:cards", args=[school_class.pk]) + f"?student={student.pk}")


@login_required
@require_POST
def signup_answer(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """Let a student who made their own account into the class, or turn them away."""
    school_class = _taught_class(request, pk)
    student = get_user_model().objects.filter(pk=user_id).first()
    approve = request.POST.get("approve") == "1"
    try:
        if student is None:
            raise ClassError("not_waiting", _("That student is not waiting to join this class."))
        name = class_selectors.student_name(student)
        services.signup_answer(school_class=school_class, student=student, by=request.user, approve=approve)
    except ClassError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("%(name)s is in the class.") % {"name": name}
            if approve
            else _("%(name)s was turned away; the account made for this class is gone.") % {"name": name},
        )
    return redirect("lms:class", pk=school_class.pk)


@login_required
@require_POST
def signups_approve_all(request: HttpRequest, pk: int) -> HttpResponse:
    school_class = _taught_class(request, pk)
    count = services.signups_approve_all(school_class=school_class, by=request.user)
    messages.success(
        request,
        ngettext("%(n)d student was let into the class.", "%(n)d students were let into the class.", count)
        % {"n": count},
    )
    return redirect("lms:class", pk=school_class.pk)


# --- the student's pages ----------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@never_cache
@limits.codes_limited
def card_signin(request: HttpRequest, token: str) -> HttpResponse:
    """A card's QR link: "Sign in as …?", then signed in once; a used or expired link says so."""
    card = cards.card_for_token(token)
    if card is None:
        limits.code_failure(request)
        return render(request, "lms/card_link_spent.html", {"unknown": True}, status=404)
    if request.method == "GET":
        usable = card.link_used_at is None and card.is_open(timezone.now()) and card.student.is_active
        return render(
            request,
            "lms/card_signin.html" if usable else "lms/card_link_spent.html",
            {"card": card, "name": card.student.get_full_name() or card.student.get_username()},
            status=200 if usable else 410,
        )
    try:
        student = services.login_card_link_use(card=card)
    except services.AccountError:
        return render(request, "lms/card_link_spent.html", {"card": card}, status=410)
    login(request, student, backend=CARD_BACKEND)
    return redirect("password_set")


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def password_set(request: HttpRequest) -> HttpResponse:
    """Choose your own password: forced after signing in with a card, open to anyone signed in."""
    form = PasswordForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.password_set(user=request.user, password=form.cleaned_data["password1"])
        except services.AccountError as error:
            for problem in error.problems:
                form.add_error("password1", problem)
        else:
            # Signed in again with the password: the card's session ends with the card.
            login(request, user, backend=PASSWORD_BACKEND)
            messages.success(request, _("Your password is saved. Sign in with it from now on."))
            return redirect("lms:classes")
    return render(
        request,
        "lms/password_set.html",
        {"form": form, "first": request.session.get(BACKEND_SESSION_KEY) == CARD_BACKEND},
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
@limits.codes_limited
def signup(request: HttpRequest, code: str = "") -> HttpResponse:
    """A student makes their own account with the class code (if the class lets them)."""
    if request.user.is_authenticated:
        return redirect("lms:join_code", code=code) if code else redirect("lms:join")
    form = SignupForm(request.POST or None, initial={"code": code})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            made = services.student_signup(
                code=data["code"], name=data["name"], username=data["username"], password=data["password1"]
            )
        except services.AccountError as error:
            if error.code == "unknown_code":
                limits.code_failure(request)
            field = {
                "unknown_code": "code",
                "invalid_code": "code",
                "signup_closed": "code",
                "too_many_waiting": "code",
                "invalid_name": "name",
                "invalid_username": "username",
                "username_taken": "username",
                "weak_password": "password1",
            }.get(error.code)
            for problem in error.problems:
                form.add_error(field, problem)
        else:
            login(request, made.student, backend=PASSWORD_BACKEND)
            if made.waiting:
                messages.info(
                    request,
                    _(
                        "Your account is made. Your teacher lets you into %(name)s; "
                        "then your homework appears here."
                    )
                    % {"name": made.member.school_class.name},
                )
            else:
                messages.success(
                    request, _("You are in the class %(name)s.") % {"name": made.member.school_class.name}
                )
            return redirect("lms:classes")
    return render(
        request, "lms/signup.html", {"form": form, "code": code}, status=400 if form.errors else 200
    )
