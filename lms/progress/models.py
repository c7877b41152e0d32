"""What each student remembers: one FSRS memory state per (student, item), and every review.

Only ``lms/progress/services.py`` writes these rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class MemoryState(models.Model):
    """A student's memory of one item (a symbol, a Knowledge? card, a Know question)."""

    # No index of its own: progress_memory_one_per_item leads with it (tests/test_indexes.py).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("student"),
        on_delete=models.CASCADE,
        related_name="memories",
        db_index=False,
    )
    item_key = models.CharField(_("item"), max_length=64, help_text=_("symbol:12, knowledge:3 or know:7."))
    card = models.JSONField(_("scheduler card"), default=dict)
    due = models.DateTimeField(_("due for review"), db_index=True)
    stability = models.FloatField(_("stability (days)"), default=0.0)
    difficulty = models.FloatField(_("difficulty"), default=0.0)
    reviews = models.PositiveIntegerField(_("answers"), default=0)
    correct = models.FloatField(
        _("right answers"), default=0.0, help_text=_("Partial credit counts as a fraction.")
    )
    last_reviewed = models.DateTimeField(_("last answered"))
    last_correct = models.FloatField(_("last answer"), default=0.0)

    class Meta:
        verbose_name = _("memory state")
        verbose_name_plural = _("memory states")
        constraints = [
            models.UniqueConstraint(fields=["user", "item_key"], name="progress_memory_one_per_item")
        ]
        indexes = [models.Index(fields=["user", "due"], name="progress_memory_user_due")]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.item_key}"

    @property
    def wrong(self) -> float:
        return self.reviews - self.correct


class Review(models.Model):
    """One answer to one item, as it happened: the history behind the charts."""

    class Source(models.TextChoices):
        QUIZ = "quiz", _("quiz")
        PLAY = "play", _("play")

    # No index of its own: progress_review_user_item leads with it (tests/test_indexes.py).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("student"),
        on_delete=models.CASCADE,
        related_name="reviews",
        db_index=False,
    )
    item_key = models.CharField(_("item"), max_length=64)
    correct = models.FloatField(_("score"))
    reviewed_at = models.DateTimeField(_("answered"))
    source = models.CharField(_("source"), max_length=8, choices=Source.choices)

    class Meta:
        verbose_name = _("review")
        verbose_name_plural = _("reviews")
        ordering = ["reviewed_at", "pk"]
        indexes = [models.Index(fields=["user", "item_key"], name="progress_review_user_item")]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.item_key} · {self.correct:g}"


class NamingWatermark(models.Model):
    """The last ``games.NamingRecord`` taken into a student's memory (see ``namings_absorb``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="naming_watermark", primary_key=True
    )
    last_naming_id = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.user_id} · {self.last_naming_id}"
