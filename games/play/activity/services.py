"""Writes for Activity in class: a new session from a deck of Activity cards, the teams of the
lobby, and the actions of the table stamped with the server's clock.

Activity rulebook (``../shared/rules/activity.md``), Setup: "Players split into 2, 3 or 4
teams ... Every team has at least two players"; Play: "The representative has about 10
seconds to memorise the term ... Then the card goes face down and the hourglass is turned."
Playing itself goes through ``games.services.session_act`` like every game; this module
only adds the wall clock (``at``) the engine's hourglass reads, so every screen counts
down from the same moment.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from content.activity_terms import activity_cards_for_game
from content.permissions import runs_for
from games import services
from games.engines import activity
from games.engines.base import IllegalAction, InvalidAction
from games.models import GameSession, Participant

#: The hourglass lengths the setup page offers (seconds); the rulebook's is about a minute.
TIMER_RANGE = (15, 300)
#: A game needs cards for many turns; more than this is never played through in a lesson.
MAX_CARDS = 200


def activity_setup(
    *,
    cards: list[dict[str, Any]],
    variant: str,
    team_names: list[str],
    timer: int,
    reduce_points_by: int = 0,
    facilitator_sees_terms: bool = True,
) -> dict[str, Any]:
    """The engine's setup, without players: they join with the code and are seated at the start."""
    if not cards:
        raise services.SessionError(
            "invalid_setup", _("No Activity cards match: choose another language or other tags.")
        )
    if not TIMER_RANGE[0] <= timer <= TIMER_RANGE[1]:
        raise services.SessionError(
            "invalid_setup",
            _("The hourglass runs %(low)d to %(high)d seconds.")
            % {"low": TIMER_RANGE[0], "high": TIMER_RANGE[1]},
        )
    setup: dict[str, Any] = {
        "cards": cards[:MAX_CARDS],
        "timer": timer,
        "facilitator_sees_terms": facilitator_sees_terms,
    }
    if variant == "three_players":
        setup["reduce_points_by"] = reduce_points_by
    else:
        if reduce_points_by:
            raise services.SessionError(
                "invalid_setup", _("“Points minus 2” is a variant of the game for 3 players only.")
            )
        if not 2 <= len(team_names) <= 4:
            raise services.SessionError("invalid_setup", _("Players split into 2, 3 or 4 teams."))
        setup["team_names"] = team_names
        setup["seating"] = {}
    return setup


def activity_session_create(
    *,
    facilitator: Any,
    cards: Any,
    variant: str,
    team_names: list[str],
    timer: int,
    reduce_points_by: int = 0,
    facilitator_sees_terms: bool = True,
    allow_guests: bool = False,
) -> GameSession:
    """An Activity session in the lobby, dealt from ``cards`` (a queryset of ActivityCard).

    The cards are a snapshot (their texts as now), so editing a card later does not change
    the game, and the log replays.
    """
    if variant not in activity.VARIANTS:
        raise services.SessionError("unknown_variant", _("Activity has no such variant."))
    setup = activity_setup(
        cards=activity_cards_for_game(cards),
        variant=variant,
        team_names=team_names,
        timer=timer,
        reduce_points_by=reduce_points_by,
        facilitator_sees_terms=facilitator_sees_terms,
    )
    return services.session_create(
        facilitator=facilitator, game="activity", variant=variant, setup=setup, allow_guests=allow_guests
    )


def activity_seat(*, session: GameSession, by: Participant, player_id: str, team: str | None) -> GameSession:
    """In the lobby, ``player_id`` goes to ``team`` (``None``: no choice, the start seats them).

    A player chooses their own team; the facilitator seats anyone. The choice is kept in
    the setup's ``seating``, which the engine reads when the game starts.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if session.game != "activity" or session.variant != "teams":
            raise services.SessionError("no_teams", _("Only the team game has teams to choose."))
        if session.status != GameSession.Status.LOBBY:
            raise services.SessionError(
                "already_started", _("The teams are fixed once the game has started.")
            )
        facilitating = by.role == Participant.Role.FACILITATOR and by.session_id == session.pk
        if not facilitating and (by.session_id != session.pk or by.player_id != player_id or not player_id):
            raise services.SessionError(
                "not_allowed", _("You choose your own team; the teacher seats the others.")
            )
        if not session.participants.filter(player_id=player_id, role=Participant.Role.PLAYER).exists():
            raise services.SessionError("no_player", _("That player is not in this game."))
        setup = dict(session.setup)
        teams = [f"t{k + 1}" for k in range(len(setup.get("team_names") or []))]
        if team is not None and team not in teams:
            raise services.SessionError("no_team", _("There is no such team in this game."))
        seating = dict(setup.get("seating") or {})
        if team is None:
            seating.pop(player_id, None)
        else:
            seating[player_id] = team
        setup["seating"] = seating
        session.setup = setup
        session.save(update_fields=["setup", "updated"])
        _publish_on_commit(session)
    return session


def activity_shuffle(*, session: GameSession, by: Any) -> GameSession:
    """The facilitator drops every team choice: the start splits the players by the seed."""
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not runs_for(by, session.facilitator_id):
            raise services.SessionError(
                "not_allowed", _("Only the teacher who runs this game changes the teams.")
            )
        if session.status != GameSession.Status.LOBBY:
            raise services.SessionError(
                "already_started", _("The teams are fixed once the game has started.")
            )
        session.setup = {**session.setup, "seating": {}}
        session.save(update_fields=["setup", "updated"])
        _publish_on_commit(session)
    return session


def activity_act(
    *, participant: Participant, action: Any, now: float | None = None
) -> tuple[int, dict[str, Any]]:
    """``participant`` acts, the action stamped with the server's clock (``at``) for the hourglass.

    A clock the browser sent is replaced: only the server's reckoning counts.
    """
    if participant.session.game != "activity":
        raise IllegalAction(_("This is not an Activity game."))
    if isinstance(action, dict):
        action = {**action, "at": round(time.time() if now is None else now, 3)}
    return services.session_act(participant=participant, action=action)


def activity_hourglass_turn(*, participant: Participant, version: int, now: float | None = None) -> bool:
    """Rulebook: "about 10 seconds to memorise the term ... Then ... the hourglass is turned".

    The representative's phone and the facilitator's screen ask for this when the ten
    seconds are over; the server turns the hourglass only if the game is still at
    ``version``, still memorising, and its own clock agrees. ``False``: nothing to do
    (someone else was first, or the representative turned it already).
    """
    if participant.role not in (Participant.Role.FACILITATOR, Participant.Role.PLAYER):
        raise IllegalAction(_("Spectators watch the game; they do not play."))
    now = time.time() if now is None else now
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=participant.session_id)
        if session.game != "activity" or session.status != GameSession.Status.RUNNING:
            return False
        if session.version != version or session.state is None:
            return False
        state = activity.state_from_dict(session.state)
        start = state.hourglass.memorise_from
        if state.phase != activity.MEMORISE or start is None:
            return False
        if now < start + activity.MEMORISE_SECONDS - 0.25:
            raise IllegalAction(_("The representative still has a few seconds to memorise the term."))
        # As the table: the hourglass is turned on time whoever's screen noticed first. The
        # row stays locked by this transaction, so nothing comes between the check and the turn.
        services.session_apply_action(
            session_id=session.pk, player_id=None, action={"type": "start_timer", "at": round(now, 3)}
        )
    return True


def activity_join_late(*, participant: Participant, team: str | None = None) -> Participant:
    """A student who joined after the start (a spectator) joins a team and plays from now on.

    Setup: "Players split into 2, 3 or 4 teams of as equal a size as possible": without
    ``team``, the smallest. They become a player of the session and of the engine in one
    transaction (the engine's ``join_team``, applied as the table so the log replays); the
    game for 3 players has exactly three, so there the refusal says why they watch.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=participant.session_id)
        participant = Participant.objects.select_for_update().get(pk=participant.pk)
        if session.game != "activity" or session.status != GameSession.Status.RUNNING:
            raise services.SessionError("not_running", _("Join a team in the lobby, or once the game runs."))
        if participant.role != Participant.Role.SPECTATOR or participant.player_id:
            raise services.SessionError("already_playing", _("You play in this game already."))
        if session.variant != "teams":
            raise services.SessionError(
                "seats_full",
                _("The game for 3 players is played by exactly three players: you watch this game."),
            )
        taken = set(session.participants.exclude(player_id="").values_list("player_id", flat=True))
        number = len(taken) + 1
        while f"p{number}" in taken:
            number += 1
        player_id = f"p{number}"
        action = {"type": "join_team", "id": player_id, "name": participant.nickname, "team": team}
        try:
            services.session_apply_action(session_id=session.pk, player_id=None, action=action)
        except (IllegalAction, InvalidAction) as error:
            raise services.SessionError(error.code, str(error)) from error
        participant.role, participant.player_id = Participant.Role.PLAYER, player_id
        participant.save(update_fields=["role", "player_id"])
        _publish_on_commit(session)
    return participant


def _publish_on_commit(session: GameSession) -> None:
    """The lobby changed (a team choice): the pages showing it ask again."""
    group, version = session.group_name, session.version
    transaction.on_commit(lambda: services.session_publish(group=group, version=version), robust=True)
