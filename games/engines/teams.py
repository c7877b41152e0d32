"""Teams and their secret Team IDs, shared by the games played in teams (Know, the live quiz).

Know rulebook, ID (``../shared/rules/know.md``): "Each Team gives themselves a secret Team
ID. It can be anything but it must be unique".  Talia reads "unique" ignoring case and
spacing, and never lets a Team ID be a name the game already uses for someone (the
facilitator, a player's or a team's internal id), so a Team ID reveals no one.  The live
quiz borrows Know's teams as they are.  Pure: the engines call these with plain data.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

from .base import IllegalAction, InvalidAction, InvalidSetup

__all__ = [
    "MAX_TEAM_ID_LENGTH",
    "TeamId",
    "players_parse",
    "team_id_clean",
    "team_id_refuse_clash",
    "team_key",
    "teams_parse",
]

TeamId: TypeAlias = str

MAX_TEAM_ID_LENGTH = 32

_LEAST = {1: "one team", 2: "two teams"}


def team_key(team_id: str) -> str:
    """How Team IDs are compared: ignoring case and spacing.

    >>> team_key(" Blue  heron ") == team_key("blue Heron")
    True
    """
    return " ".join(unicodedata.normalize("NFC", team_id).split()).casefold()


def teams_parse(raw: Any, *, least: int, facilitator: str) -> list[tuple[str, tuple[str, ...]]]:
    """A setup's ``teams`` (``[{"id", "players"}, ...]``, at least ``least`` of them) as
    ``(internal id, player ids)``; ``InvalidSetup`` naming the mistake otherwise.

    >>> teams_parse([{"id": "a", "players": ["p1"]}, {"id": "b", "players": ["p2"]}],
    ...     least=2, facilitator="facilitator")
    [('a', ('p1',)), ('b', ('p2',))]
    """
    if not isinstance(raw, list) or len(raw) < least:
        raise InvalidSetup(f"'teams' must be a list of at least {_LEAST[least]}, each {{'id', 'players'}}.")
    teams: list[tuple[str, tuple[str, ...]]] = []
    seen_players: set[str] = set()
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise InvalidSetup(f"Team {index} needs a non-empty string 'id'.")
        unknown = sorted(set(entry) - {"id", "players"})
        if unknown:
            raise InvalidSetup(f"Team {entry['id']!r}: unknown field(s) {', '.join(unknown)}.")
        players = entry.get("players")
        if not isinstance(players, list) or not players:
            raise InvalidSetup(f"Team {entry['id']!r} needs at least one player in 'players'.")
        for player in players:
            if not isinstance(player, str) or not player:
                raise InvalidSetup(f"Team {entry['id']!r}: player ids must be non-empty strings.")
            if player == facilitator:
                raise InvalidSetup(f"{facilitator!r} is the facilitator, not a player id.")
            if player in seen_players:
                raise InvalidSetup(f"Player {player!r} is listed twice; a player plays in one team.")
            seen_players.add(player)
        teams.append((entry["id"], tuple(players)))
    if len({team_id for team_id, _players in teams}) != len(teams):
        raise InvalidSetup("Team ids must be different.")
    return teams


def players_parse(raw: Any) -> list[str]:
    """The session layer's list of who joined (player ids, or ``{"id", "name"}``) as player
    ids; names are never read.

    >>> players_parse(["p1", {"id": "p2", "name": "Ola"}])
    ['p1', 'p2']
    """
    if not isinstance(raw, list):
        raise InvalidSetup("'players' must be a list of player ids or {'id', 'name'}.")
    players = []
    for entry in raw:
        player = entry.get("id") if isinstance(entry, Mapping) else entry
        if not isinstance(player, str) or not player:
            raise InvalidSetup("Each of 'players' must be a player id or {'id', 'name'} with a string id.")
        players.append(player)
    return players


def team_id_clean(raw: Any) -> TeamId:
    """A chosen Team ID as it is kept (NFC, single spaces); ``InvalidAction`` for no text, too
    long a text or invisible characters.

    >>> team_id_clean("  Blue   Heron ")
    'Blue Heron'
    """
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidAction("A Team ID is needed in 'team_id'.")
    team_id = " ".join(unicodedata.normalize("NFC", raw).split())
    if len(team_id) > MAX_TEAM_ID_LENGTH:
        raise InvalidAction(f"A Team ID has at most {MAX_TEAM_ID_LENGTH} characters.")
    if any(unicodedata.category(char)[0] == "C" for char in team_id):
        raise InvalidAction("A Team ID cannot contain invisible characters.")
    return team_id


def team_id_refuse_clash(
    team_id: TeamId,
    *,
    own: str,
    teams: Iterable[tuple[str, Iterable[str], TeamId | None]],
    facilitator: str,
) -> None:
    """``IllegalAction`` when team ``own`` may not take ``team_id``: it is the facilitator's, a
    player's or a team's id in the game, or another team's Team ID (ignoring case and
    spacing).  ``teams`` are ``(internal id, player ids, Team ID or None)``.  A clash with
    another team's Team ID reads the same whoever holds it, so a refusal never says whose it is.

    >>> team_id_refuse_clash("heron", own="a", teams=[("a", ["p1"], None), ("b", ["p2"], "Heron")],
    ...     facilitator="facilitator")
    Traceback (most recent call last):
    games.engines.base.IllegalAction: That Team ID is taken; choose another.
    """
    teams = list(teams)
    key = team_key(team_id)
    reserved = {facilitator} | {name for team, players, _taken in teams for name in (team, *players)}
    if key in {team_key(name) for name in reserved}:
        raise IllegalAction(
            "That Team ID cannot be used: it is the facilitator's, a player's or a team's id in this game; "
            "choose another."
        )
    if any(team != own and taken is not None and team_key(taken) == key for team, _players, taken in teams):
        raise IllegalAction("That Team ID is taken; choose another.")
