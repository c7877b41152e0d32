"""Quiz pages: build, preview, edit, publish and print (teacher); take and see results (student).

Every change is a POST checked by Django's CSRF middleware and answered with a redirect,
except autosave, which answers JSON. A teacher reaches only their own quizzes (404 for
the others); a student only their own attempts. Before an attempt is submitted nothing
the student receives holds a key: the pages render ``QuizItem.prompt`` only, and
pictures are served under item-local tokens (``q``, ``a``…) that say nothing.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from content.packages.services import PackageExportError
from games import selectors as game_selectors
from games.engines import quiz as engine
from games.models import GameSession

from . import packages, selectors, services
from .answers import answer_text, explanation, knowledge_label
from .forms import FollowupForm, PublishForm, QuizNewForm
from .models import KIND_LABELS, Quiz, QuizAttempt, QuizItem, QuizResponse
from .pictures import item_picture_response

ANSWER_MAX_BYTES = 8192


def _teacher(request: HttpRequest) -> Any:
    user = request.user
    if not user.is_authenticated or not getattr(user, "can_author", False):
        raise Http404
    return user


def _own_quiz(request: HttpRequest, pk: int) -> Quiz:
    """The quiz if the visitor made it or co-teaches a class of its teacher; 404 for
    everyone else, other teachers included."""
    return get_object_or_404(selectors.quizzes_of(_teacher(request)), pk=pk)


def _refusal(request: HttpRequest, error: services.QuizError) -> None:
    messages.error(request, str(error))


# --- building -------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def quiz_new(request: HttpRequest) -> HttpResponse:
    teacher = _teacher(request)
    form = QuizNewForm(request.POST or None, user=teacher)
    if request.method == "POST" and form.is_valid():
        pool, label = form.pool_and_label()
        try:
            quiz = services.quiz_create(
                owner=teacher,
                title=form.cleaned_data["title"] or _("Quiz: %(what)s") % {"what": label},
                source=form.cleaned_data["source"],
                source_description=label,
                pool=pool,
                total=form.items_wanted(),
            )
        except services.QuizError as error:
            form.add_error(None, str(error))
        else:
            return redirect("quiz:detail", quiz.pk)
    return render(request, "games/quiz/new.html", {"form": form})


def _followup_context(session: GameSession, teacher: Any) -> dict[str, Any]:
    quizzes = list(selectors.session_quizzes(session, teacher))
    per_student = [quiz for quiz in quizzes if quiz.student_id is not None]
    batch = selectors.batch_progress(per_student)
    return {
        "session": session,
        "unavailable": selectors.followup_unavailable(session),
        "class_quizzes": [quiz for quiz in quizzes if quiz.student_id is None],
        "per_student": per_student,
        "batch": batch,
        "working": batch["working"] > 0,
        "status_url": reverse("quiz:followup_status", args=[session.pk]),
        "publishable": sum(1 for q in per_student if q.state == "done" and q.status == Quiz.Status.DRAFT),
    }


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def quiz_followup(request: HttpRequest, session_pk: int) -> HttpResponse:
    """The follow-up quiz of a finished game: one quiz for the class (the "Follow-up quiz"
    button posts here), or one per student who played, with the batch's progress."""
    teacher = _teacher(request)
    session = get_object_or_404(game_selectors.sessions_facilitated_by(teacher), pk=session_pk)
    form = FollowupForm(request.POST if request.method == "POST" else None, session=session)
    if request.method == "POST":
        if form.is_valid():
            total = form.cleaned_data["total"] or services.DEFAULT_ITEMS
            try:
                if form.cleaned_data["build"] == FollowupForm.PER_STUDENT:
                    quizzes = services.quizzes_create_from_session_for_students(
                        session=session, by=teacher, students=form.cleaned_data["students"], total=total
                    )
                    messages.success(
                        request,
                        ngettext(
                            "%(n)d quiz is being built, one per student.",
                            "%(n)d quizzes are being built, one per student.",
                            len(quizzes),
                        )
                        % {"n": len(quizzes)},
                    )
                    return redirect(reverse("quiz:followup", args=[session.pk]) + "#per-student")
                quiz = services.quiz_create_from_session(session=session, by=teacher, total=total)
            except services.QuizError as error:
                form.add_error(None, str(error))
            else:
                return redirect("quiz:detail", quiz.pk)
        if request.POST.get("from") == "session":
            # The button on the game's page: say why there, as before.
            for error in form.non_field_errors():
                messages.error(request, error)
            return redirect("games:session", session.pk)
    context = _followup_context(session, teacher)
    context["form"] = form
    return render(request, "games/quiz/followup.html", context, status=400 if form.errors else 200)


@login_required
@require_GET
@never_cache
def quiz_followup_status(request: HttpRequest, session_pk: int) -> JsonResponse:
    """The per-student quizzes' build progress, for ``talia/progress.js``."""
    teacher = _teacher(request)
    session = get_object_or_404(game_selectors.sessions_facilitated_by(teacher), pk=session_pk)
    per_student = [q for q in selectors.session_quizzes(session, teacher) if q.student_id is not None]
    batch = selectors.batch_progress(per_student)
    return JsonResponse(
        {
            "state_label": _("%(done)d of %(total)d built") % batch,
            "progress": batch["progress"],
            "working": batch["working"] > 0,
            **{key: batch[key] for key in ("total", "done", "failed")},
        }
    )


@login_required
@require_POST
def quiz_followup_publish(request: HttpRequest, session_pk: int) -> HttpResponse:
    """Publish every built per-student draft of the game at once (each stays its student's)."""
    teacher = _teacher(request)
    session = get_object_or_404(game_selectors.sessions_facilitated_by(teacher), pk=session_pk)
    count = 0
    for quiz in selectors.session_quizzes(session, teacher).filter(
        student__isnull=False, state="done", status=Quiz.Status.DRAFT
    ):
        try:
            services.quiz_publish(quiz=quiz, by=teacher)
        except services.QuizError as error:
            _refusal(request, error)
        else:
            count += 1
    if count:
        messages.success(
            request,
            ngettext(
                "%(n)d quiz published: each student takes only their own.",
                "%(n)d quizzes published: each student takes only their own.",
                count,
            )
            % {"n": count},
        )
    return redirect(reverse("quiz:followup", args=[session.pk]) + "#per-student")


@login_required
@require_GET
def quiz_mine(request: HttpRequest) -> HttpResponse:
    """The published quizzes built for the signed-in student alone."""
    quizzes = Quiz.objects.filter(student=request.user, status=Quiz.Status.PUBLISHED).exclude(
        source=Quiz.Source.REVIEW
    )
    return render(request, "games/quiz/mine.html", {"quizzes": quizzes.order_by("-published_at")[:100]})


@login_required
@require_GET
def quiz_list(request: HttpRequest) -> HttpResponse:
    quizzes = selectors.quizzes_of(_teacher(request)).select_related("student", "owner")[:200]
    return render(request, "games/quiz/list.html", {"quizzes": quizzes})


# --- preview, edit, publish -------------------------------------------------------------------


def _item_view(
    item: QuizItem, picture_url: str, *, with_key: bool, saved: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What a template draws for one item: its prompt, picture URLs, and the key if allowed.

    A chronology's events come in the order the student last saved (the shown order before
    that); a matching's right-hand sides are lettered as they are printed.
    """
    prompt = item.prompt

    def url(token: str) -> str:
        return picture_url.replace("__item__", str(item.pk)).replace("__token__", token)

    def pictured(entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, "picture_url": url(entry["picture"]) if entry.get("picture") else ""}

    options = []
    for index, option in enumerate(prompt.get("options", [])):
        if isinstance(option, dict):
            entry = pictured(option)
        else:  # Knowledge? options are plain values
            entry = {"id": option, "text": knowledge_label(prompt.get("category", ""), option)}
        options.append({**entry, "letter": engine.option_letter(index)})
    events = [pictured(event) for event in prompt.get("events", [])]
    order = (saved or {}).get("order") or []
    if sorted(order) == sorted(event["id"] for event in events):
        by_id = {event["id"]: event for event in events}
        events = [by_id[event_id] for event_id in order]
    view: dict[str, Any] = {
        "item": item,
        "kind_label": KIND_LABELS.get(item.kind, item.kind),
        "prompt": prompt,
        "options": options,
        "events": events,
        "left": [
            {**pictured(side), "chosen": ((saved or {}).get("pairs") or {}).get(side["id"], "")}
            for side in prompt.get("left", [])
        ],
        "right": [
            {**side, "letter": engine.option_letter(i)} for i, side in enumerate(prompt.get("right", []))
        ],
        "picture_url": url(prompt["picture"]) if prompt.get("picture") else "",
    }
    if with_key:
        view["key"] = item.key
        view["answer_text"] = answer_text(item)
        view["explanation"] = explanation(item)
    return view


@login_required
@require_GET
@never_cache
def quiz_detail(request: HttpRequest, pk: int) -> HttpResponse:
    quiz = _own_quiz(request, pk)
    picture_url = reverse("quiz:teacher_picture", args=[quiz.pk, 0, "x"]).replace("/0/", "/__item__/")
    picture_url = picture_url[: -len("x")] + "__token__"
    items = [_item_view(item, picture_url, with_key=True) for item in selectors.quiz_items(quiz)]
    attempts = quiz.attempts.select_related("student").order_by("-started_at")[:200]
    return render(
        request,
        "games/quiz/detail.html",
        {
            "quiz": quiz,
            "job": quiz,
            "working": quiz.state in ("queued", "running"),
            "status_url": reverse("quiz:status", args=[quiz.pk]),
            "items": items,
            **_replace_choices(quiz),
            "attempts": attempts,
            "to_mark": selectors.responses_to_mark(quiz),
            "take_url": request.build_absolute_uri(reverse("quiz:take", args=[quiz.code])),
            "publish_form": PublishForm(),
        },
    )


def _replace_choices(quiz: Quiz) -> dict[str, Any]:
    """The kinds a replacement can still be made of (only those are offered), and why the
    others are not."""
    if quiz.state != "done" or quiz.status != Quiz.Status.DRAFT:
        return {"kinds": [], "kinds_unavailable": []}
    kinds, unavailable = [], []
    for kind, possible, made_at_all in selectors.replace_kinds(quiz):
        label = KIND_LABELS[kind]
        if possible:
            kinds.append((kind, label))
        elif made_at_all:
            unavailable.append(
                (label, _("every one this quiz's content gives is already asked, dropped or replaced"))
            )
        else:
            unavailable.append((label, services.TOO_SMALL_REASONS[kind]))
    return {"kinds": kinds, "kinds_unavailable": unavailable}


@login_required
@require_GET
@never_cache
def quiz_status(request: HttpRequest, pk: int) -> JsonResponse:
    quiz = _own_quiz(request, pk)
    return JsonResponse(
        {
            "state": quiz.state,
            "state_label": quiz.get_state_display(),
            "progress": quiz.progress,
            "working": quiz.state in ("queued", "running"),
        }
    )


@login_required
@require_POST
def item_drop(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    quiz = _own_quiz(request, pk)
    item = get_object_or_404(QuizItem, pk=item_pk, quiz=quiz)
    try:
        services.quiz_item_drop(item=item, by=request.user)
    except services.QuizError as error:
        _refusal(request, error)
    else:
        messages.success(request, _("Item %(n)d dropped.") % {"n": item.position})
    return redirect("quiz:detail", quiz.pk)


@login_required
@require_POST
def item_replace(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    quiz = _own_quiz(request, pk)
    item = get_object_or_404(QuizItem, pk=item_pk, quiz=quiz)
    kind = request.POST.get("kind") or None
    try:
        services.quiz_item_replace(item=item, by=request.user, kind=kind)
    except services.QuizError as error:
        _refusal(request, error)
    else:
        messages.success(request, _("Item %(n)d replaced.") % {"n": item.position})
    return redirect(reverse("quiz:detail", args=[quiz.pk]) + f"#item-{item.pk}")


@login_required
@require_POST
def quiz_retry(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Try again" on a quiz whose generation failed."""
    quiz = _own_quiz(request, pk)
    try:
        services.quiz_retry(quiz=quiz, by=request.user)
    except services.QuizError as error:
        _refusal(request, error)
    return redirect("quiz:detail", quiz.pk)


@login_required
@require_POST
def quiz_publish(request: HttpRequest, pk: int) -> HttpResponse:
    quiz = _own_quiz(request, pk)
    form = PublishForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("quiz:detail", quiz.pk)
    try:
        services.quiz_publish(quiz=quiz, by=request.user, time_limit_minutes=form.cleaned_data["time_limit"])
    except services.QuizError as error:
        _refusal(request, error)
    else:
        messages.success(request, _("Published: students can take the quiz with its link or code."))
    return redirect("quiz:detail", quiz.pk)


@login_required
@require_POST
def response_mark(request: HttpRequest, pk: int, response_pk: int) -> HttpResponse:
    quiz = _own_quiz(request, pk)
    response = get_object_or_404(QuizResponse, pk=response_pk, attempt__quiz=quiz)
    try:
        mark = float(request.POST.get("mark", ""))
    except ValueError:
        messages.error(request, _("Give a mark as a number."))
        return redirect(reverse("quiz:detail", args=[quiz.pk]) + "#marking")
    try:
        services.attempt_mark(response=response, mark=mark, by=request.user)
    except services.QuizError as error:
        _refusal(request, error)
    return redirect(reverse("quiz:detail", args=[quiz.pk]) + "#marking")


@login_required
@require_GET
def quiz_print(request: HttpRequest, pk: int, which: str) -> HttpResponse:
    """The worksheet or the answer key as a PDF (``printing.quiz_pdf``)."""
    quiz = _own_quiz(request, pk)
    if which not in ("worksheet", "answer-key") or quiz.state != "done":
        raise Http404
    from . import printing  # WeasyPrint is loaded by the view that prints (lms/accounts/views.py)

    try:
        pdf = printing.quiz_pdf(quiz, answer_key=which == "answer-key")
    except printing.PrintError as error:
        return render(
            request,
            "games/quiz/print_failed.html",
            {"quiz": quiz, "reason": str(error), "answer_key": which == "answer-key"},
            status=503,
        )
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="quiz-{quiz.pk}-{which}.pdf"'
    return response


@login_required
@require_GET
def quiz_package(request: HttpRequest, pk: int) -> HttpResponseBase:
    """The quiz, with the content it asks about, as a Talia package (``docs/packages.md``)."""
    quiz = _own_quiz(request, pk)
    try:
        exported = packages.quiz_package_export(user=request.user, quiz=quiz)
    except PackageExportError as error:
        messages.error(request, str(error))
        return redirect("quiz:detail", quiz.pk)
    return FileResponse(
        exported.file, as_attachment=True, filename=exported.filename, content_type=exported.content_type
    )


# --- pictures ---------------------------------------------------------------------------------


def _picture_response(item: QuizItem, token: str) -> HttpResponseBase:
    response = item_picture_response(item.key.get("pictures"), token)
    if response is None:
        raise Http404
    return response


@login_required
@require_GET
def teacher_picture(request: HttpRequest, pk: int, item_pk: int, token: str) -> HttpResponseBase:
    quiz = _own_quiz(request, pk)
    return _picture_response(get_object_or_404(QuizItem, pk=item_pk, quiz=quiz), token)


@login_required
@require_GET
def attempt_picture(request: HttpRequest, pk: int, item_pk: int, token: str) -> HttpResponseBase:
    attempt = selectors.attempt_of(request.user, pk)
    if attempt is None:
        raise Http404
    return _picture_response(get_object_or_404(QuizItem, pk=item_pk, quiz_id=attempt.quiz_id), token)


# --- taking -----------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
@limits.codes_limited
def take(request: HttpRequest, code: str) -> HttpResponse:
    """The quiz's link: start (or resume) an attempt."""
    quiz = Quiz.objects.filter(code=code.strip().upper(), status=Quiz.Status.PUBLISHED).first()
    if quiz is None or quiz.student_id not in (None, request.user.pk):
        # A quiz built for one student is theirs alone: to anyone else it does not exist.
        # Unknown, unpublished and someone else's codes answer alike and count as a guess.
        limits.code_failure(request)
        raise Http404
    open_attempt = selectors.attempt_open_for(quiz=quiz, student=request.user)
    if request.method == "POST":
        minutes = (quiz.options or {}).get("time_limit_minutes")
        try:
            attempt = services.attempt_resume_or_start(
                quiz=quiz, student=request.user, time_limit=timedelta(minutes=minutes) if minutes else None
            )
        except services.QuizError as error:
            _refusal(request, error)
            return redirect("quiz:take", quiz.code)
        return redirect("quiz:attempt", attempt.pk)
    done = QuizAttempt.objects.filter(quiz=quiz, student=request.user).exclude(
        status=QuizAttempt.Status.IN_PROGRESS
    )
    return render(
        request,
        "games/quiz/take.html",
        {
            "quiz": quiz,
            "count": quiz.items.count(),
            "open_attempt": open_attempt,
            "done": done.order_by("-started_at"),
            "time_limit": (quiz.options or {}).get("time_limit_minutes"),
        },
    )


def _own_attempt(request: HttpRequest, pk: int) -> QuizAttempt:
    attempt = selectors.attempt_of(request.user, pk)
    if attempt is None:
        raise Http404
    return attempt


@login_required
@require_GET
@never_cache
def attempt_page(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = services.attempt_close_if_overdue(_own_attempt(request, pk))
    if not attempt.is_open:
        return _results(request, attempt)
    responses = selectors.attempt_responses(attempt)
    picture_url = reverse("quiz:attempt_picture", args=[attempt.pk, 0, "x"]).replace("/0/", "/__item__/")
    picture_url = picture_url[: -len("x")] + "__token__"
    items = []
    for item in selectors.quiz_items(attempt.quiz):
        response = responses.get(item.pk)
        view = _item_view(item, picture_url, with_key=False, saved=response.answer if response else {})
        view["saved"] = response.answer if response else {}
        view["saved_json"] = json.dumps(view["saved"])
        view["saved_at"] = response.saved_at.isoformat() if response else ""
        items.append(view)
    remaining = None
    if attempt.deadline:
        remaining = max(0, int((attempt.deadline - timezone.now()).total_seconds()))
    return render(
        request,
        "games/quiz/attempt.html",
        {"attempt": attempt, "quiz": attempt.quiz, "items": items, "remaining": remaining},
    )


def _results(request: HttpRequest, attempt: QuizAttempt) -> HttpResponse:
    responses = selectors.attempt_responses(attempt)
    rows = []
    for item in selectors.quiz_items(attempt.quiz):
        response = responses.get(item.pk)
        rows.append(
            {
                "item": item,
                "kind_label": KIND_LABELS.get(item.kind, item.kind),
                "response": response,
                "feedback": (response.feedback if response else []) or [],
                "answer_text": answer_text(item),
                "explanation": explanation(item),
                # Graded 0 until the teacher marks it: "not right" would be a verdict nobody gave.
                "waiting": bool(response and response.needs_marking and response.teacher_mark is None),
            }
        )
    return render(
        request, "games/quiz/results.html", {"attempt": attempt, "quiz": attempt.quiz, "rows": rows}
    )


@login_required
@require_POST
@never_cache
def attempt_answer(request: HttpRequest, pk: int) -> JsonResponse:
    """Autosave: ``{"item": id, "answer": {...}}`` → ``{"saved": true, "saved_at": ...}``."""
    attempt = _own_attempt(request, pk)
    if len(request.body) > ANSWER_MAX_BYTES:
        return JsonResponse({"error": _("This answer is too long.")}, status=400)
    try:
        data = json.loads(request.body or b"{}")
        item_id = int(data["item"])
        answer = data.get("answer")
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": _("Send {“item”: id, “answer”: {…}}.")}, status=400)
    try:
        response = services.attempt_answer_save(attempt=attempt, item_id=item_id, answer=answer)
    except services.QuizError as error:
        status = 409 if error.code in ("submitted", "time_up") else 400
        return JsonResponse({"error": str(error), "code": error.code}, status=status)
    return JsonResponse({"saved": True, "item": item_id, "saved_at": response.saved_at.isoformat()})


def _answers_from_form(attempt: QuizAttempt, post: Any) -> dict[int, Any]:
    """The answers a page without JavaScript sends with the submit button."""
    answers: dict[int, Any] = {}
    for item in attempt.quiz.items.all():
        prefix = f"item-{item.pk}"
        if item.kind in (
            engine.PICTURE_NAME,
            engine.NAME_PICTURE,
            engine.TEXT_SYMBOL,
            engine.KNOWLEDGE,
            engine.PERIOD,
            engine.CHOICE,
        ):
            if prefix in post:
                answers[item.pk] = {"choice": post.get(prefix)}
        elif item.kind == engine.CHRONOLOGY:
            if order := _order_from_form(item, post, prefix):
                answers[item.pk] = {"order": order}
        elif item.kind == engine.MATCHING and (
            pairs := _selects_from_form(item.prompt.get("left", []), post, prefix)
        ):
            answers[item.pk] = {"pairs": pairs}
        elif item.kind == engine.PERIODS:
            if f"{prefix}-sent" in post:
                answers[item.pk] = {"choices": post.getlist(prefix)}
        elif item.kind in (engine.PICTURE_NAME_TYPED, engine.KNOW):
            if prefix in post:
                answers[item.pk] = {"text": post.get(prefix, "")}
        elif item.kind == engine.CONNECT and (
            groups := _selects_from_form(item.prompt.get("symbols", []), post, prefix)
        ):
            answers[item.pk] = {"groups": groups}
    return answers


def _selects_from_form(entries: list[dict[str, Any]], post: Any, prefix: str) -> dict[str, str]:
    """What was chosen in the select of each entry (a symbol to sort, a side to pair)."""
    return {
        str(entry["id"]): post.get(f"{prefix}-{entry['id']}", "")
        for entry in entries
        if f"{prefix}-{entry['id']}" in post
    }


def _order_from_form(item: QuizItem, post: Any, prefix: str) -> list[str]:
    """A chronology's order as the page sends it: the order the buttons made (``-order``,
    kept by the script), or, without the script, the place chosen for each event."""
    events = [str(event["id"]) for event in item.prompt.get("events", [])]
    moved = [part for part in post.get(f"{prefix}-order", "").split(",") if part]
    if sorted(moved) == sorted(events):
        return moved
    places: dict[str, int] = {}
    for event in events:
        try:
            places[event] = int(post.get(f"{prefix}-place-{event}", ""))
        except ValueError:
            return []
    if sorted(places.values()) != list(range(1, len(events) + 1)):
        return []  # two events in one place: no order (the page says so before handing in)
    return sorted(events, key=places.__getitem__)


@login_required
@require_POST
def attempt_submit(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = _own_attempt(request, pk)
    try:
        services.attempt_submit(attempt=attempt, answers=_answers_from_form(attempt, request.POST))
    except services.QuizError as error:
        _refusal(request, error)
    return redirect("quiz:attempt", attempt.pk)
