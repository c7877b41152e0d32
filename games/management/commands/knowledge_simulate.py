"""``python manage.py knowledge_simulate``: the Knowledge? balance simulator on the command line.

The games, the strategy and the figures are :mod:`games.knowledge_simulator`'s
(:func:`~games.knowledge_simulator.balance_figures`), the question pool is the one the
board's admin page simulates (``games.play.knowledge.balance_run.balance_pool``): the
same board, pool, seed and number of games give the same figures in both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from content.models import KnowledgeBoard
from games.engines import knowledge
from games.engines.base import InvalidSetup
from games.engines.knowledge_board import Board, board_from_dict, default_board
from games.knowledge_simulator import STRATEGIES, VARIANTS, balance_figures, cards_from_rows
from games.play.knowledge.balance_run import balance_pool

#: More games than this per cell is a typo, not a question (a million take an hour).
GAMES_MAX = 1_000_000


class Command(BaseCommand):
    help = "Play many Knowledge? games with a simple strategy and report the team's win rates."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=2000, help="Games per start option and variant.")
        parser.add_argument(
            "--board",
            default="",
            help="A Knowledge? board's id or name (default: the engine's default board).",
        )
        parser.add_argument("--board-json", default="", help="A board as JSON (the game log's setup.board).")
        parser.add_argument(
            "--tag", action="append", default=[], help="Questions with this tag (repeatable)."
        )
        parser.add_argument("--language", default="", help="Questions in this language (pl, en, ...).")
        parser.add_argument(
            "--pool-json",
            default="",
            help="Questions from a JSON list of {category, answer} instead of the database.",
        )
        parser.add_argument(
            "--knowledge", type=float, default=0.6, help="How often the team knows an answer."
        )
        parser.add_argument("--variant", choices=["basic", "strategic", "both"], default="both")
        parser.add_argument("--strategy", choices=["simple", "random", "both"], default="simple")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 1 <= options["games"] <= GAMES_MAX:
            raise CommandError(f"--games must be from 1 to {GAMES_MAX:,}.")
        if not 0.0 <= options["knowledge"] <= 1.0:
            raise CommandError("--knowledge is a probability from 0 to 1.")
        board, board_name = self._board(options)
        rows, pool_name = self._pool(options)
        try:
            cards = cards_from_rows(rows)
        except InvalidSetup as error:
            raise CommandError(f"The question pool cannot be played: {error}") from error
        figures = balance_figures(
            board,
            cards,
            games=options["games"],
            seed=options["seed"],
            knows=options["knowledge"],
            variants=VARIANTS if options["variant"] == "both" else [options["variant"]],
            strategies=STRATEGIES if options["strategy"] == "both" else [options["strategy"]],
        )
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "board": board_name,
                        "pool": pool_name,
                        "questions": len(cards),
                        "knowledge": options["knowledge"],
                        "figures": [figure.to_dict() for figure in figures],
                    },
                    indent=2,
                )
            )
            return
        self.stdout.write(
            f"Board: {board_name} ({board.length} spaces). Pool: {pool_name} ({len(cards)} questions). "
            f"The team knows {options['knowledge']:.0%} of the answers."
        )
        self.stdout.write(
            f"{'strategy':<8} {'variant':<10} {'start':<7} {'games':>6} {'won':>7} {'rounds':>7} "
            f"{'games/s':>8}"
        )
        for figure in figures:
            speed = figure.games / figure.seconds if figure.seconds else float("inf")
            self.stdout.write(
                f"{figure.strategy:<8} {figure.variant:<10} "
                f"{'harder' if figure.harder_start else 'normal':<7} {figure.games:>6} "
                f"{figure.win_rate:>7.1%} {figure.rounds:>7.1f} {speed:>8.0f}"
            )

    def _board(self, options: dict[str, Any]) -> tuple[Board, str]:
        if options["board_json"]:
            try:
                data = json.loads(Path(options["board_json"]).read_text(encoding="utf-8"))
                return board_from_dict(data), options["board_json"]
            except (OSError, ValueError) as error:
                raise CommandError(f"The board cannot be read: {error}") from error
        if not options["board"]:
            return default_board(), "Talia default board (engine)"
        key = options["board"]
        found = (
            KnowledgeBoard.objects.filter(pk=int(key))
            if key.isascii() and key.isdigit()
            else KnowledgeBoard.objects.filter(name=key)
        )
        board = found.first()
        if board is None:
            raise CommandError(f"No Knowledge? board {key!r}.")
        try:
            return board_from_dict(board.as_setup()), board.name
        except InvalidSetup as error:
            raise CommandError(f"The board {board.name!r} cannot be played: {error}") from error

    def _pool(self, options: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if options["pool_json"]:
            try:
                rows = json.loads(Path(options["pool_json"]).read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"The question pool cannot be read: {error}") from error
            return rows, options["pool_json"]
        rows = balance_pool(tags=options["tag"], language=options["language"])
        if len(rows) < knowledge.CARDS_PER_ROUND:
            raise CommandError(
                f"The question pool has {len(rows)} published question(s); a game needs at least "
                f"{knowledge.CARDS_PER_ROUND}. Load the demo content or use --pool-json."
            )
        name = "published questions" + (f" tagged {', '.join(options['tag'])}" if options["tag"] else "")
        return rows, name + (f" in {options['language']}" if options["language"] else "")
