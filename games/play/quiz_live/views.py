"""Live quiz pages: the teacher's setup form and the pictures of the questions asked.

Thin: parse, call one service or selector. Playing goes through the shared session page
and endpoints (``games/views.py``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from content.permissions import runs_for
from games import selectors as game_selectors
from games import services as game_services
from games.quiz.models import Quiz

from . import selectors, services
from .forms import QuizLiveForm


@login_required
@require_http_methods(["GET", "POST"])
def quiz_live_new(request: HttpRequest, quiz_pk: int) -> HttpResponse:
    """Run a published quiz live: the teacher's settings; the phones join by code."""
    quiz = get_object_or_404(Quiz, pk=quiz_pk)
    if not runs_for(request.user, quiz.owner_id):
        raise Http404
    if not request.user.can_author:
        raise PermissionDenied
    form = QuizLiveForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            session = services.quiz_live_session_create(
                facilitator=request.user,
                quiz=quiz,
                time=data["time"],
                seconds=data["seconds"],
                team_count=data["team_count"],
                allow_guests=data["allow_guests"],
            )
        except game_services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:session", pk=session.pk)
    recent = game_selectors.sessions_facilitated_by(request.user).filter(game="quiz_live")[:10]
    return render(request, "games/quiz_live/new.html", {"form": form, "quiz": quiz, "sessions": recent})


def picture_url_template(session_id: int) -> str:
    """The URL of a picture of a question of live quiz ``session_id``, with ``NUMBER`` and
    ``KEY`` for the question's number and the picture's token: the session page gives it
    to ``static/games/quiz_live.js``, which fills them in."""
    # The number is a whole number in the route, so it is reversed as one and named after.
    url = reverse("games:quiz_live_picture", args=[session_id, 0, "KEY"])
    return url.removesuffix("/0/KEY") + "/NUMBER/KEY"


@require_GET
def quiz_live_picture(request: HttpRequest, pk: int, number: int, token: str) -> HttpResponseBase:
    """A picture of a question already asked, to the people in the game only."""
    participant = game_selectors.participant_for(
        session_id=pk,
        user=request.user,
        guest_tokens=request.session.get(game_selectors.GUEST_TOKENS_KEY),
    )
    if participant is None:
        raise Http404
    response = selectors.quiz_live_picture(session=participant.session, number=number, token=token)
    if response is None:
        raise Http404
    return response
