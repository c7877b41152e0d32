"""Quizzes, their items, students' attempts and responses.

Only ``games/quiz/services.py`` writes these rows. A ``QuizItem``'s ``prompt`` is what a
student may see before submitting; its ``key`` (the answer, the subjects asked about,
the pictures behind the prompt's tokens) never leaves the server until the attempt is
graded. ``Quiz.pool`` is the snapshot the items were generated from, so replacing an
item later draws from the same content, whatever was edited since.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from content.models import BuildJob
from games.engines import quiz as engine

KIND_LABELS = {
    engine.PICTURE_NAME: _("Picture → name (choose)"),
    engine.PICTURE_NAME_TYPED: _("Picture → name (type)"),
    engine.NAME_PICTURE: _("Name → picture"),
    engine.PERIODS: _("Which period(s)?"),
    engine.TEXT_SYMBOL: _("Description → symbol"),
    engine.KNOWLEDGE: _("Knowledge? question"),
    engine.KNOW: _("Know question"),
    engine.CONNECT: _("Connect the symbols"),
    engine.PERIOD: _("Which period?"),
    engine.CHRONOLOGY: _("Chronology"),
    engine.MATCHING: _("Matching"),
    engine.CHOICE: _("Multiple choice"),
}


class Quiz(BuildJob):
    """A quiz: built by a Celery task (``state``/``progress``), then a draft the teacher
    previews and edits, then published for students."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")

    class Source(models.TextChoices):
        SESSION = "session", _("A finished game")
        SYMBOL_SET = "symbol_set", _("A symbol set")
        THEME = "theme", _("A theme")
        PERIOD = "period", _("A period")
        SELECTION = "selection", _("A selection of symbols")
        REVIEW = "review", _("A student's items due for review")
        QUESTIONS = "questions", _("Quiz questions written by teachers")

    title = models.CharField(_("title"), max_length=160)
    #: Travels with the quiz in a package (``content/packages``), as content's ``uid`` does.
    uid = models.UUIDField(_("stable identifier"), default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("teacher"), on_delete=models.CASCADE, related_name="quizzes"
    )
    source = models.CharField(_("built from"), max_length=12, choices=Source.choices)
    source_description = models.CharField(_("source"), max_length=300, blank=True)
    session = models.ForeignKey(
        "games.GameSession",
        verbose_name=_("game"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="quizzes",
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("built for"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("A quiz built for one student (their own weak items); only they may take it."),
    )
    seed = models.BigIntegerField(_("seed"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    code = models.CharField(_("code"), max_length=6, db_index=True)
    pool = models.JSONField(_("generated from"), default=dict, blank=True)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")

    def __str__(self) -> str:
        return self.title

    @property
    def is_built(self) -> bool:
        return self.state == "done"

    @property
    def max_score(self) -> int:
        return sum(item.points for item in self.items.all())


class QuizItem(models.Model):
    """One item of a quiz: public ``prompt``, secret ``key`` (``games.engines.quiz.Item``)."""

    # No index of its own: quiz_item_position_unique leads with it (tests/test_indexes.py).
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="items", db_index=False)
    position = models.PositiveSmallIntegerField(_("position"))
    kind = models.CharField(_("kind"), max_length=20, choices=list(KIND_LABELS.items()))
    prompt = models.JSONField(_("prompt"))
    key = models.JSONField(_("answer key"))
    points = models.PositiveSmallIntegerField(_("points"), default=1)

    class Meta:
        ordering = ["quiz", "position"]
        verbose_name = _("quiz item")
        verbose_name_plural = _("quiz items")
        constraints = [
            models.UniqueConstraint(fields=["quiz", "position"], name="quiz_item_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.kind}"

    def as_engine_item(self) -> engine.Item:
        return engine.Item(kind=self.kind, prompt=self.prompt, key=self.key, points=self.points)


class QuizAttempt(models.Model):
    """One student's go at a quiz, from the first answer to its grade.

    ``deadline`` is the server's: no answer is taken after it, and an attempt still open
    then is graded as it stands (``attempts_grade_overdue``).
    """

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", _("In progress")
        MARKING = "marking", _("Waiting for the teacher's marks")
        GRADED = "graded", _("Graded")

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="attempts")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("student"),
        on_delete=models.CASCADE,
        related_name="quiz_attempts",
    )
    started_at = models.DateTimeField(_("started"))
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    submitted_at = models.DateTimeField(_("submitted"), null=True, blank=True)
    graded_at = models.DateTimeField(_("graded"), null=True, blank=True)
    score = models.FloatField(_("score"), null=True, blank=True)
    max_score = models.PositiveIntegerField(_("out of"), default=0)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("quiz attempt")
        verbose_name_plural = _("quiz attempts")
        indexes = [models.Index(fields=["status", "deadline"], name="quiz_attempt_open_deadline")]

    def __str__(self) -> str:
        return f"{self.quiz} · {self.student} · {self.status}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.IN_PROGRESS


class QuizResponse(models.Model):
    """A student's answer to one item: saved as they go, graded on submission."""

    # No index of its own: quiz_response_once_per_item leads with it (tests/test_indexes.py).
    attempt = models.ForeignKey(
        QuizAttempt, on_delete=models.CASCADE, related_name="responses", db_index=False
    )
    item = models.ForeignKey(QuizItem, on_delete=models.CASCADE, related_name="responses")
    answer = models.JSONField(_("answer"), default=dict, blank=True)
    saved_at = models.DateTimeField(_("saved"))
    #: The item analysis's clock (``lms.progress.analysis.answer_seconds``); empty for an
    #: item never answered and for answers saved before it was kept.
    first_answered_at = models.DateTimeField(
        _("first answered"),
        null=True,
        blank=True,
        help_text=_("When the student first saved an answer to this question (not an empty one)."),
    )
    score = models.FloatField(_("score"), null=True, blank=True)
    needs_marking = models.BooleanField(_("waits for the teacher"), default=False)
    teacher_mark = models.FloatField(_("teacher's mark"), null=True, blank=True)
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    feedback = models.JSONField(_("feedback"), default=list, blank=True)
    reviewed = models.BooleanField(
        _("counted in progress"), default=False, help_text=_("Progress was told about this answer.")
    )

    class Meta:
        ordering = ["attempt", "item__position"]
        verbose_name = _("quiz answer")
        verbose_name_plural = _("quiz answers")
        constraints = [
            models.UniqueConstraint(fields=["attempt", "item"], name="quiz_response_once_per_item"),
        ]

    def __str__(self) -> str:
        return f"{self.attempt_id} · {self.item_id}"
