"""Read-only queries about game sessions, and what each participant may see of one.

Everything a participant receives about a game, over HTTP or WebSocket, is built by
:func:`session_payload`: the engine's ``player_view`` for that participant's player
(spectators see ``player_view(state, None)``, the facilitator the engine's facilitator
view where it has one, see :func:`viewer_for`), never the
raw state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import QuerySet

from games.engines import engine_for

from .models import GameSession, Participant

#: Where a guest's tokens live in the guest's Django session: {session id: token}.
GUEST_TOKENS_KEY = "games.guest_tokens"


def session_by_code(code: str) -> GameSession | None:
    """The open session with join ``code`` (already normalised), if any."""
    return GameSession.objects.exclude(status=GameSession.Status.FINISHED).filter(join_code=code).first()


def participant_for(
    *, session_id: int, user: Any, guest_tokens: Mapping[str, str] | None
) -> Participant | None:
    """Who this visitor is in the session: by account if signed in, else by guest token."""
    queryset = Participant.objects.select_related("session").filter(session_id=session_id)
    if user is not None and getattr(user, "is_authenticated", False):
        found = queryset.filter(user=user).first()
        if found is not None:
            return found
    token = (guest_tokens or {}).get(str(session_id))
    if not isinstance(token, str) or not token:
        return None
    return queryset.filter(user__isnull=True, token=token).first()


def session_participants(session: GameSession) -> QuerySet[Participant]:
    return session.participants.order_by("joined_at", "id")


def viewer_for(engine: Any, participant: Participant) -> str | None:
    """Whose eyes the engine looks through: a player's own; the facilitator's where the
    engine has a facilitator role (Activity, Know: ``engine.FACILITATOR``); else the table."""
    if participant.role == Participant.Role.FACILITATOR:
        return getattr(engine, "FACILITATOR", None)
    return participant.engine_player


def session_payload(*, session: GameSession, participant: Participant) -> dict[str, Any]:
    """The session as ``participant`` may see it: version, status, people, own view."""
    view = None
    if session.state is not None:
        engine = engine_for(session.game)
        view = engine.player_view(engine.state_from_dict(session.state), viewer_for(engine, participant))
    return {
        "version": session.version,
        "status": session.status,
        "game": session.game,
        "variant": session.variant,
        "you": {
            "nickname": participant.nickname,
            "player": participant.engine_player,
            "role": participant.role,
        },
        "participants": [
            {"nickname": other.nickname, "player": other.engine_player, "role": other.role}
            for other in session_participants(session)
        ],
        "view": view,
    }


def sessions_facilitated_by(user: Any) -> QuerySet[GameSession]:
    return GameSession.objects.filter(facilitator=user).order_by("-created")


def can_download_log(*, session: GameSession, participant: Participant | None) -> bool:
    """Only a finished game's log, and only to the people who were in it."""
    return participant is not None and session.status == GameSession.Status.FINISHED
