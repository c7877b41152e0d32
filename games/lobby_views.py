"""The join pages' steps that game sessions and workshops share (``games/lobby.py``).

A lobby's join page: the code typed in a form goes to the lobby's own link, in the
stored form of the code; an unknown or ended code answers 404 and counts as a guess
(``config.limits``); a known one offers to join, signed in or as a guest with a nickname.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from config import limits

from .forms import GuestForm, JoinCodeForm
from .lobby import LobbyError, join_code_normalise


def code_form(request: HttpRequest, *, to: str, template: str) -> HttpResponse:
    """The form for a typed code; a valid one goes to the URL named ``to`` with the code."""
    form = JoinCodeForm(request.POST or request.GET or None)
    if form.is_bound and form.is_valid():
        return redirect(to, code=join_code_normalise(form.cleaned_data["code"]))
    return render(request, template, {"form": form})


def code_unknown(request: HttpRequest, code: str, *, template: str) -> HttpResponse:
    """Unknown and ended codes answer alike, and count as a guess."""
    limits.code_failure(request)
    form = JoinCodeForm(initial={"code": code})
    return render(request, template, {"form": form, "not_found": code}, status=404)


def join_form(
    request: HttpRequest,
    *,
    allow_guests: bool,
    join: Callable[..., Any],
    joined: Callable[[Any], HttpResponse],
    template: str,
    context: dict[str, Any],
) -> HttpResponse:
    """Join a lobby: ``join(user=..., nickname=...)`` (the lobby's service) on a POST of a
    signed-in user or of a guest's valid nickname, then ``joined(participant)``; a refusal
    is shown on the page, answered 400 as an invalid nickname is."""
    signed_in = request.user.is_authenticated
    guest_form = GuestForm(request.POST or None) if not signed_in and allow_guests else None
    error = None
    if request.method == "POST" and (signed_in or (guest_form is not None and guest_form.is_valid())):
        try:
            participant = join(
                user=request.user if signed_in else None,
                nickname=None if signed_in or guest_form is None else guest_form.cleaned_data["nickname"],
            )
        except LobbyError as refusal:
            error = str(refusal)
        else:
            return joined(participant)
    return render(
        request,
        template,
        {**context, "guest_form": guest_form, "error": error, "signed_in": signed_in},
        status=400 if error or (guest_form is not None and guest_form.errors) else 200,
    )
