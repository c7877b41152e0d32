"""The Knowledge? balance simulator (``manage.py knowledge_simulate``): complete games with a
simple strategy on a board and a question pool, win rates per start option and variant."""

from __future__ import annotations

import json
import random
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.engines import knowledge
from games.engines.knowledge_board import COLOURS, LETTERS, board_from_dict, default_board
from games.knowledge_simulator import cards_from_rows, choose, play_game, simulate
from tests.factories import KnowledgeQuestionFactory

ROOT = Path(__file__).resolve().parents[3]
DEMO_POOL = ROOT / "content" / "demo" / "data" / "knowledge_questions.json"


def run(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("knowledge_simulate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_the_simulator_reports_win_rates_per_start_option_and_variant() -> None:
    report = run("--games", "40", "--pool-json", str(DEMO_POOL), "--strategy", "both")
    figures = {(f["strategy"], f["variant"], f["harder_start"]): f for f in report["figures"]}
    assert set(figures) == {
        (strategy, variant, harder)
        for strategy in ("simple", "random")
        for variant in ("basic", "strategic")
        for harder in (False, True)
    }
    assert report["questions"] == 85 and report["board"].startswith("Talia default board")
    for figure in figures.values():
        assert figure["games"] == 40 and 0 <= figure["won"] <= 40 and figure["mean_rounds"] > 5
    # Thinking beats chance, and the harder start is harder.
    assert figures["simple", "basic", False]["won"] > figures["random", "basic", False]["won"]
    assert figures["simple", "basic", False]["won"] > figures["simple", "basic", True]["won"]


def test_every_simulated_game_is_complete_and_moves_each_marker_once_a_round() -> None:
    cards = cards_from_rows(json.loads(DEMO_POOL.read_text(encoding="utf-8")))
    for seed in range(6):
        state = play_game(
            default_board(),
            cards,
            seed=seed,
            variant=("basic", "strategic")[seed % 2],
            harder_start=False,
            knows=0.6,
        )
        assert knowledge.is_terminal(state)
        for number in range(1, state.round + 1):
            moved = [p.marker for p in state.history if p.round == number and p.movement != "abandoned"]
            assert sorted(moved) == sorted(knowledge.MARKERS)


@pytest.mark.parametrize("harder_start", [False, True])
def test_the_basic_games_inline_loop_plays_the_same_games_as_the_general_one(harder_start: bool) -> None:
    """The simulator's fast loop is a speed-up only: the same choices, the same games."""
    cards = cards_from_rows(json.loads(DEMO_POOL.read_text(encoding="utf-8")))
    for seed in range(40):
        options: dict[str, Any] = {
            "seed": seed,
            "variant": "basic",
            "harder_start": harder_start,
            "knows": 0.6,
        }
        fast = play_game(default_board(), cards, **options)
        reference = play_game(default_board(), cards, general=True, **options)
        assert fast.to_dict() == reference.to_dict(), f"game {seed} differs"


def test_the_basic_games_inline_loop_matches_the_general_one_with_replacement_cards() -> None:
    """A board printing each colour and letter once: opponents' letter and colour moves are
    often abandoned (the only match lies under the team), so replacement cards are drawn and
    the inline loop's count of free markers and choice of the next card are put to the test."""
    spaces: list[dict[str, str] | None] = [None]
    spaces += [{"colour": colour, "letter": letter} for colour, letter in zip(COLOURS, LETTERS, strict=True)]
    spaces += [{"colour": "white", "letter": "A"}] * 15
    board = board_from_dict({"spaces": spaces, "finish": 0, "opponent_start": 12, "opponent_start_hard": 16})
    cards = cards_from_rows(json.loads(DEMO_POOL.read_text(encoding="utf-8")))
    replacements = 0
    for seed in range(40):
        options: dict[str, Any] = {
            "seed": seed,
            "variant": "basic",
            "harder_start": seed % 2 == 1,
            "knows": 0.6,
        }
        fast = play_game(board, cards, **options)
        reference = play_game(board, cards, general=True, **options)
        assert fast.to_dict() == reference.to_dict(), f"game {seed} differs"
        replacements += sum(play.movement == knowledge.ABANDONED for play in fast.history)
        # After a replacement the round goes on with its next unplayed card: each card once.
        for number in range(1, fast.round + 1):
            played = [p.card for p in fast.history if p.round == number]
            assert len(played) == len(set(played)), f"game {seed}, round {number}: {played}"
    assert replacements > 10


def test_a_games_card_order_is_the_seeded_random_shuffle() -> None:
    """The simulator's own shuffle draws what ``random.Random(seed).shuffle`` draws, so a
    seed plays the same game (and gives the documented figures) as before it existed."""
    cards = cards_from_rows(json.loads(DEMO_POOL.read_text(encoding="utf-8")))
    for seed in range(20):
        expected = list(cards)
        random.Random(seed).shuffle(expected)
        state = play_game(default_board(), cards, seed=seed, variant="basic", harder_start=False, knows=0.6)
        assert state.cards == tuple(expected)


def test_the_simple_strategy_gives_a_long_move_to_the_team_and_a_short_one_to_an_opponent() -> None:
    rows = [{"category": "number", "answer": n} for n in (5, 0, 1, 2, 3, 4)]
    state = knowledge.deal(default_board(), cards_from_rows(rows), seed=1)
    card = state.round_cards[0]
    assert choose(state, {card: (True, 5)}, [card]) == (card, "team")
    marker = choose(state, {card: (True, 0)}, [card])[1]
    assert marker != "team"


def test_a_team_that_knows_every_answer_wins_more_often_than_one_that_knows_none() -> None:
    cards = cards_from_rows(json.loads(DEMO_POOL.read_text(encoding="utf-8")))
    knowing = simulate(default_board(), cards, games=40, variant="basic", harder_start=False, knows=1.0)
    guessing = simulate(default_board(), cards, games=40, variant="basic", harder_start=False, knows=0.0)
    assert knowing.won > guessing.won


@pytest.mark.django_db
def test_the_simulator_reads_the_published_pool_and_refuses_one_too_small() -> None:
    for number in range(5):
        KnowledgeQuestionFactory(category="number", answer=number)
    with pytest.raises(CommandError, match="has 5 published question"):
        run("--games", "2")
    KnowledgeQuestionFactory(category="letter", answer=["C", "D"])
    report = run("--games", "3", "--variant", "basic", "--board", "Talia default board")
    assert report["questions"] == 6 and report["board"] == "Talia default board"
    with pytest.raises(CommandError, match="No Knowledge\\? board"):
        run("--games", "2", "--board", "Nowhere")
