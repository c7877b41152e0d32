"""What Talia keeps about the LMSs it serves, beside django-lti's registrations and deployments.

django-lti (``lti_tool``) holds the platforms (``LtiRegistration``), their deployments,
Talia's signing keys, and what launches told us: LMS users (``LtiUser``, by issuer and
subject), courses (``LtiContext``), their members and resource links. These models tie
them to Talia's own rows: a course to a class, a resource link to an assignment and its
gradebook column, a class's progress columns (mastery per period or theme, created by
Talia on the LMS), and each score on its way to the LMS.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiContext, LtiRegistration, LtiResourceLink, LtiUser


class ClassLink(models.Model):
    """An LMS course (context) taught in Talia as a class."""

    context = models.OneToOneField(
        LtiContext, verbose_name=_("LMS course"), on_delete=models.CASCADE, related_name="talia_link"
    )
    school_class = models.ForeignKey(
        "lms.SchoolClass", verbose_name=_("class"), on_delete=models.CASCADE, related_name="lti_links"
    )
    roster_synced_at = models.DateTimeField(_("roster read"), null=True, blank=True)
    roster_error = models.CharField(_("roster error"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("LMS course link")
        verbose_name_plural = _("LMS course links")

    def __str__(self) -> str:
        return f"{self.context} → {self.school_class}"


class AssignmentLink(models.Model):
    """An LMS resource link (an activity in a course) that opens a Talia assignment.

    ``lineitem_url`` is the gradebook column scores go to (from the launch's AGS claim).
    """

    resource_link = models.OneToOneField(
        LtiResourceLink, verbose_name=_("LMS activity"), on_delete=models.CASCADE, related_name="talia_link"
    )
    assignment = models.ForeignKey(
        "lms.Assignment", verbose_name=_("assignment"), on_delete=models.CASCADE, related_name="lti_links"
    )
    lineitem_url = models.URLField(_("line item URL"), max_length=1000, blank=True)
    score_scope = models.BooleanField(_("may post scores"), default=False)

    class Meta:
        verbose_name = _("LMS activity link")
        verbose_name_plural = _("LMS activity links")

    def __str__(self) -> str:
        return f"{self.resource_link} → {self.assignment}"


class ProgressColumn(models.Model):
    """A gradebook column Talia created in a linked course: a student's mastery of one period
    or theme, 0–100 (docs/progress.md, "Progress in the LMS gradebook").

    ``lineitem_url`` is the AGS line item Talia made (``resourceId`` ``resource_id``, tag
    ``talia-progress``). An unpublished column (``active`` off) keeps its line item and the
    scores already there; Talia only stops sending.
    """

    class Group(models.TextChoices):
        PERIOD = "period", _("period")
        THEME = "theme", _("theme")

    class_link = models.ForeignKey(
        ClassLink, verbose_name=_("LMS course"), on_delete=models.CASCADE, related_name="progress_columns"
    )
    group = models.CharField(_("mastery of"), max_length=8, choices=Group.choices)
    period = models.ForeignKey(
        "content.Period",
        verbose_name=_("period"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    theme = models.ForeignKey(
        "content.Theme",
        verbose_name=_("theme"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    label = models.CharField(_("column label"), max_length=200)
    lineitem_url = models.URLField(_("line item URL"), max_length=1000)
    active = models.BooleanField(_("kept current"), default=True)
    published = models.DateTimeField(_("published"), auto_now_add=True)

    class Meta:
        verbose_name = _("progress column in the LMS")
        verbose_name_plural = _("progress columns in the LMS")
        ordering = ["group", "label", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(group="period", period__isnull=False, theme__isnull=True)
                    | models.Q(group="theme", theme__isnull=False, period__isnull=True)
                ),
                name="lti_progress_column_one_group",
            ),
            models.UniqueConstraint(
                fields=["class_link", "period"],
                condition=models.Q(period__isnull=False),
                name="lti_progress_column_period_once",
            ),
            models.UniqueConstraint(
                fields=["class_link", "theme"],
                condition=models.Q(theme__isnull=False),
                name="lti_progress_column_theme_once",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def group_id(self) -> int:
        return int(self.period_id or self.theme_id or 0)

    @property
    def resource_id(self) -> str:
        """The line item's ``resourceId``: finds it again on the LMS (a publish that was retried)."""
        return f"talia-progress-{self.class_link_id}-{self.group}-{self.group_id}"


class OutboxScore(models.Model):
    """A score waiting for (or delivered to) an LMS gradebook column.

    Either a counted grade for an activity's line item (``link``; written in the
    transaction that changed the grade, ``lms.lti.outbox.score_enqueue``), or a student's
    mastery for a progress column (``column``; ``lms.lti.outbox.progress_score_enqueue``).
    Both are delivered by ``lms.lti.tasks.score_deliver``. ``key`` makes a row unique per
    activity link, counted attempt and score: one attempt never reaches the LMS with two
    scores, and a repeated call adds nothing.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        DELIVERED = "delivered", _("Accepted by the LMS")
        FAILED = "failed", _("Not accepted; resend it")
        SUPERSEDED = "superseded", _("Replaced by a newer score")
        WITHDRAWN = "withdrawn", _("Not sent: the progress column was unpublished")

    key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    link = models.ForeignKey(
        AssignmentLink,
        verbose_name=_("LMS activity"),
        on_delete=models.CASCADE,
        related_name="scores",
        null=True,
        blank=True,
    )
    column = models.ForeignKey(
        ProgressColumn,
        verbose_name=_("progress column"),
        on_delete=models.CASCADE,
        related_name="scores",
        null=True,
        blank=True,
    )
    lti_user = models.ForeignKey(
        LtiUser, verbose_name=_("LMS user"), on_delete=models.CASCADE, related_name="+"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("student"), on_delete=models.CASCADE, related_name="+"
    )
    grade = models.ForeignKey(
        "lms.Grade",
        verbose_name=_("grade"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    submission = models.ForeignKey(
        "lms.Submission",
        verbose_name=_("counted attempt"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    score_given = models.DecimalField(_("score"), max_digits=7, decimal_places=2)
    score_maximum = models.DecimalField(_("out of"), max_digits=7, decimal_places=2)
    timestamp = models.DateTimeField(_("graded at"))
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(_("delivery attempts"), default=0)
    last_error = models.CharField(_("last error"), max_length=500, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-timestamp", "-pk"]
        verbose_name = _("score sent to the LMS")
        verbose_name_plural = _("scores sent to the LMS")
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="lti_outbox_due")]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(link__isnull=False, column__isnull=True)
                    | models.Q(link__isnull=True, column__isnull=False)
                ),
                name="lti_outbox_one_target",
            )
        ]

    def __str__(self) -> str:
        return f"{self.student}: {self.score_given}/{self.score_maximum} ({self.get_status_display()})"

    @property
    def lineitem_url(self) -> str:
        return self.link.lineitem_url if self.link_id else self.column.lineitem_url  # type: ignore[union-attr]

    @property
    def school_class(self) -> Any:
        if self.link_id:
            return self.link.assignment.school_class  # type: ignore[union-attr]
        return self.column.class_link.school_class  # type: ignore[union-attr]

    @property
    def context(self) -> LtiContext:
        if self.link_id:
            return self.link.resource_link.context  # type: ignore[union-attr]
        return self.column.class_link.context  # type: ignore[union-attr]


class DynamicRegistration(models.Model):
    """A record of an LTI Dynamic Registration: which platform asked, and what it answered."""

    registration = models.OneToOneField(
        LtiRegistration, verbose_name=_("platform"), on_delete=models.CASCADE, related_name="dynamic"
    )
    openid_configuration_url = models.URLField(_("platform configuration URL"), max_length=1000)
    product_family_code = models.CharField(_("LMS product"), max_length=100, blank=True)
    created = models.DateTimeField(_("registered"), auto_now_add=True)

    class Meta:
        verbose_name = _("dynamic registration")
        verbose_name_plural = _("dynamic registrations")

    def __str__(self) -> str:
        return str(self.registration)
