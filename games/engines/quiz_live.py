"""A live quiz: the projector shows a built quiz's items one at a time, phones answer.

Issue 21, item 2 (a live team quiz).  The items are a built quiz's
(:class:`games.engines.quiz.Item`); each answer is checked and graded by the quiz engine
(:func:`games.engines.quiz.answer_clean`, :func:`games.engines.quiz.grade`, partial credit
included), so a live quiz scores exactly as the same quiz done as homework.  Teams and
their secret Team IDs work as in Know (``../shared/rules/know.md``, ID): no one sees who
is in which team or who in a team answered what.  The engine follows the API of
:mod:`games.engines.base`; the formats are in ``docs/replay.md`` (Live quiz).

Setup::

    {"items": [Item.to_dict(), ...],
     "teams": [{"id": "team-internal-1", "players": ["p1", "p2"]}, ...],
     "time": "off",
     "seconds": 30}

* ``items``: the quiz's items, in the order they are asked (1-100).
* ``teams``: one or more teams; ``id`` is Talia's internal id, ``players`` the player ids
  of its members (unique across teams, never ``"facilitator"``).  ``players`` (a list of
  player ids or ``{"id", "name"}``, the session layer's list of who joined) may be given
  instead: each player then answers alone, a team of one, or, with ``team_count`` (2 or
  more), the players are dealt into that many teams: shuffled with
  ``rng_for(seed, "teams")`` and dealt one at a time, so teams differ in size by at most
  one.  Names are never read.
* ``time``: ``"off"`` (default): only correctness counts and equal scores share a place;
  ``"tie_break"``: among equal scores the team that took less time in total is placed
  first.  Time never adds or takes a point.
* ``seconds`` (optional, 5-600): how long a question stays open; answers stamped later
  than that (with a grace of ``LATE_GRACE_SECONDS``) are refused.  Without it the
  facilitator closes each question.

Actors: a player id (answering for the player's team) or the facilitator,
``"facilitator"`` (``None`` also acts as the facilitator: the session layer's timer).  As a
viewer, ``None`` is a spectator (the projector).

Actions (``at`` is the server's wall clock in seconds, which the session layer stamps;
``question`` is the question's number, 1 for the first)::

    {"type": "choose_team_id", "team_id": "Blue Heron"}            # a player, in the lobby
    {"type": "open_question", "at": 1700000000.0}                    # facilitator
    {"type": "answer", "question": 1, "answer": {"choice": "b"}, "at": 1700000004.2}
    {"type": "close_question", "at": 1700000030.0}                   # facilitator / timer
    {"type": "end_game"}                                             # facilitator

Phases: ``lobby`` -> ``open`` (a question takes answers) -> ``closed`` (its right answer
and each team's own result are shown) -> ``open`` -> ... -> ``finished``.

Readings where the issue is silent:

* One answer per team per question, and the latest counts: a second answer while the
  question is open replaces the first (a team may change its mind; a phone that
  reconnects and sends its answer again changes nothing).  Its time is the time of the
  latest change, so changing an answer costs tie-break time; sending the same answer
  again does not.  An empty answer is refused ("choose an answer first").
* An answer names its question: an answer to a question that is closed (a phone that was
  slow or offline) is refused with the reason, never applied to the next question.
* Who in a team answered is not recorded: the state holds a team's answer only.
* The score of a team on a question is the quiz engine's grade of its answer (partial
  credit as in homework); an item that waits for the teacher's mark (a typed ``know``
  answer matching no best answer) scores 0 live, and the teacher marks it afterwards in
  the attempts the live quiz becomes.  Scores change when a question closes.
* A team's time on a question is from opening to its answer, or to closing if it did
  not answer; the tie-break compares the sums over all closed questions.
* Teams that have not chosen a Team ID when the first question opens get ``Team 1``,
  ``Team 2``, ... (numbers not taken, in an order drawn with ``rng_for(seed, "names")``),
  so a phone that never came back does not hold up the class.  Team IDs can be chosen
  only in the lobby and are unique ignoring case and spacing.
* ``end_game`` while a question is open closes it first (it counts); questions never
  opened do not count.  After the last question closes the facilitator ends the game.

Anonymity: :func:`player_view` shows a player its own team's Team ID, answer and results;
of other teams only the score record, keyed by Team ID.  Counts shown while a question is
open (how many teams answered) and after (how many got it right) name no team.  While a
question is open no view holds its key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from . import quiz
from .base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from .teams import TeamId, players_parse, team_id_clean, team_id_refuse_clash, team_key, teams_parse

__all__ = [
    "GAME",
    "VARIANTS",
    "Answer",
    "Asked",
    "State",
    "Team",
    "apply_action",
    "is_terminal",
    "legal_actions",
    "new_game",
    "outcome",
    "phase",
    "player_view",
    "question_grades",
    "score_record",
    "state_from_dict",
]

GAME: str = "quiz_live"
VARIANTS: tuple[str, ...] = ("standard",)

FACILITATOR = "facilitator"

LOBBY = "lobby"
OPEN = "open"
CLOSED = "closed"
FINISHED = "finished"

TIME_OFF = "off"
TIME_TIE_BREAK = "tie_break"
TIME_RULES = (TIME_OFF, TIME_TIE_BREAK)

MAX_ITEMS = 100
MIN_SECONDS, MAX_SECONDS = 5, 600
#: An answer stamped this long after the question's time ran out still counts: the
#: network's delay, not the student's.
LATE_GRACE_SECONDS = 1.0

_SETUP_FIELDS = frozenset({"items", "teams", "players", "team_count", "time", "seconds"})


@dataclass(frozen=True)
class Team:
    """A team (or a student alone): Talia's internal id, its players and its Team ID."""

    id: str
    players: tuple[str, ...]
    team_id: TeamId | None = None


@dataclass(frozen=True)
class Answer:
    """A team's answer to one question, as the quiz engine stores it, and when it came."""

    team: str
    answer: Mapping[str, Any]
    at: float


@dataclass(frozen=True)
class Asked:
    """A question that was opened: when, when it closed, and the teams' answers."""

    number: int
    opened_at: float
    closed_at: float | None = None
    answers: tuple[Answer, ...] = ()


@dataclass(frozen=True)
class State:
    """A live quiz.  ``asked[n - 1]`` is question ``n``; ``items[n - 1]`` its item."""

    seed: int
    variant: str
    items: tuple[quiz.Item, ...]
    teams: tuple[Team, ...]
    time: str = TIME_OFF
    seconds: int | None = None
    asked: tuple[Asked, ...] = ()
    finished: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (server only: it holds the keys and the teams)."""
        return {
            "game": GAME,
            "variant": self.variant,
            "seed": self.seed,
            "items": [item.to_dict() for item in self.items],
            "teams": [{"id": t.id, "players": list(t.players), "team_id": t.team_id} for t in self.teams],
            "time": self.time,
            "seconds": self.seconds,
            "asked": [
                {
                    "number": a.number,
                    "opened_at": a.opened_at,
                    "closed_at": a.closed_at,
                    "answers": [{"team": x.team, "answer": dict(x.answer), "at": x.at} for x in a.answers],
                }
                for a in self.asked
            ],
            "finished": self.finished,
            "phase": phase(self),
            "terminal": self.finished,
            "outcome": outcome(self),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Read a state written by :meth:`to_dict` (``ValueError`` if it is not one)."""
        try:
            return cls(
                seed=int(data["seed"]),
                variant=str(data["variant"]),
                items=tuple(quiz.Item.from_dict(item) for item in data["items"]),
                teams=tuple(
                    Team(id=str(t["id"]), players=tuple(str(p) for p in t["players"]), team_id=t["team_id"])
                    for t in data["teams"]
                ),
                time=str(data["time"]),
                seconds=None if data["seconds"] is None else int(data["seconds"]),
                asked=tuple(
                    Asked(
                        number=int(a["number"]),
                        opened_at=float(a["opened_at"]),
                        closed_at=None if a["closed_at"] is None else float(a["closed_at"]),
                        answers=tuple(
                            Answer(team=str(x["team"]), answer=dict(x["answer"]), at=float(x["at"]))
                            for x in a["answers"]
                        ),
                    )
                    for a in data["asked"]
                ),
                finished=bool(data["finished"]),
            )
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ValueError(f"Not a live quiz state: {error}") from error


def state_from_dict(data: Mapping[str, Any]) -> State:
    """:meth:`State.from_dict`, as :mod:`games.engines.base` names it for every game."""
    return State.from_dict(data)


# --- setup ---------------------------------------------------------------------------------


def _parse_items(raw: Any) -> tuple[quiz.Item, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_ITEMS:
        raise InvalidSetup(f"'items' must be a list of 1 to {MAX_ITEMS} quiz items.")
    items = []
    for index, entry in enumerate(raw, start=1):
        try:
            item = quiz.Item.from_dict(entry)
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidSetup(f"Item {index} is not a quiz item: {error}") from error
        if item.kind not in quiz.KINDS:
            raise InvalidSetup(f"Item {index} is of an unknown kind {item.kind!r}.")
        items.append(item)
    return tuple(items)


def _parse_teams(raw: Any) -> tuple[Team, ...]:
    return tuple(
        Team(id=id_, players=players) for id_, players in teams_parse(raw, least=1, facilitator=FACILITATOR)
    )


def _teams_dealt(raw: Any, team_count: Any, seed: int) -> list[dict[str, Any]]:
    """The joined players as teams of one, or dealt into ``team_count`` teams."""
    players = players_parse(raw)
    if team_count in (None, 0, 1):
        return [{"id": player, "players": [player]} for player in players]
    if not isinstance(team_count, int) or isinstance(team_count, bool) or not 2 <= team_count <= len(players):
        raise InvalidSetup(f"'team_count' must be from 2 to the number of players ({len(players)}).")
    rng_for(seed, "teams").shuffle(players)
    return [{"id": f"team-{n + 1}", "players": players[n::team_count]} for n in range(team_count)]


def new_game(setup: Mapping[str, Any], *, seed: int, variant: str = "standard") -> State:
    """A live quiz in its lobby: teams choose their Team IDs, no question is open yet.

    >>> state = new_game(_example_setup(), seed=1, variant="standard")
    >>> phase(state), len(state.items), [team.id for team in state.teams]
    ('lobby', 2, ['team-a', 'team-b'])
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; the live quiz has {', '.join(VARIANTS)}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup("The seed must be an integer.")
    if not isinstance(setup, Mapping):
        raise InvalidSetup("The setup must be an object with items and teams (or players).")
    unknown = sorted(set(setup) - _SETUP_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown setup field(s) {', '.join(unknown)}; it reads {', '.join(sorted(_SETUP_FIELDS))}."
        )
    raw_teams = setup.get("teams")
    if raw_teams is None:
        players = setup.get("players")
        if not isinstance(players, list):
            raise InvalidSetup("Give 'teams', or 'players' to answer alone.")
        raw_teams = _teams_dealt(players, setup.get("team_count"), seed)
    time = setup.get("time", TIME_OFF)
    if time not in TIME_RULES:
        raise InvalidSetup(f"'time' must be one of {', '.join(TIME_RULES)}.")
    seconds = setup.get("seconds")
    if seconds is not None and (
        not isinstance(seconds, int) or isinstance(seconds, bool) or not MIN_SECONDS <= seconds <= MAX_SECONDS
    ):
        raise InvalidSetup(f"'seconds' must be a whole number from {MIN_SECONDS} to {MAX_SECONDS}.")
    return State(
        seed=seed,
        variant=variant,
        items=_parse_items(setup.get("items")),
        teams=_parse_teams(raw_teams),
        time=time,
        seconds=seconds,
    )


# --- reading the game ----------------------------------------------------------------------


def phase(state: State) -> str:
    """``lobby``, ``open``, ``closed`` or ``finished``.

    >>> phase(new_game(_example_setup(), seed=1))
    'lobby'
    """
    if state.finished:
        return FINISHED
    if not state.asked:
        return LOBBY
    return OPEN if state.asked[-1].closed_at is None else CLOSED


def _team_of(state: State, player: str) -> Team:
    for team in state.teams:
        if player in team.players:
            return team
    raise IllegalAction("You are not playing in this quiz.")


def _answer_of(asked: Asked, team: str) -> Answer | None:
    return next((answer for answer in asked.answers if answer.team == team), None)


def question_grades(state: State, number: int) -> dict[str, quiz.Grade]:
    """Each team's grade on question ``number`` (by internal team id; server only).

    A team that did not answer is graded as not answering (0).

    >>> state = new_game(_example_setup(), seed=1)
    >>> state = apply_action(state, None, {"type": "open_question", "at": 0})
    >>> answer = {"type": "answer", "question": 1, "answer": {"choice": "a"}, "at": 2}
    >>> state = apply_action(state, "p1", answer)
    >>> {team: grade.score for team, grade in question_grades(state, 1).items()}
    {'team-a': 1.0, 'team-b': 0.0}
    """
    asked = state.asked[number - 1]
    item = state.items[number - 1]
    grades = {}
    for team in state.teams:
        given = _answer_of(asked, team.id)
        grades[team.id] = quiz.grade(item, None if given is None else given.answer)
    return grades


#: The grades of the closed questions of the last state asked about, kept for the next
#: view of the same state: the server builds every viewer's view of a version in turn
#: (31 views with 30 phones), and each holds the standings.
_graded: tuple[State, dict[int, dict[str, quiz.Grade]]] | None = None


def _closed_grades(state: State) -> dict[int, dict[str, quiz.Grade]]:
    """Each closed question's grades by team, graded once for all the views of ``state``."""
    global _graded
    kept = _graded
    if kept is not None and kept[0] is state:
        return kept[1]
    grades = {
        asked.number: question_grades(state, asked.number)
        for asked in state.asked
        if asked.closed_at is not None
    }
    _graded = (state, grades)
    return grades


def _time_on(asked: Asked, team: str) -> float:
    given = _answer_of(asked, team)
    end = given.at if given is not None else asked.closed_at
    return max(0.0, float(end if end is not None else asked.opened_at) - asked.opened_at)


def score_record(state: State) -> list[dict[str, Any]]:
    """The public standings, by place, then Team ID: ``{team_id, score, time, place}``.

    Only closed questions count.  ``time`` (seconds, total) is ``None`` unless the time
    rule is ``tie_break``; with it, equal scores are placed by less time, otherwise they
    share a place.  Before Team IDs are fixed (the lobby) the record is empty.

    >>> score_record(new_game(_example_setup(), seed=1))
    []
    """
    if any(team.team_id is None for team in state.teams):
        return []
    closed = [asked for asked in state.asked if asked.closed_at is not None]
    graded = [_closed_grades(state)[asked.number] for asked in closed]
    rows = []
    for team in state.teams:
        score = 0.0
        for grades in graded:
            score += grades[team.id].score
        time = (
            round(sum(_time_on(asked, team.id) for asked in closed), 3)
            if state.time == TIME_TIE_BREAK
            else None
        )
        rows.append({"team_id": team.team_id, "score": round(score, 4), "time": time})

    def rank(row: dict[str, Any]) -> tuple[float, float]:
        return (-row["score"], row["time"] if row["time"] is not None else 0.0)

    rows.sort(key=lambda row: (rank(row), team_key(str(row["team_id"]))))
    for index, row in enumerate(rows):
        earlier = rows[index - 1] if index else None
        row["place"] = earlier["place"] if earlier is not None and rank(earlier) == rank(row) else index + 1
    return rows


def is_terminal(state: State) -> bool:
    """Whether the quiz is over.

    >>> is_terminal(new_game(_example_setup(), seed=1))
    False
    """
    return state.finished


def outcome(state: State) -> dict[str, Any] | None:
    """``None`` while the quiz runs; then the standings and the questions asked (public).

    >>> outcome(new_game(_example_setup(), seed=1)) is None
    True
    """
    if not state.finished:
        return None
    record = score_record(state)
    return {
        "questions_asked": len(state.asked),
        "score_record": record,
        "winners": [row["team_id"] for row in record if row["place"] == 1],
    }


# --- actions ---------------------------------------------------------------------------------


def _is_facilitator(player: str | None) -> bool:
    return player is None or player == FACILITATOR


def legal_actions(state: State, player: str | None) -> list[dict[str, Any]]:
    """What ``player`` may do now; free input (a Team ID, an answer) is left for the player.

    >>> [a["type"] for a in legal_actions(new_game(_example_setup(), seed=1), None)]
    ['open_question', 'end_game']
    """
    now = phase(state)
    if now == FINISHED:
        return []
    if _is_facilitator(player):
        actions: list[dict[str, Any]] = []
        if now in (LOBBY, CLOSED) and len(state.asked) < len(state.items):
            actions.append({"type": "open_question"})
        if now == OPEN:
            actions.append({"type": "close_question"})
        actions.append({"type": "end_game"})
        return actions
    assert player is not None
    if not any(player in team.players for team in state.teams):
        return []
    if now == LOBBY:
        return [{"type": "choose_team_id"}]
    if now == OPEN:
        return [{"type": "answer", "question": state.asked[-1].number}]
    return []


def apply_action(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    """Apply ``action`` by ``player``; a new state, or a typed refusal changing nothing.

    >>> state = apply_action(new_game(_example_setup(), seed=1), "p1",
    ...     {"type": "choose_team_id", "team_id": "Heron"})
    >>> [team.team_id for team in state.teams]
    ['Heron', None]
    """
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        raise InvalidAction("An action is an object with a 'type'.")
    handler = _HANDLERS.get(action["type"])
    if handler is None:
        raise InvalidAction(
            f"Unknown action {action['type']!r}; the live quiz knows {', '.join(sorted(_HANDLERS))}."
        )
    if state.finished:
        raise IllegalAction("The quiz is over.")
    return handler(state, player, action)


def _require_facilitator(player: str | None, what: str) -> None:
    if not _is_facilitator(player):
        raise IllegalAction(f"Only the teacher can {what}.")


def _at(action: Mapping[str, Any]) -> float:
    at = action.get("at")
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        raise InvalidAction("The action needs the server's clock 'at' (seconds).")
    return float(at)


def _choose_team_id(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    if _is_facilitator(player):
        raise IllegalAction("Teams choose their own Team IDs.")
    assert player is not None
    team = _team_of(state, player)
    if phase(state) != LOBBY:
        raise IllegalAction("Team IDs are chosen before the first question.")
    team_id = team_id_clean(action.get("team_id"))
    team_id_refuse_clash(
        team_id,
        own=team.id,
        teams=[(t.id, t.players, t.team_id) for t in state.teams],
        facilitator=FACILITATOR,
    )
    return _replace_team(state, replace(team, team_id=team_id))


def _replace_team(state: State, team: Team) -> State:
    return replace(state, teams=tuple(team if other.id == team.id else other for other in state.teams))


def _name_the_unnamed(state: State) -> State:
    """Teams without a Team ID at the first question get ``Team n`` (see the readings)."""
    unnamed = [team for team in state.teams if team.team_id is None]
    if not unnamed:
        return state
    taken = {team_key(team.team_id) for team in state.teams if team.team_id}
    free = [f"Team {n}" for n in range(1, len(state.teams) * 2 + 1) if team_key(f"Team {n}") not in taken]
    names = free[: len(unnamed)]
    rng_for(state.seed, "names").shuffle(names)
    for team, name in zip(unnamed, names, strict=True):
        state = _replace_team(state, replace(team, team_id=name))
    return state


def _open_question(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    _require_facilitator(player, "open a question")
    at = _at(action)
    now = phase(state)
    if now == OPEN:
        raise IllegalAction("Close the open question first.")
    if len(state.asked) >= len(state.items):
        raise IllegalAction("Every question has been asked; end the quiz.")
    if now == LOBBY:
        state = _name_the_unnamed(state)
    else:
        at = max(at, state.asked[-1].closed_at or at)  # a clock that went back never runs time backwards
    return replace(state, asked=(*state.asked, Asked(number=len(state.asked) + 1, opened_at=at)))


def _answer(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    if _is_facilitator(player):
        raise IllegalAction("Teams answer; the teacher opens and closes the questions.")
    assert player is not None
    team = _team_of(state, player)
    number = action.get("question")
    if not isinstance(number, int) or isinstance(number, bool):
        raise InvalidAction("An answer names its question's number.")
    at = _at(action)
    if not 1 <= number <= len(state.asked):
        raise IllegalAction(f"Question {number} has not been asked yet.")
    asked = state.asked[number - 1]
    if asked.closed_at is not None:
        raise IllegalAction(f"Question {number} is closed; answers to it are no longer taken.")
    if state.seconds is not None and at > asked.opened_at + state.seconds + LATE_GRACE_SECONDS:
        raise IllegalAction(f"Time is up for question {number}.")
    item = state.items[number - 1]
    try:
        given = quiz.answer_clean(item, action.get("answer"))
    except quiz.InvalidAnswer as error:
        raise InvalidAction(str(error)) from error
    if given == quiz.answer_clean(item, {}):
        raise InvalidAction("Choose an answer first.")
    earlier = _answer_of(asked, team.id)
    if earlier is not None and dict(earlier.answer) == given:
        return state  # the same answer again (a reconnecting phone): nothing changes, not even its time
    answer = Answer(team=team.id, answer=given, at=max(at, asked.opened_at))
    answers = tuple(x for x in asked.answers if x.team != team.id) + (answer,)
    return replace(state, asked=(*state.asked[:-1], replace(asked, answers=answers)))


def _close(state: State, at: float) -> State:
    asked = state.asked[-1]
    return replace(state, asked=(*state.asked[:-1], replace(asked, closed_at=max(at, asked.opened_at))))


def _close_question(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    _require_facilitator(player, "close a question")
    at = _at(action)
    if phase(state) != OPEN:
        raise IllegalAction("No question is open.")
    return _close(state, at)


def _end_game(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    _require_facilitator(player, "end the quiz")
    if phase(state) == OPEN:
        state = _close(state, _at(action) if "at" in action else state.asked[-1].opened_at)
    elif phase(state) == LOBBY:
        state = _name_the_unnamed(state)
    return replace(state, finished=True)


_HANDLERS = {
    "choose_team_id": _choose_team_id,
    "open_question": _open_question,
    "answer": _answer,
    "close_question": _close_question,
    "end_game": _end_game,
}


# --- views -----------------------------------------------------------------------------------


def _public_question(state: State, asked: Asked) -> dict[str, Any]:
    item = state.items[asked.number - 1]
    return {
        "number": asked.number,
        "kind": item.kind,
        "prompt": dict(item.prompt),
        "points": item.points,
        "opened_at": asked.opened_at,
        "closes_at": None if state.seconds is None else asked.opened_at + state.seconds,
        "answered": len(asked.answers),
    }


def _reveal(state: State, asked: Asked) -> dict[str, Any]:
    item = state.items[asked.number - 1]
    grades = _closed_grades(state)[asked.number]
    return {
        "answer": item.key.get("answer"),
        "right": sum(grade.score == grade.points for grade in grades.values()),
        "some_credit": sum(0 < grade.score < grade.points for grade in grades.values()),
    }


def _own_result(state: State, asked: Asked, team: Team) -> dict[str, Any]:
    grade = _closed_grades(state)[asked.number][team.id]
    return {
        "score": grade.score,
        "points": grade.points,
        "parts": [
            {"label": part.label, "correct": part.correct, "given": part.given, "expected": part.expected}
            for part in grade.parts
        ],
    }


def player_view(state: State, player: str | None) -> dict[str, Any]:
    """What ``player`` may see: a player, ``"facilitator"``, or ``None`` (the projector).

    While a question is open no view holds its key; after it closes everyone sees the
    right answer and the counts, a team sees its own answer and result.  Other teams
    appear only in the score record, by Team ID; who in a team answered never appears.

    >>> state = new_game(_example_setup(), seed=1)
    >>> state = apply_action(state, None, {"type": "open_question", "at": 0})
    >>> view = player_view(state, "p1")
    >>> view["phase"], view["question"]["number"], "key" in str(view), "team-b" in str(view)
    ('open', 1, False, False)
    """
    if _is_facilitator(player):
        role = "facilitator" if player == FACILITATOR else "spectator"
        own: Team | None = None
    else:
        assert player is not None
        role, own = "player", _team_of(state, player)
    now = phase(state)
    current = state.asked[-1] if state.asked and now != LOBBY else None
    view: dict[str, Any] = {
        "game": GAME,
        "variant": state.variant,
        "you": player,
        "role": role,
        "phase": now,
        "time": state.time,
        "seconds": state.seconds,
        "question_count": len(state.items),
        "team_count": len(state.teams),
        "teams_with_team_id": sum(team.team_id is not None for team in state.teams),
        "solo": all(len(team.players) == 1 for team in state.teams),
        "question": None,
        "reveal": None,
        "score_record": score_record(state) if now in (CLOSED, FINISHED) else [],
    }
    if current is not None and (now in (OPEN, CLOSED) or current.closed_at is not None):
        view["question"] = _public_question(state, current)
        if current.closed_at is not None:
            view["reveal"] = _reveal(state, current)
    if own is not None:
        # A player knows who plays beside them (to sit together); never who answered what.
        mine: dict[str, Any] = {"team_id": own.team_id, "players": sorted(own.players)}
        if current is not None:
            given = _answer_of(current, own.id)
            mine["answer"] = None if given is None else dict(given.answer)
            if current.closed_at is not None:
                mine["result"] = _own_result(state, current, own)
        view["your_team"] = mine
    view.update(
        {
            "legal_actions": [] if role == "spectator" else legal_actions(state, player),
            "terminal": state.finished,
            "outcome": outcome(state),
        }
    )
    return view


def _example_setup() -> dict[str, Any]:
    options = [{"id": "a", "label": "1918"}, {"id": "b", "label": "1945"}, {"id": "c", "label": "1989"}]
    return {
        "items": [
            {
                "kind": "choice",
                "prompt": {"text": "Poland regained independence in", "options": options},
                "key": {"answer": "a"},
                "points": 1,
            },
            {
                "kind": "choice",
                "prompt": {"text": "The Round Table talks were in", "options": options},
                "key": {"answer": "c"},
                "points": 1,
            },
        ],
        "teams": [{"id": "team-a", "players": ["p1", "p2"]}, {"id": "team-b", "players": ["p3"]}],
    }
