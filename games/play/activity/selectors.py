"""Reads for Activity in class: the teams of the lobby as each participant may see them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engines import activity
from games.models import GameSession, Participant


def activity_lobby(*, session: GameSession, participant: Participant) -> dict[str, Any]:
    """The lobby's teams: who chose (or was put in) which team, and who has not chosen yet.

    Only nicknames and team names: nothing of the cards. Players who have not chosen are
    seated by the start (the smallest team first).
    """
    setup = session.setup or {}
    names = list(setup.get("team_names") or [])
    seating = dict(setup.get("seating") or {})
    players = list(
        session.participants.filter(role=Participant.Role.PLAYER)
        .exclude(player_id="")
        .order_by("joined_at", "id")
    )
    teams = [{"id": f"t{k + 1}", "name": name, "players": []} for k, name in enumerate(names)]
    by_id = {team["id"]: team for team in teams}
    unseated: list[dict[str, str]] = []
    for player in players:
        entry = {"player": player.player_id, "nickname": player.nickname}
        team = by_id.get(seating.get(player.player_id, ""))
        (team["players"] if team is not None else unseated).append(entry)
    facilitating = participant.role == Participant.Role.FACILITATOR
    return {
        "status": session.status,
        "variant": session.variant,
        "teams": teams,
        "unseated": unseated,
        "players": len(players),
        "you": participant.engine_player,
        "your_team": seating.get(participant.engine_player or ""),
        "facilitating": facilitating,
        "hint": _lobby_hint(session.variant, len(players), len(teams)),
    }


def _lobby_hint(variant: str, players: int, teams: int) -> str:
    """What the start needs, said before the teacher presses Start."""
    if variant == "three_players":
        seats = activity.SEATS[variant]
        if players < seats:
            return _("The game for 3 players needs three players; %(n)d have joined.") % {"n": players}
        if players > seats:
            return _("%(n)d have joined: the first three who joined play, the others watch.") % {"n": players}
        return ""
    need = 2 * teams
    if players < need:
        return _("%(teams)d teams of at least two players need %(need)d players; %(n)d have joined.") % {
            "teams": teams,
            "need": need,
            "n": players,
        }
    return ""


def activity_deck_warning(*, session: GameSession) -> str:
    """What to tell the teacher when the game's stack cannot last to a final task, or "".

    Every turn puts a card aside, and an empty stack ends the game ("The cards ran out");
    a short term list gives few cards, so the teacher hears it before the game starts.
    """
    setup = session.setup or {}
    cards = len(setup.get("cards") or ())
    players = len(setup.get("team_names") or ()) if session.variant == "teams" else 3
    needed = activity.cards_needed(players, int(setup.get("reduce_points_by") or 0))
    if cards >= needed:
        return ""
    return ngettext(
        "These cards give only %(n)d turn: every turn puts a card aside and the game ends when "
        "they run out. To reach the final task, %(players)d teams need at least %(needed)d cards "
        "(more when terms are not guessed). Add cards: other tags, or a longer term list.",
        "These cards give only %(n)d turns: every turn puts a card aside and the game ends when "
        "they run out. To reach the final task, %(players)d teams need at least %(needed)d cards "
        "(more when terms are not guessed). Add cards: other tags, or a longer term list.",
        cards,
    ) % {"n": cards, "players": players, "needed": needed}
