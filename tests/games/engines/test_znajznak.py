"""ZnajZnak engine, rule by rule (rules/znajznak.md: Warm-up, Duel, Multiplayer Variant, Notes a-c;
rules/README.md: ZnajZnak readings), golden playthroughs and random play."""

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

from content.decks import projective_plane
from games.engines import engine_for, znajznak
from games.engines.base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from games.engines.znajznak import (
    State,
    apply_action,
    common_symbol,
    compared_cards,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    player_view,
    state_from_dict,
)

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"

SYMBOLS = [
    ("Choinka bożonarodzeniowa", ["choinka"]),
    ("3. Dywizja Strzelców Karpackich", ["3 DSK"]),
    ("Orzeł Biały", ["godło"]),
    ("Kotwica Polski Walczącej", ["kotwica"]),
    ("Krzyż Virtuti Militari", ["Virtuti Militari"]),
    ("NSZZ „Solidarność”", ["Solidarność"]),
    ("Bitwa Warszawska", ["Cud nad Wisłą"]),
    ("Powstanie Warszawskie", ["Godzina W"]),
    ("Enigma", ["szyfrator Enigma"]),
    ("Pałac Kultury i Nauki", ["PKiN"]),
    ("Mały Powstaniec", ["pomnik Małego Powstańca"]),
    ("Westerplatte", ["Wojskowa Składnica Tranzytowa"]),
    ("Port w Gdyni", ["Gdynia"]),
]

# --- helpers ----------------------------------------------------------------------------------


def deck(order: int = 3) -> tuple[list[list[str]], dict[str, dict[str, Any]]]:
    """A real ZnajZnak deck: the projective plane of ``order``, symbols named after Polish history."""
    cards = [[f"s{point:02d}" for point in line] for line in projective_plane(order)]
    names: dict[str, dict[str, Any]] = {}
    for index in range(order * order + order + 1):
        name, alternatives = SYMBOLS[index] if index < len(SYMBOLS) else (f"Symbol {index}", [f"S{index}"])
        names[f"s{index:02d}"] = {"name": name, "alternatives": alternatives}
    return cards, names


def make_setup(
    players: int = 2,
    *,
    order: int = 3,
    cards_per_player: int | None = None,
    timer: float | None = None,
    birth_dates: list[str | None] | None = None,
) -> dict[str, Any]:
    cards, names = deck(order)
    seats = []
    for index in range(players):
        seat: dict[str, Any] = {"id": f"p{index + 1}", "name": f"Player {index + 1}"}
        if birth_dates is not None and birth_dates[index] is not None:
            seat["birth_date"] = birth_dates[index]
        seats.append(seat)
    setup: dict[str, Any] = {"cards": cards, "names": names, "players": seats}
    if cards_per_player is not None:
        setup["cards_per_player"] = cards_per_player
    if timer is not None:
        setup["timer"] = timer
    return setup


def start(variant: str, players: int | None = None, *, seed: int = 1, **options: Any) -> State:
    if players is None:
        players = {"warm_up": 3, "duel": 2, "multiplayer": 3}[variant]
    if variant != "warm_up" and players * 5 > 13 and "order" not in options:
        options.setdefault("cards_per_player", 13 // players)
    return new_game(make_setup(players, **options), seed=seed, variant=variant)


def stacks(state: State) -> dict[str, tuple[int, ...]]:
    return {p.id: stack for p, stack in zip(state.players, state.stacks, strict=True)}


def seat(state: State, player: str) -> int:
    return [p.id for p in state.players].index(player)


def name_of(state: State, symbol: str) -> str:
    return state.names[symbol].name


def stop(state: State, player: str, symbol: str | None = None) -> State:
    """``player`` says STOP on ``symbol`` (default: the common symbol of their cards)."""
    symbol = common_symbol(state, player) if symbol is None else symbol
    return apply_action(state, player, {"type": "stop", "player": player, "symbol": symbol})


def name(state: State, player: str, text: str) -> State:
    return apply_action(state, player, {"type": "name", "player": player, "text": text})


def dont_know(state: State, player: str) -> State:
    return apply_action(state, player, {"type": "dont_know", "player": player})


def name_right(state: State, player: str) -> State:
    assert state.claim is not None
    return name(state, player, name_of(state, state.claim.symbol))


def not_common(state: State, player: str) -> str:
    """A symbol on the player's own card that the other card does not show."""
    own, other = compared_cards(state, player)
    return next(s for s in state.cards[own] if s not in state.cards[other])


def with_stacks(state: State, **piles: tuple[int, ...]) -> State:
    """The state with some players' stacks replaced (cards taken away go out of the game)."""
    new = [piles.get(p.id, stack) for p, stack in zip(state.players, state.stacks, strict=True)]
    kept = (
        {card for stack in new for card in stack}
        | set(state.middle)
        | {c for c in state.table if c is not None}
    )
    everything = set(range(len(state.cards)))
    return replace(state, stacks=tuple(new), out=tuple(sorted(everything - kept)))


def dealt(seed: int, deck_size: int, players: int, per_player: int) -> list[list[int]]:
    """The documented deal: shuffle with rng_for(seed, "deal"), one card at a time in seating order."""
    order = list(range(deck_size))
    rng_for(seed, "deal").shuffle(order)
    return [order[s : per_player * players : players] for s in range(players)]


def assert_refused(error: type[Exception], state: State, player: str | None, action: Any, match: str) -> None:
    """The action raises ``error`` with a readable message and changes nothing."""
    before = state.to_dict()
    with pytest.raises(error, match=match) as raised:
        apply_action(state, player, action)
    message = str(raised.value)
    assert message[0].isupper() and message.endswith("."), message
    assert state.to_dict() == before


# --- setup ------------------------------------------------------------------------------------


def test_setup_deck_where_two_cards_share_two_symbols_is_refused() -> None:
    setup = make_setup()
    setup["cards"][1] = ["s00", "s01", "s07", "s12"]  # shares s00 and s01 with card 0
    with pytest.raises(InvalidSetup, match="Cards 0 and 1 share 2 symbols"):
        new_game(setup, seed=1, variant="duel")


def test_setup_deck_where_two_cards_share_no_symbol_is_refused() -> None:
    setup = make_setup()
    setup["cards"][1] = ["s99", "s04", "s07", "s12"]
    setup["names"]["s99"] = {"name": "Nowy", "alternatives": []}
    with pytest.raises(InvalidSetup, match="Cards 0 and 1 share no symbol"):
        new_game(setup, seed=1, variant="duel")


def test_setup_every_symbol_on_the_cards_needs_a_name() -> None:
    setup = make_setup()
    del setup["names"]["s05"]
    with pytest.raises(InvalidSetup, match="needs a name; missing: s05"):
        new_game(setup, seed=1, variant="duel")


@pytest.mark.parametrize(
    ("variant", "players", "allowed"),
    [
        ("warm_up", 1, False),
        ("warm_up", 2, True),
        ("warm_up", 8, True),
        ("warm_up", 9, False),
        ("duel", 1, False),
        ("duel", 2, True),
        ("duel", 3, False),
        ("multiplayer", 2, False),
        ("multiplayer", 3, True),
        ("multiplayer", 8, True),
        ("multiplayer", 9, False),
    ],
)
def test_setup_player_counts_warm_up_2_to_8_duel_2_multiplayer_3_to_8(
    variant: str, players: int, allowed: bool
) -> None:
    setup = make_setup(players, order=7)
    if allowed:
        assert len(new_game(setup, seed=1, variant=variant).players) == players
    else:
        with pytest.raises(InvalidSetup, match=f"this setup has {players}"):
            new_game(setup, seed=1, variant=variant)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"cards": [["s00"]]}, "at least two cards"),
        ({"cards": [["s00", "s00"], ["s00", "s01"]]}, "shows a symbol twice"),
        ({"cards": [["s00", 3], ["s00", "s01"]]}, "non-empty strings"),
        ({"players": [{"id": "p1"}, {"id": "p1"}]}, "ids must be different"),
        ({"players": [{"id": "p1", "birth_date": "1.5.2012"}, {"id": "p2"}]}, "date like 2012-05-01"),
        ({"cards_per_player": 7}, "need 14 cards; the deck has 13"),
        ({"cards_per_player": 0}, "at least 1"),
        ({"timer": -5}, "seconds above 0"),
        ({"timer": True}, "seconds above 0"),
        ({"shuffle": False}, "Unknown setup field"),
    ],
)
def test_setup_mistakes_are_refused_with_a_reason(change: dict[str, Any], match: str) -> None:
    setup = make_setup()
    setup.update(change)
    with pytest.raises(InvalidSetup, match=match):
        new_game(setup, seed=1, variant="duel")


def test_setup_unknown_variant_is_refused() -> None:
    with pytest.raises(InvalidSetup, match="Unknown variant 'speed'"):
        new_game(make_setup(), seed=1, variant="speed")


def test_warm_up_needs_at_least_two_cards_a_player() -> None:
    with pytest.raises(InvalidSetup, match="fewer than two each"):
        new_game(make_setup(7, order=3), seed=1, variant="warm_up")


@pytest.mark.parametrize(("variant", "players"), [("duel", 2), ("multiplayer", 3)])
@pytest.mark.parametrize("cards_per_player", [0, -1, 2.0, True, "5"])
def test_cards_per_player_is_a_whole_number_of_at_least_one(
    variant: str, players: int, cards_per_player: Any
) -> None:
    setup = make_setup(players, order=13, cards_per_player=cards_per_player)
    with pytest.raises(InvalidSetup, match="whole number of at least 1"):
        new_game(setup, seed=1, variant=variant)


def test_a_log_dealt_with_one_card_a_player_before_the_rule_of_two_still_replays() -> None:
    """New games are set up with 2 to 66 (``games.models.validate_cards_per_player``); a
    duel dealt with one card each before that rule is still dealt, and ends at the first
    STOP on that card ("That player does not have to name it")."""
    state = new_game(make_setup(2, order=3, cards_per_player=1), seed=1, variant="duel")
    assert [
        len(stack) + (card is not None) for stack, card in zip(state.stacks, state.table, strict=True)
    ] == [
        1,
        1,
    ]


@pytest.mark.parametrize(
    ("variant", "players", "cards_per_player"), [("duel", 2, 2), ("duel", 2, 66), ("multiplayer", 3, 2)]
)
def test_cards_per_player_from_two_to_sixty_six_are_dealt(
    variant: str, players: int, cards_per_player: int
) -> None:
    state = new_game(
        make_setup(players, order=13, cards_per_player=cards_per_player), seed=1, variant=variant
    )
    hands = [len(stack) + (card is not None) for stack, card in zip(state.stacks, state.table, strict=True)]
    assert hands == [cards_per_player] * players


def test_same_setup_and_seed_deal_the_same_cards_and_another_seed_deals_others() -> None:
    assert new_game(make_setup(), seed=5, variant="duel") == new_game(make_setup(), seed=5, variant="duel")
    deals = {new_game(make_setup(), seed=seed, variant="duel").stacks for seed in range(10)}
    assert len(deals) > 1


def test_the_deck_is_shuffled_with_rng_for_seed_deal_and_dealt_one_card_at_a_time_in_seating_order() -> None:
    state = start("multiplayer", 3, seed=11, cards_per_player=4)
    assert list(map(list, state.stacks)) == dealt(11, 13, 3, 4)


def test_the_engine_is_found_by_name_and_has_the_shared_api() -> None:
    engine = engine_for("znajznak")
    assert engine is znajznak
    assert engine.GAME == "znajznak"
    assert engine.VARIANTS == ("warm_up", "duel", "multiplayer")


# --- warm-up ----------------------------------------------------------------------------------


def test_warm_up_cards_are_dealt_out_evenly_and_leftover_cards_stay_out() -> None:
    state = start("warm_up", 3, seed=2)  # 13 cards: 4 each, 1 left over
    counts = sorted(len(stack) for stack in state.stacks)
    assert counts == [3, 4, 4]  # the youngest has laid one card in the middle
    assert len(state.middle) == 1
    assert len(state.out) == 1
    assert sorted([*state.out, *state.middle, *(c for s in state.stacks for c in s)]) == list(range(13))


def test_warm_up_youngest_player_lays_top_card_of_their_stack_in_the_middle() -> None:
    state = start("warm_up", 3, seed=2, birth_dates=["2011-03-01", "2013-07-20", "2012-01-15"])
    deal = dealt(2, 13, 3, 4)
    assert state.middle == (deal[1][0],)  # p2 is the youngest
    assert stacks(state)["p2"] == tuple(deal[1][1:])
    assert stacks(state)["p1"] == tuple(deal[0])


def test_warm_up_without_birth_dates_the_first_in_seating_order_lays_the_first_card() -> None:
    state = start("warm_up", 3, seed=2, birth_dates=["2011-03-01", None, "2013-07-20"])
    assert state.middle == (dealt(2, 13, 3, 4)[0][0],)


def test_warm_up_everyone_looks_for_the_symbol_their_top_card_shares_with_the_middle_card() -> None:
    state = start("warm_up", 3, seed=2)
    for player in ("p1", "p2", "p3"):
        assert compared_cards(state, player) == (stacks(state)[player][0], state.middle[0])
        assert {action["type"] for action in legal_actions(state, player)} == {"stop"}


def test_warm_up_first_to_name_the_symbol_places_their_card_on_top_of_the_middle_stack() -> None:
    state = start("warm_up", 3, seed=2)
    top = stacks(state)["p2"][0]
    state = name_right(stop(state, "p2"), "p2")
    assert state.middle[0] == top
    assert stacks(state)["p2"][0] != top
    assert len(stacks(state)["p2"]) == 3
    assert compared_cards(state, "p3")[1] == top  # the others now compare with the new middle card


def test_warm_up_wrong_name_only_loses_the_moment_the_card_stays_and_the_name_is_shown() -> None:
    state = start("warm_up", 3, seed=2)
    before = stacks(state)
    symbol = common_symbol(state, "p2")
    state = name(stop(state, "p2"), "p2", "zupełnie coś innego")
    assert stacks(state) == before
    assert state.phase == "looking"
    assert state.penalised == ()
    assert state.reveal is not None and state.reveal.name == name_of(state, symbol)
    # Having turned the card over, the player may say STOP again at once.
    state = name_right(stop(state, "p2"), "p2")
    assert state.middle[0] == before["p2"][0]


def test_warm_up_dont_know_only_loses_the_moment() -> None:
    state = start("warm_up", 3, seed=2)
    before = stacks(state)
    state = dont_know(stop(state, "p3"), "p3")
    assert stacks(state) == before
    assert state.reveal is not None and state.reveal.result == "dont_know"
    assert legal_actions(state, "p3") != []


def test_warm_up_ends_when_someone_gets_rid_of_their_last_card() -> None:
    state = start("warm_up", 3, seed=2)
    state = with_stacks(state, p3=stacks(state)["p3"][:1])
    state = stop(state, "p3")
    assert not is_terminal(state)  # the last card must still be named to be laid down
    state = name_right(state, "p3")
    assert is_terminal(state)
    result = outcome(state)
    assert result is not None
    assert result["winner"] == "p3"
    assert result["reason"] == "last_card"
    assert result["ranking"][0] == "p3"
    assert stacks(state)["p3"] == ()
    assert legal_actions(state, "p1") == []


def test_warm_up_last_card_named_wrong_does_not_end_the_game() -> None:
    state = start("warm_up", 3, seed=2)
    state = with_stacks(state, p3=stacks(state)["p3"][:1])
    state = name(stop(state, "p3"), "p3", "nie wiem")
    assert not is_terminal(state)
    assert len(stacks(state)["p3"]) == 1


# --- duel -------------------------------------------------------------------------------------


def test_duel_each_player_receives_five_cards_and_lays_the_card_from_the_bottom_on_the_table() -> None:
    state = start("duel", 2, seed=4, order=7)
    deal = dealt(4, 57, 2, 5)
    for index, player in enumerate(("p1", "p2")):
        assert state.table[index] == deal[index][-1]
        assert stacks(state)[player] == tuple(deal[index][:-1])


def test_duel_four_cards_a_player_when_the_session_passes_cards_per_player_4() -> None:
    state = start("duel", 2, seed=4, cards_per_player=4)
    assert [len(stack) for stack in state.stacks] == [3, 3]
    assert len(state.out) == 13 - 8


def test_duel_both_players_look_for_a_common_symbol_in_the_two_cards_on_the_table() -> None:
    state = start("duel", seed=4)
    p1_card, p2_card = state.table
    assert p1_card is not None and p2_card is not None
    assert compared_cards(state, "p1") == (p1_card, p2_card)
    assert compared_cards(state, "p2") == (p2_card, p1_card)
    assert common_symbol(state, "p1") == common_symbol(state, "p2")


def test_duel_stop_on_the_common_symbol_lets_that_player_name_it() -> None:
    state = stop(start("duel", seed=4), "p1")
    assert state.phase == "naming"
    assert state.claim is not None and state.claim.player == "p1"
    assert legal_actions(state, "p1") == [
        {"type": "name", "player": "p1"},
        {"type": "dont_know", "player": "p1"},
    ]


def test_duel_wrong_name_card_returns_on_top_of_own_stack_and_a_new_card_comes_from_the_bottom() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    card, stack, opponent = state.table[0], stacks(state)["p1"], stacks(state)["p2"]
    state = name(stop(state, "p1"), "p1", "Gdańsk")
    assert stacks(state)["p1"] == (card, *stack[:-1])
    assert state.table[0] == stack[-1]
    assert stacks(state)["p2"] == opponent
    assert state.namings[-1].correct is False


def test_duel_dont_know_card_returns_on_top_of_own_stack_and_a_new_card_comes_from_the_bottom() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    card, stack = state.table[1], stacks(state)["p2"]
    state = dont_know(stop(state, "p2"), "p2")
    assert stacks(state)["p2"] == (card, *stack[:-1])
    assert state.table[1] == stack[-1]


def test_duel_right_name_gives_the_card_to_the_opponent_on_top_of_their_stack() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    card, opponent_stack, opponent_card = state.table[0], stacks(state)["p2"], state.table[1]
    state = name_right(stop(state, "p1"), "p1")
    assert stacks(state)["p2"] == (card, *opponent_stack)
    assert state.table[1] == opponent_card


def test_duel_right_name_then_the_namer_lays_a_new_card_from_the_bottom_of_their_stack() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    stack = stacks(state)["p1"]
    state = name_right(stop(state, "p1"), "p1")
    assert state.table[0] == stack[-1]
    assert stacks(state)["p1"] == stack[:-1]


def test_duel_right_name_accepts_an_alternative_name() -> None:
    state = stop(start("duel", seed=4), "p1")
    assert state.claim is not None
    alternative = state.names[state.claim.symbol].alternatives[0]
    state = name(state, "p1", alternative.upper())
    assert state.namings[-1].correct is True


def test_duel_player_with_no_cards_in_hand_wins_by_pointing_first_at_the_common_symbol_without_naming() -> (
    None
):
    state = start("duel", seed=4, cards_per_player=5)
    state = with_stacks(state, p2=())
    symbol = common_symbol(state, "p2")
    state = stop(state, "p2")
    assert is_terminal(state)
    assert state.namings == ()
    assert state.reveal is not None
    assert (state.reveal.symbol, state.reveal.result) == (symbol, "not_needed")
    result = outcome(state)
    assert result is not None
    assert (result["winner"], result["ranking"], result["reason"]) == ("p2", ["p2", "p1"], "last_card")


def test_duel_player_with_cards_in_hand_must_still_name_the_symbol() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    state = with_stacks(state, p1=())
    state = stop(state, "p2")  # p2 still has cards in hand
    assert not is_terminal(state)
    assert state.phase == "naming"


def test_duel_player_with_no_cards_in_hand_gets_cards_back_when_the_opponent_names_right() -> None:
    state = start("duel", seed=4, cards_per_player=5)
    state = with_stacks(state, p1=())
    card = state.table[1]
    state = name_right(stop(state, "p2"), "p2")
    assert stacks(state)["p1"] == (card,)
    assert not is_terminal(state)


# --- multiplayer ------------------------------------------------------------------------------


def test_multiplayer_each_player_receives_five_cards_as_a_face_up_stack() -> None:
    state = start("multiplayer", 8, seed=6, order=7)
    assert [len(stack) for stack in state.stacks] == [5] * 8
    assert len(state.out) == 57 - 40
    view = player_view(state, "p1")
    assert [seat["top"] for seat in view["players"]] == [list(state.cards[s[0]]) for s in state.stacks]


def test_multiplayer_each_compares_their_top_card_with_the_top_card_of_the_player_on_their_left() -> None:
    state = start("multiplayer", 4, seed=6, cards_per_player=3)
    tops = [stack[0] for stack in state.stacks]
    assert compared_cards(state, "p1") == (tops[0], tops[1])
    assert compared_cards(state, "p2") == (tops[1], tops[2])
    assert compared_cards(state, "p4") == (tops[3], tops[0])  # the last player's left is the first


def test_multiplayer_wrong_name_moves_the_top_card_to_the_bottom_of_their_own_stack() -> None:
    state = start("multiplayer", 3, seed=6, cards_per_player=4)
    before = stacks(state)
    state = name(stop(state, "p2"), "p2", "Wawel")
    assert stacks(state)["p2"] == (*before["p2"][1:], before["p2"][0])
    assert stacks(state)["p3"] == before["p3"]
    assert stacks(state)["p1"] == before["p1"]


def test_multiplayer_dont_know_moves_the_top_card_to_the_bottom_of_their_own_stack() -> None:
    state = start("multiplayer", 3, seed=6, cards_per_player=4)
    before = stacks(state)
    state = dont_know(stop(state, "p3"), "p3")
    assert stacks(state)["p3"] == (*before["p3"][1:], before["p3"][0])


def test_multiplayer_right_name_gives_the_top_card_to_the_player_on_the_left_at_the_bottom_of_their_stack() -> (
    None
):
    state = start("multiplayer", 3, seed=6, cards_per_player=4)
    before = stacks(state)
    state = name_right(stop(state, "p3"), "p3")  # p3's left is p1
    assert stacks(state)["p3"] == before["p3"][1:]
    assert stacks(state)["p1"] == (*before["p1"], before["p3"][0])
    assert stacks(state)["p2"] == before["p2"]


def test_multiplayer_pointing_at_a_common_symbol_on_the_last_card_wins_without_naming() -> None:
    state = start("multiplayer", 3, seed=6, cards_per_player=4)
    state = with_stacks(state, p2=stacks(state)["p2"][:1])
    state = stop(state, "p2")
    assert is_terminal(state)
    assert state.namings == ()
    result = outcome(state)
    assert result is not None
    assert (result["winner"], result["reason"]) == ("p2", "last_card")


def test_multiplayer_winner_who_got_rid_of_their_last_card_is_counted_with_no_cards_in_hand() -> None:
    state = start("multiplayer", 3, seed=6, cards_per_player=4)
    state = with_stacks(state, p2=stacks(state)["p2"][:1])
    state = stop(state, "p2")
    result = outcome(state)
    assert result is not None
    assert result["cards_in_hand"] == {"p1": 4, "p2": 0, "p3": 4}
    for viewer in (None, "p1", "p2"):
        seats = {seat["id"]: seat["cards_in_hand"] for seat in player_view(state, viewer)["players"]}
        assert seats == {"p1": 4, "p2": 0, "p3": 4}


def test_multiplayer_others_cover_their_cards_while_one_player_is_naming() -> None:
    state = start("multiplayer", 4, seed=6, cards_per_player=3)
    state = stop(state, "p2")  # p2 names; p3 is on p2's left
    for viewer in (None, "p1", "p2", "p3", "p4"):
        seats = {seat["id"]: seat for seat in player_view(state, viewer)["players"]}
        assert [seats[p]["covered"] for p in ("p1", "p2", "p3", "p4")] == [True, False, False, True]
        assert seats["p1"]["top"] is None and seats["p4"]["top"] is None
        assert seats["p2"]["top"] == list(state.cards[stacks(state)["p2"][0]])
    assert player_view(state, "p4")["comparison"] is None
    assert legal_actions(state, "p4") == [] and legal_actions(state, "p3") == []
    state = name_right(state, "p2")
    assert not any(seat["covered"] for seat in player_view(state, "p4")["players"])


# --- notes ------------------------------------------------------------------------------------

VARIANT_PLAYERS = [("warm_up", 3), ("duel", 2), ("multiplayer", 3)]


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_note_a_stop_on_a_symbol_not_common_to_both_cards_penalises_until_someone_else_says_stop(
    variant: str, players: int
) -> None:
    state = start(variant, players, seed=8)
    state = stop(state, "p1", not_common(state, "p1"))
    assert state.penalised == ("p1",)
    assert state.phase == "looking"
    assert legal_actions(state, "p1") == []
    assert_refused(
        IllegalAction,
        state,
        "p1",
        {"type": "stop", "player": "p1", "symbol": common_symbol(state, "p1")},
        "note a",
    )
    view = player_view(state, "p2")
    assert view["penalised"] == ["p1"]
    state = stop(state, "p2")
    assert state.penalised == ()
    assert legal_actions(state, "p1") == []  # p2 is naming now
    state = dont_know(state, "p2")
    assert legal_actions(state, "p1") != []


def test_note_a_a_stop_on_the_other_players_card_only_is_penalised_too() -> None:
    state = start("duel", seed=8)
    own, other = compared_cards(state, "p1")
    symbol = next(s for s in state.cards[other] if s not in state.cards[own])
    assert stop(state, "p1", symbol).penalised == ("p1",)


def test_note_a_another_players_wrong_stop_also_lifts_the_penalty_and_penalises_them() -> None:
    state = start("multiplayer", 3, seed=8, cards_per_player=4)
    state = stop(state, "p1", not_common(state, "p1"))
    state = stop(state, "p3", not_common(state, "p3"))
    assert state.penalised == ("p3",)
    assert legal_actions(state, "p1") != []


def test_a_stop_on_a_symbol_on_neither_card_is_refused() -> None:
    state = start("duel", seed=8)
    own, other = compared_cards(state, "p1")
    elsewhere = next(s for s in state.names if s not in state.cards[own] and s not in state.cards[other])
    assert_refused(
        IllegalAction, state, "p1", {"type": "stop", "player": "p1", "symbol": elsewhere}, "neither"
    )


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_note_b_the_stop_received_first_wins_and_nobody_else_may_stop_while_it_is_named(
    variant: str, players: int
) -> None:
    state = stop(start(variant, players, seed=8), "p2")
    assert state.claim is not None and state.claim.player == "p2"
    assert legal_actions(state, "p1") == []
    assert_refused(
        IllegalAction,
        state,
        "p1",
        {"type": "stop", "player": "p1", "symbol": common_symbol(state, "p1")},
        "said STOP first",
    )


def test_note_c_when_the_time_runs_out_the_player_with_the_fewest_cards_wins() -> None:
    state = start("warm_up", 3, seed=9, timer=600)
    state = with_stacks(
        state, p1=stacks(state)["p1"][:3], p2=stacks(state)["p2"][:1], p3=stacks(state)["p3"][:2]
    )
    assert legal_actions(state, None) == [{"type": "time_up"}]
    state = apply_action(state, None, {"type": "time_up"})
    result = outcome(state)
    assert result is not None
    assert result == {
        "winner": "p2",
        "ranking": ["p2", "p3", "p1"],
        "reason": "time_up",
        "cards_in_hand": {"p1": 3, "p2": 1, "p3": 2},
    }
    assert legal_actions(state, None) == []


def test_note_c_a_tie_goes_to_the_youngest_player() -> None:
    state = start(
        "multiplayer",
        3,
        seed=9,
        timer=600,
        cards_per_player=4,
        birth_dates=["2012-01-01", "2011-01-01", "2012-06-30"],
    )
    state = apply_action(state, None, {"type": "time_up"})
    result = outcome(state)
    assert result is not None
    assert result["ranking"] == ["p3", "p1", "p2"]
    assert result["winner"] == "p3"


def test_note_c_a_tie_without_every_birth_date_goes_to_the_earlier_in_seating_order() -> None:
    state = start(
        "multiplayer",
        3,
        seed=9,
        timer=600,
        cards_per_player=4,
        birth_dates=["2011-01-01", None, "2012-06-30"],
    )
    state = apply_action(state, None, {"type": "time_up"})
    result = outcome(state)
    assert result is not None
    assert result["ranking"] == ["p1", "p2", "p3"]


def test_note_c_the_duel_counts_cards_in_hand_not_the_card_on_the_table() -> None:
    state = start("duel", seed=9, timer=600, cards_per_player=5)
    state = with_stacks(state, p2=stacks(state)["p2"][:2])
    state = apply_action(state, None, {"type": "time_up"})
    result = outcome(state)
    assert result is not None
    assert result["cards_in_hand"] == {"p1": 4, "p2": 2}
    assert result["winner"] == "p2"


def test_note_c_time_up_while_someone_is_naming_ends_the_game_and_that_naming_does_not_count() -> None:
    state = stop(start("duel", seed=9, timer=600), "p1")
    state = apply_action(state, None, {"type": "time_up"})
    assert is_terminal(state)
    assert state.namings == ()
    assert state.claim is None


def test_note_c_time_up_without_a_timer_is_refused() -> None:
    state = start("duel", seed=9)
    assert legal_actions(state, None) == []
    assert_refused(IllegalAction, state, None, {"type": "time_up"}, "No timer was set")


def test_note_c_only_the_session_says_the_time_is_up() -> None:
    state = start("duel", seed=9, timer=600)
    assert_refused(IllegalAction, state, "p1", {"type": "time_up", "player": "p1"}, "Only the session")


# --- namings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_every_naming_right_or_wrong_is_recorded_for_the_quizzes(variant: str, players: int) -> None:
    state = start(variant, players, seed=10)
    first = common_symbol(state, "p1")
    state = name(stop(state, "p1"), "p1", "Wawel")
    second = common_symbol(state, "p2")
    state = dont_know(stop(state, "p2"), "p2")
    third = common_symbol(state, "p1")
    state = name_right(stop(state, "p1"), "p1")
    recorded = [(n.player, n.symbol, n.text, n.correct, n.dont_know) for n in state.namings]
    assert recorded == [
        ("p1", first, "Wawel", False, False),
        ("p2", second, None, False, True),
        ("p1", third, name_of(state, third), True, False),
    ]
    assert state.to_dict()["namings"][1] == {
        "player": "p2",
        "symbol": second,
        "text": None,
        "correct": False,
        "dont_know": True,
    }


def test_a_typed_name_matches_ignoring_case_diacritics_and_punctuation() -> None:
    state = start("duel", seed=10)
    state = stop(state, "p1")
    assert state.claim is not None
    typed = name_of(state, state.claim.symbol).upper().replace("Ł", "L").replace(".", "")
    assert name(state, "p1", f"  {typed}!  ").namings[-1].correct is True


def test_only_the_player_who_said_stop_names_the_symbol() -> None:
    state = stop(start("duel", seed=10), "p1")
    assert_refused(IllegalAction, state, "p2", {"type": "name", "player": "p2", "text": "x"}, "Only Player 1")
    assert_refused(IllegalAction, state, "p2", {"type": "dont_know", "player": "p2"}, "Only Player 1")


def test_naming_before_anyone_says_stop_is_refused() -> None:
    state = start("duel", seed=10)
    assert_refused(IllegalAction, state, "p1", {"type": "name", "player": "p1", "text": "Enigma"}, "say STOP")


# --- what a player sees -----------------------------------------------------------------------


def _all_names(state: State) -> set[str]:
    return {entry.name for entry in state.names.values()} | {
        alternative for entry in state.names.values() for alternative in entry.alternatives
    }


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_view_never_shows_a_name_before_the_naming_resolves(variant: str, players: int) -> None:
    state = start(variant, players, seed=12)
    viewers: list[str | None] = [None, *(p.id for p in state.players)]
    for current in (state, stop(state, "p1")):
        for viewer in viewers:
            text = json.dumps(player_view(current, viewer), ensure_ascii=False)
            assert not any(n in text for n in _all_names(current)), (viewer, current.phase)


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_view_shows_everyone_the_card_back_with_the_correct_name_after_the_naming(
    variant: str, players: int
) -> None:
    state = stop(start(variant, players, seed=12), "p1")
    assert state.claim is not None
    symbol = state.claim.symbol
    state = name(state, "p1", "Wawel")
    for viewer in [None, *(p.id for p in state.players)]:
        reveal = player_view(state, viewer)["reveal"]
        assert reveal == {
            "player": "p1",
            "symbol": symbol,
            "name": name_of(state, symbol),
            "result": "wrong",
            "text": "Wawel",
        }


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_view_shows_top_cards_and_counts_but_not_the_order_below_the_top(variant: str, players: int) -> None:
    state = start(variant, players, seed=12)
    view = player_view(state, "p1")
    assert not {"stacks", "cards", "names", "out", "namings", "middle_cards"} & set(view)
    for entry, stack in zip(view["players"], state.stacks, strict=True):
        assert entry["cards_in_hand"] == len(stack)
        assert entry["top"] == (list(state.cards[stack[0]]) if stack else None)
        assert set(entry) <= {"id", "name", "cards_in_hand", "top", "covered", "penalised", "table", "left"}
    own, other = compared_cards(state, "p1")
    assert view["comparison"]["own"] == list(state.cards[own])
    assert view["comparison"]["other"] == list(state.cards[other])
    if variant == "warm_up":
        assert view["middle"] == {"top": list(state.cards[state.middle[0]]), "count": 1}
    assert view["out_count"] == len(state.out)


def test_spectator_view_sees_counts_and_the_cards_on_the_table() -> None:
    state = start("duel", seed=12)
    view = player_view(state, None)
    assert view["you"] is None
    assert view["comparison"] is None
    assert [seat["table"] for seat in view["players"]] == [
        list(state.cards[c]) for c in state.table if c is not None
    ]
    assert [seat["cards_in_hand"] for seat in view["players"]] == [len(s) for s in state.stacks]
    assert view["legal_actions"] == []


def test_view_of_an_unknown_player_is_refused() -> None:
    with pytest.raises(InvalidAction, match="no player 'p7'"):
        player_view(start("duel", seed=12), "p7")


# --- malformed and illegal actions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "action", "match"),
    [
        ("p1", ["stop"], "must be an object"),
        ("p1", {"type": "jump", "player": "p1"}, "Unknown action type 'jump'"),
        ("p1", {"player": "p1"}, "Unknown action type None"),
        ("p1", {"type": "stop", "player": "p1"}, "point at a symbol"),
        ("p1", {"type": "stop", "player": "p1", "symbol": "s99"}, "no symbol 's99'"),
        ("p9", {"type": "stop", "player": "p9", "symbol": "s00"}, "no player 'p9'"),
        ("p1", {"type": "stop", "player": "p2", "symbol": "s00"}, "names player 'p2' but was sent for 'p1'"),
        (None, {"type": "stop", "symbol": "s00"}, "needs the player"),
        ("p1", {"type": "stop", "player": 1, "symbol": "s00"}, "must be a player id"),
        ("p1", {"type": "name", "player": "p1"}, "typed name in 'text'"),
        ("p1", {"type": "name", "player": "p1", "text": 5}, "typed name in 'text'"),
        ("p1", {"type": "name", "player": "p1", "text": "x" * 201}, "at most 200 characters"),
    ],
)
def test_malformed_actions_raise_invalid_action_and_change_nothing(
    player: str | None, action: Any, match: str
) -> None:
    state = start("duel", seed=13)
    assert_refused(InvalidAction, state, player, action, match)
    assert_refused(InvalidAction, stop(state, "p1"), player, action, match)


def test_actions_after_the_game_is_over_are_refused() -> None:
    state = with_stacks(start("duel", seed=13, timer=600), p1=())
    state = stop(state, "p1")
    assert is_terminal(state)
    assert_refused(
        IllegalAction,
        state,
        "p2",
        {"type": "stop", "player": "p2", "symbol": state.cards[state.table[1] or 0][0]},
        "over",
    )
    assert_refused(IllegalAction, state, None, {"type": "time_up"}, "over")
    assert legal_actions(state, "p1") == [] and legal_actions(state, "p2") == []


def test_apply_action_returns_a_new_state_and_leaves_the_given_one_alone() -> None:
    state = start("duel", seed=13)
    before = state.to_dict()
    after = name_right(stop(state, "p1"), "p1")
    assert after != state
    assert state.to_dict() == before


def test_player_may_be_given_only_in_the_action() -> None:
    state = start("duel", seed=13)
    symbol = common_symbol(state, "p1")
    assert apply_action(state, None, {"type": "stop", "player": "p1", "symbol": symbol}).claim is not None


# --- state ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), VARIANT_PLAYERS)
def test_state_round_trips_through_json(variant: str, players: int) -> None:
    state = stop(start(variant, players, seed=14, timer=600), "p2")
    data = json.loads(json.dumps(state.to_dict()))
    assert state_from_dict(data) == state
    assert State.from_dict(data).to_dict() == state.to_dict()


def test_state_from_dict_refuses_something_else() -> None:
    with pytest.raises(ValueError, match="Not a ZnajZnak state"):
        state_from_dict({"game": "know"})
    data = start("duel", seed=14).to_dict()
    del data["stacks"]
    with pytest.raises(ValueError, match="Not a ZnajZnak state"):
        state_from_dict(data)


def test_the_examples_in_the_docstrings_hold() -> None:
    result = doctest.testmod(znajznak)
    assert result.attempted > 0
    assert result.failed == 0


# --- golden playthroughs ------------------------------------------------------------------------


def replay(log: dict[str, Any]) -> State:
    state = new_game(log["setup"], seed=log["seed"], variant=log["variant"])
    for action in log["actions"]:
        state = apply_action(state, action.get("player"), action)
    return state


@pytest.mark.parametrize("variant", ["warm_up", "duel", "multiplayer"])
def test_golden_playthrough_replays_to_the_hand_checked_final_state(variant: str) -> None:
    """Hand-checked against the rulebook (each log's actions cover right, wrong and
    "I don't know" namings, a note a penalty and, per variant, the way the game ends:
    warm-up by naming the last card, duel by pointing with no cards in hand, multiplayer
    by the timer with a tie broken by age)."""
    log = json.loads((GOLDEN / f"znajznak_{variant}.json").read_text(encoding="utf-8"))
    assert (log["game"], log["variant"]) == ("znajznak", variant)
    assert set(log) == {"game", "variant", "seed", "setup", "actions", "expected"}
    state = replay(log)
    final = state.to_dict()
    assert {key: final[key] for key in log["expected"]} == log["expected"]
    assert replay(log) == state  # same setup, seed and actions: same state


# --- random play ----------------------------------------------------------------------------------

GAMES_PER_VARIANT = 600
MAX_ACTIONS = 3000


def random_setup(variant: str, rng: random.Random) -> dict[str, Any]:
    if variant == "warm_up":
        players = rng.randint(2, 4)
        order = 3 if players == 4 else rng.choice([2, 3])
        cards_per_player = None
    elif variant == "duel":
        players, order = 2, rng.choice([2, 3])
        cards_per_player = rng.randint(1, 3 if order == 2 else 4)
    else:
        players, order = rng.randint(3, 4), 3
        cards_per_player = rng.randint(1, 3)
    birth_dates = [
        rng.choice([None, f"20{rng.randint(10, 14)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"])
        for _ in range(players)
    ]
    timer = 600 if rng.random() < 0.3 else None
    return make_setup(
        players, order=order, cards_per_player=cards_per_player, timer=timer, birth_dates=birth_dates
    )


def random_action(
    state: State, rng: random.Random, speed: dict[str, float]
) -> tuple[str | None, dict[str, Any]]:
    """A player with something to do acts, the quicker ones more often; STOPs are right about
    half the time, names mostly right."""
    if state.timer is not None and rng.random() < 0.005:
        return None, {"type": "time_up"}
    options = [(p.id, action) for p in state.players for action in legal_actions(state, p.id)]
    player, action = rng.choices(options, weights=[speed[player] for player, _ in options])[0]
    action = dict(action)
    if action["type"] == "stop" and rng.random() < 0.5:
        action["symbol"] = common_symbol(state, player)
    if action["type"] == "name":
        assert state.claim is not None
        right = state.names[state.claim.symbol]
        action["text"] = rng.choice([right.name, right.name.lower(), *right.alternatives, "Wawel", ""])
    return player, action


def check_invariants(state: State) -> None:
    everything = [
        *(c for stack in state.stacks for c in stack),
        *state.middle,
        *(c for c in state.table if c is not None),
        *state.out,
    ]
    assert sorted(everything) == list(range(len(state.cards))), "cards are conserved"
    assert len(state.penalised) <= 1
    assert (state.phase == "naming") == (state.claim is not None)
    if is_terminal(state):
        result = outcome(state)
        assert result is not None
        assert sorted(result["ranking"]) == sorted(p.id for p in state.players)
        assert result["winner"] == result["ranking"][0]
        return
    for player in state.players:
        own, other = compared_cards(state, player.id)
        assert own != other
        assert len(set(state.cards[own]) & set(state.cards[other])) == 1, (
            "every comparison has one common symbol"
        )
    if state.variant == "duel":
        assert None not in state.table
    else:
        assert all(state.stacks), "nobody runs out of cards while the game runs"


@pytest.mark.parametrize("variant", ["warm_up", "duel", "multiplayer"])
def test_random_play_conserves_cards_always_ends_and_round_trips_at_every_step(variant: str) -> None:
    endings: Counter[str] = Counter()
    for seed in range(GAMES_PER_VARIANT):
        rng = random.Random(f"{variant}:{seed}")
        state = new_game(random_setup(variant, rng), seed=seed, variant=variant)
        speed = {p.id: rng.uniform(0.1, 1.0) for p in state.players}
        namings = 0
        for _ in range(MAX_ACTIONS):
            check_invariants(state)
            if is_terminal(state):
                break
            player, action = random_action(state, rng, speed)
            state = apply_action(state, player, action)
            namings += action["type"] in ("name", "dont_know")
            assert len(state.namings) == namings
            assert state_from_dict(json.loads(json.dumps(state.to_dict()))) == state
        else:
            pytest.fail(f"{variant} game {seed} did not end within {MAX_ACTIONS} actions")
        result = outcome(state)
        assert result is not None
        endings[result["reason"]] += 1
        if result["reason"] == "last_card":
            winner = stacks(state)[result["winner"]]
            assert len(winner) == (1 if variant == "multiplayer" else 0)
    assert endings["last_card"] > 0 and endings["time_up"] > 0


# --- purity ---------------------------------------------------------------------------------------


def test_engines_import_nothing_from_django() -> None:
    for path in sorted((ROOT / "games" / "engines").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            modules: list[str] = []
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            assert not any(m == "django" or m.startswith(("django.", "rest_framework")) for m in modules), (
                path
            )
    code = (
        "import sys, games.engines.znajznak, games.engines.names; "
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
