"""The library's pages for teachers: find published content, preview it, copy it into
one's own, publish and unpublish. They look like the admin and stay thin: each parses
the request, calls ``content/library.py`` and shapes the answer.

Signed-in teachers and admins only (students get 403, anonymous users the login page);
an entry that is not published is a 404 to everyone but its publisher and admins.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from . import library
from .forms import LibrarySearchForm, PublishForm
from .import_views import admin_page
from .media import picture_response
from .models import LibraryEntry

KIND_OF_MODEL = {
    "symbolset": (LibraryEntry.Kind.SYMBOL_SET, "symbol_sets"),
    "activitycard": (LibraryEntry.Kind.ACTIVITY_CARDS, "activity_cards"),
    "knowledgequestion": (LibraryEntry.Kind.KNOWLEDGE, "knowledge_questions"),
    "knowledgeboard": (LibraryEntry.Kind.KNOWLEDGE, "knowledge_boards"),
    "knowquestion": (LibraryEntry.Kind.KNOW_QUESTIONS, "know_questions"),
}


def teacher_required(view: Any) -> Any:
    """Teachers and admins pass; students get 403; anonymous users go to the login."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.can_author:
            raise PermissionDenied(_("Only teachers and admins use the library."))
        return view(request, *args, **kwargs)

    return wrapped


def _ids(raw: str) -> list[int]:
    return [int(part) for part in raw.split(",") if part.strip().isdigit()][:1000]


@teacher_required
@never_cache
@require_GET
def library_index(request: HttpRequest) -> HttpResponse:
    form = LibrarySearchForm(request.GET or None)
    filters: dict[str, Any] = {}
    entries: list[LibraryEntry] = []
    if form.is_valid():
        filters = {name: value for name, value in form.cleaned_data.items() if value}
    if not form.is_bound or form.is_valid():
        entries = list(library.library_entries(user=request.user, **filters)[:200])
    return admin_page(
        request,
        "content/library/index.html",
        _("Library"),
        form=form,
        entries=entries,
        searched=form.is_bound,
        mine=LibraryEntry.objects.filter(owner=request.user).order_by("-created")[:50],
    )


def _entry(request: HttpRequest, pk: int) -> LibraryEntry:
    return get_object_or_404(library.library_entry_visible(request.user), pk=pk)


@teacher_required
@never_cache
@require_GET
def library_entry(request: HttpRequest, pk: int) -> HttpResponse:
    entry = _entry(request, pk)
    return admin_page(
        request,
        "content/library/entry.html",
        entry.title,
        entry=entry,
        items=library.library_items(entry),
        is_publisher=entry.owner_id == request.user.pk or request.user.is_admin,
    )


@teacher_required
@require_GET
def library_symbol_picture(request: HttpRequest, pk: int, symbol_pk: int) -> HttpResponseBase:
    """A symbol's picture as the entry's preview shows it (cleaned, as for players)."""
    entry = _entry(request, pk)
    symbol = next((s for s in library.library_items(entry)["symbols"] if s.pk == symbol_pk), None)
    if symbol is None or not symbol.picture:
        raise Http404("No such picture.")
    return picture_response(symbol.picture.name)


def _copy_link(entry: LibraryEntry, written: dict[str, list[int]]) -> str:
    if entry.kind == LibraryEntry.Kind.SYMBOL_SET and written.get("symbol_sets"):
        return reverse("admin:content_symbolset_change", args=[written["symbol_sets"][0]])
    model = {
        LibraryEntry.Kind.ACTIVITY_CARDS: "activitycard",
        LibraryEntry.Kind.KNOWLEDGE: "knowledgequestion"
        if written.get("knowledge_questions")
        else "knowledgeboard",
        LibraryEntry.Kind.KNOW_QUESTIONS: "knowquestion",
    }[LibraryEntry.Kind(entry.kind)]
    return f"{reverse(f'admin:content_{model}_changelist')}?copied_from__id__exact={entry.pk}"


@teacher_required
@require_POST
def library_copy(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        entry, written = library.library_copy(user=request.user, entry_id=pk)
    except library.LibraryError as error:
        messages.error(request, str(error))
        return redirect("content:library")
    messages.success(
        request,
        _("“%(title)s” is copied into your content, as your draft. Edit it as you like.")
        % {"title": entry.title},
    )
    return redirect(_copy_link(entry, written))


@teacher_required
@require_POST
def library_unpublish(request: HttpRequest, pk: int) -> HttpResponse:
    entry = _entry(request, pk)
    library.library_unpublish(user=request.user, entry=entry)
    messages.success(
        request,
        _("“%(title)s” is no longer in the library. The copies teachers made stay theirs.")
        % {"title": entry.title},
    )
    return redirect("content:library")


@teacher_required
@never_cache
def library_publish(request: HttpRequest) -> HttpResponse:
    """Publish content chosen in the admin (``?model=symbolset&ids=1``) as one entry."""
    source = request.POST if request.method == "POST" else request.GET
    model = source.get("model", "")
    if model not in KIND_OF_MODEL:
        raise Http404("Nothing to publish.")
    kind, section = KIND_OF_MODEL[model]
    ids = _ids(source.get("ids", ""))
    rows = {section: ids}
    initial = library.library_publish_initial(user=request.user, rows=rows)
    form = PublishForm(request.POST if request.method == "POST" else None, initial=initial)
    problem = ""
    if request.method == "POST" and form.is_valid():
        try:
            entry = library.library_publish(user=request.user, kind=kind, rows=rows, **form.cleaned_data)
        except library.LibraryError as error:
            problem = str(error)
        else:
            messages.success(
                request,
                _("“%(title)s” is in the library: every teacher can find and copy it.")
                % {"title": entry.title},
            )
            return redirect("content:library_entry", entry.pk)
    return admin_page(
        request,
        "content/library/publish.html",
        _("Publish to the library"),
        form=form,
        model=model,
        ids=",".join(str(pk) for pk in ids),
        kind_label=LibraryEntry.Kind(kind).label,
        count=len(ids),
        problem=problem,
    )
