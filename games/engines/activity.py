"""Activity: teams draw, describe or mime terms to move their piece to the red target area.

The rulebook is ``../shared/rules/activity.md`` (English; the Czech original
``activity.cs.md`` decides where the translation is unclear): Setup, Play, Chain, Rhyme,
Final task, Game for 3 players.  Talia's readings are in ``../shared/rules/README.md``
(Activity).  The engine follows the API of :mod:`games.engines.base`; setup, actions and
state are documented in ``docs/replay.md`` (Activity).

Talia cannot judge a drawing or a mime.  The engine is the board, the cards, the
hourglass and the referee's memory; the facilitator (or the representative, who alone
knows the term) records what happened.

Setup::

    {"teams": [{"id": "t1", "name": "Sovy", "players": ["p1", {"id": "p2", "name": "Ema"}]}, ...],
     "players": [{"id": "p1", "name": "Ala"}, ...],
     "cards": [{"id": "c1", "terms": [{"slot": "A", "kind": "term", "text": "kotě", "points": 3},
                                      {"slot": "B", "kind": "chain", "text": "dějepis", "points": null},
                                      ...six slots A-F]}, ...],
     "timer": 60, "reduce_points_by": 0, "facilitator_sees_terms": true,
     "first_team": "t1", "team_count": 2}

Without ``teams``, the ``players`` are split into ``team_count`` teams t1, t2, ... named by
``team_names``; ``seating`` (``{"p1": "t2"}``) keeps the teams players chose in the lobby.

Actions (``player`` is a player id, or ``"facilitator"``; ``None`` is the facilitator too,
as the session layer sends it): ``draw``, ``choose_area {area}``, ``start_timer``,
``guessed {team}``, ``not_guessed``, ``time_up``, ``rule_broken``,
``chain_result {winner_team}``, ``rhyme_result {guessed}``, ``choose_hardest {slot}``,
``pause_timer``, ``resume_timer``, ``join_team {id, name, team}`` (a player who comes late),
``chain_word`` (a new word of the chain: its seconds
run again) and ``undo`` (the facilitator only).  Every action may
carry ``at``: the server's wall clock (seconds since 1970) when it was applied.

Phases: ``ready`` (the representative draws; a finalist first chooses an area) ->
``memorise`` (about 10 s; only the representative sees the term) -> ``presenting`` (the
hourglass runs; an outcome is recorded) -> ``ready`` for the next team.  A chain goes
from ``ready`` to ``chain`` (no hourglass).  The second part of the final task (and the
three-player final task) passes through ``choosing`` before ``memorise``.  ``over`` ends.

Readings where the rulebook is silent or speaks of a table, not a screen:

* Board: field 0 is the start field, fields 1-48 are areas A-F of 8 fields each (A1 = 1,
  F8 = 48), field 49 is the red target area.  A piece on the start field plays area A
  (the README: the start field comes before A1).  Moves stop at the target area: points
  beyond it are lost.  A rule broken moves back 3 fields, never behind the start field;
  from the target area that is F6 (46), and the team has to reach the target again.
* The first team: drawn with ``rng_for(seed, "first_team")`` unless the setup names
  ``first_team`` (a draw made in class).  Then turns pass in the order of ``teams``.
* Representatives: "It picks one of its players as its representative": the team's
  players take the role in the order the setup lists them, one turn each.  In the final
  task, part two is presented by the same representative in the same turn; a final task
  tried again in a later turn has the next representative.
* The stack is the ``cards`` shuffled with ``rng_for(seed, "shuffle")``.  Every card is
  used once ("it does not come back into play").  When a card has to be drawn and the
  stack is empty, the game ends (``stack_exhausted``): the team furthest ahead wins, and
  teams tied in front share the win (``winner`` is ``null``, ``winners`` lists them).
  Reshuffling the discards would bring cards back, which the rulebook forbids.
* Who records: the facilitator, or the representative (the presenter), who alone knows
  the term; ``time_up`` comes only from the session's timer (the facilitator).  The engine
  keeps no clock: ``start_timer`` stores the state version it produced in
  ``timer_started_at`` and the session layer sends ``time_up`` when the hourglass runs out.
* The term (and the card id) is shown only to the presenter while the task runs, and to
  the facilitator when ``facilitator_sees_terms`` (default true: the teacher judges).
  Rhyme: "The first player silently reads the term" and the teammate must find it, so the
  teammate does not see it.  Chain: the drawer "reads the word aloud", so the chain word
  is shown to everyone.  Final task part two: the card is handed to the other teams, so
  their players see it while choosing and see the chosen term afterwards; the finalist
  team's guessers never do.  Three players, final task: the chooser sees the whole card,
  the left neighbour the chosen term, the third player nothing.  A term's text never
  appears in ``history`` or in any view once its task is over.
* The hourglass on every screen: the engine keeps no clock of its own, but the session's
  server stamps actions with ``at`` and the engine keeps them in ``hourglass``: when the
  card was drawn (``memorise_from``: the representative's ~10 s start), when the hourglass
  was turned or resumed (``started_at``) and the seconds ``left`` then.  Every screen counts
  down from the same numbers.  ``pause_timer`` (not in the rulebook: the table lays the
  hourglass on its side) keeps the seconds left; ``resume_timer`` turns it again.  An
  outcome may be recorded while it is paused.  Without ``at`` (a hand-written log) the
  hourglass has no clock and the views show none.
* ``undo`` (the referee's memory, not in the rulebook): the facilitator takes back the last
  outcome recorded by mistake.  The pieces, the turn, the representative and the card in
  play are as before it, and the hourglass stands paused with the seconds it had left when
  the outcome came.  Only the last outcome, only until the next action (a drawn card has
  been seen), and never the outcome that ended the game.
* The representative keeps seeing the term after the ~10 s of memorising (it is in their
  head; the card only goes face down).
* Open game: a term worth 6 (teams variant) may be guessed by any team; ``guessed`` names
  the team that guessed first.  Without ``team``, the presenting team is meant.  The
  first part of the final task is open whatever the term's points.
* Chain: the teams (their representatives) add words in turn order starting with the
  drawing team; ``chain_result`` names the team of the last valid word, or ``null`` when
  the drawer could not start the chain (nobody moves).  No hourglass; no rule to break.
* Rhyme: the partner is any teammate (the engine does not need to know who); the hourglass
  runs as for a term.  Rhymes and chains may stand in any area; their form replaces the
  area's form.
* Final task, part one: ``choose_area`` and then ``draw``; cards whose chosen area shows a
  chain or rhyme are put aside at once and the next card is drawn (``skipped``).  Part
  two: the same representative draws; a card without any plain term is put aside the same
  way; the other teams (any of their players, or the facilitator) choose a plain term with
  ``choose_hardest``; its letter gives the form.  Only the finalist team may guess it.  A
  rule broken in either part moves the finalist back 3 fields and ends the turn.
* Three players: every player is a team of one; "only the open game": both other players
  may guess, and the presenter and the guesser both move by the term's points.  The
  left-hand neighbour of a player is the next in turn order; the rhyme partner is the
  left neighbour (both move 5).  Chain: as for teams, the last valid word moves 4.  Final
  task: in the finalist's next turn the finalist draws (a card without any plain term is
  put aside), chooses the hardest term, the left neighbour presents it and only the third
  player guesses; guessed: both move by the points and play goes on; not guessed (time up,
  ``not_guessed``, or a rule broken by the presenter, who also moves back 3): the chooser
  wins.
* ``reduce_points_by`` (three players, 0 or 2): "the number of fields moved after a guess"
  is reduced by 2, so terms move 1-4 and a rhyme 3; the chain (+4, not a guess) and a
  broken rule (-3) stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .base import IllegalAction, InvalidAction, InvalidSetup, rng_for

__all__ = [
    "GAME",
    "VARIANTS",
    "ActivityCard",
    "ActivityTerm",
    "Event",
    "Move",
    "Outcome",
    "Player",
    "State",
    "Task",
    "Team",
    "apply_action",
    "cards_needed",
    "field_label",
    "is_terminal",
    "legal_actions",
    "new_game",
    "outcome",
    "play_area",
    "player_view",
    "sees_term",
    "state_from_dict",
]

GAME: str = "activity"
VARIANTS: tuple[str, ...] = ("teams", "three_players")

#: The acting "player" of the table: the teacher who runs the game.
FACILITATOR = "facilitator"

#: The board: start field, areas A-F of 8 fields each, then the red target area.
AREAS = "ABCDEF"
FIELDS_PER_AREA = 8
START = 0
LAST_FIELD = len(AREAS) * FIELDS_PER_AREA  # 48, F8
TARGET = LAST_FIELD + 1  # 49, the red target area

DEFAULT_TIMER = 60
#: "The representative has about 10 seconds to memorise the term".
MEMORISE_SECONDS = 10
#: Chain: "Within about 5 seconds the representative of the next team must do the same".
CHAIN_SECONDS = 5
RULE_BROKEN_FIELDS = 3
CHAIN_FIELDS = 4
RHYME_FIELDS = 5
OPEN_GAME_POINTS = 6
MIN_POINTS, MAX_POINTS = 3, 6
#: "If the team guesses the term before the time runs out": a guess recorded later than this
#: after the hourglass ran out (by the server's clock) is refused; the grace covers the
#: facilitator's click on a shout at the last second and the way to the server.
LATE_GRACE_SECONDS = 2.0

#: "A / D - DRAWN, B / E - DESCRIBED, C / F - PANTOMIME".
FORMS: Mapping[str, str] = {
    "A": "draw",
    "B": "describe",
    "C": "mime",
    "D": "draw",
    "E": "describe",
    "F": "mime",
}
#: The rules of each form (and of the special tasks), as the representative reads them.
FORM_RULES: Mapping[str, str] = {
    "draw": "Draw the term. No speaking, and no instructions to teammates by gesture. "
    "The drawing may contain no digits and no letters.",
    "describe": "Describe the term in words. The word itself, any part of it, and any word "
    "derived from it may not be used.",
    "mime": "Show the term in pantomime. No speaking, no sounds of any kind, no using objects "
    "or pointing at them. Pointing at parts of one's own body is allowed.",
    "chain": "Read the word aloud and at once form a new word that begins with the end of it "
    "(the last one or two syllables). Each team's representative in turn does the same within "
    "about 5 seconds; the team with the last valid word moves 4 fields.",
    "rhyme": "Read the term silently and make up the first line of a verse ending in a word "
    "that rhymes with the term; your partner completes the verse with a line ending in the "
    "term. Guessed before the time runs out: 5 fields.",
}
KINDS = ("term", "chain", "rhyme")

TEAMS_RANGE = (2, 4)
#: Players a variant seats, where it has a fixed number: "The game for 3 players". Whoever
#: joins a session beyond them watches (``games.services.session_start``).
SEATS: dict[str, int] = {"three_players": 3}
MIN_TEAM_SIZE = 2

# Phases.
READY = "ready"
MEMORISE = "memorise"
PRESENTING = "presenting"
CHAIN = "chain"
CHOOSING = "choosing"
OVER = "over"

# Stages of a task.
REGULAR = "regular"
FINAL_OPEN = "final_open"
FINAL_HARDEST = "final_hardest"

# What a finalist team does next in its turn (``State.final``).
FINAL_AREA_CHOSEN = "open"
FINAL_PART_TWO = "hardest"

# Outcome reasons.
FINAL_TASK = "final_task"
HARDEST_TERM_NOT_GUESSED = "hardest_term_not_guessed"
STACK_EXHAUSTED = "stack_exhausted"

ACTION_TYPES = (
    "draw",
    "choose_area",
    "start_timer",
    "pause_timer",
    "resume_timer",
    "undo",
    "guessed",
    "not_guessed",
    "time_up",
    "rule_broken",
    "chain_result",
    "rhyme_result",
    "choose_hardest",
    "chain_word",
    "join_team",
)
OUTCOME_TYPES = frozenset(
    {"guessed", "not_guessed", "time_up", "rule_broken", "chain_result", "rhyme_result"}
)
#: What only the facilitator (the session's timer, the referee's memory) does.
FACILITATOR_ONLY = frozenset({"time_up", "pause_timer", "resume_timer", "undo", "chain_word", "join_team"})

_SETUP_FIELDS = frozenset(
    {"teams", "players", "cards", "timer", "reduce_points_by", "facilitator_sees_terms", "first_team",
     "team_count", "team_names", "seating"}
)  # fmt: skip


# --- the values a state is made of -------------------------------------------------------


@dataclass(frozen=True)
class Player:
    id: str
    name: str


@dataclass(frozen=True)
class Team:
    """A team and its players in the order they take the role of Representative."""

    id: str
    name: str
    players: tuple[Player, ...]


@dataclass(frozen=True)
class ActivityTerm:
    """One slot A-F of a card: a term with its points (3-6), or a chain or a rhyme."""

    slot: str
    kind: str
    text: str
    points: int | None

    @property
    def form(self) -> str:
        """``draw``, ``describe`` or ``mime`` by the letter; ``chain`` or ``rhyme`` for those."""
        return FORMS[self.slot] if self.kind == "term" else self.kind


@dataclass(frozen=True)
class ActivityCard:
    id: str
    terms: tuple[ActivityTerm, ...]  # slots A-F in order

    def term(self, slot: str) -> ActivityTerm:
        return self.terms[AREAS.index(slot)]

    def plain_slots(self) -> tuple[str, ...]:
        """The slots holding a plain term (not a chain or a rhyme)."""
        return tuple(t.slot for t in self.terms if t.kind == "term")


@dataclass(frozen=True)
class Task:
    """The card in play.  ``slot`` is ``None`` while the hardest term is being chosen."""

    card: str
    slot: str | None
    stage: str  # REGULAR, FINAL_OPEN or FINAL_HARDEST
    presenter: str
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    team: str
    start: int
    end: int


@dataclass(frozen=True)
class Event:
    """A task that was resolved: what the referee remembers (no term texts)."""

    version: int
    team: str
    presenter: str
    card: str
    slot: str
    kind: str
    stage: str
    action: str
    result: str  # "guessed", "not_guessed", "rule_broken" or "chain"
    winner: str | None
    moves: tuple[Move, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hourglass:
    """The hourglass on the wall clock, as the session's server read it (see the readings).

    ``memorise_from``: when the card was drawn (the ~10 s of memorising start);
    ``started_at``: when the running hourglass was last turned or resumed, ``None`` while
    it is paused or no clock was given; ``left``: the seconds left at ``started_at`` (or
    at the pause); ``paused``: the facilitator paused it.
    """

    memorise_from: float | None = None
    started_at: float | None = None
    left: float | None = None
    paused: bool = False
    #: In a chain: the word being formed (0: the drawer's), whose ``CHAIN_SECONDS`` run from
    #: ``started_at``.  Kept here, not in one browser, so every screen counts the same word down.
    word: int = 0

    def remaining(self, now: float) -> float | None:
        """Seconds left at wall-clock ``now`` (never below 0); ``None`` without a clock.

        >>> Hourglass(started_at=100.0, left=60.0).remaining(130.0)
        30.0
        >>> Hourglass(left=12.5, paused=True).remaining(999.0)
        12.5
        """
        if self.left is None:
            return None
        if self.paused or self.started_at is None:
            return max(self.left, 0.0)
        return max(self.left - max(now - self.started_at, 0.0), 0.0)


@dataclass(frozen=True)
class UndoPoint:
    """What the last outcome changed, so the facilitator can take it back (``undo``)."""

    positions: tuple[int, ...]
    rotation: tuple[int, ...]
    turn: int
    phase: str
    final: str | None
    final_area: str | None
    task: Task
    timer_started_at: int | None
    history_length: int
    discards_length: int
    left: float | None


@dataclass(frozen=True)
class Outcome:
    winner: str | None
    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class State:
    """An Activity game.  Per-team tuples follow the order of ``teams``; the stack is top first."""

    variant: str
    seed: int
    teams: tuple[Team, ...]
    watchers: tuple[Player, ...]
    cards: tuple[ActivityCard, ...]
    timer: int | float
    reduce_points_by: int
    facilitator_sees_terms: bool
    first_team: int
    stack: tuple[str, ...]
    discards: tuple[str, ...] = ()
    positions: tuple[int, ...] = ()
    rotation: tuple[int, ...] = ()
    turn: int = 0
    phase: str = READY
    final: str | None = None
    final_area: str | None = None
    task: Task | None = None
    timer_started_at: int | None = None
    version: int = 0
    history: tuple[Event, ...] = ()
    result: Outcome | None = None
    hourglass: Hourglass = Hourglass()
    undo_point: UndoPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data; :meth:`from_dict` reads it back."""
        ids = [team.id for team in self.teams]
        return {
            "game": GAME,
            "variant": self.variant,
            "seed": self.seed,
            "teams": [
                {"id": t.id, "name": t.name, "players": [{"id": p.id, "name": p.name} for p in t.players]}
                for t in self.teams
            ],
            "watchers": [{"id": p.id, "name": p.name} for p in self.watchers],
            "cards": [_card_dict(card) for card in self.cards],
            "timer": self.timer,
            "reduce_points_by": self.reduce_points_by,
            "facilitator_sees_terms": self.facilitator_sees_terms,
            "first_team": ids[self.first_team],
            "stack": list(self.stack),
            "discards": list(self.discards),
            "positions": dict(zip(ids, self.positions, strict=True)),
            "representatives": {
                t.id: t.players[index].id for t, index in zip(self.teams, self.rotation, strict=True)
            },
            "turn": ids[self.turn],
            "phase": self.phase,
            "final": self.final,
            "final_area": self.final_area,
            "task": None if self.task is None else _task_dict(self.task),
            "timer_started_at": self.timer_started_at,
            "hourglass": _hourglass_dict(self.hourglass),
            "undo_point": None if self.undo_point is None else _undo_dict(self.undo_point),
            "version": self.version,
            "history": [_event_dict(event) for event in self.history],
            "terminal": self.result is not None,
            "outcome": outcome(self),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Read a state written by :meth:`to_dict` (``ValueError`` if it is not one)."""
        try:
            return _state_from_data(data)
        except (KeyError, TypeError, AttributeError, IndexError, InvalidSetup) as error:
            raise ValueError(f"Not an Activity state: {error}") from error


def _card_dict(card: ActivityCard) -> dict[str, Any]:
    return {
        "id": card.id,
        "terms": [{"slot": t.slot, "kind": t.kind, "text": t.text, "points": t.points} for t in card.terms],
    }


def _task_dict(task: Task) -> dict[str, Any]:
    return {
        "card": task.card,
        "slot": task.slot,
        "stage": task.stage,
        "presenter": task.presenter,
        "skipped": list(task.skipped),
    }


def _hourglass_dict(hourglass: Hourglass) -> dict[str, Any]:
    return {
        "memorise_from": hourglass.memorise_from,
        "started_at": hourglass.started_at,
        "left": hourglass.left,
        "paused": hourglass.paused,
        "word": hourglass.word,
    }


def _undo_dict(point: UndoPoint) -> dict[str, Any]:
    return {
        "positions": list(point.positions),
        "rotation": list(point.rotation),
        "turn": point.turn,
        "phase": point.phase,
        "final": point.final,
        "final_area": point.final_area,
        "task": _task_dict(point.task),
        "timer_started_at": point.timer_started_at,
        "history_length": point.history_length,
        "discards_length": point.discards_length,
        "left": point.left,
    }


def _task_from_data(data: Mapping[str, Any]) -> Task:
    return Task(
        card=data["card"],
        slot=data["slot"],
        stage=data["stage"],
        presenter=data["presenter"],
        skipped=tuple(data["skipped"]),
    )


def _event_dict(event: Event) -> dict[str, Any]:
    return {
        "version": event.version,
        "team": event.team,
        "presenter": event.presenter,
        "card": event.card,
        "slot": event.slot,
        "kind": event.kind,
        "stage": event.stage,
        "action": event.action,
        "result": event.result,
        "winner": event.winner,
        "moves": [{"team": m.team, "from": m.start, "to": m.end} for m in event.moves],
        "skipped": list(event.skipped),
    }


def _state_from_data(data: Mapping[str, Any]) -> State:
    if data.get("game") != GAME:
        raise ValueError(f"Not an Activity state: game is {data.get('game')!r}.")
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"Not an Activity state: unknown variant {variant!r}.")
    teams = tuple(
        Team(
            id=t["id"],
            name=t["name"],
            players=tuple(Player(id=p["id"], name=p["name"]) for p in t["players"]),
        )
        for t in data["teams"]
    )
    ids = [t.id for t in teams]
    task_data = data["task"]
    outcome_data = data["outcome"]
    return State(
        variant=variant,
        seed=int(data["seed"]),
        teams=teams,
        watchers=tuple(Player(id=p["id"], name=p["name"]) for p in data["watchers"]),
        cards=_parse_cards(data["cards"]),
        timer=data["timer"],
        reduce_points_by=int(data["reduce_points_by"]),
        facilitator_sees_terms=bool(data["facilitator_sees_terms"]),
        first_team=ids.index(data["first_team"]),
        stack=tuple(data["stack"]),
        discards=tuple(data["discards"]),
        positions=tuple(int(data["positions"][tid]) for tid in ids),
        rotation=tuple([p.id for p in t.players].index(data["representatives"][t.id]) for t in teams),
        turn=ids.index(data["turn"]),
        phase=str(data["phase"]),
        final=data["final"],
        final_area=data["final_area"],
        task=None if task_data is None else _task_from_data(task_data),
        timer_started_at=data["timer_started_at"],
        # States stored before the hourglass kept the wall clock have neither field.
        hourglass=Hourglass(**(data.get("hourglass") or {})),
        undo_point=None if not data.get("undo_point") else _undo_from_data(data["undo_point"]),
        version=int(data["version"]),
        history=tuple(
            Event(
                version=e["version"],
                team=e["team"],
                presenter=e["presenter"],
                card=e["card"],
                slot=e["slot"],
                kind=e["kind"],
                stage=e["stage"],
                action=e["action"],
                result=e["result"],
                winner=e["winner"],
                moves=tuple(Move(team=m["team"], start=m["from"], end=m["to"]) for m in e["moves"]),
                skipped=tuple(e["skipped"]),
            )
            for e in data["history"]
        ),
        result=None
        if outcome_data is None
        else Outcome(
            winner=outcome_data["winner"],
            winners=tuple(outcome_data["winners"]),
            reason=outcome_data["reason"],
        ),
    )


def _undo_from_data(data: Mapping[str, Any]) -> UndoPoint:
    return UndoPoint(
        positions=tuple(int(p) for p in data["positions"]),
        rotation=tuple(int(r) for r in data["rotation"]),
        turn=int(data["turn"]),
        phase=str(data["phase"]),
        final=data["final"],
        final_area=data["final_area"],
        task=_task_from_data(data["task"]),
        timer_started_at=data["timer_started_at"],
        history_length=int(data["history_length"]),
        discards_length=int(data["discards_length"]),
        left=data["left"],
    )


def state_from_dict(data: Mapping[str, Any]) -> State:
    """The state a :meth:`State.to_dict` wrote.

    >>> state = new_game(_example_setup(), seed=1, variant="teams")
    >>> state_from_dict(state.to_dict()) == state
    True
    """
    return State.from_dict(data)


# --- the board -----------------------------------------------------------------------------


def play_area(field: int) -> str | None:
    """The letter whose term a piece on ``field`` plays: A-F, ``None`` in the target area.

    The start field comes before A1, so it plays area A.

    >>> play_area(0), play_area(1), play_area(8), play_area(9), play_area(48), play_area(49)
    ('A', 'A', 'A', 'B', 'F', None)
    """
    if field >= TARGET:
        return None
    return AREAS[(max(field, 1) - 1) // FIELDS_PER_AREA]


def cards_needed(players: int, reduce_points_by: int = 0) -> int:
    """The fewest cards with which a game can end by its final task: every team (or player)
    reaching the red target area even if each of its terms is guessed for the most points,
    then the two cards of the final task.  Every turn puts a card aside ("it does not come
    back into play"), so a smaller stack ends the game when it runs out.

    >>> cards_needed(2), cards_needed(3, reduce_points_by=2)
    (20, 41)
    """
    best = MAX_POINTS - reduce_points_by
    return players * -(-TARGET // best) + 2


def field_label(field: int) -> str:
    """``start``, ``A1`` ... ``F8`` or ``target``.

    >>> field_label(0), field_label(12), field_label(46), field_label(49)
    ('start', 'B4', 'F6', 'target')
    """
    if field <= START:
        return "start"
    if field >= TARGET:
        return "target"
    return f"{AREAS[(field - 1) // FIELDS_PER_AREA]}{(field - 1) % FIELDS_PER_AREA + 1}"


# --- setup ---------------------------------------------------------------------------------


def _parse_term(card_id: str, raw: Any) -> ActivityTerm:
    if not isinstance(raw, Mapping):
        raise InvalidSetup(f"Card {card_id!r}: each term is {{'slot', 'kind', 'text', 'points'}}.")
    slot = raw.get("slot")
    if not isinstance(slot, str) or slot not in AREAS or len(slot) != 1:
        raise InvalidSetup(f"Card {card_id!r}: a term's 'slot' is one of the letters A-F.")
    kind = raw.get("kind", "term")
    if kind not in KINDS:
        raise InvalidSetup(f"Card {card_id!r}, slot {slot}: 'kind' is term, chain or rhyme.")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidSetup(f"Card {card_id!r}, slot {slot}: the term needs a non-empty 'text'.")
    points = raw.get("points")
    if kind == "term":
        if isinstance(points, bool) or not isinstance(points, int) or not MIN_POINTS <= points <= MAX_POINTS:
            raise InvalidSetup(f"Card {card_id!r}, slot {slot}: a term needs points from 3 to 6.")
    elif points is not None:
        raise InvalidSetup(f"Card {card_id!r}, slot {slot}: a {kind} has no points (leave them null).")
    return ActivityTerm(slot=slot, kind=kind, text=text, points=points)


def _parse_cards(raw: Any) -> tuple[ActivityCard, ...]:
    if not isinstance(raw, list) or not raw:
        raise InvalidSetup(
            "'cards' must be a non-empty list of cards, each {'id', 'terms': [six terms A-F]}."
        )
    cards: list[ActivityCard] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise InvalidSetup(f"Card {index} needs a non-empty string 'id'.")
        card_id = entry["id"]
        if card_id in seen:
            raise InvalidSetup(f"Card id {card_id!r} is used twice; every card is used once.")
        seen.add(card_id)
        terms_raw = entry.get("terms")
        if not isinstance(terms_raw, list):
            raise InvalidSetup(f"Card {card_id!r} needs 'terms': six terms, slots A-F.")
        terms = [_parse_term(card_id, term) for term in terms_raw]
        slots = sorted(term.slot for term in terms)
        if slots != list(AREAS):
            raise InvalidSetup(
                f"Card {card_id!r} has slots {''.join(slots) or 'none'}; a card holds six terms, one for "
                "each of the letters A-F."
            )
        cards.append(ActivityCard(id=card_id, terms=tuple(sorted(terms, key=lambda t: t.slot))))
    return tuple(cards)


def _parse_player(raw: Any, where: str) -> Player:
    if isinstance(raw, str) and raw:
        return Player(id=raw, name=raw)
    if isinstance(raw, Mapping) and isinstance(raw.get("id"), str) and raw["id"]:
        name = raw.get("name", raw["id"])
        if not isinstance(name, str) or not name:
            raise InvalidSetup(f"Player {raw['id']!r}: 'name' must be a non-empty string.")
        return Player(id=raw["id"], name=name)
    raise InvalidSetup(f"{where}: a player is an id or {{'id', 'name'}}.")


def _parse_roster(raw: Any) -> tuple[Player, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidSetup("'players' must be a list of players, each an id or {'id', 'name'}.")
    return tuple(_parse_player(entry, f"Player {index}") for index, entry in enumerate(raw))


def _parse_teams(raw: Any, roster: Sequence[Player]) -> tuple[Team, ...]:
    if not isinstance(raw, list):
        raise InvalidSetup("'teams' must be a list of teams, each {'id', 'name', 'players': [...]}.")
    names = {p.id: p.name for p in roster}
    teams: list[Team] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise InvalidSetup(f"Team {index} needs a non-empty string 'id'.")
        team_id = entry["id"]
        name = entry.get("name", team_id)
        if not isinstance(name, str) or not name:
            raise InvalidSetup(f"Team {team_id!r}: 'name' must be a non-empty string.")
        players_raw = entry.get("players")
        if not isinstance(players_raw, list):
            raise InvalidSetup(f"Team {team_id!r} needs 'players': a list of player ids.")
        players = []
        for raw_player in players_raw:
            player = _parse_player(raw_player, f"Team {team_id!r}")
            if isinstance(raw_player, str) and player.id in names:
                player = Player(id=player.id, name=names[player.id])
            players.append(player)
        teams.append(Team(id=team_id, name=name, players=tuple(players)))
    return tuple(teams)


def _split_into_teams(
    roster: Sequence[Player],
    variant: str,
    team_count: Any,
    seed: int,
    team_names: Any = None,
    seating: Any = None,
) -> tuple[Team, ...]:
    """No ``teams`` in the setup: three players play alone; otherwise the players are split
    into teams "of as equal a size as possible", shuffled with ``rng_for(seed, "teams")``.

    ``team_names`` names the teams t1, t2, ... in order; ``seating`` (``{player id: team
    id}``) puts players in the team they chose in the lobby (or the facilitator chose for
    them) first; the others then join the smallest team, in the seed's order.

    >>> roster = [Player(f"p{k}", f"P{k}") for k in range(1, 6)]
    >>> teams = _split_into_teams(roster, "teams", 2, 1, ["Sovy", "Lišky"], {"p1": "t2", "p2": "t2"})
    >>> [t.name for t in teams], [len(t.players) for t in teams], "p1" in [p.id for p in teams[1].players]
    (['Sovy', 'Lišky'], [3, 2], True)
    """
    if not roster:
        raise InvalidSetup("Give 'teams' (or 'players', to be split into teams by the seed).")
    if variant == "three_players":
        return tuple(Team(id=p.id, name=p.name, players=(p,)) for p in roster)
    if team_count is None:
        team_count = len(team_names) if isinstance(team_names, list) and team_names else None
    if team_count is None:
        team_count = max(TEAMS_RANGE[0], min(TEAMS_RANGE[1], len(roster) // MIN_TEAM_SIZE))
    if isinstance(team_count, bool) or not isinstance(team_count, int) or not 2 <= team_count <= 4:
        raise InvalidSetup("'team_count' is 2, 3 or 4 (players split into 2, 3 or 4 teams).")
    if len(roster) < MIN_TEAM_SIZE * team_count:
        raise InvalidSetup(
            f"{team_count} teams of at least two players need {MIN_TEAM_SIZE * team_count} players; "
            f"there are {len(roster)}."
        )
    names = [f"Team {k + 1}" for k in range(team_count)]
    if team_names is not None:
        if (
            not isinstance(team_names, list)
            or len(team_names) != team_count
            or not all(isinstance(n, str) and n.strip() for n in team_names)
        ):
            raise InvalidSetup(f"'team_names' is a list of {team_count} non-empty names, one per team.")
        if len({n.strip().casefold() for n in team_names}) != team_count:
            raise InvalidSetup("Every team needs a name of its own; two teams have the same name.")
        names = [n.strip() for n in team_names]
    ids = [f"t{k + 1}" for k in range(team_count)]
    members: list[list[Player]] = [[] for _ in ids]
    seats = {} if seating is None else seating
    if not isinstance(seats, Mapping):
        raise InvalidSetup("'seating' maps player ids to team ids, e.g. {'p1': 't2'}.")
    known = {p.id for p in roster}
    for player_id, team_id in seats.items():
        if player_id not in known:
            raise InvalidSetup(f"'seating' names player {player_id!r}, who is not among the players.")
        if team_id not in ids:
            raise InvalidSetup(
                f"'seating' puts {player_id!r} in team {team_id!r}; the teams are {', '.join(ids)}."
            )
    for player in roster:
        if player.id in seats:
            members[ids.index(seats[player.id])].append(player)
    rest = [p for p in roster if p.id not in seats]
    rng_for(seed, "teams").shuffle(rest)
    for player in rest:
        smallest = min(range(team_count), key=lambda k: (len(members[k]), k))
        members[smallest].append(player)
    return tuple(Team(id=ids[k], name=names[k], players=tuple(members[k])) for k in range(team_count))


def _check_teams(teams: Sequence[Team], variant: str) -> None:
    """Setup: "Players split into 2, 3 or 4 teams ... Every team has at least two players";
    Game for 3 players: "Each player takes a piece and plays alone"."""
    team_ids = [t.id for t in teams]
    if len(set(team_ids)) != len(team_ids):
        raise InvalidSetup("Team ids must be different.")
    player_ids = [p.id for t in teams for p in t.players]
    if len(set(player_ids)) != len(player_ids):
        raise InvalidSetup("A player may play in one team only; player ids must be different.")
    if FACILITATOR in player_ids:
        raise InvalidSetup(f"{FACILITATOR!r} is the facilitator's role, not a player id.")
    if variant == "three_players":
        if len(teams) != 3 or any(len(t.players) != 1 for t in teams):
            sizes = ", ".join(str(len(t.players)) for t in teams) or "none"
            raise InvalidSetup(
                "The game for 3 players is for exactly three players, each playing alone "
                f"(three teams of one); this setup has teams of {sizes}."
            )
        return
    low, high = TEAMS_RANGE
    if not low <= len(teams) <= high:
        raise InvalidSetup(f"Players split into 2, 3 or 4 teams; this setup has {len(teams)}.")
    for team in teams:
        if len(team.players) < MIN_TEAM_SIZE:
            raise InvalidSetup(
                f"Every team has at least two players; team {team.name!r} has {len(team.players)} "
                "(for three players alone, play the three_players variant)."
            )


def new_game(setup: Mapping[str, Any], *, seed: int, variant: str) -> State:
    """Put the pieces on the start field, shuffle the stack and draw the first team.

    >>> state = new_game(_example_setup(), seed=1, variant="teams")
    >>> state.phase, state.positions, len(state.stack)
    ('ready', (0, 0), 3)
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; Activity has {', '.join(VARIANTS)}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup("The seed must be an integer.")
    if not isinstance(setup, Mapping):
        raise InvalidSetup("The setup must be an object with teams and cards.")
    unknown = sorted(set(setup) - _SETUP_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown setup field(s) {', '.join(unknown)}; Activity reads {', '.join(sorted(_SETUP_FIELDS))}."
        )
    roster = _parse_roster(setup.get("players"))
    if len({p.id for p in roster}) != len(roster):
        raise InvalidSetup("Player ids must be different.")
    if setup.get("teams") is None:
        teams = _split_into_teams(
            roster, variant, setup.get("team_count"), seed, setup.get("team_names"), setup.get("seating")
        )
    else:
        for key in ("team_count", "team_names", "seating"):
            if setup.get(key) is not None:
                raise InvalidSetup(f"'{key}' is read only when 'teams' is left out.")
        teams = _parse_teams(setup["teams"], roster)
    _check_teams(teams, variant)
    seated = {p.id for t in teams for p in t.players}
    watchers = tuple(p for p in roster if p.id not in seated)

    cards = _parse_cards(setup.get("cards"))
    timer = setup.get("timer", DEFAULT_TIMER)
    if isinstance(timer, bool) or not isinstance(timer, int | float) or timer <= 0:
        raise InvalidSetup("'timer' is the hourglass in seconds, a number above 0 (default 60).")
    reduce = setup.get("reduce_points_by", 0)
    if reduce not in (0, 2) or isinstance(reduce, bool):
        raise InvalidSetup("'reduce_points_by' is 0 or 2 (three players: 3-6 points become 1-4 fields).")
    if reduce and variant != "three_players":
        raise InvalidSetup("'reduce_points_by' is an option of the game for 3 players only.")
    sees = setup.get("facilitator_sees_terms", True)
    if not isinstance(sees, bool):
        raise InvalidSetup("'facilitator_sees_terms' is true or false.")
    first_id = setup.get("first_team")
    team_ids = [t.id for t in teams]
    if first_id is None:
        first = rng_for(seed, "first_team").randrange(len(teams))
    elif first_id in team_ids:
        first = team_ids.index(first_id)
    else:
        raise InvalidSetup(f"'first_team' {first_id!r} is none of the teams {', '.join(team_ids)}.")

    stack = [card.id for card in cards]
    rng_for(seed, "shuffle").shuffle(stack)
    return State(
        variant=variant,
        seed=seed,
        teams=teams,
        watchers=watchers,
        cards=cards,
        timer=timer,
        reduce_points_by=reduce,
        facilitator_sees_terms=sees,
        first_team=first,
        stack=tuple(stack),
        positions=tuple(START for _ in teams),
        rotation=tuple(0 for _ in teams),
        turn=first,
    )


# --- reading the table -----------------------------------------------------------------------


def _card(state: State, card_id: str) -> ActivityCard:
    for card in state.cards:
        if card.id == card_id:
            return card
    raise KeyError(card_id)


def _team_index(state: State, team_id: str) -> int:
    for index, team in enumerate(state.teams):
        if team.id == team_id:
            return index
    raise InvalidAction(f"There is no team {team_id!r} in this game.")


def _team_of(state: State, player: str) -> int | None:
    for index, team in enumerate(state.teams):
        if any(p.id == player for p in team.players):
            return index
    return None


def _player_name(state: State, player: str) -> str:
    for team in state.teams:
        for p in team.players:
            if p.id == player:
                return p.name
    return player


def _representative(state: State, team: int) -> str:
    """Whose turn it is to be the team's Representative (rotation within the team)."""
    return state.teams[team].players[state.rotation[team]].id


def _left_of(state: State, team: int) -> int:
    """The left-hand neighbour: the next in turn order."""
    return (team + 1) % len(state.teams)


def _term(state: State) -> ActivityTerm | None:
    task = state.task
    if task is None or task.slot is None:
        return None
    return _card(state, task.card).term(task.slot)


def _ready_stage(state: State) -> str:
    """What the team whose turn it is does in the ``ready`` phase: ``choose_area`` (a
    finalist team first chooses the area), or the stage of the card it draws."""
    if state.positions[state.turn] < TARGET:
        return REGULAR
    if state.variant == "three_players" or state.final == FINAL_PART_TWO:
        return FINAL_HARDEST
    if state.final == FINAL_AREA_CHOSEN:
        return FINAL_OPEN
    return "choose_area"


def _is_open(state: State) -> bool:
    """OPEN GAME: a term worth 6 (teams), every term for three players, the final task's part one."""
    task, term = state.task, _term(state)
    if task is None or term is None or term.kind != "term":
        return False
    if task.stage == FINAL_OPEN:
        return True
    if task.stage == FINAL_HARDEST:
        return False
    return state.variant == "three_players" or term.points == OPEN_GAME_POINTS


def _guessers(state: State) -> tuple[int, ...]:
    """The teams that may guess the term in play (for a chain: every team, in chain order)."""
    task, term = state.task, _term(state)
    count = len(state.teams)
    if task is None or term is None:
        return ()
    if term.kind == "chain":
        return tuple((state.turn + k) % count for k in range(count))
    if state.variant == "three_players":
        if task.stage == FINAL_HARDEST:
            return ((state.turn + 2) % count,)
        if term.kind == "rhyme":
            return (_left_of(state, state.turn),)
        return tuple(t for t in range(count) if t != state.turn)
    if _is_open(state):
        return tuple(range(count))
    return (state.turn,)


def _choosers(state: State) -> tuple[str, ...]:
    """Final task: who chooses the hardest term (the other teams; three players: the finalist)."""
    if state.variant == "three_players":
        return (_representative(state, state.turn),)
    return tuple(p.id for k, t in enumerate(state.teams) if k != state.turn for p in t.players)


def is_terminal(state: State) -> bool:
    """Whether the game is over.

    >>> is_terminal(new_game(_example_setup(), seed=1, variant="teams"))
    False
    """
    return state.result is not None


def outcome(state: State) -> dict[str, Any] | None:
    """``None`` while the game runs; then the winner, the reason and the positions.

    ``reason``: ``final_task`` (a team completed both parts), ``hardest_term_not_guessed``
    (three players: the chooser wins) or ``stack_exhausted`` (``winner`` is ``null`` when
    teams tie in front; ``winners`` lists them).

    >>> outcome(new_game(_example_setup(), seed=1, variant="teams")) is None
    True
    """
    if state.result is None:
        return None
    return {
        "winner": state.result.winner,
        "winners": list(state.result.winners),
        "reason": state.result.reason,
        "positions": {t.id: pos for t, pos in zip(state.teams, state.positions, strict=True)},
        "ranking": _ranking(state),
    }


def _ranking(state: State) -> list[str]:
    """The winners first, then by position (furthest first); ties keep the order of ``teams``."""
    winners = set(state.result.winners) if state.result is not None else set()
    order = sorted(
        range(len(state.teams)), key=lambda k: (state.teams[k].id not in winners, -state.positions[k], k)
    )
    return [state.teams[k].id for k in order]


# --- who may act ------------------------------------------------------------------------------


def _actor(state: State, player: str | None, action: Mapping[str, Any]) -> str:
    named = action.get("player")
    if named is not None and not isinstance(named, str):
        raise InvalidAction("The action's 'player' must be a player id or 'facilitator'.")
    if player is not None and named is not None and named != player:
        raise InvalidAction(f"The action names player {named!r} but was sent for {player!r}.")
    actor = player if player is not None else named
    if actor is None or actor == FACILITATOR:
        return FACILITATOR
    if _team_of(state, actor) is None:
        watcher = next((p for p in state.watchers if p.id == actor), None)
        if watcher is not None:
            raise IllegalAction(f"Player {watcher.name} watches this game and plays in no team.")
        raise InvalidAction(f"There is no player {actor!r} in this game.")
    return actor


def _may_act(state: State, actor: str, kind: str) -> bool:
    if actor == FACILITATOR:
        return True
    if kind in FACILITATOR_ONLY:
        return False
    if kind in ("draw", "choose_area"):
        return actor == _representative(state, state.turn)
    if kind == "choose_hardest":
        return actor in _choosers(state)
    return state.task is not None and actor == state.task.presenter


def _who_acts(state: State, kind: str) -> str:
    """For the refusal message: who makes ``kind`` now."""
    if kind == "time_up":
        return "Only the session's timer (the facilitator) says the time is up."
    if kind in ("pause_timer", "resume_timer"):
        return "Only the facilitator pauses and resumes the hourglass."
    if kind == "undo":
        return "Only the facilitator takes back the last outcome."
    if kind == "chain_word":
        return "Only the facilitator restarts the chain's countdown for a new word."
    if kind == "join_team":
        return "A player who comes late joins a team through the session (the table)."
    if kind in ("draw", "choose_area"):
        who = _player_name(state, _representative(state, state.turn))
        team = state.teams[state.turn].name
        return f"Only {who}, the representative of {team}, or the facilitator may do that now."
    if kind == "choose_hardest":
        if state.variant == "three_players":
            chooser = _player_name(state, _choosers(state)[0])
            return f"Only {chooser}, who does the final task, chooses the term (or the facilitator)."
        return (
            "The other teams (or the facilitator) choose the hardest term, not the team doing the final task."
        )
    assert state.task is not None
    return (
        f"Only {_player_name(state, state.task.presenter)}, who presents the term, or the facilitator "
        "records that."
    )


def _expected(state: State) -> str:
    """What the game waits for now, for refusal messages."""
    team = state.teams[state.turn]
    if state.phase == READY:
        rep = _player_name(state, _representative(state, state.turn))
        if _ready_stage(state) == "choose_area":
            return f"{rep} ({team.name}) first chooses one of the areas A-F for the final task"
        return f"{rep} ({team.name}) draws a card"
    if state.phase == MEMORISE:
        assert state.task is not None
        return f"{_player_name(state, state.task.presenter)} memorises the term and turns the hourglass"
    if state.phase == PRESENTING:
        term = _term(state)
        what = "rhyme_result" if term is not None and term.kind == "rhyme" else "guessed or not_guessed"
        return f"the hourglass runs: record {what}, rule_broken or time_up"
    if state.phase == CHAIN:
        return "the chain runs: record chain_result with the team of the last valid word"
    return "the hardest term is chosen from the card (choose_hardest)"


# --- actions ---------------------------------------------------------------------------------


def _candidates(state: State) -> list[dict[str, Any]]:
    """Every action the rules allow now, whoever makes it."""
    if state.result is not None:
        return []
    undo = [{"type": "undo"}] if state.undo_point is not None else []
    if state.phase == READY:
        if _ready_stage(state) == "choose_area":
            return [*({"type": "choose_area", "area": area} for area in AREAS), *undo]
        return [{"type": "draw"}, *undo]
    if state.phase == MEMORISE:
        return [{"type": "start_timer"}]
    if state.phase == CHOOSING:
        assert state.task is not None
        return [{"type": "choose_hardest", "slot": s} for s in _card(state, state.task.card).plain_slots()]
    ids = [t.id for t in state.teams]
    if state.phase == CHAIN:
        return [{"type": "chain_result", "winner_team": ids[k]} for k in _guessers(state)] + [
            {"type": "chain_result", "winner_team": None},
            {"type": "chain_word"},
        ]
    term = _term(state)
    assert term is not None
    outcomes: list[dict[str, Any]]
    if term.kind == "rhyme":
        outcomes = [{"type": "rhyme_result", "guessed": True}, {"type": "rhyme_result", "guessed": False}]
    else:
        outcomes = [{"type": "guessed", "team": ids[k]} for k in _guessers(state)]
        outcomes.append({"type": "not_guessed"})
    clock = {"type": "resume_timer" if state.hourglass.paused else "pause_timer"}
    return [*outcomes, {"type": "rule_broken"}, {"type": "time_up"}, clock]


def legal_actions(state: State, player: str | None) -> list[dict[str, Any]]:
    """What ``player`` may do now (``None`` or ``"facilitator"``: the facilitator, the table).

    >>> state = new_game(_example_setup(), seed=1, variant="teams")
    >>> legal_actions(state, "facilitator")
    [{'type': 'draw', 'player': 'facilitator'}]
    >>> legal_actions(state, "p2"), legal_actions(state, "p3")
    ([], [{'type': 'draw', 'player': 'p3'}])
    """
    if player is not None and player != FACILITATOR and any(p.id == player for p in state.watchers):
        return []
    actor = _actor(state, player, {})
    return [
        {**action, "player": actor} for action in _candidates(state) if _may_act(state, actor, action["type"])
    ]


def apply_action(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    """The state after ``player`` makes ``action``; the given state is never changed.

    Raises :class:`InvalidAction` for a malformed action and :class:`IllegalAction`
    when the rules do not allow it now; the message says why.

    >>> state = new_game(_example_setup(), seed=1, variant="teams")
    >>> state = apply_action(state, "p3", {"type": "draw"})
    >>> state.phase, state.task.slot
    ('memorise', 'A')
    >>> state = apply_action(state, "p3", {"type": "start_timer"})
    >>> state = apply_action(state, "facilitator", {"type": "guessed", "team": "t2"})
    >>> state.positions, state.phase, state.turn
    ((0, 4), 'ready', 0)
    """
    if not isinstance(action, Mapping):
        raise InvalidAction("An action must be an object with a 'type'.")
    kind = action.get("type")
    if kind not in ACTION_TYPES:
        raise InvalidAction(f"Unknown action type {kind!r}; Activity knows {', '.join(ACTION_TYPES)}.")
    actor = _actor(state, player, action)
    fields = _parse_fields(state, kind, action)
    if state.result is not None:
        raise IllegalAction("The game is over.")
    if kind == "join_team":
        if actor != FACILITATOR:
            raise IllegalAction(_who_acts(state, kind))
        return _join_team(replace(state, version=state.version + 1), kind, fields)
    allowed = [c for c in _candidates(state) if c["type"] == kind]
    if not allowed:
        if kind == "undo":
            raise IllegalAction(
                "There is no outcome to take back: only the last outcome can be undone, and only "
                "before the next card is drawn."
            )
        if kind in ("pause_timer", "resume_timer") and state.phase == PRESENTING:
            raise IllegalAction(
                "The hourglass is already paused." if kind == "pause_timer" else "The hourglass is running."
            )
        raise IllegalAction(f"No {kind} now: {_expected(state)}.")
    if not _may_act(state, actor, kind):
        raise IllegalAction(_who_acts(state, kind))
    if _guessed_too_late(state, kind, fields):
        raise IllegalAction(
            "The hourglass has run out: the term was not guessed in time. Record time_up (or not_guessed)."
        )
    handler = {
        "draw": _draw,
        "choose_area": _choose_area,
        "start_timer": _start_timer,
        "choose_hardest": _choose_hardest,
        "chain_word": _chain_word,
        "chain_result": _chain_result,
        "rhyme_result": _rhyme_result,
        "guessed": _guessed,
        "not_guessed": _not_guessed,
        "time_up": _not_guessed,
        "rule_broken": _rule_broken,
        "pause_timer": _pause_timer,
        "resume_timer": _resume_timer,
        "undo": _undo,
    }[kind]
    # Any action but an outcome ends the chance to take the last outcome back.
    point = state.undo_point if kind == "undo" else None
    after = handler(replace(state, version=state.version + 1, undo_point=point), kind, fields)
    if kind in OUTCOME_TYPES:
        after = replace(after, undo_point=_undo_point(state, fields["at"]))
    return after


def _parse_fields(state: State, kind: str, action: Mapping[str, Any]) -> dict[str, Any]:
    """The action's own fields, checked for form (not for the rules); ``at`` for every action."""
    at = action.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at < 1e11):
        raise InvalidAction("The 'at' field is the server's clock in seconds since 1970, or left out.")
    return {**_parse_own_fields(state, kind, action), "at": None if at is None else float(at)}


def _parse_own_fields(state: State, kind: str, action: Mapping[str, Any]) -> dict[str, Any]:
    if kind == "choose_area" or kind == "choose_hardest":
        key = "area" if kind == "choose_area" else "slot"
        value = action.get(key)
        if not isinstance(value, str) or len(value) != 1 or value not in AREAS:
            raise InvalidAction(f"A {kind} action needs '{key}': one of the letters A-F.")
        return {key: value}
    if kind == "join_team":
        new_id, name, team = action.get("id"), action.get("name"), action.get("team")
        if not all(isinstance(v, str) and v for v in (new_id, name)):
            raise InvalidAction("A join_team action needs the new player's 'id' and 'name'.")
        if team is not None and not isinstance(team, str):
            raise InvalidAction("The 'team' field is the id of the team the player joins, or left out.")
        if team is not None:
            _team_index(state, team)
        return {"id": new_id, "name": name, "team": team}
    if kind == "guessed":
        team = action.get("team")
        if team is not None:
            if not isinstance(team, str):
                raise InvalidAction("The 'team' field is the id of the team that guessed the term.")
            _team_index(state, team)
        return {"team": team}
    if kind == "chain_result":
        if "winner_team" not in action:
            raise InvalidAction(
                "A chain_result needs 'winner_team': the team of the last valid word (null: nobody)."
            )
        team = action["winner_team"]
        if team is not None:
            if not isinstance(team, str):
                raise InvalidAction("The 'winner_team' field is a team id, or null if nobody formed a word.")
            _team_index(state, team)
        return {"winner_team": team}
    if kind == "rhyme_result":
        guessed = action.get("guessed")
        if not isinstance(guessed, bool):
            raise InvalidAction("A rhyme_result needs 'guessed': true or false.")
        return {"guessed": guessed}
    return {}


def _choose_area(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Final task: "the representative first chooses one of the 6 areas (A-F) and only then
    draws a card"."""
    return replace(state, final=FINAL_AREA_CHOSEN, final_area=fields["area"])


def _draw(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Rulebook: "The representative takes the top card of the stack so that teammates cannot see the
    terms"."""
    stage = _ready_stage(state)
    stack = list(state.stack)
    skipped: list[str] = []

    def usable(card: ActivityCard) -> bool:
        if stage == FINAL_OPEN:
            # "If the chosen area of that card shows chain or rhyme, they must draw another card."
            assert state.final_area is not None
            return card.term(state.final_area).kind == "term"
        if stage == FINAL_HARDEST:
            # A card without a plain term gives the other teams nothing to choose from.
            return bool(card.plain_slots())
        return True

    while stack:
        card = _card(state, stack.pop(0))
        if usable(card):
            break
        skipped.append(card.id)
    else:
        state = replace(state, stack=(), discards=(*state.discards, *skipped))
        return _finish_stack_exhausted(state)

    presenter = _representative(state, state.turn)
    if stage == FINAL_HARDEST and state.variant == "three_players":
        # "They give the card to the left-hand neighbour ... The neighbour must present that term".
        presenter = _representative(state, _left_of(state, state.turn))
    slot: str | None
    if stage == FINAL_OPEN:
        slot = state.final_area
    elif stage == FINAL_HARDEST:
        slot = None
    else:
        slot = play_area(state.positions[state.turn])
    task = Task(card=card.id, slot=slot, stage=stage, presenter=presenter, skipped=tuple(skipped))
    if slot is None:
        phase = CHOOSING
    elif card.term(slot).kind == "chain":
        phase = CHAIN
    else:
        phase = MEMORISE
    if phase == MEMORISE:
        hourglass = Hourglass(memorise_from=fields["at"])
    else:
        hourglass = _chain_clock(fields["at"]) if phase == CHAIN else Hourglass()
    return replace(
        state,
        stack=tuple(stack),
        discards=(*state.discards, *skipped),
        task=task,
        phase=phase,
        hourglass=hourglass,
    )


def _choose_hardest(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Final task part two: the other teams "choose from it the term that seems hardest to them"
    (three players: the finalist chooses); the form follows the letter of the term."""
    assert state.task is not None
    slot = fields["slot"]
    card = _card(state, state.task.card)
    if card.term(slot).kind != "term":
        raise IllegalAction(
            f"Slot {slot} of this card holds a {card.term(slot).kind}; choose one of the terms "
            f"({', '.join(card.plain_slots())})."
        )
    return replace(
        state,
        task=replace(state.task, slot=slot),
        phase=MEMORISE,
        hourglass=Hourglass(memorise_from=fields["at"]),
    )


def _start_timer(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Rulebook: "Then the card goes face down and the hourglass is turned"; the session keeps the time."""
    hourglass = Hourglass(started_at=fields["at"], left=float(state.timer))
    return replace(state, phase=PRESENTING, timer_started_at=state.version, hourglass=hourglass)


def _join_team(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """A player who comes after the start joins a team: Setup, "Players split into 2, 3 or 4
    teams of as equal a size as possible" (no team named: the smallest, the first of equals).
    They join the end of the team's order of Representatives ("the players of a team take
    this role in rotation"); the game for 3 players has exactly three, so none joins it."""
    if state.variant != "teams":
        raise IllegalAction("The game for 3 players is played by exactly three: a fourth player watches.")
    new_id = fields["id"]
    if any(p.id == new_id for t in state.teams for p in t.players):
        raise IllegalAction("That player is in a team already.")
    if fields["team"] is not None:
        index = _team_index(state, fields["team"])
    else:
        index = min(range(len(state.teams)), key=lambda k: (len(state.teams[k].players), k))
    team = state.teams[index]
    joined = replace(team, players=(*team.players, Player(id=new_id, name=fields["name"])))
    teams = tuple(joined if k == index else t for k, t in enumerate(state.teams))
    watchers = tuple(p for p in state.watchers if p.id != new_id)
    return replace(state, teams=teams, watchers=watchers)


def _chain_clock(at: float | None, word: int = 0) -> Hourglass:
    """A chain's countdown: "reads the word aloud and at once forms a new word", so word
    ``word``'s ``CHAIN_SECONDS`` run from ``at`` (no clock given: none runs)."""
    if at is None:
        return Hourglass(word=word)
    return Hourglass(started_at=at, left=float(CHAIN_SECONDS), word=word)


def _chain_word(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """CHAIN: "Within about 5 seconds the representative of the next team must do the same with
    the new word": a word was formed, the next speaker's seconds run from now (``at``)."""
    return replace(state, hourglass=_chain_clock(fields["at"], state.hourglass.word + 1))


def _pause_timer(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """The facilitator stops the hourglass (a question from the class, a fire drill); the
    seconds left are kept.  Not in the rulebook: a table would lay the hourglass on its side."""
    at, hourglass = fields["at"], state.hourglass
    left = hourglass.left if at is None else hourglass.remaining(at)
    return replace(state, hourglass=replace(hourglass, started_at=None, left=left, paused=True))


def _resume_timer(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """The paused hourglass runs on with the seconds it had left."""
    return replace(state, hourglass=replace(state.hourglass, started_at=fields["at"], paused=False))


def _guessed_too_late(state: State, kind: str, fields: Mapping[str, Any]) -> bool:
    """A guess (a term's or a rhyme's) stamped more than ``LATE_GRACE_SECONDS`` after the
    running hourglass ran out.  Without a clock (``at`` left out) nothing is late."""
    if kind != "guessed" and not (kind == "rhyme_result" and fields.get("guessed")):
        return False
    glass, at = state.hourglass, fields.get("at")
    if at is None or glass.paused or glass.started_at is None or glass.left is None:
        return False
    return bool(float(at) > glass.started_at + glass.left + LATE_GRACE_SECONDS)


def _undo_point(state: State, at: float | None) -> UndoPoint:
    """The table before an outcome (``state``), kept until the next action."""
    assert state.task is not None
    left = None
    if state.phase == PRESENTING:
        left = state.hourglass.left if at is None else state.hourglass.remaining(at)
    return UndoPoint(
        positions=state.positions,
        rotation=state.rotation,
        turn=state.turn,
        phase=state.phase,
        final=state.final,
        final_area=state.final_area,
        task=state.task,
        timer_started_at=state.timer_started_at,
        history_length=len(state.history),
        discards_length=len(state.discards),
        left=left,
    )


def _undo(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """The facilitator takes back the last outcome (a wrong button): the pieces go back, the
    card is in play again and the hourglass stands paused with the seconds it had left.
    Only the last outcome, and only before the next card is drawn."""
    point = state.undo_point
    assert point is not None
    paused = point.phase == PRESENTING
    return replace(
        state,
        positions=point.positions,
        rotation=point.rotation,
        turn=point.turn,
        phase=point.phase,
        final=point.final,
        final_area=point.final_area,
        task=point.task,
        timer_started_at=point.timer_started_at,
        history=state.history[: point.history_length],
        discards=state.discards[: point.discards_length],
        hourglass=_chain_clock(fields["at"])
        if point.phase == CHAIN
        else Hourglass(left=point.left, paused=paused),
        undo_point=None,
    )


# --- outcomes --------------------------------------------------------------------------------


def _fields_for_guess(state: State, base: int) -> int:
    """Three players may reduce "the number of fields moved after a guess" by 2."""
    return max(base - state.reduce_points_by, 0)


def _moved(state: State, changes: Mapping[int, int]) -> tuple[State, tuple[Move, ...]]:
    """Move pieces by the given fields (negative: back), never behind the start field, and
    never beyond the target area ("points beyond the target area are lost")."""
    positions = list(state.positions)
    moves = []
    for team, fields in changes.items():
        start = positions[team]
        end = min(TARGET, max(START, start + fields))
        positions[team] = end
        moves.append(Move(team=state.teams[team].id, start=start, end=end))
    return replace(state, positions=tuple(positions)), tuple(moves)


def _resolve(state: State, action: str, result: str, winner: int | None, changes: Mapping[int, int]) -> State:
    """Record the task, move the pieces and put the card aside ("it does not come back into play")."""
    task, term = state.task, _term(state)
    assert task is not None and term is not None
    state, moves = _moved(state, changes)
    event = Event(
        version=state.version,
        team=state.teams[state.turn].id,
        presenter=task.presenter,
        card=task.card,
        slot=term.slot,
        kind=term.kind,
        stage=task.stage,
        action=action,
        result=result,
        winner=None if winner is None else state.teams[winner].id,
        moves=moves,
        skipped=task.skipped,
    )
    return replace(
        state,
        history=(*state.history, event),
        discards=(*state.discards, task.card),
        task=None,
        timer_started_at=None,
        hourglass=Hourglass(),
    )


def _end_turn(state: State) -> State:
    """Rulebook: "... and the next team takes its turn"; the team's next player will represent it."""
    team = state.turn
    rotation = list(state.rotation)
    rotation[team] = (rotation[team] + 1) % len(state.teams[team].players)
    state = replace(
        state,
        rotation=tuple(rotation),
        turn=(team + 1) % len(state.teams),
        phase=READY,
        final=None,
        final_area=None,
        task=None,
        timer_started_at=None,
    )
    return _await_draw(state)


def _await_draw(state: State) -> State:
    """A card must be drawn next; with the stack used up, the game ends."""
    if state.stack:
        return state
    return _finish_stack_exhausted(state)


def _finish_stack_exhausted(state: State) -> State:
    best = max(state.positions)
    winners = tuple(t.id for t, pos in zip(state.teams, state.positions, strict=True) if pos == best)
    result = Outcome(
        winner=winners[0] if len(winners) == 1 else None, winners=winners, reason=STACK_EXHAUSTED
    )
    return replace(state, phase=OVER, task=None, timer_started_at=None, result=result)


def _finish(state: State, winner: int, reason: str) -> State:
    team = state.teams[winner].id
    return replace(state, phase=OVER, result=Outcome(winner=team, winners=(team,), reason=reason))


def _guessed(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Rulebook: "If the team guesses the term before the time runs out, it moves its piece forward as many
    fields as the number in brackets"; open game: "Whichever team guesses the term first moves"."""
    task, term = state.task, _term(state)
    assert task is not None and term is not None
    if term.kind != "term" or term.points is None:
        raise IllegalAction(f"This is a {term.kind}: record it with {term.kind}_result.")
    guessers = _guessers(state)
    team_id = fields["team"]
    if team_id is None:
        if len(guessers) == 1:
            guesser = guessers[0]
        elif state.turn in guessers:
            guesser = state.turn
        else:
            raise InvalidAction("Say which player guessed the term: 'team' is the guesser's id.")
    else:
        guesser = _team_index(state, team_id)
    if guesser not in guessers:
        raise IllegalAction(_not_a_guesser(state, guesser))

    if state.variant == "three_players":
        # "both the player who presented it and the player who guessed it move their pieces".
        presenter = _team_of(state, task.presenter)
        assert presenter is not None
        fields_moved = _fields_for_guess(state, term.points)
        state = _resolve(state, kind, "guessed", guesser, {presenter: fields_moved, guesser: fields_moved})
        return _end_turn(state)
    if task.stage == FINAL_OPEN and guesser == state.turn:
        # "it goes straight on to the second part of the final task, and the same representative
        # draws another card".
        state = _resolve(state, kind, "guessed", guesser, {})
        return _await_draw(replace(state, phase=READY, final=FINAL_PART_TWO, final_area=None))
    if task.stage == FINAL_HARDEST:
        # "If the team guesses this second term too, it wins."
        return _finish(_resolve(state, kind, "guessed", guesser, {}), guesser, FINAL_TASK)
    # Regular turn, or another team guessed the final task's open game first ("that team moves
    # its piece as many fields as the card says"; the finalist tries again next turn).
    state = _resolve(state, kind, "guessed", guesser, {guesser: term.points})
    return _end_turn(state)


def _not_a_guesser(state: State, team: int) -> str:
    task, term = state.task, _term(state)
    assert task is not None and term is not None
    name = state.teams[team].name
    if state.variant == "three_players":
        if task.stage == FINAL_HARDEST:
            third = state.teams[_guessers(state)[0]].name
            return f"Only {third}, the third player, guesses the hardest term."
        return f"{name} presented the term and cannot guess it."
    if task.stage == FINAL_HARDEST:
        return "Only the team doing the final task guesses its second term."
    return (
        f"Only {state.teams[state.turn].name} guesses this term: it is worth {term.points}, "
        f"and only a 6 is an open game ({name} may not guess it)."
    )


def _not_guessed(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Rulebook: "Otherwise the piece stays where it is"; three players, final task: "If the term is not
    guessed, the player who chose the term wins"; teams: "it must try the final task again in its
    next turn from the beginning"."""
    task, term = state.task, _term(state)
    assert task is not None and term is not None
    if term.kind == "rhyme" and kind == "not_guessed":
        raise IllegalAction("This is a rhyme: record it with rhyme_result (guessed true or false).")
    state = _resolve(state, kind, "not_guessed", None, {})
    if state.variant == "three_players" and task.stage == FINAL_HARDEST:
        return _finish(state, state.turn, HARDEST_TERM_NOT_GUESSED)
    return _end_turn(state)


def _rule_broken(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """Rulebook: "If the representative breaks a rule ..., the team must move back 3 fields. Play passes to
    the next team." (three players' final task: the term was not guessed, so the chooser wins)."""
    task = state.task
    assert task is not None
    presenter = _team_of(state, task.presenter)
    assert presenter is not None
    state = _resolve(state, kind, "rule_broken", None, {presenter: -RULE_BROKEN_FIELDS})
    if state.variant == "three_players" and task.stage == FINAL_HARDEST:
        return _finish(state, state.turn, HARDEST_TERM_NOT_GUESSED)
    return _end_turn(state)


def _chain_result(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """CHAIN: "The team that formed the last valid word of the chain moves 4 fields forward"."""
    team_id = fields["winner_team"]
    winner = None if team_id is None else _team_index(state, team_id)
    state = _resolve(state, kind, "chain", winner, {} if winner is None else {winner: CHAIN_FIELDS})
    return _end_turn(state)


def _rhyme_result(state: State, kind: str, fields: Mapping[str, Any]) -> State:
    """RHYME: "If the team guesses the term, it moves 5 fields forward"; three players: "the player
    who drew the card and the left-hand neighbour ... If they succeed, both move 5 fields"."""
    if not fields["guessed"]:
        state = _resolve(state, kind, "not_guessed", None, {})
        return _end_turn(state)
    moved = _fields_for_guess(state, RHYME_FIELDS)
    if state.variant == "three_players":
        partner = _left_of(state, state.turn)
        state = _resolve(state, kind, "guessed", partner, {state.turn: moved, partner: moved})
    else:
        state = _resolve(state, kind, "guessed", state.turn, {state.turn: moved})
    return _end_turn(state)


# --- what a player sees ----------------------------------------------------------------------


def _role(state: State, player: str | None) -> str:
    if player is None:
        return "spectator"
    if player == FACILITATOR:
        return FACILITATOR
    if _team_of(state, player) is not None:
        return "player"
    if any(p.id == player for p in state.watchers):
        return "watcher"
    raise InvalidAction(f"There is no player {player!r} in this game.")


def sees_term(state: State, player: str | None) -> bool:
    """Whether ``player`` may see the text of the term in play (see the module's readings).

    >>> state = apply_action(new_game(_example_setup(), seed=1, variant="teams"), "p3", {"type": "draw"})
    >>> sees_term(state, "p3"), sees_term(state, "p4"), sees_term(state, "p1"), sees_term(state, None)
    (True, False, False, False)
    >>> sees_term(state, "facilitator")
    True
    """
    term, task = _term(state), state.task
    if term is None or task is None or state.result is not None:
        return False
    if term.kind == "chain":
        return True  # "reads the word aloud"
    if player is None:
        return False
    if player == FACILITATOR:
        return state.facilitator_sees_terms
    if player == task.presenter:
        return True
    return task.stage == FINAL_HARDEST and player in _choosers(state)


def _sees_card(state: State, player: str | None) -> bool:
    """While the hardest term is chosen, the choosers hold the whole card."""
    if state.phase != CHOOSING or player is None:
        return False
    if player == FACILITATOR:
        return state.facilitator_sees_terms
    return player in _choosers(state)


def player_view(state: State, player: str | None) -> dict[str, Any]:
    """What ``player`` may see: a player id, ``"facilitator"`` (the teacher, who sees the terms
    when ``facilitator_sees_terms``), or ``None`` (a spectator: never a term).

    The board, the pieces, whose turn it is, the form, area, kind and points of the task and
    the timer are public; the term's text and the card's id are not.

    >>> state = apply_action(new_game(_example_setup(), seed=1, variant="teams"), "p3", {"type": "draw"})
    >>> player_view(state, "p3")["task"]["text"], player_view(state, "p4")["task"]["text"]
    ('kotě', None)
    >>> player_view(state, "p4")["task"]["form"]
    'draw'
    """
    role = _role(state, player)
    ids = [t.id for t in state.teams]
    teams = []
    for index, team in enumerate(state.teams):
        pos = state.positions[index]
        teams.append(
            {
                "id": team.id,
                "name": team.name,
                "players": [{"id": p.id, "name": p.name} for p in team.players],
                "position": pos,
                "field": field_label(pos),
                "area": play_area(pos),
                "representative": _representative(state, index),
                "finalist": pos == TARGET,
            }
        )
    your_team = None if player is None else _team_of(state, player)
    task_view: dict[str, Any] | None = None
    task, term = state.task, _term(state)
    if task is not None:
        sees = sees_term(state, player)
        card = _card(state, task.card)
        task_view = {
            "stage": task.stage,
            "team": ids[state.turn],
            "presenter": task.presenter,
            "slot": task.slot,
            "kind": None if term is None else term.kind,
            "form": None if term is None else term.form,
            "rules": None if term is None else FORM_RULES[term.form],
            "points": None if term is None else term.points,
            "fields": None if term is None else _task_fields(state, term),
            "open": _is_open(state),
            "guessers": [ids[k] for k in _guessers(state)],
            "choosers": list(_choosers(state)) if task.stage == FINAL_HARDEST else [],
            "skipped": len(task.skipped),
            "card": task.card if sees or _sees_card(state, player) else None,
            "text": term.text if sees and term is not None else None,
            "card_terms": [
                {"slot": t.slot, "kind": t.kind, "text": t.text, "points": t.points} for t in card.terms
            ]
            if _sees_card(state, player)
            else None,
        }
    return {
        "game": GAME,
        "variant": state.variant,
        "you": player,
        "role": role,
        "your_team": None if your_team is None else ids[your_team],
        "board": {
            "start": START,
            "areas": {a: [k * FIELDS_PER_AREA + 1, (k + 1) * FIELDS_PER_AREA] for k, a in enumerate(AREAS)},
            "target": TARGET,
            "forms": dict(FORMS),
        },
        "teams": teams,
        "first_team": ids[state.first_team],
        "turn": ids[state.turn],
        "representative": _representative(state, state.turn),
        "phase": state.phase,
        "final": state.final,
        "final_area": state.final_area,
        "task": task_view,
        "timer": state.timer,
        "memorise_seconds": MEMORISE_SECONDS,
        "chain_seconds": CHAIN_SECONDS,
        "timer_started_at": state.timer_started_at,
        "hourglass": _hourglass_dict(state.hourglass),
        "can_undo": state.undo_point is not None,
        "reduce_points_by": state.reduce_points_by,
        "cards_left": len(state.stack),
        "cards_used": len(state.discards),
        "history": [_event_dict(event) for event in state.history],
        "version": state.version,
        "legal_actions": [] if role in ("spectator", "watcher") else legal_actions(state, player),
        "terminal": state.result is not None,
        "outcome": outcome(state),
    }


def _task_fields(state: State, term: ActivityTerm) -> int:
    """How far a success moves: the points (rhyme 5, chain 4), reduced for three players."""
    if term.kind == "chain":
        return CHAIN_FIELDS
    base = RHYME_FIELDS if term.kind == "rhyme" else (term.points or 0)
    return _fields_for_guess(state, base)


def _example_setup() -> dict[str, Any]:
    """Two teams of two and three cards, for the examples in the docstrings."""

    def card(card_id: str, first: str) -> dict[str, Any]:
        terms = [{"slot": "A", "kind": "term", "text": first, "points": 4}]
        terms += [{"slot": s, "kind": "term", "text": f"{card_id}-{s}", "points": 3} for s in "BCDEF"]
        return {"id": card_id, "terms": terms}

    return {
        "teams": [
            {"id": "t1", "name": "Sovy", "players": ["p1", "p2"]},
            {"id": "t2", "name": "Lišky", "players": ["p3", "p4"]},
        ],
        "cards": [card("c1", "kotě"), card("c2", "kotě"), card("c3", "kotě")],
        "first_team": "t2",
    }
