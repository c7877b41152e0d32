"""Activity pages and endpoints: parse the request, call one service, shape the output.

The game itself is the shared session page (``games:session``), drawn by
``static/games/activity.js`` with ``templates/games/activity/panel.html``. Every game
response is ``games.selectors.session_payload``: the participant's own view, so the term
reaches only the representative and the facilitator. JSON endpoints are plain Django
views for the reason ``games/views.py`` gives (guests, CSRF on every POST).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from content.activity_terms import TermListError, activity_cards_from_terms
from games import selectors as game_selectors
from games import services as game_services
from games.engines.base import ActionError, InvalidAction
from games.models import GameSession, Participant
from games.views import json_error, request_participant

from . import selectors, services
from .forms import ActivitySessionForm, TermListForm


def _activity_participant(request: HttpRequest, pk: int) -> Participant | JsonResponse:
    session = GameSession.objects.filter(pk=pk, game="activity").first()
    participant = None if session is None else request_participant(request, pk)
    if participant is None:
        return json_error(403, "not_a_participant", _("Join the game first."))
    return participant


def _payload(participant: Participant) -> dict[str, Any]:
    session = GameSession.objects.get(pk=participant.session_id)
    return {**game_selectors.session_payload(session=session, participant=participant), "now": time.time()}


# --- the teacher's pages --------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def activity_new(request: HttpRequest) -> HttpResponse:
    if not request.user.can_author:
        raise PermissionDenied
    initial = {"tags": request.GET.getlist("tag")} if request.GET.get("tag") else None
    if initial and request.GET.get("language"):
        initial["language"] = request.GET["language"]
    form = ActivitySessionForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            session = services.activity_session_create(
                facilitator=request.user,
                cards=form.cards(),
                variant=data["variant"],
                team_names=data["names"],
                timer=data["timer"],
                reduce_points_by=2 if data["reduce_points"] else 0,
                facilitator_sees_terms=data["facilitator_sees_terms"],
                allow_guests=data["allow_guests"],
            )
        except game_services.SessionError as error:
            form.add_error(None, str(error))
        else:
            if warning := selectors.activity_deck_warning(session=session):
                messages.warning(request, warning)
            return redirect("games:session", pk=session.pk)
    return render(request, "games/activity/new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def activity_terms(request: HttpRequest) -> HttpResponse:
    """A deck from the teacher's own terms: they become Activity cards the teacher owns."""
    if not request.user.can_author:
        raise PermissionDenied
    form = TermListForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            made = activity_cards_from_terms(
                owner=request.user,
                name=data["name"],
                text=data["text"],
                language=data["language"],
                default_points=data["default_points"],
                publish=data["publish"],
            )
        except TermListError as error:
            form.add_error("text", str(error))
        else:
            text = ngettext(
                "%(terms)d terms made %(n)d card, tagged %(tag)s.",
                "%(terms)d terms made %(n)d cards, tagged %(tag)s.",
                len(made.cards),
            ) % {"terms": made.terms, "n": len(made.cards), "tag": made.tag.slug}
            if made.repeated:
                text += " " + ngettext(
                    "%(n)d slot repeats a term of the list to fill the last card.",
                    "%(n)d slots repeat terms of the list to fill the last card.",
                    made.repeated,
                ) % {"n": made.repeated}
            text += " " + ngettext(
                "A card is one turn of the game: %(n)d turn.",
                "A card is one turn of the game: %(n)d turns.",
                len(made.cards),
            ) % {"n": len(made.cards)}
            if made.duplicates:
                text += " " + _("Left out as repeated: %(terms)s.") % {"terms": ", ".join(made.duplicates)}
            messages.success(request, text)
            url = reverse("games:activity_new")
            return redirect(f"{url}?tag={made.tag.slug}&language={data['language']}")
    return render(request, "games/activity/terms.html", {"form": form}, status=400 if form.errors else 200)


# --- the lobby: teams ---------------------------------------------------------------------------------


@never_cache
@require_GET
def activity_lobby(request: HttpRequest, pk: int) -> JsonResponse:
    participant = _activity_participant(request, pk)
    if isinstance(participant, JsonResponse):
        return participant
    return JsonResponse(selectors.activity_lobby(session=participant.session, participant=participant))


@never_cache
@require_POST
def activity_seat(request: HttpRequest, pk: int) -> JsonResponse:
    """``{"player": "p3", "team": "t2"}`` (``team`` null: no choice); a player seats only themselves."""
    participant = _activity_participant(request, pk)
    if isinstance(participant, JsonResponse):
        return participant
    try:
        body = json.loads(request.body or b"null")
        player = body.get("player") or participant.player_id
        team = body.get("team")
        if not isinstance(player, str) or (team is not None and not isinstance(team, str)):
            raise ValueError
    except (json.JSONDecodeError, AttributeError, ValueError):
        return json_error(400, "invalid_request", _('Send {"player": "p1", "team": "t1"}.'))
    try:
        session = services.activity_seat(
            session=participant.session, by=participant, player_id=player, team=team
        )
    except game_services.SessionError as error:
        return json_error(403 if error.code == "not_allowed" else 409, error.code, str(error))
    return JsonResponse(selectors.activity_lobby(session=session, participant=participant))


@never_cache
@require_POST
def activity_join_team(request: HttpRequest, pk: int) -> JsonResponse:
    """``{"team": "t2"}`` (``team`` null: the smallest): a student who came after the start
    joins a team; the answer is their new payload, as a player."""
    participant = _activity_participant(request, pk)
    if isinstance(participant, JsonResponse):
        return participant
    try:
        team = (json.loads(request.body or b"{}") or {}).get("team")
        if team is not None and not isinstance(team, str):
            raise ValueError
    except (json.JSONDecodeError, AttributeError, ValueError):
        return json_error(
            400, "invalid_request", _('Send {"team": "t1"}, or {"team": null} for the smallest team.')
        )
    try:
        participant = services.activity_join_late(participant=participant, team=team)
    except game_services.SessionError as error:
        return json_error(409, error.code, str(error))
    return JsonResponse(_payload(participant))


@require_POST
def activity_shuffle(request: HttpRequest, pk: int) -> HttpResponse:
    session = get_object_or_404(GameSession, pk=pk, game="activity")
    try:
        services.activity_shuffle(session=session, by=request.user)
    except game_services.SessionError as error:
        if error.code == "not_allowed":
            raise PermissionDenied(str(error)) from error
        messages.error(request, str(error))
    return redirect("games:session", pk=session.pk)


# --- playing: actions with the server's clock -----------------------------------------------------


@never_cache
@require_POST
def activity_act(request: HttpRequest, pk: int) -> JsonResponse:
    """One action, stamped with the server's clock; the answer is the actor's new payload."""
    participant = _activity_participant(request, pk)
    if isinstance(participant, JsonResponse):
        return participant
    try:
        action = json.loads(request.body or b"null")
        services.activity_act(participant=participant, action=action)
    except json.JSONDecodeError:
        return json_error(400, InvalidAction.code, _("The body must be a JSON action."))
    except ActionError as error:
        return json_error(400 if isinstance(error, InvalidAction) else 409, error.code, str(error))
    return JsonResponse(_payload(participant))


@never_cache
@require_POST
def activity_hourglass(request: HttpRequest, pk: int) -> JsonResponse:
    """The ten seconds of memorising are over: ``{"version": N}`` turns the hourglass once."""
    participant = _activity_participant(request, pk)
    if isinstance(participant, JsonResponse):
        return participant
    try:
        version = int(json.loads(request.body or b"null")["version"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        return json_error(400, "invalid_request", _('Send {"version": N}.'))
    try:
        turned = services.activity_hourglass_turn(participant=participant, version=version)
    except ActionError as error:
        return json_error(409, error.code, str(error))
    return JsonResponse({**_payload(participant), "turned": turned})


@never_cache
@require_GET
def activity_clock(request: HttpRequest) -> JsonResponse:
    """The server's clock, so every screen counts the hourglass down from the same moment."""
    return JsonResponse({"now": time.time()})
