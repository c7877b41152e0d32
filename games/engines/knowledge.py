"""Knowledge?: one team races five opponent markers; a quiz card's answer decides where a marker moves.

The rulebook is ``../shared/rules/knowledge.md`` (Setup; Gameplay 1-3: Prepare the Round,
Quizzing, Complete the Round; Special movement rules; Game End; Strategic Variant); the
readings Talia adds are in ``../shared/rules/README.md`` (Knowledge?).  The engine follows
the API of :mod:`games.engines.base`; setup, action and state formats are those of
``docs/replay.md`` (Knowledge?), and the board is data (:mod:`.knowledge_board`).

Setup (every field but ``cards`` may be left out)::

    {"board": {"spaces": [null, {"colour": "red", "letter": "A"}, ...],
               "finish": 0, "opponent_start": 7, "opponent_start_hard": 17},
     "opponents": [{"colour": "white", "letter": "A", "space": 7}, ...],
     "team_space": 0,
     "harder_start": false,
     "players": [{"id": "p1", "name": "Ala"}],
     "cards": [{"id": "q1", "category": "number", "answer": 3, "front": "...", "back": "..."}, ...]}

Action: ``{"type": "assign", "card": "q1", "marker": "team", "guess": 3}`` (``marker`` is
``team``, ``white``, ``green``, ``yellow``, ``blue`` or ``red``; ``guess`` is optional).

State: :meth:`State.to_dict` has the fields of replay.md (``round``, ``markers``, ``stacks``
bottom to top, ``moved_this_round``, ``terminal``, ``outcome`` = ``null``, ``"won"`` or
``"lost"``) and the rest of the game; :func:`outcome` gives the details as a dict (``result``
is the same word), like every engine's.

Readings where the rulebook is silent, or speaks of a table rather than a screen:

* Board: :mod:`.knowledge_board`.  "Behind" is counter-clockwise: the opponents start on
  ``opponent_start`` and the 4 spaces before it, in an order drawn with
  ``rng_for(seed, "opponents")``; their front letters A-E are a permutation drawn with
  ``rng_for(seed, "letters")``.  ``harder_start: true`` uses ``opponent_start_hard`` (Setup,
  note).  Explicit ``opponents`` win over both (the later one in the list lies on top).
* Cards: ``cards`` is the draw order of the whole game and is required: a session draws
  it from the question pool the teacher chose (``content.KnowledgeQuestion``), a test or a
  log names it; the engine never falls back to other questions.  Played cards are set
  aside ("You do not need them any more in this game"); should the order run out (a box
  has 630 cards, a class pool far fewer), the cards set aside are shuffled with
  ``rng_for(seed, "reshuffle", n)`` (``n`` = cards in the order so far) and continue the
  order, as players would refill the box.  A setup needs 6 cards.
* Players: ``players`` (``[{"id", "name"}, ...]``, written by the session) is kept with the
  setup for the log; any member of the team may act.
* Number card 0: the marker does not move (it stays where it is, also inside a stack) but
  has had its move this round.  A number card moves the team marker exactly that many
  spaces; an opponent likewise, the team's space counting as one step, except that an
  opponent whose last step lands on the team's space moves on to the next space (one
  step more).
* Letter and colour cards move to the nearest space ahead (1 to length - 1 steps, never
  the marker's own space) whose visible colour/letter is one of the card's options: the
  top opponent marker of a stack if there is one, else the space itself; a space showing
  neither (the finish, say) never matches.  The moving marker is taken off its stack first,
  so it never counts itself.  For an opponent the team's space is unavailable (whatever
  lies under the team is covered); the team marker may move onto any space, stacks included.
* Stacks: a marker moves alone.  The one moved is taken out of its stack (the markers
  above it close the gap, below-to-top order kept) and is placed on top of the markers on
  its new space; the team marker always lies on top of every stack.  Opponent markers never
  land on the team's space, so only the team moving onto them puts them under it.
* Crossings: a marker crosses the finish when the finish lies within the 1..steps spaces it
  moves (entering it counts; starting on it does not).  An opponent's first crossing turns
  it to the flag side.  The first crossing that is some marker's second triggers the end
  (``triggered_by``); the round is completed, then the game is over.
* Game end: progress = crossings x board length + spaces beyond the finish (README).  The
  team loses when an opponent that already showed its flag before crossing the finish
  again (so: two crossings) has more progress than the team, and wins otherwise.  When the
  game ends only such an opponent can be ahead of the team, so "won" is also "the team is
  furthest ahead" (the random-play test checks it).  An opponent on the team's space lies
  under it (the team came later): equal progress, not overtaken.
* "The person holding the stack names the category of the top card": in the basic game the
  view shows only the next card's id, category and front; in the strategic variant the
  fronts of all the round's unplayed cards ("first read all the cards aloud").  A card's
  back and answer appear only once it is assigned (placed in its slot and turned over).
* The sixth card goes to the last free marker: it is still an ``assign`` action (so the
  guess can be recorded), with that marker as the only legal one.
* Replacements ("Very unlikely case"): when the assigned card's letter or colour is visible
  nowhere for that marker, the movement is abandoned, the card is set aside (recorded in
  ``abandoned`` and in the history) and the marker has not moved.  A replacement card is
  drawn from the same order and must be played next, in both variants ("play it instead"),
  on any marker that has not moved (including the one just tried).  If no card at all can be
  drawn (every card of the game is in this round), the marker stays where it is and counts
  as moved.  "Do not clear the card you have just played" is read as the rule for every
  card: it stays at its slot until the round is complete, so the slots show which markers
  have moved; the abandoned card lies at no slot, its marker not having moved.
* The move record: every card played adds a :class:`Play` to ``history`` with what a screen
  needs to explain the move ("blue moves to the next E: 4 spaces, skipping the team
  marker"): the answer, from/to/steps, the option matched and the opponent marker showing
  it, ``skipped_team`` (a number move's skip, or a letter/colour move passing the team's
  space that would have matched), ``from_stack``, ``onto`` and ``flag_turned``.
* Speed (the balance simulator plays thousands of games; ``bench/bench_knowledge.py``):
  the state stays an immutable value, but its layout is made for building the next one in
  a single step.  :class:`State` is a named tuple; what never changes in a game (board,
  cards, seed, the opponents' letters) is one shared ``game`` value; the markers are packed
  as ``spaces``, ``crossings`` and ``flags`` in :data:`MARKERS` order, and the named
  :class:`TeamMarker` / :class:`OpponentMarker` values, ``slots`` and the ``history`` tuple
  are built only when asked (the history is kept as a chain, so a card played adds one
  small tuple instead of copying the whole history).  Cards keep their parsed answer
  (:attr:`QuizCard.number`, :attr:`QuizCard.mask`); letter and colour moves read the
  board's table of the nearest printed match (``Board.tables``) and a per-game table of the
  opponents showing each set of options, and look only at the occupied spaces.
  :func:`assign` is :func:`apply_action` without reading an action object (the same rules
  and errors, checked in a few comparisons); :func:`deal` starts a game from an already
  checked board and cards.  :func:`assign` keeps its move record in the history chain as
  the plain tuple of the :class:`Play` fields (``history``, ``to_dict()`` and the views give
  the same Plays); a move touching no stack keeps the stacks; ``card_ids`` is built only
  when read.
* Guesses: ``guess`` (a number 0-5, or letters / colours like an answer) is recorded with
  the card before its back is read.  It never changes the movement.  It is correct when it
  equals a number answer, or when every guessed letter/colour is one of the answer's options.
* Players: the game is cooperative and open; any member of the team may act.  The acting
  player (``player``) is only recorded in the history, for each student's progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from .base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from .knowledge_board import COLOURS, LETTERS, SYMBOL_BITS, Board, board_from_dict, default_board, symbol_mask

__all__ = [
    "CARDS_PER_ROUND",
    "GAME",
    "MARKERS",
    "OPPONENTS",
    "TEAM",
    "VARIANTS",
    "Movement",
    "OpponentMarker",
    "Play",
    "QuizCard",
    "State",
    "TeamMarker",
    "apply_action",
    "assign",
    "cards_from",
    "deal",
    "is_terminal",
    "legal_actions",
    "movement",
    "new_game",
    "outcome",
    "player_view",
    "progress",
    "state_from_dict",
]

GAME: str = "knowledge"
VARIANTS: tuple[str, ...] = ("basic", "strategic")

TEAM = "team"
#: The five opponent markers, in the rulebook's order (Components).
OPPONENTS: tuple[str, ...] = ("white", "green", "yellow", "blue", "red")
MARKERS: tuple[str, ...] = (TEAM, *OPPONENTS)
#: "In each round you play exactly 6 quiz cards": one for each marker.
CARDS_PER_ROUND = len(MARKERS)
#: "The end of the game is triggered when a marker enters or passes the finish space for
#: the second time."
CROSSINGS_TO_END = 2
CATEGORIES: tuple[str, ...] = ("number", "letter", "colour")
#: "A number card always refers to one of the whole numbers 0, 1, 2, 3, 4 or 5."
MAX_NUMBER = 5
MAX_TEXT = 2000

MOVED, ABANDONED, STAYS = "moved", "abandoned", "stays"

_SETUP_FIELDS = frozenset({"board", "opponents", "team_space", "harder_start", "cards", "players"})
_CARD_FIELDS = frozenset({"id", "category", "answer", "front", "back"})
_ACTION_FIELDS = frozenset({"type", "player", "card", "marker", "guess"})

Answer = int | tuple[str, ...]


# --- the values a state is made of -------------------------------------------------------


@dataclass(frozen=True)
class QuizCard:
    """A quiz card: its category (front), the text of both sides and the answer (back)."""

    id: str
    category: str
    answer: Answer
    front: str | None = None
    back: str | None = None
    #: The answer as the engine reads it, parsed once: a number card's steps (-1 for a
    #: letter or colour card) and the options as bits (:func:`.knowledge_board.symbol_mask`).
    number: int = field(init=False, repr=False, compare=False)
    mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        answer = self.answer
        number, mask = (answer, 0) if isinstance(answer, int) else (-1, symbol_mask(answer))
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "mask", mask)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "category": self.category, "answer": _answer_json(self.answer)}
        if self.front is not None:
            data["front"] = self.front
        if self.back is not None:
            data["back"] = self.back
        return data

    def front_dict(self) -> dict[str, Any]:
        """What may be seen before the card is assigned: "names the category ... reads the
        text on the front"."""
        return {"id": self.id, "category": self.category, "front": self.front}


class TeamMarker(NamedTuple):
    """The team marker: its space and how often it has entered or passed the finish."""

    space: int
    crossings: int = 0


class OpponentMarker(NamedTuple):
    """An opponent marker: its colour, the letter on its front (the back shows the same
    letter and the finish flag)."""

    colour: str
    letter: str
    space: int
    crossings: int = 0
    flag: bool = False


class Movement(NamedTuple):
    """Where a card sends a marker: ``steps`` spaces clockwise, to space ``to``.

    For a letter or colour card, ``matched`` is the option reached and ``on_marker`` the
    opponent marker showing it (``None`` for a printed space).  ``skipped_team`` is the
    number-card skip, or, for a letter or colour move, that the team's space showed the
    option but was unavailable and passed over.
    """

    to: int
    steps: int
    skipped_team: bool = False
    matched: str | None = None
    on_marker: str | None = None


class Play(NamedTuple):
    """One card assigned to a marker, as the history keeps it: the move record.

    Everything a screen needs to explain the move ("blue moves to the next E: 4 spaces,
    skipping the team marker") is here: the card's answer, where the marker came from and
    went, ``matched``/``on_marker`` (what it stopped on), ``skipped_team``, ``from_stack``
    (it was taken from under other markers), ``onto`` (the markers it now lies on, bottom
    to top), ``crossed``/``flag_turned`` (the finish), and the guess kept for progress.
    """

    round: int
    card: str
    category: str
    answer: Answer
    marker: str
    player: str | None
    guess: Answer | None
    guess_correct: bool | None
    movement: str  # MOVED, ABANDONED (replaced) or STAYS (no replacement left)
    from_space: int
    to_space: int
    steps: int
    crossed: bool = False
    skipped_team: bool = False
    matched: str | None = None
    on_marker: str | None = None
    from_stack: bool = False
    onto: tuple[str, ...] = ()
    flag_turned: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "card": self.card,
            "category": self.category,
            "answer": _answer_json(self.answer),
            "marker": self.marker,
            "player": self.player,
            "guess": None if self.guess is None else _answer_json(self.guess),
            "guess_correct": self.guess_correct,
            "movement": self.movement,
            "from": self.from_space,
            "to": self.to_space,
            "steps": self.steps,
            "crossed": self.crossed,
            "skipped_team": self.skipped_team,
            "matched": self.matched,
            "on_marker": self.on_marker,
            "from_stack": self.from_stack,
            "onto": list(self.onto),
            "flag_turned": self.flag_turned,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Play:
        guess = data["guess"]
        return cls(
            round=int(data["round"]),
            card=str(data["card"]),
            category=str(data["category"]),
            answer=_answer_value(data["answer"]),
            marker=str(data["marker"]),
            player=data["player"],
            guess=None if guess is None else _answer_value(guess),
            guess_correct=data["guess_correct"],
            movement=str(data["movement"]),
            from_space=int(data["from"]),
            to_space=int(data["to"]),
            steps=int(data["steps"]),
            crossed=bool(data["crossed"]),
            skipped_team=bool(data["skipped_team"]),
            matched=data.get("matched"),
            on_marker=data.get("on_marker"),
            from_stack=bool(data.get("from_stack", False)),
            onto=tuple(data.get("onto", ())),
            flag_turned=bool(data.get("flag_turned", False)),
        )


class _Game(NamedTuple):
    """What stays the same for the whole game: shared by every state of one game."""

    variant: str
    seed: int
    board: Board
    harder_start: bool
    cards: tuple[QuizCard, ...]
    #: card id -> index into ``cards``.
    card_ids: Mapping[str, int]
    #: The opponents' front letters, in :data:`OPPONENTS` order (drawn at setup, never change).
    letters: tuple[str, ...]
    #: For every set of options (as bits, :func:`.knowledge_board.symbol_mask`), the
    #: opponent markers (positions in :data:`MARKERS`) showing one of them: colour or letter.
    showing: Mapping[int, tuple[int, ...]]
    #: What :func:`assign` reads on every card, read once a game: the variant is the basic
    #: game; the board's length; for every space, the steps after which a marker leaving it
    #: has entered the finish (:data:`_NEVER` from the finish itself: starting there does not
    #: count).
    basic: bool
    length: int
    to_finish: tuple[int, ...]


#: More steps than any move takes: a marker starting on the finish never crosses it.
_NEVER = 1 << 30


def _game(
    variant: str, seed: int, board: Board, harder_start: bool, cards: tuple[QuizCard, ...],
    letters: tuple[str, ...], card_ids: Mapping[str, int] | None = None,
) -> _Game:  # fmt: skip
    return _Game(
        variant,
        seed,
        board,
        harder_start,
        cards,
        _card_ids(cards) if card_ids is None else card_ids,
        letters,
        _showing(letters),
        variant == "basic",
        board.length,
        _to_finish(board.length, board.finish),
    )


_TO_FINISH: dict[tuple[int, int], tuple[int, ...]] = {}


def _to_finish(length: int, finish: int) -> tuple[int, ...]:
    """:attr:`_Game.to_finish` of a board (shared by the games on boards of its shape)."""
    table = _TO_FINISH.get((length, finish))
    if table is None:
        table = _TO_FINISH[length, finish] = tuple(
            (finish - origin) % length or _NEVER for origin in range(length)
        )
    return table


class _Showing(dict[int, tuple[int, ...]]):
    """:attr:`_Game.showing` for opponents with given front letters: for a set of options
    (as bits), the opponent markers (positions in :data:`MARKERS`) showing one of them,
    worked out the first time it is asked for."""

    __slots__ = ("shows",)

    def __init__(self, letters: tuple[str, ...]) -> None:
        super().__init__()
        self.shows = tuple(
            SYMBOL_BITS[colour] | SYMBOL_BITS[letter]
            for colour, letter in zip(OPPONENTS, letters, strict=True)
        )

    def __missing__(self, mask: int) -> tuple[int, ...]:
        found = self[mask] = tuple(i + 1 for i, shows in enumerate(self.shows) if shows & mask)
        return found


_SHOWING: dict[tuple[str, ...], _Showing] = {}


def _showing(letters: tuple[str, ...]) -> Mapping[int, tuple[int, ...]]:
    """The :class:`_Showing` of these front letters (one of 120 orders), shared by the games."""
    table = _SHOWING.get(letters)
    if table is None:
        table = _SHOWING[letters] = _Showing(letters)
    return table


#: The history as a chain ``(earlier chain, play)``: appending a play is one small tuple,
#: not a copy of the whole history; :attr:`State.history` unrolls it when asked.  A play
#: in the chain is a :class:`Play` or a plain tuple of its fields in order (what
#: :func:`assign` writes, one tuple fewer per card); :attr:`State.history` gives Plays.
_Log = tuple[Any, tuple[Any, ...]] | None


class State(NamedTuple):
    """A Knowledge? game: an immutable value.

    ``cards`` are all the game's cards; ``order`` (indices into ``cards``) is the draw order
    so far, of which the first ``drawn`` have been drawn.  ``round_cards`` are the cards drawn
    this round (replacements included), ``slots`` the card lying at each marker's card slot,
    ``abandoned`` this round's cards that could not be resolved.  ``stacks`` lists, for
    every space holding two or more opponent markers, their colours bottom to top.

    For speed the state is a named tuple (a new one is built in one step) and keeps the
    markers packed, in :data:`MARKERS` order (team first): ``spaces``, ``crossings`` and
    ``flags``; :attr:`team` and :attr:`opponents` build the named markers from them when
    asked.  ``slot_cards`` are the cards at the slots, in the order the markers moved
    (``moved_this_round``); :attr:`slots` pairs them up.  What stays the same for the whole
    game (board, cards, seed, ...) is one shared ``game`` value.
    """

    game: _Game
    order: tuple[int, ...]
    drawn: int
    round: int
    round_cards: tuple[int, ...]
    #: Every marker's space, in :data:`MARKERS` order (team first).
    spaces: tuple[int, ...]
    #: How often each marker has entered or passed the finish, in :data:`MARKERS` order.
    crossings: tuple[int, ...]
    #: Whether each marker shows its finish flag, in :data:`MARKERS` order (the team: never).
    flags: tuple[bool, ...]
    stacks: Mapping[int, tuple[str, ...]]
    moved_this_round: tuple[str, ...]
    slot_cards: tuple[int, ...]
    abandoned: tuple[int, ...]
    replacement: int | None
    triggered_by: str | None
    #: The move records as a chain; read :attr:`history`.
    log: _Log

    # -- the game's constants
    @property
    def variant(self) -> str:
        return self.game.variant

    @property
    def seed(self) -> int:
        return self.game.seed

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def harder_start(self) -> bool:
        return self.game.harder_start

    @property
    def cards(self) -> tuple[QuizCard, ...]:
        return self.game.cards

    @property
    def card_ids(self) -> Mapping[str, int]:
        """card id -> index into ``cards`` (shared by every state of a game)."""
        return self.game.card_ids

    # -- the named views
    @property
    def team(self) -> TeamMarker:
        return TeamMarker(self.spaces[0], self.crossings[0])

    @property
    def opponents(self) -> tuple[OpponentMarker, ...]:
        spaces, crossings, flags, letters = self.spaces, self.crossings, self.flags, self.game.letters
        return tuple(
            OpponentMarker(colour, letters[i], spaces[i + 1], crossings[i + 1], flags[i + 1])
            for i, colour in enumerate(OPPONENTS)
        )

    @property
    def slots(self) -> Mapping[str, int]:
        return MappingProxyType(dict(zip(self.moved_this_round, self.slot_cards, strict=True)))

    @property
    def history(self) -> tuple[Play, ...]:
        """Every card played so far, oldest first (the move records)."""
        plays: list[Play] = []
        log = self.log
        while log is not None:
            log, play = log
            plays.append(play if type(play) is Play else _tuple_new(Play, play))
        plays.reverse()
        return tuple(plays)

    # -- a value: equal when every part is (the history compared as plays, not as a chain,
    # which could be deeper than Python compares)
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self[:-1] == other[:-1] and self.history == other.history

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return f"State(variant={self.variant!r}, seed={self.seed}, round={self.round}, spaces={self.spaces})"

    def opponent(self, colour: str) -> OpponentMarker:
        return self.opponents[OPPONENTS.index(colour)]

    def space_of(self, marker: str) -> int:
        return self.spaces[_MARKER_INDEX[marker]]

    def crossings_of(self, marker: str) -> int:
        return self.crossings[_MARKER_INDEX[marker]]

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data (``docs/replay.md``, Knowledge?, State)."""
        ids = [card.id for card in self.cards]
        slots = self.slots
        return {
            "game": GAME,
            "variant": self.variant,
            "seed": self.seed,
            "board": self.board.to_dict(),
            "harder_start": self.harder_start,
            "cards": [card.to_dict() for card in self.cards],
            "order": [ids[index] for index in self.order],
            "drawn": self.drawn,
            "round": self.round,
            "round_cards": [ids[index] for index in self.round_cards],
            "slots": {marker: ids[slots[marker]] for marker in MARKERS if marker in slots},
            "abandoned": [ids[index] for index in self.abandoned],
            "replacement": None if self.replacement is None else ids[self.replacement],
            "markers": self.markers_dict(),
            "stacks": self.stacks_dict(),
            "moved_this_round": list(self.moved_this_round),
            "triggered_by": self.triggered_by,
            "history": [play.to_dict() for play in self.history],
            "terminal": is_terminal(self),
            "outcome": _result_word(self),
            "result": outcome(self),
        }

    def markers_dict(self) -> dict[str, dict[str, Any]]:
        """``markers`` as replay.md has it: the team's space and crossings; each opponent's
        space, crossings, flag (back side up) and front letter."""
        markers: dict[str, dict[str, Any]] = {
            TEAM: {"space": self.team.space, "crossings": self.team.crossings}
        }
        for marker in self.opponents:
            markers[marker.colour] = {
                "space": marker.space,
                "crossings": marker.crossings,
                "flag": marker.flag,
                "letter": marker.letter,
            }
        return markers

    def stacks_dict(self) -> dict[str, list[str]]:
        """``stacks`` as replay.md has it: space (a string) -> colours, bottom to top."""
        return {str(space): list(self.stacks[space]) for space in sorted(self.stacks)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Read a state written by :meth:`to_dict` (``ValueError`` if it is not one)."""
        try:
            return _state_from_data(data)
        except (KeyError, TypeError, AttributeError, IndexError, InvalidSetup) as error:
            raise ValueError(f"Not a Knowledge? state: {error}") from error


def _answer_json(answer: Answer) -> int | list[str]:
    return answer if isinstance(answer, int) else list(answer)


def _answer_value(raw: Any) -> Answer:
    return int(raw) if isinstance(raw, int) else tuple(str(item) for item in raw)


def _state_from_data(data: Mapping[str, Any]) -> State:
    if data.get("game") != GAME:
        raise ValueError(f"Not a Knowledge? state: game is {data.get('game')!r}.")
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"Not a Knowledge? state: unknown variant {variant!r}.")
    cards = _parse_cards(data["cards"])
    index = {card.id: i for i, card in enumerate(cards)}
    markers = data["markers"]
    moved = tuple(data["moved_this_round"])
    slots = data["slots"]
    for marker in moved:
        if marker not in MARKERS or marker not in slots:
            raise ValueError(f"Not a Knowledge? state: {marker!r} moved without a card in its slot.")
    if set(slots) != set(moved):
        raise ValueError("Not a Knowledge? state: a card lies at the slot of a marker that has not moved.")
    replacement = data["replacement"]
    history: _Log = None
    for play in data["history"]:
        history = (history, Play.from_dict(play))
    game = _game(
        variant,
        int(data["seed"]),
        board_from_dict(data["board"]),
        bool(data["harder_start"]),
        cards,
        tuple(str(markers[colour]["letter"]) for colour in OPPONENTS),
        MappingProxyType(index),
    )
    state = State(
        game,
        tuple(index[card_id] for card_id in data["order"]),
        int(data["drawn"]),
        int(data["round"]),
        tuple(index[card_id] for card_id in data["round_cards"]),
        tuple(int(markers[marker]["space"]) for marker in MARKERS),
        tuple(int(markers[marker]["crossings"]) for marker in MARKERS),
        (False, *(bool(markers[colour]["flag"]) for colour in OPPONENTS)),
        MappingProxyType({int(space): tuple(colours) for space, colours in data["stacks"].items()}),
        moved,
        tuple(index[slots[marker]] for marker in moved),
        tuple(index[card_id] for card_id in data["abandoned"]),
        None if replacement is None else index[replacement],
        data["triggered_by"],
        history,
    )
    _check_consistent(state)
    return state


def _check_consistent(state: State) -> None:
    """Stacks and marker spaces must tell the same story."""
    if not all(0 <= state.space_of(marker) < state.board.length for marker in MARKERS):
        raise ValueError("Not a Knowledge? state: a marker is off the board.")
    for space in range(state.board.length):
        here = sorted(m.colour for m in state.opponents if m.space == space)
        stack = state.stacks.get(space)
        if len(here) >= 2 and (stack is None or sorted(stack) != here):
            raise ValueError(f"Not a Knowledge? state: the stack on space {space} does not list {here}.")
        if len(here) < 2 and stack is not None:
            raise ValueError(f"Not a Knowledge? state: space {space} holds no stack.")
    for marker in state.moved_this_round:
        if marker not in MARKERS or marker not in state.slots:
            raise ValueError(f"Not a Knowledge? state: {marker!r} moved without a card in its slot.")


def state_from_dict(data: Mapping[str, Any]) -> State:
    """The state a :meth:`State.to_dict` wrote.

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> state_from_dict(state.to_dict()) == state
    True
    """
    return State.from_dict(data)


# --- setup ---------------------------------------------------------------------------------


def _parse_answer(category: str, raw: Any, *, what: str) -> Answer:
    """An answer (or a guess) in canonical form: an int for number cards, the options in
    A-E / red-white order for letter and colour cards."""
    if category == "number":
        if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= MAX_NUMBER:
            raise ValueError(
                f"{what} of a number card is a whole number from 0 to {MAX_NUMBER}, not {raw!r}."
            )
        return raw
    allowed = LETTERS if category == "letter" else COLOURS
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not items:
        raise ValueError(f"{what} of a {category} card is one or more of {', '.join(allowed)}, not {raw!r}.")
    found: set[str] = set()
    for item in items:
        value = item.upper() if category == "letter" and isinstance(item, str) else item
        value = value.lower() if category == "colour" and isinstance(value, str) else value
        if value not in allowed:
            raise ValueError(
                f"{what} of a {category} card is one or more of {', '.join(allowed)}, not {item!r}."
            )
        found.add(value)
    return tuple(option for option in allowed if option in found)


def _parse_card(position: int, raw: Any) -> QuizCard:
    if not isinstance(raw, Mapping):
        raise InvalidSetup(f"Card {position} must be an object with id, category and answer.")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id:
        raise InvalidSetup(f"Card {position} needs a non-empty string 'id'.")
    unknown = sorted(set(raw) - _CARD_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Card {card_id!r}: unknown field(s) {', '.join(unknown)}; a card has id, category, answer, "
            "front and back."
        )
    category = raw.get("category")
    if category not in CATEGORIES:
        raise InvalidSetup(
            f"Card {card_id!r}: the category must be number, letter or colour, not {category!r}."
        )
    try:
        answer = _parse_answer(category, raw.get("answer"), what="The answer")
    except ValueError as error:
        raise InvalidSetup(f"Card {card_id!r}: {error}") from None
    texts: dict[str, str | None] = {}
    for side in ("front", "back"):
        text = raw.get(side)
        if text is not None and (not isinstance(text, str) or len(text) > MAX_TEXT):
            raise InvalidSetup(f"Card {card_id!r}: {side!r} must be a text of at most {MAX_TEXT} characters.")
        texts[side] = text
    return QuizCard(id=card_id, category=category, answer=answer, front=texts["front"], back=texts["back"])


def _parse_cards(raw: Any) -> tuple[QuizCard, ...]:
    if not isinstance(raw, list | tuple) or len(raw) < CARDS_PER_ROUND:
        raise InvalidSetup(
            f"'cards' must be a list of at least {CARDS_PER_ROUND} quiz cards (one round), in draw order."
        )
    cards = tuple(_parse_card(position, card) for position, card in enumerate(raw))
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise InvalidSetup(f"Two cards have the id {card.id!r}; card ids must be different.")
        seen.add(card.id)
    return cards


def _parse_opponents(raw: Any, board: Board) -> tuple[tuple[OpponentMarker, ...], list[str]]:
    """Explicit opponents: all five, each colour and letter once; list order = bottom to top."""
    if not isinstance(raw, list) or len(raw) != len(OPPONENTS):
        raise InvalidSetup(
            "'opponents' must list all five opponent markers: white, green, yellow, blue, red."
        )
    placed: dict[str, OpponentMarker] = {}
    letters: set[str] = set()
    for entry in raw:
        if not isinstance(entry, Mapping) or set(entry) != {"colour", "letter", "space"}:
            raise InvalidSetup("Each opponent is {'colour': ..., 'letter': ..., 'space': ...}.")
        colour, letter, space = entry["colour"], entry["letter"], entry["space"]
        if colour not in OPPONENTS or colour in placed:
            raise InvalidSetup(
                f"Opponent colour {colour!r}: the five opponents are white, green, yellow, blue and red, "
                "each once."
            )
        if letter not in LETTERS or letter in letters:
            raise InvalidSetup(f"Opponent {colour}: the front letters are A-E, each once; not {letter!r}.")
        if isinstance(space, bool) or not isinstance(space, int) or not 0 <= space < board.length:
            raise InvalidSetup(f"Opponent {colour}: 'space' must be a space from 0 to {board.length - 1}.")
        placed[colour] = OpponentMarker(colour=colour, letter=letter, space=space)
        letters.add(letter)
    return tuple(placed[colour] for colour in OPPONENTS), [entry["colour"] for entry in raw]


def _place_opponents(board: Board, seed: int, *, hard: bool) -> tuple[tuple[OpponentMarker, ...], list[str]]:
    """Setup: "Place the 5 opponent markers front side up, starting at the marked space (2):
    place them in random order on this space and on the next 4 spaces behind it"."""
    spaces = board.start_spaces(hard=hard)
    order = list(OPPONENTS)
    rng_for(seed, "opponents").shuffle(order)
    letters = list(LETTERS)
    rng_for(seed, "letters").shuffle(letters)
    front = dict(zip(OPPONENTS, letters, strict=True))
    where = dict(zip(order, spaces, strict=True))
    markers = tuple(OpponentMarker(colour=c, letter=front[c], space=where[c]) for c in OPPONENTS)
    return markers, order


def _stacks_from(
    opponents: Iterable[OpponentMarker], bottom_to_top: list[str]
) -> Mapping[int, tuple[str, ...]]:
    spaces = {m.colour: m.space for m in opponents}
    piles: dict[int, list[str]] = {}
    for colour in bottom_to_top:
        piles.setdefault(spaces[colour], []).append(colour)
    return MappingProxyType({space: tuple(pile) for space, pile in piles.items() if len(pile) >= 2})


def _parse_players(raw: Any) -> None:
    """``players`` (the session's team members, ``[{"id", "name"}, ...]``) is recorded with
    the setup for the log; the game is cooperative, so it changes nothing in the rules."""
    if not isinstance(raw, list) or not all(
        isinstance(entry, str) or (isinstance(entry, Mapping) and isinstance(entry.get("id"), str))
        for entry in raw
    ):
        raise InvalidSetup("'players' must be a list of team members: {'id': ..., 'name': ...}.")


def new_game(setup: Mapping[str, Any], *, seed: int, variant: str) -> State:
    """Set up the board, place the markers and prepare round 1 (draw 6 cards).

    The ``cards`` are required: they are the question pool's cards in draw order (a
    session draws them from the pool the teacher chose; a test names them).

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> state.round, state.team.space, len(state.round_cards), sorted(m.space for m in state.opponents)
    (1, 0, 6, [3, 4, 5, 6, 7])
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; Knowledge? has {', '.join(VARIANTS)}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup("The seed must be an integer.")
    if not isinstance(setup, Mapping):
        raise InvalidSetup("The setup must be an object with at least the 'cards' in draw order.")
    unknown = sorted(set(setup) - _SETUP_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown setup field(s) {', '.join(unknown)}; "
            f"Knowledge? reads {', '.join(sorted(_SETUP_FIELDS))}."
        )
    if setup.get("players") is not None:
        _parse_players(setup["players"])
    board = default_board() if setup.get("board") is None else board_from_dict(setup["board"])
    harder_start = setup.get("harder_start", False)
    if not isinstance(harder_start, bool):
        raise InvalidSetup("'harder_start' must be true or false.")
    opponents = None if setup.get("opponents") is None else _parse_opponents(setup["opponents"], board)
    team_space = setup.get("team_space", board.finish)
    if isinstance(team_space, bool) or not isinstance(team_space, int) or not 0 <= team_space < board.length:
        raise InvalidSetup(
            f"'team_space' must be a space from 0 to {board.length - 1} (default: the finish)."
        )
    if setup.get("cards") is None:
        raise InvalidSetup(
            "The setup has no 'cards': give the question pool's cards in draw order "
            f"(at least {CARDS_PER_ROUND}, one round)."
        )
    return deal(
        board,
        _parse_cards(setup["cards"]),
        seed=seed,
        variant=variant,
        harder_start=harder_start,
        opponents=opponents,
        team_space=team_space,
    )


def cards_from(raw: Any) -> tuple[QuizCard, ...]:
    """Check quiz cards written as data (``setup["cards"]``) once, for :func:`deal`.

    >>> [card.answer for card in cards_from(_example_setup()["cards"])][:3]
    [3, ('C', 'D'), ('blue',)]
    """
    return _parse_cards(raw)


def deal(
    board: Board,
    cards: tuple[QuizCard, ...],
    *,
    seed: int,
    variant: str = "basic",
    harder_start: bool = False,
    opponents: tuple[tuple[OpponentMarker, ...], list[str]] | None = None,
    team_space: int | None = None,
) -> State:
    """Setup from a checked board and checked cards (:func:`board_from_dict`,
    :func:`cards_from`): what :func:`new_game` does after reading the setup, and what the
    balance simulator calls thousands of times with the same board and cards.

    >>> board, cards = default_board(), cards_from(_example_setup()["cards"])
    >>> deal(board, cards, seed=1) == new_game(_example_setup(), seed=1, variant="basic")
    True
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; Knowledge? has {', '.join(VARIANTS)}.")
    if len(cards) < CARDS_PER_ROUND:
        raise InvalidSetup(f"A game needs at least {CARDS_PER_ROUND} cards (one round).")
    if harder_start and board.opponent_start_hard is None:
        raise InvalidSetup("'harder_start' needs a board with an 'opponent_start_hard' space.")
    markers, bottom_to_top = opponents or _place_opponents(board, seed, hard=harder_start)
    game = _game(variant, seed, board, harder_start, cards, tuple(m.letter for m in markers))
    state = State(
        game,
        tuple(range(len(cards))),
        0,
        0,
        (),
        (board.finish if team_space is None else team_space, *(m.space for m in markers)),
        (0,) * len(MARKERS),
        (False,) * len(MARKERS),
        _stacks_from(markers, bottom_to_top),
        (),
        (),
        (),
        None,
        None,
        None,
    )
    return _prepare_round(state)


def _card_ids(cards: tuple[QuizCard, ...]) -> Mapping[str, int]:
    return _CardIds(cards)


class _CardIds(Mapping[str, int]):
    """card id -> index into ``cards``, read-only, worked out the first time it is read (a
    simulated game never reads it: it names cards by index)."""

    __slots__ = ("_cards", "_ids")

    def __init__(self, cards: tuple[QuizCard, ...]) -> None:
        self._cards = cards
        self._ids: dict[str, int] | None = None

    def _built(self) -> dict[str, int]:
        ids = self._ids
        if ids is None:
            ids = self._ids = {card.id: index for index, card in enumerate(self._cards)}
        return ids

    def __getitem__(self, card_id: str) -> int:
        return self._built()[card_id]

    def get(self, card_id: str, default: Any = None) -> Any:
        return self._built().get(card_id, default)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._built()

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._cards)

    def __repr__(self) -> str:
        return f"_CardIds({self._built()!r})"


#: Builds a named tuple (Movement, Play, State) from its items without the keyword checks of
#: its generated __new__: the hot path knows the fields are in order.
_tuple_new = tuple.__new__


def _evolve(state: State, **changes: Any) -> State:
    """A copy of ``state`` with some parts changed, by name: for the rare steps (drawing a
    replacement, an abandoned card); :func:`assign` builds its state in one step."""
    return state._replace(**changes)


def _draw(state: State) -> tuple[State, int] | None:
    """Draw the next card of the order; when it runs out, the cards set aside (every card not
    in this round) are shuffled into it."""
    order = state.order
    if state.drawn == len(order):
        in_play = set(state.round_cards)
        rest = [index for index in range(len(state.cards)) if index not in in_play]
        if not rest:
            return None
        rng_for(state.seed, "reshuffle", len(order)).shuffle(rest)
        order = (*order, *rest)
    index = order[state.drawn]
    drawn = _evolve(state, order=order, drawn=state.drawn + 1, round_cards=(*state.round_cards, index))
    return drawn, index


def _prepare_round(state: State) -> State:
    """1: Prepare the Round: "Draw 6 random cards from the box"; the card slots are empty."""
    drawn, order = state.drawn, state.order
    if drawn + CARDS_PER_ROUND > len(order):
        # The order runs out: the cards left in it are drawn first, then the cards set aside
        # (every card but those) are shuffled in, as players would refill the box (_draw).
        left = set(order[drawn:])
        rest = [index for index in range(len(state.cards)) if index not in left]
        rng_for(state.seed, "reshuffle", len(order)).shuffle(rest)
        order = (*order, *rest)
    return _tuple_new(State, (
        state.game, order, drawn + CARDS_PER_ROUND, state.round + 1,
        order[drawn : drawn + CARDS_PER_ROUND], state.spaces, state.crossings, state.flags,
        state.stacks, (), (), (), None, state.triggered_by, state.log,
    ))  # fmt: skip


# --- reading the board ------------------------------------------------------------------------


def progress(state: State, marker: str) -> int:
    """How far ``marker`` has come: crossings x board length + spaces beyond the finish
    (README, Knowledge?: "Furthest ahead compares progress").

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> progress(state, "team"), sorted(progress(state, c) for c in OPPONENTS)
    (0, [3, 4, 5, 6, 7])
    """
    return state.crossings_of(marker) * state.board.length + state.board.past_finish(state.space_of(marker))


_MARKER_INDEX: Mapping[str, int] = MappingProxyType({marker: i for i, marker in enumerate(MARKERS)})
#: The same as a plain dict, for :func:`assign` (quicker to read than the read-only view).
_WHO: dict[str, int] = dict(_MARKER_INDEX)
#: The opponents' positions in :data:`MARKERS` (1 to 5).
_OPPONENT_NUMBERS: tuple[int, ...] = tuple(range(1, len(MARKERS)))
#: :data:`.knowledge_board.SYMBOL_BITS` as a plain dict (quicker to read than the view).
_BITS: dict[str, int] = dict(SYMBOL_BITS)


def movement(state: State, marker: str, card: QuizCard) -> Movement | None:
    """Where ``card`` sends ``marker`` now; ``None`` when no matching space is visible.

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> movement(state, "team", QuizCard("x", "number", 3))
    Movement(to=3, steps=3, skipped_team=False, matched=None, on_marker=None)
    """
    move = _movement(state.game, state.spaces, state.stacks, _MARKER_INDEX[marker], card)
    return None if move is None else Movement(*move)


def _movement(
    game: _Game, spaces: tuple[int, ...], stacks: Mapping[int, tuple[str, ...]], who: int, card: QuizCard
) -> tuple[Any, ...] | None:
    """:func:`movement` for the marker at position ``who`` of :data:`MARKERS` (0: the team),
    as a plain tuple of the :class:`Movement` fields (the hot path builds no named tuple),
    from the parts of the state it reads (:func:`assign` has them unpacked)."""
    board = game.board
    length = game.length
    origin = spaces[who]
    team_space = spaces[0]
    number = card.number
    if number >= 0:
        # Number cards: "the exact number of spaces ... You may not forgo any steps."
        to = (origin + number) % length
        if who and number and to == team_space:
            # "If an opponent lands on the space of your team marker with its last step, it
            # skips this space and moves on to the next available space."
            return ((to + 1) % length, number + 1, True, None, None)
        return (to, number, False, None, None)
    # Letter / colour cards: "the nearest possible space that shows this letter"; with
    # several options "the nearest available space that matches one of the options".
    # A space shows the top opponent marker on it if there is one (its colour and letter),
    # else what is printed; for an opponent the team's space is unavailable.  The moving
    # marker is taken off first, and never reaches its own space (1 to length - 1 steps).
    wanted = card.mask
    best, best_marker = length, 0
    # 1. The opponent markers showing an option (at most two for a single option; the
    # game's table lists them), if they lie on top and their space is available.
    for other in game.showing[wanted]:
        if other == who:
            continue
        space = spaces[other]
        if who and space == team_space:
            continue
        if stacks and space in stacks:
            pile = stacks[space]
            top = pile[-1] if pile[-1] != MARKERS[who] else pile[-2]
            if top != MARKERS[other]:
                continue
        steps = (space - origin) % length
        if 0 < steps < best:
            best, best_marker = steps, other
    # 2. The nearest printed space showing an option that no marker covers, nearer than
    # that: the board's table gives the next printed match from any space, and only the
    # (at most six) occupied spaces make the walk go on.
    table = board.tables[wanted]
    travelled = table[origin]
    while travelled < best:
        at = (origin + travelled) % length
        if at not in spaces:
            best, best_marker = travelled, 0
            break
        travelled += table[at]
    if best >= length:
        return None
    to = (origin + best) % length
    # "skipping the team marker": the team's space, passed over, would have shown an option.
    skipped_team = False
    if who and 0 < (team_space - origin) % length < best:
        skipped_team = bool(_shown_under_team(game, spaces, stacks, who) & wanted)
    # The option matched: the colour if it is one of the card's, else the letter.
    if best_marker:
        colour = OPPONENTS[best_marker - 1]
        return (
            to,
            best,
            skipped_team,
            colour if _BITS[colour] & wanted else game.letters[best_marker - 1],
            colour,
        )
    printed = board.spaces[to]
    assert printed is not None
    colour = printed.colour
    return (to, best, skipped_team, colour if _BITS[colour] & wanted else printed.letter, None)


def _shown_under_team(
    game: _Game, spaces: tuple[int, ...], stacks: Mapping[int, tuple[str, ...]], without: int
) -> int:
    """What the team's space would show (as bits) were the team marker not on it: the top
    opponent marker there, other than ``without``, else the printed space."""
    team_space = spaces[0]
    pile = stacks.get(team_space)
    if pile is None:
        pile = tuple([MARKERS[i] for i in _OPPONENT_NUMBERS if spaces[i] == team_space])
    for colour in reversed(pile):
        if colour != MARKERS[without]:
            index = OPPONENTS.index(colour)
            return SYMBOL_BITS[colour] | SYMBOL_BITS[game.letters[index]]
    return game.board.masks[team_space]


def is_terminal(state: State) -> bool:
    """Whether the game is over: the end was triggered and the round is complete.

    >>> is_terminal(new_game(_example_setup(), seed=1, variant="basic"))
    False
    """
    return state.triggered_by is not None and len(state.moved_this_round) == CARDS_PER_ROUND


def outcome(state: State) -> dict[str, Any] | None:
    """``None`` while the game runs; then how it ended.

    ``result`` is ``"lost"`` when an opponent that showed its finish flag before crossing the
    finish again is ahead of the team (Game End), else ``"won"``; ``overtaken_by`` lists those
    opponents, furthest first.  ``progress`` holds every marker's progress,
    ``furthest_ahead`` the markers with the most (README: "Furthest ahead compares
    progress"), ``triggered_by`` the marker whose second crossing triggered the end.

    >>> outcome(new_game(_example_setup(), seed=1, variant="basic")) is None
    True
    """
    if not is_terminal(state):
        return None
    # Read from the packed markers (the balance simulator asks once a game): progress().
    board = state.game.board
    length, finish = board.length, board.finish
    spaces, crossings, flags = state.spaces, state.crossings, state.flags
    reached = {
        marker: crossings[i] * length + (spaces[i] - finish) % length for i, marker in enumerate(MARKERS)
    }
    team = reached[TEAM]
    overtaken_by = sorted(
        (
            colour
            for i, colour in enumerate(OPPONENTS, start=1)
            if flags[i] and crossings[i] >= CROSSINGS_TO_END and reached[colour] > team
        ),
        key=lambda colour: (-reached[colour], OPPONENTS.index(colour)),
    )
    best = max(reached.values())
    return {
        "result": "lost" if overtaken_by else "won",
        "progress": reached,
        "overtaken_by": overtaken_by,
        "furthest_ahead": [marker for marker in MARKERS if reached[marker] == best],
        "triggered_by": state.triggered_by,
        "rounds": state.round,
    }


def _result_word(state: State) -> str | None:
    result = outcome(state)
    return None if result is None else str(result["result"])


# --- actions ---------------------------------------------------------------------------------


def _unplayed(state: State) -> list[int]:
    done = set(state.slot_cards) | set(state.abandoned)
    return [index for index in state.round_cards if index not in done]


def _playable(state: State) -> list[int]:
    """The cards that may be assigned now: a replacement first; in the basic game the top
    card of the stack; in the strategic variant any unplayed card of the round."""
    if is_terminal(state):
        return []
    if state.replacement is not None:
        return [state.replacement]
    unplayed = _unplayed(state)
    return unplayed[:1] if state.variant == "basic" else unplayed


def _free_markers(state: State) -> list[str]:
    return [marker for marker in MARKERS if marker not in state.moved_this_round]


def legal_actions(state: State, player: str | None) -> list[dict[str, Any]]:
    """Every ``assign`` allowed now: a playable card to a marker that has not moved this round.

    The optional ``guess`` is not listed.

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> [action["marker"] for action in legal_actions(state, None)]
    ['team', 'white', 'green', 'yellow', 'blue', 'red']
    >>> {action["card"] for action in legal_actions(state, None)}
    {'q1'}
    """
    extra = {} if player is None else {"player": player}
    return [
        {"type": "assign", "card": state.cards[index].id, "marker": marker, **extra}
        for index in _playable(state)
        for marker in _free_markers(state)
    ]


def _acting_player(player: str | None, action: Mapping[str, Any]) -> str | None:
    named = action.get("player")
    if named is not None and not isinstance(named, str):
        raise InvalidAction("The action's 'player' must be a player id.")
    if player is not None and not isinstance(player, str):
        raise InvalidAction("The acting player must be a player id.")
    if player is not None and named is not None and named != player:
        raise InvalidAction(f"The action names player {named!r} but was sent for {player!r}.")
    return player if player is not None else named


def _marker_name(marker: str) -> str:
    return "the team marker" if marker == TEAM else f"the {marker} opponent"


def apply_action(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    """The state after ``player`` assigns a card to a marker; the given state is never changed.

    Raises :class:`InvalidAction` for a malformed action and :class:`IllegalAction` when the
    rules do not allow it now; the message says why.

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> state = apply_action(state, None, {"type": "assign", "card": "q1", "marker": "team", "guess": 2})
    >>> state.team.space, state.moved_this_round, state.history[-1].guess_correct
    (3, ('team',), False)
    """
    if not isinstance(action, Mapping):
        raise InvalidAction("An action must be an object with a 'type'.")
    kind = action.get("type")
    acting = _acting_player(player, action)
    if kind != "assign":
        raise InvalidAction(f"Unknown action type {kind!r}; Knowledge? knows only 'assign'.")
    unknown = sorted(set(action) - _ACTION_FIELDS)
    if unknown:
        raise InvalidAction(
            f"Unknown field(s) {', '.join(unknown)}; an 'assign' has card, marker and optionally guess."
        )
    card_id = action.get("card")
    if not isinstance(card_id, str):
        raise InvalidAction("An 'assign' names the card by its id in 'card'.")
    index = state.card_ids.get(card_id)
    if index is None:
        raise InvalidAction(f"There is no card {card_id!r} in this game.")
    marker = action.get("marker")
    if marker not in MARKERS:
        raise InvalidAction(f"The marker must be one of {', '.join(MARKERS)}, not {marker!r}.")
    card = state.cards[index]
    guess: Answer | None = None
    if action.get("guess") is not None:
        try:
            guess = _parse_answer(card.category, action["guess"], what="A guess")
        except ValueError as error:
            raise InvalidAction(str(error)) from None
    _check_assign(state, index, marker)
    return assign(state, index, marker, player=acting, guess=guess)


def assign(
    state: State, card: int, marker: str, *, player: str | None = None, guess: Answer | None = None
) -> State:
    """Assign ``state.cards[card]`` to ``marker``: :func:`apply_action` without reading an
    action object, for simulators (same rules, same errors, a new state).

    >>> state = new_game(_example_setup(), seed=1, variant="basic")
    >>> action = {"type": "assign", "card": "q1", "marker": "team"}
    >>> assign(state, 0, "team") == apply_action(state, None, action)
    True
    """
    # The state unpacked in one step: the speed of a simulated game is made here.
    (
        game, order, drawn, round_, round_cards, spaces, crossings, flags, stacks, moved,
        slot_cards, abandoned, replacement, triggered_by, log,
    ) = state  # fmt: skip
    who = _WHO.get(marker)
    if who is None:
        raise InvalidAction(f"Assign one of the game's cards to one of {', '.join(MARKERS)}.")
    # The common case answered in a few comparisons (a card found among the round's cards is
    # one of the game's); anything else goes to _check_assign, which finds the rule broken
    # and says which.
    if replacement is not None:
        fine = card == replacement
    elif game.basic:
        # Only while nothing was abandoned this round is the top card the one at len(moved):
        # a replacement played since lies among the round's cards (_check_assign decides).
        played = len(moved)
        fine = not abandoned and played < len(round_cards) and round_cards[played] == card
    else:
        fine = card in round_cards and card not in slot_cards and card not in abandoned
    if not fine or marker in moved or (triggered_by is not None and len(moved) == CARDS_PER_ROUND):
        if not 0 <= card < len(game.cards):
            raise InvalidAction(f"Assign one of the game's cards to one of {', '.join(MARKERS)}.")
        _check_assign(state, card, marker)  # raises, saying why
    # Reading and Resolving a Card: place it at the marker's card slot, turn it over, move.
    # The next state is built in one step (markers, stacks, slot, history, and the next
    # round after the sixth card), so only the marker that moves is touched and the records
    # are built without keyword checks.
    quiz = game.cards[card]
    length = game.length
    origin = spaces[who]
    steps = quiz.number
    if steps >= 0:
        # A number card (_movement's first case, inline): "the exact number of spaces".
        to = (origin + steps) % length
        if who and steps and to == spaces[0]:
            to, steps, skipped_team = (to + 1) % length, steps + 1, True
        else:
            skipped_team = False
        matched = on_marker = None
    else:
        move = _movement(game, spaces, stacks, who, quiz)
        if move is None:
            record = Play(
                round_, quiz.id, quiz.category, quiz.answer, marker, player, guess,
                _guess_correct(quiz, guess), ABANDONED, origin, origin, 0,
            )  # fmt: skip
            return _abandon(state, card, marker, record)
        to, steps, skipped_team, matched, on_marker = move
    # Entering the finish counts, starting on it does not: it lies 1..steps ahead.
    crossed = steps >= game.to_finish[origin]
    from_stack = flag_turned = False
    onto: tuple[str, ...] = ()
    if steps:
        if who:
            # "If the opponent marker you want to move lies below other markers, take it from
            # the stack"; landing where others are, "place it on top of the stack".
            if not stacks:
                # The common case, single markers only (_restack's first case, inline).
                if to in spaces:
                    colour = MARKERS[spaces.index(to)]
                    stacks, onto = MappingProxyType({to: (colour, marker)}), (colour,)
            else:
                stacks, from_stack, onto = _restack(stacks, spaces, who, origin, to)
            # "enters or passes the finish space for the first time, you immediately turn its
            # marker over to its back side (the side with the finish flag)".
            if crossed and not flags[who]:
                flag_turned = True
                changed = list(flags)
                changed[who] = True
                flags = tuple(changed)
        elif to in stacks:
            onto = stacks[to]
        elif to in spaces:
            # The team lies on top of whatever is there: outside a stack, one opponent.
            onto = (MARKERS[spaces.index(to)],)
        # One item of a small tuple changed: a list copy is the quickest way in CPython.
        moved_to = list(spaces)
        moved_to[who] = to
        spaces = tuple(moved_to)
        if crossed:
            counted = list(crossings)
            counted[who] += 1
            crossings = tuple(counted)
            if counted[who] == CROSSINGS_TO_END and triggered_by is None:
                triggered_by = marker
    # The move record as the plain tuple of the Play's fields (State.history makes it a
    # Play when asked); the state is built by tuple.__new__, without keyword checks.
    log = (log, (
        round_, quiz.id, quiz.category, quiz.answer, marker, player, guess,
        None if guess is None else _guess_correct(quiz, guess), MOVED, origin, to, steps, crossed,
        skipped_team, matched, on_marker, from_stack, onto, flag_turned,
    ))  # fmt: skip
    moved += (marker,)
    if abandoned:
        abandoned = tuple(i for i in abandoned if i != card)
    if len(moved) < CARDS_PER_ROUND or triggered_by is not None:
        # The game is over once the round that triggered the end is complete.
        return _tuple_new(State, (
            game, order, drawn, round_, round_cards, spaces, crossings, flags, stacks, moved,
            slot_cards + (card,), abandoned, None, triggered_by, log,
        ))  # fmt: skip
    # 3: Complete the Round, then 1: Prepare the next (_prepare_round, in the same step).
    if drawn + CARDS_PER_ROUND > len(order):
        return _prepare_round(_tuple_new(State, (
            game, order, drawn, round_, round_cards, spaces, crossings, flags, stacks, moved,
            slot_cards + (card,), abandoned, None, triggered_by, log,
        )))  # fmt: skip
    return _tuple_new(State, (
        game, order, drawn + CARDS_PER_ROUND, round_ + 1, order[drawn : drawn + CARDS_PER_ROUND],
        spaces, crossings, flags, stacks, (), (), (), None, triggered_by, log,
    ))  # fmt: skip


def _check_assign(state: State, index: int, marker: str) -> None:
    card_id = state.cards[index].id
    if is_terminal(state):
        raise IllegalAction("The game is over.")
    if index not in state.round_cards:
        raise IllegalAction(f"Card {card_id!r} is not one of the cards of round {state.round}.")
    if index in state.slot_cards or index in state.abandoned:
        raise IllegalAction(f"Card {card_id!r} has already been played this round.")
    if state.replacement is not None and index != state.replacement:
        replacement = state.cards[state.replacement].id
        raise IllegalAction(
            f"The replacement card {replacement!r} must be played next "
            "(the card before it could not be resolved)."
        )
    if index not in _playable(state):
        top = state.cards[_playable(state)[0]].id
        raise IllegalAction(
            f"In the basic game the cards are played from the top of the stack; the next card is {top!r}."
        )
    if marker in state.moved_this_round:
        free = ", ".join(_free_markers(state))
        raise IllegalAction(
            f"{_marker_name(marker).capitalize()} has already moved this round; "
            f"each marker moves exactly once (still free: {free})."
        )


def _guess_correct(card: QuizCard, guess: Answer | None) -> bool | None:
    if guess is None:
        return None
    if isinstance(card.answer, int) or isinstance(guess, int):
        return guess == card.answer
    return set(guess) <= set(card.answer)


def _restack(
    stacks: Mapping[int, tuple[str, ...]], spaces: tuple[int, ...], who: int, origin: int, to: int
) -> tuple[Mapping[int, tuple[str, ...]], bool, tuple[str, ...]]:
    """The stacks after opponent ``who`` leaves ``origin`` alone and lies on top at ``to``
    (``stacks`` and ``spaces`` as before the move); whether it came from under other
    markers, and what it now lies on (bottom to top)."""
    marker = MARKERS[who]
    if not stacks:
        # The common case: single markers only.  An opponent never lands on the team's
        # space and ``to`` is not its own, so any marker found there is one opponent.
        if to in spaces:
            colour = MARKERS[spaces.index(to)]
            return MappingProxyType({to: (colour, marker)}), False, (colour,)
        return stacks, False, ()
    pile = stacks.get(origin)
    below = stacks.get(to)
    if below is None:
        # Not a stack: at most one opponent lies there (never the team, never the mover).
        below = (MARKERS[spaces.index(to)],) if to in spaces else ()
        if pile is None and not below:
            # Neither space holds a stack, nor will: the stacks stay as they are.
            return stacks, False, ()
    # A copy of the dict under the read-only view (dict() would read it key by key).
    changed = stacks.copy() if isinstance(stacks, MappingProxyType) else dict(stacks)
    from_stack = False
    if pile is not None:
        from_stack = pile[-1] != marker
        at = pile.index(marker)
        rest = pile[:at] + pile[at + 1 :]
        if len(rest) >= 2:
            changed[origin] = rest
        else:
            del changed[origin]
    if below:
        changed[to] = (*below, marker)
    return MappingProxyType(changed), from_stack, below


def _abandon(state: State, index: int, marker: str, record: Play) -> State:
    """Very unlikely case: "abandon the movement. Take a replacement card from the box and
    play it instead. You may again freely choose which marker to assign this card to.\""""
    state = _evolve(state, abandoned=(*state.abandoned, index), replacement=None)
    drawn = _draw(state)
    if drawn is None:
        # No card left to replace it: the marker stays where it is and has had its turn.
        return _slot(state, index, marker, record._replace(movement=STAYS))
    state, replacement = drawn
    return _evolve(state, replacement=replacement, log=(state.log, record))


def _slot(state: State, index: int, marker: str, record: Play) -> State:
    """The card lies at the marker's slot; after the sixth, 3: Complete the Round."""
    state = _evolve(
        state,
        moved_this_round=(*state.moved_this_round, marker),
        slot_cards=(*state.slot_cards, index),
        replacement=None,
        abandoned=tuple(i for i in state.abandoned if i != index),
        log=(state.log, record),
    )
    if len(state.moved_this_round) < CARDS_PER_ROUND or state.triggered_by is not None:
        return state
    return _prepare_round(state)


# --- what a player sees ----------------------------------------------------------------------


def player_view(state: State, player: str | None) -> dict[str, Any]:
    """What the team's screens show (Knowledge? is cooperative and open: the same for all).

    Everything on the board is shown; of the cards, a card's back and answer only once it
    has been assigned: the basic game shows the next card of the stack (``to_assign``: its id,
    category and front), the strategic variant the fronts of all the round's unplayed cards.

    >>> view = player_view(new_game(_example_setup(), seed=1, variant="basic"), "ala")
    >>> view["to_assign"]
    [{'id': 'q1', 'category': 'number', 'front': 'How many?'}]
    """
    markers = state.markers_dict()
    for marker in MARKERS:
        markers[marker]["progress"] = progress(state, marker)
    if state.replacement is not None or state.variant == "basic":
        shown = _playable(state)
    else:
        shown = [] if is_terminal(state) else _unplayed(state)
    return {
        "game": GAME,
        "variant": state.variant,
        "you": player,
        "round": state.round,
        "board": state.board.to_dict(),
        "markers": markers,
        "stacks": state.stacks_dict(),
        "moved_this_round": list(state.moved_this_round),
        "free_markers": _free_markers(state),
        "slots": {marker: state.cards[index].to_dict() for marker, index in state.slots.items()},
        "abandoned": [state.cards[index].to_dict() for index in state.abandoned],
        "to_assign": [state.cards[index].front_dict() for index in shown],
        "replacement": None if state.replacement is None else state.cards[state.replacement].id,
        "cards_in_stack": len(_unplayed(state)),
        "history": [play.to_dict() for play in state.history],
        "triggered_by": state.triggered_by,
        "legal_actions": legal_actions(state, player),
        "terminal": is_terminal(state),
        "outcome": _result_word(state),
        "result": outcome(state),
    }


def _example_setup() -> dict[str, Any]:
    """The default board, the opponents as in the rulebook, seven cards (for the docstrings)."""
    cards: list[dict[str, Any]] = [
        {"id": "q1", "category": "number", "answer": 3, "front": "How many?", "back": "Three."},
        {"id": "q2", "category": "letter", "answer": ["C", "D"]},
        {"id": "q3", "category": "colour", "answer": ["blue"]},
        {"id": "q4", "category": "number", "answer": 0},
        {"id": "q5", "category": "letter", "answer": "E"},
        {"id": "q6", "category": "colour", "answer": ["red", "white"]},
        {"id": "q7", "category": "number", "answer": 5},
    ]
    return {"cards": cards}
