"""Quizzes in the admin, for admins: read what was generated and taken (the pages edit)."""

from django.contrib import admin

from .models import Quiz, QuizAttempt, QuizItem, QuizResponse


class QuizItemInline(admin.TabularInline):
    model = QuizItem
    extra = 0
    can_delete = False
    readonly_fields = ("position", "kind", "prompt", "key", "points")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "source", "status", "state", "created")
    list_filter = ("status", "state", "source")
    search_fields = ("title", "code", "owner__username")
    readonly_fields = (
        "seed",
        "code",
        "pool",
        "options",
        "state",
        "progress",
        "message",
        "session",
        "student",
    )
    inlines = [QuizItemInline]


class QuizResponseInline(admin.TabularInline):
    model = QuizResponse
    extra = 0
    can_delete = False
    readonly_fields = ("item", "answer", "saved_at", "score", "needs_marking", "teacher_mark", "feedback")
    exclude = ("marked_by", "reviewed")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(QuizAttempt)
class QuizAttemptAdmin(admin.ModelAdmin):
    list_display = ("quiz", "student", "status", "score", "max_score", "started_at", "deadline")
    list_filter = ("status",)
    search_fields = ("quiz__title", "student__username")
    readonly_fields = ("quiz", "student", "started_at", "submitted_at", "graded_at", "score", "max_score")
    inlines = [QuizResponseInline]
