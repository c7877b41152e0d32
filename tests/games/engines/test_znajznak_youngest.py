"""ZnajZnak's "youngest player", decided by the facilitator's age order (``age_rank``).

Rulebook: Warm-up, "The youngest player places the top card of their stack in the
middle"; note c, "In case of a tie, the youngest player wins". Talia asks nobody for a
birth date: the facilitator may put the players in age order (1 = the youngest).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engines.base import InvalidSetup
from games.engines.znajznak import apply_action, new_game, outcome, state_from_dict
from tests.games.engines.test_znajznak import dealt, make_setup, with_stacks


def ranked_setup(players: int, ranks: list[int | None], **options: Any) -> dict[str, Any]:
    setup = make_setup(players, **options)
    for seat, rank in zip(setup["players"], ranks, strict=True):
        if rank is not None:
            seat["age_rank"] = rank
    return setup


def test_warm_up_the_youngest_by_the_age_order_lays_the_first_card_in_the_middle() -> None:
    state = new_game(ranked_setup(3, [3, 2, 1]), seed=2, variant="warm_up")
    deal = dealt(2, 13, 3, 4)

    assert state.middle == (deal[2][0],)  # p3 is ranked 1: the youngest
    assert state.stacks == (tuple(deal[0]), tuple(deal[1]), tuple(deal[2][1:]))


def test_warm_up_an_age_order_given_for_some_players_only_leaves_seating_order() -> None:
    state = new_game(ranked_setup(3, [None, 2, 1]), seed=2, variant="warm_up")

    assert state.middle == (dealt(2, 13, 3, 4)[0][0],)


def test_warm_up_the_age_order_comes_before_birth_dates() -> None:
    setup = ranked_setup(3, [2, 1, 3], birth_dates=["2013-01-01", "2010-01-01", "2011-01-01"])
    state = new_game(setup, seed=2, variant="warm_up")

    # By birth dates p1 would be the youngest; the facilitator's order says p2.
    assert state.middle == (dealt(2, 13, 3, 4)[1][0],)


def test_note_c_a_tie_on_time_goes_to_the_youngest_by_the_age_order() -> None:
    state = new_game(ranked_setup(3, [2, 3, 1], timer=600, cards_per_player=4), seed=9, variant="multiplayer")
    state = apply_action(state, None, {"type": "time_up"})

    result = outcome(state)
    assert result is not None
    assert result["ranking"] == ["p3", "p1", "p2"]
    assert result["winner"] == "p3"


def test_note_c_a_tie_ranks_the_tied_players_only_by_their_own_age_order() -> None:
    # Only the tied players' ranks matter: p2 has none but p1 and p3 tie below.
    state = new_game(
        ranked_setup(3, [2, None, 1], timer=600, cards_per_player=4), seed=9, variant="multiplayer"
    )
    state = with_stacks(state, p2=state.stacks[1][:1])  # p2 has the fewest cards
    state = apply_action(state, None, {"type": "time_up"})

    result = outcome(state)
    assert result is not None
    assert result["ranking"] == ["p2", "p3", "p1"]


def test_the_age_order_is_kept_in_the_state_and_round_trips() -> None:
    state = new_game(ranked_setup(2, [2, 1], cards_per_player=3), seed=1, variant="duel")

    data = state.to_dict()

    assert [p.get("age_rank") for p in data["players"]] == [2, 1]
    assert state_from_dict(data) == state


@pytest.mark.parametrize("rank", [0, -1, "1", 1.5, True])
def test_setup_an_age_rank_that_is_not_a_place_from_1_is_refused(rank: Any) -> None:
    setup = make_setup(2)
    setup["players"][0]["age_rank"] = rank

    with pytest.raises(InvalidSetup, match="age_rank"):
        new_game(setup, seed=1, variant="duel")
