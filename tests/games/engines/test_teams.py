"""Teams and Team IDs as Know and the live quiz share them (``games.engines.teams``; Know
rulebook, ID: "It can be anything but it must be unique")."""

from __future__ import annotations

import doctest

import pytest

from games.engines import know, quiz_live, teams
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup
from games.engines.teams import team_id_clean, team_id_refuse_clash, teams_parse

TEAMS = [("a", ["p1", "p2"], "Blue Heron"), ("b", ["p3"], None)]


def test_docstring_examples_hold() -> None:
    assert doctest.testmod(teams).failed == 0


def test_both_games_compare_team_ids_with_the_one_shared_rule() -> None:
    assert know.team_key is teams.team_key and quiz_live.team_key is teams.team_key


@pytest.mark.parametrize("text", ["blue heron", "  BLUE   HERON ", "Blue\u00a0Heron"])
def test_id_unique_ignoring_case_and_spacing(text: str) -> None:
    with pytest.raises(IllegalAction, match="^That Team ID is taken; choose another.$"):
        team_id_refuse_clash(team_id_clean(text), own="b", teams=TEAMS, facilitator="facilitator")
    team_id_refuse_clash(team_id_clean(text), own="a", teams=TEAMS, facilitator="facilitator")  # its own


@pytest.mark.parametrize("text", ["Facilitator", "A", "p3", "P1"])
def test_id_a_team_id_is_never_a_name_the_game_uses_for_someone(text: str) -> None:
    with pytest.raises(IllegalAction, match="cannot be used"):
        team_id_refuse_clash(text, own="b", teams=TEAMS, facilitator="facilitator")


@pytest.mark.parametrize(
    ("raw", "match"),
    [(None, "needed"), ("   ", "needed"), ("x" * 33, "at most 32"), ("Owl\u200b", "invisible")],
)
def test_a_team_id_that_is_not_text_one_can_read_is_refused(raw: object, match: str) -> None:
    with pytest.raises(InvalidAction, match=match):
        team_id_clean(raw)


def test_the_live_quiz_refuses_an_invisible_team_id_as_know_does() -> None:
    setup = quiz_live._example_setup()
    state = quiz_live.new_game(setup, seed=1)
    with pytest.raises(InvalidAction, match="invisible"):
        quiz_live.apply_action(state, "p1", {"type": "choose_team_id", "team_id": "Heron\u2060"})


@pytest.mark.parametrize(("least", "words"), [(1, "at least one team"), (2, "at least two teams")])
def test_a_game_asks_for_its_least_number_of_teams(least: int, words: str) -> None:
    with pytest.raises(InvalidSetup, match=words):
        teams_parse([{"id": "a", "players": ["p1"]}][: least - 1], least=least, facilitator="facilitator")
