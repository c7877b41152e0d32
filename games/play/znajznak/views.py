"""ZnajZnak's own pages: class duels (a lobby, rounds, each student into their duel) and
practice alone (set it, play it, the results, the simulated opponent's moves).

Playing is the shared session page (``games/views.py``); these views parse the request and
call one service of ``duels.py`` or ``practice.py``.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from content.permissions import runs_for
from games import selectors as game_selectors
from games import services as game_services
from games.lobby import guest_remember, join_code_normalise
from games.models import ClassRun, GameSession, Participant, PracticeRun
from games.views import json_error, request_participant

from .duels import class_round_start, class_run_create, class_run_finish
from .forms import ClassRunForm, PracticeForm
from .practice import practice_assignment_create, practice_bot_act, practice_start

# --- class duels --------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def class_new(request: HttpRequest) -> HttpResponse:
    if not request.user.can_author:
        raise PermissionDenied
    form = ClassRunForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = class_run_create(
                facilitator=request.user,
                deck=data["deck"],
                set_mode=data["set_mode"],
                card_set=data["card_set"],
                timer=data["timer_minutes"] * 60 if data["timer_minutes"] else None,
                allow_guests=data["allow_guests"],
            )
        except game_services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:session", pk=run.lobby_id)
    return render(
        request,
        "games/class_new.html",
        {"form": form, "runs": game_selectors.class_runs_of(request.user)[:10]},
    )


def _class_run_for_teacher(request: HttpRequest, pk: int) -> ClassRun:
    run = get_object_or_404(ClassRun, pk=pk)
    if not runs_for(request.user, run.facilitator_id):
        raise PermissionDenied
    return run


@require_POST
def class_round(request: HttpRequest, pk: int) -> HttpResponse:
    """Pair and start: the next round of duels."""
    run = _class_run_for_teacher(request, pk)
    # No success message: the projector shows the new round itself.
    try:
        class_round_start(run=run, by=request.user)
    except game_services.SessionError as error:
        messages.error(request, str(error))
    return redirect("games:session", pk=run.lobby_id)


@require_POST
def class_finish(request: HttpRequest, pk: int) -> HttpResponse:
    run = _class_run_for_teacher(request, pk)
    class_run_finish(run=run, by=request.user)
    return redirect("games:class_new")


@never_cache
@require_GET
def class_follow(request: HttpRequest, pk: int) -> HttpResponse:
    """A student's page follows them into their own duel of the current round.

    A guest is known in the duel by the token they have in the lobby; it is added to
    the guest's session here, for the duel.
    """
    run = get_object_or_404(ClassRun, pk=pk)
    member = request_participant(request, run.lobby_id)
    if member is None:
        return redirect("games:join_code", code=run.lobby.join_code)
    duel = game_selectors.class_duel_for(run=run, member=member)
    if duel is None:
        return redirect("games:session", pk=run.lobby_id)
    guest_remember(
        request.session,
        tokens_key=game_selectors.GUEST_TOKENS_KEY,
        lobby_id=duel.session_id,
        token=member.token,
    )
    return redirect("games:session", pk=duel.session_id)


# --- practice alone --------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def practice_new(request: HttpRequest) -> HttpResponse:
    if not request.user.can_author:
        raise PermissionDenied
    form = PracticeForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            assignment = practice_assignment_create(
                owner=request.user,
                title=data["title"],
                deck=data["deck"],
                card_set=data["card_set"],
                mode=data["mode"],
                cards_per_player=data["cards_per_player"],
                bot_seconds=data["bot_seconds"],
                bot_accuracy=data["bot_accuracy"],
                timer=data["timer_minutes"] * 60 if data["timer_minutes"] else None,
            )
        except game_services.SessionError as error:
            form.add_error(None, str(error))
        else:
            return redirect("games:practice_results", code=assignment.code)
    return render(
        request,
        "games/practice_new.html",
        {"form": form, "assignments": game_selectors.practice_assignments_of(request.user)[:10]},
    )


@login_required
@require_http_methods(["GET", "POST"])
@limits.codes_limited
def practice(request: HttpRequest, code: str) -> HttpResponse:
    """A student's practice: start a game; their earlier results."""
    assignment = game_selectors.practice_by_code(join_code_normalise(code))
    if assignment is None:
        limits.code_failure(request)
        raise Http404
    error = None
    if request.method == "POST":
        try:
            run = practice_start(assignment=assignment, student=request.user, mode=request.POST.get("mode"))
        except game_services.SessionError as refusal:
            error = str(refusal)
        else:
            return redirect("games:session", pk=run.session_id)
    return render(
        request,
        "games/practice.html",
        {
            "assignment": assignment,
            "runs": game_selectors.practice_runs_of(request.user, assignment)[:20],
            "error": error,
            "modes": PracticeRun.Mode.choices,
        },
        status=400 if error else 200,
    )


@login_required
@require_GET
def practice_results(request: HttpRequest, code: str) -> HttpResponse:
    assignment = game_selectors.practice_by_code(code)
    if assignment is None:
        raise Http404
    if not runs_for(request.user, assignment.owner_id) and not request.user.is_admin:
        raise PermissionDenied
    return render(
        request,
        "games/practice_results.html",
        {
            "assignment": assignment,
            "runs": game_selectors.practice_runs(assignment)[:200],
            "practice_url": request.build_absolute_uri(reverse("games:practice", args=[assignment.code])),
        },
    )


@never_cache
@require_POST
def session_bot(request: HttpRequest, pk: int) -> JsonResponse:
    """Ask for the simulated opponent's move: ``{"version": N}``, the version the page shows.

    409 with ``wait`` (seconds) when its time has not come; 409 ``stale`` when the game
    moved on. Otherwise the student's new view.
    """
    participant = request_participant(request, pk)
    if participant is None or participant.role != Participant.Role.PLAYER:
        return json_error(403, "not_a_participant", _("Only the student practising asks for the next move."))
    try:
        body = json.loads(request.body or b"null")
        version = int(body["version"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        return json_error(400, "invalid_request", _('Send {"version": N}.'))
    try:
        turn = practice_bot_act(session_id=pk, version=version)
    except game_services.SessionError as error:
        return json_error(400, error.code, str(error))
    if not turn.acted:
        response = json_error(409, turn.reason, _("The simulated opponent does not move now."))
        if turn.wait is not None:
            response = JsonResponse(
                {"error": turn.reason, "reason": _("Not yet."), "wait": round(turn.wait, 2)}, status=409
            )
        return response
    session = GameSession.objects.get(pk=pk)
    return JsonResponse(game_selectors.session_payload(session=session, participant=participant))
