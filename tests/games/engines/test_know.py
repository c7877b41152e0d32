"""Know engine, rule by rule (rules/know.md: ID, Question Prep, Question Round, Resolution, Rules;
rules/README.md: Know readings), anonymity, golden playthroughs and random play."""

from __future__ import annotations

import doctest
import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import engine_for, know
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from games.engines.know import (
    State,
    answer_limit,
    apply_action,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    phase,
    player_view,
    point_pool,
    points_each,
    state_from_dict,
)

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
VARIANTS = ["facilitator_marks", "team_marks"]

# Not in team order alphabetically, so a record sorted by Team ID cannot follow the teams.
TEAM_IDS = [
    "Otter",
    "Heron",
    "Newt",
    "Badger",
    "Lynx",
    "Falcon",
    "Ibis",
    "Marten",
    "Kite",
    "Vole",
    "Wren",
    "Yak",
]

# --- helpers ----------------------------------------------------------------------------------


def make_setup(
    teams: int = 3,
    *,
    cards_per_team: int = 2,
    players_per_team: int = 2,
    mapping: bool | None = None,
    resolve_immediately: bool | None = None,
) -> dict[str, Any]:
    setup: dict[str, Any] = {
        "teams": [
            {
                "id": f"team-internal-{index + 1}",
                "players": [f"t{index + 1}-pupil-{seat + 1}" for seat in range(players_per_team)],
            }
            for index in range(teams)
        ],
        "cards_per_team": cards_per_team,
        "source": "Atlas of the World, 2020 edition",
    }
    if mapping is not None:
        setup["facilitator_sees_mapping"] = mapping
    if resolve_immediately is not None:
        setup["resolve_immediately"] = resolve_immediately
    return setup


def member(state: State, team: int, seat: int = 0) -> str:
    return state.teams[team].players[seat]


def act(state: State, player: str | None, kind: str, **fields: Any) -> State:
    return apply_action(state, player, {"type": kind, **fields})


def fac(state: State, kind: str, **fields: Any) -> State:
    return act(state, "facilitator", kind, **fields)


def cards_of(state: State, team: int) -> list[int]:
    return [card.number for card in state.questions if card.team == state.teams[team].id]


def question_text(number: int) -> str:
    return f"What is {number} times {number}?"


def prepared(
    teams: int = 3,
    *,
    cards_per_team: int = 2,
    variant: str = "facilitator_marks",
    seed: int = 1,
    **options: Any,
) -> State:
    """Question Prep done: every team has its Team ID and every card its question."""
    state = new_game(make_setup(teams, cards_per_team=cards_per_team, **options), seed=seed, variant=variant)
    for index in range(teams):
        state = act(state, member(state, index), "choose_team_id", team_id=TEAM_IDS[index])
        for number in cards_of(state, index):
            state = act(
                state, member(state, index, -1), "write_question", card=number, text=question_text(number)
            )
    return state


def started(teams: int = 3, **options: Any) -> State:
    return fac(prepared(teams, **options), "start_round")


def submit_questions(state: State, order: list[int] | None = None) -> State:
    """Every team due submits the lowest-numbered card it may play."""
    deck = state.rounds[-1]
    due = [i for i, team in enumerate(state.teams) if team.id in deck.due]
    for index in order if order is not None else due:
        action = legal_actions(state, member(state, index))[0]
        state = apply_action(state, member(state, index), action)
    return state


def asked(state: State, team: int, deck: int = -1) -> int:
    """The question team ``team`` put in a Round Deck."""
    owner = state.teams[team].id
    return next(n for n in state.rounds[deck].questions if state.questions[n - 1].team == owner)


def answer(state: State, team: int, number: int, text: str | None = None, seat: int = 0) -> State:
    return act(
        state,
        member(state, team, seat),
        "submit_answer",
        question_number=number,
        text=text if text is not None else f"answer #{team + 1} to {number}",
        team_id=state.teams[team].team_id,
    )


def answer_id(state: State, team: int, number: int) -> str:
    """The neutral id team ``team``'s answer to ``number`` got (from the server's state)."""
    deck = next(d for d in state.rounds if d.status in ("resolving", "resolved") and number in d.answered)
    found = next(a.id for a in deck.answers if a.team == state.teams[team].id and a.question_number == number)
    assert found is not None
    return found


def mark(state: State, number: int, best: list[str], by: str = "facilitator") -> State:
    return act(state, by, "mark", question_number=number, best_answers=best)


def close(state: State) -> State:
    """The facilitator closes the round being resolved: its marking is final, its points count."""
    return fac(state, "close_round")


def marker(state: State, number: int) -> str:
    """Who marks ``number`` in the state's variant."""
    if state.variant == "facilitator_marks":
        return "facilitator"
    owner = state.questions[number - 1].team
    return next(t.players[0] for t in state.teams if t.id == owner)


def scores(state: State) -> dict[str, int]:
    return dict(player_view(state, None)["score_record"])


def assert_refused(error: type[Exception], state: State, player: str | None, action: Any, match: str) -> str:
    """The action raises ``error`` with a readable message and changes nothing."""
    before = state.to_dict()
    with pytest.raises(error, match=match) as raised:
        apply_action(state, player, action)
    message = str(raised.value)
    assert message[0].isupper() and message.endswith("."), message
    assert state.to_dict() == before
    return message


def round_one_answered(teams: int = 3, **options: Any) -> State:
    """Round 1 with every question in and each team answering the next team's question."""
    state = submit_questions(started(teams, **options))
    for index in range(teams):
        state = answer(state, index, asked(state, (index + 1) % teams))
    return state


# --- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"teams": [{"id": "a", "players": ["p1"]}]}, "at least two teams"),
        ({"teams": "ab"}, "at least two teams"),
        ({"teams": [{"id": "a", "players": []}, {"id": "b", "players": ["p2"]}]}, "at least one player"),
        (
            {"teams": [{"id": "a", "players": ["p1"]}, {"id": "a", "players": ["p2"]}]},
            "Team ids must be different",
        ),
        ({"teams": [{"id": "a", "players": ["p1"]}, {"id": "b", "players": ["p1"]}]}, "listed twice"),
        ({"teams": [{"id": "a", "players": ["facilitator"]}, {"id": "b", "players": ["p2"]}]}, "facilitator"),
        ({"teams": [{"id": "", "players": ["p1"]}, {"id": "b", "players": ["p2"]}]}, "non-empty string 'id'"),
        ({"teams": [{"id": "a", "players": [3]}, {"id": "b", "players": ["p2"]}]}, "non-empty strings"),
        (
            {"teams": [{"id": "a", "players": ["p1"], "name": "A"}, {"id": "b", "players": ["p2"]}]},
            "unknown field",
        ),
        ({"cards_per_team": 0}, "from 1 to 100"),
        ({"cards_per_team": True}, "from 1 to 100"),
        ({"cards_per_team": 101}, "from 1 to 100"),
        ({"source": "  "}, "agreed source of answers"),
        ({"facilitator_sees_mapping": "yes"}, "true or false"),
        ({"shuffle": False}, "Unknown setup field"),
    ],
)
def test_setup_mistakes_are_refused_with_a_reason(change: dict[str, Any], match: str) -> None:
    setup = make_setup()
    setup.update(change)
    with pytest.raises(InvalidSetup, match=match):
        new_game(setup, seed=1, variant="facilitator_marks")


def test_setup_missing_cards_per_team_or_unknown_variant_is_refused() -> None:
    setup = make_setup()
    del setup["cards_per_team"]
    with pytest.raises(InvalidSetup, match="cards_per_team"):
        new_game(setup, seed=1, variant="facilitator_marks")
    with pytest.raises(InvalidSetup, match="Unknown variant 'open'"):
        new_game(make_setup(), seed=1, variant="open")


def test_setup_players_list_of_the_session_layer_is_accepted_and_ignored() -> None:
    setup = make_setup()
    state = new_game(setup, seed=1, variant="team_marks")
    setup["players"] = [{"id": "t1-pupil-1", "name": "Ala"}]
    assert new_game(setup, seed=1, variant="team_marks") == state


def test_the_engine_is_found_by_name_and_has_the_shared_api() -> None:
    engine = engine_for("know")
    assert engine is know
    assert engine.GAME == "know"
    assert engine.VARIANTS == ("facilitator_marks", "team_marks")
    for name in ("new_game", "legal_actions", "apply_action", "is_terminal", "outcome", "player_view"):
        assert callable(getattr(engine, name))
    assert engine.state_from_dict is state_from_dict


# --- ID ---------------------------------------------------------------------------------------


def test_id_each_team_chooses_a_secret_team_id_any_player_of_the_team_may_do_it() -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    state = act(state, member(state, 0, 1), "choose_team_id", team_id="  Blue   Heron ")
    assert state.teams[0].team_id == "Blue Heron"
    assert player_view(state, member(state, 0))["your_team"]["team_id"] == "Blue Heron"
    assert "Blue Heron" not in json.dumps(player_view(state, member(state, 1)))


def test_id_team_id_must_be_unique_a_clash_is_refused_without_revealing_whose_it_was() -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    state = act(state, member(state, 0), "choose_team_id", team_id="Heron")
    messages = {
        assert_refused(
            IllegalAction, state, member(state, index), {"type": "choose_team_id", "team_id": text}, "taken"
        )
        for index in (1, 2)
        for text in ("Heron", "heron", " HERON ")
    }
    assert messages == {"That Team ID is taken; choose another."}
    # The same refusal whoever holds it: a third team's clash reads the same.
    state = act(state, member(state, 1), "choose_team_id", team_id="Otter")
    assert_refused(
        IllegalAction,
        state,
        member(state, 2),
        {"type": "choose_team_id", "team_id": "otter"},
        "^That Team ID is taken; choose another.$",
    )


def test_id_a_team_may_change_its_team_id_during_prep_which_frees_the_old_one() -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    state = act(state, member(state, 0), "choose_team_id", team_id="Heron")
    state = act(state, member(state, 0), "choose_team_id", team_id="heron")  # its own: no clash
    state = act(state, member(state, 0), "choose_team_id", team_id="Otter")
    state = act(state, member(state, 1), "choose_team_id", team_id="Heron")
    assert [t.team_id for t in state.teams] == ["Otter", "Heron", None]


@pytest.mark.parametrize("text", ["facilitator", "team-internal-2", "T2-PUPIL-1", "t1-pupil-2"])
def test_id_a_team_id_cannot_be_a_player_or_team_id_of_the_game(text: str) -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    assert_refused(
        IllegalAction, state, member(state, 0), {"type": "choose_team_id", "team_id": text}, "cannot be"
    )


def test_id_team_ids_are_final_once_the_first_question_round_starts() -> None:
    state = started()
    assert_refused(
        IllegalAction, state, member(state, 0), {"type": "choose_team_id", "team_id": "Kite"}, "final"
    )


# --- Question Prep ------------------------------------------------------------------------------


@pytest.mark.parametrize(("teams", "cards_per_team"), [(2, 1), (3, 2), (5, 3), (8, 4)])
def test_question_cards_have_unique_numbers_from_one_to_the_number_of_cards_played(
    teams: int, cards_per_team: int
) -> None:
    state = new_game(make_setup(teams, cards_per_team=cards_per_team), seed=4, variant="facilitator_marks")
    assert [card.number for card in state.questions] == list(range(1, teams * cards_per_team + 1))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_question_prep_blank_cards_are_shuffled_and_dealt_in_equal_numbers_to_the_teams(seed: int) -> None:
    state = new_game(make_setup(4, cards_per_team=3), seed=seed, variant="facilitator_marks")
    numbers = list(range(1, 13))
    rng_for(seed, "deal").shuffle(numbers)
    for index in range(4):
        assert sorted(numbers[index::4]) == cards_of(state, index)
        assert len(cards_of(state, index)) == 3
    assert all(card.text is None and card.status == "in_hand" for card in state.questions)


def test_question_prep_the_deal_depends_on_the_seed_so_numbers_say_nothing_about_teams() -> None:
    deals = {tuple(cards_of(new_game(make_setup(3), seed=s, variant="team_marks"), 0)) for s in range(20)}
    assert len(deals) > 5


def test_question_prep_teams_write_one_question_onto_each_of_their_cards() -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    own, other = cards_of(state, 0)[0], cards_of(state, 1)[0]
    state = act(state, member(state, 0), "write_question", card=own, text="  Where is Kraków? ")
    assert state.questions[own - 1].text == "Where is Kraków?"
    state = act(state, member(state, 0, 1), "write_question", card=own, text="Where is Gdańsk?")
    assert state.questions[own - 1].text == "Where is Gdańsk?"
    message = assert_refused(
        IllegalAction,
        state,
        member(state, 0),
        {"type": "write_question", "card": other, "text": "Q?"},
        "holds no",
    )
    assert message == f"Your team holds no Question Card {other}."
    assert "Where is" not in json.dumps(player_view(state, member(state, 1)))


def test_question_prep_questions_cannot_be_written_once_rounds_start() -> None:
    state = started()
    action = {"type": "write_question", "card": cards_of(state, 0)[1], "text": "Changed?"}
    assert_refused(IllegalAction, state, member(state, 0), action, "Question Prep")


def test_the_first_question_round_needs_every_team_id_and_every_card_written() -> None:
    state = new_game(make_setup(2, cards_per_team=1), seed=1, variant="facilitator_marks")
    assert_refused(IllegalAction, state, "facilitator", {"type": "start_round"}, "2 teams have none")
    state = act(state, member(state, 0), "choose_team_id", team_id="Otter")
    state = act(state, member(state, 1), "choose_team_id", team_id="Heron")
    assert_refused(IllegalAction, state, "facilitator", {"type": "start_round"}, "2 cards are still blank")
    state = act(state, member(state, 0), "write_question", card=cards_of(state, 0)[0], text="Q1?")
    assert {"type": "start_round"} not in legal_actions(state, "facilitator")
    state = act(state, member(state, 1), "write_question", card=cards_of(state, 1)[0], text="Q2?")
    assert {"type": "start_round"} in legal_actions(state, "facilitator")
    assert phase(fac(state, "start_round")) == "questions"


# --- Question Round -------------------------------------------------------------------------------


def test_question_round_each_team_privately_submits_one_of_its_question_cards() -> None:
    state = started(3)
    chosen = cards_of(state, 1)[1]
    state = act(state, member(state, 1), "submit_question", card=chosen)
    assert state.rounds[-1].questions == (chosen,)
    for viewer in (member(state, 0), member(state, 2), None, "facilitator"):
        view = player_view(state, viewer)
        assert view["round"]["questions"] == [] and view["round"]["questions_submitted"] == 1
        assert question_text(chosen) not in json.dumps(view)
    message = assert_refused(
        IllegalAction,
        state,
        member(state, 1, 1),
        {"type": "submit_question", "card": cards_of(state, 1)[0]},
        "already",
    )
    assert message == "Your team has already submitted its Question Card for this round."
    assert legal_actions(state, member(state, 1)) == []
    state = submit_questions(state, [0, 2])
    assert phase(state) == "answers"
    shown = player_view(state, None)["round"]["questions"]
    assert [q["number"] for q in shown] == sorted(state.rounds[-1].questions)
    assert all(set(q) == {"number", "text"} for q in shown)


def test_question_round_a_team_submits_only_a_card_it_holds() -> None:
    state = started(3)
    other = cards_of(state, 1)[0]
    message = assert_refused(
        IllegalAction, state, member(state, 0), {"type": "submit_question", "card": other}, "holds no"
    )
    assert message == f"Your team holds no Question Card {other}."


def test_question_round_the_facilitator_may_close_the_question_step_once_a_card_is_in() -> None:
    state = started(3)
    assert_refused(IllegalAction, state, "facilitator", {"type": "close_submissions"}, "No Question Card")
    state = submit_questions(state, [0, 1])
    state = fac(state, "close_submissions")
    assert phase(state) == "answers"
    assert state.rounds[-1].questions == (asked(state, 0), asked(state, 1))
    # The team that sat the round out keeps both its cards for the next fresh round.
    assert [state.questions[n - 1].status for n in cards_of(state, 2)] == ["in_hand", "in_hand"]


@pytest.mark.parametrize("teams", range(2, 13))
def test_answer_limit_is_ceiling_of_teams_minus_one_over_two(teams: int) -> None:
    limit = math.ceil((teams - 1) / 2)
    assert answer_limit(teams) == limit
    state = submit_questions(started(teams, cards_per_team=1))
    assert player_view(state, member(state, 0))["answer_limit"] == limit
    others = [asked(state, index) for index in range(1, teams)]
    for number in others[:limit]:
        state = answer(state, 0, number)
    assert legal_actions(state, member(state, 0)) == []
    assert player_view(state, member(state, 0))["your_team"]["this_round"]["answers_left"] == 0
    if len(others) > limit:
        action = {
            "type": "submit_answer",
            "question_number": others[limit],
            "text": "one too many",
            "team_id": TEAM_IDS[0],
        }
        message = assert_refused(
            IllegalAction, state, member(state, 0, 1), action, f"its {limit} Answer Card"
        )
        assert f"with {teams} teams" in message
    assert sum(a.team == state.teams[0].id for a in state.rounds[-1].answers) == limit


def test_answer_limit_six_teams_three_answer_cards_as_in_the_rulebook_example() -> None:
    assert answer_limit(6) == 3


def test_teams_cannot_answer_their_own_questions() -> None:
    state = submit_questions(started(3))
    own = asked(state, 0)
    action = {"type": "submit_answer", "question_number": own, "text": "I know this", "team_id": TEAM_IDS[0]}
    message = assert_refused(IllegalAction, state, member(state, 0), action, "own questions")
    assert message == "Teams cannot answer their own questions."
    assert own not in [a["question_number"] for a in legal_actions(state, member(state, 0))]
    assert [
        q["yours"] for q in player_view(state, member(state, 0))["round"]["questions"] if q["number"] == own
    ] == [True]


def test_at_most_one_answer_per_question_per_team() -> None:
    state = submit_questions(started(5))  # two Answer Cards a team
    number = asked(state, 1)
    state = answer(state, 0, number)
    action = {"type": "submit_answer", "question_number": number, "text": "again", "team_id": TEAM_IDS[0]}
    message = assert_refused(IllegalAction, state, member(state, 0, 1), action, "already answered")
    assert message == f"Your team has already answered question {number}: one Answer Card a question."
    assert number not in [a["question_number"] for a in legal_actions(state, member(state, 0))]
    state = answer(state, 2, number)  # another team may answer it too
    assert len(state.rounds[-1].answers) == 2


@pytest.mark.parametrize(
    ("drop", "value", "reason"),
    [
        ("question_number", None, "this card has no Question Number"),
        ("question_number", "two", "this card has no Question Number"),
        ("question_number", True, "this card has no Question Number"),
        ("text", None, "this card has no Answer"),
        ("text", "   ", "this card has no Answer"),
        ("team_id", None, "this card has no Team ID"),
        ("team_id", "", "this card has no Team ID"),
    ],
)
def test_invalid_answer_cards_without_question_number_answer_or_team_id_are_refused_with_the_reason(
    drop: str, value: Any, reason: str
) -> None:
    state = submit_questions(started(3))
    action: dict[str, Any] = {
        "type": "submit_answer",
        "question_number": asked(state, 1),
        "text": "Warsaw",
        "team_id": TEAM_IDS[0],
    }
    if value is None:
        del action[drop]
    else:
        action[drop] = value
    message = assert_refused(InvalidAction, state, member(state, 0), action, reason)
    assert message.startswith(
        "For Answer Cards to be valid they must include the Question Number, Answer and Team ID"
    )


def test_an_answer_card_carries_the_team_s_own_team_id_and_the_refusal_names_nobody() -> None:
    state = submit_questions(started(3))
    messages = set()
    for written in (TEAM_IDS[1], TEAM_IDS[2], "Nobody's"):
        action = {
            "type": "submit_answer",
            "question_number": asked(state, 1),
            "text": "x",
            "team_id": written,
        }
        messages.add(assert_refused(IllegalAction, state, member(state, 0), action, "own team"))
    assert messages == {"An Answer Card carries your own team's Team ID."}
    assert len(answer(state, 0, asked(state, 1)).rounds[-1].answers) == 1


def test_an_answer_to_a_question_not_in_the_round_is_refused() -> None:
    state = submit_questions(started(3))
    outside = next(n for n in range(1, 7) if n not in state.rounds[-1].questions)
    action = {"type": "submit_answer", "question_number": outside, "text": "x", "team_id": TEAM_IDS[0]}
    assert_refused(IllegalAction, state, member(state, 0), action, f"Question {outside} is not in this round")


def test_answers_are_submitted_only_after_the_round_s_questions_are_in() -> None:
    state = submit_questions(started(3), [1])
    action = {
        "type": "submit_answer",
        "question_number": asked(state, 1),
        "text": "x",
        "team_id": TEAM_IDS[0],
    }
    assert_refused(IllegalAction, state, member(state, 0), action, "once the round's questions")


# --- Resolution -----------------------------------------------------------------------------------


def test_resolution_the_round_deck_is_shuffled_with_rng_for_seed_round_n_before_revealing() -> None:
    state = fac(fac(round_one_answered(3, seed=11), "close_submissions"), "resolve")
    deck = state.rounds[0]
    cards: list[str | int] = [f"q{n}" for n in deck.questions]
    cards.extend(range(len(deck.answers)))
    rng_for(11, "round", 1).shuffle(cards)
    names = iter(f"a{k}" for k in range(1, 10))
    expected = [card if isinstance(card, str) else next(names) for card in cards]
    assert list(deck.revealed) == expected
    assert player_view(state, None)["resolutions"][0]["revealed"] == expected
    # Answers keep the deck's shuffled order: a1 is the first answer card revealed, and so on.
    order = [card for card in cards if isinstance(card, int)]
    assert [deck.answers[index].id for index in order] == [f"a{k}" for k in range(1, len(order) + 1)]


def test_resolution_answers_are_revealed_matched_to_their_questions_without_team_ids() -> None:
    state = fac(fac(round_one_answered(3), "close_submissions"), "resolve")
    view = player_view(state, None)
    (resolution,) = view["resolutions"]
    for question in resolution["questions"]:
        for revealed in question["answers"]:
            assert set(revealed) == {"id", "text"}
            card = next(a for a in state.rounds[0].answers if a.id == revealed["id"])
            assert card.question_number == question["number"] and card.text == revealed["text"]
    assert not any(team_id in public_parts_removed(view) for team_id in TEAM_IDS[:3])


def test_resolution_answer_ids_come_from_the_seeded_shuffle_not_from_submission_order() -> None:
    first_ids: Counter[str | None] = Counter()
    for seed in range(40):
        state = fac(fac(round_one_answered(3, seed=seed), "close_submissions"), "resolve")
        first = state.rounds[0].answers[0]  # the first answer card submitted
        first_ids[first.id] += 1
        assert sorted(a.id or "" for a in state.rounds[0].answers) == ["a1", "a2", "a3"]
    assert len(first_ids) == 3, first_ids


def test_resolution_may_be_done_immediately_or_later_and_decks_wait_put_to_one_side() -> None:
    state = fac(round_one_answered(3, cards_per_team=2), "close_submissions")
    assert phase(state) == "between_rounds" and state.rounds[0].status == "put_aside"
    assert player_view(state, None)["put_aside_rounds"] == [1]
    state = fac(state, "start_round")  # later: the next round first
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve"}, "A Question Round is open")
    state = submit_questions(state)
    for index in range(3):
        state = answer(state, index, asked(state, (index + 2) % 3))
    state = fac(state, "close_submissions")
    assert [d.status for d in state.rounds] == ["put_aside", "put_aside"]
    assert {"type": "resolve", "round": 2} in legal_actions(state, "facilitator")
    state = fac(state, "resolve", round=2)
    assert [d.status for d in state.rounds] == ["put_aside", "resolving"]
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve", "round": 1}, "Finish marking")
    assert_refused(IllegalAction, state, "facilitator", {"type": "start_round"}, "Finish marking")
    for number in state.rounds[1].answered:
        state = mark(state, number, [])
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve"}, "Finish marking")
    state = close(state)
    state = fac(state, "resolve")  # the oldest deck put to one side
    assert [d.status for d in state.rounds] == ["resolving", "resolved"]
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve", "round": 2}, "Finish marking")


def test_resolve_names_a_deck_that_is_waiting() -> None:
    state = fac(round_one_answered(3), "close_submissions")
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve", "round": 4}, "not waiting")
    assert_refused(
        InvalidAction, state, "facilitator", {"type": "resolve", "round": "1"}, "number of a Round Deck"
    )
    state = fac(state, "resolve")
    for number in state.rounds[0].answered:
        state = mark(state, number, [])
    state = close(state)
    assert_refused(IllegalAction, state, "facilitator", {"type": "resolve"}, "No Round Deck is waiting")


@pytest.mark.parametrize(
    ("teams", "winners", "each"),
    [(2, 1, 1), (3, 1, 2), (3, 2, 1), (4, 2, 1), (4, 3, 1), (5, 2, 2), (5, 3, 1), (6, 1, 5), (6, 2, 2),
     (6, 4, 1), (6, 5, 1), (7, 4, 1), (8, 3, 2), (8, 7, 1), (9, 4, 2), (10, 3, 3), (11, 4, 2),
     (12, 5, 2), (12, 11, 1)],
)  # fmt: skip
def test_point_pool_of_teams_minus_one_is_shared_each_winner_gets_max_1_floor_pool_over_winners(
    teams: int, winners: int, each: int
) -> None:
    assert point_pool(teams) == teams - 1
    assert points_each(teams - 1, winners) == max(1, (teams - 1) // winners) == each
    state = submit_questions(started(teams, cards_per_team=1))
    number = asked(state, 0)
    for index in range(1, winners + 1):
        state = answer(state, index, number)
    state = fac(fac(state, "close_submissions"), "resolve")
    best = [answer_id(state, index, number) for index in range(1, winners + 1)]
    state = close(mark(state, number, best))
    record = scores(state)
    assert record == {TEAM_IDS[i]: (each if 1 <= i <= winners else 0) for i in range(teams)}
    (question,) = player_view(state, None)["resolutions"][0]["questions"]
    assert question["points_each"] == each and question["best_answers"] == sorted(
        best, key=state.rounds[0].revealed.index
    )


def test_point_pool_rulebook_examples() -> None:
    assert point_pool(6) == 5  # "If there are 6 teams then every question has (6 - 1) = 5 points"
    assert points_each(5, 2) == 2  # "5 points ... 2 Winning Teams ... each Winning Team receives 2 points"
    assert points_each(6, 4) == 1  # "6 points 4 winners": the higher of 1 or Floor(6 / 4)


@given(st.integers(min_value=2, max_value=40), st.data())
def test_point_pool_share_is_at_least_one_and_never_more_than_the_pool(
    teams: int, data: st.DataObject
) -> None:
    winners = data.draw(st.integers(min_value=1, max_value=teams - 1))
    each = points_each(point_pool(teams), winners)
    assert each >= 1
    assert each * winners <= point_pool(teams)
    assert each == max(1, math.floor((teams - 1) / winners))


def test_a_question_marked_with_no_best_answer_gives_no_points() -> None:
    state = fac(fac(round_one_answered(3), "close_submissions"), "resolve")
    for number in state.rounds[0].answered:
        state = mark(state, number, [])
    state = close(state)
    assert set(scores(state).values()) == {0}
    assert all(q["points_each"] == 0 for q in player_view(state, None)["resolutions"][0]["questions"])


def test_the_public_score_record_is_keyed_by_team_id_and_changes_when_the_deck_is_marked() -> None:
    state = fac(fac(round_one_answered(3), "close_submissions"), "resolve")
    q0, q1, q2 = (asked(state, i, 0) for i in range(3))  # team i answered team i+1's question
    state = mark(state, q1, [answer_id(state, 0, q1)])
    assert scores(state) == {"Heron": 0, "Newt": 0, "Otter": 0}  # not yet: one question is no answer
    state = mark(state, q2, [answer_id(state, 1, q2)])
    state = mark(state, q0, [])
    assert scores(state) == {"Heron": 0, "Newt": 0, "Otter": 0}  # not yet: the round is open
    state = close(state)
    assert scores(state) == {"Heron": 2, "Newt": 0, "Otter": 2}
    assert list(scores(state)) == ["Heron", "Newt", "Otter"]  # by Team ID, not in team order
    assert player_view(state, member(state, 0))["your_team"]["score"] == 2


def test_mark_refuses_ids_that_do_not_answer_the_question_and_marking_twice() -> None:
    state = fac(fac(round_one_answered(3), "close_submissions"), "resolve")
    number, other = asked(state, 1, 0), asked(state, 2, 0)
    wrong = answer_id(state, 1, other)
    assert_refused(
        IllegalAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": number, "best_answers": [wrong]},
        "is not an answer",
    )
    assert_refused(
        IllegalAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": number, "best_answers": ["a9"]},
        "is not an answer",
    )
    outside = next(n for n in range(1, 7) if n not in state.rounds[0].questions)
    assert_refused(
        IllegalAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": outside, "best_answers": []},
        "not in the Round Deck",
    )
    good = answer_id(state, 0, number)
    assert_refused(
        InvalidAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": number, "best_answers": [good, good]},
        "listed twice",
    )
    assert_refused(
        InvalidAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": number, "best_answers": good},
        "ids of the best answers",
    )
    state = mark(state, number, [good])
    state = close(mark_rest(state, []))
    assert_refused(
        IllegalAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": number, "best_answers": []},
        "No Round Deck is being resolved",
    )


def mark_rest(state: State, best: list[str]) -> State:
    """Mark every question of the deck being resolved that is not marked yet."""
    deck = next(d for d in state.rounds if d.status == "resolving")
    done = {m.question_number for m in deck.marks}
    for key in deck.revealed:
        if key.startswith("q") and int(key[1:]) not in done:
            state = mark(state, int(key[1:]), best, by=marker(state, int(key[1:])))
    return state


def test_facilitator_marks_variant_the_facilitator_marks_and_no_team_does() -> None:
    state = fac(fac(round_one_answered(3, variant="facilitator_marks"), "close_submissions"), "resolve")
    number = asked(state, 0, 0)
    action = {"type": "mark", "question_number": number, "best_answers": []}
    assert_refused(IllegalAction, state, member(state, 0), action, "Only the facilitator marks")
    assert_refused(IllegalAction, state, member(state, 1), action, "Only the facilitator marks")
    assert all(legal_actions(state, p) == [] for t in state.teams for p in t.players)
    assert {"type": "mark", "question_number": number} in legal_actions(state, "facilitator")
    assert player_view(state, None)["marking"] == "facilitator"


def test_team_marks_variant_the_question_s_own_team_marks_its_answers() -> None:
    state = fac(fac(round_one_answered(3, variant="team_marks"), "close_submissions"), "resolve")
    q0 = asked(state, 0, 0)  # answered by team 2
    action = {"type": "mark", "question_number": q0, "best_answers": [answer_id(state, 2, q0)]}
    assert_refused(IllegalAction, state, "facilitator", action, "own team marks")
    assert_refused(IllegalAction, state, None, action, "own team marks")
    message = assert_refused(IllegalAction, state, member(state, 1), action, "Only the team that wrote")
    assert message == f"Only the team that wrote question {q0} marks it."
    assert legal_actions(state, member(state, 0)) == [{"type": "mark", "question_number": q0}]
    assert [a["type"] for a in legal_actions(state, "facilitator")] == ["end_game"]
    state = apply_action(state, member(state, 0, 1), action)  # any player of the team
    for index in (1, 2):
        number = asked(state, index, 0)
        state = mark(state, number, [answer_id(state, index - 1, number)], by=member(state, index))
    assert_refused(IllegalAction, state, member(state, 0), {"type": "close_round"}, "Only the facilitator")
    state = close(state)
    assert scores(state) == {"Heron": 2, "Newt": 2, "Otter": 2}
    assert player_view(state, None)["marking"] == "question_team"


def test_team_marks_who_marked_is_not_recorded_anywhere() -> None:
    state = fac(fac(round_one_answered(3, variant="team_marks"), "close_submissions"), "resolve")
    q0 = asked(state, 0, 0)
    action = {"type": "mark", "question_number": q0, "best_answers": [answer_id(state, 2, q0)]}
    by_first, by_second = (
        apply_action(state, member(state, 0, 0), action),
        apply_action(state, member(state, 0, 1), action),
    )
    assert by_first == by_second
    assert by_first.to_dict() == by_second.to_dict()


# --- questions nobody answered ------------------------------------------------------------------


def test_questions_nobody_answered_are_set_aside_and_replayed_once_all_questions_were_submitted() -> None:
    state = submit_questions(started(3, cards_per_team=2))
    lonely = asked(state, 0)
    state = answer(answer(state, 0, asked(state, 1)), 2, asked(state, 1))
    state = answer(state, 1, asked(state, 2))
    state = fac(state, "close_submissions")
    assert state.rounds[0].set_aside == (lonely,)
    assert state.questions[lonely - 1].status == "set_aside"
    assert player_view(state, None)["set_aside"] == [lonely]
    state = fac(state, "start_round")  # round 2 is fresh: the set-aside card waits
    assert state.rounds[-1].kind == "fresh"
    assert {"type": "submit_question", "card": lonely} not in legal_actions(state, member(state, 0))
    assert_refused(
        IllegalAction,
        state,
        member(state, 0),
        {"type": "submit_question", "card": lonely},
        "once every question has been submitted",
    )
    state = submit_questions(state)
    state = answer(state, 0, asked(state, 1))
    state = fac(state, "close_submissions")
    assert sorted(state.rounds[1].set_aside) == sorted([asked(state, 0, 1), asked(state, 2, 1)])
    state = fac(state, "start_round")  # every question has been submitted: a round of set-aside ones
    deck = state.rounds[-1]
    assert deck.kind == "set_aside"
    assert deck.due == (state.teams[0].id, state.teams[2].id)
    assert legal_actions(state, member(state, 1)) == []  # no set-aside question of its own
    state = act(state, member(state, 0), "submit_question", card=lonely)
    state = act(state, member(state, 2), "submit_question", card=asked(state, 2, 1))
    assert phase(state) == "answers"
    state = answer(state, 1, lonely)
    state = fac(state, "close_submissions")
    assert state.questions[lonely - 1].rounds == (1, 3)
    state = fac(state, "resolve", round=3)
    state = close(mark(state, lonely, [answer_id(state, 1, lonely)]))
    assert scores(state)["Heron"] == 2
    assert not is_terminal(state)  # round 2's deck and one set-aside question remain


def test_a_round_nobody_answered_has_nothing_to_resolve() -> None:
    state = fac(submit_questions(started(2, cards_per_team=1)), "close_submissions")
    assert state.rounds[0].status == "resolved" and state.rounds[0].revealed == ()
    assert sorted(state.rounds[0].set_aside) == [1, 2]
    assert {"type": "resolve", "round": 1} not in legal_actions(state, "facilitator")
    assert player_view(state, None)["resolutions"] == []
    state = fac(state, "start_round")
    assert state.rounds[-1].kind == "set_aside" and len(state.rounds[-1].due) == 2


def test_a_question_is_in_at_most_one_round_deck_at_a_time() -> None:
    state = submit_questions(started(3, cards_per_team=2))
    state = answer(state, 0, asked(state, 1))
    state = fac(state, "close_submissions")
    state = submit_questions(fac(state, "start_round"))
    first, second = state.rounds
    assert not set(first.questions) & set(second.questions)


# --- end of the game ------------------------------------------------------------------------------


def test_the_game_ends_when_the_questions_run_out_and_the_score_record_is_final() -> None:
    state = fac(fac(round_one_answered(3, cards_per_team=1), "close_submissions"), "resolve")
    q0, q1, q2 = (asked(state, i, 0) for i in range(3))
    state = mark(state, q1, [answer_id(state, 0, q1)])
    state = mark(state, q2, [answer_id(state, 1, q2)])
    assert not is_terminal(state)
    state = mark(state, q0, [answer_id(state, 2, q0)])
    assert not is_terminal(state)  # every question is marked, but the round is still open
    state = close(state)
    assert is_terminal(state) and phase(state) == "over"
    assert outcome(state) == {
        "reason": "questions_ran_out",
        "score_record": {"Heron": 2, "Newt": 2, "Otter": 2},
        "ranking": ["Heron", "Newt", "Otter"],
        "winners": ["Heron", "Newt", "Otter"],
    }
    for player in [None, "facilitator", *(p for t in state.teams for p in t.players)]:
        assert legal_actions(state, player) == []
    assert_refused(IllegalAction, state, "facilitator", {"type": "start_round"}, "The game is over")
    assert_refused(IllegalAction, state, "facilitator", {"type": "end_game"}, "The game is over")


def test_the_game_does_not_end_while_set_aside_questions_can_still_be_played() -> None:
    state = submit_questions(started(2, cards_per_team=1))
    state = answer(state, 0, asked(state, 1))
    state = fac(fac(state, "close_submissions"), "resolve")
    state = close(mark(state, asked(state, 1, 0), [answer_id(state, 0, asked(state, 1, 0))]))
    assert not is_terminal(state) and player_view(state, None)["set_aside"] == [asked(state, 0, 0)]
    state = submit_questions(fac(state, "start_round"))
    state = answer(state, 1, asked(state, 0, 0))
    state = fac(fac(state, "close_submissions"), "resolve")
    state = close(mark(state, asked(state, 0, 0), [answer_id(state, 1, asked(state, 0, 0))]))
    assert outcome(state) == {
        "reason": "questions_ran_out",
        "score_record": {"Heron": 1, "Otter": 1},
        "ranking": ["Heron", "Otter"],
        "winners": ["Heron", "Otter"],
    }


def test_the_facilitator_ends_the_game_questions_marked_so_far_count_decks_put_aside_do_not() -> None:
    state = fac(round_one_answered(3, cards_per_team=2), "close_submissions")
    state = submit_questions(fac(state, "start_round"))
    for index in range(3):
        state = answer(state, index, asked(state, (index + 1) % 3))
    state = fac(fac(state, "close_submissions"), "resolve", round=2)
    number = asked(state, 1, 1)
    state = mark(state, number, [answer_id(state, 0, number)])
    assert scores(state) == {"Heron": 0, "Newt": 0, "Otter": 0}
    for player in (member(state, 0), None):
        if player is not None:
            assert_refused(IllegalAction, state, player, {"type": "end_game"}, "Only the facilitator ends")
    state = fac(state, "end_game")
    assert outcome(state) == {
        "reason": "ended_by_facilitator",
        "score_record": {"Heron": 0, "Newt": 0, "Otter": 2},
        "ranking": ["Otter", "Heron", "Newt"],
        "winners": ["Otter"],
    }
    assert state.rounds[0].status == "put_aside"  # never scored


def test_the_facilitator_may_end_the_game_in_question_prep_with_an_empty_score_record() -> None:
    state = fac(new_game(make_setup(), seed=1, variant="team_marks"), "end_game")
    assert outcome(state) == {
        "reason": "ended_by_facilitator",
        "score_record": {},
        "ranking": [],
        "winners": [],
    }


def test_before_ending_the_facilitator_sees_what_the_end_would_leave_unscored() -> None:
    """End the game: decks put to one side are never marked and, in the deck being resolved,
    only the questions marked so far count; the facilitator's view counts both (no team)."""
    state = fac(round_one_answered(3, cards_per_team=2), "close_submissions")
    assert player_view(state, "facilitator")["facilitator"]["if_ended_now"] == {
        "put_aside_rounds": [1],
        "put_aside_questions": 3,
        "resolving_round": None,
        "resolving_marked": 0,
        "resolving_unmarked": 0,
        "open_round": None,
        "unplayed_questions": 3,
    }
    state = submit_questions(fac(state, "start_round"))
    assert player_view(state, "facilitator")["facilitator"]["if_ended_now"]["open_round"] == 2
    state = answer(state, 0, asked(state, 1))
    state = fac(fac(state, "close_submissions"), "resolve", round=2)  # two questions set aside
    number = asked(state, 1, 1)
    leaves = player_view(state, "facilitator")["facilitator"]["if_ended_now"]
    assert (leaves["resolving_round"], leaves["resolving_marked"], leaves["resolving_unmarked"]) == (2, 0, 1)
    state = mark(state, number, [answer_id(state, 0, number)])
    leaves = player_view(state, "facilitator")["facilitator"]["if_ended_now"]
    assert leaves == {
        "put_aside_rounds": [1],
        "put_aside_questions": 3,
        "resolving_round": 2,
        "resolving_marked": 1,
        "resolving_unmarked": 0,
        "open_round": None,
        "unplayed_questions": 2,
    }
    for viewer in (None, member(state, 0)):
        assert "facilitator" not in player_view(state, viewer)
    state = fac(state, "end_game")
    assert player_view(state, "facilitator")["facilitator"]["if_ended_now"] is None
    assert scores(state) == {"Heron": 0, "Newt": 0, "Otter": 2}
    assert state.rounds[0].status == "put_aside"


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_spectator_s_view_has_no_legal_actions_though_the_table_acts_as_the_facilitator(
    variant: str,
) -> None:
    """The projector and spectators see ``player_view(state, None)``: it must not carry the
    facilitator's controls, while ``None`` acting is still the table (the session layer's)."""
    seen_phases = set()

    def check(state: State) -> None:
        view = player_view(state, None)
        seen_phases.add(view["phase"])
        assert view["role"] == "spectator" and view["legal_actions"] == []
        assert legal_actions(state, None) == legal_actions(state, "facilitator")
        assert player_view(state, "facilitator")["legal_actions"] == legal_actions(state, "facilitator")

    play_whole_game(variant, seed=3, check=check)
    assert seen_phases == {"prep", "questions", "answers", "between_rounds", "resolution", "over"}
    state = started(3)
    assert player_view(state, None)["legal_actions"] == []
    assert apply_action(state, None, {"type": "end_game"}) == fac(state, "end_game")


# --- anonymity ----------------------------------------------------------------------------------


def public_parts_removed(view: dict[str, Any]) -> str:
    """The view as JSON without the score record and outcome, the only places Team IDs are public."""
    rest = {k: v for k, v in view.items() if k not in ("score_record", "outcome")}
    return json.dumps(rest, ensure_ascii=False)


def mentions(text: str, name: str) -> bool:
    """Whether ``name`` appears in ``text`` as a whole word ("Vole" is not in "Vole6")."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def assert_anonymous(state: State) -> None:
    """Every non-member's view, across the game so far: no other team's internal id or player ids,
    and no Team ID outside the public score record and outcome except the viewer's own."""
    teams = state.teams
    for viewer_team in teams:
        for viewer in viewer_team.players:
            view = player_view(state, viewer)
            text = json.dumps(view, ensure_ascii=False)
            rest = public_parts_removed(view)
            for other in teams:
                if other.id == viewer_team.id:
                    continue
                assert f'"{other.id}"' not in text and other.id not in text, (viewer, other.id)
                for player in other.players:
                    assert player not in text, (viewer, player)
                if other.team_id is not None:
                    assert not mentions(rest, other.team_id), (viewer, other.team_id)
            assert "seed" not in view
    outsiders: tuple[str | None, ...] = (None, "facilitator")
    for outsider in outsiders:
        view = player_view(state, outsider)
        if outsider is None:
            assert view["legal_actions"] == []  # the projector carries no facilitator's controls
        text = json.dumps(view, ensure_ascii=False)
        rest = public_parts_removed(view)
        for team in teams:
            if outsider is None:
                assert team.id not in text and not any(p in text for p in team.players)
            if team.team_id is not None and not (
                outsider == "facilitator" and state.facilitator_sees_mapping
            ):
                assert not mentions(rest, team.team_id), (outsider, team.team_id)


def play_whole_game(
    variant: str, *, seed: int, mapping: bool = False, check: Callable[[State], None]
) -> State:
    """A full game by a fixed script: every phase, a set-aside question replayed, both ends of
    resolution (now and later), every team answering and marking."""
    state = new_game(make_setup(4, cards_per_team=2, mapping=mapping), seed=seed, variant=variant)
    check(state)
    for index in range(4):
        state = act(state, member(state, index, 1), "choose_team_id", team_id=TEAM_IDS[index])
        check(state)
        for number in cards_of(state, index):
            state = act(
                state, member(state, index), "write_question", card=number, text=question_text(number)
            )
            check(state)
    for round_number in (1, 2):
        state = fac(state, "start_round")
        check(state)
        for index in (2, 0, 3, 1):
            state = act(
                state,
                member(state, index, 1),
                "submit_question",
                card=legal_actions(state, member(state, index))[0]["card"],
            )
            check(state)
        for index in range(4):
            for step in (1, 2):
                target = (index + step) % 4
                if round_number == 2 and target == 3:
                    continue  # nobody answers team 3's second question: set aside
                state = answer(state, index, asked(state, target), text=f"guess {index}{step}", seat=step - 1)
                check(state)
        state = fac(state, "close_submissions")
        check(state)
    for deck in (2, 1):
        state = fac(state, "resolve", round=deck)
        check(state)
        for number in state.rounds[deck - 1].answered:
            ids = [a.id or "" for a in state.rounds[deck - 1].answers if a.question_number == number]
            state = mark(state, number, ids[:1], by=marker(state, number))
            check(state)
        state = close(state)
        check(state)
    state = fac(state, "start_round")
    check(state)
    state = act(state, member(state, 3), "submit_question", card=asked(state, 3, 1))
    check(state)
    state = answer(state, 0, asked(state, 3, 1), text="late guess")
    check(state)
    state = fac(fac(state, "close_submissions"), "resolve")
    check(state)
    number = asked(state, 3, 1)
    state = mark(state, number, [answer_id(state, 0, number)], by=marker(state, number))
    check(state)
    state = close(state)
    check(state)
    assert is_terminal(state)
    return state


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mapping", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_anonymity_no_view_links_a_team_id_or_an_answer_to_another_team_across_a_whole_game(
    variant: str, mapping: bool, seed: int
) -> None:
    state = play_whole_game(variant, seed=seed, mapping=mapping, check=assert_anonymous)
    assert outcome(state) is not None and outcome(state)["reason"] == "questions_ran_out"  # type: ignore[index]


def test_anonymity_the_facilitator_sees_the_team_id_mapping_only_if_the_setup_allows_it() -> None:
    for mapping, shown in ((None, False), (False, False), (True, True)):
        options = {} if mapping is None else {"mapping": mapping}
        state = started(3, **options)
        view = player_view(state, "facilitator")
        teams = view["facilitator"]["teams"]
        assert [t["id"] for t in teams] == [t.id for t in state.teams]
        assert [t["players"] for t in teams] == [list(t.players) for t in state.teams]
        if shown:
            assert [t["team_id"] for t in teams] == TEAM_IDS[:3]
        else:
            assert all("team_id" not in t for t in teams)
            assert not any(team_id in public_parts_removed(view) for team_id in TEAM_IDS[:3])
        spectator = player_view(state, None)
        assert "facilitator" not in spectator and "your_team" not in spectator


def test_anonymity_a_view_is_the_same_whichever_other_team_gave_an_answer() -> None:
    """Swap which of two teams wrote each answer: every other viewer's screen is the same until
    the score record moves."""

    def game(first: int, second: int) -> State:
        state = submit_questions(started(3, seed=5))
        number = asked(state, 2)
        state = answer(state, first, number, text="Vistula")
        state = answer(state, second, number, text="Oder")
        return fac(fac(state, "close_submissions"), "resolve")

    one, other = game(0, 1), game(1, 0)
    for viewer in (member(one, 2), member(one, 2, 1), None, "facilitator"):
        assert player_view(one, viewer) == player_view(other, viewer)


def test_anonymity_a_view_is_the_same_whichever_other_team_holds_a_team_id() -> None:
    """Two teams swap their Team IDs: a third team's screen differs only in the score record."""

    def game(names: list[str]) -> State:
        state = new_game(make_setup(3, cards_per_team=1), seed=9, variant="team_marks")
        for index, name in enumerate(names):
            state = act(state, member(state, index), "choose_team_id", team_id=name)
            state = act(
                state, member(state, index), "write_question", card=cards_of(state, index)[0], text="Q?"
            )
        state = submit_questions(fac(state, "start_round"))
        state = answer(state, 0, asked(state, 2), text="same")
        state = answer(state, 1, asked(state, 2), text="same")
        state = fac(fac(state, "close_submissions"), "resolve")
        return close(
            mark(state, asked(state, 2, 0), [answer_id(state, 0, asked(state, 2, 0))], by=member(state, 2))
        )

    one, other = game(["Otter", "Heron", "Newt"]), game(["Heron", "Otter", "Newt"])
    for viewer in (member(one, 2), None, "facilitator"):
        a, b = player_view(one, viewer), player_view(other, viewer)
        assert public_parts_removed(a) == public_parts_removed(b)
    assert scores(one) == {"Heron": 0, "Newt": 0, "Otter": 2} and scores(other) == {
        "Heron": 2,
        "Newt": 0,
        "Otter": 0,
    }


def test_anonymity_the_score_record_never_follows_the_team_order() -> None:
    state = started(8)
    record = player_view(state, None)["score_record"]
    assert list(record) == sorted(TEAM_IDS[:8], key=str.casefold)
    assert list(record) != TEAM_IDS[:8]


def test_anonymity_refusals_name_no_other_team() -> None:
    """Every refusal a player can provoke, read for another team's ids."""
    state = submit_questions(started(3))
    others = [state.teams[1], state.teams[2]]
    attempts: list[dict[str, Any]] = [
        {"type": "submit_question", "card": cards_of(state, 1)[1]},
        {"type": "submit_answer", "question_number": asked(state, 0), "text": "x", "team_id": "Otter"},
        {"type": "submit_answer", "question_number": asked(state, 1), "text": "x", "team_id": "Heron"},
        {"type": "choose_team_id", "team_id": "Heron"},
        {"type": "mark", "question_number": asked(state, 1), "best_answers": []},
        {"type": "close_submissions"},
    ]
    for action in attempts:
        with pytest.raises((IllegalAction, InvalidAction)) as raised:
            apply_action(state, member(state, 0), action)
        message = str(raised.value)
        for team in others:
            assert team.id not in message and (team.team_id or team.id) not in message
            assert not any(p in message for p in team.players)


def test_view_of_an_unknown_player_is_refused() -> None:
    with pytest.raises(InvalidAction, match="no player 'p9'"):
        player_view(started(), "p9")


def test_a_player_sees_their_own_team_cards_and_answers_only() -> None:
    state = answer(submit_questions(started(3)), 0, asked(submit_questions(started(3)), 1), text="Gdańsk")
    mine = player_view(state, member(state, 0, 1))["your_team"]
    assert mine["id"] == state.teams[0].id and mine["team_id"] == "Otter"
    assert [c["number"] for c in mine["cards"]] == cards_of(state, 0)
    assert mine["this_round"]["answers"] == [{"question_number": asked(state, 1), "text": "Gdańsk"}]
    assert "Gdańsk" not in json.dumps(player_view(state, member(state, 1)))
    assert "Gdańsk" not in json.dumps(player_view(state, "facilitator"))


# --- malformed and illegal actions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "action", "match"),
    [
        ("t1-pupil-1", ["start_round"], "must be an object"),
        ("t1-pupil-1", {"type": "dance"}, "Unknown action type 'dance'"),
        ("t1-pupil-1", {}, "Unknown action type None"),
        ("p9", {"type": "choose_team_id", "team_id": "Kite"}, "no player 'p9'"),
        ("t1-pupil-1", {"type": "choose_team_id", "player": "t2-pupil-1", "team_id": "K"}, "names player"),
        ("t1-pupil-1", {"type": "choose_team_id", "player": 7, "team_id": "K"}, "must be a player id"),
        ("t1-pupil-1", {"type": "choose_team_id"}, "Team ID is needed"),
        ("t1-pupil-1", {"type": "choose_team_id", "team_id": "x" * 33}, "at most 32"),
        ("t1-pupil-1", {"type": "choose_team_id", "team_id": "Ki\u200bte"}, "invisible"),
        ("t1-pupil-1", {"type": "write_question", "text": "Q?"}, "its number in 'card'"),
        ("t1-pupil-1", {"type": "write_question", "card": 1}, "needs its question"),
        ("t1-pupil-1", {"type": "write_question", "card": 1, "text": "x" * 501}, "at most 500"),
        ("t1-pupil-1", {"type": "submit_question", "card": "1"}, "its number in 'card'"),
        ("facilitator", {"type": "mark", "best_answers": []}, "its number in 'question_number'"),
    ],
)
def test_malformed_actions_raise_invalid_action_and_change_nothing(
    player: str | None, action: Any, match: str
) -> None:
    state = new_game(make_setup(), seed=1, variant="facilitator_marks")
    assert_refused(InvalidAction, state, player, action, match)
    assert_refused(InvalidAction, started(), player, action, match)


@pytest.mark.parametrize(
    ("when", "player", "action", "match"),
    [
        ("prep", "t1-pupil-1", {"type": "start_round"}, "Only the facilitator starts"),
        ("prep", "facilitator", {"type": "choose_team_id", "team_id": "Kite"}, "Only a team's players"),
        ("prep", "facilitator", {"type": "write_question", "card": 1, "text": "Q?"}, "Only a team's players"),
        ("prep", "facilitator", {"type": "close_submissions"}, "No Question Round is open"),
        ("prep", "facilitator", {"type": "resolve"}, "No Round Deck is waiting"),
        ("prep", "facilitator", {"type": "mark", "question_number": 1, "best_answers": []}, "No Round Deck is being"),
        ("prep", "t1-pupil-1", {"type": "submit_question", "card": 1}, "start of a Question Round"),
        ("questions", "facilitator", {"type": "start_round"}, "A Question Round is open"),
        ("questions", "facilitator", {"type": "submit_question", "card": 1}, "Only a team's players"),
        ("questions", "t1-pupil-1", {"type": "close_submissions"}, "Only the facilitator closes"),
        ("questions", "t1-pupil-1", {"type": "end_game"}, "Only the facilitator ends"),
        ("answers", "facilitator", {"type": "submit_answer", "question_number": 1, "text": "x", "team_id": "Otter"}, "Only a team's players"),
        ("answers", "t1-pupil-1", {"type": "resolve"}, "Only the facilitator resolves"),
        ("answers", "facilitator", {"type": "resolve"}, "A Question Round is open"),
        ("answers", "t1-pupil-1", {"type": "submit_question", "card": 1}, "start of a Question Round"),
        ("between", "facilitator", {"type": "close_submissions"}, "No Question Round is open"),
        ("between", "t1-pupil-1", {"type": "submit_answer", "question_number": 1, "text": "x", "team_id": "Otter"}, "once the round's questions"),
        ("between", "facilitator", {"type": "mark", "question_number": 1, "best_answers": []}, "No Round Deck is being"),
    ],
)  # fmt: skip
def test_illegal_actions_raise_illegal_action_and_leave_the_state_unchanged(
    when: str, player: str, action: dict[str, Any], match: str
) -> None:
    state = {
        "prep": lambda: prepared(),
        "questions": lambda: started(),
        "answers": lambda: submit_questions(started()),
        "between": lambda: fac(round_one_answered(), "close_submissions"),
    }[when]()
    assert_refused(IllegalAction, state, player, action, match)


def test_the_facilitator_may_act_as_none_the_table_and_a_player_only_in_the_action() -> None:
    state = prepared()
    assert phase(apply_action(state, None, {"type": "start_round"})) == "questions"
    assert phase(apply_action(state, None, {"type": "start_round", "player": "facilitator"})) == "questions"
    state = fac(state, "start_round")
    card = cards_of(state, 0)[0]
    after = apply_action(state, None, {"type": "submit_question", "player": member(state, 0), "card": card})
    assert after.rounds[-1].questions == (card,)


def test_apply_action_returns_a_new_state_and_leaves_the_given_one_alone() -> None:
    state = submit_questions(started())
    before = state.to_dict()
    after = answer(state, 0, asked(state, 1))
    assert after != state and state.to_dict() == before


# --- state ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_state_round_trips_through_json(variant: str) -> None:
    state = fac(round_one_answered(3, variant=variant), "close_submissions")
    state = fac(state, "resolve")
    state = mark(
        state,
        asked(state, 1, 0),
        [answer_id(state, 0, asked(state, 1, 0))],
        by=marker(state, asked(state, 1, 0)),
    )
    data = json.loads(json.dumps(state.to_dict()))
    assert state_from_dict(data) == state
    assert State.from_dict(data).to_dict() == state.to_dict()


def test_state_from_dict_refuses_something_else() -> None:
    with pytest.raises(ValueError, match="Not a Know state"):
        state_from_dict({"game": "znajznak"})
    data = started().to_dict()
    del data["rounds"]
    with pytest.raises(ValueError, match="Not a Know state"):
        state_from_dict(data)


def test_same_setup_seed_and_actions_give_the_same_state() -> None:
    one = fac(fac(round_one_answered(4, seed=21), "close_submissions"), "resolve")
    two = fac(fac(round_one_answered(4, seed=21), "close_submissions"), "resolve")
    assert one == two and one.to_dict() == two.to_dict()


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(know)
    assert result.attempted > 0
    assert result.failed == 0


def test_docs_replay_md_documents_every_know_action_and_phase() -> None:
    text = (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    section = text.split("\n## Know\n", 1)[1].split("\n## ", 1)[0]
    for name in (*know._HANDLERS, "prep", "questions", "answers", "between_rounds", "resolution", "over"):
        assert f"`{name}`" in section, name


# --- golden playthroughs ------------------------------------------------------------------------


def replay(log: dict[str, Any]) -> State:
    state = new_game(log["setup"], seed=log["seed"], variant=log["variant"])
    for action in log["actions"]:
        state = apply_action(state, action.get("player"), action)
    return state


GOLDEN_LOGS = sorted(path.name for path in GOLDEN.glob("know_*.json"))


def test_there_are_golden_playthroughs_for_both_variants() -> None:
    variants = {json.loads((GOLDEN / name).read_text(encoding="utf-8"))["variant"] for name in GOLDEN_LOGS}
    assert variants == set(VARIANTS)


@pytest.mark.parametrize("name", GOLDEN_LOGS)
def test_golden_playthrough_replays_to_the_hand_checked_final_state(name: str) -> None:
    log = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    assert log["game"] == "know"
    assert set(log) == {"game", "variant", "seed", "setup", "actions", "expected"}
    state = replay(log)
    final = state.to_dict()
    assert {key: final[key] for key in log["expected"]} == log["expected"]
    assert replay(log) == state
    assert_anonymous(state)


# --- random play ----------------------------------------------------------------------------------

GAMES_PER_VARIANT = 150
MAX_ACTIONS = 1500
WORDS = ["Otter", "otter", "Heron", "Newt", "Badger", "Lynx", "Falcon", "Ibis", "Marten", "Kite", "Vole"]


def random_setup(rng: random.Random) -> dict[str, Any]:
    return make_setup(
        rng.randint(2, 6),
        cards_per_team=rng.randint(1, 3),
        players_per_team=rng.randint(1, 3),
        mapping=rng.random() < 0.5,
    )


def random_move(state: State, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """Someone with something to do acts; the facilitator ends the game now and then."""
    options: list[tuple[str, dict[str, Any], float]] = []
    for team in state.teams:
        for player in team.players:
            options.extend((player, action, 1.0) for action in legal_actions(state, player))
    for action in legal_actions(state, "facilitator"):
        weight = {"end_game": 0.02, "close_submissions": 0.3, "start_round": 2.0, "resolve": 1.0}.get(
            action["type"], 1.0
        )
        options.append(("facilitator", action, weight))
    player, action, _weight = rng.choices(options, weights=[w for _, _, w in options])[0]
    action = dict(action)
    if action["type"] == "choose_team_id":
        action["team_id"] = rng.choice(WORDS) + ("" if rng.random() < 0.6 else str(rng.randint(1, 9)))
    elif action["type"] in ("write_question", "submit_answer"):
        action["text"] = f"text {rng.randint(1, 99)}"
    elif action["type"] == "mark":
        resolving = next(r for r in player_view(state, player)["resolutions"] if r["status"] == "resolving")
        question = next(q for q in resolving["questions"] if q["number"] == action["question_number"])
        ids = [a["id"] for a in question["answers"]]
        action["best_answers"] = rng.sample(ids, rng.randint(0, len(ids)))
    return player, action


def random_refusal(state: State, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """An action that is malformed or out of turn most of the time."""
    team = rng.choice(state.teams)
    player = rng.choice([*team.players, "facilitator"])
    number = rng.randint(0, len(state.questions) + 1)
    return player, rng.choice(
        [
            {"type": "submit_answer", "question_number": number, "text": "x", "team_id": team.team_id or "?"},
            {"type": "submit_answer", "question_number": number, "text": "", "team_id": team.team_id or "?"},
            {"type": "submit_answer", "question_number": number, "text": "x"},
            {"type": "submit_question", "card": number},
            {"type": "mark", "question_number": number, "best_answers": ["a1"]},
            {"type": "resolve", "round": rng.randint(1, 5)},
            {"type": "write_question", "card": number, "text": "late"},
            {"type": "close_round"},
        ]
    )


def check_invariants(state: State, before: State) -> None:
    teams = len(state.teams)
    limit = answer_limit(teams)
    owner = {card.number: card.team for card in state.questions}
    live: Counter[int] = Counter()
    for deck in state.rounds:
        assert len(set(deck.questions)) == len(deck.questions), "a question is played at most once a round"
        if deck.status != "resolved":
            live.update(n for n in deck.questions if n not in deck.set_aside)
        per_team = Counter(a.team for a in deck.answers)
        assert all(count <= limit for count in per_team.values())
        pairs = [(a.team, a.question_number) for a in deck.answers]
        assert len(set(pairs)) == len(pairs), "one answer per question per team"
        assert all(owner[q] != t for t, q in pairs), "never to its own question"
        assert all(q in deck.questions for _, q in pairs)
        for m in deck.marks:
            assert len(set(m.winners)) == len(m.winners) <= teams - 1
            assert m.points_each == (max(1, (teams - 1) // len(m.winners)) if m.winners else 0)
    assert all(count == 1 for count in live.values()), "a question is in one live Round Deck at a time"
    # Scores come from the marks of resolved decks only, by the pool rule, and never go down.
    expected = Counter[str]()
    for deck in state.rounds:
        if deck.status == "resolved":
            for m in deck.marks:
                expected.update({team: m.points_each for team in m.winners})
    assert {t.id: t.score for t in state.teams} == {t.id: expected[t.id] for t in state.teams}
    assert all(new.score >= old.score for new, old in zip(state.teams, before.teams, strict=True))
    # Points awarded never exceed the Point Pool times the questions marked.
    marked = sum(len(deck.marks) for deck in state.rounds if deck.status == "resolved")
    assert sum(t.score for t in state.teams) <= point_pool(teams) * marked
    if is_terminal(state):
        result = outcome(state)
        assert result is not None
        if result["reason"] == "questions_ran_out":
            assert all(card.status == "marked" for card in state.questions)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_play_keeps_the_rules_always_ends_and_round_trips_at_every_step(variant: str) -> None:
    endings: Counter[str] = Counter()
    replays = 0
    for seed in range(GAMES_PER_VARIANT):
        rng = random.Random(f"{variant}:{seed}")
        state = new_game(random_setup(rng), seed=seed, variant=variant)
        for step in range(MAX_ACTIONS):
            if is_terminal(state):
                break
            if rng.random() < 0.15:
                player, action = random_refusal(state, rng)
                before = state.to_dict()
                try:
                    after = apply_action(state, player, action)
                except (IllegalAction, InvalidAction) as error:
                    assert str(error)[0].isupper()
                    assert state.to_dict() == before, "a refused action changes nothing"
                else:
                    check_invariants(after, state)
                    state = after
                continue
            player, action = random_move(state, rng)
            try:
                after = apply_action(state, player, action)
            except IllegalAction as error:
                # Only a Team ID clash or a reserved name is refused among the listed moves.
                assert action["type"] == "choose_team_id", (action, error)
                continue
            check_invariants(after, state)
            state = after
            assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state
            if seed % 10 == 0 or step % 25 == 0:
                assert_anonymous(state)
        else:
            pytest.fail(f"{variant} game {seed} did not end within {MAX_ACTIONS} actions")
        assert_anonymous(state)
        result = outcome(state)
        assert result is not None
        endings[result["reason"]] += 1
        replays += any(deck.kind == "set_aside" for deck in state.rounds)
    assert endings["questions_ran_out"] > 10 and endings["ended_by_facilitator"] > 10, endings
    assert replays > 10


def test_answers_of_a_whole_random_game_never_show_team_ids_in_any_resolution() -> None:
    state = play_whole_game("facilitator_marks", seed=4, check=lambda s: None)
    for viewer in [None, "facilitator", *(p for t in state.teams for p in t.players)]:
        for resolution in player_view(state, viewer)["resolutions"]:
            for question in resolution["questions"]:
                for revealed in question["answers"]:
                    assert set(revealed) <= {"id", "text", "yours"}
                    assert re.fullmatch(r"a\d+", revealed["id"])
