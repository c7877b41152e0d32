"""``python manage.py knowledge_simulate``: the Knowledge? balance simulator.

Plays thousands of games with the pure engine (``games.engines.knowledge``) and a simple
team strategy on a board and a question pool, and reports the team's win rate for each
start option (normal and harder start) in both variants, so teachers can pick a difficulty
and curators can test a new board before publishing it.

The simple strategy (:func:`choose`): the team knows a card's answer with probability
``--knowledge`` (else it guesses at random, as a class would); it estimates how far the
answer would move each free marker (number: that many spaces; letter or colour: the nearest
printed space on the board's table, ignoring markers) and gives long moves to the team and
short ones to the opponents, the most dangerous first (those ahead of the team or showing
their flag). In the strategic variant it picks the best (card, marker) pair of the round.
``--strategy random`` assigns at random, for comparison.

The core (:func:`simulate`) is plain Python over the engine, also used by
``bench/bench_knowledge.py``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from content.models import KnowledgeBoard, KnowledgeQuestion, Status
from games.engines import knowledge
from games.engines.base import InvalidSetup
from games.engines.knowledge_board import (
    COLOURS,
    LETTERS,
    Board,
    board_from_dict,
    default_board,
    symbol_mask,
)

MARKERS = knowledge.MARKERS
#: The position of ``movement`` among a move record's fields.
_MOVEMENT = knowledge.Play._fields.index("movement")
TEAM = knowledge.TEAM
#: A move of this many spaces is average on Talia's boards: longer ones go to the team.
AVERAGE_MOVE = 3.0
#: A safety net only: games end long before (the random-play test checks they always end).
MAX_ROUNDS = 500


@dataclass(frozen=True)
class Figures:
    """What a batch of games gave."""

    variant: str
    harder_start: bool
    strategy: str
    games: int
    won: int
    rounds: float
    replacements: int
    seconds: float

    @property
    def win_rate(self) -> float:
        return self.won / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "harder_start": self.harder_start,
            "strategy": self.strategy,
            "games": self.games,
            "won": self.won,
            "win_rate": round(self.win_rate, 4),
            "mean_rounds": round(self.rounds, 2),
            "replacements": self.replacements,
            "games_per_second": round(self.games / self.seconds, 1) if self.seconds else None,
        }


Belief = tuple[bool, int]  # (a number card?, the steps, or the options' bits)

#: The bits of each single letter and colour, for a guess.
_GUESS_BITS = {
    "letter": tuple(symbol_mask((letter,)) for letter in LETTERS),
    "colour": tuple(symbol_mask((colour,)) for colour in COLOURS),
}


def _belief(card: knowledge.QuizCard, rng: random.Random, knows: float) -> Belief:
    """What the team thinks the back says: right with probability ``knows``, else a guess.

    Read from the card's parsed answer (``number``, ``mask``): no parsing in the game loop.
    """
    if rng.random() >= knows:
        if card.category == "number":
            return True, rng.randrange(6)
        return False, rng.choice(_GUESS_BITS[card.category])
    if card.number >= 0:
        return True, card.number
    return False, card.mask


#: The markers that have not moved, by what has (positions in ``MARKERS``): a round has
#: at most 64 such sets, so they are worked out once.
_FREE: dict[tuple[str, ...], tuple[int, ...]] = {}


def _free(moved: tuple[str, ...]) -> tuple[int, ...]:
    free = _FREE.get(moved)
    if free is None:
        free = _FREE[moved] = tuple(i for i, marker in enumerate(MARKERS) if marker not in moved)
    return free


def choose(state: knowledge.State, beliefs: dict[int, Belief], playable: Sequence[int]) -> tuple[int, str]:
    """The simple strategy's (card, marker) among the cards that may be played now.

    A move's length is estimated from the belief: a number card's steps, or the distance to
    the nearest printed space showing the option (the board's table; markers ignored).
    Long moves go to the team, short ones to the opponents, the most dangerous first: those
    showing their flag or less than 6 spaces behind the team weigh more.

    It reads the state's packed markers (``spaces``, ``crossings``, ``flags``, team first),
    since it runs once for every card of every simulated game.
    """
    free = _FREE.get(state.moved_this_round) or _free(state.moved_this_round)
    if len(free) == 1 and len(playable) == 1:
        return playable[0], MARKERS[free[0]]
    board = state.game.board
    length, finish = board.length, board.finish
    spaces, crossings, flags = state.spaces, state.crossings, state.flags
    team_progress = crossings[0] * length + (spaces[0] - finish) % length
    # A move is worth (AVERAGE_MOVE - steps) x weight: the team's weight is -1 (long moves
    # are good), an opponent's 1, + 0.5 showing its flag, + 0.5 when less than 6 behind.
    close = team_progress - 6
    if len(playable) == 1:
        # The basic game (and a replacement): one card, each free marker weighed once.
        card = playable[0]
        number, value = beliefs[card]
        return card, MARKERS[_choose_marker(state, free, number, value)]
    weights = []  # a loop, not a comprehension: quicker for six
    for who in free:
        weights.append(
            -1.0
            if who == 0
            else (1.5 if flags[who] else 1.0)
            + (0.5 if crossings[who] * length + (spaces[who] - finish) % length > close else 0.0)
        )
    best_value = -1e9
    best = (playable[0], free[0])
    for card in playable:
        number, value = beliefs[card]
        table = None if number else board.tables[value]
        for who, weight in zip(free, weights, strict=True):
            worth = (AVERAGE_MOVE - (value if table is None else table[spaces[who]])) * weight
            if worth > best_value:
                best_value, best = worth, (card, who)
    return best[0], MARKERS[best[1]]


def _choose_marker(state: knowledge.State, free: tuple[int, ...], number: bool, value: int) -> int:
    """:func:`choose` for one card (the basic game, a replacement): the free marker
    (position in ``MARKERS``) the belief ``(number, value)`` goes to."""
    board = state.game.board
    length, finish = board.length, board.finish
    spaces, crossings, flags = state.spaces, state.crossings, state.flags
    # A move is worth (AVERAGE_MOVE - steps) x weight: the team's weight is -1 (long moves
    # are good), an opponent's 1, + 0.5 showing its flag, + 0.5 when less than 6 behind.
    close = crossings[0] * length + (spaces[0] - finish) % length - 6
    best_value, best_marker = -1e9, free[0]
    opponents = free
    if free[0] == 0:
        # The team first (``free`` is in MARKERS order), then the opponents.
        best_value = (value if number else board.tables[value][spaces[0]]) - AVERAGE_MOVE
        opponents = free[1:]
    if number:
        short = AVERAGE_MOVE - value  # the same move for every marker
        for who in opponents:
            weight = 1.5 if flags[who] else 1.0
            if crossings[who] * length + (spaces[who] - finish) % length > close:
                weight += 0.5
            worth = short * weight
            if worth > best_value:
                best_value, best_marker = worth, who
        return best_marker
    table = board.tables[value]
    for who in opponents:
        weight = 1.5 if flags[who] else 1.0
        if crossings[who] * length + (spaces[who] - finish) % length > close:
            weight += 0.5
        worth = (AVERAGE_MOVE - table[spaces[who]]) * weight
        if worth > best_value:
            best_value, best_marker = worth, who
    return best_marker


def _playable(state: knowledge.State) -> list[int]:
    replacement = state.replacement
    if replacement is not None:
        return [replacement]
    done = state.slot_cards + state.abandoned
    if state.game.variant == "basic":
        # Cards are played in draw order: the next is the first not yet played (a
        # replacement, drawn after the six, is played as soon as it is drawn).
        return [next(card for card in state.round_cards if card not in done)]
    playable = []  # a loop, not a comprehension: quicker for six
    for card in state.round_cards:
        if card not in done:
            playable.append(card)
    return playable


def play_game(
    board: Board,
    cards: tuple[knowledge.QuizCard, ...],
    *,
    seed: int,
    variant: str,
    harder_start: bool,
    knows: float,
    strategy: str = "simple",
    general: bool = False,
) -> knowledge.State:
    """One complete game; the card order is shuffled with the game's seed.

    ``general``: play the basic game through the general loop too, the reference the
    basic game's own loop (:func:`_play_basic`) must match move for move (a test compares
    them).
    """
    rng = random.Random(seed)
    shuffled = _shuffled(len(cards), rng.getrandbits)
    order = tuple(map(cards.__getitem__, shuffled))
    state = knowledge.deal(board, order, seed=seed, variant=variant, harder_start=harder_start)
    if strategy != "random" and variant == "basic" and not general:
        return _play_basic(state, tuple(map(_card_beliefs(cards).__getitem__, shuffled)), rng, knows)
    beliefs: dict[int, Belief] = {}
    is_terminal, assign = knowledge.is_terminal, knowledge.assign
    while not is_terminal(state):
        if state.round > MAX_ROUNDS:
            raise RuntimeError(f"game {seed} did not end")
        playable = _playable(state)
        if strategy == "random":
            free = _free(state.moved_this_round)
            card, marker = (
                playable[int(rng.random() * len(playable))],
                MARKERS[free[int(rng.random() * len(free))]],
            )
        else:
            for index in playable:
                if index not in beliefs:
                    beliefs[index] = _belief(order[index], rng, knows)
            card, marker = choose(state, beliefs, playable)
            del beliefs[card]
        state = assign(state, card, marker)
    return state


#: ``_BITS_BELOW[n]``: the random bits ``Random.randrange(n)`` draws (``n.bit_length()``).
_BITS_BELOW = tuple(n.bit_length() for n in range(256))


def _shuffled(count: int, getrandbits: Callable[[int], int]) -> list[int]:
    """``random.Random.shuffle(list(range(count)))`` with the same draws, so the same order,
    without a method call per card: the last card swaps with one drawn from those up to it
    (``randrange`` draws ``bit_length`` bits until they fall in range), then the one before.
    """
    order = list(range(count))
    for last in range(count - 1, 0, -1):
        bound = last + 1
        bits = _BITS_BELOW[bound] if bound < 256 else bound.bit_length()
        other = getrandbits(bits)
        while other > last:
            other = getrandbits(bits)
        order[last], order[other] = order[other], order[last]
    return order


#: For a question pool (its cards, by identity), each card's belief when the team knows it
#: and the beliefs it may guess (:func:`_belief`, read once per pool rather than per card
#: played).
_CARD_BELIEFS: dict[int, tuple[tuple[knowledge.QuizCard, ...], list[tuple[Belief, tuple[Belief, ...]]]]] = {}
_GUESSES: dict[str, tuple[Belief, ...]] = {
    "number": tuple((True, steps) for steps in range(6)),
    **{category: tuple((False, bits) for bits in guesses) for category, guesses in _GUESS_BITS.items()},
}
#: ``rng.choice(guesses)`` draws this many bits (``len(guesses).bit_length()``) until they
#: fall in range; :func:`_play_basic` draws them itself.
_GUESS_DRAW = 3
if any(len(guesses).bit_length() != _GUESS_DRAW for guesses in _GUESSES.values()):
    raise ImportError("A category's guesses changed: update _GUESS_DRAW.")


def _card_beliefs(cards: tuple[knowledge.QuizCard, ...]) -> list[tuple[Belief, tuple[Belief, ...]]]:
    kept = _CARD_BELIEFS.get(id(cards))
    if kept is None or kept[0] is not cards:
        if len(_CARD_BELIEFS) > 16:
            _CARD_BELIEFS.clear()
        kept = _CARD_BELIEFS[id(cards)] = (
            cards,
            [
                ((True, card.number) if card.number >= 0 else (False, card.mask), _GUESSES[card.category])
                for card in cards
            ],
        )
    return kept[1]


#: For each set of free markers (as bits of their positions in ``MARKERS``, all 64): the
#: free markers, whether the team is one of them, and the free opponents.
_PLANS: tuple[tuple[tuple[int, ...], bool, tuple[int, ...]], ...] = tuple(
    (
        tuple(who for who in range(len(MARKERS)) if bits >> who & 1),
        bool(bits & 1),
        tuple(who for who in range(1, len(MARKERS)) if bits >> who & 1),
    )
    for bits in range(1 << len(MARKERS))
)
_ALL_FREE = (1 << len(MARKERS)) - 1

#: The fields of ``knowledge.State``, in order: :func:`_play_basic` unpacks a state in one
#: step (a state is a named tuple), and this makes sure the order is the one it reads.
_STATE_FIELDS = (
    "game", "order", "drawn", "round", "round_cards", "spaces", "crossings", "flags", "stacks",
    "moved_this_round", "slot_cards", "abandoned", "replacement", "triggered_by", "log",
)  # fmt: skip
if knowledge.State._fields != _STATE_FIELDS:
    raise ImportError("knowledge.State's fields changed: update _STATE_FIELDS and _play_basic.")


#: For a board's length and finish: how far each space lies beyond the finish
#: (``Board.past_finish``), a lookup in the game loop.
_PAST: dict[tuple[int, int], tuple[int, ...]] = {}


def _past(length: int, finish: int) -> tuple[int, ...]:
    past = _PAST[length, finish] = tuple((space - finish) % length for space in range(length))
    return past


def _play_basic(
    state: knowledge.State,
    beliefs: tuple[tuple[Belief, tuple[Belief, ...]], ...],
    rng: random.Random,
    knows: float,
) -> knowledge.State:
    """The basic game with the simple strategy (:func:`choose`), to the end: the loop the
    speed target is measured on, move for move the general loop's game (a test compares).

    One card at a time, in draw order: its belief is drawn just before it is chosen (the
    same draws as :func:`_belief`; ``beliefs`` holds each card's known answer and guesses).
    The markers' weights are worked out once a round and again when the team moves: a free
    marker has not moved this round, so only the team's progress can change its weight.
    """
    assign = knowledge.assign
    draw, getrandbits = rng.random, rng.getrandbits
    board = state.game.board
    tables, length, finish = board.tables, board.length, board.finish
    past = _PAST.get((length, finish)) or _past(length, finish)
    weights = [-1.0] * len(MARKERS)
    at_round = at_team = who = -1
    free_bits, moved_before = _ALL_FREE, -1
    while True:
        (
            _, _, _, round_, round_cards, spaces, crossings, flags, _, moved, _, abandoned, card,
            triggered_by, _,
        ) = state  # fmt: skip
        moved_now = len(moved)
        if moved_now != moved_before:
            if triggered_by is not None and moved_now == knowledge.CARDS_PER_ROUND:
                return state
            # A new round, or the last card's marker moved (an abandoned card moves none).
            free_bits = free_bits & ~(1 << who) if moved_now else _ALL_FREE
            moved_before = moved_now
        if round_ > MAX_ROUNDS:
            raise RuntimeError(f"game {state.seed} did not end")
        if card is None:
            if abandoned:
                # A replacement was drawn this round: the next card is the first of the
                # round's cards neither played nor abandoned (_playable).
                done = state.slot_cards + abandoned
                card = next(index for index in round_cards if index not in done)
            else:
                card = round_cards[moved_now]  # no replacement yet: those played come first
        known, guesses = beliefs[card]
        if draw() >= knows:
            # A guess: ``rng.choice(guesses)``, the same draws (bits until in range).
            guess = getrandbits(_GUESS_DRAW)
            while guess >= len(guesses):
                guess = getrandbits(_GUESS_DRAW)
            number, value = guesses[guess]
        else:
            number, value = known
        free, team_free, opponents = _PLANS[free_bits]
        if not opponents:
            who = 0
        elif len(free) == 1:
            who = free[0]
        elif number and team_free and value >= AVERAGE_MOVE:
            # A number card of 3 or more for a free team: its worth (value - 3 >= 0) beats
            # every opponent's ((3 - value) x weight <= 0; the team is weighed first).
            who = 0
        else:
            if round_ != at_round or spaces[0] != at_team:
                at_round, at_team = round_, spaces[0]
                # _choose_marker's weights, for the free opponents: 1, + 0.5 showing its
                # flag, + 0.5 when less than 6 behind the team (the team's is -1: long
                # moves are good).  A loop, not a comprehension: quicker for five.
                close = crossings[0] * length + past[at_team] - 6
                for other in opponents:
                    weights[other] = (1.5 if flags[other] else 1.0) + (
                        0.5 if crossings[other] * length + past[spaces[other]] > close else 0.0
                    )
            # A move is worth (AVERAGE_MOVE - steps) x weight; the first best wins.
            if number:
                short = AVERAGE_MOVE - value
                if team_free:
                    best_value, who = -short, 0
                else:
                    best_value, who = -1e9, opponents[0]
                for other in opponents:
                    worth = short * weights[other]
                    if worth > best_value:
                        best_value, who = worth, other
            else:
                table = tables[value]
                if team_free:
                    best_value, who = table[at_team] - AVERAGE_MOVE, 0
                else:
                    best_value, who = -1e9, opponents[0]
                for other in opponents:
                    worth = (AVERAGE_MOVE - table[spaces[other]]) * weights[other]
                    if worth > best_value:
                        best_value, who = worth, other
        state = assign(state, card, MARKERS[who])


_OPPONENTS = tuple(range(1, len(MARKERS)))


def simulate(
    board: Board,
    cards: tuple[knowledge.QuizCard, ...],
    *,
    games: int,
    variant: str,
    harder_start: bool,
    knows: float = 0.6,
    strategy: str = "simple",
    seed: int = 0,
) -> Figures:
    """Play ``games`` games and count the team's wins."""
    won = rounds = replacements = 0
    started = time.process_time()
    for number in range(games):
        state = play_game(
            board,
            cards,
            seed=seed * 1_000_003 + number,
            variant=variant,
            harder_start=harder_start,
            knows=knows,
            strategy=strategy,
        )
        result = knowledge.outcome(state)
        assert result is not None
        won += result["result"] == "won"
        rounds += state.round
        # The move records' chain walked as is (``State.history`` would copy it); a record
        # there may be a plain tuple of the Play's fields.
        log = state.log
        while log is not None:
            log, play = log
            replacements += play[_MOVEMENT] == knowledge.ABANDONED
    return Figures(
        variant=variant,
        harder_start=harder_start,
        strategy=strategy,
        games=games,
        won=won,
        rounds=rounds / games if games else 0.0,
        replacements=replacements,
        seconds=time.process_time() - started,
    )


def cards_from_rows(rows: Sequence[dict[str, Any]]) -> tuple[knowledge.QuizCard, ...]:
    """Quiz cards from question rows (``category`` and ``answer`` are what moves a marker)."""
    return knowledge.cards_from(
        [
            {"id": f"s{number}", "category": row["category"], "answer": row["answer"]}
            for number, row in enumerate(rows, start=1)
        ]
    )


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
        if options["games"] < 1:
            raise CommandError("--games must be at least 1.")
        if not 0.0 <= options["knowledge"] <= 1.0:
            raise CommandError("--knowledge is a probability from 0 to 1.")
        board, board_name = self._board(options)
        rows, pool_name = self._pool(options)
        try:
            cards = cards_from_rows(rows)
        except InvalidSetup as error:
            raise CommandError(f"The question pool cannot be played: {error}") from error
        variants = ["basic", "strategic"] if options["variant"] == "both" else [options["variant"]]
        strategies = ["simple", "random"] if options["strategy"] == "both" else [options["strategy"]]
        starts = [False, True] if board.opponent_start_hard is not None else [False]
        figures = [
            simulate(
                board,
                cards,
                games=options["games"],
                variant=variant,
                harder_start=harder,
                knows=options["knowledge"],
                strategy=strategy,
                seed=options["seed"],
            )
            for strategy in strategies
            for variant in variants
            for harder in starts
        ]
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

        questions = KnowledgeQuestion.objects.filter(status=Status.PUBLISHED)
        if options["tag"]:
            questions = questions.filter(tags__slug__in=options["tag"]).distinct()
        if options["language"]:
            questions = questions.filter(language=options["language"])
        rows = list(questions.values("category", "answer"))
        if len(rows) < knowledge.CARDS_PER_ROUND:
            raise CommandError(
                f"The question pool has {len(rows)} published question(s); a game needs at least "
                f"{knowledge.CARDS_PER_ROUND}. Load the demo content or use --pool-json."
            )
        name = "published questions" + (f" tagged {', '.join(options['tag'])}" if options["tag"] else "")
        return rows, name + (f" in {options['language']}" if options["language"] else "")
