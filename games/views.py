"""Game pages and the polling endpoints: parse the request, call one service, shape output.

The JSON endpoints are plain Django views rather than DRF views on purpose: guests play
without an account, and DRF's session authentication checks CSRF only for signed-in
users, so a guest's POST would go unchecked. Here Django's CSRF middleware checks every
POST. Every game response is built by ``selectors.session_payload``: the participant's
own view, never the raw state.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import select_template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from content.media import PICTURE_CSP, picture_response
from games.engines.base import ActionError, InvalidAction
from games.lobby import code_resolve, guest_remember, join_code_normalise
from games.play.quiz_live.views import picture_url_template as quiz_live_picture_url_template

from . import lobby_views, replay, selectors, services, timers
from .forms import SessionForm
from .models import (
    GAME_LABELS,
    ClassRun,
    GameSession,
    Participant,
)

#: Games with a play page of their own; the others show their view as data.
#: Each game's page draws its view with ``static/games/<game>.js`` and may add a panel of its
#: own (controls, projector parts) in ``templates/games/<game>/panel.html``.
RENDERERS = {game: f"games/{game}.js" for game in GAME_LABELS}


def request_participant(request: HttpRequest, session_id: int) -> Participant | None:
    """Who the request is in session ``session_id``: the signed-in user, or a guest by the
    token kept in their own session (each game's pages ask the same)."""
    return selectors.participant_for(
        session_id=session_id,
        user=request.user,
        guest_tokens=request.session.get(selectors.GUEST_TOKENS_KEY),
    )


def _remember_guest(request: HttpRequest, participant: Participant) -> None:
    guest_remember(
        request.session,
        tokens_key=selectors.GUEST_TOKENS_KEY,
        lobby_id=participant.session_id,
        token=participant.token,
    )


def json_error(status: int, code: str, reason: str) -> JsonResponse:
    """A refusal as the pages' scripts read it: ``{"error": code, "reason": sentence}``."""
    return JsonResponse({"error": code, "reason": reason}, status=status)


# --- starting a session -----------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def session_new(request: HttpRequest) -> HttpResponse:
    if not request.user.can_author:
        raise PermissionDenied
    form = SessionForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            setup, assets = form.setup()
            session = services.session_create(
                facilitator=request.user,
                game=data["game"],
                variant=data["variant"],
                setup=setup,
                allow_guests=data["allow_guests"],
                assets=assets,
            )
        except services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:session", pk=session.pk)
    return render(
        request,
        "games/session_new.html",
        {"form": form, "sessions": selectors.sessions_facilitated_by(request.user)[:10]},
    )


# --- joining ------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    return lobby_views.code_form(request, to="games:join_code", template="games/join.html")


@require_http_methods(["GET", "POST"])
@limits.codes_limited
def join_code(request: HttpRequest, code: str) -> HttpResponse:
    normalised = join_code_normalise(code)
    if normalised != code:
        return redirect("games:join_code", code=normalised)
    # One join page for students: a code opens what it was claimed for (games/lobby.py),
    # a game's lobby here, anything else (practice, quiz, workshop, class) on its own page.
    claim = code_resolve(code)
    if claim is None:
        return lobby_views.code_unknown(request, code, template="games/join.html")
    if claim.kind != services.CODE_KIND:
        page = claim.page
        if page is None:  # a quiz not published yet
            return lobby_views.code_unknown(request, code, template="games/join.html")
        return redirect(page)
    session = claim.obj
    if request_participant(request, session.pk) is not None:
        return redirect("games:session", pk=session.pk)

    def joined(participant: Participant) -> HttpResponse:
        _remember_guest(request, participant)
        return redirect("games:session", pk=session.pk)

    return lobby_views.join_form(
        request,
        allow_guests=session.allow_guests,
        join=partial(services.session_join, session=session),
        joined=joined,
        template="games/join_code.html",
        context={"session": session},
    )


# --- the session page -----------------------------------------------------------------------------


def _absolute_join_url(request: HttpRequest, session: GameSession) -> str:
    return request.build_absolute_uri(reverse("games:join_code", args=[session.join_code]))


@require_GET
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    session = get_object_or_404(GameSession, pk=pk)
    participant = request_participant(request, session.pk)
    if participant is None:
        if session.is_open:
            return redirect("games:join_code", code=session.join_code)
        raise Http404
    session = timers.session_time_up_if_due(session)  # note c, even with no worker running
    payload = selectors.session_payload(session=session, participant=participant)
    facilitating = participant.role == Participant.Role.FACILITATOR
    class_run = selectors.class_run_of(session)
    class_duel = selectors.class_duel_of(session)
    renderer = "games/classrun.js" if class_run else RENDERERS.get(session.game, "games/generic.js")
    context: dict[str, Any] = {
        "session": session,
        "participant": participant,
        "facilitating": facilitating,
        "payload": payload,
        "class_run": class_run,
        "class_duel": class_duel,
        "practice": getattr(session, "practice", None) if not class_run else None,
        "game_panel": select_template([f"games/{session.game}/panel.html", "games/no_panel.html"]),
        "live": {
            "session": session.pk,
            "game": session.game,
            "socket": f"/ws/sessions/{session.pk}/",
            "view": reverse("games:session_view", args=[session.pk]),
            "actions": reverse("games:session_actions", args=[session.pk]),
            "pictures": reverse("games:session_picture", args=[session.pk, "KEY"]),
            # A live quiz's pictures are its questions', served once each question is asked.
            "question_pictures": quiz_live_picture_url_template(session.pk)
            if session.game == "quiz_live"
            else None,
            "renderer": static(renderer),
            # The built deck's card faces (positions and sizes only), drawn like the printed cards.
            "faces": (session.assets or {}).get("faces"),
        },
        "age_order_url": reverse("games:session_age_order", args=[session.pk])
        if facilitating and _age_order_open(session, class_run)
        else None,
    }
    if facilitating and session.is_open:
        join_url = _absolute_join_url(request, session)
        context["join_url"] = join_url
        context["join_qr"] = segno.make(join_url, error="m").svg_inline(
            scale=8, border=2, title=_("QR code: %(url)s") % {"url": join_url}
        )
    return render(request, "games/session.html", context)


@require_POST
def session_start(request: HttpRequest, pk: int) -> HttpResponse:
    session = get_object_or_404(GameSession, pk=pk)
    try:
        services.session_start(session=session, by=request.user)
    except services.SessionError as error:
        if error.code == "not_allowed":
            raise PermissionDenied(str(error)) from error
        messages.error(request, str(error))
    return redirect("games:session", pk=session.pk)


def _age_order_open(session: GameSession, class_run: ClassRun | None) -> bool:
    """The age order matters to ZnajZnak and is set before the game (a class: before a round)."""
    if session.game != "znajznak" or not session.is_open:
        return False
    return class_run is not None or session.status == GameSession.Status.LOBBY


@require_http_methods(["GET", "POST"])
def session_age_order(request: HttpRequest, pk: int) -> HttpResponse:
    """The facilitator puts the players in age order: "the youngest player" of the rulebook.

    Optional, and only an order (1 = the youngest): nobody is asked for a birth date.
    """
    session = get_object_or_404(GameSession, pk=pk)
    if not selectors.facilitates(session=session, user=request.user):
        raise PermissionDenied
    class_run = selectors.class_run_of(session)
    if not _age_order_open(session, class_run):
        messages.error(request, _("The age order is set before the game starts."))
        return redirect("games:session", pk=session.pk)
    players = list(session.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
    error = None
    if request.method == "POST":
        ranks: dict[int, int | None] = {}
        for player in players:
            value = request.POST.get(f"rank-{player.pk}", "")
            ranks[player.pk] = int(value) if value.isascii() and value.isdigit() else None
        try:
            services.session_age_order_set(session=session, by=request.user, ranks=ranks)
        except services.SessionError as refusal:
            error = str(refusal)
            for player in players:
                player.age_rank = ranks.get(player.pk)
        else:
            messages.success(request, _("The age order is saved."))
            return redirect("games:session", pk=session.pk)
    return render(
        request,
        "games/age_order.html",
        {
            "session": session,
            "players": players,
            "places": range(1, len(players) + 1),
            "error": error,
        },
        status=400 if error else 200,
    )


@never_cache
@require_GET
def session_view(request: HttpRequest, pk: int) -> JsonResponse:
    """The polling fallback: ``?since=N`` answers ``{"unchanged": true}`` while at version N."""
    participant = request_participant(request, pk)
    if participant is None:
        return json_error(403, "not_a_participant", _("Join the game first."))
    session = timers.session_time_up_if_due(participant.session)  # note c, even with no worker
    since = request.GET.get("since")
    # A class lobby changes without a version of its own (its duels do): always answer in full.
    unversioned = session.status == GameSession.Status.LOBBY or session.state is None
    if since is not None and not unversioned and since == str(session.version):
        return JsonResponse({"unchanged": True, "version": session.version})
    return JsonResponse(selectors.session_payload(session=session, participant=participant))


@never_cache
@require_POST
def session_actions(request: HttpRequest, pk: int) -> JsonResponse:
    """Play one action: the body is the action, ``{"type": ..., ...}``."""
    participant = request_participant(request, pk)
    if participant is None:
        return json_error(403, "not_a_participant", _("Join the game first."))
    try:
        action = json.loads(request.body or b"null")
        services.session_act(participant=participant, action=action)
    except json.JSONDecodeError:
        return json_error(400, InvalidAction.code, _("The body must be a JSON action."))
    except ActionError as error:
        return json_error(400 if isinstance(error, InvalidAction) else 409, error.code, str(error))
    session = GameSession.objects.get(pk=pk)
    return JsonResponse(selectors.session_payload(session=session, participant=participant))


@never_cache
@require_GET
def session_log(request: HttpRequest, pk: int) -> HttpResponse:
    """The finished game's log in the replay format, for the people who were in it."""
    session = get_object_or_404(GameSession, pk=pk)
    participant = request_participant(request, session.pk)
    if participant is None:
        raise Http404
    if not selectors.can_download_log(session=session, participant=participant):
        raise PermissionDenied(_("The log can be downloaded once the game is over."))
    body = json.dumps(replay.session_log(session), ensure_ascii=False, indent=2)
    response = HttpResponse(body + "\n", content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="talia-{session.game}-{session.pk}.json"'
    return response


@require_GET
def session_picture(request: HttpRequest, pk: int, key: str) -> HttpResponseBase:
    """A symbol's picture under a URL and headers that tell nothing, to the game's players
    only; an SVG loses every word it carried (``content.media.picture_response``)."""
    participant = request_participant(request, pk)
    if participant is None:
        raise Http404
    session = participant.session
    if key not in session.setup.get("names", {}):
        raise Http404
    name = session.assets.get("pictures", {}).get(key)
    if name and default_storage.exists(name):
        return picture_response(name)
    # No picture: the symbol's key on a plain tile, never its name.
    response = HttpResponse(_placeholder_svg(key), content_type="image/svg+xml")
    response["Content-Security-Policy"] = PICTURE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response


def _placeholder_svg(key: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        '<rect width="100" height="100" rx="12" fill="#f1f1f1" stroke="#1a1a1a" stroke-width="3"/>'
        '<text x="50" y="60" font-size="28" text-anchor="middle" font-family="sans-serif" fill="#1a1a1a">'
        f"{escape(key)}</text></svg>"
    )
