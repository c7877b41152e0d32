"""Knowledge? pages: thin views over ``services`` and ``selectors``.

The game itself is played on the shared session page (``games/session.html``) with the
renderer ``static/games/knowledge.js`` and the panel ``templates/games/knowledge/panel.html``.
"""

from __future__ import annotations

import segno
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from games import selectors as game_selectors
from games import services as game_services
from games.models import GameSession
from games.views import request_participant

from . import selectors, services
from .forms import KnowledgeOptionsForm, KnowledgeSetupForm


@login_required
@require_http_methods(["GET", "POST"])
def knowledge_new(request: HttpRequest) -> HttpResponse:
    """A teacher sets up Knowledge?: a session for the class, the projector, or a homework link."""
    if not request.user.can_author:
        raise PermissionDenied
    form = KnowledgeSetupForm(request.POST or None, user=request.user)
    homework = None
    if request.method == "POST" and form.is_valid():
        options, mode = form.options(), form.cleaned_data["mode"]
        try:
            if mode == "homework":
                token = services.homework_token(teacher=request.user, options=options)
                url = request.build_absolute_uri(reverse("games:knowledge_homework", args=[token]))
                homework = {
                    "url": url,
                    "qr": segno.make(url, error="m").svg_inline(
                        scale=4, border=2, title=_("QR code: %(url)s") % {"url": url}
                    ),
                }
            else:
                session = services.knowledge_session_create(
                    facilitator=request.user,
                    options=options,
                    allow_guests=form.cleaned_data["allow_guests"],
                )
                if mode == "projector":
                    game_services.session_start(session=session, by=request.user)
                return redirect("games:session", pk=session.pk)
        except services.SessionError as error:
            form.add_error(None, str(error))
    return render(
        request,
        "games/knowledge/new.html",
        {
            "form": form,
            "homework": homework,
            "sessions": game_selectors.sessions_facilitated_by(request.user).filter(game="knowledge")[:10],
        },
    )


@require_http_methods(["GET", "POST"])
def knowledge_homework(request: HttpRequest, token: str) -> HttpResponse:
    """A student opens the teacher's link and starts a game of their own."""
    try:
        teacher_id, options = services.homework_read(token)
    except services.SessionError as error:
        return render(request, "games/knowledge/homework.html", {"error": str(error)}, status=404)
    teacher = get_user_model().objects.filter(pk=teacher_id, is_active=True).first()
    board = selectors.boards_playable_by(teacher).filter(pk=options.board_id).first() if teacher else None
    if teacher is None or board is None:
        return render(
            request,
            "games/knowledge/homework.html",
            {"error": _("This homework is no longer available; ask your teacher.")},
            status=404,
        )
    error = None
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        try:
            session = services.knowledge_solo_start(student=request.user, options=options, teacher=teacher)
        except services.SessionError as refusal:
            error = str(refusal)
        else:
            return redirect("games:session", pk=session.pk)
    games = (
        selectors.knowledge_sessions_of(request.user).filter(facilitator=teacher)[:10]
        if request.user.is_authenticated
        else []
    )
    return render(
        request,
        "games/knowledge/homework.html",
        {
            "teacher": game_services.display_name(teacher),
            "board": board,
            "options": options,
            "error": error,
            "games": games,
        },
        status=400 if error else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def knowledge_solo(request: HttpRequest) -> HttpResponse:
    """Anyone signed in plays alone from their own page, with the shared questions."""
    form = KnowledgeOptionsForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            session = services.knowledge_solo_start(student=request.user, options=form.options())
        except services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:session", pk=session.pk)
    return render(
        request,
        "games/knowledge/solo.html",
        {"form": form, "games": selectors.knowledge_sessions_of(request.user)[:10]},
    )


@require_GET
def knowledge_results(request: HttpRequest, pk: int) -> HttpResponse:
    """After the game: every card played, front and back, with the team's guesses. Only
    reads: the end of the game kept the guesses for the players' progress
    (``services.knowledge_game_end``)."""
    session = get_object_or_404(GameSession, pk=pk, game="knowledge")
    participant = request_participant(request, session.pk)
    if participant is None:
        raise Http404
    if session.status != GameSession.Status.FINISHED:
        return redirect("games:session", pk=session.pk)
    state = session.state or {}
    cards = {card["id"]: card for card in state.get("cards", [])}
    plays = [
        {
            **play,
            "front": cards.get(play["card"], {}).get("front"),
            "back": cards.get(play["card"], {}).get("back"),
        }
        for play in state.get("history", [])
    ]
    guessed = [play for play in plays if play["guess_correct"] is not None]
    return render(
        request,
        "games/knowledge/results.html",
        {
            "session": session,
            "result": state.get("result") or {},
            "plays": plays,
            "guessed": len(guessed),
            "right": sum(1 for play in guessed if play["guess_correct"]),
        },
    )
