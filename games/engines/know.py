"""Know: teams with secret Team IDs write questions and answer each other's for points.

The rulebook is ``../shared/rules/know.md`` (Definitions; Game Phases: ID, Question Prep,
Question Round, Resolution; Rules); the readings Talia adds are in
``../shared/rules/README.md`` (Know).  The engine follows the API of
:mod:`games.engines.base`; the setup, action and state formats are documented in
``docs/replay.md`` (Know).

Setup::

    {"teams": [{"id": "team-internal-1", "players": ["p1", "p2"]}, ...],
     "cards_per_team": 3,
     "source": "Our history textbook, chapters 4-6",
     "facilitator_sees_mapping": false,
     "resolve_immediately": false}

* ``teams``: two or more teams ("at least one player per Team"); ``id`` is Talia's
  internal id of the team and ``players`` the player ids of its members.  Neither is
  ever shown to another team.  Player ids are unique across teams and never
  ``"facilitator"``.
* ``cards_per_team``: the blank Question Cards each team gets (1-100).
* ``source``: the agreed source of answers, shown to everyone.
* ``facilitator_sees_mapping``: whether the facilitator's view shows which team chose
  which Team ID (default ``false``).
* ``resolve_immediately``: ``true`` when every Round Deck is "marked immediately"
  (Resolution starts as the round closes); ``false`` (default) when decks are "put to one
  side" and the facilitator resolves each one now or later.
* ``players`` (optional): the session layer's list of who joined, each a player id or
  ``{"id", "name"}``.  Ignored when ``teams`` is given; without ``teams`` every player
  is a team of one (one team device per team, as Talia runs Know in class), the team's
  internal id being the player's id.  Names are never read.

Actors: a player id (acting for that player's team) or the facilitator, named
``"facilitator"`` (``None`` also acts as the facilitator: the session layer's table).  As a
viewer, ``None`` is a spectator (the projector): ``player_view(state, None)`` has the public
view and no ``legal_actions``; the facilitator's page asks for the view of ``"facilitator"``.

Actions (``card`` and ``question_number`` are Question Numbers)::

    {"type": "choose_team_id", "team_id": "Blue Heron"}          # a team's player, Question Prep
    {"type": "write_question", "card": 4, "text": "..."}          # a team's player, Question Prep
    {"type": "start_round"}                                       # facilitator
    {"type": "submit_question", "card": 4}                        # a team's player
    {"type": "submit_answer", "question_number": 7, "text": "...", "team_id": "Blue Heron"}
    {"type": "close_submissions"}                                 # facilitator
    {"type": "resolve", "round": 2}                               # facilitator; round optional
    {"type": "mark", "question_number": 7, "best_answers": ["a2"]}  # facilitator / question's team
    {"type": "close_round"}                                       # facilitator
    {"type": "end_game"}                                          # facilitator

Phases: ``prep`` (ID and Question Prep) -> ``questions`` -> ``answers`` ->
``between_rounds`` (the Round Deck is put to one side) -> ``resolution`` (optional
now, or later) -> ``between_rounds`` -> ... -> ``over``.

Readings where the rulebook is silent or speaks of a table, not a screen:

* ID and Question Prep are one phase online: a team chooses (and may change) its Team ID
  and writes (and may rewrite) its questions until the facilitator starts the first
  Question Round, which needs every Team ID chosen and every card written.  Team IDs are
  unique ignoring case and spacing; a clash is refused without saying whose ID it is.  A
  Team ID may not be a player's or a team's id in this game, nor ``facilitator`` (so no
  team can put another's name on the public score record).
* "Question Cards are given a unique number ... Blank Question Cards are collected ...
  shuffled ... Teams are given an equal number": the numbers 1..teams x cards_per_team
  are shuffled with ``rng_for(seed, "deal")`` and dealt one at a time in team order, so a
  Question Number says nothing about its team.
* A Question Round: each team due to play submits one question card; when all have (or
  the facilitator closes the question step early, if at least one has) the round's
  questions are shown to everyone by number, without Team IDs.  Then each team submits up
  to ceil((T - 1) / 2) Answer Cards, at most one per question and never to its own; the
  facilitator closes the submissions.  Answer Cards carry the Team ID the team writes on
  them (``team_id``), which must be its own.
* "If nobody has answered a question, then the question is put aside": at closing, every
  question of the round without an answer is set aside (it goes back to its team).
  "Once all questions have been submitted", i.e. when no team holds a card it has never
  submitted, a round is made of set-aside questions: each team holding some submits one.
* After closing, the Round Deck is put to one side; the facilitator resolves it at once
  or later (``resolve``, any deck put to one side, the oldest by default), but not while a
  round is open.  With ``resolve_immediately`` the deck is "marked immediately": closing
  the round resolves it.  Resolving shuffles the deck's questions and answers with
  ``rng_for(seed, "round", n)`` and reveals them without Team IDs; each answer gets a
  neutral id ``a1``, ``a2``, ... in the shuffled order.
* Marking: the facilitator (variant ``team_marks``: the question's own team) names the best
  answers of each question; an empty list means no answer earns points.  Each winning
  team gets max(1, floor((T - 1) / winners)).  Disputes: until the facilitator closes the
  round (``close_round``, once every question of the deck is marked) any question of the
  deck may be marked again, and the new marking replaces the old one; in ``team_marks``
  the facilitator may re-mark a question its team has marked (settling a dispute), never
  mark it first.  The score record changes when the round is closed, not after each
  question, so a change in score does not point at one answer.  Who marked is not
  recorded.
* The game ends when the facilitator ends it (``end_game``: questions already marked in a
  deck being resolved count; decks put to one side are not scored, and the facilitator's
  view counts what would be left unscored, ``if_ended_now``) or when the questions run out
  (every question card has been marked and its round closed).

Anonymity: :func:`player_view` never shows another team's internal id or player ids, nor
which team chose which Team ID, wrote which question, gave which answer or marked; the
score record is keyed by Team ID and sorted by it, never in team order.  The facilitator
sees the teams (the facilitator set them up) and, only with ``facilitator_sees_mapping``,
their Team IDs.  The state itself (``to_dict``) and the game log hold everything: they
stay on the server.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from .teams import TeamId, players_parse, team_id_clean, team_id_refuse_clash, team_key, teams_parse

__all__ = [
    "GAME",
    "VARIANTS",
    "AnswerCard",
    "Mark",
    "Outcome",
    "QuestionCard",
    "RoundDeck",
    "State",
    "Team",
    "TeamId",
    "answer_limit",
    "apply_action",
    "is_terminal",
    "legal_actions",
    "new_game",
    "outcome",
    "phase",
    "player_view",
    "point_pool",
    "points_each",
    "score_record",
    "state_from_dict",
]

GAME: str = "know"
VARIANTS: tuple[str, ...] = ("facilitator_marks", "team_marks")

#: The facilitator's actor id (the teacher who runs the game).
FACILITATOR = "facilitator"

MAX_CARDS_PER_TEAM = 100
MAX_TEXT_LENGTH = 500

# Phases.
PREP = "prep"
QUESTIONS = "questions"
ANSWERS = "answers"
BETWEEN_ROUNDS = "between_rounds"
RESOLUTION = "resolution"
OVER = "over"

# Where a question card is.
IN_HAND = "in_hand"  # with its team, never submitted
IN_ROUND = "in_round"  # in a Round Deck, not yet marked
SET_ASIDE = "set_aside"  # nobody answered it; back with its team for a later round
MARKED = "marked"

# What a Round Deck is doing (the first two are the open round's steps).
DECK_QUESTIONS = "questions"
DECK_ANSWERS = "answers"
PUT_ASIDE = "put_aside"
RESOLVING = "resolving"
RESOLVED = "resolved"

# Rounds made of never-submitted cards, and those made of set-aside ones.
FRESH = "fresh"
REPLAY = "set_aside"

ENDED_BY_FACILITATOR = "ended_by_facilitator"
QUESTIONS_RAN_OUT = "questions_ran_out"

_SETUP_FIELDS = frozenset(
    {"teams", "cards_per_team", "source", "facilitator_sees_mapping", "resolve_immediately", "players"}
)
_VALID_ANSWER_CARD = "For Answer Cards to be valid they must include the Question Number, Answer and Team ID"


# --- the values a state is made of -------------------------------------------------------


@dataclass(frozen=True)
class Team:
    """A team: Talia's internal id, its players, the Team ID it chose and its score."""

    id: str
    players: tuple[str, ...]
    team_id: TeamId | None = None
    score: int = 0


@dataclass(frozen=True)
class QuestionCard:
    """A Question Card: its unique Question Number, the team holding it, its question."""

    number: int
    team: str
    text: str | None = None
    status: str = IN_HAND
    rounds: tuple[int, ...] = ()  # the rounds it was submitted in


@dataclass(frozen=True)
class AnswerCard:
    """An Answer Card; ``id`` is the neutral id it gets when its Round Deck is revealed."""

    question_number: int
    team: str
    text: str
    id: str | None = None


@dataclass(frozen=True)
class Mark:
    """The marking of one question: its best answers and what each winning team gets."""

    question_number: int
    best_answers: tuple[str, ...]
    winners: tuple[str, ...]  # internal team ids; never shown
    points_each: int


@dataclass(frozen=True)
class RoundDeck:
    """The Round Deck of one Question Round, from its first question card to its marking.

    ``questions`` and ``answers`` are in submission order (the server's record);
    ``revealed`` is the shuffled deck once resolved: ``q<number>`` for a question card,
    the answer id for an answer card.
    """

    number: int
    kind: str  # FRESH or REPLAY
    due: tuple[str, ...]  # the teams due to submit a question card
    questions: tuple[int, ...] = ()
    answers: tuple[AnswerCard, ...] = ()
    status: str = DECK_QUESTIONS
    set_aside: tuple[int, ...] = ()
    revealed: tuple[str, ...] = ()
    marks: tuple[Mark, ...] = ()

    @property
    def answered(self) -> tuple[int, ...]:
        """The round's questions that got at least one answer, in submission order."""
        asked = {answer.question_number for answer in self.answers}
        return tuple(number for number in self.questions if number in asked)


@dataclass(frozen=True)
class Outcome:
    reason: str  # ENDED_BY_FACILITATOR or QUESTIONS_RAN_OUT


@dataclass(frozen=True)
class State:
    """A Know game.  ``questions[n - 1]`` is the card with Question Number ``n``."""

    variant: str
    seed: int
    teams: tuple[Team, ...]
    cards_per_team: int
    source: str
    facilitator_sees_mapping: bool
    questions: tuple[QuestionCard, ...]
    rounds: tuple[RoundDeck, ...] = ()
    result: Outcome | None = None
    resolve_immediately: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (server only: it links everything)."""
        return {
            "game": GAME,
            "variant": self.variant,
            "seed": self.seed,
            "teams": [
                {"id": t.id, "players": list(t.players), "team_id": t.team_id, "score": t.score}
                for t in self.teams
            ],
            "cards_per_team": self.cards_per_team,
            "source": self.source,
            "facilitator_sees_mapping": self.facilitator_sees_mapping,
            "resolve_immediately": self.resolve_immediately,
            "questions": [
                {
                    "number": q.number,
                    "team": q.team,
                    "text": q.text,
                    "status": q.status,
                    "rounds": list(q.rounds),
                }
                for q in self.questions
            ],
            "rounds": [_deck_dict(deck) for deck in self.rounds],
            "phase": phase(self),
            "score_record": score_record(self),
            "terminal": self.result is not None,
            "outcome": outcome(self),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Read a state written by :meth:`to_dict` (``ValueError`` if it is not one)."""
        try:
            return _state_from_data(data)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ValueError(f"Not a Know state: {error}") from error


def _deck_dict(deck: RoundDeck) -> dict[str, Any]:
    return {
        "number": deck.number,
        "kind": deck.kind,
        "due": list(deck.due),
        "questions": list(deck.questions),
        "answers": [
            {"question_number": a.question_number, "team": a.team, "text": a.text, "id": a.id}
            for a in deck.answers
        ],
        "status": deck.status,
        "set_aside": list(deck.set_aside),
        "revealed": list(deck.revealed),
        "marks": [
            {
                "question_number": m.question_number,
                "best_answers": list(m.best_answers),
                "winners": list(m.winners),
                "points_each": m.points_each,
            }
            for m in deck.marks
        ],
    }


def _state_from_data(data: Mapping[str, Any]) -> State:
    if data.get("game") != GAME:
        raise ValueError(f"game is {data.get('game')!r}.")
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}.")
    outcome_data = data.get("outcome")
    return State(
        variant=variant,
        seed=int(data["seed"]),
        teams=tuple(
            Team(id=t["id"], players=tuple(t["players"]), team_id=t["team_id"], score=int(t["score"]))
            for t in data["teams"]
        ),
        cards_per_team=int(data["cards_per_team"]),
        source=str(data["source"]),
        facilitator_sees_mapping=bool(data["facilitator_sees_mapping"]),
        resolve_immediately=bool(data.get("resolve_immediately", False)),
        questions=tuple(
            QuestionCard(
                number=int(q["number"]),
                team=q["team"],
                text=q["text"],
                status=q["status"],
                rounds=tuple(int(n) for n in q["rounds"]),
            )
            for q in data["questions"]
        ),
        rounds=tuple(
            RoundDeck(
                number=int(d["number"]),
                kind=d["kind"],
                due=tuple(d["due"]),
                questions=tuple(int(n) for n in d["questions"]),
                answers=tuple(
                    AnswerCard(
                        question_number=int(a["question_number"]), team=a["team"], text=a["text"], id=a["id"]
                    )
                    for a in d["answers"]
                ),
                status=d["status"],
                set_aside=tuple(int(n) for n in d["set_aside"]),
                revealed=tuple(d["revealed"]),
                marks=tuple(
                    Mark(
                        question_number=int(m["question_number"]),
                        best_answers=tuple(m["best_answers"]),
                        winners=tuple(m["winners"]),
                        points_each=int(m["points_each"]),
                    )
                    for m in d["marks"]
                ),
            )
            for d in data["rounds"]
        ),
        result=None if outcome_data is None else Outcome(reason=outcome_data["reason"]),
    )


def state_from_dict(data: Mapping[str, Any]) -> State:
    """The state a :meth:`State.to_dict` wrote.

    >>> state = new_game(_example_setup(), seed=1, variant="facilitator_marks")
    >>> state_from_dict(state.to_dict()) == state
    True
    """
    return State.from_dict(data)


# --- the rulebook's numbers ----------------------------------------------------------------


def answer_limit(teams: int) -> int:
    """Answer Cards a team may submit per round: Ceiling((Number of Teams - 1) / 2).

    >>> [answer_limit(t) for t in range(2, 9)]
    [1, 1, 2, 2, 3, 3, 4]
    """
    return math.ceil((teams - 1) / 2)


def point_pool(teams: int) -> int:
    """The Point Pool of every question: (Teams - 1) points.

    >>> point_pool(6)
    5
    """
    return teams - 1


def points_each(pool: int, winners: int) -> int:
    """What each winning team gets: "the higher of 1 or the Floor(Available Points / Number of
    Winning Teams)"; nothing when no answer won.

    >>> points_each(5, 2), points_each(6, 4), points_each(2, 3), points_each(5, 0)
    (2, 1, 1, 0)
    """
    if winners <= 0:
        return 0
    return max(1, pool // winners)


# --- setup ---------------------------------------------------------------------------------


def _parse_teams(raw: Any) -> tuple[Team, ...]:
    return tuple(
        Team(id=id_, players=players) for id_, players in teams_parse(raw, least=2, facilitator=FACILITATOR)
    )


def _teams_of_one(raw: Any) -> list[dict[str, Any]]:
    """Without ``teams``, each joined player is a team of one: the team device."""
    if not isinstance(raw, list):
        raise InvalidSetup("'teams' must be a list of at least two teams, each {'id', 'players'}.")
    teams = [{"id": player, "players": [player]} for player in players_parse(raw)]
    if len(teams) < 2:
        raise InvalidSetup(
            f"Know needs at least two teams: {len(teams)} team device{'s' if len(teams) != 1 else ''} joined."
        )
    return teams


def new_game(setup: Mapping[str, Any], *, seed: int, variant: str) -> State:
    """Deal the numbered blank Question Cards of a Know game; Question Prep begins.

    >>> state = new_game(_example_setup(), seed=1, variant="facilitator_marks")
    >>> phase(state), len(state.questions), sorted(q.number for q in state.questions)
    ('prep', 6, [1, 2, 3, 4, 5, 6])
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; Know has {', '.join(VARIANTS)}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup("The seed must be an integer.")
    if not isinstance(setup, Mapping):
        raise InvalidSetup("The setup must be an object with teams, cards_per_team and source.")
    unknown = sorted(set(setup) - _SETUP_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown setup field(s) {', '.join(unknown)}; Know reads {', '.join(sorted(_SETUP_FIELDS))}."
        )
    players = setup.get("players")
    if players is not None and not isinstance(players, list):
        raise InvalidSetup("'players', when given, must be a list of player ids or {'id', 'name'}.")
    raw_teams = setup.get("teams")
    if raw_teams is None and players is not None:
        raw_teams = _teams_of_one(players)
    teams = _parse_teams(raw_teams)
    cards_per_team = setup.get("cards_per_team")
    if (
        not isinstance(cards_per_team, int)
        or isinstance(cards_per_team, bool)
        or not 1 <= cards_per_team <= MAX_CARDS_PER_TEAM
    ):
        raise InvalidSetup(f"'cards_per_team' must be a whole number from 1 to {MAX_CARDS_PER_TEAM}.")
    source = setup.get("source")
    if not isinstance(source, str) or not source.strip():
        raise InvalidSetup("'source' must name the agreed source of answers.")
    sees_mapping = setup.get("facilitator_sees_mapping", False)
    if not isinstance(sees_mapping, bool):
        raise InvalidSetup("'facilitator_sees_mapping' must be true or false.")
    immediately = setup.get("resolve_immediately", False)
    if not isinstance(immediately, bool):
        raise InvalidSetup("'resolve_immediately' must be true or false.")
    return State(
        variant=variant,
        seed=seed,
        teams=teams,
        cards_per_team=cards_per_team,
        source=source.strip(),
        facilitator_sees_mapping=sees_mapping,
        questions=_deal(teams, cards_per_team, seed),
        resolve_immediately=immediately,
    )


def _deal(teams: Sequence[Team], cards_per_team: int, seed: int) -> tuple[QuestionCard, ...]:
    """ID and Question Prep: numbered cards "collected put face down, then shuffled", and "Teams are
    given an equal number of blank Question Cards"."""
    numbers = list(range(1, len(teams) * cards_per_team + 1))
    rng_for(seed, "deal").shuffle(numbers)
    holder = {number: teams[index % len(teams)].id for index, number in enumerate(numbers)}
    return tuple(QuestionCard(number=n, team=holder[n]) for n in sorted(holder))


# --- reading the game ----------------------------------------------------------------------


def phase(state: State) -> str:
    """Where the game is: prep, questions, answers, between_rounds, resolution or over.

    >>> phase(new_game(_example_setup(), seed=1, variant="team_marks"))
    'prep'
    """
    if state.result is not None:
        return OVER
    if not state.rounds:
        return PREP
    last = state.rounds[-1]
    if last.status in (DECK_QUESTIONS, DECK_ANSWERS):
        return last.status
    if any(deck.status == RESOLVING for deck in state.rounds):
        return RESOLUTION
    return BETWEEN_ROUNDS


def _team_of(state: State, player: str) -> Team:
    for team in state.teams:
        if player in team.players:
            return team
    raise InvalidAction(f"There is no player {player!r} in this game.")


def _card(state: State, number: int) -> QuestionCard | None:
    if 1 <= number <= len(state.questions):
        return state.questions[number - 1]
    return None


def _open_deck(state: State) -> RoundDeck | None:
    if state.result is None and state.rounds and state.rounds[-1].status in (DECK_QUESTIONS, DECK_ANSWERS):
        return state.rounds[-1]
    return None


def _resolving_deck(state: State) -> RoundDeck | None:
    return next((deck for deck in state.rounds if deck.status == RESOLVING), None)


def score_record(state: State) -> dict[TeamId, int]:
    """The public score record, keyed by Team ID and sorted by it (never in team order);
    empty until the first Question Round, when the Team IDs are final.

    >>> score_record(new_game(_example_setup(), seed=1, variant="team_marks"))
    {}
    """
    if not state.rounds:
        return {}
    chosen = [(t.team_id, t.score) for t in state.teams if t.team_id is not None]
    return {
        team_id: score for team_id, score in sorted(chosen, key=lambda item: (team_key(item[0]), item[0]))
    }


def _ready_to_start(state: State) -> str | None:
    """Why the first Question Round cannot start yet, or ``None``."""
    without_id = sum(team.team_id is None for team in state.teams)
    if without_id:
        return (
            f"Every team needs its Team ID before the first Question Round; {without_id} "
            f"team{'s have' if without_id > 1 else ' has'} none yet."
        )
    blank = sum(card.text is None for card in state.questions)
    if blank:
        return (
            f"Every Question Card needs its question before the first Question Round; {blank} "
            f"card{'s are' if blank > 1 else ' is'} still blank."
        )
    return None


def _next_round_kind(state: State) -> str | None:
    """FRESH while any card was never submitted; then REPLAY while any is set aside."""
    if any(card.status == IN_HAND for card in state.questions):
        return FRESH
    if any(card.status == SET_ASIDE for card in state.questions):
        return REPLAY
    return None


def _playable(state: State, team: str, kind: str) -> list[int]:
    status = IN_HAND if kind == FRESH else SET_ASIDE
    return [card.number for card in state.questions if card.team == team and card.status == status]


def is_terminal(state: State) -> bool:
    """Whether the game is over.

    >>> is_terminal(new_game(_example_setup(), seed=1, variant="team_marks"))
    False
    """
    return state.result is not None


def outcome(state: State) -> dict[str, Any] | None:
    """``None`` while the game runs; then the final score record, ranking and reason.

    Everything in it is keyed by Team ID: it is public.

    >>> outcome(new_game(_example_setup(), seed=1, variant="team_marks")) is None
    True
    """
    if state.result is None:
        return None
    record = score_record(state)
    ranking = sorted(record, key=lambda team_id: -record[team_id])  # stable: ties by Team ID
    best = max(record.values(), default=None)
    return {
        "reason": state.result.reason,
        "score_record": record,
        "ranking": ranking,
        "winners": [team_id for team_id in ranking if record[team_id] == best],
    }


# --- actions ---------------------------------------------------------------------------------


def _is_facilitator(player: str | None) -> bool:
    return player is None or player == FACILITATOR


def legal_actions(state: State, player: str | None) -> list[dict[str, Any]]:
    """What ``player`` may do now (``"facilitator"`` or ``None``: the facilitator).

    Free text (``team_id`` of ``choose_team_id``, ``text``, ``best_answers``) is left out:
    the player types or picks it.

    >>> state = new_game(_example_setup(), seed=1, variant="facilitator_marks")
    >>> [a["type"] for a in legal_actions(state, "facilitator")]
    ['end_game']
    >>> sorted({a["type"] for a in legal_actions(state, "p1")})
    ['choose_team_id', 'write_question']
    """
    if _is_facilitator(player):
        return _facilitator_actions(state)
    assert player is not None
    team = _team_of(state, player)
    now = phase(state)
    if now == PREP:
        own = [card.number for card in state.questions if card.team == team.id]
        return [{"type": "choose_team_id"}] + [{"type": "write_question", "card": n} for n in own]
    deck = _open_deck(state)
    if now == QUESTIONS and deck is not None:
        if team.id not in deck.due or _submitted_question(state, deck, team.id) is not None:
            return []
        return [{"type": "submit_question", "card": n} for n in _playable(state, team.id, deck.kind)]
    if now == ANSWERS and deck is not None:
        given = [a.question_number for a in deck.answers if a.team == team.id]
        if len(given) >= answer_limit(len(state.teams)):
            return []
        return [
            {"type": "submit_answer", "question_number": n, "team_id": team.team_id}
            for n in sorted(deck.questions)
            if n not in given and _card_team(state, n) != team.id
        ]
    resolving = _resolving_deck(state)
    if now == RESOLUTION and resolving is not None and state.variant == "team_marks":
        return [
            {"type": "mark", "question_number": n}
            for n in _revealed_questions(resolving)
            if _card_team(state, n) == team.id
        ]
    return []


def _facilitator_actions(state: State) -> list[dict[str, Any]]:
    now = phase(state)
    if now == OVER:
        return []
    actions: list[dict[str, Any]] = []
    if now == PREP and _ready_to_start(state) is None:
        actions.append({"type": "start_round"})
    deck = _open_deck(state)
    if deck is not None and (now == ANSWERS or deck.questions):
        actions.append({"type": "close_submissions"})
    if now == BETWEEN_ROUNDS:
        if _next_round_kind(state) is not None:
            actions.append({"type": "start_round"})
        actions.extend({"type": "resolve", "round": d.number} for d in state.rounds if d.status == PUT_ASIDE)
    resolving = _resolving_deck(state)
    if now == RESOLUTION and resolving is not None:
        # Marking, and re-marking until the round is closed (team_marks: re-marking only).
        marked = {m.question_number for m in resolving.marks}
        actions.extend(
            {"type": "mark", "question_number": n}
            for n in _revealed_questions(resolving)
            if state.variant == "facilitator_marks" or n in marked
        )
        if not _unmarked(resolving):
            actions.append({"type": "close_round"})
    actions.append({"type": "end_game"})
    return actions


def _card_team(state: State, number: int) -> str:
    card = _card(state, number)
    assert card is not None
    return card.team


def _submitted_question(state: State, deck: RoundDeck, team: str) -> int | None:
    return next((n for n in deck.questions if _card_team(state, n) == team), None)


def _unmarked(deck: RoundDeck) -> list[int]:
    marked = {m.question_number for m in deck.marks}
    return [n for n in _revealed_questions(deck) if n not in marked]


def _revealed_questions(deck: RoundDeck) -> list[int]:
    """The deck's answered questions in the order the shuffle revealed them."""
    return [int(key[1:]) for key in deck.revealed if key.startswith("q")]


def _acting_player(player: str | None, action: Mapping[str, Any]) -> str | None:
    named = action.get("player")
    if named is not None and not isinstance(named, str):
        raise InvalidAction("The action's 'player' must be a player id or 'facilitator'.")
    if player is not None and named is not None and named != player:
        raise InvalidAction(f"The action names player {named!r} but was sent for {player!r}.")
    return player if player is not None else named


def apply_action(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    """The state after ``player`` makes ``action``; the given state is never changed.

    Raises :class:`InvalidAction` for a malformed action (an Answer Card without its
    Question Number, Answer or Team ID is one) and :class:`IllegalAction` when the rules
    do not allow it now; the message says why and names no other team.

    >>> state = new_game(_example_setup(), seed=1, variant="facilitator_marks")
    >>> state = apply_action(state, "p1", {"type": "choose_team_id", "team_id": "Heron"})
    >>> apply_action(state, "p3", {"type": "choose_team_id", "team_id": "heron"})
    Traceback (most recent call last):
    ...
    games.engines.base.IllegalAction: That Team ID is taken; choose another.
    """
    if not isinstance(action, Mapping):
        raise InvalidAction("An action must be an object with a 'type'.")
    kind = action.get("type")
    acting = _acting_player(player, action)
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InvalidAction(f"Unknown action type {kind!r}; Know knows {', '.join(_HANDLERS)}.")
    if not _is_facilitator(acting):
        assert acting is not None
        _team_of(state, acting)  # an unknown player is malformed whatever the action
    return handler(state, acting, action)


def _check_running(state: State) -> None:
    if state.result is not None:
        raise IllegalAction("The game is over.")


def _require_facilitator(acting: str | None, what: str) -> None:
    if not _is_facilitator(acting):
        raise IllegalAction(f"Only the facilitator {what}.")


def _require_team(state: State, acting: str | None, what: str) -> Team:
    if _is_facilitator(acting):
        raise IllegalAction(f"Only a team's players {what}.")
    assert acting is not None
    return _team_of(state, acting)


def _text(action: Mapping[str, Any], field: str, message: str) -> str:
    value = action.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidAction(message)
    text = value.strip()
    if len(text) > MAX_TEXT_LENGTH:
        raise InvalidAction(f"A card holds at most {MAX_TEXT_LENGTH} characters.")
    return text


def _number(action: Mapping[str, Any], field: str, message: str) -> int:
    value = action.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidAction(message)
    return value


def _replace_team(state: State, team: Team) -> State:
    return replace(state, teams=tuple(team if t.id == team.id else t for t in state.teams))


def _replace_card(state: State, card: QuestionCard) -> State:
    return replace(state, questions=tuple(card if q.number == card.number else q for q in state.questions))


def _replace_deck(state: State, deck: RoundDeck) -> State:
    return replace(state, rounds=tuple(deck if d.number == deck.number else d for d in state.rounds))


def _choose_team_id(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """ID: "Each Team gives themselves a secret Team ID. It can be anything but it must be unique"."""
    team_id = team_id_clean(action.get("team_id"))
    _check_running(state)
    team = _require_team(state, acting, "choose their Team ID")
    if phase(state) != PREP:
        raise IllegalAction("Team IDs are final once the first Question Round has started.")
    team_id_refuse_clash(
        team_id,
        own=team.id,
        teams=[(t.id, t.players, t.team_id) for t in state.teams],
        facilitator=FACILITATOR,
    )
    return _replace_team(state, replace(team, team_id=team_id))


def _write_question(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Question Prep: "Teams write one question onto each Question Card, and mark the Card with their
    Team ID" (the card is marked with the team's Team ID as it stands when the rounds start)."""
    number = _number(action, "card", "Say which Question Card you write on: its number in 'card'.")
    text = _text(action, "text", "A Question Card needs its question in 'text'.")
    _check_running(state)
    team = _require_team(state, acting, "write their questions")
    if phase(state) != PREP:
        raise IllegalAction("Questions are written in Question Prep, before the first Question Round.")
    card = _card(state, number)
    if card is None or card.team != team.id:
        raise IllegalAction(f"Your team holds no Question Card {number}.")
    return _replace_card(state, replace(card, text=text))


def _start_round(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Question Round: each team due to play submits one Question Card (set-aside questions make new
    rounds "once all questions have been submitted")."""
    _check_running(state)
    _require_facilitator(acting, "starts a Question Round")
    now = phase(state)
    if now == PREP:
        reason = _ready_to_start(state)
        if reason is not None:
            raise IllegalAction(reason)
    elif now in (QUESTIONS, ANSWERS):
        raise IllegalAction("A Question Round is open: close its submissions first.")
    elif now == RESOLUTION:
        raise IllegalAction("Finish marking the Round Deck being resolved first.")
    kind = _next_round_kind(state)
    if kind is None:
        raise IllegalAction(
            "No questions are left to play: resolve the Round Decks put to one side, or end the game."
        )
    due = tuple(team.id for team in state.teams if _playable(state, team.id, kind))
    deck = RoundDeck(number=len(state.rounds) + 1, kind=kind, due=due)
    return replace(state, rounds=(*state.rounds, deck))


def _submit_question(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Question Round: "Teams privately submit one of their Question Cards, which is put face down into
    the rounds Round Deck"."""
    number = _number(action, "card", "Say which Question Card you submit: its number in 'card'.")
    _check_running(state)
    team = _require_team(state, acting, "submit their questions")
    deck = _open_deck(state)
    if deck is None or deck.status != DECK_QUESTIONS:
        raise IllegalAction("Question Cards are submitted at the start of a Question Round.")
    card = _card(state, number)
    if card is None or card.team != team.id:
        raise IllegalAction(f"Your team holds no Question Card {number}.")
    if _submitted_question(state, deck, team.id) is not None:
        raise IllegalAction("Your team has already submitted its Question Card for this round.")
    if team.id not in deck.due:
        raise IllegalAction("Your team has no question to submit in this round.")
    if deck.kind == FRESH and card.status == SET_ASIDE:
        raise IllegalAction(
            f"Question {number} was set aside; set-aside questions are played again once every "
            "question has been submitted. Submit another."
        )
    if deck.kind == FRESH and card.status != IN_HAND:
        raise IllegalAction(f"Question {number} has been played; submit another.")
    if deck.kind == REPLAY and card.status != SET_ASIDE:
        raise IllegalAction(f"Question {number} was not set aside; this round plays set-aside questions.")
    card = replace(card, status=IN_ROUND, rounds=(*card.rounds, deck.number))
    deck = replace(deck, questions=(*deck.questions, number))
    if all(_submitted_question(state, deck, due) is not None for due in deck.due):
        deck = replace(deck, status=DECK_ANSWERS)
    return _replace_deck(_replace_card(state, card), deck)


def _submit_answer(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Question Round: "each Team privately submits Ceiling(Number of Teams - 1 / 2) Answer Card(s)";
    Rules: valid cards "include the Question Number, Answer and Team ID"; "Teams cannot answer their
    own questions"; README: "At most one answer card per team per question"."""
    number = _number(action, "question_number", f"{_VALID_ANSWER_CARD}: this card has no Question Number.")
    text = _text(action, "text", f"{_VALID_ANSWER_CARD}: this card has no Answer.")
    raw_team_id = action.get("team_id")
    if not isinstance(raw_team_id, str) or not raw_team_id.strip():
        raise InvalidAction(f"{_VALID_ANSWER_CARD}: this card has no Team ID.")
    _check_running(state)
    team = _require_team(state, acting, "submit Answer Cards")
    deck = _open_deck(state)
    if deck is None or deck.status != DECK_ANSWERS:
        raise IllegalAction("Answer Cards are submitted once the round's questions are in the Round Deck.")
    if team.team_id is None or team_key(raw_team_id) != team_key(team.team_id):
        raise IllegalAction("An Answer Card carries your own team's Team ID.")
    if number not in deck.questions:
        raise IllegalAction(f"Question {number} is not in this round's Round Deck.")
    if _card_team(state, number) == team.id:
        raise IllegalAction("Teams cannot answer their own questions.")
    given = [a.question_number for a in deck.answers if a.team == team.id]
    if number in given:
        raise IllegalAction(f"Your team has already answered question {number}: one Answer Card a question.")
    limit = answer_limit(len(state.teams))
    if len(given) >= limit:
        raise IllegalAction(
            f"Your team has submitted its {limit} Answer Card{'s' if limit > 1 else ''} for this round "
            f"(Ceiling((Teams - 1) / 2) with {len(state.teams)} teams)."
        )
    answer = AnswerCard(question_number=number, team=team.id, text=text)
    return _replace_deck(state, replace(deck, answers=(*deck.answers, answer)))


def _close_submissions(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Close the question step early, or close the round: unanswered questions are "put aside" and the
    Round Deck "is either put to one side or marked immediately"."""
    _check_running(state)
    _require_facilitator(acting, "closes the submissions")
    deck = _open_deck(state)
    if deck is None:
        raise IllegalAction("No Question Round is open.")
    if deck.status == DECK_QUESTIONS:
        if not deck.questions:
            raise IllegalAction("No Question Card is in the Round Deck yet.")
        return _replace_deck(state, replace(deck, status=DECK_ANSWERS))
    answered = deck.answered
    set_aside = tuple(n for n in deck.questions if n not in answered)
    for number in set_aside:
        card = _card(state, number)
        assert card is not None
        state = _replace_card(state, replace(card, status=SET_ASIDE))
    deck = replace(deck, status=PUT_ASIDE if answered else RESOLVED, set_aside=set_aside)
    state = _replace_deck(state, deck)
    if answered and state.resolve_immediately:
        return _reveal(state, deck)
    return _check_questions_ran_out(state)


def _resolve(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Resolution: "ensure the Round Deck has been shuffled before revealing its cards"; answers are
    revealed without Team IDs, each with a neutral id in the shuffled order."""
    number = action.get("round")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        raise InvalidAction("The 'round' to resolve must be the number of a Round Deck, or left out.")
    _check_running(state)
    _require_facilitator(acting, "resolves a Round Deck")
    now = phase(state)
    if now in (QUESTIONS, ANSWERS):
        raise IllegalAction("A Question Round is open: close its submissions first.")
    if now == RESOLUTION:
        raise IllegalAction("Finish marking the Round Deck being resolved first.")
    waiting = [deck for deck in state.rounds if deck.status == PUT_ASIDE]
    if not waiting:
        raise IllegalAction("No Round Deck is waiting to be resolved.")
    if number is None:
        deck = waiting[0]
    else:
        found = next((d for d in waiting if d.number == number), None)
        if found is None:
            raise IllegalAction(f"Round {number}'s deck is not waiting to be resolved.")
        deck = found
    return _reveal(state, deck)


def _reveal(state: State, deck: RoundDeck) -> State:
    """Shuffle a Round Deck put to one side and reveal it, answers under neutral ids."""
    cards: list[str | int] = [f"q{n}" for n in deck.answered]
    cards.extend(range(len(deck.answers)))
    rng_for(state.seed, "round", deck.number).shuffle(cards)
    ids: dict[int, str] = {}
    revealed: list[str] = []
    for card in cards:
        if isinstance(card, int):
            ids[card] = f"a{len(ids) + 1}"
            revealed.append(ids[card])
        else:
            revealed.append(card)
    answers = tuple(replace(answer, id=ids[index]) for index, answer in enumerate(deck.answers))
    return _replace_deck(state, replace(deck, status=RESOLVING, answers=answers, revealed=tuple(revealed)))


def _mark(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Resolution: "mark the answers keeping a public record of scores against Team ID's"; "Best answers
    receive an equal share of the point pool".  A question marked before is re-marked (a dispute),
    until the round is closed."""
    number = _number(
        action, "question_number", "Say which question you mark: its number in 'question_number'."
    )
    best = action.get("best_answers")
    if not isinstance(best, list) or not all(isinstance(answer_id, str) for answer_id in best):
        raise InvalidAction("The 'best_answers' must list the ids of the best answers (it may be empty).")
    if len(set(best)) != len(best):
        raise InvalidAction("An answer is listed twice in 'best_answers'.")
    _check_running(state)
    deck = _resolving_deck(state)
    if deck is None:
        raise IllegalAction("No Round Deck is being resolved.")
    if number not in _revealed_questions(deck):
        raise IllegalAction(f"Question {number} is not in the Round Deck being resolved.")
    marked = number in {m.question_number for m in deck.marks}
    if state.variant == "facilitator_marks":
        _require_facilitator(acting, "marks the answers in this game")
    elif _is_facilitator(acting):
        if not marked:
            raise IllegalAction(
                "In this game each question's own team marks its answers; the facilitator may "
                "re-mark a question once it is marked."
            )
    else:
        assert acting is not None
        if _team_of(state, acting).id != _card_team(state, number):
            raise IllegalAction(f"Only the team that wrote question {number} marks it.")
    answers = {a.id: a for a in deck.answers if a.question_number == number}
    for answer_id in best:
        if answer_id not in answers:
            raise IllegalAction(f"Answer {answer_id!r} is not an answer to question {number}.")
    winners = tuple(answers[answer_id].team for answer_id in best)
    mark = Mark(
        question_number=number,
        best_answers=tuple(sorted(best, key=deck.revealed.index)),
        winners=winners,
        points_each=points_each(point_pool(len(state.teams)), len(winners)),
    )
    card = _card(state, number)
    assert card is not None
    state = _replace_card(state, replace(card, status=MARKED))
    # A re-mark replaces the earlier marking of the question, in its place.
    if marked:
        marks = tuple(mark if m.question_number == number else m for m in deck.marks)
    else:
        marks = (*deck.marks, mark)
    return _replace_deck(state, replace(deck, marks=marks))


def _close_round(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """Resolution ends: "keeping a public record of scores against Team ID's", the deck's points
    are added all at once; from now on its marking is final."""
    _check_running(state)
    _require_facilitator(acting, "closes the round")
    deck = _resolving_deck(state)
    if deck is None:
        raise IllegalAction("No Round Deck is being resolved.")
    left = _unmarked(deck)
    if left:
        raise IllegalAction(
            f"Mark every question first; {len(left)} question{'s are' if len(left) > 1 else ' is'} "
            "not marked yet."
        )
    return _check_questions_ran_out(_score_deck(state, deck))


def _score_deck(state: State, deck: RoundDeck) -> State:
    """The public score record takes a deck's points at once, when its marking is over."""
    gained: dict[str, int] = {}
    for mark in deck.marks:
        for team in mark.winners:
            gained[team] = gained.get(team, 0) + mark.points_each
    teams = tuple(replace(t, score=t.score + gained.get(t.id, 0)) for t in state.teams)
    return _replace_deck(replace(state, teams=teams), replace(deck, status=RESOLVED))


def _check_questions_ran_out(state: State) -> State:
    """The end when "the questions run out": every question card has been marked."""
    if all(card.status == MARKED for card in state.questions):
        return replace(state, result=Outcome(reason=QUESTIONS_RAN_OUT))
    return state


def _end_game(state: State, acting: str | None, action: Mapping[str, Any]) -> State:
    """The facilitator ends the game; questions already marked in a deck being resolved count."""
    _check_running(state)
    _require_facilitator(acting, "ends the game")
    deck = _resolving_deck(state)
    if deck is not None:
        state = _score_deck(state, deck)
    return replace(state, result=Outcome(reason=ENDED_BY_FACILITATOR))


_HANDLERS = {
    "choose_team_id": _choose_team_id,
    "write_question": _write_question,
    "start_round": _start_round,
    "submit_question": _submit_question,
    "submit_answer": _submit_answer,
    "close_submissions": _close_submissions,
    "resolve": _resolve,
    "mark": _mark,
    "close_round": _close_round,
    "end_game": _end_game,
}


# --- what a player sees ----------------------------------------------------------------------


def player_view(state: State, player: str | None) -> dict[str, Any]:
    """What ``player`` may see: a player, ``"facilitator"``, or ``None`` (a spectator).

    Another team's internal id, players, Team ID link, questions, answers and marking
    never appear; the answers of a resolved deck are shuffled, with neutral ids and no
    Team IDs.  Only the player's own team is shown as such (``your_team``, ``yours``).

    >>> state = new_game(_example_setup(), seed=1, variant="facilitator_marks")
    >>> view = player_view(state, "p1")
    >>> view["your_team"]["id"], view["your_team"]["players"], "team-b" in str(view)
    ('team-a', ['p1', 'p2'], False)
    """
    if _is_facilitator(player):
        role = "facilitator" if player == FACILITATOR else "spectator"
        own: Team | None = None
    else:
        assert player is not None
        role, own = "player", _team_of(state, player)
    now = phase(state)
    view: dict[str, Any] = {
        "game": GAME,
        "variant": state.variant,
        "you": player,
        "role": role,
        "marking": "facilitator" if state.variant == "facilitator_marks" else "question_team",
        "source": state.source,
        "team_count": len(state.teams),
        "cards_per_team": state.cards_per_team,
        "point_pool": point_pool(len(state.teams)),
        "answer_limit": answer_limit(len(state.teams)),
        "phase": now,
        "prep": None,
        "round": None,
        "put_aside_rounds": [d.number for d in state.rounds if d.status == PUT_ASIDE],
        "resolutions": [
            _resolution_view(state, d, own)
            for d in state.rounds
            if d.status in (RESOLVING, RESOLVED) and d.revealed
        ],
        "set_aside": sorted(card.number for card in state.questions if card.status == SET_ASIDE),
        "score_record": score_record(state),
    }
    if now == PREP:
        view["prep"] = {
            "teams_with_team_id": sum(t.team_id is not None for t in state.teams),
            "cards_written": sum(card.text is not None for card in state.questions),
            "cards_total": len(state.questions),
        }
    deck = _open_deck(state)
    if deck is not None:
        view["round"] = {
            "number": deck.number,
            "kind": deck.kind,
            "step": deck.status,
            "questions_submitted": len(deck.questions),
            "questions_due": len(deck.due),
            # Shown all at once when the answers open, by number (numbers were dealt at random).
            "questions": [_question_entry(state, n, own) for n in sorted(deck.questions)]
            if deck.status == DECK_ANSWERS
            else [],
        }
    if own is not None:
        view["your_team"] = _own_team_view(state, own)
    if role == "facilitator":
        view["facilitator"] = _facilitator_view(state)
    view.update(
        {
            # A spectator (the projector) watches: the table's actions are the facilitator's
            # (``legal_actions(state, None)``), not a screen's that nobody acts from.
            "legal_actions": [] if role == "spectator" else legal_actions(state, player),
            "terminal": state.result is not None,
            "outcome": outcome(state),
        }
    )
    return view


def _question_entry(state: State, number: int, own: Team | None) -> dict[str, Any]:
    card = _card(state, number)
    assert card is not None
    entry: dict[str, Any] = {"number": number, "text": card.text}
    if own is not None:
        entry["yours"] = card.team == own.id
    return entry


def _resolution_view(state: State, deck: RoundDeck, own: Team | None) -> dict[str, Any]:
    marks = {m.question_number: m for m in deck.marks}
    by_question: dict[int, list[dict[str, Any]]] = {n: [] for n in _revealed_questions(deck)}
    answers = {a.id: a for a in deck.answers}
    for key in deck.revealed:
        if key in answers:
            answer = answers[key]
            entry: dict[str, Any] = {"id": key, "text": answer.text}
            if own is not None:
                entry["yours"] = answer.team == own.id
            by_question[answer.question_number].append(entry)
    questions = []
    for number, revealed_answers in by_question.items():
        mark = marks.get(number)
        question = _question_entry(state, number, own)
        question.update(
            {
                "answers": revealed_answers,
                "marked": mark is not None,
                "best_answers": None if mark is None else list(mark.best_answers),
                "points_each": None if mark is None else mark.points_each,
            }
        )
        questions.append(question)
    return {
        "round": deck.number,
        "status": deck.status,
        "revealed": list(deck.revealed),
        "questions": questions,
    }


def _own_team_view(state: State, team: Team) -> dict[str, Any]:
    deck = _open_deck(state)
    this_round: dict[str, Any] | None = None
    if deck is not None:
        given = [a for a in deck.answers if a.team == team.id]
        this_round = {
            "due": team.id in deck.due,
            "question": _submitted_question(state, deck, team.id),
            "answers": [{"question_number": a.question_number, "text": a.text} for a in given],
            "answers_left": max(0, answer_limit(len(state.teams)) - len(given)),
        }
    return {
        "id": team.id,
        "players": list(team.players),
        "team_id": team.team_id,
        "score": team.score if state.rounds else None,
        "cards": [
            {"number": card.number, "text": card.text, "status": card.status, "rounds": list(card.rounds)}
            for card in state.questions
            if card.team == team.id
        ],
        "this_round": this_round,
    }


def _facilitator_view(state: State) -> dict[str, Any]:
    """The facilitator set the teams up, so sees them; their Team IDs only with
    ``facilitator_sees_mapping``.  Progress is counted, never told per team after Question Prep."""
    teams = []
    for team in state.teams:
        entry: dict[str, Any] = {"id": team.id, "players": list(team.players)}
        if not state.rounds:
            entry["has_team_id"] = team.team_id is not None
            entry["cards_written"] = sum(c.team == team.id and c.text is not None for c in state.questions)
        if state.facilitator_sees_mapping:
            entry["team_id"] = team.team_id
        teams.append(entry)
    deck = _open_deck(state)
    return {
        "teams": teams,
        "sees_mapping": state.facilitator_sees_mapping,
        "answers_submitted": None if deck is None else len(deck.answers),
        "start_blocked_because": _ready_to_start(state) if phase(state) == PREP else None,
        "if_ended_now": _if_ended_now(state),
    }


def _if_ended_now(state: State) -> dict[str, Any] | None:
    """What ``end_game`` would leave unscored, for the facilitator to read before confirming:
    decks put to one side are never marked, and in the deck being resolved only the questions
    marked so far count.  Counts only, no team.  ``None`` once the game is over."""
    if state.result is not None:
        return None
    put_aside = [deck for deck in state.rounds if deck.status == PUT_ASIDE]
    resolving = _resolving_deck(state)
    deck = _open_deck(state)
    return {
        "put_aside_rounds": [d.number for d in put_aside],
        "put_aside_questions": sum(len(d.answered) for d in put_aside),
        "resolving_round": None if resolving is None else resolving.number,
        "resolving_marked": 0 if resolving is None else len(resolving.marks),
        "resolving_unmarked": 0 if resolving is None else len(_unmarked(resolving)),
        "open_round": None if deck is None else deck.number,
        "unplayed_questions": sum(card.status in (IN_HAND, SET_ASIDE) for card in state.questions),
    }


def _example_setup() -> dict[str, Any]:
    """Three teams of two, two cards each, for the examples in the docstrings."""
    return {
        "teams": [
            {"id": "team-a", "players": ["p1", "p2"]},
            {"id": "team-b", "players": ["p3", "p4"]},
            {"id": "team-c", "players": ["p5", "p6"]},
        ],
        "cards_per_team": 2,
        "source": "Atlas of the World, 2020 edition",
    }
