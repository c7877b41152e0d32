"""Talia's users (one role each: admin, teacher or student); classes, homework and grades."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    ADMIN = "admin", _("Admin")
    TEACHER = "teacher", _("Teacher")
    STUDENT = "student", _("Student")


class UserManager(DjangoUserManager["User"]):
    def create_superuser(self, username, email=None, password=None, **extra_fields):  # type: ignore[no-untyped-def]
        """``createsuperuser`` makes an admin (role and flags agree)."""
        extra_fields.setdefault("role", Role.ADMIN)
        return super().create_superuser(username, email, password, **extra_fields)

    # The layers below (content) ask these through ``get_user_model().objects``, so they
    # never import the roles.
    def teaching(self) -> models.QuerySet[User]:
        """Active users whose role is teacher or admin."""
        return self.filter(role__in=[Role.TEACHER, Role.ADMIN], is_active=True)

    def authors(self) -> models.QuerySet[User]:
        """Users who may own or edit content: active teachers and admins, superusers too."""
        return self.filter(
            models.Q(role__in=[Role.TEACHER, Role.ADMIN]) | models.Q(is_superuser=True), is_active=True
        )

    def sharing_with(self, user: Any) -> models.QuerySet[User]:
        """The teachers whose quizzes, decks, practice and game sessions ``user`` sees and runs:
        ``user`` themselves and the owners of the active classes ``user`` co-teaches.

        Adding a co-teacher is the owner's choice, so it shares the owner's things with the
        co-teacher, never the other way round. Every "is this teacher's X mine to run?"
        check goes through this (``content.permissions.teaching_rows`` and ``runs_for``).
        """
        if not getattr(user, "is_authenticated", False) or not getattr(user, "can_author", False):
            return self.none()
        co_taught = ClassMember.objects.filter(
            user=user, role=ClassMember.Role.TEACHER, school_class__archived=False
        ).values("school_class__teacher")
        return self.filter(models.Q(pk=user.pk) | models.Q(pk__in=co_taught))


class User(AbstractUser):
    """A person using Talia.

    Teachers author content and run games; they reach the admin (``is_staff``) with
    the permissions of the Teachers group. Students never reach the admin or the
    write API. Admins are superusers.
    """

    role = models.CharField(_("role"), max_length=16, choices=Role.choices, default=Role.STUDENT)

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def is_teacher(self) -> bool:
        return self.is_active and self.role == Role.TEACHER

    @property
    def is_admin(self) -> bool:
        return self.is_active and (self.is_superuser or self.role == Role.ADMIN)

    @property
    def can_author(self) -> bool:
        """Teachers and admins author content; students never do."""
        return self.is_teacher or self.is_admin


# --- classes and homework ------------------------------------------------------------------------
#
# Only ``lms/classes/services.py`` and ``lms/grading.py`` write these rows. A class exists
# without any LMS; the LTI tool maps an LMS context to a ``SchoolClass`` and a line item to
# an ``Assignment``, and delivers each changed ``Grade``.


class SchoolClass(models.Model):
    """A teacher's class: students join it with its code and get its homework."""

    class Signup(models.TextChoices):
        """Whether a student without an account may make one with the class code."""

        APPROVAL = "approval", _("Students make their own account; I let each one in")
        OPEN = "open", _("Students make their own account and are in the class at once")
        CLOSED = "closed", _("No new accounts with the code (login cards only)")

    name = models.CharField(_("name"), max_length=120)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("teacher"),
        on_delete=models.CASCADE,
        related_name="classes_owned",
    )
    join_code = models.CharField(_("join code"), max_length=6, db_index=True)
    archived = models.BooleanField(
        _("archived"), default=False, help_text=_("An archived class takes no new students or homework.")
    )
    signup = models.CharField(
        _("new accounts with the class code"), max_length=8, choices=Signup.choices, default=Signup.APPROVAL
    )
    handover_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("offered to"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="classes_offered",
        help_text=_("The teacher the class is being handed over to, until they accept or decline."),
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["archived", "name", "pk"]
        verbose_name = _("class")
        verbose_name_plural = _("classes")

    def __str__(self) -> str:
        return self.name


class ClassMember(models.Model):
    """A person in a class: a student, a co-teacher who sees and manages it like its owner, or
    a student whose account (made with the class code) waits for the teacher's approval."""

    class Role(models.TextChoices):
        STUDENT = "student", _("Student")
        TEACHER = "teacher", _("Co-teacher")
        PENDING = "pending", _("Waiting for the teacher's approval")

    # No index of its own: lms_class_member_once leads with it (tests/test_indexes.py).
    school_class = models.ForeignKey(
        SchoolClass,
        verbose_name=_("class"),
        on_delete=models.CASCADE,
        related_name="members",
        db_index=False,
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="class_memberships",
    )
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.STUDENT)
    joined = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["school_class", "role", "user__last_name", "user__first_name", "user__username"]
        verbose_name = _("class member")
        verbose_name_plural = _("class members")
        constraints = [
            models.UniqueConstraint(fields=["school_class", "user"], name="lms_class_member_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.school_class} ({self.role})"


class Assignment(models.Model):
    """Homework for a class: a quiz or a game, open from ``opens_at`` until ``due_at``.

    ``policy`` says which of a student's graded attempts counts (``Grade``). Scores are
    given out of ``points_possible``, which is also the LMS line item's maximum.
    """

    class Kind(models.TextChoices):
        QUIZ = "quiz", _("Quiz")
        GAME = "game", _("Game")
        REVIEW = "review", _("Review: each student's own due and weakest items")

    class Game(models.TextChoices):
        ZNAJZNAK_PRACTICE = "znajznak_practice", _("ZnajZnak practice duel")
        KNOWLEDGE_SOLO = "knowledge_solo", _("Knowledge? game alone")

    class Policy(models.TextChoices):
        BEST = "best", _("Best attempt")
        LAST = "last", _("Last attempt")
        FIRST = "first", _("First attempt")

    school_class = models.ForeignKey(
        SchoolClass, verbose_name=_("class"), on_delete=models.CASCADE, related_name="assignments"
    )
    title = models.CharField(_("title"), max_length=160)
    instructions = models.TextField(_("instructions"), blank=True)
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    game = models.CharField(_("game"), max_length=24, choices=Game.choices, blank=True)
    game_options = models.JSONField(
        _("game options"),
        default=dict,
        blank=True,
        help_text=_("The game's settings as the teacher chose them."),
    )
    quiz = models.ForeignKey(
        "quiz.Quiz",
        verbose_name=_("quiz"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="class_assignments",
    )
    practice = models.ForeignKey(
        "games.PracticeAssignment",
        verbose_name=_("practice"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="class_assignments",
    )
    opens_at = models.DateTimeField(_("opens"), null=True, blank=True)
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    max_attempts = models.PositiveSmallIntegerField(
        _("attempts allowed"),
        null=True,
        blank=True,
        default=1,
        help_text=_("Empty: as many as the student likes."),
    )
    policy = models.CharField(
        _("attempt that counts"), max_length=8, choices=Policy.choices, default=Policy.BEST
    )
    time_limit_minutes = models.PositiveSmallIntegerField(_("time limit (minutes)"), null=True, blank=True)
    points_possible = models.DecimalField(_("points possible"), max_digits=7, decimal_places=2, default=10)
    published = models.BooleanField(_("published"), default=False)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)
    due_graded_at = models.DateTimeField(
        _("attempts in progress graded at"),
        null=True,
        blank=True,
        help_text=_("When the attempts still open at the due time were graded."),
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["school_class", "due_at", "pk"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(opens_at__isnull=True)
                | models.Q(due_at__isnull=True)
                | models.Q(opens_at__lt=models.F("due_at")),
                name="lms_assignment_opens_before_due",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def is_open(self, now: datetime) -> bool:
        """Published, opened and not yet due at ``now``."""
        return (
            self.published
            and (self.opens_at is None or self.opens_at <= now)
            and (self.due_at is None or now < self.due_at)
        )


class Submission(models.Model):
    """One attempt of one student at an assignment: the quiz attempt or practice game it wraps."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", _("In progress")
        SUBMITTED = "submitted", _("Handed in, waiting for the teacher's marks")
        GRADED = "graded", _("Graded")

    # No index of its own: lms_submission_number_once leads with it (tests/test_indexes.py).
    assignment = models.ForeignKey(
        Assignment,
        verbose_name=_("assignment"),
        on_delete=models.CASCADE,
        related_name="submissions",
        db_index=False,
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("student"),
        on_delete=models.CASCADE,
        related_name="submissions",
    )
    number = models.PositiveSmallIntegerField(_("attempt"))
    quiz_attempt = models.OneToOneField(
        "quiz.QuizAttempt",
        verbose_name=_("quiz attempt"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="submission",
    )
    session = models.OneToOneField(
        "games.GameSession",
        verbose_name=_("game"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="homework_submission",
        help_text=_("A game played alone that is not a practice duel (Knowledge?)."),
    )
    practice_run = models.OneToOneField(
        "games.PracticeRun",
        verbose_name=_("practice game"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="submission",
    )
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)
    score = models.DecimalField(_("score"), max_digits=7, decimal_places=2, null=True, blank=True)
    max_score = models.DecimalField(_("out of"), max_digits=7, decimal_places=2, null=True, blank=True)
    started = models.DateTimeField(_("started"), auto_now_add=True)
    graded_at = models.DateTimeField(_("graded"), null=True, blank=True)
    graded_at_due = models.BooleanField(
        _("graded at the due time"),
        default=False,
        help_text=_("It was still in progress when the homework was due."),
    )

    class Meta:
        ordering = ["assignment", "student", "number"]
        verbose_name = _("submission")
        verbose_name_plural = _("submissions")
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "student", "number"], name="lms_submission_number_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.assignment} · {self.student} · {self.number}"


class Grade(models.Model):
    """The score that counts for a student on an assignment, chosen by its ``policy``."""

    # No index of its own: lms_grade_once leads with it (tests/test_indexes.py).
    assignment = models.ForeignKey(
        Assignment,
        verbose_name=_("assignment"),
        on_delete=models.CASCADE,
        related_name="grades",
        db_index=False,
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("student"), on_delete=models.CASCADE, related_name="grades"
    )
    submission = models.ForeignKey(
        Submission,
        verbose_name=_("counted attempt"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    score = models.DecimalField(_("score"), max_digits=7, decimal_places=2)
    max_score = models.DecimalField(_("out of"), max_digits=7, decimal_places=2)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["assignment", "student"]
        verbose_name = _("grade")
        verbose_name_plural = _("grades")
        constraints = [
            models.UniqueConstraint(fields=["assignment", "student"], name="lms_grade_once"),
        ]

    def __str__(self) -> str:
        return f"{self.assignment} · {self.student}: {self.score}/{self.max_score}"


class LoginCard(models.Model):
    """A student's printed login card: their username, a one-time password and a QR code
    that signs them in once. Both come from ``secret`` and the site's ``SECRET_KEY``
    (``lms.accounts.cards``), so a printed card can be printed again while it is open,
    and the database alone reveals neither.

    Open until ``closed_at`` (the student set their own password, or a newer card
    replaced it) or ``expires_at``; the QR link works once (``link_used_at``).
    """

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("student"),
        on_delete=models.CASCADE,
        related_name="login_cards",
    )
    school_class = models.ForeignKey(
        SchoolClass,
        verbose_name=_("class"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="login_cards",
    )
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("issued by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    secret = models.CharField(_("secret"), max_length=64, editable=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("valid until"))
    link_used_at = models.DateTimeField(_("QR link used"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        ordering = ["student", "-created"]
        verbose_name = _("login card")
        verbose_name_plural = _("login cards")
        constraints = [
            models.UniqueConstraint(
                fields=["student"], condition=models.Q(closed_at__isnull=True), name="lms_one_open_login_card"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.student} · {self.created:%Y-%m-%d}"

    def is_open(self, now: datetime) -> bool:
        return self.closed_at is None and now < self.expires_at
