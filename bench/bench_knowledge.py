"""Knowledge? simulated games per second on one core (pure engine, no database).

Run: ``.venv/bin/python bench/bench_knowledge.py`` (about a minute).

Plays complete games on the default board with the demo question pool through the
balance simulator's core (``games/knowledge_simulator.py``: deal,
the simple strategy or random assignment, ``knowledge.assign`` until the game is over),
in this one process.  Figures are games per CPU second (``time.process_time``, so
other work on a shared machine does not count against the engine) and per wall-clock
second, best of ``--runs``.  Target: at least 1,000 complete games per second with the
simple strategy, basic variant.  The exit status is 1 when the target is missed.

A last line replays the cards of the simple basic games with ``knowledge.deal`` and
``knowledge.assign`` alone (no strategy): the engine's share of a simulated game.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from results import record

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engines import knowledge  # noqa: E402
from games.engines.knowledge_board import Board, default_board  # noqa: E402
from games.knowledge_simulator import cards_from_rows, play_game, simulate  # noqa: E402

TARGET = 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (best is shown)")
    args = parser.parse_args()

    rows = json.loads((ROOT / "content" / "demo" / "data" / "knowledge_questions.json").read_text("utf-8"))
    cards = cards_from_rows(rows)
    board = default_board()
    print(f"CPUs: {os.cpu_count()}, load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"Board: default ({board.length} spaces); pool: {len(cards)} demo questions; {args.games} games a run"
    )
    failed = False
    for strategy, variant, target in (
        ("simple", "basic", TARGET),
        ("simple", "strategic", None),
        ("random", "basic", None),
    ):
        best_cpu = best_wall = 0.0
        rounds = 0.0
        for run in range(args.runs):
            wall = time.perf_counter()
            figures = simulate(
                board,
                cards,
                games=args.games,
                variant=variant,
                harder_start=False,
                strategy=strategy,
                seed=run,
            )
            wall = time.perf_counter() - wall
            best_cpu = max(best_cpu, figures.games / figures.seconds)
            best_wall = max(best_wall, figures.games / wall)
            rounds = figures.rounds
        verdict = ""
        if target is not None:
            record(
                "bench_knowledge.py",
                f"{strategy} {variant}: games per CPU second",
                f"{best_cpu:.0f}",
                f">= {target:.0f}",
                best_cpu >= target,
            )
            verdict = "ok" if best_cpu >= target else f"MISSED (target {target:.0f})"
            failed = failed or best_cpu < target
        print(
            f"{strategy:<6} {variant:<9} {best_cpu:8.0f} games/s CPU {best_wall:8.0f} games/s wall "
            f"({rounds:.1f} rounds a game) {verdict}"
        )
    print(
        f"engine only     {engine_only(board, cards, args.games, args.runs):8.0f} games/s CPU (deal + assign)"
    )
    return 1 if failed else 0


def engine_only(board: Board, cards: tuple[knowledge.QuizCard, ...], games: int, runs: int) -> float:
    """Games per CPU second replaying the simple basic games' (card, marker) choices."""
    replays = []
    for seed in range(games):
        state = play_game(board, cards, seed=seed, variant="basic", harder_start=False, knows=0.6)
        ids = state.card_ids
        plays = [(ids[play.card], play.marker) for play in state.history]
        replays.append((seed, state.cards, plays))
    best = 0.0
    for _ in range(runs):
        started = time.process_time()
        for seed, order, plays in replays:
            state = knowledge.deal(board, order, seed=seed)
            for card, marker in plays:
                state = knowledge.assign(state, card, marker)
            assert knowledge.is_terminal(state), "the replay must end the game as the simulation did"
        best = max(best, games / (time.process_time() - started))
    return best


if __name__ == "__main__":
    sys.exit(main())
