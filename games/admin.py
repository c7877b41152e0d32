"""Game sessions in the admin: read only. Sessions change only through ``games/services.py``.

A session's state, log and players are what was played; editing them here would break
the rule that the stored state is what the log replays to.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from .models import (
    ActionRecord,
    ClassDuel,
    ClassRun,
    GameSession,
    NamingRecord,
    Participant,
    PracticeAssignment,
    PracticeRun,
)


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
