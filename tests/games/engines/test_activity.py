"""Activity engine, rule by rule (rules/activity.md: Setup, Play, Chain, Rhyme, Final task, Game for
3 players; rules/README.md: Activity readings; the readings in the engine's docstring), the views'
secrecy, golden playthroughs and random play."""

from __future__ import annotations

import ast
import doctest
import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from games.engines import activity, engine_for
from games.engines.activity import (
    TARGET,
    State,
    apply_action,
    field_label,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    play_area,
    player_view,
    sees_term,
    state_from_dict,
)
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup, rng_for

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
F = "facilitator"

# --- helpers ----------------------------------------------------------------------------------


def make_card(card_id: str, points: int = 4, **slots: Any) -> dict[str, Any]:
    """A card whose slots are terms worth ``points``; ``A="chain"``, ``B="rhyme"`` or ``C=6`` change one.

    Every text is unique ("word-c1-A"), so a view can be searched for it."""
    terms = []
    for slot in "ABCDEF":
        spec = slots.get(slot, points)
        if spec in ("chain", "rhyme"):
            terms.append({"slot": slot, "kind": spec, "text": f"{spec}word-{card_id}-{slot}", "points": None})
        else:
            terms.append({"slot": slot, "kind": "term", "text": f"word-{card_id}-{slot}", "points": spec})
    return {"id": card_id, "terms": terms}


def make_setup(
    variant: str = "teams",
    sizes: tuple[int, ...] = (2, 2),
    cards: int | list[dict[str, Any]] = 12,
    **extra: Any,
) -> dict[str, Any]:
    """Teams t1, t2, ... with players p1, p2, ... numbered across the teams (three players: t1-t3, p1-p3)."""
    if variant == "three_players":
        sizes = (1, 1, 1)
    teams, number = [], 0
    for index, size in enumerate(sizes):
        players = []
        for _ in range(size):
            number += 1
            players.append(f"p{number}")
        teams.append({"id": f"t{index + 1}", "name": f"Team {index + 1}", "players": players})
    deck = [make_card(f"c{k}") for k in range(1, cards + 1)] if isinstance(cards, int) else cards
    return {"teams": teams, "cards": deck, **extra}


def start(
    variant: str = "teams",
    sizes: tuple[int, ...] = (2, 2),
    *,
    cards: int | list[dict[str, Any]] = 12,
    seed: int = 1,
    first_team: str | None = "t1",
    **extra: Any,
) -> State:
    if first_team is not None:
        extra["first_team"] = first_team
    return new_game(make_setup(variant, sizes, cards, **extra), seed=seed, variant=variant)


def on_top(state: State, *card_ids: str) -> State:
    """The state with these cards on top of the stack, in this order."""
    rest = tuple(c for c in state.stack if c not in card_ids)
    return replace(state, stack=(*card_ids, *rest))


def at(state: State, **positions: int) -> State:
    """The state with some pieces moved (by team id)."""
    ids = [t.id for t in state.teams]
    return replace(
        state, positions=tuple(positions.get(tid, pos) for tid, pos in zip(ids, state.positions, strict=True))
    )


def act(state: State, player: str | None, kind: str, **fields: Any) -> State:
    return apply_action(state, player, {"type": kind, **fields})


def presented(state: State, player: str | None = F) -> State:
    """Draw and turn the hourglass (the facilitator by default)."""
    return act(act(state, player, "draw"), player, "start_timer")


def positions(state: State) -> dict[str, int]:
    return {t.id: p for t, p in zip(state.teams, state.positions, strict=True)}


def turn_of(state: State) -> str:
    return state.teams[state.turn].id


def text_in_play(state: State) -> str:
    assert state.task is not None and state.task.slot is not None
    card = next(c for c in state.cards if c.id == state.task.card)
    return card.term(state.task.slot).text


def view_text(state: State, player: str | None) -> str:
    return json.dumps(player_view(state, player), ensure_ascii=False)


def all_ids(state: State) -> list[str]:
    return [p.id for t in state.teams for p in t.players]


def assert_refused(error: type[Exception], state: State, player: str | None, action: Any, match: str) -> None:
    """The action raises ``error`` with a readable message and changes nothing."""
    before = state.to_dict()
    with pytest.raises(error, match=match) as raised:
        apply_action(state, player, action)
    message = str(raised.value)
    assert message[0].isupper() and message.endswith("."), message
    assert state.to_dict() == before


def finalist_in_part_two(seed: int = 3) -> State:
    """Team 1 stands in the target area and has guessed the first part of the final task."""
    state = at(start(cards=[make_card(f"c{k}") for k in range(1, 9)], seed=seed), t1=TARGET, t2=20)
    state = act(state, "p1", "choose_area", area="C")
    state = act(presented(state, "p1"), F, "guessed", team="t1")
    assert state.final == "hardest" and state.phase == "ready"
    return state


# --- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sizes", "match"),
    [
        ((2,), "2, 3 or 4 teams; this setup has 1"),
        ((2, 2, 2, 2, 2), "2, 3 or 4 teams; this setup has 5"),
        ((2, 1), "at least two players; team 'Team 2' has 1"),
        ((3, 0, 2), "at least two players; team 'Team 2' has 0"),
    ],
)
def test_setup_players_split_into_2_3_or_4_teams_of_at_least_two_players(
    sizes: tuple[int, ...], match: str
) -> None:
    with pytest.raises(InvalidSetup, match=match):
        start("teams", sizes)
    for good in [(2, 2), (3, 2, 2), (2, 2, 2, 5)]:
        assert len(start("teams", good).teams) == len(good)


@pytest.mark.parametrize("sizes", [(1, 1), (1, 1, 1, 1), (2, 1, 1), (1, 1, 0)])
def test_setup_game_for_3_players_is_exactly_three_players_each_playing_alone(sizes: tuple[int, ...]) -> None:
    setup = make_setup("teams", sizes)
    with pytest.raises(InvalidSetup, match="exactly three players, each playing alone"):
        new_game(setup, seed=1, variant="three_players")
    assert len(start("three_players").teams) == 3


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"colour": "red"}, "Unknown setup field"),
        ({"cards": []}, "non-empty list of cards"),
        (
            {"cards": [{"id": "c1", "terms": make_card("c1")["terms"][:5]}]},
            "slots ABCDE; a card holds six terms",
        ),
        (
            {"cards": [{"id": "c1", "terms": make_card("c1")["terms"][:5] + [make_card("c1")["terms"][0]]}]},
            "slots AABCDE",
        ),
        ({"cards": [make_card("c1", points=2)]}, "points from 3 to 6"),
        ({"cards": [make_card("c1", points=7)]}, "points from 3 to 6"),
        ({"cards": [make_card("c1", points=None)]}, "points from 3 to 6"),
        (
            {
                "cards": [
                    {
                        "id": "c1",
                        "terms": [
                            {**t, "points": 4} if t["slot"] == "A" else t
                            for t in make_card("c1", A="chain")["terms"]
                        ],
                    }
                ]
            },
            "a chain has no points",
        ),  # fmt: skip
        ({"cards": [make_card("c1"), make_card("c1")]}, "used twice"),
        ({"cards": [{"id": "", "terms": []}]}, "non-empty string 'id'"),
        (
            {"cards": [{"id": "c1", "terms": [{**t, "kind": "song"} for t in make_card("c1")["terms"]]}]},
            "term, chain or rhyme",
        ),
        (
            {"cards": [{"id": "c1", "terms": [{**t, "text": " "} for t in make_card("c1")["terms"]]}]},
            "non-empty 'text'",
        ),
        ({"timer": 0}, "hourglass in seconds"),
        ({"timer": "60"}, "hourglass in seconds"),
        ({"reduce_points_by": 1}, "0 or 2"),
        ({"reduce_points_by": 2}, "game for 3 players only"),
        ({"facilitator_sees_terms": "yes"}, "true or false"),
        ({"first_team": "t9"}, "none of the teams"),
        ({"team_count": 2}, "only when 'teams' is left out"),
        (
            {"teams": [{"id": "t1", "players": ["p1", "p2"]}, {"id": "t2", "players": ["p2", "p3"]}]},
            "one team only",
        ),
        (
            {"teams": [{"id": "t1", "players": ["p1", "p2"]}, {"id": "t1", "players": ["p3", "p4"]}]},
            "Team ids",
        ),
        (
            {
                "teams": [
                    {"id": "t1", "players": ["facilitator", "p2"]},
                    {"id": "t2", "players": ["p3", "p4"]},
                ]
            },
            "facilitator's role",
        ),
        ({"teams": "t1,t2"}, "'teams' must be a list"),
    ],
)
def test_setup_mistakes_are_refused_with_a_reason(change: dict[str, Any], match: str) -> None:
    setup = {**make_setup(), **change}
    with pytest.raises(InvalidSetup, match=match):
        new_game(setup, seed=1, variant="teams")


def test_setup_unknown_variant_or_bad_seed_is_refused() -> None:
    with pytest.raises(InvalidSetup, match="Activity has teams, three_players"):
        new_game(make_setup(), seed=1, variant="duel")
    with pytest.raises(InvalidSetup, match="seed must be an integer"):
        new_game(make_setup(), seed=True, variant="teams")


def test_the_engine_is_found_by_name_and_has_the_shared_api() -> None:
    engine = engine_for("activity")
    assert engine is activity
    assert engine.GAME == "activity"
    assert engine.VARIANTS == ("teams", "three_players")
    for name in (
        "new_game",
        "legal_actions",
        "apply_action",
        "is_terminal",
        "outcome",
        "player_view",
        "state_from_dict",
    ):
        assert callable(getattr(engine, name))


def test_each_team_puts_its_piece_on_the_start_field_and_the_hourglass_defaults_to_60_seconds() -> None:
    state = start("teams", (2, 3, 2))
    assert state.positions == (0, 0, 0)
    assert state.timer == 60
    assert start(timer=90).timer == 90
    assert state.phase == "ready" and state.task is None and not is_terminal(state)


def test_the_cards_are_shuffled_with_rng_for_seed_shuffle_and_stacked_face_down() -> None:
    state = start(cards=20, seed=5)
    expected = [f"c{k}" for k in range(1, 21)]
    rng_for(5, "shuffle").shuffle(expected)
    assert list(state.stack) == expected
    assert start(cards=20, seed=5).stack == state.stack
    assert start(cards=20, seed=6).stack != state.stack
    assert player_view(state, "p1")["cards_left"] == 20
    assert "word-c" not in view_text(state, "p1")


def test_a_draw_decides_which_team_begins() -> None:
    firsts = set()
    for seed in range(30):
        state = start("teams", (2, 2, 2), seed=seed, first_team=None)
        assert state.first_team == rng_for(seed, "first_team").randrange(3)
        assert state.turn == state.first_team
        firsts.add(state.first_team)
    assert firsts == {0, 1, 2}
    assert start("teams", (2, 2, 2), first_team="t3").turn == 2


def test_players_without_teams_are_split_into_teams_of_as_equal_a_size_as_possible_by_the_seed() -> None:
    roster = [{"id": f"s{k}", "name": f"Student {k}"} for k in range(1, 12)]
    setup = {"players": roster, "cards": [make_card("c1")]}
    state = new_game(setup, seed=4, variant="teams")
    assert [len(t.players) for t in state.teams] == [3, 3, 3, 2]
    assert sorted(p.id for t in state.teams for p in t.players) == sorted(p["id"] for p in roster)
    order = [p["id"] for p in roster]
    rng_for(4, "teams").shuffle(order)
    assert [p.id for p in state.teams[0].players] == order[0::4]
    assert state.teams[0].players[0].name.startswith("Student")
    two = new_game({**setup, "team_count": 2}, seed=4, variant="teams")
    assert [len(t.players) for t in two.teams] == [6, 5]
    with pytest.raises(InvalidSetup, match="need 8 players"):
        new_game(
            {"players": roster[:7], "cards": [make_card("c1")], "team_count": 4}, seed=4, variant="teams"
        )
    three = new_game({"players": roster[:3], "cards": [make_card("c1")]}, seed=4, variant="three_players")
    assert [t.id for t in three.teams] == ["s1", "s2", "s3"]


def test_players_listed_but_in_no_team_watch_the_game() -> None:
    setup = {**make_setup(), "players": [{"id": "p1", "name": "Ala"}, {"id": "w1", "name": "Wiktor"}]}
    state = new_game(setup, seed=1, variant="teams")
    assert state.teams[0].players[0].name == "Ala"
    assert [p.id for p in state.watchers] == ["w1"]
    view = player_view(state, "w1")
    assert view["role"] == "watcher" and view["legal_actions"] == []
    assert legal_actions(state, "w1") == []
    assert_refused(IllegalAction, state, "w1", {"type": "draw"}, "Wiktor watches this game")


# --- the board and the turn --------------------------------------------------------------------


def test_board_start_field_areas_a_to_f_of_8_fields_then_the_red_target_area() -> None:
    assert [play_area(f) for f in range(0, 50)] == ["A"] * 9 + [a for a in "BCDEF" for _ in range(8)] + [None]
    assert [field_label(f) for f in (0, 1, 8, 9, 16, 17, 41, 48, 49)] == [
        "start", "A1", "A8", "B1", "B8", "C1", "F1", "F8", "target"
    ]  # fmt: skip
    assert TARGET == 49


@pytest.mark.parametrize(
    ("field", "slot", "form"),
    [(0, "A", "draw"), (5, "A", "draw"), (12, "B", "describe"), (20, "C", "mime"), (25, "D", "draw"),
     (40, "E", "describe"), (48, "F", "mime")],
)  # fmt: skip
def test_the_representative_draws_the_top_card_and_memorises_the_term_of_the_area_where_the_piece_stands(
    field: int, slot: str, form: str
) -> None:
    state = at(start(), t1=field)
    top = state.stack[0]
    state = act(state, "p1", "draw")
    assert state.phase == "memorise"
    assert state.task is not None and state.task.card == top and state.task.slot == slot
    assert state.stack[0] != top
    view = player_view(state, "p1")
    assert view["task"]["text"] == f"word-{top}-{slot}"
    assert view["task"]["form"] == form
    assert view["task"]["rules"] == activity.FORM_RULES[form]
    assert view["memorise_seconds"] == 10


def test_the_forms_rules_draw_no_digits_or_letters_describe_not_the_word_mime_no_sounds() -> None:
    assert "no digits and no letters" in activity.FORM_RULES["draw"]
    assert "any word derived from it may not be used" in activity.FORM_RULES["describe"]
    assert "no sounds of any kind" in activity.FORM_RULES["mime"]


def test_after_memorising_the_hourglass_is_turned_and_its_version_is_recorded() -> None:
    state = act(start(), "p1", "draw")
    assert state.timer_started_at is None
    assert_refused(IllegalAction, state, F, {"type": "time_up"}, "No time_up now")
    state = act(state, "p1", "start_timer")
    assert state.phase == "presenting"
    assert state.timer_started_at == state.version == 2
    view = player_view(state, "p3")
    assert view["timer_started_at"] == 2 and view["timer"] == 60


def test_guessed_in_time_the_team_moves_as_many_fields_as_the_number_after_the_term() -> None:
    cards = [make_card("c1", A=5), make_card("c2")]
    state = on_top(start(cards=cards), "c1")
    state = act(presented(state, "p1"), "p1", "guessed", team="t1")
    assert positions(state) == {"t1": 5, "t2": 0}
    assert state.history[-1].result == "guessed" and state.history[-1].winner == "t1"
    assert [(m.team, m.start, m.end) for m in state.history[-1].moves] == [("t1", 0, 5)]


def test_guessed_without_a_team_means_the_presenting_team() -> None:
    state = act(presented(start()), F, "guessed")
    assert positions(state) == {"t1": 4, "t2": 0}


def test_a_guess_recorded_after_the_hourglass_ran_out_is_refused_and_time_up_is_recorded() -> None:
    """Rulebook: "If the team guesses the term before the time runs out ... Otherwise the piece
    stays where it is": by the server's clock (``at``), with a moment's grace for the click."""
    state = act(act(start(), F, "draw", at=1000.0), F, "start_timer", at=1010.0)
    out = 1010.0 + state.timer
    in_time = act(state, F, "guessed", team="t1", at=out + activity.LATE_GRACE_SECONDS)
    assert positions(in_time) == {"t1": 4, "t2": 0}
    late = {"type": "guessed", "team": "t1", "at": out + activity.LATE_GRACE_SECONDS + 0.5}
    assert_refused(IllegalAction, state, F, late, "The hourglass has run out")
    timed_out = act(state, F, "time_up", at=out + 30)
    assert positions(timed_out) == {"t1": 0, "t2": 0} and turn_of(timed_out) == "t2"
    # A paused hourglass does not run out; resumed, it runs on from the seconds it kept.
    paused = act(state, F, "pause_timer", at=1020.0)
    assert positions(act(paused, F, "guessed", team="t1", at=out + 600)) == {"t1": 4, "t2": 0}
    resumed = act(paused, F, "resume_timer", at=2000.0)
    assert_refused(IllegalAction, resumed, F, {**late, "at": 2000.0 + 50 + 3}, "has run out")


def test_a_rhyme_guessed_after_the_hourglass_ran_out_is_refused() -> None:
    cards = [make_card("c1", A="rhyme"), make_card("c2")]
    state = act(act(on_top(start(cards=cards), "c1"), "p1", "draw", at=0.0), "p1", "start_timer", at=10.0)
    late = {"type": "rhyme_result", "guessed": True, "at": 10.0 + state.timer + 5}
    assert_refused(IllegalAction, state, "p1", late, "The hourglass has run out")
    missed = act(state, "p1", "rhyme_result", guessed=False, at=10.0 + state.timer + 5)
    assert missed.history[-1].result == "not_guessed"


@pytest.mark.parametrize("kind", ["not_guessed", "time_up"])
def test_not_guessed_in_time_the_piece_stays_where_it_is(kind: str) -> None:
    state = at(start(), t1=10)
    state = act(presented(state), F, kind)
    assert positions(state) == {"t1": 10, "t2": 0}
    assert state.history[-1].result == "not_guessed" and state.history[-1].action == kind


@pytest.mark.parametrize("kind", ["guessed", "not_guessed", "rule_broken", "time_up"])
def test_either_way_the_card_is_put_aside_for_good_and_the_next_team_takes_its_turn(kind: str) -> None:
    state = start()
    top = state.stack[0]
    state = act(presented(state), F, kind)
    assert state.discards == (top,)
    assert top not in state.stack
    assert turn_of(state) == "t2" and state.phase == "ready" and state.task is None
    assert state.timer_started_at is None


def test_the_players_of_a_team_take_the_role_of_representative_in_rotation() -> None:
    state = start("teams", (3, 2), cards=20)
    representatives = []
    for _ in range(8):
        drawer = player_view(state, None)["representative"]
        representatives.append(drawer)
        assert legal_actions(state, drawer) == [{"type": "draw", "player": drawer}]
        state = act(presented(state, drawer), drawer, "not_guessed")
    assert representatives == ["p1", "p4", "p2", "p5", "p3", "p4", "p1", "p5"]


def test_only_the_representative_or_the_facilitator_draws_and_turns_the_hourglass() -> None:
    state = start()
    for player in ("p2", "p3", "p4"):
        assert legal_actions(state, player) == []
        assert_refused(
            IllegalAction, state, player, {"type": "draw"}, "Only p1, the representative of Team 1"
        )
    drawn = act(state, None, "draw")  # None: the session layer's facilitator
    assert_refused(IllegalAction, drawn, "p2", {"type": "start_timer"}, "Only p1, who presents the term")
    assert act(drawn, "p1", "start_timer").phase == "presenting"


def test_outcomes_are_recorded_by_the_facilitator_or_the_representative_who_knows_the_term() -> None:
    state = presented(start())
    for player in ("p2", "p3"):
        assert legal_actions(state, player) == []
        assert_refused(
            IllegalAction, state, player, {"type": "guessed", "team": "t1"}, "who presents the term"
        )
    assert_refused(IllegalAction, state, "p1", {"type": "time_up"}, "Only the session's timer")
    assert {a["type"] for a in legal_actions(state, "p1")} == {"guessed", "not_guessed", "rule_broken"}
    assert {a["type"] for a in legal_actions(state, F)} == {
        "guessed",
        "not_guessed",
        "rule_broken",
        "time_up",
        "pause_timer",
    }


def test_rule_broken_the_team_moves_back_3_fields_and_play_passes_to_the_next_team() -> None:
    state = act(presented(at(start(), t1=10)), F, "rule_broken")
    assert positions(state) == {"t1": 7, "t2": 0}
    assert turn_of(state) == "t2"
    assert state.history[-1].result == "rule_broken"


@pytest.mark.parametrize(("before", "after"), [(0, 0), (1, 0), (2, 0), (3, 0), (4, 1)])
def test_rule_broken_never_moves_a_piece_behind_the_start_field(before: int, after: int) -> None:
    state = act(presented(at(start(), t1=before)), F, "rule_broken")
    assert positions(state)["t1"] == after


def test_open_game_a_term_worth_6_may_be_guessed_by_any_team_and_the_first_moves_6() -> None:
    state = on_top(
        start("teams", (2, 2, 2), cards=[make_card("c1", A=6), make_card("c2"), make_card("c3")]), "c1"
    )
    state = presented(state, "p1")
    view = player_view(state, "p3")
    assert view["task"]["open"] is True and view["task"]["guessers"] == ["t1", "t2", "t3"]
    assert [a["team"] for a in legal_actions(state, F) if a["type"] == "guessed"] == ["t1", "t2", "t3"]
    state = act(state, "p1", "guessed", team="t3")
    assert positions(state) == {"t1": 0, "t2": 0, "t3": 6}
    assert state.history[-1].winner == "t3"
    assert turn_of(state) == "t2"


def test_a_term_below_6_is_guessed_only_by_the_representatives_teammates() -> None:
    state = presented(start())
    assert player_view(state, "p3")["task"]["open"] is False
    assert_refused(
        IllegalAction,
        state,
        F,
        {"type": "guessed", "team": "t2"},
        "only a 6 is an open game .Team 2 may not guess",
    )


def test_chain_the_team_that_formed_the_last_valid_word_moves_4_fields() -> None:
    cards = [make_card("c1", A="chain"), make_card("c2")]
    state = on_top(start("teams", (2, 2, 2), cards=cards), "c1")
    state = act(state, "p1", "draw")
    assert state.phase == "chain"
    view = player_view(state, "p3")
    assert view["task"]["kind"] == "chain" and view["task"]["guessers"] == ["t1", "t2", "t3"]
    assert view["task"]["rules"] == activity.FORM_RULES["chain"]
    state = act(state, "p1", "chain_result", winner_team="t2")
    assert positions(state) == {"t1": 0, "t2": 4, "t3": 0}
    assert state.history[-1].result == "chain" and state.history[-1].winner == "t2"
    assert turn_of(state) == "t2" and state.discards == ("c1",)


def test_chain_the_word_is_read_aloud_so_every_player_sees_it() -> None:
    cards = [make_card("c1", A="chain"), make_card("c2")]
    state = act(on_top(start(cards=cards), "c1"), "p1", "draw")
    for player in [*all_ids(state), None, F]:
        assert "chainword-c1-A" in view_text(state, player)
        assert "word-c1-B" not in view_text(state, player)


def test_chain_nobody_moves_when_the_drawer_cannot_start_it_and_there_is_no_hourglass() -> None:
    cards = [make_card("c1", A="chain"), make_card("c2")]
    state = act(on_top(start(cards=cards), "c1"), "p1", "draw")
    assert_refused(IllegalAction, state, "p1", {"type": "start_timer"}, "No start_timer now: the chain runs")
    assert_refused(IllegalAction, state, F, {"type": "time_up"}, "No time_up now")
    assert_refused(IllegalAction, state, F, {"type": "rule_broken"}, "No rule_broken now")
    state = act(state, F, "chain_result", winner_team=None)
    assert positions(state) == {"t1": 0, "t2": 0}
    assert state.history[-1].winner is None


def test_rhyme_the_drawer_and_a_teammate_make_a_verse_and_a_guess_moves_5_fields() -> None:
    cards = [make_card("c1", A="rhyme"), make_card("c2")]
    state = presented(on_top(start(cards=cards), "c1"), "p1")
    assert player_view(state, "p2")["task"]["rules"] == activity.FORM_RULES["rhyme"]
    assert player_view(state, "p2")["task"]["fields"] == 5
    assert_refused(IllegalAction, state, F, {"type": "guessed", "team": "t1"}, "record rhyme_result")
    guessed = act(state, "p1", "rhyme_result", guessed=True)
    assert positions(guessed) == {"t1": 5, "t2": 0}
    missed = act(state, "p1", "rhyme_result", guessed=False)
    assert positions(missed) == {"t1": 0, "t2": 0} and missed.history[-1].result == "not_guessed"
    timed_out = act(state, F, "time_up")
    assert positions(timed_out) == {"t1": 0, "t2": 0} and turn_of(timed_out) == "t2"


def test_rhyme_the_term_is_read_silently_so_only_the_drawer_sees_it() -> None:
    cards = [make_card("c1", A="rhyme"), make_card("c2")]
    state = presented(on_top(start(cards=cards), "c1"), "p1")
    assert "rhymeword-c1-A" in view_text(state, "p1")
    for player in ("p2", "p3", "p4", None):
        assert "rhymeword-c1-A" not in view_text(state, player)


def test_points_beyond_the_target_area_are_lost() -> None:
    cards = [make_card("c1", F=6), make_card("c2")]
    state = act(presented(at(on_top(start(cards=cards), "c1"), t1=46)), F, "guessed", team="t1")
    assert positions(state)["t1"] == TARGET
    assert [(m.start, m.end) for m in state.history[-1].moves] == [(46, 49)]


def test_a_piece_reaching_the_target_area_does_the_final_task_in_its_next_turn() -> None:
    state = act(presented(at(start(), t1=47)), F, "guessed")
    assert positions(state)["t1"] == TARGET
    assert turn_of(state) == "t2"  # the turn that reached the target area is over
    assert legal_actions(state, "p3") == [{"type": "draw", "player": "p3"}]
    state = act(presented(state, "p3"), F, "not_guessed")
    assert turn_of(state) == "t1"
    assert [a["type"] for a in legal_actions(state, "p2")] == ["choose_area"] * 6
    assert player_view(state, "p1")["teams"][0]["finalist"] is True


# --- the final task ---------------------------------------------------------------------------


def test_final_task_the_representative_first_chooses_one_of_the_6_areas_and_only_then_draws() -> None:
    state = at(start(), t1=TARGET)
    assert_refused(IllegalAction, state, "p1", {"type": "draw"}, "first chooses one of the areas A-F")
    assert_refused(IllegalAction, state, "p2", {"type": "choose_area", "area": "B"}, "Only p1")
    state = act(state, "p1", "choose_area", area="E")
    assert state.final == "open" and state.final_area == "E"
    assert player_view(state, "p3")["final_area"] == "E"
    state = act(state, "p1", "draw")
    assert state.task is not None and state.task.slot == "E" and state.task.stage == "final_open"
    assert player_view(state, "p1")["task"]["form"] == "describe"


def test_final_task_a_chain_or_rhyme_in_the_chosen_area_means_another_card() -> None:
    cards = [make_card("c1", D="chain"), make_card("c2", D="rhyme"), make_card("c3"), make_card("c4")]
    state = on_top(at(start(cards=cards), t1=TARGET), "c1", "c2", "c3")
    state = act(act(state, "p1", "choose_area", area="D"), "p1", "draw")
    assert state.task is not None and state.task.card == "c3" and state.task.skipped == ("c1", "c2")
    assert state.discards == ("c1", "c2")
    assert player_view(state, "p3")["task"]["skipped"] == 2
    state = act(act(state, "p1", "start_timer"), F, "not_guessed")
    assert state.history[-1].skipped == ("c1", "c2")
    assert sorted(state.discards) == ["c1", "c2", "c3"]


def test_final_task_part_one_is_always_an_open_game() -> None:
    state = at(start("teams", (2, 2, 2)), t1=TARGET)
    state = presented(act(state, "p1", "choose_area", area="A"), "p1")
    view = player_view(state, "p3")
    assert view["task"]["points"] == 4 and view["task"]["open"] is True
    assert view["task"]["guessers"] == ["t1", "t2", "t3"]


def test_final_task_another_team_guessing_first_moves_and_the_finalist_tries_again_next_turn() -> None:
    state = at(start("teams", (2, 2, 2)), t1=TARGET, t3=30)
    state = presented(act(state, "p1", "choose_area", area="A"), "p1")
    state = act(state, F, "guessed", team="t3")
    assert positions(state) == {"t1": TARGET, "t2": 0, "t3": 34}
    assert turn_of(state) == "t2" and state.final is None and state.final_area is None
    state = act(presented(state), F, "not_guessed")
    state = act(presented(state), F, "not_guessed")
    assert turn_of(state) == "t1"
    # Tried again: from the area choice, with the team's next representative.
    assert [a["type"] for a in legal_actions(state, "p2")] == ["choose_area"] * 6


def test_final_task_part_one_not_guessed_the_finalist_tries_again_next_turn() -> None:
    state = at(start(), t1=TARGET)
    state = act(presented(act(state, "p1", "choose_area", area="B"), "p1"), F, "time_up")
    assert turn_of(state) == "t2" and positions(state)["t1"] == TARGET
    state = act(presented(state), F, "not_guessed")
    assert player_view(state, None)["representative"] == "p2"
    assert legal_actions(state, "p2")[0]["type"] == "choose_area"


def test_final_task_the_finalist_guessing_part_one_goes_straight_on_to_part_two_same_representative() -> None:
    state = finalist_in_part_two()
    assert turn_of(state) == "t1"
    assert state.history[-1].stage == "final_open" and state.history[-1].moves == ()
    assert legal_actions(state, "p1") == [{"type": "draw", "player": "p1"}]
    assert legal_actions(state, "p2") == []
    state = act(state, "p1", "draw")
    assert state.phase == "choosing"
    assert state.task is not None and state.task.stage == "final_hardest" and state.task.presenter == "p1"


def test_final_task_part_two_the_other_teams_choose_the_hardest_term() -> None:
    state = act(finalist_in_part_two(), "p1", "draw")
    assert state.task is not None
    card = state.task.card
    slots = [a["slot"] for a in legal_actions(state, "p3")]
    assert slots == list("ABCDEF")
    assert legal_actions(state, "p1") == [] and legal_actions(state, "p2") == []
    assert_refused(
        IllegalAction,
        state,
        "p2",
        {"type": "choose_hardest", "slot": "D"},
        "not the team doing the final task",
    )
    state = act(state, "p4", "choose_hardest", slot="D")
    assert state.phase == "memorise" and state.task is not None and state.task.slot == "D"
    assert player_view(state, "p1")["task"]["text"] == f"word-{card}-D"
    assert player_view(state, "p1")["task"]["form"] == "draw"


def test_final_task_part_two_only_the_finalist_team_guesses_and_success_wins() -> None:
    state = act(act(finalist_in_part_two(), "p1", "draw"), "p3", "choose_hardest", slot="F")
    state = act(state, "p1", "start_timer")
    assert player_view(state, "p3")["task"]["guessers"] == ["t1"]
    assert [a for a in legal_actions(state, F) if a["type"] == "guessed"] == [
        {"type": "guessed", "team": "t1", "player": F}
    ]
    assert_refused(
        IllegalAction, state, F, {"type": "guessed", "team": "t2"}, "Only the team doing the final task"
    )
    state = act(state, F, "guessed", team="t1")
    assert is_terminal(state)
    assert outcome(state) == {
        "winner": "t1",
        "winners": ["t1"],
        "reason": "final_task",
        "positions": {"t1": TARGET, "t2": 20},
        "ranking": ["t1", "t2"],
    }
    assert state.phase == "over"
    assert legal_actions(state, F) == [] and legal_actions(state, "p1") == []


@pytest.mark.parametrize("kind", ["not_guessed", "time_up"])
def test_final_task_part_two_failed_means_both_parts_again_next_turn(kind: str) -> None:
    state = act(act(finalist_in_part_two(), "p1", "draw"), "p3", "choose_hardest", slot="A")
    state = act(act(state, "p1", "start_timer"), F, kind)
    assert not is_terminal(state)
    assert turn_of(state) == "t2" and state.final is None
    assert positions(state)["t1"] == TARGET
    state = act(presented(state), F, "not_guessed")
    assert turn_of(state) == "t1"
    assert [a["type"] for a in legal_actions(state, "p2")] == ["choose_area"] * 6


def test_final_task_only_a_plain_term_can_be_chosen_as_the_hardest() -> None:
    cards = [make_card("c1"), make_card("c2", B="chain", E="rhyme")] + [
        make_card(f"c{k}") for k in range(3, 9)
    ]
    state = at(start(cards=cards), t1=TARGET)
    state = on_top(state, "c1", "c2")
    state = act(presented(act(state, "p1", "choose_area", area="A"), "p1"), F, "guessed", team="t1")
    state = act(state, "p1", "draw")
    assert [a["slot"] for a in legal_actions(state, "p3")] == ["A", "C", "D", "F"]
    assert_refused(IllegalAction, state, "p3", {"type": "choose_hardest", "slot": "B"}, "holds a chain")


def test_final_task_a_second_card_without_any_plain_term_is_put_aside() -> None:
    nothing = make_card("c2", A="chain", B="rhyme", C="chain", D="rhyme", E="chain", F="rhyme")
    cards = [make_card("c1"), nothing, make_card("c3"), make_card("c4")]
    state = on_top(at(start(cards=cards), t1=TARGET), "c1", "c2", "c3")
    state = act(presented(act(state, "p1", "choose_area", area="A"), "p1"), F, "guessed", team="t1")
    state = act(state, "p1", "draw")
    assert state.task is not None and state.task.card == "c3" and state.task.skipped == ("c2",)


def test_final_task_a_rule_broken_moves_the_finalist_back_3_fields_out_of_the_target_area() -> None:
    state = at(start(), t1=TARGET)
    state = act(presented(act(state, "p1", "choose_area", area="A"), "p1"), F, "rule_broken")
    assert positions(state)["t1"] == 46 and turn_of(state) == "t2"
    state = act(
        act(act(finalist_in_part_two(), "p1", "draw"), "p3", "choose_hardest", slot="A"), "p1", "start_timer"
    )
    state = act(state, "p1", "rule_broken")
    assert positions(state)["t1"] == 46 and not is_terminal(state)


# --- game for 3 players -----------------------------------------------------------------------


def test_three_players_only_the_open_game_both_others_may_guess_and_presenter_and_guesser_move() -> None:
    state = presented(start("three_players"), "p1")
    view = player_view(state, "p2")
    assert view["task"]["open"] is True and view["task"]["guessers"] == ["t2", "t3"]
    assert [a["team"] for a in legal_actions(state, F) if a["type"] == "guessed"] == ["t2", "t3"]
    state = act(state, "p1", "guessed", team="t3")
    assert positions(state) == {"t1": 4, "t2": 0, "t3": 4}
    assert turn_of(state) == "t2"


def test_three_players_the_presenter_cannot_guess_and_the_guesser_must_be_named() -> None:
    state = presented(start("three_players"), "p1")
    assert_refused(
        IllegalAction, state, F, {"type": "guessed", "team": "t1"}, "presented the term and cannot guess"
    )
    assert_refused(InvalidAction, state, F, {"type": "guessed"}, "Say which player guessed")


def test_three_players_nobody_guesses_it_is_the_next_players_turn() -> None:
    state = act(presented(start("three_players"), "p1"), F, "time_up")
    assert positions(state) == {"t1": 0, "t2": 0, "t3": 0}
    assert turn_of(state) == "t2"
    assert legal_actions(state, "p2") == [{"type": "draw", "player": "p2"}]


def test_three_players_rhyme_with_the_left_hand_neighbour_both_move_5() -> None:
    cards = [make_card("c1", A="rhyme"), make_card("c2")]
    state = presented(on_top(start("three_players", cards=cards, first_team="t3"), "c1"), "p3")
    assert player_view(state, "p1")["task"]["guessers"] == ["t1"]  # t3's left neighbour is t1
    assert "rhymeword-c1-A" not in view_text(state, "p1")
    state = act(state, "p3", "rhyme_result", guessed=True)
    assert positions(state) == {"t1": 5, "t2": 0, "t3": 5}
    assert state.history[-1].winner == "t1"


def test_three_players_chain_the_player_with_the_last_valid_word_moves_4() -> None:
    cards = [make_card("c1", A="chain"), make_card("c2")]
    state = act(on_top(start("three_players", cards=cards, first_team="t2"), "c1"), "p2", "draw")
    assert player_view(state, "p1")["task"]["guessers"] == ["t2", "t3", "t1"]
    state = act(state, F, "chain_result", winner_team="t1")
    assert positions(state) == {"t1": 4, "t2": 0, "t3": 0}


@pytest.mark.parametrize(("points", "fields"), [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_three_players_reduce_points_by_2_makes_3_6_points_1_4_fields(points: int, fields: int) -> None:
    cards = [make_card("c1", A=points), make_card("c2")]
    state = on_top(start("three_players", cards=cards, reduce_points_by=2), "c1")
    state = act(presented(state, "p1"), F, "guessed", team="t2")
    assert positions(state) == {"t1": fields, "t2": fields, "t3": 0}


def test_three_players_reduce_points_by_2_applies_to_guesses_not_to_the_chain_or_a_broken_rule() -> None:
    cards = [make_card("c1", A="rhyme"), make_card("c2", A="chain"), make_card("c3"), make_card("c4")]
    state = on_top(start("three_players", cards=cards, reduce_points_by=2), "c1", "c2", "c3")
    state = act(presented(state, "p1"), F, "rhyme_result", guessed=True)
    assert positions(state) == {"t1": 3, "t2": 3, "t3": 0}
    state = act(act(state, "p2", "draw"), F, "chain_result", winner_team="t3")
    assert positions(state) == {"t1": 3, "t2": 3, "t3": 4}
    state = act(presented(state, "p3"), F, "rule_broken")
    assert positions(state) == {"t1": 3, "t2": 3, "t3": 1}


def three_player_final(seed: int = 2) -> State:
    """p1 stands in the red target area; it is p1's turn, the card is drawn."""
    state = at(start("three_players", cards=8, seed=seed), t1=TARGET, t2=30, t3=44)
    return act(state, "p1", "draw")


def test_three_players_final_task_the_player_draws_and_chooses_the_hardest_term() -> None:
    state = three_player_final()
    assert state.phase == "choosing"
    assert [a["slot"] for a in legal_actions(state, "p1")] == list("ABCDEF")
    assert legal_actions(state, "p2") == [] and legal_actions(state, "p3") == []
    assert_refused(
        IllegalAction,
        state,
        "p2",
        {"type": "choose_hardest", "slot": "A"},
        "Only p1, who does the final task",
    )
    state = act(state, "p1", "choose_hardest", slot="C")
    # "They give the card to the left-hand neighbour ... The neighbour must present that term to the third player."
    assert state.task is not None and state.task.presenter == "p2"
    view = player_view(state, "p3")
    assert view["task"]["presenter"] == "p2" and view["task"]["guessers"] == ["t3"]
    assert view["task"]["form"] == "mime"  # the form follows the letter printed before the term
    assert legal_actions(state, "p2") == [{"type": "start_timer", "player": "p2"}]


def test_three_players_final_task_guessed_both_presenter_and_guesser_move_and_play_goes_on() -> None:
    state = act(act(three_player_final(), "p1", "choose_hardest", slot="B"), "p2", "start_timer")
    assert_refused(
        IllegalAction, state, F, {"type": "guessed", "team": "t1"}, "Only Team 3, the third player"
    )
    state = act(state, "p2", "guessed")
    assert positions(state) == {"t1": TARGET, "t2": 34, "t3": 48}
    assert not is_terminal(state) and turn_of(state) == "t2"


@pytest.mark.parametrize("kind", ["not_guessed", "time_up", "rule_broken"])
def test_three_players_final_task_not_guessed_the_player_who_chose_the_term_wins(kind: str) -> None:
    state = act(act(three_player_final(), "p1", "choose_hardest", slot="B"), "p2", "start_timer")
    state = act(state, F, kind)
    assert is_terminal(state)
    result = outcome(state)
    assert result is not None
    assert result["winner"] == "t1" and result["reason"] == "hardest_term_not_guessed"
    assert result["positions"]["t2"] == (27 if kind == "rule_broken" else 30)


# --- the stack --------------------------------------------------------------------------------


def test_every_card_is_used_once_and_the_game_ends_when_the_stack_runs_out() -> None:
    state = start("teams", (2, 2, 2), cards=4)
    seen = []
    for team in ("t1", "t2", None, "t1"):
        assert state.stack
        seen.append(state.stack[0])
        state = presented(state)
        state = act(state, F, "guessed", team=team) if team else act(state, F, "not_guessed")
    assert sorted(seen) == sorted(state.discards) == ["c1", "c2", "c3", "c4"]
    assert state.stack == ()
    assert is_terminal(state)
    result = outcome(state)
    assert result is not None and result["reason"] == "stack_exhausted"


def test_stack_runs_out_the_team_furthest_ahead_wins_and_a_tie_has_no_single_winner() -> None:
    state = at(start("teams", (2, 2, 2), cards=1), t2=30, t3=12)
    result = outcome(act(presented(state), F, "not_guessed"))
    assert result is not None
    assert (
        result["winner"] == "t2" and result["winners"] == ["t2"] and result["ranking"] == ["t2", "t3", "t1"]
    )
    tie = outcome(act(presented(at(state, t1=26)), F, "guessed"))
    assert tie is not None
    assert tie["winner"] is None and tie["winners"] == ["t1", "t2"] and tie["ranking"] == ["t1", "t2", "t3"]


def test_stack_running_out_while_looking_for_a_card_for_the_final_task_ends_the_game() -> None:
    cards = [make_card("c1", B="chain"), make_card("c2", B="rhyme")]
    state = at(start(cards=cards), t1=TARGET)
    state = act(act(state, "p1", "choose_area", area="B"), "p1", "draw")
    assert is_terminal(state)
    assert sorted(state.discards) == ["c1", "c2"] and state.stack == ()
    result = outcome(state)
    assert result is not None and result["reason"] == "stack_exhausted" and result["winner"] == "t1"


def test_stack_running_out_before_the_second_part_of_the_final_task_ends_the_game() -> None:
    state = at(start(cards=1), t1=TARGET)
    state = act(presented(act(state, "p1", "choose_area", area="A"), "p1"), F, "guessed", team="t1")
    result = outcome(state)
    assert result is not None and result["reason"] == "stack_exhausted"


# --- what each player sees --------------------------------------------------------------------


def test_only_the_representative_sees_the_term_guessers_see_the_form_and_area_letter_only() -> None:
    state = act(at(start("teams", (3, 2)), t1=20), "p1", "draw")
    secret = text_in_play(state)
    assert secret in view_text(state, "p1")
    for player in ("p2", "p3", "p4", "p5", None):
        text = view_text(state, player)
        assert secret not in text, player
        view = player_view(state, player)
        assert view["task"]["slot"] == "C" and view["task"]["form"] == "mime"
        assert view["task"]["text"] is None and view["task"]["card"] is None
    state = act(state, "p1", "start_timer")
    assert secret in view_text(state, "p1")  # the card is face down, the term is in their head
    assert all(secret not in view_text(state, p) for p in ("p2", "p3", "p4", "p5", None))


def test_the_facilitator_sees_the_term_unless_the_setup_says_otherwise() -> None:
    state = act(start(), "p1", "draw")
    secret = text_in_play(state)
    assert secret in view_text(state, F)
    assert sees_term(state, F)
    hidden = act(start(facilitator_sees_terms=False), "p1", "draw")
    assert secret not in view_text(hidden, F)
    assert player_view(hidden, F)["task"]["text"] is None
    assert secret not in view_text(state, None)  # a spectator never


def test_a_finished_term_never_appears_in_any_view() -> None:
    state = act(start(), "p1", "draw")
    secret = text_in_play(state)
    state = act(act(state, "p1", "start_timer"), F, "guessed")
    for player in [*all_ids(state), None, F]:
        assert secret not in view_text(state, player)


def test_final_task_part_two_the_other_teams_see_the_card_while_choosing_and_the_finalist_team_never() -> (
    None
):
    state = act(finalist_in_part_two(), "p1", "draw")
    assert state.task is not None
    card = state.task.card
    words = [f"word-{card}-{slot}" for slot in "ABCDEF"]
    for player in ("p3", "p4", F):
        text = view_text(state, player)
        assert all(word in text for word in words), player
        assert player_view(state, player)["task"]["card_terms"] is not None
    for player in ("p1", "p2", None):
        text = view_text(state, player)
        assert not any(word in text for word in words), player
    state = act(act(state, "p3", "choose_hardest", slot="E"), "p1", "start_timer")
    assert f"word-{card}-E" in view_text(state, "p1")
    assert f"word-{card}-E" in view_text(state, "p4")
    assert f"word-{card}-E" not in view_text(state, "p2")
    assert not any(word in view_text(state, "p3") for word in words if not word.endswith("-E"))


def test_three_players_final_the_chooser_sees_the_card_the_neighbour_the_chosen_term_the_third_nothing() -> (
    None
):
    state = three_player_final()
    assert state.task is not None
    card = state.task.card
    assert f"word-{card}-A" in view_text(state, "p1")
    assert f"word-{card}-A" not in view_text(state, "p2")
    state = act(state, "p1", "choose_hardest", slot="D")
    assert f"word-{card}-D" in view_text(state, "p1")
    assert f"word-{card}-D" in view_text(state, "p2")
    assert f"word-{card}-D" not in view_text(state, "p3")
    assert card not in view_text(state, "p3")


def test_the_board_pieces_turn_and_timer_are_public() -> None:
    state = act(at(start(timer=45), t1=13, t2=TARGET), "p1", "draw")
    for player in ("p3", None):
        view = player_view(state, player)
        assert [(t["id"], t["position"], t["field"], t["area"]) for t in view["teams"]] == [
            ("t1", 13, "B5", "B"),
            ("t2", TARGET, "target", None),
        ]
        assert view["turn"] == "t1" and view["representative"] == "p1" and view["timer"] == 45
        assert view["phase"] == "memorise" and view["task"]["points"] == 4
        assert view["teams"][1]["finalist"] is True
    assert player_view(state, None)["legal_actions"] == []
    assert player_view(state, "p3")["your_team"] == "t2"


def test_view_of_an_unknown_player_is_refused() -> None:
    with pytest.raises(InvalidAction, match="no player 'p9'"):
        player_view(start(), "p9")


# --- malformed and illegal actions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "action", "match"),
    [
        ("p1", ["draw"], "must be an object"),
        ("p1", {"type": "jump"}, "Unknown action type 'jump'"),
        ("p1", {}, "Unknown action type None"),
        ("p9", {"type": "draw"}, "no player 'p9'"),
        ("p1", {"type": "draw", "player": "p2"}, "names player 'p2' but was sent for 'p1'"),
        ("p1", {"type": "draw", "player": 7}, "player id or 'facilitator'"),
        (F, {"type": "choose_area"}, "'area': one of the letters A-F"),
        (F, {"type": "choose_area", "area": "G"}, "'area': one of the letters A-F"),
        (F, {"type": "choose_area", "area": "AB"}, "'area': one of the letters A-F"),
        (F, {"type": "choose_hardest", "slot": 1}, "'slot': one of the letters A-F"),
        (F, {"type": "guessed", "team": "t9"}, "no team 't9'"),
        (F, {"type": "guessed", "team": 1}, "'team' field is the id"),
        (F, {"type": "chain_result"}, "needs 'winner_team'"),
        (F, {"type": "chain_result", "winner_team": 3}, "'winner_team' field is a team id"),
        (F, {"type": "rhyme_result"}, "'guessed': true or false"),
        (F, {"type": "rhyme_result", "guessed": "yes"}, "'guessed': true or false"),
    ],
)
def test_malformed_actions_raise_invalid_action_and_change_nothing(
    player: str | None, action: Any, match: str
) -> None:
    state = start()
    assert_refused(InvalidAction, state, player, action, match)
    assert_refused(InvalidAction, presented(state), player, action, match)


@pytest.mark.parametrize(
    ("setup_actions", "player", "action", "match"),
    [
        ([], F, {"type": "start_timer"}, "No start_timer now: p1 .Team 1. draws a card"),
        ([], F, {"type": "guessed", "team": "t1"}, "No guessed now"),
        ([], F, {"type": "choose_area", "area": "A"}, "No choose_area now"),
        ([], F, {"type": "choose_hardest", "slot": "A"}, "No choose_hardest now"),
        ([], F, {"type": "chain_result", "winner_team": "t1"}, "No chain_result now"),
        (["draw"], F, {"type": "draw"}, "No draw now: p1 memorises the term"),
        (["draw"], F, {"type": "not_guessed"}, "No not_guessed now"),
        (["draw", "start_timer"], F, {"type": "draw"}, "No draw now: the hourglass runs"),
        (["draw", "start_timer"], F, {"type": "rhyme_result", "guessed": True}, "No rhyme_result now"),
        (["draw", "start_timer"], "p3", {"type": "not_guessed"}, "Only p1, who presents the term"),
    ],
)
def test_actions_the_rules_do_not_allow_now_raise_illegal_action_and_change_nothing(
    setup_actions: list[str], player: str | None, action: dict[str, Any], match: str
) -> None:
    state = start()
    for kind in setup_actions:
        state = act(state, F, kind)
    assert_refused(IllegalAction, state, player, action, match)


def test_actions_after_the_game_is_over_are_refused() -> None:
    state = act(presented(start(cards=1)), F, "guessed")
    assert is_terminal(state)
    assert_refused(IllegalAction, state, F, {"type": "draw"}, "The game is over")
    assert legal_actions(state, F) == [] and legal_actions(state, "p1") == []


def test_apply_action_returns_a_new_state_and_leaves_the_given_one_alone() -> None:
    state = start()
    before = state.to_dict()
    after = act(presented(state), F, "guessed")
    assert after != state and after.version == 3
    assert state.to_dict() == before


def test_the_facilitator_acts_as_none_or_facilitator_and_the_player_may_be_given_only_in_the_action() -> None:
    state = start()
    assert apply_action(state, None, {"type": "draw"}) == apply_action(state, F, {"type": "draw"})
    assert apply_action(state, None, {"type": "draw", "player": "p1"}).phase == "memorise"
    assert legal_actions(state, None) == legal_actions(state, F)


# --- state ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["teams", "three_players"])
def test_state_round_trips_through_json(variant: str) -> None:
    state = presented(start(variant, (2, 3)))
    for candidate in (state, act(state, F, "rule_broken"), finalist_in_part_two(), three_player_final()):
        data = json.loads(json.dumps(candidate.to_dict()))
        assert state_from_dict(data) == candidate
        assert State.from_dict(data).to_dict() == candidate.to_dict()


def test_state_from_dict_refuses_something_else() -> None:
    with pytest.raises(ValueError, match="Not an Activity state"):
        state_from_dict({"game": "know"})
    data = start().to_dict()
    del data["stack"]
    with pytest.raises(ValueError, match="Not an Activity state"):
        state_from_dict(data)


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(activity)
    assert result.attempted > 0
    assert result.failed == 0


# --- golden playthroughs ------------------------------------------------------------------------


def replay(log: dict[str, Any]) -> State:
    state = new_game(log["setup"], seed=log["seed"], variant=log["variant"])
    for action in log["actions"]:
        state = apply_action(state, action.get("player"), {k: v for k, v in action.items() if k != "player"})
    return state


@pytest.mark.parametrize("name", ["teams", "three_players", "teams_stack_exhausted"])
def test_golden_playthrough_replays_to_the_hand_checked_final_state(name: str) -> None:
    """Hand-checked against the rulebook; each log's ``notes`` walk through it turn by turn."""
    log = json.loads((GOLDEN / f"activity_{name}.json").read_text(encoding="utf-8"))
    assert log["game"] == "activity"
    assert set(log) == {"game", "variant", "seed", "setup", "actions", "expected", "notes"}
    state = replay(log)
    final = state.to_dict()
    assert {key: final[key] for key in log["expected"]} == log["expected"]
    assert replay(log) == state  # same setup, seed and actions: same state


# --- random play ----------------------------------------------------------------------------------

GAMES_PER_VARIANT = 150
MAX_ACTIONS = 2000
#: How often the table records each outcome: teams guess more often than not, or no game would end.
WEIGHTS = {
    "guessed": 6,
    "chain_result": 2,
    "chain_word": 1,
    "rhyme_result": 2,
    "not_guessed": 1,
    "time_up": 1,
    "rule_broken": 1,
}


def random_setup(variant: str, rng: random.Random) -> dict[str, Any]:
    deck = []
    for k in range(rng.randint(1, 45)):
        slots: dict[str, Any] = {}
        for slot in "ABCDEF":
            roll = rng.random()
            slots[slot] = "chain" if roll < 0.08 else "rhyme" if roll < 0.16 else rng.randint(3, 6)
        deck.append(make_card(f"c{k}", **slots))
    sizes = tuple(rng.randint(2, 3) for _ in range(rng.randint(2, 4)))
    extra: dict[str, Any] = {"facilitator_sees_terms": rng.random() < 0.7}
    if variant == "three_players" and rng.random() < 0.5:
        extra["reduce_points_by"] = 2
    setup = make_setup(variant, sizes, deck, **extra)
    if rng.random() < 0.3:
        setup["timer"] = rng.choice([30, 90, 120.5])
    return setup


def random_action(state: State, rng: random.Random) -> tuple[str | None, dict[str, Any]]:
    """Someone allowed to act does: the facilitator about half the time, else a player."""
    options: list[tuple[str | None, dict[str, Any]]] = []
    for actor in [None, F, *all_ids(state)]:
        options.extend((actor, action) for action in legal_actions(state, actor))
    weights = []
    for _actor, action in options:
        weight = WEIGHTS.get(action["type"], 3)
        if action["type"] == "rhyme_result" and not action["guessed"]:
            weight = 1
        weights.append(weight)
    actor, action = rng.choices(options, weights=weights)[0]
    return actor, {k: v for k, v in action.items() if k != "player"}


def check_invariants(state: State) -> None:
    ids = sorted(c.id for c in state.cards)
    in_play = [] if state.task is None else [state.task.card]
    everything = [*state.stack, *state.discards, *in_play]
    assert sorted(everything) == ids, "every card is in the stack, put aside or in play, once"
    drawn = [c for e in state.history for c in (*e.skipped, e.card)]
    assert len(drawn) == len(set(drawn)), "no card is drawn twice"
    assert set(drawn) <= set(state.discards)
    assert all(0 <= p <= TARGET for p in state.positions)
    assert (state.task is None) == (state.phase in ("ready", "over"))
    assert (state.timer_started_at is not None) == (state.phase == "presenting")
    if is_terminal(state):
        result = outcome(state)
        assert result is not None
        assert state.phase == "over"
        assert sorted(result["ranking"]) == sorted(t.id for t in state.teams)
        if result["reason"] == "stack_exhausted":
            assert state.stack == ()
            assert all(positions(state)[w] == max(state.positions) for w in result["winners"])
        elif result["reason"] == "final_task":
            assert positions(state)[result["winner"]] == TARGET
            assert state.history[-1].stage == "final_hardest" and state.history[-1].result == "guessed"
        else:
            assert state.variant == "three_players"
            assert state.history[-1].stage == "final_hardest" and state.history[-1].result != "guessed"
        return
    assert state.stack or state.phase != "ready", "a draw is awaited only with cards left"
    # Secrecy: the term in play is seen only by those the rules let see it.
    if state.task is not None and state.task.slot is not None:
        secret = text_in_play(state)
        term = next(c for c in state.cards if c.id == state.task.card).term(state.task.slot)
        for player in [None, F, *all_ids(state)]:
            visible = secret in view_text(state, player)
            assert visible == sees_term(state, player), (player, secret)
            if (
                term.kind != "chain"
                and player not in (F, state.task.presenter)
                and state.task.stage != "final_hardest"
            ):
                assert not visible
        teams = {t.id: t for t in state.teams}
        guessers = {p.id for tid in player_view(state, None)["task"]["guessers"] for p in teams[tid].players}
        if term.kind != "chain":
            for player in guessers - {state.task.presenter}:
                assert not sees_term(state, player), "a guesser never sees the term"


@pytest.mark.parametrize("variant", ["teams", "three_players"])
def test_random_play_keeps_pieces_on_the_board_uses_every_card_once_ends_and_round_trips(
    variant: str,
) -> None:
    endings: Counter[str] = Counter()
    for seed in range(GAMES_PER_VARIANT):
        rng = random.Random(f"{variant}:{seed}")
        state = new_game(random_setup(variant, rng), seed=seed, variant=variant)
        for count in range(MAX_ACTIONS):
            check_invariants(state)
            assert state.version == count
            if is_terminal(state):
                break
            player, action = random_action(state, rng)
            after = apply_action(state, player, action)
            assert after is not state
            state = after
            if count % 7 == 0:
                assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state
        else:
            pytest.fail(f"{variant} game {seed} did not end within {MAX_ACTIONS} actions")
        result = outcome(state)
        assert result is not None
        endings[result["reason"]] += 1
    assert endings["stack_exhausted"] > 0
    if variant == "teams":
        assert endings["final_task"] > 0
    else:
        assert endings["hardest_term_not_guessed"] > 0 and endings["final_task"] == 0


# --- purity ---------------------------------------------------------------------------------------


def test_the_engine_imports_nothing_from_django() -> None:
    tree = ast.parse((ROOT / "games" / "engines" / "activity.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        assert not any(m == "django" or m.startswith(("django.", "rest_framework")) for m in modules)
    code = (
        "import sys, games.engines.activity; "
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
