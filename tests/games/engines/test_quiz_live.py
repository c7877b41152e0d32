"""Live quiz engine, rule by rule (games/engines/quiz_live.py: setup, readings, anonymity),
replay determinism and random play."""

from __future__ import annotations

import doctest
import json
import random
from typing import Any

import pytest

from games.engines import quiz, quiz_live
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup
from games.engines.quiz_live import (
    State,
    apply_action,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    phase,
    player_view,
    score_record,
    state_from_dict,
)

OPTIONS = [{"id": "a", "label": "1918"}, {"id": "b", "label": "1945"}, {"id": "c", "label": "1989"}]
CHOICE = {
    "kind": "choice",
    "prompt": {"text": "Independence", "options": OPTIONS},
    "key": {"answer": "a"},
    "points": 1,
}
PERIODS = {
    "kind": "periods",
    "prompt": {
        "name": "Solidarity",
        "options": [
            {"id": "a", "label": "PRL"},
            {"id": "b", "label": "III RP"},
            {"id": "c", "label": "II RP"},
        ],
    },
    "key": {"answer": ["a", "b"], "subjects": ["symbol:secret-7"]},
    "points": 1,
}
CHRONOLOGY = {
    "kind": "chronology",
    "prompt": {
        "events": [
            {"id": "x", "text": "Round Table"},
            {"id": "y", "text": "Martial law"},
            {"id": "z", "text": "August 1980"},
        ]
    },
    "key": {"answer": ["z", "y", "x"]},
    "points": 1,
}


def make_setup(teams: int = 3, players_per_team: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "items": [CHOICE, PERIODS, CHRONOLOGY],
        "teams": [
            {
                "id": f"team-internal-{t}",
                "players": [f"t{t}-pupil-{p}" for p in range(1, players_per_team + 1)],
            }
            for t in range(1, teams + 1)
        ],
        **extra,
    }


def named(state: State, names: tuple[str, ...] = ("Otter", "Heron", "Newt", "Badger", "Lynx")) -> State:
    for team, name in zip(state.teams, names, strict=False):
        state = apply_action(state, team.players[0], {"type": "choose_team_id", "team_id": name})
    return state


def opened(state: State, at: float = 100.0) -> State:
    return apply_action(state, None, {"type": "open_question", "at": at})


def closed(state: State, at: float = 130.0) -> State:
    return apply_action(state, None, {"type": "close_question", "at": at})


def answer(
    state: State, player: str, given: dict[str, Any], at: float = 105.0, question: int | None = None
) -> State:
    number = question if question is not None else len(state.asked)
    return apply_action(state, player, {"type": "answer", "question": number, "answer": given, "at": at})


def test_engine_docstrings_examples_hold() -> None:
    assert doctest.testmod(quiz_live).failed == 0


# --- setup ----------------------------------------------------------------------------------------


def test_a_new_quiz_starts_in_the_lobby_with_its_items_in_order_and_its_teams() -> None:
    state = new_game(make_setup(), seed=1, variant="standard")
    assert phase(state) == "lobby"
    assert [item.kind for item in state.items] == ["choice", "periods", "chronology"]
    assert [team.id for team in state.teams] == ["team-internal-1", "team-internal-2", "team-internal-3"]
    assert state.time == "off" and state.seconds is None


def test_players_without_teams_answer_alone_each_a_team_of_one() -> None:
    setup = {"items": [CHOICE], "players": ["p1", {"id": "p2", "name": "Ala"}]}
    state = new_game(setup, seed=1, variant="standard")
    assert [(team.id, team.players) for team in state.teams] == [("p1", ("p1",)), ("p2", ("p2",))]
    assert player_view(state, "p1")["solo"] is True


def test_joined_players_are_dealt_into_team_count_teams_differing_by_at_most_one() -> None:
    players = [f"p{n}" for n in range(1, 8)]
    setup = {"items": [CHOICE], "players": players, "team_count": 3}
    state = new_game(setup, seed=5)
    sizes = sorted(len(team.players) for team in state.teams)
    assert sizes == [2, 2, 3]
    assert sorted(p for team in state.teams for p in team.players) == sorted(players)
    assert new_game(setup, seed=5) == state
    own = next(team for team in state.teams if "p1" in team.players)
    assert player_view(state, "p1")["your_team"]["players"] == sorted(own.players)
    with pytest.raises(InvalidSetup, match="'team_count'"):
        new_game({**setup, "team_count": 8}, seed=5)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"items": []}, "'items'"),
        ({"items": [{"kind": "nonsense", "prompt": {}, "key": {}, "points": 1}]}, "unknown kind"),
        ({"items": [{"prompt": {}}]}, "Item 1"),
        ({"teams": []}, "'teams'"),
        ({"teams": [{"id": "a", "players": ["p"]}, {"id": "b", "players": ["p"]}]}, "listed twice"),
        ({"teams": [{"id": "a", "players": ["facilitator"]}]}, "player id"),
        ({"time": "fastest"}, "'time'"),
        ({"seconds": 2}, "'seconds'"),
        ({"bonus": True}, "bonus"),
    ],
)
def test_a_setup_that_cannot_start_a_quiz_is_refused_naming_the_field(
    change: dict[str, Any], words: str
) -> None:
    with pytest.raises(InvalidSetup, match=words):
        new_game({**make_setup(), **change}, seed=1, variant="standard")


# --- Team IDs --------------------------------------------------------------------------------------


def test_team_ids_are_unique_ignoring_case_and_spacing_and_chosen_only_in_the_lobby() -> None:
    state = named(new_game(make_setup(), seed=1), ("Blue  Heron",))
    with pytest.raises(IllegalAction, match="taken"):
        apply_action(state, "t2-pupil-1", {"type": "choose_team_id", "team_id": "blue heron"})
    with pytest.raises(IllegalAction, match="cannot be used"):
        apply_action(state, "t2-pupil-1", {"type": "choose_team_id", "team_id": "t1-pupil-2"})
    # A teammate may change the team's own Team ID.
    state = apply_action(state, "t1-pupil-2", {"type": "choose_team_id", "team_id": "Otter"})
    assert state.teams[0].team_id == "Otter"
    state = opened(state)
    with pytest.raises(IllegalAction, match="before the first question"):
        apply_action(state, "t2-pupil-1", {"type": "choose_team_id", "team_id": "Newt"})


def test_teams_without_a_team_id_at_the_first_question_get_a_free_team_number() -> None:
    state = named(new_game(make_setup(teams=3), seed=4), ("Team 1",))
    state = opened(state)
    names = [team.team_id for team in state.teams]
    assert names[0] == "Team 1"
    assert sorted(names[1:]) == ["Team 2", "Team 3"]


# --- answering -----------------------------------------------------------------------------------


def test_one_answer_per_team_per_question_the_latest_replaces_the_earlier() -> None:
    state = opened(named(new_game(make_setup(), seed=1)))
    state = answer(state, "t1-pupil-1", {"choice": "b"}, at=103)
    state = answer(state, "t1-pupil-2", {"choice": "a"}, at=110)
    answers = state.asked[0].answers
    assert [(a.team, a.answer, a.at) for a in answers] == [("team-internal-1", {"choice": "a"}, 110.0)]
    assert quiz_live.question_grades(closed(state), 1)["team-internal-1"].score == 1.0


def test_the_same_answer_sent_again_by_a_reconnecting_phone_changes_nothing_not_even_its_time() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"}, at=103)
    again = answer(state, "t1-pupil-1", {"choice": "a"}, at=125)
    assert again == state
    assert again.asked[0].answers[0].at == 103.0


def test_an_answer_after_the_question_closed_is_refused_with_the_reason_and_never_moves_on() -> None:
    state = closed(opened(named(new_game(make_setup(), seed=1))))
    with pytest.raises(IllegalAction, match="Question 1 is closed"):
        answer(state, "t1-pupil-1", {"choice": "a"}, question=1)
    state = opened(state, at=200)
    # The slow phone's answer to question 1 is not taken as an answer to question 2.
    with pytest.raises(IllegalAction, match="Question 1 is closed"):
        answer(state, "t1-pupil-1", {"choice": "a"}, question=1, at=201)
    assert state.asked[1].answers == ()


def test_an_answer_to_a_question_not_yet_asked_is_refused() -> None:
    state = opened(named(new_game(make_setup(), seed=1)))
    with pytest.raises(IllegalAction, match="Question 2 has not been asked"):
        answer(state, "t1-pupil-1", {"choices": ["a"]}, question=2)


def test_an_answer_stamped_after_the_questions_time_ran_out_is_refused_after_a_short_grace() -> None:
    state = opened(named(new_game(make_setup(seconds=20), seed=1)), at=100)
    state = answer(state, "t1-pupil-1", {"choice": "a"}, at=120.5)  # within the grace
    with pytest.raises(IllegalAction, match="Time is up for question 1"):
        answer(state, "t2-pupil-1", {"choice": "a"}, at=121.5)


@pytest.mark.parametrize(
    "given",
    [{"choice": "z"}, {"choice": None}, {}, "a", None],
)
def test_a_malformed_or_empty_answer_is_refused_and_changes_nothing(given: Any) -> None:
    state = opened(named(new_game(make_setup(), seed=1)))
    with pytest.raises(InvalidAction):
        apply_action(state, "t1-pupil-1", {"type": "answer", "question": 1, "answer": given, "at": 101})
    assert state.asked[0].answers == ()


def test_only_the_teams_answer_and_only_the_teacher_opens_closes_and_ends() -> None:
    state = named(new_game(make_setup(), seed=1))
    with pytest.raises(IllegalAction, match="Only the teacher"):
        apply_action(state, "t1-pupil-1", {"type": "open_question", "at": 1})
    state = opened(state)
    with pytest.raises(IllegalAction, match="Teams answer"):
        answer(state, "facilitator", {"choice": "a"})
    with pytest.raises(IllegalAction, match="not playing"):
        answer(state, "stranger", {"choice": "a"})
    with pytest.raises(IllegalAction, match="Only the teacher"):
        apply_action(state, "t1-pupil-1", {"type": "close_question", "at": 1})
    with pytest.raises(IllegalAction, match="Close the open question"):
        opened(state)
    with pytest.raises(InvalidAction, match="clock"):
        apply_action(state, None, {"type": "close_question"})


# --- scoring -----------------------------------------------------------------------------------------


def play_all(time: str = "off") -> State:
    """Team 1 all right; team 2 partly right; team 3 answers nothing."""
    state = named(new_game(make_setup(time=time), seed=1))
    state = answer(opened(state, 100), "t1-pupil-1", {"choice": "a"}, at=110)
    state = answer(state, "t2-pupil-2", {"choice": "b"}, at=102)
    state = answer(opened(closed(state, 130), 200), "t1-pupil-2", {"choices": ["a", "b"]}, at=220)
    state = answer(state, "t2-pupil-1", {"choices": ["a"]}, at=201)
    state = answer(opened(closed(state, 230), 300), "t1-pupil-1", {"order": ["z", "y", "x"]}, at=320)
    state = answer(state, "t2-pupil-1", {"order": ["z", "x", "y"]}, at=301)
    return closed(state, 330)


def test_a_teams_score_is_the_quiz_engines_grade_with_partial_credit() -> None:
    state = play_all()
    record = {row["team_id"]: row["score"] for row in score_record(state)}
    chronology = quiz.grade(quiz.Item.from_dict(CHRONOLOGY), {"order": ["z", "x", "y"]}).score
    assert record == {"Otter": 3.0, "Heron": round(0.5 + chronology, 4), "Newt": 0.0}
    assert 0 < chronology < 1


def test_scores_change_only_when_a_question_closes() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"})
    assert all(row["score"] == 0 for row in score_record(state))
    assert player_view(state, None)["score_record"] == []
    state = closed(state)
    assert {row["team_id"]: row["score"] for row in score_record(state)}["Otter"] == 1.0


def test_with_time_off_equal_scores_share_a_place_and_no_time_is_shown() -> None:
    state = named(new_game(make_setup(), seed=1))
    state = answer(opened(state, 100), "t1-pupil-1", {"choice": "a"}, at=101)
    state = closed(answer(state, "t2-pupil-1", {"choice": "a"}, at=129), 130)
    record = score_record(state)
    assert [(row["team_id"], row["place"], row["time"]) for row in record] == [
        ("Heron", 1, None),
        ("Otter", 1, None),
        ("Newt", 3, None),
    ]


def test_time_as_a_tie_break_places_equal_scores_by_less_time_but_never_above_a_higher_score() -> None:
    state = named(new_game(make_setup(time="tie_break"), seed=1))
    state = answer(opened(state, 100), "t1-pupil-1", {"choice": "a"}, at=101)  # right, fast
    state = answer(state, "t2-pupil-1", {"choice": "a"}, at=129)  # right, slow
    state = closed(state, 130)  # team 3: no answer, counted to the close
    state = answer(opened(state, 200), "t3-pupil-1", {"choices": ["a", "b"]}, at=201)
    state = answer(state, "t2-pupil-1", {"choices": ["a", "b"]}, at=228)
    state = closed(state, 230)
    record = score_record(state)
    assert [(row["team_id"], row["score"], row["time"], row["place"]) for row in record] == [
        ("Heron", 2.0, 57.0, 1),
        ("Newt", 1.0, 31.0, 2),
        ("Otter", 1.0, 31.0, 2),
    ]
    state = named(new_game(make_setup(time="tie_break"), seed=1))
    state = answer(opened(state, 100), "t1-pupil-1", {"choice": "a"}, at=101)
    state = closed(answer(state, "t2-pupil-1", {"choice": "a"}, at=129), 130)
    assert [(row["team_id"], row["place"]) for row in score_record(state)] == [
        ("Otter", 1),
        ("Heron", 2),
        ("Newt", 3),
    ]


def test_end_game_closes_the_open_question_and_it_counts_questions_never_opened_do_not() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"})
    state = apply_action(state, None, {"type": "end_game", "at": 120})
    assert is_terminal(state) and phase(state) == "finished"
    result = outcome(state)
    assert result is not None
    assert result["questions_asked"] == 1
    assert result["winners"] == ["Otter"]
    with pytest.raises(IllegalAction, match="over"):
        opened(state)


def test_after_the_last_question_only_ending_is_left() -> None:
    state = play_all()
    assert [a["type"] for a in legal_actions(state, "facilitator")] == ["end_game"]
    with pytest.raises(IllegalAction, match="Every question has been asked"):
        opened(state, 400)


# --- what each screen sees --------------------------------------------------------------------------


def every_view(state: State) -> list[dict[str, Any]]:
    players = [player for team in state.teams for player in team.players]
    return [player_view(state, viewer) for viewer in [None, "facilitator", *players]]


def test_no_view_holds_the_key_of_an_open_question() -> None:
    state = opened(named(new_game(make_setup(), seed=1)))
    state = answer(state, "t1-pupil-1", {"choice": "a"})
    for _question in (1, 2):
        for view in every_view(state):
            text = json.dumps(view)
            assert view["reveal"] is None
            assert '"key"' not in text and "secret-7" not in text
            assert '"result"' not in text
        state = opened(closed(state), at=200)


def test_after_a_question_closes_everyone_sees_the_right_answer_a_team_only_its_own_result() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"})
    state = closed(answer(state, "t2-pupil-1", {"choice": "c"}))
    projector = player_view(state, None)
    assert projector["reveal"] == {"answer": "a", "right": 1, "some_credit": 0}
    mine = player_view(state, "t2-pupil-2")
    assert mine["your_team"]["answer"] == {"choice": "c"}
    assert mine["your_team"]["result"]["score"] == 0.0
    assert mine["your_team"]["result"]["parts"][0]["expected"] == "1918"
    assert "your_team" not in projector


def test_no_view_says_which_team_or_which_player_answered_what() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"})
    state = closed(answer(state, "t2-pupil-1", {"choice": "c"}))
    for view in every_view(state):
        text = json.dumps(view)
        assert "team-internal" not in text
        mates = set(view.get("your_team", {}).get("players", [view["you"]]))
        others = [p for p in ("t1-pupil-1", "t1-pupil-2", "t2-pupil-1", "t2-pupil-2") if p not in mates]
        assert not any(player in text for player in others)
    mine = player_view(state, "t2-pupil-2")
    assert '"choice": "a"' not in json.dumps(mine)  # the other team's answer


def test_who_in_a_team_answered_is_never_recorded_even_on_the_server() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-2", {"choice": "a"})
    assert "t1-pupil-2" not in json.dumps(state.to_dict()["asked"])


def test_the_projector_counts_answers_while_open_naming_no_team() -> None:
    state = answer(opened(named(new_game(make_setup(), seed=1))), "t1-pupil-1", {"choice": "a"})
    state = answer(state, "t1-pupil-2", {"choice": "b"})
    view = player_view(state, None)
    assert view["question"]["answered"] == 1
    assert view["legal_actions"] == []
    assert [a["type"] for a in player_view(state, "facilitator")["legal_actions"]] == [
        "close_question",
        "end_game",
    ]


# --- replay and random play ---------------------------------------------------------------------------


def replay(setup: dict[str, Any], seed: int, actions: list[tuple[str | None, dict[str, Any]]]) -> State:
    state = new_game(setup, seed=seed, variant="standard")
    for player, action in actions:
        state = apply_action(state, player, action)
    return state


def test_the_same_setup_seed_and_actions_replay_to_the_same_state_and_it_round_trips_json() -> None:
    actions: list[tuple[str | None, dict[str, Any]]] = [
        ("t1-pupil-1", {"type": "choose_team_id", "team_id": "Otter"}),
        (None, {"type": "open_question", "at": 10}),
        ("t2-pupil-1", {"type": "answer", "question": 1, "answer": {"choice": "b"}, "at": 12}),
        (None, {"type": "close_question", "at": 20}),
        (None, {"type": "end_game"}),
    ]
    first = replay(make_setup(), 9, actions)
    assert first == replay(make_setup(), 9, actions)
    data = json.loads(json.dumps(first.to_dict()))
    assert state_from_dict(data) == first
    assert data["outcome"] == outcome(first)


def random_move(state: State, rng: random.Random) -> tuple[str | None, dict[str, Any]]:
    options: list[tuple[str | None, dict[str, Any]]] = []
    for team in state.teams:
        for player in team.players:
            options.extend((player, dict(action)) for action in legal_actions(state, player))
    options.extend(
        ("facilitator", dict(a)) for a in legal_actions(state, "facilitator") if a["type"] != "end_game"
    )
    if not options or rng.random() < 0.01:
        return "facilitator", {"type": "end_game"}
    player, action = rng.choice(options)
    clock = 1000.0 + 10 * len(state.asked) + rng.random() * 40
    action["at"] = clock
    if action["type"] == "choose_team_id":
        action["team_id"] = rng.choice(["Otter", "otter", "Heron", "Newt", "Team 2"])
    elif action["type"] == "answer":
        item = state.items[action["question"] - 1]
        if item.kind == "choice":
            action["answer"] = {"choice": rng.choice("abc")}
        elif item.kind == "periods":
            action["answer"] = {"choices": rng.sample("abc", rng.randint(1, 3))}
        else:
            action["answer"] = {"order": rng.sample("xyz", 3)}
    return player, action


def test_random_play_keeps_the_rules_and_round_trips_at_every_step() -> None:
    replaced = refused = 0
    for seed in range(120):
        rng = random.Random(seed)
        state = new_game(
            make_setup(
                teams=rng.randint(1, 5),
                players_per_team=rng.randint(1, 3),
                time=rng.choice(["off", "tie_break"]),
            ),
            seed=seed,
        )
        for _ in range(300):
            if is_terminal(state):
                break
            player, action = random_move(state, rng)
            try:
                after = apply_action(state, player, action)
            except (IllegalAction, InvalidAction):
                refused += 1
                continue
            if action["type"] == "answer" and len(after.asked[-1].answers) == len(state.asked[-1].answers):
                replaced += 1
            state = after
            assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state
            for asked in state.asked:
                assert len({a.team for a in asked.answers}) == len(asked.answers), "one answer per team"
            record = score_record(state)
            closed_points = sum(
                state.items[a.number - 1].points for a in state.asked if a.closed_at is not None
            )
            assert all(0 <= row["score"] <= closed_points for row in record)
            assert [row["place"] for row in record] == sorted(row["place"] for row in record)
        assert is_terminal(state)
        assert all(team.team_id for team in state.teams)
    assert replaced > 0 and refused > 0
