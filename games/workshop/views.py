"""Workshop pages: the leader's projector page, the player's page, joining, polling.

Every change is a plain form POST answered with a redirect (the pages work without
JavaScript); ``static/workshop/workshop.js`` polls ``view.json?since=N`` and, when the
version moved, swaps in the page's panel rendered by the server from the same payload
(``selectors.student_payload`` / ``teacher_payload``). Django's CSRF middleware checks
every POST, guests' included.

Another teacher's workshop answers 404; a visitor who is neither the leader nor a
participant reads nothing of a workshop (403 on the polling URLs, the join page
otherwise).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import segno
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from content.media import PICTURE_CSP, picture_response
from content.permissions import runs_for, teaching_rows
from games import lobby_views
from games.lobby import guest_remember, join_code_normalise

from . import selectors, services
from .forms import WorkshopForm
from .models import Group, Workshop, WorkshopParticipant

POLL_MS = 2000
#: What the last form POST did, for the page it redirects to (see ``_notice``).
NOTICE_KEY = "workshop.notice"


def _participant(request: HttpRequest, workshop_id: int) -> WorkshopParticipant | None:
    return selectors.participant_for(
        workshop_id=workshop_id,
        user=request.user,
        guest_tokens=request.session.get(selectors.GUEST_TOKENS_KEY),
    )


def _remember_guest(request: HttpRequest, participant: WorkshopParticipant) -> None:
    guest_remember(
        request.session,
        tokens_key=selectors.GUEST_TOKENS_KEY,
        lobby_id=participant.workshop_id,
        token=participant.token,
    )


def _notice(request: HttpRequest, text: str, *, error: bool = False) -> None:
    """Feedback for the next page, shown by the workshop templates themselves.

    Not Django's messages: base.html puts ``role="status"`` on their ``<ul>``, which takes
    the list semantics away from its items (axe: listitem, WCAG 1.3.1).
    """
    request.session[NOTICE_KEY] = {"text": text, "error": error}


def _take_notice(request: HttpRequest) -> dict[str, Any] | None:
    return request.session.pop(NOTICE_KEY, None)


def _led(request: HttpRequest, pk: int) -> Workshop:
    """The workshop if the visitor leads it or co-teaches a class of its teacher
    (``content.permissions``); 404 for everyone else, other teachers included."""
    if not request.user.is_authenticated:
        raise Http404
    led = teaching_rows(request.user, Workshop.objects.all(), owner_field="teacher")
    return get_object_or_404(led, pk=pk)


def _is_leader(request: HttpRequest, workshop: Workshop) -> bool:
    return runs_for(request.user, workshop.teacher_id)


# --- creating ---------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def workshop_new(request: HttpRequest) -> HttpResponse:
    if not request.user.can_author:
        raise PermissionDenied
    form = WorkshopForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            workshop = services.workshop_create(
                teacher=request.user,
                title=data["title"],
                symbol_set=data["symbol_set"],
                deal_mode=data["deal_mode"],
                themes=list(data["key_themes"]),
                periods=list(data["key_periods"]),
                allow_guests=data["allow_guests"],
            )
        except services.WorkshopError as error:
            form.add_error(None, str(error))
        else:
            return redirect("workshop:lead", pk=workshop.pk)
    return render(
        request,
        "workshop/new.html",
        {"form": form, "workshops": selectors.workshops_led_by(request.user)[:10]},
        status=400 if form.errors else 200,
    )


# --- joining ------------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    return lobby_views.code_form(request, to="workshop:join_code", template="workshop/join.html")


@require_http_methods(["GET", "POST"])
@limits.codes_limited
def join_code(request: HttpRequest, code: str) -> HttpResponse:
    normalised = join_code_normalise(code)
    if normalised != code:
        return redirect("workshop:join_code", code=normalised)
    workshop = selectors.workshop_by_code(code)
    if workshop is None:
        return lobby_views.code_unknown(request, code, template="workshop/join.html")
    if _is_leader(request, workshop):
        return redirect("workshop:lead", pk=workshop.pk)
    if _participant(request, workshop.pk) is not None:
        return redirect("workshop:play", pk=workshop.pk)

    def joined(participant: WorkshopParticipant) -> HttpResponse:
        _remember_guest(request, participant)
        return redirect("workshop:play", pk=workshop.pk)

    return lobby_views.join_form(
        request,
        allow_guests=workshop.allow_guests,
        join=partial(services.workshop_join, workshop=workshop),
        joined=joined,
        template="workshop/join_code.html",
        context={"workshop": workshop},
    )


# --- the pages ------------------------------------------------------------------------------------------


def _live(workshop: Workshop, version: int) -> dict[str, Any]:
    return {
        "view": reverse("workshop:view", args=[workshop.pk]),
        "panel": reverse("workshop:panel", args=[workshop.pk]),
        "version": version,
        "poll_ms": POLL_MS,
    }


@require_GET
def workshop_lead(request: HttpRequest, pk: int) -> HttpResponse:
    """The leader's page, made for the projector."""
    workshop = _led(request, pk)
    payload = selectors.teacher_payload(workshop=workshop)
    context: dict[str, Any] = {
        "workshop": workshop,
        "payload": payload,
        "keys": services.workshop_keys(workshop),
        "live": _live(workshop, payload["version"]),
        "notice": _take_notice(request),
    }
    if workshop.is_open:
        join_url = request.build_absolute_uri(reverse("workshop:join_code", args=[workshop.join_code]))
        context["join_url"] = join_url
        context["join_qr"] = segno.make(join_url, error="m").svg_inline(
            scale=8, border=2, title=_("QR code: %(url)s") % {"url": join_url}
        )
    return render(request, "workshop/lead.html", context)


@require_GET
def workshop_play(request: HttpRequest, pk: int) -> HttpResponse:
    """The player's page: their auxiliary card and the groups."""
    workshop = get_object_or_404(Workshop, pk=pk)
    if _is_leader(request, workshop):
        return redirect("workshop:lead", pk=pk)
    participant = _participant(request, pk)
    if participant is None:
        if workshop.is_open:
            return redirect("workshop:join_code", code=workshop.join_code)
        raise Http404
    payload = selectors.student_payload(workshop=workshop, participant=participant)
    return render(
        request,
        "workshop/play.html",
        {
            "workshop": workshop,
            "payload": payload,
            "live": _live(workshop, payload["version"]),
            "notice": _take_notice(request),
        },
    )


def _viewer(request: HttpRequest, pk: int) -> tuple[Workshop, WorkshopParticipant | None] | None:
    """The workshop and who looks: the leader (participant ``None``) or a participant."""
    workshop = Workshop.objects.filter(pk=pk).first()
    if workshop is None:
        return None
    if _is_leader(request, workshop):
        return workshop, None
    participant = _participant(request, pk)
    return (workshop, participant) if participant is not None else None


def _payload(workshop: Workshop, participant: WorkshopParticipant | None) -> dict[str, Any]:
    if participant is None:
        return selectors.teacher_payload(workshop=workshop)
    return selectors.student_payload(workshop=workshop, participant=participant)


@never_cache
@require_GET
def workshop_view(request: HttpRequest, pk: int) -> JsonResponse:
    """The polling endpoint: ``?since=N`` answers ``{"unchanged": true}`` while at version N."""
    found = _viewer(request, pk)
    if found is None:
        return JsonResponse(
            {"error": "not_a_participant", "reason": _("Join the workshop first.")}, status=403
        )
    workshop, participant = found
    if request.GET.get("since") == str(workshop.version):
        return JsonResponse({"unchanged": True, "version": workshop.version})
    return JsonResponse(_payload(workshop, participant))


@never_cache
@require_GET
def workshop_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The changing part of the page, rendered from the same payload as ``view.json``."""
    found = _viewer(request, pk)
    if found is None:
        return HttpResponse(status=403)
    workshop, participant = found
    payload = _payload(workshop, participant)
    if participant is None:
        context = {"workshop": workshop, "payload": payload, "keys": services.workshop_keys(workshop)}
        return render(request, "workshop/_lead_panel.html", context)
    return render(request, "workshop/_play_panel.html", {"workshop": workshop, "payload": payload})


@require_GET
def workshop_picture(request: HttpRequest, pk: int, participant_id: int) -> HttpResponseBase:
    """A dealt card's picture: to the leader, and to the player holding the card."""
    found = _viewer(request, pk)
    if found is None:
        raise Http404
    workshop, viewer = found
    holder = (
        WorkshopParticipant.objects.select_related("symbol")
        .filter(pk=participant_id, workshop=workshop)
        .first()
    )
    if holder is None or holder.symbol is None or (viewer is not None and viewer.pk != holder.pk):
        raise Http404
    name = holder.symbol.picture.name
    if name and default_storage.exists(name):
        return picture_response(name)
    response = HttpResponse(_placeholder_svg(holder.symbol.code), content_type="image/svg+xml")
    response["Content-Security-Policy"] = PICTURE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response


def _placeholder_svg(code: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        '<rect width="100" height="100" rx="12" fill="#f1f1f1" stroke="#1a1a1a" stroke-width="3"/>'
        '<text x="50" y="60" font-size="28" text-anchor="middle" font-family="sans-serif" fill="#1a1a1a">'
        f"{escape(code)}</text></svg>"
    )


# --- the leader's actions -----------------------------------------------------------------------------


def _leader_action(request: HttpRequest, pk: int, action: Any, done: str) -> HttpResponse:
    workshop = _led(request, pk)
    try:
        action(workshop)
    except services.WorkshopError as error:
        _notice(request, str(error), error=True)
    else:
        _notice(request, done)
    return redirect("workshop:lead", pk=pk)


@require_POST
def workshop_deal(request: HttpRequest, pk: int) -> HttpResponse:
    return _leader_action(
        request, pk, lambda w: services.workshop_deal(workshop=w, by=request.user), _("The cards are dealt.")
    )


@require_POST
def workshop_grouping_start(request: HttpRequest, pk: int) -> HttpResponse:
    return _leader_action(
        request,
        pk,
        lambda w: services.workshop_grouping_start(workshop=w, by=request.user),
        _("The groups are open."),
    )


@require_POST
def workshop_close(request: HttpRequest, pk: int) -> HttpResponse:
    return _leader_action(
        request,
        pk,
        lambda w: services.workshop_close(workshop=w, by=request.user),
        _("The workshop is over."),
    )


@require_POST
def suggestion_add(request: HttpRequest, pk: int) -> HttpResponse:
    def suggest(workshop: Workshop) -> None:
        group_id = request.POST.get("group") or ""
        group = None
        if group_id:
            group = (
                Group.objects.filter(pk=group_id, workshop=workshop).first()
                if group_id.isascii() and group_id.isdigit()
                else None
            )
            if group is None:
                raise services.WorkshopError("no_group", _("That group is not in this workshop any more."))
        services.suggestion_add(
            workshop=workshop, by=request.user, text=request.POST.get("text", ""), group=group
        )

    return _leader_action(request, pk, suggest, _("Your suggestion is shown."))


# --- the players' actions -----------------------------------------------------------------------------


def _player_action(request: HttpRequest, pk: int, action: Any) -> HttpResponse:
    participant = _participant(request, pk)
    if participant is None:
        raise PermissionDenied(_("Join the workshop first."))
    try:
        action(participant)
    except services.WorkshopError as error:
        # The refusal is shown at the top of the page: no jump past it.
        _notice(request, str(error), error=True)
        return redirect("workshop:play", pk=pk)
    return redirect(reverse("workshop:play", args=[pk]) + "#your-group")


@require_POST
def group_create(request: HttpRequest, pk: int) -> HttpResponse:
    return _player_action(request, pk, lambda p: services.group_create(participant=p))


@require_POST
def group_join(request: HttpRequest, pk: int) -> HttpResponse:
    def join_group(participant: WorkshopParticipant) -> None:
        group_id = request.POST.get("group", "")
        group = (
            Group.objects.filter(pk=group_id, workshop_id=pk).first()
            if group_id.isascii() and group_id.isdigit()
            else None
        )
        if group is None:
            raise services.WorkshopError("no_group", _("That group is not in this workshop any more."))
        services.group_join(participant=participant, group=group)

    return _player_action(request, pk, join_group)


@require_POST
def group_leave(request: HttpRequest, pk: int) -> HttpResponse:
    return _player_action(request, pk, lambda p: services.group_leave(participant=p))


@require_POST
def group_key(request: HttpRequest, pk: int) -> HttpResponse:
    return _player_action(
        request, pk, lambda p: services.group_key_name(participant=p, key=request.POST.get("key", ""))
    )
