"""Roster sync from the LMS (LTI NRPS 2.0): every member of the course, launched or not."""

from __future__ import annotations

import logging

from django.utils.translation import gettext as _

from lms.models import SchoolClass

from . import connector, services
from .models import ClassLink

log = logging.getLogger(__name__)


def roster_sync(*, link_id: int) -> int:
    """Read the course's members from the LMS and add them to the class. Returns how many."""
    link = ClassLink.objects.select_related("context__deployment__registration", "school_class").get(
        pk=link_id
    )
    url = link.context.memberships_url
    if not url:
        ClassLink.objects.filter(pk=link.pk).update(
            roster_error=_("The LMS offers no roster for this course.")
        )
        return 0
    try:
        members = connector.members_get(link.context.deployment.registration, url)
    except connector.ServiceError as error:
        ClassLink.objects.filter(pk=link.pk).update(roster_error=str(error)[:500])
        raise
    return services.roster_apply(link=link, members=members)


def class_roster_sync(*, school_class: SchoolClass) -> tuple[int, bool]:
    """Read the roster of every LMS course linked to ``school_class`` now (the teacher's button).

    Returns how many members were read and whether any LMS failed to send its roster; a
    failing course is logged and the others are still read.
    """
    total = 0
    failed = False
    for link in ClassLink.objects.filter(school_class=school_class):
        try:
            total += roster_sync(link_id=link.pk)
        except Exception:  # noqa: BLE001 - shown to the teacher, logged
            log.exception("roster sync failed for class link %s", link.pk)
            failed = True
    return total, failed
