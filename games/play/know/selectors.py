"""Reads for Know in class: the projector's payload (the public view) and who may see what."""

from __future__ import annotations

from typing import Any

from content.permissions import runs_for
from games.engines import know
from games.models import GameSession, Participant


def know_public_payload(*, session: GameSession) -> dict[str, Any]:
    """What the projector shows: the engine's spectator view (``player_view(state, None)``).

    No nicknames, player ids or Team ID mapping: the view has only what every team may see
    (phase, revealed decks without Team IDs, the score record by Team ID).
    """
    view = None
    if session.state is not None:
        view = know.player_view(know.state_from_dict(session.state), None)
    return {
        "version": session.version,
        "status": session.status,
        "game": session.game,
        "variant": session.variant,
        "you": {"nickname": "", "player": None, "role": "projector"},
        "participants": [],
        "players_joined": session.participants.filter(role=Participant.Role.PLAYER).count(),
        "view": view,
        "class": None,
        "follow": None,
        "practice": None,
    }


def know_facilitator_of(*, session: GameSession, user: Any) -> bool:
    """Whether ``user`` runs ``session``: its facilitator, or a co-teacher of the facilitator's classes."""
    return runs_for(user, session.facilitator_id)


def know_log_downloadable(*, session: GameSession, participant: Participant | None) -> bool:
    """A Know log says which player chose which Team ID and wrote which answer
    (``docs/replay.md``, Know): only the facilitator of a game set up to show the Team-ID
    mapping may download it, once the game is over."""
    return (
        participant is not None
        and participant.role == Participant.Role.FACILITATOR
        and session.status == GameSession.Status.FINISHED
        and bool((session.setup or {}).get("facilitator_sees_mapping"))
    )
