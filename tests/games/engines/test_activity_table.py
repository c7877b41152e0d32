"""Activity engine, the parts the classroom table adds to the rulebook (see the readings in
``games/engines/activity.py``): the hourglass on the wall clock with pause and resume, taking
back the last outcome, and teams chosen in the lobby (Setup: "Players split into 2, 3 or 4
teams ... Every team has at least two players")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engines import activity
from games.engines.activity import (
    TARGET,
    Hourglass,
    apply_action,
    legal_actions,
    new_game,
    player_view,
    state_from_dict,
)
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup

from .test_activity import F, act, assert_refused, at, make_card, positions, start, turn_of

T0 = 1_800_000_000.0


def turned(state: Any, at_: float = T0) -> Any:
    """The facilitator draws at ``at_`` and turns the hourglass 10 s later."""
    state = act(state, F, "draw", at=at_)
    return act(state, F, "start_timer", at=at_ + 10)


# --- the hourglass --------------------------------------------------------------------------


def test_the_draw_records_when_the_representative_starts_memorising() -> None:
    state = act(start(), "p1", "draw", at=T0)
    assert state.phase == "memorise"
    assert player_view(state, "p3")["hourglass"]["memorise_from"] == T0


def test_turning_the_hourglass_records_the_wall_clock_and_the_full_time_on_every_screen() -> None:
    state = turned(start(timer=45))
    views = [player_view(state, who)["hourglass"] for who in (None, F, "p1", "p2", "p3")]
    assert all(
        v == {"memorise_from": None, "started_at": T0 + 10, "left": 45.0, "paused": False, "word": 0}
        for v in views
    )
    assert state.hourglass.remaining(T0 + 30) == 25.0
    assert state.hourglass.remaining(T0 + 100) == 0.0


def test_the_facilitator_pauses_the_hourglass_and_the_seconds_left_are_kept() -> None:
    state = act(turned(start(timer=60)), F, "pause_timer", at=T0 + 30)
    assert state.hourglass == Hourglass(started_at=None, left=40.0, paused=True)
    assert state.hourglass.remaining(T0 + 500) == 40.0
    assert {a["type"] for a in legal_actions(state, F)} >= {"resume_timer", "guessed"}
    assert "pause_timer" not in {a["type"] for a in legal_actions(state, F)}


def test_resuming_runs_the_hourglass_on_from_the_seconds_left() -> None:
    state = act(turned(start(timer=60)), F, "pause_timer", at=T0 + 30)
    state = act(state, F, "resume_timer", at=T0 + 200)
    assert state.hourglass.remaining(T0 + 210) == 30.0
    assert not state.hourglass.paused


def test_only_the_facilitator_pauses_and_resumes_the_hourglass() -> None:
    state = turned(start())
    assert_refused(IllegalAction, state, "p1", {"type": "pause_timer", "at": T0 + 20}, "Only the facilitator")
    paused = act(state, F, "pause_timer", at=T0 + 20)
    assert_refused(
        IllegalAction, paused, "p1", {"type": "resume_timer", "at": T0 + 25}, "Only the facilitator"
    )
    assert_refused(IllegalAction, paused, F, {"type": "pause_timer"}, "already paused")
    assert_refused(IllegalAction, state, F, {"type": "resume_timer"}, "is running")


def test_the_hourglass_is_paused_only_while_it_runs() -> None:
    state = act(start(), F, "draw", at=T0)
    assert_refused(IllegalAction, state, F, {"type": "pause_timer", "at": T0}, "No pause_timer now")


def test_an_outcome_may_be_recorded_while_the_hourglass_is_paused_and_the_next_turn_has_a_fresh_one() -> None:
    state = act(act(turned(start()), F, "pause_timer", at=T0 + 20), F, "guessed", team="t1", at=T0 + 25)
    assert positions(state)["t1"] == 4
    assert state.hourglass == Hourglass()


@pytest.mark.parametrize("bad", [True, "now", -1, 1e12])
def test_a_clock_that_is_not_seconds_since_1970_is_refused(bad: Any) -> None:
    assert_refused(InvalidAction, start(), F, {"type": "draw", "at": bad}, "server's clock")


def test_without_a_clock_the_hourglass_shows_no_countdown() -> None:
    state = act(act(start(), F, "draw"), F, "start_timer")
    assert state.hourglass.remaining(T0) == 60.0  # the full hourglass, never running out by itself
    assert player_view(state, None)["hourglass"]["started_at"] is None


# --- undo of the last outcome -------------------------------------------------------------------


def test_undo_takes_back_the_last_outcome_pieces_turn_and_card_return() -> None:
    state = turned(start())
    card = state.task.card
    after = act(state, F, "guessed", team="t1", at=T0 + 40)
    assert positions(after)["t1"] == 4 and turn_of(after) == "t2"
    undone = act(after, F, "undo", at=T0 + 45)
    assert positions(undone) == {"t1": 0, "t2": 0}
    assert turn_of(undone) == "t1" and undone.phase == "presenting"
    assert undone.task == state.task and undone.task.card == card
    assert card not in undone.discards and undone.history == state.history
    assert undone.rotation == state.rotation
    # The hourglass stands paused with the seconds it had when the outcome came.
    assert undone.hourglass == Hourglass(left=30.0, paused=True)  # turned at +10, outcome at +40


def test_after_undo_the_right_outcome_is_recorded_and_the_card_is_used_once() -> None:
    state = act(act(turned(start()), F, "not_guessed", at=T0 + 30), F, "undo")
    state = act(state, F, "guessed", team="t1")
    assert positions(state)["t1"] == 4
    assert len(state.discards) == len(set(state.discards)) == 1
    assert [e.result for e in state.history] == ["guessed"]


def test_undo_of_a_broken_rule_moves_the_piece_forward_again() -> None:
    state = act(at(turned(start()), t1=10), F, "rule_broken")
    assert positions(state)["t1"] == 7
    assert positions(act(state, F, "undo"))["t1"] == 10


def test_undo_of_a_chain_returns_to_the_chain() -> None:
    state = start(cards=[make_card("c1", A="chain"), make_card("c2")])
    state = act(state, F, "draw")
    state = act(state, F, "chain_result", winner_team="t2")
    undone = act(state, F, "undo")
    assert undone.phase == "chain" and positions(undone) == {"t1": 0, "t2": 0}
    assert undone.hourglass == Hourglass()


def test_undo_of_the_final_tasks_first_part_returns_the_finalist_to_it() -> None:
    state = at(start(cards=[make_card(f"c{k}") for k in range(1, 6)]), t1=TARGET)
    state = act(state, "p1", "choose_area", area="B")
    state = act(act(act(state, "p1", "draw"), "p1", "start_timer"), F, "guessed", team="t1")
    assert state.final == "hardest"
    undone = act(state, F, "undo")
    assert undone.final == "open" and undone.final_area == "B" and undone.task.stage == "final_open"


def test_only_the_last_outcome_is_undone_and_only_before_the_next_card_is_drawn() -> None:
    state = act(turned(start()), F, "guessed", team="t1")
    drawn = act(state, F, "draw")
    assert_refused(IllegalAction, drawn, F, {"type": "undo"}, "only the last outcome")
    twice = act(state, F, "undo")
    again = act(twice, F, "not_guessed")
    assert_refused(IllegalAction, act(again, F, "undo"), F, {"type": "undo"}, "no outcome to take back")


def test_only_the_facilitator_undoes_and_it_is_offered_to_the_facilitator_only() -> None:
    state = act(turned(start()), F, "guessed", team="t1")
    assert {"type": "undo", "player": F} in legal_actions(state, F)
    assert all(a["type"] != "undo" for a in legal_actions(state, "p3"))
    assert_refused(IllegalAction, state, "p3", {"type": "undo"}, "Only the facilitator")
    assert player_view(state, "p3")["can_undo"] is True


def test_the_outcome_that_ends_the_game_cannot_be_undone() -> None:
    state = at(start(cards=[make_card(f"c{k}") for k in range(1, 6)]), t1=TARGET)
    state = act(state, "p1", "choose_area", area="A")
    state = act(act(act(state, "p1", "draw"), "p1", "start_timer"), F, "guessed", team="t1")
    state = act(state, "p1", "draw")
    state = act(state, "p3", "choose_hardest", slot="C")
    state = act(act(state, "p1", "start_timer"), F, "guessed", team="t1")
    assert state.result is not None
    assert_refused(IllegalAction, state, F, {"type": "undo"}, "The game is over")


def test_undo_point_and_hourglass_round_trip_through_json() -> None:
    state = act(turned(start()), F, "guessed", team="t1", at=T0 + 33.5)
    again = state_from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state
    assert act(again, F, "undo") == act(state, F, "undo")


def test_a_state_stored_before_the_hourglass_had_a_clock_still_reads() -> None:
    data = start().to_dict()
    del data["hourglass"], data["undo_point"]
    assert state_from_dict(data) == start()


# --- teams chosen in the lobby ----------------------------------------------------------------


def lobby_setup(**extra: Any) -> dict[str, Any]:
    players = [{"id": f"p{k}", "name": f"Player {k}"} for k in range(1, 8)]
    return {"players": players, "cards": [make_card(f"c{k}") for k in range(1, 6)], **extra}


def test_players_keep_the_team_they_chose_and_the_rest_join_the_smallest_team() -> None:
    seating = {"p1": "t2", "p2": "t2", "p3": "t2", "p4": "t1"}
    state = new_game(lobby_setup(team_count=2, seating=seating), seed=5, variant="teams")
    members = {t.id: [p.id for p in t.players] for t in state.teams}
    assert members["t2"][:3] == ["p1", "p2", "p3"] and members["t1"][0] == "p4"
    assert sorted(len(m) for m in members.values()) == [3, 4]
    assert sorted(members["t1"] + members["t2"]) == [f"p{k}" for k in range(1, 8)]


def test_team_names_name_the_teams_in_order() -> None:
    state = new_game(lobby_setup(team_names=["Sovy", "Lišky", "Ježci"]), seed=1, variant="teams")
    assert [(t.id, t.name) for t in state.teams] == [("t1", "Sovy"), ("t2", "Lišky"), ("t3", "Ježci")]


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ({"team_count": 2, "seating": {"p1": "t3"}}, "the teams are t1, t2"),
        ({"team_count": 2, "seating": {"p9": "t1"}}, "not among the players"),
        ({"team_count": 2, "team_names": ["Sovy"]}, "list of 2 non-empty names"),
        ({"team_names": ["Sovy", "sovy"]}, "name of its own"),
        ({"team_count": 2, "seating": ["p1"]}, "maps player ids to team ids"),
        (
            {"team_count": 3, "seating": {f"p{k}": "t1" for k in range(1, 6)}},
            "at least two players; team 'Team 2' has 1",
        ),
    ],
)
def test_lobby_teams_that_break_the_setup_rules_are_refused_with_a_reason(
    extra: dict[str, Any], match: str
) -> None:
    with pytest.raises(InvalidSetup, match=match):
        new_game(lobby_setup(**extra), seed=1, variant="teams")


def test_seating_is_read_only_without_explicit_teams() -> None:
    setup = {
        "teams": [{"id": "a", "players": ["p1", "p2"]}, {"id": "b", "players": ["p3", "p4"]}],
        "cards": [make_card("c1")],
        "seating": {"p1": "b"},
    }
    with pytest.raises(InvalidSetup, match="'seating' is read only when 'teams' is left out"):
        new_game(setup, seed=1, variant="teams")


def test_the_clock_never_changes_the_rules_same_actions_same_positions() -> None:
    plain = act(act(act(start(), F, "draw"), F, "start_timer"), F, "guessed", team="t1")
    timed = act(turned(start()), F, "guessed", team="t1", at=T0 + 12)
    assert (
        plain.positions == timed.positions and plain.turn == timed.turn and plain.rotation == timed.rotation
    )
    assert apply_action(plain, F, {"type": "draw"}).task == apply_action(timed, F, {"type": "draw"}).task


def test_the_chains_countdown_is_the_servers_so_every_screen_counts_the_same_word() -> None:
    """CHAIN: "Within about 5 seconds the representative of the next team must do the same with
    the new word": the word and when its seconds started are in the state, not in one browser."""
    state = start(cards=[make_card("c1", A="chain"), make_card("c2")])
    state = act(state, F, "draw", at=T0)
    views = [player_view(state, who)["hourglass"] for who in (None, F, "p1", "p3")]
    assert all(
        v["started_at"] == T0 and v["left"] == activity.CHAIN_SECONDS and v["word"] == 0 for v in views
    )
    assert {"type": "chain_word", "player": F} in legal_actions(state, F)
    assert_refused(IllegalAction, state, "p1", {"type": "chain_word", "at": T0 + 3}, "Only the facilitator")
    state = act(state, F, "chain_word", at=T0 + 3)
    state = act(state, F, "chain_word", at=T0 + 7)
    assert (state.hourglass.word, state.hourglass.started_at, state.phase) == (2, T0 + 7, "chain")
    assert player_view(state, "p2")["hourglass"]["word"] == 2
    state = act(state, F, "chain_result", winner_team="t2", at=T0 + 13)
    assert positions(state) == {"t1": 0, "t2": activity.CHAIN_FIELDS}
    assert_refused(IllegalAction, state, F, {"type": "chain_word"}, "No chain_word now")
    undone = act(state, F, "undo", at=T0 + 20)
    assert undone.phase == "chain" and (undone.hourglass.started_at, undone.hourglass.word) == (T0 + 20, 0)


def test_a_player_who_comes_late_joins_the_smallest_team_and_takes_a_turn_as_representative() -> None:
    """Setup: "teams of as equal a size as possible"; Play: "the players of a team take this
    role in rotation": the latecomer joins the end of the team's order."""
    state = start(sizes=(3, 2))
    state = act(state, F, "join_team", id="p9", name="Late")
    assert [p.id for p in state.teams[1].players] == ["p4", "p5", "p9"]
    assert_refused(
        IllegalAction, state, F, {"type": "join_team", "id": "p9", "name": "Late"}, "in a team already"
    )
    assert_refused(
        IllegalAction, state, "p1", {"type": "join_team", "id": "p8", "name": "X"}, "through the session"
    )
    assert_refused(
        InvalidAction, state, F, {"type": "join_team", "id": "p8", "name": "X", "team": "t7"}, "no team"
    )
    representatives = []
    for _turn in range(6):
        representatives.append(state.to_dict()["representatives"]["t2"])
        state = act(act(act(state, F, "draw"), F, "start_timer"), F, "not_guessed")
    assert "p9" in representatives
    three = start("three_players", (1, 1, 1))
    assert_refused(
        IllegalAction, three, F, {"type": "join_team", "id": "p9", "name": "Late"}, "exactly three"
    )
