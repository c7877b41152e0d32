"""Read-only queries about workshops, and what each person may see of one.

Everything a page shows or polls is built here:

- :func:`student_payload`: the player's own auxiliary card in full (picture, name,
  description, outline, periods), and of everyone else only what the room shows: the
  groups with their members' nicknames, the symbol names on their cards and the key;
  the players without a group with their symbol names (to find one); the leader's
  suggestions to everyone and to the player's own group.
- :func:`teacher_payload`: all of it, with the key each card was dealt for.

Nothing from another workshop ever enters either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from content.permissions import teaching_rows

from .models import Group, Workshop, WorkshopParticipant

#: Where a guest's tokens live in the guest's Django session: {workshop id: token}.
GUEST_TOKENS_KEY = "workshop.guest_tokens"


def workshop_by_code(code: str) -> Workshop | None:
    """The open workshop with join ``code`` (already normalised), if any."""
    return Workshop.objects.exclude(status=Workshop.Status.CLOSED).filter(join_code=code).first()


def participant_for(
    *, workshop_id: int, user: Any, guest_tokens: Mapping[str, str] | None
) -> WorkshopParticipant | None:
    """Who this visitor is in the workshop: by account if signed in, else by guest token."""
    queryset = WorkshopParticipant.objects.select_related("workshop").filter(workshop_id=workshop_id)
    if user is not None and getattr(user, "is_authenticated", False):
        found = queryset.filter(user=user).first()
        if found is not None:
            return found
    token = (guest_tokens or {}).get(str(workshop_id))
    if not isinstance(token, str) or not token:
        return None
    return queryset.filter(user__isnull=True, token=token).first()


def workshops_led_by(user: Any) -> QuerySet[Workshop]:
    """The workshops ``user`` leads, and those of the owners of classes they co-teach."""
    return teaching_rows(user, Workshop.objects.all(), owner_field="teacher").order_by("-created")


def picture_url(workshop: Workshop, participant: WorkshopParticipant) -> str:
    return reverse("workshop:picture", args=[workshop.pk, participant.pk])


def _participants(workshop: Workshop) -> list[WorkshopParticipant]:
    return list(
        workshop.participants.select_related("symbol")
        .prefetch_related("symbol__periods")
        .order_by("joined_at", "id")
    )


def _card(workshop: Workshop, participant: WorkshopParticipant) -> dict[str, Any] | None:
    """The auxiliary card's back, as printed, and its picture."""
    symbol = participant.symbol
    if symbol is None:
        return None
    return {
        "name": symbol.name,
        "code": symbol.code,
        "description": symbol.description,
        "outline": symbol.outline,
        "periods": [
            {"name": period.name, "years": period.years, "colour": period.colour}
            for period in symbol.periods.all()
        ],
        "portal_url": symbol.portal_url,
        "picture": picture_url(workshop, participant),
    }


def _common(workshop: Workshop) -> dict[str, Any]:
    return {
        "version": workshop.version,
        "status": workshop.status,
        "status_label": str(workshop.get_status_display()),
        "title": workshop.title,
        "join_code": workshop.join_code,
    }


def student_payload(*, workshop: Workshop, participant: WorkshopParticipant) -> dict[str, Any]:
    """The workshop as ``participant`` may see it."""
    people = _participants(workshop)
    me = next((p for p in people if p.pk == participant.pk), participant)
    groups = list(workshop.groups.prefetch_related("suggestions").order_by("number"))
    members: dict[int, list[dict[str, Any]]] = {group.pk: [] for group in groups}
    without_group = []
    for person in people:
        entry = {
            "nickname": person.nickname,
            "symbol": person.symbol.name if person.symbol else None,
            "you": person.pk == me.pk,
        }
        if person.group_id in members:
            members[person.group_id].append(entry)
        else:
            without_group.append(entry)
    return {
        **_common(workshop),
        "you": {"nickname": me.nickname, "group": me.group_id, "card": _card(workshop, me)},
        "groups": [
            {
                "id": group.pk,
                "label": group.label,
                "key": group.key,
                "members": members[group.pk],
                "yours": group.pk == me.group_id,
                # A group's suggestions are for that group only.
                "suggestions": ([s.text for s in group.suggestions.all()] if group.pk == me.group_id else []),
            }
            for group in groups
        ],
        "without_group": without_group,
        "suggestions": list(workshop.suggestions.filter(group__isnull=True).values_list("text", flat=True)),
        "participant_count": len(people),
    }


def teacher_payload(*, workshop: Workshop) -> dict[str, Any]:
    """Everything, for the leader's projector page."""
    people = _participants(workshop)
    groups: list[Group] = list(workshop.groups.prefetch_related("suggestions").order_by("number"))
    labels = {group.pk: group.label for group in groups}

    def person(p: WorkshopParticipant) -> dict[str, Any]:
        return {
            "id": p.pk,
            "nickname": p.nickname,
            "guest": p.user_id is None,
            "symbol": p.symbol.name if p.symbol else None,
            "code": p.symbol.code if p.symbol else None,
            "dealt_for": p.dealt_for,
            "picture": picture_url(workshop, p) if p.symbol else None,
            "group": labels.get(p.group_id) if p.group_id else None,
        }

    return {
        **_common(workshop),
        "deal_mode": workshop.deal_mode,
        "participants": [person(p) for p in people],
        "groups": [
            {
                "id": group.pk,
                "label": group.label,
                "key": group.key,
                "members": [person(p) for p in people if p.group_id == group.pk],
                "suggestions": [s.text for s in group.suggestions.all()],
            }
            for group in groups
        ],
        "without_group": [person(p) for p in people if p.group_id is None],
        "suggestions": list(workshop.suggestions.filter(group__isnull=True).values_list("text", flat=True)),
        "counts": {
            "participants": len(people),
            "waiting_for_card": sum(1 for p in people if p.symbol_id is None),
            "in_groups": sum(1 for p in people if p.group_id is not None),
        },
    }
