"""Game sessions in the admin: read only. Sessions change only through ``games/services.py``.

A session's state, log and players are what was played; editing them here would break
the rule that the stored state is what the log replays to.

Also the Knowledge? balance simulator on a board's admin page (content's board admin,
extended: ``KnowledgeBoardBalanceAdmin``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import get_object_or_404
from django.urls import NoReverseMatch, path, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from content.admin import KnowledgeBoardAdmin
from content.models import LANGUAGES, BuildState, KnowledgeBoard
from content.permissions import can_change

from .lobby import CODE_KINDS
from .models import (
    ActionRecord,
    ClassDuel,
    ClassRun,
    GameSession,
    JoinCode,
    KnowledgeBalanceRun,
    NamingRecord,
    Participant,
    PracticeAssignment,
    PracticeRun,
)
from .play.knowledge import balance
from .play.knowledge.selectors import tags_in_use


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ParticipantInline(ReadOnlyInline):
    model = Participant
    fields = ("nickname", "user", "role", "player_id", "joined_at")
    readonly_fields = fields


class ActionRecordInline(ReadOnlyInline):
    model = ActionRecord
    fields = ("index", "player_id", "action", "created")
    readonly_fields = fields
    ordering = ("index",)


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "variant", "status", "join_code", "facilitator", "version", "created")
    list_filter = ("game", "status")
    search_fields = ("join_code", "facilitator__username")
    date_hierarchy = "created"
    inlines = (ParticipantInline, ActionRecordInline)
    readonly_fields = (
        "game", "variant", "status", "join_code", "allow_guests", "facilitator", "seed", "version",
        "setup", "state", "created", "updated", "finished_at", "page",
    )  # fmt: skip
    exclude = ("assets",)

    @admin.display(description=_("page"))
    def page(self, obj: GameSession) -> str:
        return format_html('<a href="{}">{}</a>', reverse("games:session", args=[obj.pk]), _("Open"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records of play: written by the services, read here by admins."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(NamingRecord)
class NamingRecordAdmin(ReadOnlyAdmin):
    list_display = ("created", "user", "symbol_name", "text", "correct", "dont_know", "session")
    list_filter = ("correct", "dont_know")
    search_fields = ("symbol_name", "text", "user__username")
    list_select_related = ("user", "session")


@admin.register(ClassRun)
class ClassRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "facilitator", "round", "created")


@admin.register(ClassDuel)
class ClassDuelAdmin(ReadOnlyAdmin):
    list_display = ("id", "run", "round", "session", "card_set")


@admin.register(PracticeAssignment)
class PracticeAssignmentAdmin(ReadOnlyAdmin):
    list_display = ("id", "title", "code", "owner", "created")


@admin.register(PracticeRun)
class PracticeRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "assignment", "student", "mode", "won", "seconds", "started")
    list_select_related = ("assignment", "student")  # the assignment may be empty: named here


@admin.register(JoinCode)
class JoinCodeAdmin(ReadOnlyAdmin):
    """The one code space (``games.lobby``): each code, what it opens and since when.

    The services draw and release codes (``code_claim``, ``code_release``) and copy each to
    its object's own column, so nothing is typed, changed or deleted here: a deleted claim
    would free a code that a session, practice or class still shows. A claim names its
    object by kind and id, not by a foreign key: the list reads one query for its rows,
    and "opens" links to the object's admin page without reading the object.
    """

    list_display = ("code", "opens", "claimed", "released")
    list_filter = ("kind", ("released", admin.EmptyFieldListFilter))
    search_fields = ("code",)
    date_hierarchy = "claimed"
    ordering = ("-claimed",)
    fields = ("code", "kind", "object_id", "opens", "claimed", "released")
    readonly_fields = fields

    @admin.display(description=pgettext_lazy("join code", "opens"), ordering="kind")
    def opens(self, claim: JoinCode) -> str:
        spec = CODE_KINDS.get(claim.kind)
        if spec is None:
            return f"{claim.kind} {claim.object_id}"
        meta = spec.model._meta
        label = f"{meta.verbose_name} {claim.object_id}"
        try:
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[claim.object_id])
        except NoReverseMatch:  # a kind whose model has no admin page
            return label
        return format_html('<a href="{}">{}</a>', url, label)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- Knowledge? boards: the balance simulator on the board's page ----------------------------


class KnowledgeBalanceForm(forms.Form):
    """What the teacher chooses; the checks are the service's (``balance_options_check``),
    the limits here only let the browser say so before sending."""

    games = forms.IntegerField(
        label=_("Games per variant and start"),
        initial=balance.BALANCE_GAMES_DEFAULT,
        min_value=balance.BALANCE_GAMES_MIN,
        max_value=balance.BALANCE_GAMES_MAX,
        help_text=_("From 10 to 5,000. A thousand gives each win rate within about 3 points."),
    )
    knowledge = forms.IntegerField(
        label=_("The team knows (% of the answers)"),
        initial=60,
        min_value=0,
        max_value=100,
        help_text=_("How often the simulated class knows a card's answer; otherwise it guesses."),
    )
    seed = forms.IntegerField(
        label=_("Seed"),
        initial=0,
        min_value=0,
        max_value=balance.SEED_MAX,
        help_text=_("The same seed plays the same games, here and on the command line."),
    )
    tag = forms.ChoiceField(label=_("Questions with the tag"), required=False)
    language = forms.ChoiceField(
        label=_("Questions in"), required=False, choices=[("", _("any language")), *LANGUAGES]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tag"].choices = [("", _("any tag"))] + [(tag.slug, str(tag)) for tag in tags_in_use()]


class KnowledgeBoardBalanceAdmin(KnowledgeBoardAdmin):
    """The board's admin page with the balance simulator below the board (content's admin,
    extended here: the simulator belongs to the games app, which may import content, not
    the other way round). Only teachers who may change the board see and run it."""

    change_form_template = "admin/games/knowledgeboard/change_form.html"

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/balance/", view(self.balance_start), name="content_knowledgeboard_balance"
            ),
            path(
                "<path:object_id>/balance/<int:run_id>/status/",
                view(self.balance_status),
                name="content_knowledgeboard_balance_status",
            ),
            path(
                "<path:object_id>/balance/<int:run_id>/retry/",
                view(self.balance_retry),
                name="content_knowledgeboard_balance_retry",
            ),
            *super().get_urls(),
        ]

    def _editable_board(self, request: HttpRequest, object_id: str) -> KnowledgeBoard:
        board = self.get_object(request, unquote(object_id))
        if board is None:
            raise Http404(_("No such board."))
        if not can_change(request.user, board):
            raise PermissionDenied(_("Only the teachers who may change this board can simulate it."))
        return board

    def _run(self, board: KnowledgeBoard, run_id: int) -> KnowledgeBalanceRun:
        return get_object_or_404(KnowledgeBalanceRun, pk=run_id, board=board)

    def _back(self, board: KnowledgeBoard) -> HttpResponseRedirect:
        return HttpResponseRedirect(
            reverse("admin:content_knowledgeboard_change", args=[board.pk]) + "#balance"
        )

    def balance_start(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        board = self._editable_board(request, object_id)
        try:
            balance.balance_run_create(user=request.user, board=board, options=request.POST)
        except ValidationError as error:
            for problem in error.messages:
                messages.error(
                    request, _("The simulation was not started: %(problem)s") % {"problem": problem}
                )
        except balance.BalanceRefused as refused:
            messages.error(request, str(refused))
        return self._back(board)

    def balance_retry(self, request: HttpRequest, object_id: str, run_id: int) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        board = self._editable_board(request, object_id)
        try:
            balance.balance_run_retry(run=self._run(board, run_id), user=request.user)
        except balance.BalanceRefused as refused:
            messages.error(request, str(refused))
        return self._back(board)

    def balance_status(self, request: HttpRequest, object_id: str, run_id: int) -> JsonResponse:
        run = self._run(self._editable_board(request, object_id), run_id)
        response = JsonResponse(
            {
                "state": run.state,
                "state_label": str(run.get_state_display()),
                "progress": run.progress,
                "working": run.state in balance.WORKING,
                "message": run.message,
            }
        )
        add_never_cache_headers(response)
        return response

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        board = self.get_object(request, unquote(object_id))
        if board is not None and can_change(request.user, board):
            extra_context = {**(extra_context or {}), "balance": self._balance_context(board)}
        return super().change_view(request, object_id, form_url, extra_context)

    def _balance_context(self, board: KnowledgeBoard) -> dict[str, Any]:
        run = balance.balance_latest(board=board)
        context: dict[str, Any] = {
            "run": run,
            "form": KnowledgeBalanceForm(initial=(run.options if run else None)),
            "start_url": reverse("admin:content_knowledgeboard_balance", args=[board.pk]),
            "working": run is not None and run.state in balance.WORKING,
        }
        if run is not None:
            rows = balance.balance_rows(run) if run.state == BuildState.DONE else []
            context |= {
                "status_url": reverse("admin:content_knowledgeboard_balance_status", args=[board.pk, run.pk]),
                "retry_url": reverse("admin:content_knowledgeboard_balance_retry", args=[board.pk, run.pk]),
                "rows": rows,
                "warnings": [row for row in rows if row["warning"]],
                "questions": len(run.snapshot.get("questions", [])),
                "command": balance.balance_command(run),
            }
        return context


admin.site.unregister(KnowledgeBoard)
admin.site.register(KnowledgeBoard, KnowledgeBoardBalanceAdmin)
