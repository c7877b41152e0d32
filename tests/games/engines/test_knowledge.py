"""Knowledge? engine, rule by rule (rules/knowledge.md: Setup; 1: Prepare the Round; 2: Quizzing,
The Quiz Cards, Reading and Resolving a Card, Special movement rules, Very unlikely case;
3: Complete the Round; Game End; Strategic Variant; rules/README.md: Knowledge? readings),
the replay.md state fields, golden playthroughs and random play."""

from __future__ import annotations

import ast
import doctest
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines import engine_for, knowledge, knowledge_board
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from games.engines.knowledge import (
    MARKERS,
    OPPONENTS,
    State,
    apply_action,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    player_view,
    progress,
    state_from_dict,
)
from games.engines.knowledge_board import (
    COLOURS,
    DEFAULT_BOARD,
    LETTERS,
    board_from_dict,
    default_board,
    move_lengths,
)

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"


# --- helpers ----------------------------------------------------------------------------------


def sp(colour: str, letter: str) -> dict[str, str]:
    return {"colour": colour, "letter": letter}


#: A 12-space loop for the rule tests: the finish (0) shows nothing.
TEST_BOARD: dict[str, Any] = {
    "spaces": [
        None,
        sp("red", "A"),
        sp("yellow", "B"),
        sp("green", "C"),
        sp("blue", "D"),
        sp("white", "E"),
        sp("red", "B"),
        sp("yellow", "C"),
        sp("green", "D"),
        sp("blue", "E"),
        sp("white", "A"),
        sp("red", "C"),
    ],  # fmt: skip
    "finish": 0,
    "opponent_start": 7,
    "opponent_start_hard": 10,
}

#: A 10-space loop where the letter E is printed on space 5 only.
ONE_E_BOARD: dict[str, Any] = {
    "spaces": [
        None,
        sp("red", "A"),
        sp("yellow", "B"),
        sp("green", "C"),
        sp("blue", "D"),
        sp("white", "E"),
        sp("red", "A"),
        sp("yellow", "B"),
        sp("green", "C"),
        sp("blue", "D"),
    ],  # fmt: skip
    "finish": 0,
    "opponent_start": 9,
}

FRONT_LETTERS = {"white": "A", "green": "B", "yellow": "C", "blue": "D", "red": "E"}
#: Opponents out of the way of most tests: spaces 6-10, white A ... red E.
FAR = [("white", 6), ("green", 7), ("yellow", 8), ("blue", 9), ("red", 10)]


def card(card_id: str, answer: int | str) -> dict[str, Any]:
    """A quiz card; ``"C/D"`` or ``"red/blue"`` are several options."""
    value: int | list[str]
    if isinstance(answer, int):
        category, value = "number", answer
    else:
        parts = answer.split("/")
        category, value = ("letter" if all(p in LETTERS for p in parts) else "colour"), parts
    return {
        "id": card_id,
        "category": category,
        "answer": value,
        "front": f"FRONT-{card_id}",
        "back": f"BACK-{card_id}: {answer}",
    }


#: A question pool of 36 cards: every number 0-5, every letter and colour, and some "C/D" options.
POOL: list[dict[str, Any]] = [
    card(f"p{number}", answer)
    for number, answer in enumerate(
        [0, 1, 2, 3, 4, 5, *LETTERS, *COLOURS, "C/D", "A/E", "red/blue", 2, 3, 4, 5, 1, 3]
        + [*LETTERS, *COLOURS][::-1],
        start=1,
    )
]


def make_setup(
    answers: list[int | str],
    *,
    board: dict[str, Any] | None = None,
    team: int = 0,
    opponents: list[tuple[str, int]] | None = None,
    letters: dict[str, str] | None = None,
    pad: int = 12,
) -> dict[str, Any]:
    """Cards c1, c2, ... with ``answers``, padded with 0-step cards to ``pad`` cards."""
    answers = [*answers, *([0] * max(0, pad - len(answers)))]
    letters = letters or FRONT_LETTERS
    return {
        "board": board or TEST_BOARD,
        "team_space": team,
        "opponents": [
            {"colour": colour, "letter": letters[colour], "space": space}
            for colour, space in (opponents or FAR)
        ],
        "cards": [card(f"c{number}", answer) for number, answer in enumerate(answers, start=1)],
    }


def start(answers: list[int | str], *, variant: str = "strategic", seed: int = 1, **options: Any) -> State:
    return new_game(make_setup(answers, **options), seed=seed, variant=variant)


def play(state: State, card_id: str, marker: str, **extra: Any) -> State:
    return apply_action(state, None, {"type": "assign", "card": card_id, "marker": marker, **extra})


def space(state: State, marker: str) -> int:
    return state.space_of(marker)


def stacks(state: State) -> dict[str, list[str]]:
    return state.stacks_dict()


def placed(state: State, stacks: dict[str, list[str]] | None = None, **where: tuple[int, int]) -> State:
    """The state with markers put on (space, crossings); opponents get the flag from their first
    crossing.  Goes through to_dict/from_dict, which checks stacks and spaces agree."""
    data = state.to_dict()
    for marker, (at, crossings) in where.items():
        data["markers"][marker]["space"] = at
        data["markers"][marker]["crossings"] = crossings
        if marker != "team":
            data["markers"][marker]["flag"] = crossings >= 1
    data["stacks"] = stacks or {}
    return state_from_dict(data)


def assert_refused(error: type[Exception], state: State, player: str | None, action: Any, match: str) -> None:
    """The action raises ``error`` with a readable message and changes nothing."""
    before = state.to_dict()
    with pytest.raises(error, match=match) as raised:
        apply_action(state, player, action)
    message = str(raised.value)
    assert message[0].isupper() and message.endswith("."), message
    assert state.to_dict() == before


# --- the board as data --------------------------------------------------------------------------


def nearest(board: dict[str, Any], origin: int, wanted: str) -> int:
    """Brute force: steps from ``origin`` to the next space printed with ``wanted``."""
    spaces = board["spaces"]
    for steps in range(1, len(spaces)):
        printed = spaces[(origin + steps) % len(spaces)]
        if printed is not None and wanted in (printed["colour"], printed["letter"]):
            return steps
    raise AssertionError(f"{wanted} is not on the board")


def test_default_board_is_a_closed_loop_where_every_colour_and_letter_recurs() -> None:
    board = default_board()
    assert 40 <= board.length <= 48
    assert board.spaces[board.finish] is None
    printed = [s for s in board.spaces if s is not None]
    for colour in COLOURS:
        assert sum(s.colour == colour for s in printed) >= 6, colour
    for letter in LETTERS:
        assert sum(s.letter == letter for s in printed) >= 6, letter
    assert {(s.colour, s.letter) for s in printed} == {(c, x) for c in COLOURS for x in LETTERS}


def test_default_board_letter_and_colour_moves_are_short_from_every_space() -> None:
    """README: "a move by letter or colour is rarely longer than 10 spaces"; measured on the
    empty board from every space to the nearest space of each colour and letter."""
    data = {**DEFAULT_BOARD, "spaces": list(DEFAULT_BOARD["spaces"])}
    distances = [
        nearest(data, origin, wanted)
        for origin in range(len(data["spaces"]))
        for wanted in (*COLOURS, *LETTERS)
    ]
    assert max(distances) <= 6
    assert mean(distances) < 3.5
    measured = move_lengths(default_board())
    assert measured["max"] == max(distances)
    assert measured["mean"] == pytest.approx(mean(distances))
    assert all(nearest(data, origin, wanted) == measured["max"] for origin, wanted in measured["worst"])


def test_default_board_round_trips_as_data() -> None:
    board = default_board()
    assert board_from_dict(json.loads(json.dumps(board.to_dict()))) == board
    assert board.start_spaces(hard=False) == (7, 6, 5, 4, 3)
    assert board.start_spaces(hard=True) == (17, 16, 15, 14, 13)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            {
                "spaces": [None]
                + [sp("red", "A"), sp("yellow", "B"), sp("green", "C"), sp("white", "D"), sp("red", "E")] * 2
            },
            r"never shows the colour\(s\) blue: a card asking for it could never be resolved",
        ),
        (
            {"spaces": [None] + [sp("red", "A"), sp("yellow", "B"), sp("green", "C"), sp("white", "D")] * 3},
            r"never shows the colour\(s\) blue and the letter\(s\) E",
        ),
        (
            {
                "spaces": [None]
                + [sp("red", "A"), sp("yellow", "B"), sp("green", "C"), sp("blue", "D"), sp("white", "A")] * 2
            },
            r"never shows the letter\(s\) E",
        ),
        ({"spaces": [None, sp("red", "A")] * 4}, "list of 10 to 200 spaces"),
        ({"spaces": "loop"}, "list of 10 to 200 spaces"),
        ({"finish": 12}, "'finish' must be a space number from 0 to 11"),
        ({"opponent_start": None}, "'opponent_start' must be a space number"),
        ({"opponent_start": 2}, "the finish space 0 must not be one of them"),
        ({"opponent_start_hard": 3}, "'opponent_start_hard' and the 4 spaces behind it"),
        (
            {"spaces": [None, {"colour": "purple", "letter": "A"}] + TEST_BOARD["spaces"][2:]},
            "colour must be one of",
        ),
        (
            {"spaces": [None, {"colour": "red", "letter": "F"}] + TEST_BOARD["spaces"][2:]},
            "letter must be one of A-E",
        ),
        ({"spaces": [None, {"colour": "red"}] + TEST_BOARD["spaces"][2:]}, "Board space 1 must be null or"),
        ({"corners": 4}, "Unknown board field"),
    ],
)
def test_board_validation_refuses_a_board_that_cannot_be_played(change: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidSetup, match=match):
        board_from_dict({**TEST_BOARD, **change})
    with pytest.raises(InvalidSetup, match=match):
        new_game({"board": {**TEST_BOARD, **change}}, seed=1, variant="basic")


def test_board_without_a_harder_start_refuses_the_harder_start() -> None:
    board = {key: value for key, value in TEST_BOARD.items() if key != "opponent_start_hard"}
    assert board_from_dict(board).opponent_start_hard is None
    with pytest.raises(InvalidSetup, match="'harder_start' needs a board with an 'opponent_start_hard'"):
        new_game({"board": board, "cards": POOL, "harder_start": True}, seed=1, variant="basic")


# --- setup ------------------------------------------------------------------------------------


def test_the_engine_is_found_by_name_and_has_the_shared_api() -> None:
    engine = engine_for("knowledge")
    assert engine is knowledge
    assert engine.GAME == "knowledge" and engine.VARIANTS == ("basic", "strategic")
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


def test_setup_team_marker_on_the_start_and_finish_space() -> None:
    state = new_game({"cards": POOL}, seed=1, variant="basic")
    assert state.team.space == state.board.finish == 0
    assert state.team.crossings == 0 and progress(state, "team") == 0


def test_setup_opponents_front_side_up_in_random_order_on_the_start_space_and_the_4_behind_it() -> None:
    orders = set()
    for seed in range(40):
        state = new_game({"cards": POOL}, seed=seed, variant="basic")
        spaces = {m.colour: m.space for m in state.opponents}
        assert sorted(spaces.values()) == [3, 4, 5, 6, 7]
        assert all(m.crossings == 0 and not m.flag for m in state.opponents)
        assert state.stacks == {}
        orders.add(tuple(sorted(spaces, key=spaces.__getitem__)))
        # As documented: the order from rng_for(seed, "opponents"), start space first.
        expected = list(OPPONENTS)
        rng_for(seed, "opponents").shuffle(expected)
        assert [c for c in expected] == sorted(spaces, key=lambda c: -spaces[c])
    assert len(orders) > 10


def test_setup_front_letters_a_to_e_are_assigned_to_the_opponents_at_random() -> None:
    seen = set()
    for seed in range(40):
        state = new_game({"cards": POOL}, seed=seed, variant="basic")
        letters = {m.colour: m.letter for m in state.opponents}
        assert sorted(letters.values()) == list(LETTERS)
        expected = list(LETTERS)
        rng_for(seed, "letters").shuffle(expected)
        assert [letters[c] for c in OPPONENTS] == expected
        seen.add(tuple(letters[c] for c in OPPONENTS))
    assert len(seen) > 10


def test_setup_harder_start_places_the_opponents_on_the_marked_space_in_the_lower_area() -> None:
    state = new_game({"cards": POOL, "harder_start": True}, seed=3, variant="basic")
    assert sorted(m.space for m in state.opponents) == [13, 14, 15, 16, 17]
    assert sorted(progress(state, c) for c in OPPONENTS) == [13, 14, 15, 16, 17]
    small = new_game({"board": TEST_BOARD, "cards": POOL, "harder_start": True}, seed=3, variant="basic")
    assert sorted(m.space for m in small.opponents) == [6, 7, 8, 9, 10]


def test_setup_same_seed_same_game_and_another_seed_another() -> None:
    assert new_game({"cards": POOL}, seed=5, variant="basic") == new_game(
        {"cards": POOL}, seed=5, variant="basic"
    )
    games = {json.dumps(new_game({"cards": POOL}, seed=seed, variant="basic").to_dict()) for seed in range(5)}
    assert len(games) == 5


def test_setup_explicit_opponents_where_two_share_a_space_the_later_lies_on_top() -> None:
    state = start([], opponents=[("white", 6), ("green", 6), ("yellow", 8), ("blue", 6), ("red", 10)])
    assert stacks(state) == {"6": ["white", "green", "blue"]}
    assert state.to_dict()["markers"]["green"] == {"space": 6, "crossings": 0, "flag": False, "letter": "B"}


def test_setup_without_cards_is_refused_the_question_pool_must_be_given() -> None:
    """A session always passes the cards drawn from the teacher's question pool; the engine
    never falls back to other questions."""
    with pytest.raises(InvalidSetup, match="no 'cards': give the question pool's cards"):
        new_game({}, seed=1, variant="basic")
    with pytest.raises(InvalidSetup, match="at least 6 quiz cards"):
        new_game({"cards": POOL[:5]}, seed=1, variant="basic")


def test_setup_players_are_recorded_for_the_log_and_change_nothing() -> None:
    team = [{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}]
    assert new_game({"cards": POOL, "players": team}, seed=4, variant="basic") == new_game(
        {"cards": POOL}, seed=4, variant="basic"
    )
    with pytest.raises(InvalidSetup, match="'players' must be a list of team members"):
        new_game({"cards": POOL, "players": "everyone"}, seed=4, variant="basic")


def test_setup_cards_are_the_draw_order_of_the_whole_game() -> None:
    state = start([1, 2, 3, 4, 5, 0, 1, 2])
    assert state.to_dict()["round_cards"] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert state.to_dict()["order"][:8] == [f"c{n}" for n in range(1, 9)]


SETUP_MISTAKES = [
    ({"colours": []}, "Unknown setup field"),
    ({"harder_start": "yes"}, "'harder_start' must be true or false"),
    ({"team_space": 12}, "'team_space' must be a space from 0 to 11"),
    ({"team_space": True}, "'team_space' must be a space"),
    ({"opponents": [{"colour": "white", "letter": "A", "space": 1}]}, "must list all five opponent markers"),
    ({"opponents": [{"colour": "white", "letter": x, "space": 1} for x in LETTERS]}, "each once"),
    (
        {"opponents": [{"colour": c, "letter": "A", "space": 1} for c in OPPONENTS]},
        "front letters are A-E, each once",
    ),
    (
        {
            "opponents": [
                {"colour": c, "letter": x, "space": 99} for c, x in zip(OPPONENTS, LETTERS, strict=True)
            ]
        },
        "'space' must be a space",
    ),
    ({"opponents": [{"colour": "black", "letter": "A", "space": 1}] * 5}, "Opponent colour 'black'"),
    ({"cards": [card("a", 1)] * 6}, "Two cards have the id 'a'"),
    ({"cards": [card(f"a{n}", 1) for n in range(5)]}, "at least 6 quiz cards"),
    (
        {"cards": [{**card("a", 1), "answer": 6}] + [card(f"b{n}", 1) for n in range(5)]},
        "whole number from 0 to 5, not 6",
    ),
    (
        {"cards": [{**card("a", "A"), "answer": ["F"]}] + [card(f"b{n}", 1) for n in range(5)]},
        "one or more of A, B, C, D, E, not 'F'",
    ),
    (
        {"cards": [{**card("a", "red"), "answer": "purple"}] + [card(f"b{n}", 1) for n in range(5)]},
        "one or more of red, yellow",
    ),
    (
        {"cards": [{**card("a", "red"), "answer": []}] + [card(f"b{n}", 1) for n in range(5)]},
        "one or more of red",
    ),
    (
        {"cards": [{**card("a", 1), "category": "history"}] + [card(f"b{n}", 1) for n in range(5)]},
        "category must be number, letter or colour",
    ),
    ({"cards": [{**card("a", 1), "source": "book"}] + [card(f"b{n}", 1) for n in range(5)]}, "unknown field"),
    ({"cards": [{**card("a", 1), "id": ""}] + [card(f"b{n}", 1) for n in range(5)]}, "non-empty string 'id'"),
    (
        {"cards": [{**card("a", 1), "front": 7}] + [card(f"b{n}", 1) for n in range(5)]},
        "'front' must be a text",
    ),
]


@pytest.mark.parametrize(("change", "match"), SETUP_MISTAKES)
def test_setup_mistakes_are_refused_with_a_reason(change: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidSetup, match=match):
        new_game({**make_setup([]), **change}, seed=1, variant="basic")


def test_setup_unknown_variant_and_bad_seed_are_refused() -> None:
    with pytest.raises(InvalidSetup, match="Unknown variant 'duel'"):
        new_game({"cards": POOL}, seed=1, variant="duel")
    with pytest.raises(InvalidSetup, match="seed must be an integer"):
        new_game({"cards": POOL}, seed=True, variant="basic")


def test_setup_card_answers_are_read_in_canonical_form() -> None:
    setup = make_setup([], pad=6)
    setup["cards"][0] = {"id": "x", "category": "letter", "answer": ["d", "c", "D"]}
    setup["cards"][1] = {"id": "y", "category": "colour", "answer": ["Blue", "RED"]}
    setup["cards"][2] = {"id": "z", "category": "letter", "answer": "e"}
    state = new_game(setup, seed=1, variant="basic")
    assert [c.answer for c in state.cards[:3]] == [("C", "D"), ("red", "blue"), ("E",)]
    assert state.cards[0].front is None and state.to_dict()["cards"][0] == {
        "id": "x",
        "category": "letter",
        "answer": ["C", "D"],
    }


# --- 1: prepare the round, 3: complete the round ---------------------------------------------------


def test_prepare_the_round_draws_6_cards_and_every_card_slot_is_free() -> None:
    state = start([1, 2, 3])
    data = state.to_dict()
    assert data["round"] == 1 and len(data["round_cards"]) == 6
    assert data["slots"] == {} and data["moved_this_round"] == []
    assert len(legal_actions(state, None)) == 6 * 6  # strategic: any card, any marker


def test_each_marker_moves_exactly_once_per_round_and_the_round_then_completes() -> None:
    state = start([1, 1, 1, 1, 1, 1, 2, 2])
    for number, marker in enumerate(MARKERS, start=1):
        assert marker not in state.moved_this_round
        state = play(state, f"c{number}", marker)
        if number < 6:
            assert state.moved_this_round[-1] == marker
    # 3: Complete the Round: slots cleared, markers stay, next round prepared.
    data = state.to_dict()
    assert data["round"] == 2 and data["moved_this_round"] == [] and data["slots"] == {}
    assert data["round_cards"] == ["c7", "c8", "c9", "c10", "c11", "c12"]
    assert space(state, "team") == 1 and space(state, "red") == 11


def test_a_marker_that_has_moved_this_round_gets_no_other_card() -> None:
    state = play(start([1, 1]), "c1", "white")
    assert all(action["marker"] != "white" for action in legal_actions(state, None))
    assert_refused(
        IllegalAction,
        state,
        None,
        {"type": "assign", "card": "c2", "marker": "white"},
        "already moved this round",
    )


def test_the_sixth_card_must_go_to_the_only_remaining_free_card_slot() -> None:
    state = start([1, 1, 1, 1, 1, 1])
    for number, marker in enumerate(MARKERS[:5], start=1):
        state = play(state, f"c{number}", marker)
    assert legal_actions(state, None) == [{"type": "assign", "card": "c6", "marker": "red"}]
    assert_refused(
        IllegalAction, state, None, {"type": "assign", "card": "c6", "marker": "team"}, "still free: red"
    )


def test_basic_game_cards_are_played_from_the_top_of_the_stack_in_draw_order() -> None:
    state = start([1, 2, 3], variant="basic")
    assert {a["card"] for a in legal_actions(state, None)} == {"c1"}
    assert_refused(
        IllegalAction,
        state,
        None,
        {"type": "assign", "card": "c2", "marker": "team"},
        "the next card is 'c1'",
    )
    state = play(state, "c1", "blue")
    assert {a["card"] for a in legal_actions(state, None)} == {"c2"}


def test_strategic_variant_assigns_the_cards_in_an_order_of_your_choice() -> None:
    state = start([1, 2, 3, 4, 5, 0])
    assert {a["card"] for a in legal_actions(state, None)} == {f"c{n}" for n in range(1, 7)}
    state = play(state, "c5", "team")
    state = play(state, "c1", "white")
    assert space(state, "team") == 5 and space(state, "white") == 7
    assert_refused(
        IllegalAction, state, None, {"type": "assign", "card": "c5", "marker": "green"}, "already been played"
    )


def test_played_cards_are_set_aside_and_when_the_order_runs_out_they_are_reshuffled() -> None:
    state = start([1, 1, 1, 1, 1, 1], pad=6)
    for number, marker in enumerate(MARKERS, start=1):
        state = play(state, f"c{number}", marker)
    data = state.to_dict()
    assert data["round"] == 2
    assert sorted(data["round_cards"]) == sorted(f"c{n}" for n in range(1, 7))
    rest = list(range(6))
    rng_for(1, "reshuffle", 6).shuffle(rest)
    assert data["round_cards"] == [f"c{n + 1}" for n in rest]


# --- number cards -------------------------------------------------------------------------------


def test_number_card_moves_exactly_that_many_spaces() -> None:
    state = play(start([4]), "c1", "team")
    assert space(state, "team") == 4
    state = play(state, "c2", "white")  # a padding card: 0
    assert space(state, "white") == 6


def test_number_card_0_does_not_move_the_marker_but_it_has_moved_this_round() -> None:
    state = start([0], opponents=[("white", 6), ("green", 6), ("yellow", 8), ("blue", 9), ("red", 10)])
    state = play(state, "c1", "white")
    assert space(state, "white") == 6 and stacks(state) == {"6": ["white", "green"]}
    assert "white" in state.moved_this_round


def test_number_card_the_team_space_counts_as_one_step_for_an_opponent() -> None:
    state = play(start([3], team=8, opponents=[("white", 7), *FAR[1:]]), "c1", "white")
    assert space(state, "white") == 10
    assert state.history[-1].steps == 3 and not state.history[-1].skipped_team


def test_number_card_an_opponent_landing_on_the_team_space_skips_to_the_next_space() -> None:
    state = play(
        start([2], team=9, opponents=[("white", 7), ("green", 1), ("yellow", 2), ("blue", 3), ("red", 10)]),
        "c1",
        "white",
    )
    assert space(state, "white") == 10 and space(state, "team") == 9
    assert stacks(state) == {"10": ["red", "white"]}
    assert state.history[-1].skipped_team and state.history[-1].steps == 3


def test_number_card_the_team_marker_landing_on_opponents_lies_on_top() -> None:
    opponents = [("white", 3), ("green", 3), ("yellow", 1), ("blue", 9), ("red", 10)]
    state = play(start([3, "green"], opponents=opponents), "c1", "team")
    assert space(state, "team") == 3
    assert stacks(state) == {"3": ["white", "green"]}  # the team is never listed: it lies on top
    # The team covers the green marker: yellow, moving by green, goes on to the green space 8.
    state = play(state, "c2", "yellow")
    assert space(state, "yellow") == 8


# --- letter and colour cards ------------------------------------------------------------------------


def test_letter_card_moves_to_the_nearest_space_showing_that_letter() -> None:
    state = play(start(["C"]), "c1", "team")
    assert space(state, "team") == 3


def test_colour_card_moves_to_the_nearest_space_showing_that_colour() -> None:
    state = play(start(["blue"]), "c1", "team")
    assert space(state, "team") == 4


def test_letter_or_colour_card_may_end_on_an_opponent_marker_showing_it() -> None:
    opponents = [("white", 3), ("green", 8), ("yellow", 9), ("blue", 10), ("red", 11)]
    state = play(start(["white"], opponents=opponents), "c1", "team")
    assert space(state, "team") == 3  # the white opponent, nearer than the white space 5
    state = play(start(["A"], opponents=opponents, team=2), "c1", "team")
    assert space(state, "team") == 3  # the white opponent's front letter A


def test_an_opponent_marker_covers_the_colour_and_letter_of_the_space() -> None:
    opponents = [("white", 3), ("green", 8), ("yellow", 9), ("blue", 10), ("red", 11)]
    state = play(start(["C"], opponents=opponents), "c1", "team")
    assert space(state, "team") == 7  # space 3 shows green C, but the white marker (A) covers it
    state = play(start(["green"], opponents=opponents), "c1", "team")
    assert space(state, "team") == 8  # the green marker on space 8


def test_the_top_marker_of_a_stack_shows_its_colour_and_letter() -> None:
    opponents = [("yellow", 2), ("white", 2), ("green", 8), ("blue", 9), ("red", 11)]
    state = start(["C", "A", "yellow"], opponents=opponents, team=1)
    assert stacks(state) == {"2": ["yellow", "white"]}
    assert space(play(state, "c1", "team"), "team") == 3  # yellow (C) is under white (A)
    after = play(state, "c2", "team")
    assert space(after, "team") == 2  # white A on top
    assert stacks(after) == {"2": ["yellow", "white"]}
    assert space(play(state, "c3", "team"), "team") == 7  # not the yellow marker under white


def test_the_team_marker_covers_its_space_unavailable_to_opponents_moving_by_letter_or_colour() -> None:
    opponents = [("white", 1), ("green", 11), ("blue", 3), ("yellow", 9), ("red", 10)]
    state = start(["C", "green", "D"], team=3, opponents=opponents)
    assert space(play(state, "c1", "white"), "white") == 7  # space 3 (green C) is the team's
    assert space(play(state, "c2", "white"), "white") == 8  # green D, not the green space 3
    # The blue marker under the team (letter D) is covered too: the green marker goes to space 4.
    assert space(play(state, "c3", "green"), "green") == 4


def test_the_team_marker_moving_by_letter_lands_on_top_of_a_stack() -> None:
    opponents = [("white", 5), ("green", 5), ("yellow", 8), ("blue", 9), ("red", 10)]
    state = play(start(["B"], opponents=opponents), "c1", "team")
    assert space(state, "team") == 2  # yellow B space
    state = play(start(["green"], opponents=opponents, team=3), "c1", "team")
    assert space(state, "team") == 5 and stacks(state) == {"5": ["white", "green"]}


def test_several_options_move_to_the_nearest_of_either_without_choice() -> None:
    state = start(["C/D", "green/blue", "D/C"], opponents=[("white", 5), *FAR[1:]])
    # 6 is red B, 7 holds the green marker (front B), 8 the yellow marker (front C): C is nearer than D.
    assert space(play(state, "c1", "white"), "white") == 8
    assert space(play(state, "c2", "white"), "white") == 7  # the green marker, nearer than blue
    assert space(play(state, "c3", "white"), "white") == 8  # the order of the options does not matter


def test_a_letter_move_never_ends_on_the_marker_own_space() -> None:
    # The white marker (A) stands on space 10 (white A); "A" sends it to the next A: space 1.
    state = play(
        start(
            ["A", "white"],
            opponents=[("white", 10), ("green", 2), ("yellow", 3), ("blue", 4), ("red", 6)],
            team=5,
        ),
        "c1",
        "white",
    )
    assert space(state, "white") == 1 and state.opponent("white").crossings == 1


def test_moving_a_marker_from_under_a_stack_takes_it_out_and_leaves_the_others_in_order() -> None:
    opponents = [("white", 6), ("green", 6), ("yellow", 6), ("blue", 8), ("red", 10)]
    state = start([1, 2], opponents=opponents)
    assert stacks(state) == {"6": ["white", "green", "yellow"]}
    state = play(state, "c1", "green")  # from the middle: alone, the others stay
    assert space(state, "green") == 7 and space(state, "yellow") == 6
    assert stacks(state) == {"6": ["white", "yellow"]}
    state = play(state, "c2", "white")  # from the bottom onto the blue marker
    assert stacks(state) == {"8": ["blue", "white"]}
    assert space(state, "yellow") == 6


def test_move_record_a_letter_move_skipping_the_team_marker_explains_itself() -> None:
    """The history is the move record a screen explains: "white moves to the next D: 3 spaces,
    skipping the team marker" (on space 3 the team covers the blue marker, front D)."""
    opponents = [("white", 1), ("green", 11), ("blue", 3), ("yellow", 9), ("red", 10)]
    state = play(start(["D"], team=3, opponents=opponents), "c1", "white")
    record = state.to_dict()["history"][-1]
    assert {k: record[k] for k in ("marker", "from", "to", "steps", "matched", "skipped_team", "on_marker")} == {
        "marker": "white", "from": 1, "to": 4, "steps": 3, "matched": "D", "skipped_team": True, "on_marker": None
    }  # fmt: skip
    # The C printed on space 3 is covered too (by blue's D): a C move passes it without a skip.
    record = play(start(["C"], team=3, opponents=opponents), "c1", "white").history[-1]
    assert (record.to_space, record.skipped_team) == (7, False)


def test_move_record_a_letter_move_that_never_reaches_the_team_space_skips_nothing() -> None:
    opponents = [("white", 1), ("green", 11), ("blue", 3), ("yellow", 9), ("red", 10)]
    state = play(start(["B"], team=3, opponents=opponents), "c1", "white")
    assert space(state, "white") == 2 and not state.history[-1].skipped_team


def test_move_record_names_the_opponent_marker_a_move_ended_on() -> None:
    state = start(["C/D", "green"], opponents=[("white", 5), *FAR[1:]])
    after = play(state, "c1", "white")
    record = after.history[-1]
    assert (record.to_space, record.matched, record.on_marker, record.onto) == (8, "C", "yellow", ("yellow",))
    record = play(state, "c2", "white").history[-1]  # the green marker shows green
    assert (record.to_space, record.matched, record.on_marker) == (7, "green", "green")


def test_move_record_a_marker_taken_from_inside_a_stack_moves_alone() -> None:
    opponents = [("white", 6), ("green", 6), ("yellow", 6), ("blue", 8), ("red", 10)]
    state = start([1, 2, 3], opponents=opponents)
    middle = play(state, "c1", "green").history[-1]
    assert middle.from_stack and middle.onto == ()
    top = play(state, "c1", "yellow").history[-1]
    assert not top.from_stack  # the top marker was not below others
    onto_blue = play(state, "c2", "white").history[-1]
    assert onto_blue.from_stack and onto_blue.onto == ("blue",)


def test_move_record_the_flag_is_turned_once_on_the_first_crossing() -> None:
    state = start([3, 3, 5], opponents=[("white", 10), *FAR[1:4], ("red", 11)], team=4)
    state = play(state, "c1", "white")
    assert state.history[-1].crossed and state.history[-1].flag_turned and state.opponent("white").flag


def test_an_opponent_landing_on_other_opponents_goes_on_top() -> None:
    state = play(
        start([2], opponents=[("white", 6), ("green", 8), ("yellow", 8), ("blue", 9), ("red", 10)]),
        "c1",
        "white",
    )
    assert stacks(state) == {"8": ["green", "yellow", "white"]}


def test_a_marker_moving_out_of_a_stack_leaves_the_markers_above_it_behind() -> None:
    # White (A) lies on green (B) on space 1 (red A); green moves by "A": the white marker
    # above it stays behind, so the nearest A is the white space 10, not its own stack.
    opponents = [("green", 1), ("white", 1), ("yellow", 3), ("blue", 4), ("red", 5)]
    state = play(start(["A"], opponents=opponents, team=7), "c1", "green")
    assert space(state, "green") == 10 and space(state, "white") == 1
    assert stacks(state) == {}


@st.composite
def positions(draw: st.DrawFn) -> tuple[State, str, dict[str, Any]]:
    """Any board with every colour and letter, markers anywhere, a letter or colour card."""
    length = draw(st.integers(10, 16))
    printed = st.one_of(st.none(), st.builds(sp, st.sampled_from(COLOURS), st.sampled_from(LETTERS)))
    spaces = [None, *draw(st.lists(printed, min_size=length - 6, max_size=length - 6))]
    spaces += [sp(c, x) for c, x in zip(COLOURS, LETTERS, strict=True)]  # each at least once
    board = {"spaces": spaces, "finish": 0, "opponent_start": 5}
    where = draw(st.lists(st.integers(0, length - 1), min_size=5, max_size=5))
    order = draw(st.permutations(list(OPPONENTS)))
    opponents = sorted(zip(OPPONENTS, where, strict=True), key=lambda pair: order.index(pair[0]))
    letters = dict(zip(OPPONENTS, draw(st.permutations(list(LETTERS))), strict=True))
    options = draw(st.sampled_from(["letter", "colour"]))
    wanted = draw(
        st.lists(st.sampled_from(LETTERS if options == "letter" else COLOURS), min_size=1, max_size=2)
    )
    state = start(
        ["/".join(wanted)],
        board=board,
        team=draw(st.integers(0, length - 1)),
        opponents=opponents,
        letters=letters,
    )
    return state, draw(st.sampled_from(MARKERS)), state.to_dict()


@given(positions())
@settings(max_examples=300, deadline=None)
def test_property_a_letter_or_colour_move_ends_on_the_nearest_visible_match(
    case: tuple[State, str, dict[str, Any]],
) -> None:
    state, marker, data = case
    length = state.board.length
    wanted = set(state.cards[0].answer)  # type: ignore[arg-type]
    side = "colour" if state.cards[0].category == "colour" else "letter"

    def shows(at: int) -> str | None:
        """What ``marker`` sees on space ``at`` once taken off its own stack."""
        if marker != "team" and at == data["markers"]["team"]["space"]:
            return None
        pile = data["stacks"].get(str(at)) or [c for c in OPPONENTS if data["markers"][c]["space"] == at]
        pile = [c for c in pile if c != marker]
        if pile:
            return pile[-1] if side == "colour" else str(data["markers"][pile[-1]]["letter"])
        printed = data["board"]["spaces"][at]
        return None if printed is None else str(printed[side])

    origin = state.space_of(marker)
    after = play(state, "c1", marker)
    if after.history[-1].movement == "abandoned":
        assert not any(shows((origin + d) % length) in wanted for d in range(1, length))
        return
    steps = after.history[-1].steps
    assert 1 <= steps < length and after.space_of(marker) == (origin + steps) % length
    assert shows(after.space_of(marker)) in wanted
    assert not any(shows((origin + d) % length) in wanted for d in range(1, steps))
    if marker != "team":
        assert after.space_of(marker) != after.team.space
        assert stacks(after).get(str(after.space_of(marker)), [marker])[-1] == marker  # on top


# --- crossings and flags -------------------------------------------------------------------------------


def test_flag_when_an_opponent_enters_the_finish_space_for_the_first_time() -> None:
    state = play(
        start([2], team=5, opponents=[("white", 10), ("green", 1), ("yellow", 2), ("blue", 3), ("red", 4)]),
        "c1",
        "white",
    )
    assert space(state, "white") == 0
    marker = state.to_dict()["markers"]["white"]
    assert marker["flag"] is True and marker["crossings"] == 1
    assert state.history[-1].crossed


def test_flag_when_an_opponent_passes_the_finish_space_for_the_first_time() -> None:
    state = start(
        [3, "B"], team=5, opponents=[("white", 11), ("green", 1), ("yellow", 3), ("blue", 4), ("red", 10)]
    )
    after = play(state, "c1", "white")
    assert space(after, "white") == 2 and after.opponent("white").flag
    after = play(state, "c2", "red")  # by letter: 11 C, 0 nothing, 1 green B marker
    assert space(after, "red") == 1 and after.opponent("red").flag and after.opponent("red").crossings == 1
    assert not after.opponent("green").flag  # the green marker has not moved


def test_crossings_count_entering_or_passing_the_finish_but_not_starting_on_it() -> None:
    state = play(start([5]), "c1", "team")
    assert state.team.crossings == 0
    state = play(start([2], team=10), "c1", "team")
    assert (space(state, "team"), state.team.crossings) == (0, 1)
    state = play(start([3], team=10), "c1", "team")
    assert (space(state, "team"), state.team.crossings) == (1, 1)


def test_the_flag_side_shows_the_same_letter() -> None:
    state = placed(start(["A"], team=5), white=(0, 1), red=(11, 0))
    assert state.opponent("white").flag and state.opponent("white").letter == "A"
    state = play(state, "c1", "red")  # the white marker on the finish shows A on its flag side
    assert space(state, "red") == 0 and stacks(state) == {"0": ["white", "red"]}


# --- very unlikely case: replacements -------------------------------------------------------------


def unresolvable(variant: str = "strategic", *, pad: int = 12) -> State:
    """ONE_E_BOARD: the only E space (5) is the team's, the E marker (red) lies under it."""
    opponents = [("white", 6), ("green", 7), ("yellow", 8), ("blue", 9), ("red", 5)]
    answers: list[int | str] = ["E", 1, 2, 3, 0, 1, 4]
    answers = answers[: max(pad, 6)]
    return start(answers, board=ONE_E_BOARD, team=5, opponents=opponents, variant=variant, pad=pad)


def test_a_card_that_cannot_be_resolved_is_abandoned_and_a_replacement_card_is_drawn() -> None:
    state = unresolvable()
    after = play(state, "c1", "white")
    data = after.to_dict()
    assert space(after, "white") == 6 and "white" not in after.moved_this_round
    assert data["abandoned"] == ["c1"] and data["replacement"] == "c7"
    assert data["round_cards"][-1] == "c7" and data["slots"] == {}
    assert after.history[-1].movement == "abandoned"
    # The team cannot move by E either: its own space does not count.
    assert play(state, "c1", "team").to_dict()["abandoned"] == ["c1"]


def test_the_replacement_may_go_to_any_marker_that_has_not_moved_including_the_first_choice() -> None:
    state = play(unresolvable(), "c1", "white")
    assert {a["marker"] for a in legal_actions(state, None)} == set(MARKERS)
    assert {a["card"] for a in legal_actions(state, None)} == {"c7"}
    after = play(state, "c7", "white")
    assert space(after, "white") == 0 and after.opponent("white").flag  # 4 steps from 6
    assert after.to_dict()["slots"] == {"white": "c7"} and after.to_dict()["abandoned"] == ["c1"]


def test_the_replacement_is_played_next_in_both_variants() -> None:
    for variant in ("basic", "strategic"):
        state = play(unresolvable(variant), "c1", "green")
        assert_refused(
            IllegalAction,
            state,
            None,
            {"type": "assign", "card": "c2", "marker": "team"},
            "replacement card 'c7' must be played next",
        )
        state = play(state, "c7", "team")
        if variant == "basic":
            assert {a["card"] for a in legal_actions(state, None)} == {"c2"}


def test_after_a_replacement_the_basic_game_still_plays_the_top_card_of_the_stack() -> None:
    """Basic game: "the cards are played from the top of the stack" also after a replacement.
    With c1 abandoned and its replacement c7 played, c2 is next: c3 is refused, through
    ``apply_action`` and through the fast ``assign`` alike."""
    state = play(play(unresolvable("basic"), "c1", "green"), "c7", "team")
    action = {"type": "assign", "card": "c3", "marker": "white"}
    assert_refused(IllegalAction, state, None, action, "the next card is 'c2'")
    with pytest.raises(IllegalAction, match="the next card is 'c2'"):
        knowledge.assign(state, state.card_ids["c3"], "white")
    assert play(state, "c2", "white").to_dict()["slots"]["white"] == "c2"


def test_a_round_with_a_replacement_still_moves_each_marker_exactly_once() -> None:
    state = play(unresolvable("basic"), "c1", "red")
    for card_id, marker in (
        ("c7", "red"),
        ("c2", "team"),
        ("c3", "white"),
        ("c4", "green"),
        ("c5", "yellow"),
    ):
        state = play(state, card_id, marker)
    state = play(state, "c6", "blue")
    assert state.round == 2
    rounds = [p for p in state.history if p.round == 1]
    assert [p.marker for p in rounds if p.movement == "moved"] == [
        "red",
        "team",
        "white",
        "green",
        "yellow",
        "blue",
    ]


def test_no_card_left_to_replace_the_marker_stays_and_has_moved() -> None:
    state = unresolvable(pad=6)
    assert len(state.cards) == 6
    after = play(state, "c1", "white")
    assert after.history[-1].movement == "stays" and "white" in after.moved_this_round
    assert after.to_dict()["slots"] == {"white": "c1"} and after.to_dict()["abandoned"] == []


# --- game end ------------------------------------------------------------------------------------------


def one_move_from_a_second_crossing() -> State:
    """The team on space 10 after one crossing and the opponents once round too (spaces 11
    and 1 to 4): the first card (3) takes the team across a second time (10 -> 1)."""
    return placed(
        start([3, 1, 0, 0, 0, 0]),
        team=(10, 1),
        white=(11, 1),
        green=(1, 1),
        yellow=(2, 1),
        blue=(3, 1),
        red=(4, 1),
    )


def test_the_end_is_triggered_by_a_second_crossing_and_the_round_is_played_out() -> None:
    state = one_move_from_a_second_crossing()
    state = play(state, "c1", "team")  # 10 -> 1: second crossing
    assert state.triggered_by == "team" and not is_terminal(state) and outcome(state) is None
    assert state.to_dict()["outcome"] is None
    for card_id, marker in (
        ("c2", "white"),
        ("c3", "green"),
        ("c4", "yellow"),
        ("c5", "blue"),
        ("c6", "red"),
    ):
        state = play(state, card_id, marker)
    assert is_terminal(state) and state.round == 1
    assert legal_actions(state, None) == []
    assert_refused(
        IllegalAction, state, None, {"type": "assign", "card": "c7", "marker": "team"}, "The game is over"
    )


def test_a_first_crossing_does_not_trigger_the_end() -> None:
    state = play(start([3], team=10), "c1", "team")
    assert state.team.crossings == 1 and state.triggered_by is None


def test_won_when_the_team_is_furthest_ahead_after_all_movements() -> None:
    state = one_move_from_a_second_crossing()
    for card_id, marker in zip([f"c{n}" for n in range(1, 7)], MARKERS, strict=True):
        state = play(state, card_id, marker)
    result = outcome(state)
    assert result is not None and result["result"] == "won" and state.to_dict()["outcome"] == "won"
    assert result["progress"]["team"] == 25 and result["progress"]["white"] == 24  # white crossed twice too
    assert result["overtaken_by"] == [] and result["furthest_ahead"] == ["team"]


def rulebook_example(green_steps: int, team_steps: int) -> State:
    """Game End examples: the green opponent shows its flag (crossed once); this round it crosses
    the finish again, and so does the team."""
    state = placed(
        start([green_steps, team_steps, 0, 0, 0, 0]),
        team=(10, 1), green=(11, 1), white=(6, 1), yellow=(7, 1), blue=(8, 1), red=(9, 0),
    )  # fmt: skip
    state = play(state, "c1", "green")
    assert state.triggered_by == "green"
    state = play(state, "c2", "team")
    for card_id, marker in (("c3", "white"), ("c4", "yellow"), ("c5", "blue"), ("c6", "red")):
        state = play(state, card_id, marker)
    return state


def test_game_end_example_green_crossed_twice_like_the_team_you_still_win_being_furthest_ahead() -> None:
    state = rulebook_example(green_steps=2, team_steps=4)
    assert (state.opponent("green").crossings, state.team.crossings) == (2, 2)
    assert outcome(state) is not None and outcome(state)["result"] == "won"  # type: ignore[index]


def test_game_end_example_green_crossed_twice_and_overtook_you_you_lose() -> None:
    state = rulebook_example(green_steps=4, team_steps=3)
    result = outcome(state)
    assert result is not None and result["result"] == "lost" and result["overtaken_by"] == ["green"]
    assert state.to_dict()["outcome"] == "lost"


def test_lost_when_an_opponent_completes_its_laps_before_the_team() -> None:
    state = placed(start([2, 1, 0, 0, 0, 0]), team=(5, 1), yellow=(11, 1))
    state = play(state, "c1", "yellow")
    for card_id, marker in (("c2", "team"), ("c3", "white"), ("c4", "green"), ("c5", "blue"), ("c6", "red")):
        state = play(state, card_id, marker)
    result = outcome(state)
    assert result is not None and result["result"] == "lost" and result["overtaken_by"] == ["yellow"]
    assert result["triggered_by"] == "yellow"


def test_an_opponent_without_the_flag_before_crossing_cannot_overtake_you() -> None:
    # Red starts just before the finish: its first crossing only turns it over.
    state = placed(start([3, 2, 0, 0, 0, 0]), team=(10, 1), red=(11, 0))
    state = play(state, "c1", "team")
    state = play(state, "c2", "red")  # 11 -> 1 is the team's space: on to 2; its first crossing
    assert space(state, "red") == 2 and state.opponent("red").flag and state.opponent("red").crossings == 1
    for card_id, marker in (("c3", "white"), ("c4", "green"), ("c5", "yellow"), ("c6", "blue")):
        state = play(state, card_id, marker)
    result = outcome(state)
    assert result is not None and result["result"] == "won"
    assert result["progress"]["red"] == 14 < result["progress"]["team"] == 25


def test_the_team_on_top_of_an_opponent_on_the_same_space_has_not_been_overtaken() -> None:
    state = placed(start([2, 3, 0, 0, 0, 0]), team=(10, 1), green=(11, 1))
    state = play(state, "c1", "green")  # 11 -> 1
    state = play(state, "c2", "team")  # 10 -> 1, on top of green
    for card_id, marker in (("c3", "white"), ("c4", "yellow"), ("c5", "blue"), ("c6", "red")):
        state = play(state, card_id, marker)
    result = outcome(state)
    assert result is not None and result["progress"]["team"] == result["progress"]["green"] == 25
    assert result["result"] == "won" and result["furthest_ahead"] == ["team", "green"]


# --- guesses ----------------------------------------------------------------------------------------


def test_a_guess_is_kept_in_the_history_and_never_changes_the_movement() -> None:
    state = start([3, "C/D", "blue"])
    guessed = play(state, "c1", "team", guess=5)
    assert space(guessed, "team") == space(play(state, "c1", "team"), "team") == 3
    entry = guessed.to_dict()["history"][-1]
    assert entry["guess"] == 5 and entry["guess_correct"] is False and entry["answer"] == 3
    assert play(state, "c1", "team", guess=3).history[-1].guess_correct is True
    assert play(state, "c2", "team", guess="c").history[-1].guess_correct is True
    assert play(state, "c2", "team", guess=["C", "D"]).history[-1].guess_correct is True
    assert play(state, "c2", "team", guess=["C", "E"]).history[-1].guess_correct is False
    assert play(state, "c3", "team", guess="Blue").to_dict()["history"][-1]["guess"] == ["blue"]
    assert play(state, "c3", "team").history[-1].guess is None
    assert play(state, "c3", "team").history[-1].guess_correct is None


def test_the_acting_player_is_kept_in_the_history_for_progress() -> None:
    state = apply_action(start([1]), "ala", {"type": "assign", "card": "c1", "marker": "team", "guess": 1})
    assert state.to_dict()["history"][-1]["player"] == "ala"
    state = apply_action(
        start([1]), None, {"type": "assign", "card": "c1", "marker": "team", "player": "olek"}
    )
    assert state.history[-1].player == "olek"


# --- malformed and illegal actions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "action", "match"),
    [
        (None, ["assign"], "must be an object"),
        (None, {"type": "move", "card": "c1", "marker": "team"}, "Unknown action type 'move'"),
        (None, {"card": "c1", "marker": "team"}, "Unknown action type None"),
        (None, {"type": "assign", "card": "c1", "marker": "team", "steps": 3}, r"Unknown field\(s\) steps"),
        (None, {"type": "assign", "marker": "team"}, "names the card by its id"),
        (None, {"type": "assign", "card": 1, "marker": "team"}, "names the card by its id"),
        (None, {"type": "assign", "card": "zz", "marker": "team"}, "no card 'zz'"),
        (None, {"type": "assign", "card": "c1"}, "The marker must be one of team, white"),
        (None, {"type": "assign", "card": "c1", "marker": "black"}, "not 'black'"),
        (
            None,
            {"type": "assign", "card": "c1", "marker": "team", "guess": 9},
            "A guess of a number card is a whole number from 0 to 5",
        ),
        (
            None,
            {"type": "assign", "card": "c2", "marker": "team", "guess": 3},
            "A guess of a letter card is one or more of A",
        ),
        (
            None,
            {"type": "assign", "card": "c3", "marker": "team", "guess": ["pink"]},
            "A guess of a colour card",
        ),
        (None, {"type": "assign", "card": "c1", "marker": "team", "guess": True}, "A guess of a number card"),
        (
            "ala",
            {"type": "assign", "card": "c1", "marker": "team", "player": "olek"},
            "names player 'olek' but was sent for 'ala'",
        ),
        (None, {"type": "assign", "card": "c1", "marker": "team", "player": 7}, "must be a player id"),
    ],
)
def test_malformed_actions_raise_invalid_action_and_change_nothing(
    player: str | None, action: Any, match: str
) -> None:
    for variant in ("basic", "strategic"):
        assert_refused(InvalidAction, start([3, "C/D", "blue"], variant=variant), player, action, match)


def test_illegal_actions_raise_illegal_action_and_change_nothing() -> None:
    state = start([3, "C/D", "blue"], variant="basic")
    assert_refused(
        IllegalAction,
        state,
        None,
        {"type": "assign", "card": "c9", "marker": "team"},
        "not one of the cards of round 1",
    )
    assert_refused(
        IllegalAction, state, None, {"type": "assign", "card": "c3", "marker": "team"}, "basic game"
    )
    state = play(state, "c1", "team")
    assert_refused(
        IllegalAction, state, None, {"type": "assign", "card": "c1", "marker": "white"}, "already been played"
    )
    assert_refused(
        IllegalAction,
        state,
        None,
        {"type": "assign", "card": "c2", "marker": "team"},
        "The team marker has already moved",
    )


def test_apply_action_returns_a_new_state_and_leaves_the_given_one_alone() -> None:
    state = start([3])
    before = state.to_dict()
    after = play(state, "c1", "team")
    assert after != state and state.to_dict() == before


# --- state (docs/replay.md, Knowledge?) --------------------------------------------------------------


def test_state_has_the_replay_md_fields() -> None:
    state = start([2, 3], opponents=[("white", 6), ("green", 8), ("yellow", 8), ("blue", 9), ("red", 10)])
    state = play(play(state, "c1", "team"), "c2", "white")
    data = state.to_dict()
    assert data["round"] == 1
    assert data["markers"]["team"] == {"space": 2, "crossings": 0}
    assert data["markers"]["white"] == {"space": 9, "crossings": 0, "flag": False, "letter": "A"}
    assert set(data["markers"]) == set(MARKERS)
    assert data["stacks"] == {"8": ["green", "yellow"], "9": ["blue", "white"]}  # bottom -> top, two or more
    assert data["moved_this_round"] == ["team", "white"]
    assert data["terminal"] is False and data["outcome"] is None
    json.dumps(data)


@pytest.mark.parametrize("variant", ["basic", "strategic"])
def test_state_round_trips_through_json(variant: str) -> None:
    state = play(unresolvable(variant), "c1", "white", guess="E")
    data = json.loads(json.dumps(state.to_dict()))
    assert state_from_dict(data) == state
    assert State.from_dict(data).to_dict() == state.to_dict()


def test_state_from_dict_refuses_something_else() -> None:
    with pytest.raises(ValueError, match="Not a Knowledge\\? state"):
        state_from_dict({"game": "znajznak"})
    data = start([1]).to_dict()
    del data["markers"]
    with pytest.raises(ValueError, match="Not a Knowledge\\? state"):
        state_from_dict(data)
    data = start([1], opponents=[("white", 6), ("green", 6), *FAR[2:]]).to_dict()
    data["stacks"] = {}
    with pytest.raises(ValueError, match="the stack on space 6"):
        state_from_dict(data)


def test_the_examples_in_the_docstrings_hold() -> None:
    for module in (knowledge, knowledge_board):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


# --- what the team sees ---------------------------------------------------------------------------


def card_dicts(value: Any) -> list[dict[str, Any]]:
    """Every object in a view that carries a card id."""
    found = []
    if isinstance(value, dict):
        if "id" in value:
            found.append(value)
        for item in value.values():
            found.extend(card_dicts(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(card_dicts(item))
    return found


def assert_no_unassigned_back(state: State) -> None:
    """No card's back or answer is in the view unless it lies at a card slot (assigned this
    round, or abandoned); a card never drawn shows not even its front."""
    view = player_view(state, "ala")
    text = json.dumps(view, ensure_ascii=False)
    assigned = set(state.slots.values()) | set(state.abandoned)
    seen = set(state.round_cards) | {p.card for p in state.history}
    for index, quiz_card in enumerate(state.cards):
        if index in assigned:
            continue
        if quiz_card.back:
            assert quiz_card.back not in text, quiz_card.id
        for entry in card_dicts(view):
            if entry["id"] == quiz_card.id:
                assert set(entry) <= {"id", "category", "front"}, entry
        if index not in seen and quiz_card.id not in seen and quiz_card.front:
            assert quiz_card.front not in text, quiz_card.id
    assert "order" not in view and "cards" not in view


def test_view_basic_game_shows_the_category_and_front_of_the_next_card_only() -> None:
    state = start([3, "C/D", "blue"], variant="basic")
    view = player_view(state, "ala")
    assert view["to_assign"] == [{"id": "c1", "category": "number", "front": "FRONT-c1"}]
    assert view["cards_in_stack"] == 6
    assert "FRONT-c2" not in json.dumps(view)
    assert_no_unassigned_back(state)


def test_view_strategic_variant_shows_the_fronts_of_all_the_round_cards_without_backs() -> None:
    state = start([3, "C/D", "blue"])
    view = player_view(state, None)
    assert [entry["id"] for entry in view["to_assign"]] == [f"c{n}" for n in range(1, 7)]
    assert all(set(entry) == {"id", "category", "front"} for entry in view["to_assign"])
    assert_no_unassigned_back(state)


def test_view_shows_the_back_of_a_card_once_it_is_assigned() -> None:
    state = play(start([3, "C/D", "blue"]), "c2", "team")
    view = player_view(state, "ala")
    assert view["slots"]["team"] == card("c2", "C/D") | {"answer": ["C", "D"]}
    assert "c2" not in [entry["id"] for entry in view["to_assign"]]
    assert view["history"][-1]["answer"] == ["C", "D"]
    assert_no_unassigned_back(state)


def test_view_is_the_same_for_everyone_in_the_team() -> None:
    state = play(start([3]), "c1", "team")
    ala, olek = player_view(state, "ala"), player_view(state, "olek")
    assert ala["you"] == "ala" and olek["you"] == "olek"
    assert {**ala, "you": None, "legal_actions": []} == {**olek, "you": None, "legal_actions": []}
    assert ala["markers"]["team"]["progress"] == 3


def test_view_never_shows_the_back_of_an_unassigned_card_in_random_play() -> None:
    for seed in range(16):
        variant = ("basic", "strategic")[seed % 2]
        rng = random.Random(seed)
        state = new_game({"board": TEST_BOARD, "cards": POOL}, seed=seed, variant=variant)
        while not is_terminal(state):
            assert_no_unassigned_back(state)
            state = apply_action(state, "ala", rng.choice(legal_actions(state, "ala")))
        assert_no_unassigned_back(state)


# --- golden playthroughs ----------------------------------------------------------------------------


def replay(log: dict[str, Any]) -> State:
    state = new_game(log["setup"], seed=log["seed"], variant=log["variant"])
    for action in log["actions"]:
        state = apply_action(state, action.get("player"), action)
    return state


@pytest.mark.parametrize("variant", ["basic", "strategic"])
def test_golden_playthrough_replays_to_the_hand_checked_final_state(variant: str) -> None:
    """Hand-checked against the rulebook, move by move (docs/replay.md, Knowledge?, Example logs).

    basic (10-space board, E only on space 5): the team lands on red, which then cannot move
    by E and is replaced; number moves counting and skipping the team; flags on first
    crossings; the team's letter D move ends on the blue marker beyond the finish and
    triggers the end; the round is played out; won 21 to 19.
    strategic (harder start): cards in any order, several options, a stack formed and left,
    red completes its second crossing first and wins, the team lost 6 to 24.
    """
    log = json.loads((GOLDEN / f"knowledge_{variant}.json").read_text(encoding="utf-8"))
    assert (log["game"], log["variant"]) == ("knowledge", variant)
    assert set(log) == {"game", "variant", "seed", "setup", "actions", "expected"}
    state = replay(log)
    final = state.to_dict()
    assert {key: final[key] for key in log["expected"]} == log["expected"]
    assert replay(log) == state


def test_golden_basic_playthrough_history_records_the_replacement_and_the_skip() -> None:
    log = json.loads((GOLDEN / "knowledge_basic.json").read_text(encoding="utf-8"))
    history = replay(log).to_dict()["history"]
    assert len(history) == 25
    assert history[5] | {} == {
        "round": 1, "card": "c6", "category": "letter", "answer": ["E"], "marker": "red", "player": None,
        "guess": ["E"], "guess_correct": True, "movement": "abandoned", "from": 5, "to": 5, "steps": 0,
        "crossed": False, "skipped_team": False, "matched": None, "on_marker": None, "from_stack": False,
        "onto": [], "flag_turned": False,
    }  # fmt: skip
    assert [h["card"] for h in history if h["skipped_team"]] == ["c16", "c25"]
    assert [h["card"] for h in history if h["crossed"]] == ["c2", "c3", "c11", "c12", "c14", "c18", "c21"]


# --- random play -------------------------------------------------------------------------------------

#: "random-play invariants over thousands of seeded games" (issue 7): 2,000 games in all.  The
#: invariants are checked on every state from its packed markers (cheap); in one game of
#: ``THOROUGH`` also as the data a screen or a log reads them (``to_dict``, ``player_view``,
#: ``legal_actions``, the JSON round trip), so the test stays a few seconds long.
GAMES = {"default": 500, "random": 1500}
MAX_ROUNDS = 200
THOROUGH = 50


def random_board(rng: random.Random) -> dict[str, Any]:
    """A small loop with every colour and letter at least once, some blank spaces, few of each."""
    length = rng.randint(10, 16)
    while True:
        spaces: list[dict[str, str] | None] = [
            None if rng.random() < 0.15 else sp(rng.choice(COLOURS), rng.choice(LETTERS))
            for _ in range(length)
        ]
        spaces[0] = None
        shown = [s for s in spaces if s is not None]
        if {s["colour"] for s in shown} == set(COLOURS) and {s["letter"] for s in shown} == set(LETTERS):
            break
    return {"spaces": spaces, "finish": 0, "opponent_start": rng.randint(5, length - 1)}


def reached(state: State) -> tuple[int, ...]:
    """Every marker's progress in MARKERS order, from the packed markers (= :func:`progress`)."""
    length, finish = state.board.length, state.board.finish
    return tuple(
        c * length + (s - finish) % length for s, c in zip(state.spaces, state.crossings, strict=True)
    )


def check_invariants(state: State, before: State | None, earlier: tuple[int, ...] = ()) -> tuple[int, ...]:
    """What holds after every action: markers on the board, flags, stacks, each marker at most
    once a round with its card in the slot, progress never lost (``earlier``: the progress
    ``before``), and the game's end.  Gives the markers' progress."""
    spaces, crossings, flags = state.spaces, state.crossings, state.flags
    assert min(spaces) >= 0 and max(spaces) < state.board.length
    assert flags == (False, *[crossings[i] >= 1 for i in range(1, len(MARKERS))])
    # Stacks agree with marker spaces; the team is never in a stack list.
    if len(set(spaces[1:])) == len(OPPONENTS):
        assert not state.stacks
    else:
        by_space: dict[int, list[str]] = {}
        for i, colour in enumerate(OPPONENTS, start=1):
            by_space.setdefault(spaces[i], []).append(colour)
        assert {s: sorted(pile) for s, pile in state.stacks.items()} == {
            s: sorted(pile) for s, pile in by_space.items() if len(pile) >= 2
        }
    # Each marker moves at most once per round; a card lies at each moved marker's slot, and the
    # round's other cards are still in the stack.
    moved = state.moved_this_round
    assert len(set(moved)) == len(moved) == len(state.slot_cards) <= 6
    unplayed = [i for i in state.round_cards if i not in state.slot_cards and i not in state.abandoned]
    assert len(unplayed) == (0 if is_terminal(state) else 6 - len(moved))
    progresses = reached(state)
    if before is not None:
        assert all(now >= then for now, then in zip(progresses, earlier or reached(before), strict=True))
        if before.round == state.round:
            assert len(moved) - len(before.moved_this_round) in (0, 1)
        else:
            assert state.round == before.round + 1 and len(before.moved_this_round) == 5 and not moved
    if is_terminal(state):
        result = outcome(state)
        assert result is not None
        assert result["progress"] == dict(zip(MARKERS, progresses, strict=True))
        team = progresses[0]
        assert (result["result"] == "won") == (team == max(progresses)), "won = the team is furthest ahead"
        # Game End: only an opponent that showed its flag before crossing again overtakes the team,
        # and whenever any opponent is ahead, such an opponent is ahead too.
        assert (result["result"] == "lost") == bool(result["overtaken_by"])
        for colour in result["overtaken_by"]:
            assert state.opponent(colour).flag and state.opponent(colour).crossings >= 2
            assert result["progress"][colour] > team
        assert max(crossings) >= 2
    return progresses


def check_data(state: State) -> None:
    """The same invariants as the data of ``docs/replay.md`` and the screens read them."""
    data = state.to_dict()
    expected: dict[str, list[str]] = {}
    for opponent in state.opponents:
        expected.setdefault(str(opponent.space), []).append(opponent.colour)
    assert {s: sorted(cs) for s, cs in data["stacks"].items()} == {
        s: sorted(cs) for s, cs in expected.items() if len(cs) >= 2
    }
    assert all("team" not in cs for cs in data["stacks"].values())
    assert set(state.slots) == set(state.moved_this_round) == set(data["slots"])
    assert {m: progress(state, m) for m in MARKERS} == dict(zip(MARKERS, reached(state), strict=True))
    view = player_view(state, None)
    assert view["cards_in_stack"] == (0 if is_terminal(state) else 6 - len(state.moved_this_round))
    assert (view["legal_actions"] == []) == is_terminal(state)
    assert state_from_dict(json.loads(json.dumps(data))) == state


def playable(state: State) -> list[int]:
    """The cards that may be assigned now, read from the state (checked against legal_actions)."""
    if state.replacement is not None:
        return [state.replacement]
    done = set(state.slot_cards) | set(state.abandoned)
    cards = [i for i in state.round_cards if i not in done]
    return cards[:1] if state.variant == "basic" else cards


PARSED_POOL = knowledge.cards_from(POOL)


def random_guess(rng: random.Random, category: str) -> int | tuple[str, ...]:
    if category == "number":
        return rng.randint(0, 5)
    return (rng.choice(LETTERS),) if category == "letter" else (rng.choice(COLOURS),)


@pytest.mark.parametrize("boards", ["default", "random"])
def test_random_play_keeps_markers_on_the_board_moves_each_once_a_round_and_always_ends(boards: str) -> None:
    """Seeded random games (random or greedy team, both variants, both starts, guesses; on
    random boards also short card orders, so replacements and reshuffles happen), played
    through ``assign`` and, one action in five, through ``apply_action``."""
    results: Counter[str] = Counter()
    movements: Counter[str] = Counter()
    for seed in range(GAMES[boards]):
        rng = random.Random(f"{boards}:{seed}")
        variant = rng.choice(["basic", "strategic"])
        greedy = rng.random() < 0.3
        setup: dict[str, Any] = {"harder_start": rng.random() < 0.3, "cards": POOL}
        if boards == "random":
            setup = {"board": random_board(rng), "cards": POOL}
            if rng.random() < 0.5:
                answers: list[int | str] = [0, 1, 2, 3, 4, 5, "A", "B/C", "E", "red", "white/blue"]
                setup["cards"] = [card(f"r{n}", rng.choice(answers)) for n in range(rng.randint(6, 9))]
        if thorough := seed % THOROUGH == 0:
            state = new_game(setup, seed=seed, variant=variant)
            check_data(state)
        else:
            # The setup read once for all games (new_game's own reading is checked above).
            board = board_from_dict(setup["board"]) if "board" in setup else default_board()
            cards = PARSED_POOL if setup["cards"] is POOL else knowledge.cards_from(setup["cards"])
            state = knowledge.deal(
                board, cards, seed=seed, variant=variant, harder_start=setup.get("harder_start", False)
            )
        progresses = check_invariants(state, None)
        while not is_terminal(state):
            assert state.round <= MAX_ROUNDS, f"game {seed} did not end"
            cards = playable(state)
            free = [m for m in MARKERS if m not in state.moved_this_round]
            assert cards and free
            index = rng.choice(cards)
            if greedy:
                quiz = state.cards[index]
                # A team that peeks at the answers: long moves for itself, short ones for opponents.
                moves = {m: knowledge.movement(state, m, quiz) for m in free}
                marker = max(
                    free,
                    key=lambda m: (-1 if (mv := moves[m]) is None else mv.steps) * (1 if m == "team" else -1),
                )
            else:
                marker = rng.choice(free)
            guess = random_guess(rng, state.cards[index].category) if rng.random() < 0.3 else None
            before = state
            if thorough:
                legal = legal_actions(state, None)
                assert {(a["card"], a["marker"]) for a in legal} == {
                    (state.cards[i].id, m) for i in cards for m in free
                }
            if rng.random() < 0.2:
                action: dict[str, Any] = {"type": "assign", "card": state.cards[index].id, "marker": marker}
                if guess is not None:
                    action["guess"] = list(guess) if isinstance(guess, tuple) else guess
                state = apply_action(state, None, action)
            else:
                state = knowledge.assign(state, index, marker, guess=guess)
            progresses = check_invariants(state, before, progresses)
            if thorough and len(state.history) % 10 == 0:
                check_data(state)
        if thorough:
            check_data(state)
        # Every round: each marker moved (or stayed for want of a replacement) exactly once.
        rounds: dict[int, list[str]] = {}
        for play in state.history:
            movements[play.movement] += 1
            if play.movement != "abandoned":
                rounds.setdefault(play.round, []).append(play.marker)
        assert sorted(rounds) == list(range(1, state.round + 1))
        assert all(sorted(markers) == sorted(MARKERS) for markers in rounds.values())
        result = outcome(state)
        assert result is not None
        results[result["result"]] += 1
    assert results["won"] > 0 and results["lost"] > 0
    if boards == "random":
        assert movements["abandoned"] > 0, "random boards exercise the replacements"


# --- the data layout (speed): the same rules, whichever way a state is built or read -------------


def test_assign_is_apply_action_without_the_action_object_in_random_play() -> None:
    """The simulator's path (``assign``, card by index) builds the very state ``apply_action``
    builds, and the packed markers agree with the named ones, on random boards with stacks
    and replacements."""
    movements: Counter[str] = Counter()
    for seed in range(12):
        rng = random.Random(f"layout:{seed}")
        setup: dict[str, Any] = {"board": random_board(rng), "cards": POOL}
        if seed % 2:
            answers: list[int | str] = [0, 1, 2, 3, 4, 5, "A", "B/C", "E", "red", "white/blue"]
            setup["cards"] = [card(f"r{n}", rng.choice(answers)) for n in range(rng.randint(6, 9))]
        state = new_game(setup, seed=seed, variant=("basic", "strategic")[seed % 2])
        while not is_terminal(state):
            action: dict[str, Any] = dict(rng.choice(legal_actions(state, "p1")))
            index = state.card_ids[action["card"]]
            guess: Any = None
            if rng.random() < 0.3:
                guess = rng.randint(0, 5) if state.cards[index].category == "number" else ("E",)
                if state.cards[index].category == "colour":
                    guess = ("red",)
                action["guess"] = list(guess) if isinstance(guess, tuple) else guess
            by_action = apply_action(state, "p1", action)
            by_index = knowledge.assign(state, index, action["marker"], player="p1", guess=guess)
            assert by_index == by_action and by_index.to_dict() == by_action.to_dict()
            state = by_action
            assert state.spaces == (state.team.space, *(m.space for m in state.opponents))
            assert state.crossings == (state.team.crossings, *(m.crossings for m in state.opponents))
            assert state.flags == (False, *(m.flag for m in state.opponents))
            assert dict(state.slots) == dict(zip(state.moved_this_round, state.slot_cards, strict=True))
        movements.update(play.movement for play in state.history)
        movements.update("from_stack" for play in state.history if play.from_stack)
    assert movements["abandoned"] > 0 and movements["from_stack"] > 0, "the test reaches the rare paths"


def test_assign_refuses_what_apply_action_refuses() -> None:
    state = new_game({"cards": POOL}, seed=3, variant="basic")
    later = state.round_cards[1]
    with pytest.raises(IllegalAction, match="top of the stack"):
        knowledge.assign(state, later, "team")
    with pytest.raises(InvalidAction):
        knowledge.assign(state, len(state.cards), "team")
    with pytest.raises(InvalidAction):
        knowledge.assign(state, state.round_cards[0], "purple")
    state = knowledge.assign(state, state.round_cards[0], "team")
    with pytest.raises(IllegalAction, match="already moved"):
        knowledge.assign(state, state.round_cards[1], "team")


def test_a_state_is_immutable() -> None:
    state = new_game({"cards": POOL}, seed=1, variant="basic")
    with pytest.raises(AttributeError):
        state.round = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        state[3] = 5  # type: ignore[index]
    after = knowledge.assign(state, state.round_cards[0], "team")
    assert state.history == () and len(after.history) == 1 and state.moved_this_round == ()


def test_states_with_long_histories_compare_by_their_plays() -> None:
    """The history is kept as a chain; states still compare play by play, however long."""
    state = new_game({"cards": POOL}, seed=2, variant="basic")
    while not is_terminal(state):
        state = apply_action(state, None, legal_actions(state, None)[0])
    data = state.to_dict()
    data["history"] = data["history"] * 40  # thousands of plays: deeper than Python recurses
    assert len(data["history"]) > 3000
    assert state_from_dict(data) == state_from_dict(json.loads(json.dumps(data)))
    other = json.loads(json.dumps(data))
    other["history"][-1]["guess_correct"] = True
    assert state_from_dict(data) != state_from_dict(other)
    assert state_from_dict(data).history[-1] == state.history[-1]


def test_the_history_gives_move_records_however_the_chain_keeps_them() -> None:
    """``assign`` keeps a move record as the plain tuple of its fields (one tuple fewer per
    card); the history still gives :class:`knowledge.Play` values, the same as a state read
    back from its data (whose chain holds Plays), field by field."""
    for seed in range(6):
        rng = random.Random(f"records:{seed}")
        state = new_game({"board": random_board(rng), "cards": POOL}, seed=seed, variant="basic")
        while not is_terminal(state):
            state = knowledge.assign(state, *rng.choice(_index_actions(state)))
        history = state.history
        assert history and all(type(play) is knowledge.Play for play in history)
        read = state_from_dict(json.loads(json.dumps(state.to_dict())))
        assert read.history == history and read == state
        assert [play.to_dict() for play in read.history] == [play.to_dict() for play in history]
        assert [play.round for play in history] == sorted(play.round for play in history)


def _index_actions(state: State) -> list[tuple[int, str]]:
    return [(state.card_ids[action["card"]], action["marker"]) for action in legal_actions(state, None)]


def test_card_ids_is_a_read_only_mapping_of_every_card() -> None:
    state = new_game({"cards": POOL}, seed=4, variant="strategic")
    ids = state.card_ids
    expected = {card.id: index for index, card in enumerate(state.cards)}
    assert dict(ids) == expected and len(ids) == len(expected) and list(ids) == list(expected)
    assert POOL[0]["id"] in ids and "nope" not in ids and ids.get("nope") is None
    with pytest.raises(KeyError):
        ids["nope"]
    with pytest.raises(TypeError):
        ids["nope"] = 1  # type: ignore[index]
    assert knowledge.assign(state, state.round_cards[0], "team").card_ids is ids, "shared by the game"


def test_outcome_reads_every_markers_progress_as_progress_does() -> None:
    """Game End: ``outcome`` reads the packed markers; its progress is :func:`progress`."""
    results: Counter[str] = Counter()
    for seed in range(30):
        rng = random.Random(f"outcome:{seed}")
        state = new_game({"cards": POOL, "harder_start": seed % 2 == 1}, seed=seed, variant="basic")
        while not is_terminal(state):
            state = knowledge.assign(state, *rng.choice(_index_actions(state)))
        result = outcome(state)
        assert result is not None
        assert result["progress"] == {marker: progress(state, marker) for marker in MARKERS}
        ahead = [
            m.colour
            for m in state.opponents
            if m.flag and m.crossings >= 2 and progress(state, m.colour) > progress(state, "team")
        ]
        assert sorted(result["overtaken_by"]) == sorted(ahead)
        assert result["result"] == ("lost" if ahead else "won")
        results[result["result"]] += 1
    assert results["won"] and results["lost"], "both endings are reached"


@given(st.integers(min_value=0, max_value=10_000))
@settings(max_examples=30, deadline=None)
def test_board_tables_give_the_nearest_printed_match_ahead_of_every_space(seed: int) -> None:
    rng = random.Random(seed)
    board = board_from_dict(random_board(rng))
    options = [rng.choice([*COLOURS, *LETTERS]) for _ in range(rng.randint(1, 3))]
    mask = knowledge_board.symbol_mask(options)
    table = board.tables[mask]
    assert board.nearest(mask) is table
    for origin in range(board.length):
        steps = next(
            (
                n
                for n in range(1, board.length)
                if (space := board.spaces[(origin + n) % board.length]) is not None
                and (space.colour in options or space.letter in options)
            ),
            board.length,
        )
        assert table[origin] == steps


# --- purity ----------------------------------------------------------------------------------------


def test_the_knowledge_engine_imports_nothing_from_django() -> None:
    for name in ("knowledge.py", "knowledge_board.py"):
        tree = ast.parse((ROOT / "games" / "engines" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module is not None and not node.module.startswith("django"), name
            if isinstance(node, ast.Import):
                assert not any(alias.name.startswith("django") for alias in node.names), name
    code = (
        "import sys, games.engines.knowledge; "
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
