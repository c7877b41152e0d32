"""The game for 3 players seats the first three who join: "Each player takes a piece and
plays alone". Whoever joins beyond them watches, and never sees a term."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from content.models import ActivityCard
from games import services
from games.engines import activity
from games.models import Participant
from games.play.activity import services as activity_services
from tests.factories import UserFactory

from .activity_helpers import make_cards, signed_in, term_in_play

pytestmark = pytest.mark.django_db


def test_the_game_for_3_players_seats_the_first_three_who_join_and_the_fourth_watches(teacher: Any) -> None:
    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="three_players",
        team_names=[],
        timer=60,
    )
    joined = [services.session_join(session=session, user=UserFactory()) for _k in range(4)]
    session = services.session_start(session=session, by=teacher)
    state = activity.state_from_dict(session.state)
    seated = [p.id for team in state.teams for p in team.players]
    assert sorted(seated) == sorted(p.player_id for p in joined[:3])
    fourth = Participant.objects.get(pk=joined[3].pk)
    assert fourth.role == Participant.Role.SPECTATOR and fourth.player_id == ""
    presenter = state.teams[state.turn].players[0].id
    presenter_client = signed_in(next(p.user for p in joined if p.player_id == presenter))
    response = presenter_client.post(
        reverse("games:activity_act", args=[session.pk]),
        json.dumps({"type": "draw"}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    session.refresh_from_db()
    term = term_in_play(activity.state_from_dict(session.state))
    watching = signed_in(fourth.user).get(reverse("games:session_view", args=[session.pk])).json()
    assert watching["you"]["role"] == "spectator"
    assert term not in json.dumps(watching, ensure_ascii=False)


def test_the_team_game_still_refuses_a_team_too_small_with_the_reason(teacher: Any) -> None:
    """Setup: "Every team has at least two players" (the seat limit is the 3-player game's only)."""
    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="teams",
        team_names=["A", "B"],
        timer=60,
    )
    for _k in range(3):
        services.session_join(session=session, user=UserFactory())
    with pytest.raises(services.SessionError, match="at least two players"):
        services.session_start(session=session, by=teacher)
