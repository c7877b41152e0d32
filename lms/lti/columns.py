"""Progress columns: a class's mastery per period or theme, 0–100, in the LMS gradebook.

A teacher publishes a column (``progress_columns_publish``); Talia creates an AGS line item
in each linked course (AGS 2.0 §3.2: ``label``, ``scoreMaximum`` 100, ``resourceId`` and
``tag`` ``talia-progress``) and sends every student's mastery of it through the score
outbox (``outbox.progress_score_enqueue``, delivered by ``tasks.score_deliver`` like any
score, with the same status on the teacher's scores page).

Keeping them current: every answer stored by ``lms.progress`` sends
``memory_reviewed``; once the answer is committed, ``progress_refresh_queue`` queues one
``tasks.progress_refresh`` for the student, LTI_PROGRESS_DELAY seconds later, unless one is
already waiting (a quiz of twenty answers makes one refresh). The refresh sends only the
values that changed. Mastery also fades without answers (it is tomorrow's chance of
recall), so ``tasks.progress_columns_sweep`` refreshes every published column from beat.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.utils.translation import gettext as _
from lti_tool.models import LtiUser

from content.models import Period, Theme
from lms.classes.errors import ClassError
from lms.classes.services import is_class_teacher
from lms.models import ClassMember, SchoolClass
from lms.progress.selectors import students_group_mastery

from . import connector, outbox, tasks
from .models import ClassLink, OutboxScore, ProgressColumn

TAG = "talia-progress"
REFRESH_KEY = "lti:progress-refresh:{user}"


@dataclass(frozen=True)
class ColumnChoice:
    """A period or theme the teacher may publish, and its column if it has one."""

    group: str
    pk: int
    label: str
    column: ProgressColumn | None

    @property
    def key(self) -> str:
        return f"{self.group}:{self.pk}"

    @property
    def published(self) -> bool:
        return self.column is not None and self.column.active


def column_label(subject: Period | Theme) -> str:
    """The gradebook column's title: "Mastery: II RP (1918–1939)", "Mastery: People"."""
    return _("Mastery: %(name)s") % {"name": str(subject)}


def class_links_with_ags(school_class: SchoolClass) -> list[ClassLink]:
    """The class's LMS courses that take new gradebook columns from Talia now.

    A course qualifies when its launches offered the line items container and the score
    scope, and its platform and deployment are switched on in Talia.
    """
    return list(
        ClassLink.objects.filter(
            school_class=school_class,
            context__can_publish_scores=True,
            context__deployment__is_active=True,
            context__deployment__registration__is_active=True,
        )
        .exclude(context__lineitems_url="")
        .select_related("context__deployment__registration")
        .order_by("pk")
    )


def column_choices(school_class: SchoolClass) -> list[ColumnChoice]:
    """Every period and theme, with the class's column for each (for the publish form)."""
    columns = {
        (column.group, column.group_id): column
        for column in ProgressColumn.objects.filter(class_link__school_class=school_class).order_by("pk")
    }
    found = [
        ColumnChoice("period", period.pk, column_label(period), columns.get(("period", period.pk)))
        for period in Period.objects.all()
    ]
    found += [
        ColumnChoice("theme", theme.pk, column_label(theme), columns.get(("theme", theme.pk)))
        for theme in Theme.objects.all()
    ]
    return found


def _subjects(keys: Iterable[str]) -> list[Period | Theme]:
    """The periods and themes named ``period:<pk>`` / ``theme:<pk>``; refused if any is unknown."""
    wanted: dict[str, set[int]] = {"period": set(), "theme": set()}
    for key in keys:
        group, _sep, pk = key.partition(":")
        if group not in wanted or not (pk.isascii() and pk.isdigit()):
            raise ClassError("invalid_column", _("Choose periods and themes from the list."))
        wanted[group].add(int(pk))
    periods = list(Period.objects.filter(pk__in=wanted["period"]))
    themes = list(Theme.objects.filter(pk__in=wanted["theme"]))
    if len(periods) != len(wanted["period"]) or len(themes) != len(wanted["theme"]):
        raise ClassError("invalid_column", _("Choose periods and themes from the list."))
    return [*periods, *themes]


def progress_columns_publish(
    *, school_class: SchoolClass, by: Any, keys: Iterable[str]
) -> list[ProgressColumn]:
    """Publish the chosen periods and themes (``period:<pk>``, ``theme:<pk>``) as columns.

    The line items are made on the LMS first, with no transaction open while it answers;
    Talia's rows are written only when every line item exists, so a refusal writes
    nothing here. A publish that is repeated (or that failed half-way on the LMS) finds
    the line items it made by their ``resourceId`` instead of making them twice. A column
    published before and unpublished is switched on again, with its line item.
    """
    if not is_class_teacher(school_class, by):
        raise ClassError("not_found", _("There is no such class."))
    subjects = _subjects(keys)
    if not subjects:
        raise ClassError("no_columns", _("Choose at least one period or theme."))
    links = class_links_with_ags(school_class)
    if not links:
        raise ClassError(
            "no_gradebook",
            _(
                "This class is not linked to an LMS course whose gradebook takes columns from Talia. "
                "Open Talia from the course in your LMS (as its teacher), then publish again."
            ),
        )
    planned: list[tuple[ClassLink, Period | Theme, str]] = []
    for link in links:
        registration = link.context.deployment.registration
        for subject in subjects:
            group = "period" if isinstance(subject, Period) else "theme"
            column = ProgressColumn.objects.filter(class_link=link, **{group: subject}).first()
            if column is not None:
                planned.append((link, subject, column.lineitem_url))
                continue
            resource_id = ProgressColumn(class_link=link, group=group, **{group: subject}).resource_id
            try:
                found = connector.lineitems_find(
                    registration, link.context.lineitems_url, resource_id=resource_id
                )
                item = (
                    found[0]
                    if found
                    else connector.lineitem_create(
                        registration,
                        link.context.lineitems_url,
                        {
                            "label": column_label(subject),
                            "scoreMaximum": 100,
                            "resourceId": resource_id,
                            "tag": TAG,
                        },
                    )
                )
            except connector.ServiceError as error:
                raise ClassError(
                    "lms_refused",
                    _(
                        "The LMS did not make the gradebook column (%(error)s). "
                        "Nothing was published; try again later."
                    )
                    % {"error": str(error)[:200]},
                ) from error
            planned.append((link, subject, str(item["id"])))
    published: list[ProgressColumn] = []
    with transaction.atomic():
        # One publish at a time per class: the unique columns are written in order.
        list(ClassLink.objects.select_for_update().filter(pk__in=[link.pk for link in links]))
        for link, subject, lineitem_url in planned:
            group = "period" if isinstance(subject, Period) else "theme"
            column, _created = ProgressColumn.objects.update_or_create(
                class_link=link,
                **{group: subject},
                defaults={
                    "group": group,
                    "label": column_label(subject)[:200],
                    "lineitem_url": lineitem_url,
                    "active": True,
                },
            )
            published.append(column)
        progress_scores_refresh(columns=published)
    return published


@transaction.atomic
def progress_column_unpublish(*, column_id: int, by: Any) -> ProgressColumn:
    """Stop sending a column: its waiting scores are withdrawn; the LMS keeps the column."""
    column = (
        ProgressColumn.objects.select_for_update(of=("self",))
        .select_related("class_link__school_class")
        .filter(pk=column_id)
        .first()
    )
    if column is None or not is_class_teacher(column.class_link.school_class, by):
        raise ClassError("not_found", _("There is no such progress column."))
    if column.active:
        column.active = False
        column.save(update_fields=["active"])
    OutboxScore.objects.filter(column=column, status=OutboxScore.Status.PENDING).update(
        status=OutboxScore.Status.WITHDRAWN, next_attempt_at=None
    )
    return column


@transaction.atomic
def progress_scores_refresh(
    *, columns: Iterable[ProgressColumn] | None = None, student_ids: Iterable[int] | None = None
) -> int:
    """Queue every changed mastery for published columns; returns how many scores changed.

    ``columns``: these columns (all published ones when None). ``student_ids``: only these
    students (every student of each column's class when None). A student who has met no
    symbol of the period or theme gets no score ("not yet seen" is not 0), and a student
    the LMS does not know (never launched, not on the roster) is left out.
    """
    query = ProgressColumn.objects.filter(active=True).select_related("class_link__context__deployment")
    if columns is not None:
        query = query.filter(pk__in=[column.pk for column in columns])
    students = None if student_ids is None else set(student_ids)
    if students is not None:
        query = query.filter(
            class_link__school_class__members__user_id__in=students,
            class_link__school_class__members__role=ClassMember.Role.STUDENT,
        ).distinct()
    by_link: dict[int, list[ProgressColumn]] = {}
    for column in query:
        by_link.setdefault(column.class_link_id, []).append(column)
    changed = 0
    for link_columns in by_link.values():
        link = link_columns[0].class_link
        members = ClassMember.objects.filter(
            school_class_id=link.school_class_id, role=ClassMember.Role.STUDENT
        ).values_list("user_id", flat=True)
        wanted = [pk for pk in members if students is None or pk in students]
        lti_users = {
            lti_user.auth_user_id: lti_user
            for lti_user in LtiUser.objects.filter(
                registration_id=link.context.deployment.registration_id, auth_user_id__in=wanted
            )
        }
        values = students_group_mastery(
            list(lti_users),
            periods=[c.period_id for c in link_columns if c.period_id],
            themes=[c.theme_id for c in link_columns if c.theme_id],
        )
        for student_id, lti_user in lti_users.items():
            for column in link_columns:
                value = values[student_id].get((column.group, column.group_id))
                if value is not None and outbox.progress_score_enqueue(
                    column=column, lti_user=lti_user, student_id=student_id, value=value
                ):
                    changed += 1
    return changed


def progress_refresh_queue(*, user_id: int) -> bool:
    """Refresh the student's columns soon, once: True if a refresh was queued now.

    The cache key stands for the refresh waiting to run; the task forgets it as it starts,
    so an answer stored while the refresh runs queues the next one.
    """
    if not ProgressColumn.objects.filter(
        active=True,
        class_link__school_class__members__user_id=user_id,
        class_link__school_class__members__role=ClassMember.Role.STUDENT,
    ).exists():
        return False
    delay = settings.LTI_PROGRESS_DELAY
    if not caches[settings.LTI_CACHE].add(REFRESH_KEY.format(user=user_id), 1, timeout=delay + 300):
        return False
    tasks.progress_refresh.apply_async((user_id,), countdown=delay)
    return True


def progress_refresh_forget(*, user_id: int) -> None:
    caches[settings.LTI_CACHE].delete(REFRESH_KEY.format(user=user_id))


def memory_reviewed_receive(sender: Any, *, user: Any, **kwargs: Any) -> None:
    """``lms.progress.signals.memory_reviewed``: refresh the student's columns after the commit."""
    user_id = user.pk
    transaction.on_commit(lambda: progress_refresh_queue(user_id=user_id))
