"""Know pages: the setup form, the projector screen and its polling endpoint, keeping the questions.

Thin: parse, call one service or selector, shape the output. Playing goes through the shared
session page and endpoints (``games/views.py``).
"""

from __future__ import annotations

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import selectors as game_selectors
from games import services as game_services
from games.models import GameSession

from . import selectors, services
from .forms import KnowSessionForm


@login_required
@require_http_methods(["GET", "POST"])
def know_new(request: HttpRequest) -> HttpResponse:
    """A new Know game: the facilitator's setup; teams join from their devices by code."""
    if not request.user.can_author:
        raise PermissionDenied
    form = KnowSessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            session = services.know_session_create(
                facilitator=request.user,
                variant=data["variant"],
                cards_per_team=data["cards_per_team"],
                source=data["source"],
                resolve_immediately=data["resolution"] == "immediately",
                facilitator_sees_mapping=data["facilitator_sees_mapping"],
                allow_guests=data["allow_guests"],
                language=data["language"],
            )
        except game_services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:session", pk=session.pk)
    recent = game_selectors.sessions_facilitated_by(request.user).filter(game="know")[:10]
    return render(request, "games/know/new.html", {"form": form, "sessions": recent})


def _facilitated_know_session(request: HttpRequest, pk: int) -> GameSession:
    session = get_object_or_404(GameSession, pk=pk, game="know")
    if not selectors.know_facilitator_of(session=session, user=request.user):
        # Not a page for players: it would tell them nothing they may not see, but a
        # projector is the facilitator's, and the join code of someone else's game is not.
        raise Http404
    return session


@login_required
@require_GET
def know_projector(request: HttpRequest, pk: int) -> HttpResponse:
    """The projector screen: the public view only (phase, revealed decks, score record)."""
    session = _facilitated_know_session(request, pk)
    join_url = request.build_absolute_uri(reverse("games:join_code", args=[session.join_code]))
    context = {
        "session": session,
        "payload": selectors.know_public_payload(session=session),
        "live": {
            "view": reverse("games:know_projector_view", args=[session.pk]),
            "session": reverse("games:session", args=[session.pk]),
        },
        "join_url": join_url,
        "join_qr": segno.make(join_url, error="m").svg_inline(
            scale=8, border=2, title=_("QR code: %(url)s") % {"url": join_url}
        )
        if session.is_open
        else "",
    }
    return render(request, "games/know/projector.html", context)


@never_cache
@require_GET
def know_projector_view(request: HttpRequest, pk: int) -> JsonResponse:
    """The projector's polling endpoint: ``?since=N`` answers ``{"unchanged": true}`` at version N."""
    session = get_object_or_404(GameSession, pk=pk, game="know")
    if not selectors.know_facilitator_of(session=session, user=request.user):
        return JsonResponse(
            {"error": "not_allowed", "reason": _("Only the facilitator opens the projector screen.")},
            status=403,
        )
    since = request.GET.get("since")
    if since is not None and session.status != GameSession.Status.LOBBY and since == str(session.version):
        return JsonResponse({"unchanged": True, "version": session.version})
    return JsonResponse(selectors.know_public_payload(session=session))


@login_required
@require_POST
def know_keep(request: HttpRequest, pk: int) -> HttpResponse:
    """Keep these questions: the finished game's questions go to the teacher's question bank."""
    session = get_object_or_404(GameSession, pk=pk, game="know")
    try:
        kept, before = services.know_questions_keep(session=session, by=request.user)
    except game_services.SessionError as error:
        if error.code == "not_allowed":
            raise PermissionDenied(str(error)) from error
        messages.error(request, str(error))
    else:
        if kept:
            messages.success(
                request,
                ngettext(
                    "%(n)d question was kept in your question bank.",
                    "%(n)d questions were kept in your question bank.",
                    kept,
                )
                % {"n": kept},
            )
        elif before:
            messages.info(request, _("These questions are already in your question bank."))
        else:
            messages.info(request, _("This game has no written questions to keep."))
    return redirect("games:session", pk=session.pk)
