"""ZnajZnak decks and prints in the admin: lists, read-only pages with links, and the
"Print the selected cards" actions for Activity cards and Knowledge? questions.

Decks and prints are made on their own pages (``content/deck_views.py``): "add" leads
there, and a row's admin page is read-only, with links to its progress and downloads.
A teacher sees their own decks and prints and those of the owners of the classes they
co-teach; an admin sees everyone's. Only the owner or an admin deletes one; that
removes its files too (``building.deck_delete``/``print_job_delete``).

The symbol set's "Build a ZnajZnak deck" button is in
``templates/admin/content/symbolset/change_form.html``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from . import building, deck_views
from .forms import PrintForm
from .models import Deck, PrintJob
from .permissions import content_visible_to, teaching_rows


def _url(name: str, *args: Any) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:  # the deck pages are not installed in this URLconf
        return None


class _JobAdmin(admin.ModelAdmin):
    """Own rows only (admins: all), no admin form: made on their page, read here."""

    change_list_template = "content/decks/admin_change_list.html"
    list_filter = ("state",)
    new_url_name = ""
    new_label: Any = ""
    detail_url_name = ""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request).select_related("owner")
        return queryset if request.user.is_admin else teaching_rows(request.user, queryset)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the changelist's button leads to the build/print page instead

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        return obj is None or request.user.is_admin or obj.owner_id == request.user.pk

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        url = _url(self.new_url_name)
        if url is None:
            return super().add_view(request, form_url, extra_context)
        return HttpResponseRedirect(url)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = {"talia_new_url": _url(self.new_url_name), "talia_new_label": self.new_label}
        return super().changelist_view(request, {**context, **(extra_context or {})})

    @admin.display(description=_("page"))
    def page(self, obj: Any) -> str:
        url = _url(self.detail_url_name, obj.pk)
        if url is None:
            return "—"
        return format_html('<a href="{}">{}</a>', url, _("Progress and downloads"))

    @admin.display(description=_("downloads"))
    def downloads(self, obj: Any) -> str:
        download = self.detail_url_name.replace("_detail", "_download")
        links = [(u, name) for name in (obj.files or {}) if (u := _url(download, obj.pk, name))]
        if not links:
            return "—"
        return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a></li>', links))


@admin.register(Deck)
class DeckAdmin(_JobAdmin):
    list_display = ("name", "set_name", "order", "cards", "state", "progress", "owner", "created", "page")
    search_fields = ("name", "symbol_set__name")
    list_select_related = ("symbol_set", "owner")
    fields = (
        "name",
        "page",
        "set_name",
        "seed",
        "order",
        "cards",
        "state",
        "progress",
        "message",
        "downloads",
        "owner",
        "created",
        "updated",
    )
    readonly_fields = fields
    new_url_name = "decks:deck_new"
    new_label = _("Build a ZnajZnak deck")
    detail_url_name = "decks:deck_detail"

    @admin.display(description=_("symbol set"))
    def set_name(self, obj: Deck) -> str:
        return (obj.snapshot or {}).get("symbol_set", {}).get("name") or str(obj.symbol_set or "—")

    @admin.display(description=_("order"))
    def order(self, obj: Deck) -> Any:
        return (obj.plan or {}).get("order", "—")

    @admin.display(description=_("cards"))
    def cards(self, obj: Deck) -> Any:
        return (obj.plan or {}).get("card_count", "—")

    def delete_model(self, request: HttpRequest, obj: Deck) -> None:
        building.deck_delete(deck=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for deck in queryset:
            if self.has_delete_permission(request, deck):
                building.deck_delete(deck=deck)


@admin.register(PrintJob)
class PrintJobAdmin(_JobAdmin):
    list_display = ("__str__", "kind", "state", "progress", "owner", "created", "page")
    list_filter = ("kind", "state")
    fields = ("kind", "page", "state", "progress", "message", "downloads", "owner", "created", "updated")
    readonly_fields = fields
    new_url_name = "decks:print_new"
    new_label = _("Print cards")
    detail_url_name = "decks:print_detail"

    def delete_model(self, request: HttpRequest, obj: PrintJob) -> None:
        building.print_job_delete(job=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for job in queryset:
            if self.has_delete_permission(request, job):
                building.print_job_delete(job=job)


# --- Actions for the Activity card and Knowledge? question lists ----------------------------


def _print_selected(request: HttpRequest, queryset: QuerySet[Any], kind: str) -> HttpResponse:
    ids = list(content_visible_to(request.user, queryset).order_by("pk").values_list("pk", flat=True))
    form = PrintForm(initial={"kind": kind, "ids": " ".join(map(str, ids))})
    return deck_views.print_form_page(request, form, selected=len(ids))


@admin.action(description=_("Print the selected cards"))
def print_selected_activity_cards(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponse:
    """Ask for the paper and card options, then print the selected Activity cards."""
    return _print_selected(request, queryset, PrintJob.Kind.ACTIVITY)


@admin.action(description=_("Print the selected cards"))
def print_selected_knowledge_questions(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponse:
    """Ask for the paper and card options, then print the selected Knowledge? questions."""
    return _print_selected(request, queryset, PrintJob.Kind.KNOWLEDGE)
