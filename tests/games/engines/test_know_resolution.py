"""Know rules of Resolution that a class needs on screen: disputes (re-marking before the round
is closed), closing the round, resolving immediately, and one team device per team."""

from __future__ import annotations

import pytest

from games.engines.base import IllegalAction, InvalidSetup
from games.engines.know import apply_action, legal_actions, new_game, phase, player_view, state_from_dict
from tests.games.engines.test_know import (
    answer,
    answer_id,
    asked,
    assert_refused,
    close,
    fac,
    make_setup,
    mark,
    member,
    round_one_answered,
    scores,
    started,
    submit_questions,
)


def resolving(variant: str = "facilitator_marks", **options: object) -> object:
    return fac(fac(round_one_answered(3, variant=variant, **options), "close_submissions"), "resolve")


def test_dispute_a_question_may_be_re_marked_before_the_round_is_closed_and_the_new_marking_counts() -> None:
    state = resolving()
    q0, q1, q2 = (asked(state, i, 0) for i in range(3))  # team i answered team i+1's question
    state = mark(state, q1, [])  # first marking: nobody wins question q1
    state = mark(state, q2, [answer_id(state, 1, q2)])
    state = mark(state, q0, [])
    assert {"type": "close_round"} in legal_actions(state, "facilitator")
    state = mark(state, q1, [answer_id(state, 0, q1)])  # the dispute: team 0's answer was right
    question = next(q for q in player_view(state, None)["resolutions"][0]["questions"] if q["number"] == q1)
    assert question["best_answers"] == [answer_id(state, 0, q1)] and question["points_each"] == 2
    assert len(state.rounds[0].marks) == 3  # replaced, not added
    assert scores(state) == {"Heron": 0, "Newt": 0, "Otter": 0}
    state = close(state)
    assert scores(state) == {"Heron": 2, "Newt": 0, "Otter": 2}
    assert_refused(
        IllegalAction,
        state,
        "facilitator",
        {"type": "mark", "question_number": q1, "best_answers": []},
        "No Round Deck is being resolved",
    )


def test_close_round_needs_every_question_marked_and_only_the_facilitator_closes() -> None:
    state = resolving()
    q1 = asked(state, 1, 0)
    state = mark(state, q1, [])
    assert {"type": "close_round"} not in legal_actions(state, "facilitator")
    message = assert_refused(
        IllegalAction, state, "facilitator", {"type": "close_round"}, "Mark every question"
    )
    assert "2 questions are not marked" in message
    assert_refused(IllegalAction, state, member(state, 0), {"type": "close_round"}, "Only the facilitator")
    between = close(mark(mark(state, asked(state, 0, 0), []), asked(state, 2, 0), []))
    assert phase(between) == "between_rounds"
    assert_refused(IllegalAction, between, "facilitator", {"type": "close_round"}, "No Round Deck")


def test_team_marks_the_facilitator_re_marks_a_disputed_question_only_after_its_team_marked_it() -> None:
    state = resolving("team_marks")
    q0 = asked(state, 0, 0)  # team 0's question, answered by team 2
    action = {"type": "mark", "question_number": q0, "best_answers": [answer_id(state, 2, q0)]}
    assert_refused(IllegalAction, state, "facilitator", action, "own team marks")
    state = apply_action(state, member(state, 0), {**action, "best_answers": []})
    assert {"type": "mark", "question_number": q0} in legal_actions(state, "facilitator")
    state = apply_action(state, "facilitator", action)  # the dispute is settled by the facilitator
    assert state.rounds[0].marks[0].best_answers == (answer_id(state, 2, q0),)
    # The team may also change its own marking until the round is closed.
    assert {"type": "mark", "question_number": q0} in legal_actions(state, member(state, 0))


def test_resolution_immediately_closing_the_answers_reveals_the_round_deck_at_once() -> None:
    later = fac(round_one_answered(3), "close_submissions")
    now = fac(round_one_answered(3, resolve_immediately=True), "close_submissions")
    assert phase(later) == "between_rounds" and later.rounds[0].status == "put_aside"
    assert phase(now) == "resolution" and now.rounds[0].status == "resolving"
    # The same shuffle either way: rng_for(seed, "round", n).
    assert now.rounds[0].revealed == fac(later, "resolve").rounds[0].revealed
    assert state_from_dict(now.to_dict()) == now


def test_resolution_immediately_a_round_nobody_answered_is_not_resolved() -> None:
    state = fac(submit_questions(started(2, cards_per_team=1, resolve_immediately=True)), "close_submissions")
    assert phase(state) == "between_rounds" and state.rounds[0].status == "resolved"


def test_setup_resolve_immediately_must_be_true_or_false() -> None:
    with pytest.raises(InvalidSetup, match="'resolve_immediately' must be true or false"):
        new_game({**make_setup(), "resolve_immediately": "now"}, seed=1, variant="facilitator_marks")


def test_team_devices_without_teams_every_joined_player_is_a_team_of_one() -> None:
    setup = {
        "players": [{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Ola"}, "p3"],
        "cards_per_team": 1,
        "source": "Textbook",
    }
    state = new_game(setup, seed=3, variant="facilitator_marks")
    assert [(t.id, t.players) for t in state.teams] == [("p1", ("p1",)), ("p2", ("p2",)), ("p3", ("p3",))]
    assert "Ala" not in str(state.to_dict())  # names are never read


@pytest.mark.parametrize(("players", "match"), [([{"id": "p1", "name": "Ala"}], "1 team device joined"),
                                                  ([], "0 team devices joined"),
                                                  ([{"name": "Ala"}, "p2"], "string id")])  # fmt: skip
def test_team_devices_know_needs_at_least_two_teams(players: list[object], match: str) -> None:
    with pytest.raises(InvalidSetup, match=match):
        new_game({"players": players, "cards_per_team": 1, "source": "T"}, seed=1, variant="team_marks")


def test_answers_to_the_own_question_are_refused_for_a_team_of_one() -> None:
    setup = {"players": ["p1", "p2", "p3"], "cards_per_team": 1, "source": "Textbook"}
    state = new_game(setup, seed=3, variant="facilitator_marks")
    for index, name in enumerate(["Otter", "Heron", "Newt"]):
        state = apply_action(state, f"p{index + 1}", {"type": "choose_team_id", "team_id": name})
        card = next(c.number for c in state.questions if c.team == f"p{index + 1}")
        state = apply_action(state, f"p{index + 1}", {"type": "write_question", "card": card, "text": "Q?"})
    state = submit_questions(fac(state, "start_round"))
    own = next(c.number for c in state.questions if c.team == "p1")
    action = {"type": "submit_answer", "question_number": own, "text": "x", "team_id": "Otter"}
    assert_refused(IllegalAction, state, "p1", action, "cannot answer their own questions")
    assert answer(state, 1, own).rounds[0].answers[0].team == "p2"
