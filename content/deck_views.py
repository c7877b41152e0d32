"""Deck building and printing pages. They look like the admin and stay thin: each
parses the request, calls one service in ``content/building.py`` and shapes the answer.

Signed-in teachers and admins only (students get 403, anonymous users the login
page); a deck or a print job is visible to its owner, to the co-teachers of the owner's
classes (``permissions.runs_for``) and to admins, a 404 to anyone else. Only its owner
or an admin builds it again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from . import building
from .forms import DeckForm, PrintForm
from .media import file_response
from .models import BuildState, Deck, PrintJob, SymbolSet
from .permissions import content_visible_to, runs_for

WORKING = (BuildState.QUEUED, BuildState.RUNNING)
DROPPED_CARDS_SHOWN = 60

FILE_LABELS = {
    "game-cards.pdf": _("Game cards, fronts and backs (PDF)"),
    "auxiliary-cards.pdf": _("Auxiliary cards, one per symbol (PDF)"),
    "deck.json": _("deck.json: the cards as symbol numbers and the lesson sets"),
    "activity-cards.pdf": _("Activity cards (PDF)"),
    "knowledge-cards.pdf": _("Knowledge? cards (PDF)"),
    "know-blank-cards.pdf": _("Know: blank question and answer cards (PDF)"),
}


def author_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Teachers and admins pass; students get 403; anonymous users go to the login."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.can_author:
            raise PermissionDenied(_("Only teachers and admins build decks and print cards."))
        return view(request, *args, **kwargs)

    return wrapped


def _page(request: HttpRequest, template: str, title: Any, **context: Any) -> TemplateResponse:
    return TemplateResponse(
        request, template, {**admin.site.each_context(request), "title": title, **context}
    )


def _visible(request: HttpRequest, queryset: QuerySet[Any], pk: int) -> Any:
    """The deck or print job if the visitor owns it, co-teaches a class of its owner, or is an admin."""
    obj = get_object_or_404(queryset, pk=pk)
    if not request.user.is_admin and not runs_for(request.user, obj.owner_id):
        raise Http404("Not found.")
    return obj


def _add_errors(form: forms.Form, error: ValidationError) -> None:
    for name, problems in error.message_dict.items():
        form.add_error(name if name in form.fields and name != "symbol_set" else None, problems)


def _options(form: forms.Form, names: tuple[str, ...]) -> dict[str, Any]:
    data = {name: form.cleaned_data.get(name) for name in names}
    return {name: value for name, value in data.items() if value is not None and value != ""}


def _symbol_set_for(request: HttpRequest) -> SymbolSet | None:
    raw = request.POST.get("symbol_set") if request.method == "POST" else request.GET.get("symbol_set")
    if not raw:
        return None
    try:
        pk = int(raw)
    except ValueError as error:
        raise Http404("No such symbol set.") from error
    visible = content_visible_to(request.user, SymbolSet.objects.all())
    return get_object_or_404(visible, pk=pk)


@author_required
@never_cache
def deck_new(request: HttpRequest) -> HttpResponse:
    symbol_set = _symbol_set_for(request)
    if symbol_set is None:
        sets = (
            content_visible_to(request.user, SymbolSet.objects.all())
            .annotate(n_members=Count("members", distinct=True))
            .order_by("name")
        )
        return _page(
            request, "content/decks/deck_new.html", _("Build a ZnajZnak deck"), symbol_sets=sets, form=None
        )
    size = symbol_set.members.count()
    if request.method == "POST":
        form = DeckForm(request.POST, user=request.user, symbol_set=symbol_set)
        if form.is_valid():
            try:
                deck = building.deck_create(
                    user=request.user,
                    symbol_set=form.cleaned_data["symbol_set"],
                    name=form.cleaned_data.get("name"),
                    seed=form.cleaned_data.get("seed"),
                    options=_options(form, DeckForm.option_names),
                )
            except ValidationError as error:
                _add_errors(form, error)
            else:
                return redirect("decks:deck_detail", deck.pk)
    else:
        form = DeckForm(user=request.user, symbol_set=symbol_set)
    return _page(
        request,
        "content/decks/deck_new.html",
        _("Build a ZnajZnak deck"),
        form=form,
        symbol_set=symbol_set,
        size=size,
        too_small=size < 3,
    )


def _set_rows(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "label": s["label"],
            "cards": len(s["cards"]),
            "symbols": len(s["symbols"]),
            "pair_symbols": len(s["pair_symbols"]),
            "pairs": s.get("pairs", 0),
            "crowded": len(s.get("crowded_symbols", [])),
        }
        for s in plan.get("sets", [])
    ]


def _dropped_cards(plan: dict[str, Any]) -> list[dict[str, Any]]:
    groups: dict[str, list[int]] = {}
    for card in plan.get("cards_dropped", []):
        groups.setdefault(card["reason"], []).append(card["plane_card"])
    return [
        {
            "reason": reason,
            "count": len(cards),
            "cards": cards[:DROPPED_CARDS_SHOWN],
            "more": max(0, len(cards) - DROPPED_CARDS_SHOWN),
        }
        for reason, cards in groups.items()
    ]


def _downloads(obj: Any, url_name: str) -> list[dict[str, Any]]:
    return [
        {"name": name, "label": FILE_LABELS.get(name, name), "url": reverse(url_name, args=[obj.pk, name])}
        for name in obj.files
    ]


@author_required
@never_cache
def deck_detail(request: HttpRequest, pk: int) -> HttpResponse:
    deck = _visible(request, Deck.objects.select_related("owner", "symbol_set"), pk)
    plan = deck.plan or {}
    done = deck.state == BuildState.DONE
    return _page(
        request,
        "content/decks/deck_detail.html",
        deck.name,
        deck=deck,
        plan=plan,
        working=deck.state in WORKING,
        done=done,
        set_rows=_set_rows(plan) if done else [],
        dropped_cards=_dropped_cards(plan) if done else [],
        downloads=_downloads(deck, "decks:deck_download") if done else [],
        symbol_set_name=(deck.snapshot or {}).get("symbol_set", {}).get("name", ""),
        symbol_count=len((deck.snapshot or {}).get("symbols", [])),
    )


@author_required
@require_POST
def deck_retry(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Try again" on a deck whose build failed."""
    deck = _visible(request, Deck.objects.all(), pk)
    try:
        building.deck_retry(deck=deck, user=request.user)
    except building.DeckRefused as refused:
        messages.error(request, str(refused))
    return redirect("decks:deck_detail", deck.pk)


@author_required
@require_POST
def print_retry(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Try again" on a print whose PDF failed."""
    job = _visible(request, PrintJob.objects.all(), pk)
    try:
        building.print_job_retry(job=job, user=request.user)
    except building.DeckRefused as refused:
        messages.error(request, str(refused))
    return redirect("decks:print_detail", job.pk)


def _status(obj: Any) -> JsonResponse:
    return JsonResponse(
        {
            "state": obj.state,
            "state_label": str(obj.get_state_display()),
            "progress": obj.progress,
            "working": obj.state in WORKING,
            "message": str(_(obj.message)) if obj.message else "",  # stored in English
        }
    )


@author_required
@never_cache
@require_GET
def deck_status(request: HttpRequest, pk: int) -> JsonResponse:
    return _status(_visible(request, Deck.objects.all(), pk))


def _file(obj: Any, name: str, prefix: str) -> HttpResponseBase:
    path = (obj.files or {}).get(name)
    if not path:
        raise Http404("No such file.")
    return file_response(path, download_name=f"{prefix}-{name}")


@author_required
@require_GET
def deck_download(request: HttpRequest, pk: int, name: str) -> HttpResponseBase:
    deck = _visible(request, Deck.objects.all(), pk)
    return _file(deck, name, slugify(deck.name)[:60] or f"deck-{deck.pk}")


# --- Prints --------------------------------------------------------------------------------


def print_form_page(request: HttpRequest, form: PrintForm, *, selected: int = 0) -> TemplateResponse:
    return _page(
        request,
        "content/decks/print_new.html",
        _("Print cards"),
        form=form,
        selected=selected,
        action_checkbox_name=ACTION_CHECKBOX_NAME,
        recent=PrintJob.objects.filter(owner=request.user)[:10],
    )


@author_required
@never_cache
def print_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = PrintForm(request.POST)
        if form.is_valid():
            kind = form.cleaned_data["kind"]
            options = _options(form, PrintForm.option_names)
            if kind != PrintJob.Kind.KNOW:
                options.pop("questions", None)
                options.pop("answers", None)
            elif form.cleaned_data.get("language"):
                options["language"] = form.cleaned_data["language"]  # the words on the blank cards
            try:
                job = building.print_job_create(
                    user=request.user, kind=kind, options=options, selection=form.selection()
                )
            except ValidationError as error:
                _add_errors(form, error)
            else:
                return redirect("decks:print_detail", job.pk)
        selected = len(form.cleaned_data.get("ids") or []) if hasattr(form, "cleaned_data") else 0
        return print_form_page(request, form, selected=selected)
    kind = request.GET.get("kind")
    form = PrintForm(initial={"kind": kind if kind in PrintJob.Kind.values else PrintJob.Kind.ACTIVITY})
    return print_form_page(request, form)


@author_required
@never_cache
def print_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = _visible(request, PrintJob.objects.select_related("owner"), pk)
    snapshot = job.snapshot or {}
    return _page(
        request,
        "content/decks/print_detail.html",
        str(job),
        job=job,
        working=job.state in WORKING,
        done=job.state == BuildState.DONE,
        card_count=len(snapshot.get("cards", [])),
        know_counts=(snapshot.get("questions"), snapshot.get("answers")),
        downloads=_downloads(job, "decks:print_download") if job.state == BuildState.DONE else [],
    )


@author_required
@never_cache
@require_GET
def print_status(request: HttpRequest, pk: int) -> JsonResponse:
    return _status(_visible(request, PrintJob.objects.all(), pk))


@author_required
@require_GET
def print_download(request: HttpRequest, pk: int, name: str) -> HttpResponseBase:
    job = _visible(request, PrintJob.objects.all(), pk)
    return _file(job, name, f"talia-print-{job.pk}")
