"""Roster sync from the LMS (LTI NRPS 2.0): every member of the course, launched or not."""

from __future__ import annotations

from django.utils.translation import gettext as _

from . import connector
from .models import ClassLink
from .services import roster_apply


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
    return roster_apply(link=link, members=members)
