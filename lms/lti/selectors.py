"""Reads for the LTI pages, each scoped to the person asking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import caches
from django.db.models import Q
from lti_tool.models import LtiMembership, LtiRegistration

from lms.models import Grade, SchoolClass

from .models import ClassLink, OutboxScore


def _origin(url: str) -> str | None:
    parts = urlsplit(url or "")
    if parts.scheme in ("https", "http") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return None


def registration_origins(registration: LtiRegistration) -> list[str]:
    """The web origins an LMS shows Talia from: its issuer's and its login page's."""
    found = {_origin(registration.issuer), _origin(registration.auth_url)}
    return sorted(o for o in found if o)


PLATFORM_ORIGINS_KEY = "lti:platform-origins"
PLATFORM_ORIGINS_TTL = 5 * 60  # also forgotten at once when a registration is saved or deleted


def platform_origins() -> list[str]:
    """Every active platform's origins: the frame-ancestors of the LTI pages.

    Read on every LTI page, so kept in the LTI cache; ``apps.LtiConfig.ready`` forgets it
    whenever a registration is saved or deleted.
    """
    cache = caches[settings.LTI_CACHE]
    cached = cache.get(PLATFORM_ORIGINS_KEY)
    if isinstance(cached, list):
        return cached
    found: set[str] = set()
    for registration in LtiRegistration.objects.active().only("issuer", "auth_url"):
        found.update(registration_origins(registration))
    origins = sorted(found)
    cache.set(PLATFORM_ORIGINS_KEY, origins, PLATFORM_ORIGINS_TTL)
    return origins


def platform_origins_forget(**_kwargs: Any) -> None:
    caches[settings.LTI_CACHE].delete(PLATFORM_ORIGINS_KEY)


@dataclass
class RosterRow:
    name: str
    email: str
    role: str
    active: bool
    launched: bool
    user: Any
    grades: int


@dataclass
class Roster:
    links: list[ClassLink]
    rows: list[RosterRow]

    @property
    def students(self) -> list[RosterRow]:
        return [r for r in self.rows if r.role == "student"]


def class_roster(school_class: SchoolClass) -> Roster:
    """The class as the LMS lists it: every member of the linked courses, launched or not."""
    links = list(
        ClassLink.objects.filter(school_class=school_class).select_related(
            "context__deployment__registration"
        )
    )
    memberships = (
        LtiMembership.objects.filter(context__talia_link__school_class=school_class)
        .select_related("user__auth_user")
        .order_by("user__family_name", "user__given_name", "user__name", "user__sub")
    )
    graded: dict[int, int] = {}
    for student_id in Grade.objects.filter(assignment__school_class=school_class).values_list(
        "student_id", flat=True
    ):
        graded[student_id] = graded.get(student_id, 0) + 1
    rows: list[RosterRow] = []
    seen: set[int] = set()
    for membership in memberships:
        lti_user = membership.user
        if lti_user.pk in seen:
            continue
        seen.add(lti_user.pk)
        auth_user = lti_user.auth_user
        name = (
            lti_user.name
            or " ".join(p for p in (lti_user.given_name, lti_user.family_name) if p)
            or lti_user.sub
        )
        rows.append(
            RosterRow(
                name=name,
                email=lti_user.email,
                role="teacher" if (membership.is_instructor or membership.is_administrator) else "student",
                active=membership.is_active,
                launched=bool(auth_user and auth_user.last_login),
                user=auth_user,
                grades=graded.get(auth_user.pk, 0) if auth_user else 0,
            )
        )
    return Roster(links=links, rows=rows)


def class_scores(school_class: SchoolClass) -> list[OutboxScore]:
    """Every score sent (or waiting) for the class's LMS activities, newest first."""
    return list(
        OutboxScore.objects.filter(
            Q(link__assignment__school_class=school_class) | Q(column__class_link__school_class=school_class)
        )
        .select_related("student", "link__assignment", "link__resource_link", "column")
        .order_by("-created", "-pk")[:500]
    )
