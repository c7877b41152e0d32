"""Whose eyes each participant sees the game through (games/selectors.py)."""

from types import SimpleNamespace

from games.models import Participant
from games.selectors import viewer_for


def test_facilitator_sees_the_engines_facilitator_view_where_it_has_one():
    facilitator = Participant(role=Participant.Role.FACILITATOR, player_id="")
    assert viewer_for(SimpleNamespace(FACILITATOR="facilitator"), facilitator) == "facilitator"
    assert viewer_for(SimpleNamespace(), facilitator) is None


def test_player_sees_own_view_and_spectator_the_table():
    player = Participant(role=Participant.Role.PLAYER, player_id="p2")
    spectator = Participant(role=Participant.Role.SPECTATOR, player_id="")
    engine = SimpleNamespace(FACILITATOR="facilitator")
    assert viewer_for(engine, player) == "p2"
    assert viewer_for(engine, spectator) is None
