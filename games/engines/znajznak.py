"""ZnajZnak (IPN): find the one symbol two cards share, say STOP and name it.

The rulebook is ``../shared/rules/znajznak.md`` (Rules: Warm-up, Duel, Multiplayer
Variant; Notes a-c); the readings Talia adds are in ``../shared/rules/README.md``
(ZnajZnak).  The engine follows the API of :mod:`games.engines.base`; the setup,
action and state formats are documented in ``docs/replay.md`` (ZnajZnak).

Setup::

    {"cards": [["s1", "s2", "s3"], ["s1", "s4", "s5"], ...],
     "names": {"s1": {"name": "Choinka bożonarodzeniowa", "alternatives": ["choinka"]}, ...},
     "players": [{"id": "p1", "name": "Ala", "age_rank": 2}, ...],
     "cards_per_player": 5,
     "timer": 600}

* ``cards``: the deck, each card a list of symbol keys (strings); any two cards must
  share exactly one symbol, else :class:`InvalidSetup` names the two cards.  Cards are
  known by their index in this list.
* ``names``: every symbol key on the cards has a name and optional alternatives.
* ``players``: seating order, 2-8 (warm-up), exactly 2 (duel: a class plays many
  duels, each its own game), 3-8 (multiplayer).  Optional, for "the youngest player":
  ``age_rank`` (1 = the youngest; the facilitator's age order, Talia's default) or
  ``birth_date`` (YYYY-MM-DD, for logs that carry one).
* ``cards_per_player``: duel and multiplayer, default 5 ("If the group has more than
  26 people, only four cards are dealt": the session layer decides and passes 4); a
  whole number of at least 1 that the deck holds for every player.  A new game is set
  up with 2 to 66 (:data:`MIN_CARDS_PER_PLAYER`, :data:`MAX_CARDS_PER_PLAYER`: the
  forms and services check it, ``games.models.validate_cards_per_player``); the engine
  still deals 1, so the logs of games dealt before that rule replay.  The warm-up deals
  the whole deck and ignores it.
* ``timer``: optional seconds (note c suggests 600); the engine does not keep time,
  the session layer sends ``{"type": "time_up"}`` when it runs out.

Actions: ``{"type": "stop", "player": id, "symbol": key}`` (says STOP and points at a
symbol), ``{"type": "name", "player": id, "text": "typed name"}``,
``{"type": "dont_know", "player": id}`` and ``{"type": "time_up"}`` (player ``None``).

Phases: ``looking`` (everybody not penalised may say STOP) -> ``naming`` (only the
player who said STOP may act; the others may not STOP, in multiplayer they cover
their cards) -> ``looking`` again, or ``over``.

Readings where the rulebook is silent or speaks of a table, not a screen:

* Piles are listed top card first: ``stacks[p][0]`` is the face-up top card, the last
  one is the bottom card; ``middle[0]`` is the top of the middle stack.
* Dealing: the deck is shuffled with ``rng_for(seed, "deal")`` and dealt one card at a
  time in seating order; each stack lists its cards in the order they were dealt.
  Warm-up: "dealt out evenly" - each player gets ``len(cards) // players`` cards and
  the leftover cards stay out of the game (``out``), as do the cards not dealt in the
  duel and multiplayer variants.  A warm-up needs at least two cards a player (with one
  the youngest would win by laying out the first card).  A new duel or multiplayer game is
  dealt at least two too: with one, the first to point at the common symbol on that last
  card wins ("That player does not have to name it") and nobody names a symbol.  At most
  66: the boxed game's 132 game cards ("Components") dealt to the two players of a duel.
* "The youngest player" (Warm-up: who lays the first card; note c: who wins a tie) is
  decided by the least personal data that does it: the facilitator's age order
  (``age_rank``, 1 = the youngest) when every player concerned has one; else the latest
  ``birth_date`` when every player concerned has one; else the first in seating order
  (in Talia: the order the players joined).  Equal ranks or dates keep seating order.
  Talia asks nobody for a birth date (``docs/znajznak.md``, "The youngest player").
* Warm-up: to be "the first to say its name" a player says STOP (points at the symbol)
  and then names it.  A wrong name or "I don't know" only loses the moment: the card
  back is shown (the view reveals the name, as turning the card over does), the card
  stays on the player's stack and everyone looks again.  There is no other penalty.
* Duel: "The two cards on the table are the ones in which the players look for a
  common symbol": both players compare the same two cards, the one each laid from the
  bottom of their stack.  "Their card" is the player's card on the table; "cards in
  hand" is the player's stack (the card on the table is not in hand).  A player whose
  stack is empty wins by pointing, first, at the common symbol: no naming.
* Multiplayer: "the player on the left" of ``players[i]`` is ``players[(i + 1) % n]``;
  the last player's left neighbour is the first.  "Their last card": a stack of one.
  The "start" commands are implicit: the game begins with everyone looking, and play
  returns to looking as soon as a naming is resolved.  While someone names, every
  player except the namer and the namer's left neighbour is shown as covered.
* Naming matches as :func:`games.engines.names.name_matches` says (the README's
  reading: case, Polish diacritics, punctuation and spaces do not count).
* A STOP points at a symbol on one of the two compared cards (any other symbol is
  refused: it cannot be pointed at).  If it is not on both, note a applies.
* Note a: a penalised player may not say STOP until another player has said STOP (any
  STOP, right or wrong, lifts the penalty).
* Note b: online, simultaneous STOPs are decided by the order the server received them
  (the order of the game log); the README's reading of "the youngest has precedence".
* Note c: ``time_up`` ends the game at once, even while a player is naming (that naming
  does not count).  The winner has the fewest cards in hand (the stack; in the duel the
  one card on the table is the same for both); a tie goes to the youngest (as above:
  age order, else birth dates, when known for all the tied players), else to the
  earlier in seating order.  The session layer keeps the time: ``games/timers.py``
  stores the deadline when a timed game starts and applies ``time_up`` once it passes.
* Every naming is kept in ``namings`` (player, symbol, typed text, correct, don't know)
  for the quizzes; the winning point on a last card is not a naming.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from .base import IllegalAction, InvalidAction, InvalidSetup, rng_for
from .names import name_matches

__all__ = [
    "GAME",
    "VARIANTS",
    "Claim",
    "Naming",
    "Outcome",
    "Player",
    "Reveal",
    "State",
    "SymbolName",
    "apply_action",
    "common_symbol",
    "compared_cards",
    "is_terminal",
    "legal_actions",
    "new_game",
    "outcome",
    "player_view",
    "state_from_dict",
]

GAME: str = "znajznak"
VARIANTS: tuple[str, ...] = ("warm_up", "duel", "multiplayer")

#: Players each variant allows, inclusive ("2-8 Players", duel pairs, "3-8 Players").
PLAYER_COUNTS: Mapping[str, tuple[int, int]] = MappingProxyType(
    {"warm_up": (2, 8), "duel": (2, 2), "multiplayer": (3, 8)}
)
#: "Each player receives five cards".
DEFAULT_CARDS_PER_PLAYER = 5
#: The fewest cards a new game deals a player: with one the game ends at the first STOP on
#: it ("That player does not have to name it"), before anyone names a symbol. The session
#: layer checks it (``games.models.validate_cards_per_player``); the engine deals 1 for old logs.
MIN_CARDS_PER_PLAYER = 2
#: The most: "132 game cards" (Components), the boxed game's deck, dealt to a duel's two players.
MAX_CARDS_PER_PLAYER = 132 // 2
#: Longest typed name accepted; longer text is refused as malformed.
MAX_NAME_LENGTH = 200

LOOKING = "looking"
NAMING = "naming"
OVER = "over"

#: The results a reveal shows under the card back.
RIGHT, WRONG, DONT_KNOW, NOT_NEEDED = "right", "wrong", "dont_know", "not_needed"

_SETUP_FIELDS = frozenset({"cards", "names", "players", "cards_per_player", "timer"})


# --- the values a state is made of -------------------------------------------------------


@dataclass(frozen=True)
class Player:
    """A seat at the table, in seating order."""

    id: str
    name: str
    birth_date: str | None = None
    #: The facilitator's age order: 1 is the youngest ("the youngest player").
    age_rank: int | None = None


@dataclass(frozen=True)
class SymbolName:
    """The name printed in bold on the card back, and the alternatives accepted."""

    name: str
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class Claim:
    """A STOP on the common symbol, waiting for its name."""

    player: str
    symbol: str


@dataclass(frozen=True)
class Naming:
    """One naming, right or wrong: what the quizzes read back."""

    player: str
    symbol: str
    text: str | None
    correct: bool
    dont_know: bool


@dataclass(frozen=True)
class Reveal:
    """The card back turned over after a naming: the correct name in bold, for everyone."""

    player: str
    symbol: str
    name: str
    result: str  # RIGHT, WRONG, DONT_KNOW or NOT_NEEDED (the winning point)
    text: str | None = None


@dataclass(frozen=True)
class Outcome:
    winner: str | None
    ranking: tuple[str, ...]
    reason: str  # "last_card" or "time_up"


@dataclass(frozen=True)
class State:
    """A ZnajZnak game.  Piles list card indices, top card first.

    ``stacks``, ``table`` follow the order of ``players``; ``table`` is used by the
    duel only (``None`` elsewhere), ``middle`` by the warm-up only.
    """

    variant: str
    seed: int
    cards: tuple[tuple[str, ...], ...]
    names: Mapping[str, SymbolName]
    players: tuple[Player, ...]
    cards_per_player: int | None
    timer: int | float | None
    stacks: tuple[tuple[int, ...], ...]
    table: tuple[int | None, ...]
    middle: tuple[int, ...]
    out: tuple[int, ...]
    phase: str = LOOKING
    claim: Claim | None = None
    penalised: tuple[str, ...] = ()
    reveal: Reveal | None = None
    namings: tuple[Naming, ...] = ()
    result: Outcome | None = None

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data; :meth:`from_dict` reads it back.

        The deck's ``cards`` and ``names`` are the same objects in the dicts of every state
        of one game (:func:`_deck_dict`): read the result, do not change it in place.
        """
        ids = [player.id for player in self.players]
        cards, names = _deck_dict(self.cards, self.names)
        data: dict[str, Any] = {
            "game": GAME,
            "variant": self.variant,
            "seed": self.seed,
            "cards": cards,
            "names": names,
            "players": [_player_dict(p) for p in self.players],
            "cards_per_player": self.cards_per_player,
            "timer": self.timer,
            "stacks": {pid: list(stack) for pid, stack in zip(ids, self.stacks, strict=True)},
        }
        if self.variant == "duel":
            data["table"] = dict(zip(ids, self.table, strict=True))
        if self.variant == "warm_up":
            data["middle"] = list(self.middle)
        data.update(
            {
                "out": list(self.out),
                "phase": self.phase,
                "claim": None
                if self.claim is None
                else {"player": self.claim.player, "symbol": self.claim.symbol},
                "penalised": list(self.penalised),
                "reveal": None if self.reveal is None else _reveal_dict(self.reveal),
                "namings": [_naming_dict(naming) for naming in self.namings],
                "terminal": self.result is not None,
                "outcome": outcome(self),
            }
        )
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Read a state written by :meth:`to_dict` (``ValueError`` if it is not one)."""
        try:
            return _state_from_data(data)
        except (KeyError, TypeError, AttributeError, InvalidSetup) as error:
            raise ValueError(f"Not a ZnajZnak state: {error}") from error


#: The JSON-ready form of recently seen decks, by the identity of the state's ``cards``
#: tuple: every state of a game holds the same ``cards`` and ``names`` objects (``replace``
#: keeps them), and they are most of what ``to_dict`` builds; the live path stores the
#: state after every action (``games.live.LiveTable.state_json``).
_decks: dict[int, tuple[Any, Any, list[list[str]], dict[str, dict[str, Any]]]] = {}
_DECKS_MAX = 256


def _deck_dict(
    cards: tuple[tuple[str, ...], ...], names: Mapping[str, SymbolName]
) -> tuple[list[list[str]], dict[str, dict[str, Any]]]:
    """``cards`` and ``names`` as JSON-ready data, built once per deck.

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> _deck_dict(state.cards, state.names)[0] is state.to_dict()["cards"]
    True
    """
    known = _decks.get(id(cards))
    if known is not None and known[0] is cards and known[1] is names:
        return known[2], known[3]
    data = (
        [list(card) for card in cards],
        {key: {"name": entry.name, "alternatives": list(entry.alternatives)} for key, entry in names.items()},
    )
    if len(_decks) >= _DECKS_MAX:
        _decks.clear()
    # The entry holds ``cards`` itself, so its ``id`` is not reused while it is kept.
    _decks[id(cards)] = (cards, names, *data)
    return data


def _player_dict(player: Player) -> dict[str, Any]:
    data: dict[str, Any] = {"id": player.id, "name": player.name, "birth_date": player.birth_date}
    if player.age_rank is not None:
        data["age_rank"] = player.age_rank
    return data


def _reveal_dict(reveal: Reveal) -> dict[str, Any]:
    return {
        "player": reveal.player,
        "symbol": reveal.symbol,
        "name": reveal.name,
        "result": reveal.result,
        "text": reveal.text,
    }


def _naming_dict(naming: Naming) -> dict[str, Any]:
    return {
        "player": naming.player,
        "symbol": naming.symbol,
        "text": naming.text,
        "correct": naming.correct,
        "dont_know": naming.dont_know,
    }


def _state_from_data(data: Mapping[str, Any]) -> State:
    if data.get("game") != GAME:
        raise ValueError(f"Not a ZnajZnak state: game is {data.get('game')!r}.")
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"Not a ZnajZnak state: unknown variant {variant!r}.")
    players = _parse_players(data["players"])
    ids = [p.id for p in players]
    table_data = data.get("table") or {}
    outcome_data = data.get("outcome")
    claim_data = data.get("claim")
    reveal_data = data.get("reveal")
    return State(
        variant=variant,
        seed=int(data["seed"]),
        cards=tuple(tuple(card) for card in data["cards"]),
        names=MappingProxyType(
            {
                key: SymbolName(name=entry["name"], alternatives=tuple(entry.get("alternatives", ())))
                for key, entry in data["names"].items()
            }
        ),
        players=players,
        cards_per_player=data.get("cards_per_player"),
        timer=data.get("timer"),
        stacks=tuple(tuple(int(card) for card in data["stacks"][pid]) for pid in ids),
        table=tuple(None if table_data.get(pid) is None else int(table_data[pid]) for pid in ids),
        middle=tuple(int(card) for card in data.get("middle", ())),
        out=tuple(int(card) for card in data["out"]),
        phase=str(data["phase"]),
        claim=None if claim_data is None else Claim(player=claim_data["player"], symbol=claim_data["symbol"]),
        penalised=tuple(data["penalised"]),
        reveal=None
        if reveal_data is None
        else Reveal(
            player=reveal_data["player"],
            symbol=reveal_data["symbol"],
            name=reveal_data["name"],
            result=reveal_data["result"],
            text=reveal_data.get("text"),
        ),
        namings=tuple(
            Naming(
                item["player"], item["symbol"], item["text"], bool(item["correct"]), bool(item["dont_know"])
            )
            for item in data["namings"]
        ),
        result=None
        if outcome_data is None
        else Outcome(
            winner=outcome_data["winner"],
            ranking=tuple(outcome_data["ranking"]),
            reason=outcome_data["reason"],
        ),
    )


def state_from_dict(data: Mapping[str, Any]) -> State:
    """The state a :meth:`State.to_dict` wrote.

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> state_from_dict(state.to_dict()) == state
    True
    """
    return State.from_dict(data)


# --- setup ---------------------------------------------------------------------------------


def _parse_cards(raw: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        raise InvalidSetup("'cards' must be a list of at least two cards (lists of symbol keys).")
    cards: list[tuple[str, ...]] = []
    for index, card in enumerate(raw):
        if not isinstance(card, list) or not card:
            raise InvalidSetup(f"Card {index} must be a non-empty list of symbol keys.")
        if not all(isinstance(symbol, str) and symbol for symbol in card):
            raise InvalidSetup(f"Card {index}: symbol keys must be non-empty strings.")
        if len(set(card)) != len(card):
            raise InvalidSetup(f"Card {index} shows a symbol twice.")
        cards.append(tuple(card))
    _check_one_shared_symbol(cards)
    return tuple(cards)


def _check_one_shared_symbol(cards: Sequence[tuple[str, ...]]) -> None:
    """The deck's property: "every two cards share exactly one symbol" (README, ZnajZnak)."""
    holders: dict[str, list[int]] = {}
    for index, card in enumerate(cards):
        for symbol in card:
            holders.setdefault(symbol, []).append(index)
    for index, card in enumerate(cards):
        shared: dict[int, list[str]] = {}
        for symbol in card:
            for other in holders[symbol]:
                if other > index:
                    shared.setdefault(other, []).append(symbol)
        for other, symbols in shared.items():
            if len(symbols) > 1:
                raise InvalidSetup(
                    f"Cards {index} and {other} share {len(symbols)} symbols ({', '.join(symbols)}); "
                    "in a ZnajZnak deck any two cards share exactly one."
                )
        if len(shared) != len(cards) - 1 - index:
            other = next(j for j in range(index + 1, len(cards)) if j not in shared)
            raise InvalidSetup(
                f"Cards {index} and {other} share no symbol; in a ZnajZnak deck any two cards "
                "share exactly one."
            )


def _parse_names(raw: Any, *, needed: Iterable[str]) -> Mapping[str, SymbolName]:
    if not isinstance(raw, Mapping):
        raise InvalidSetup("'names' must map each symbol key to {'name': ..., 'alternatives': [...]}.")
    names: dict[str, SymbolName] = {}
    for key, entry in raw.items():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise InvalidSetup(f"Symbol {key!r} needs a non-empty 'name'.")
        alternatives = entry.get("alternatives") or []
        if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
            raise InvalidSetup(f"Symbol {key!r}: 'alternatives' must be a list of names.")
        names[str(key)] = SymbolName(name=entry["name"], alternatives=tuple(alternatives))
    missing = sorted(set(needed) - set(names))
    if missing:
        raise InvalidSetup(
            f"Every symbol on the cards needs a name; missing: {', '.join(missing[:10])}"
            + (" ..." if len(missing) > 10 else "")
            + "."
        )
    return MappingProxyType(names)


def _parse_players(raw: Any) -> tuple[Player, ...]:
    if not isinstance(raw, list):
        raise InvalidSetup(
            "'players' must be a list of {'id', 'name', 'age_rank', 'birth_date'} in seating order."
        )
    players: list[Player] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str) or not entry["id"]:
            raise InvalidSetup(f"Player {index} needs a non-empty string 'id'.")
        name = entry.get("name", entry["id"])
        if not isinstance(name, str):
            raise InvalidSetup(f"Player {entry['id']!r}: 'name' must be a string.")
        birth_date = entry.get("birth_date")
        if birth_date is not None:
            try:
                datetime.date.fromisoformat(birth_date)
            except (TypeError, ValueError):
                raise InvalidSetup(
                    f"Player {entry['id']!r}: 'birth_date' must be a date like 2012-05-01."
                ) from None
        age_rank = entry.get("age_rank")
        if age_rank is not None and (
            isinstance(age_rank, bool) or not isinstance(age_rank, int) or age_rank < 1
        ):
            raise InvalidSetup(
                f"Player {entry['id']!r}: 'age_rank' must be a whole number from 1 (the youngest)."
            )
        players.append(Player(id=entry["id"], name=name, birth_date=birth_date, age_rank=age_rank))
    ids = [player.id for player in players]
    if len(set(ids)) != len(ids):
        raise InvalidSetup("Player ids must be different.")
    return tuple(players)


def _check_player_count(variant: str, count: int) -> None:
    """Player counts: "Warm-up (Rozgrzewka), 2-8 Players"; "Duel (Pojedynek)", pairs;
    "Multiplayer Variant (Wariant wieloosobowy), 3-8 Players"."""
    low, high = PLAYER_COUNTS[variant]
    if not low <= count <= high:
        rule = {
            "warm_up": "The warm-up is for 2-8 players",
            "duel": "A duel is played by exactly 2 players (a class plays many duels, each its own game)",
            "multiplayer": "The multiplayer variant is for 3-8 players",
        }[variant]
        raise InvalidSetup(f"{rule}; this setup has {count}.")


def new_game(setup: Mapping[str, Any], *, seed: int, variant: str) -> State:
    """Shuffle, deal and lay out the first cards of a ZnajZnak game.

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> state.phase, [len(stack) for stack in state.stacks], state.table != (None, None)
    ('looking', [2, 2], True)
    """
    if variant not in VARIANTS:
        raise InvalidSetup(f"Unknown variant {variant!r}; ZnajZnak has {', '.join(VARIANTS)}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InvalidSetup("The seed must be an integer.")
    if not isinstance(setup, Mapping):
        raise InvalidSetup("The setup must be an object with cards, names and players.")
    unknown = sorted(set(setup) - _SETUP_FIELDS)
    if unknown:
        raise InvalidSetup(
            f"Unknown setup field(s) {', '.join(unknown)}; ZnajZnak reads {', '.join(sorted(_SETUP_FIELDS))}."
        )
    cards = _parse_cards(setup.get("cards"))
    names = _parse_names(setup.get("names"), needed={symbol for card in cards for symbol in card})
    players = _parse_players(setup.get("players"))
    _check_player_count(variant, len(players))
    timer = setup.get("timer")
    if timer is not None and (isinstance(timer, bool) or not isinstance(timer, int | float) or timer <= 0):
        raise InvalidSetup("'timer' must be a number of seconds above 0 (note c: 600), or left out.")

    count = len(players)
    if variant == "warm_up":
        cards_per_player: int | None = None
        per_player = len(cards) // count
        if per_player < 2:
            raise InvalidSetup(
                f"A warm-up deals the deck out evenly; {len(cards)} cards for {count} players "
                "leave fewer than two each. Use a bigger deck."
            )
    else:
        cards_per_player = setup.get("cards_per_player", DEFAULT_CARDS_PER_PLAYER)
        if (
            not isinstance(cards_per_player, int)
            or isinstance(cards_per_player, bool)
            or cards_per_player < 1
        ):
            raise InvalidSetup("'cards_per_player' must be a whole number of at least 1 (usually 5, or 4).")
        per_player = cards_per_player
        if per_player * count > len(cards):
            raise InvalidSetup(
                f"{count} players with {per_player} cards each need {per_player * count} cards; "
                f"the deck has {len(cards)}."
            )

    stacks, out = _deal(len(cards), count, per_player, seed)
    state = State(
        variant=variant,
        seed=seed,
        cards=cards,
        names=names,
        players=players,
        cards_per_player=cards_per_player,
        timer=timer,
        stacks=stacks,
        table=tuple(None for _ in players),
        middle=(),
        out=out,
    )
    if variant == "warm_up":
        return _youngest_lays_first_card(state)
    if variant == "duel":
        return _duel_lay_first_cards(state)
    return state


def _deal(
    deck_size: int, players: int, per_player: int, seed: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Deal: "The cards are dealt out evenly" / "Each player receives five cards"; the rest stay out."""
    order = list(range(deck_size))
    rng_for(seed, "deal").shuffle(order)
    dealt = per_player * players
    stacks = tuple(tuple(order[seat:dealt:players]) for seat in range(players))
    return stacks, tuple(order[dealt:])


def _youngest_first(state: State, ids: Iterable[str]) -> list[str]:
    """Note b/c: "the youngest player has precedence"; "In case of a tie, the youngest player wins".

    Youngest = the lowest ``age_rank`` when every player concerned has one; else the
    latest birth date when every player concerned has one; otherwise seating order.
    Equal ranks or dates keep seating order.

    >>> setup = _example_setup()
    >>> setup["players"] = [{"id": "p1", "age_rank": 2}, {"id": "p2", "age_rank": 1}]
    >>> _youngest_first(new_game(setup, seed=1, variant="duel"), ["p1", "p2"])
    ['p2', 'p1']
    """
    seats = {p.id: seat for seat, p in enumerate(state.players)}
    chosen = sorted(ids, key=seats.__getitem__)
    ranks = {p.id: p.age_rank for p in state.players}
    births = {p.id: p.birth_date for p in state.players}
    # sorted() is stable: equal ranks or birth days keep their seating order.
    if all(ranks[pid] is not None for pid in chosen):
        return sorted(chosen, key=lambda pid: int(ranks[pid] or 0))
    if all(births[pid] is not None for pid in chosen):
        return sorted(chosen, key=lambda pid: _days(births[pid]))
    return chosen


def _days(date: str | None) -> int:
    # Negative ordinal: the youngest (latest date) first.
    return -datetime.date.fromisoformat(str(date)).toordinal()


def _youngest_lays_first_card(state: State) -> State:
    """Warm-up: "The youngest player places the top card of their stack in the middle"."""
    youngest = _youngest_first(state, (p.id for p in state.players))[0]
    seat = _seat(state, youngest)
    stacks = list(state.stacks)
    top, *rest = stacks[seat]
    stacks[seat] = tuple(rest)
    return replace(state, stacks=tuple(stacks), middle=(top,))


def _duel_lay_first_cards(state: State) -> State:
    """Duel: "The players simultaneously lay the card from the bottom of their stack on the table"."""
    stacks = list(state.stacks)
    table: list[int | None] = []
    for seat, stack in enumerate(stacks):
        table.append(stack[-1])
        stacks[seat] = stack[:-1]
    return replace(state, stacks=tuple(stacks), table=tuple(table))


# --- reading the table ----------------------------------------------------------------------


def _seat(state: State, player: str) -> int:
    for seat, p in enumerate(state.players):
        if p.id == player:
            return seat
    raise InvalidAction(f"There is no player {player!r} in this game.")


def _left_of(state: State, seat: int) -> int:
    """Multiplayer, "the player on their left": the next in seating order (the last's is the first)."""
    return (seat + 1) % len(state.players)


def compared_cards(state: State, player: str) -> tuple[int, int]:
    """The two cards ``player`` looks for a common symbol in: (their card, the other card).

    * warm-up: "the top card of their own stack" and "the card in the middle";
    * duel: "The two cards on the table": their own and their opponent's;
    * multiplayer: "the top card of their own stack and the top card of the stack of the
      player on their left".

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> compared_cards(state, "p1") == (state.table[0], state.table[1])
    True
    """
    seat = _seat(state, player)
    if state.variant == "warm_up":
        return state.stacks[seat][0], state.middle[0]
    if state.variant == "duel":
        own, other = state.table[seat], state.table[1 - seat]
        assert own is not None and other is not None
        return own, other
    return state.stacks[seat][0], state.stacks[_left_of(state, seat)][0]


def common_symbol(state: State, player: str) -> str:
    """The one symbol the two cards ``player`` compares share (for the server, never the view).

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> common_symbol(state, "p1") == common_symbol(state, "p2")
    True
    """
    own, other = compared_cards(state, player)
    (symbol,) = set(state.cards[own]) & set(state.cards[other])
    return symbol


def is_terminal(state: State) -> bool:
    """Whether the game is over.

    >>> is_terminal(new_game(_example_setup(), seed=1, variant="duel"))
    False
    """
    return state.result is not None


def outcome(state: State) -> dict[str, Any] | None:
    """``None`` while the game runs; then winner, ranking, reason and cards in hand.

    ``reason`` is ``"last_card"`` (someone got rid of / pointed on their last card) or
    ``"time_up"`` (note c).

    >>> outcome(new_game(_example_setup(), seed=1, variant="duel")) is None
    True
    """
    if state.result is None:
        return None
    return {
        "winner": state.result.winner,
        "ranking": list(state.result.ranking),
        "reason": state.result.reason,
        "cards_in_hand": {p.id: _cards_in_hand(state, seat) for seat, p in enumerate(state.players)},
    }


def _cards_in_hand(state: State, seat: int) -> int:
    """The count a player is shown with: their stack, less the last card a multiplayer winner
    pointed on.  That card stays in ``stacks`` (it is what the reveal shows), but the rulebook's
    winner "got rid of" it, so a count of 1 beside "got rid of their last card" would be wrong."""
    stack = state.stacks[seat]
    result = state.result
    if (
        state.variant == "multiplayer"
        and result is not None
        and result.reason == "last_card"
        and result.winner == state.players[seat].id
    ):
        return 0
    return len(stack)


def _ranking(state: State, winner: str | None) -> tuple[str, ...]:
    """Note c: "the winner is the player with the fewest cards in hand. In case of a tie,
    the youngest player wins"; after the winner the others rank the same way."""
    by_count: dict[int, list[str]] = {}
    for player, stack in zip(state.players, state.stacks, strict=True):
        if player.id != winner:
            by_count.setdefault(len(stack), []).append(player.id)
    ranking = [] if winner is None else [winner]
    for count in sorted(by_count):
        ranking.extend(_youngest_first(state, by_count[count]))
    return tuple(ranking)


# --- actions ---------------------------------------------------------------------------------


def legal_actions(state: State, player: str | None) -> list[dict[str, Any]]:
    """What ``player`` may do now (``None``: the session layer / facilitator).

    STOPs are listed for every symbol on the two compared cards, the player's own card
    first; one that is not common is legal but penalised (note a).  The ``name`` action
    is listed without its ``text``, which the player types.

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> sorted({action["type"] for action in legal_actions(state, "p1")})
    ['stop']
    >>> legal_actions(state, None)  # no timer was set
    []
    """
    if player is None:
        return [] if state.result is not None or state.timer is None else [{"type": "time_up"}]
    _seat(state, player)
    if state.result is not None:
        return []
    if state.phase == NAMING:
        assert state.claim is not None
        if state.claim.player != player:
            return []
        return [{"type": "name", "player": player}, {"type": "dont_know", "player": player}]
    if player in state.penalised:
        return []
    own, other = compared_cards(state, player)
    symbols = list(state.cards[own]) + [s for s in state.cards[other] if s not in state.cards[own]]
    return [{"type": "stop", "player": player, "symbol": symbol} for symbol in symbols]


def _acting_player(player: str | None, action: Mapping[str, Any]) -> str | None:
    named = action.get("player")
    if named is not None and not isinstance(named, str):
        raise InvalidAction("The action's 'player' must be a player id.")
    if player is not None and named is not None and named != player:
        raise InvalidAction(f"The action names player {named!r} but was sent for {player!r}.")
    return player if player is not None else named


def _require_player(state: State, acting: str | None, kind: str) -> str:
    if acting is None:
        raise InvalidAction(f"A {kind!r} action needs the player who makes it.")
    _seat(state, acting)
    return acting


def _name_of(state: State, player: str) -> str:
    return state.players[_seat(state, player)].name


def apply_action(state: State, player: str | None, action: Mapping[str, Any]) -> State:
    """The state after ``player`` makes ``action``; the given state is never changed.

    Raises :class:`InvalidAction` for a malformed action and :class:`IllegalAction`
    when the rules do not allow it now; the message says why.

    >>> state = new_game(_example_setup(), seed=1, variant="duel")
    >>> symbol = common_symbol(state, "p1")
    >>> state = apply_action(state, "p1", {"type": "stop", "player": "p1", "symbol": symbol})
    >>> state.phase
    'naming'
    >>> state = apply_action(state, "p1", {"type": "dont_know", "player": "p1"})
    >>> state.namings[-1].dont_know, state.phase
    (True, 'looking')
    """
    if not isinstance(action, Mapping):
        raise InvalidAction("An action must be an object with a 'type'.")
    kind = action.get("type")
    acting = _acting_player(player, action)
    if kind == "time_up":
        return _time_up(state, acting)
    if kind == "stop":
        symbol = action.get("symbol")
        if not isinstance(symbol, str):
            raise InvalidAction("A STOP must point at a symbol: give its key in 'symbol'.")
        return _stop(state, _require_player(state, acting, "stop"), symbol)
    if kind == "name":
        text = action.get("text")
        if not isinstance(text, str):
            raise InvalidAction("A 'name' action needs the typed name in 'text'.")
        if len(text) > MAX_NAME_LENGTH:
            raise InvalidAction(f"A name is at most {MAX_NAME_LENGTH} characters long.")
        return _name(state, _require_player(state, acting, "name"), text)
    if kind == "dont_know":
        return _name(state, _require_player(state, acting, "dont_know"), None)
    raise InvalidAction(f"Unknown action type {kind!r}; ZnajZnak knows stop, name, dont_know and time_up.")


def _check_running(state: State) -> None:
    if state.result is not None:
        raise IllegalAction("The game is over.")


def _stop(state: State, player: str, symbol: str) -> State:
    """STOP: "The player who first finds the common symbol says STOP, points to the symbol ... and
    names it"."""
    if symbol not in state.names:
        raise InvalidAction(f"There is no symbol {symbol!r} in this deck.")
    _check_running(state)
    if state.phase == NAMING:
        assert state.claim is not None
        raise IllegalAction(
            f"{_name_of(state, state.claim.player)} said STOP first and is naming the symbol; "
            "wait until the name is given."
        )
    if player in state.penalised:
        raise IllegalAction(
            f"{_name_of(state, player)} said STOP on a symbol the two cards do not share and must "
            "wait until someone else says STOP (note a)."
        )
    own, other = compared_cards(state, player)
    on_own, on_other = symbol in state.cards[own], symbol in state.cards[other]
    if not on_own and not on_other:
        raise IllegalAction(f"Symbol {symbol!r} is on neither of the two cards you compare.")
    # Anyone's STOP lifts note a's penalty of the others.
    state = replace(state, penalised=(), reveal=None)
    if not (on_own and on_other):
        return _penalise(state, player)
    if _is_last_card(state, player):
        return _wins_on_last_card(state, player, symbol)
    return replace(state, phase=NAMING, claim=Claim(player=player, symbol=symbol))


def _penalise(state: State, player: str) -> State:
    """Note a: "If a player ... says STOP while pointing to a symbol that is not common to both
    cards, they must wait as a penalty until someone else says STOP"."""
    return replace(state, penalised=(player,))


def _is_last_card(state: State, player: str) -> bool:
    """Duel: "has no cards in hand and is the first to point to a common symbol on their last
    card"; multiplayer: "someone points to a common symbol on their last card".  The warm-up
    ends only when the last card is named and laid in the middle."""
    stack = state.stacks[_seat(state, player)]
    if state.variant == "duel":
        return not stack
    if state.variant == "multiplayer":
        return len(stack) == 1
    return False


def _wins_on_last_card(state: State, player: str, symbol: str) -> State:
    """Last card: "That player does not have to name it"; the game ends, the name is shown to all."""
    reveal = Reveal(player=player, symbol=symbol, name=state.names[symbol].name, result=NOT_NEEDED)
    state = replace(state, phase=OVER, claim=None, reveal=reveal)
    return replace(state, result=Outcome(winner=player, ranking=_ranking(state, player), reason="last_card"))


def _name(state: State, player: str, text: str | None) -> State:
    """Naming: "After naming the symbol (or saying 'I don't know'), the player turns over their card and
    reads the name of the common symbol aloud from the back, where it is printed in bold"."""
    _check_running(state)
    if state.phase != NAMING or state.claim is None:
        raise IllegalAction("Nobody is naming a symbol: say STOP and point at the common symbol first.")
    if state.claim.player != player:
        raise IllegalAction(
            f"Only {_name_of(state, state.claim.player)}, who said STOP, names the symbol now."
        )
    symbol = state.claim.symbol
    entry = state.names[symbol]
    correct = text is not None and name_matches(text, entry.name, entry.alternatives)
    naming = Naming(player=player, symbol=symbol, text=text, correct=correct, dont_know=text is None)
    result = RIGHT if correct else (DONT_KNOW if text is None else WRONG)
    state = replace(
        state,
        phase=LOOKING,
        claim=None,
        namings=(*state.namings, naming),
        reveal=Reveal(player=player, symbol=symbol, name=entry.name, result=result, text=text),
    )
    resolve = {
        ("warm_up", True): _warm_up_right,
        ("warm_up", False): _warm_up_wrong,
        ("duel", True): _duel_right,
        ("duel", False): _duel_wrong,
        ("multiplayer", True): _multiplayer_right,
        ("multiplayer", False): _multiplayer_wrong,
    }[(state.variant, correct)]
    return resolve(state, _seat(state, player))


def _with_stacks(state: State, changes: Mapping[int, tuple[int, ...]], **fields: Any) -> State:
    stacks = tuple(changes.get(seat, stack) for seat, stack in enumerate(state.stacks))
    return replace(state, stacks=stacks, **fields)


def _warm_up_right(state: State, seat: int) -> State:
    """Warm-up: "The player who finds a common symbol and is the first to say its name aloud
    places their card on top of the stack in the middle"; "The game ends when someone gets rid
    of their last card"."""
    top, *rest = state.stacks[seat]
    state = _with_stacks(state, {seat: tuple(rest)}, middle=(top, *state.middle))
    if rest:
        return state
    winner = state.players[seat].id
    state = replace(state, phase=OVER)
    return replace(state, result=Outcome(winner=winner, ranking=_ranking(state, winner), reason="last_card"))


def _warm_up_wrong(state: State, seat: int) -> State:
    """Warm-up: "If they do not know the name, they must spend precious seconds turning the card
    over and checking the correct name": the card stays, the moment is lost, no penalty."""
    return state


def _duel_wrong(state: State, seat: int) -> State:
    """Duel: "If the player did not correctly name the symbol (or said 'I don't know'), they take
    their card from the table, place it face up on top of their stack, and then place a new card
    from the bottom of their stack on the table"."""
    card = state.table[seat]
    assert card is not None
    stack = (card, *state.stacks[seat])
    table = tuple(stack[-1] if s == seat else c for s, c in enumerate(state.table))
    return _with_stacks(state, {seat: stack[:-1]}, table=table)


def _duel_right(state: State, seat: int) -> State:
    """Duel: "If the player correctly named the symbol, they give their card to the opponent, who
    places it face up on top of their own stack. The player who correctly named the symbol then
    places a new card from the bottom of their stack on the table"."""
    card = state.table[seat]
    assert card is not None
    opponent = 1 - seat
    own = state.stacks[seat]
    # A namer's stack is never empty here: with no cards in hand, pointing right wins at once.
    table = tuple(own[-1] if s == seat else c for s, c in enumerate(state.table))
    return _with_stacks(state, {seat: own[:-1], opponent: (card, *state.stacks[opponent])}, table=table)


def _multiplayer_wrong(state: State, seat: int) -> State:
    """Multiplayer: "If the player did not correctly name the symbol (or said 'I don't know'), they
    move the top card of their stack to the bottom of the stack"."""
    top, *rest = state.stacks[seat]
    return _with_stacks(state, {seat: (*rest, top)})


def _multiplayer_right(state: State, seat: int) -> State:
    """Multiplayer: "If the player correctly named the symbol, they give the top card of their stack
    to the player on their left. That player places it at the bottom of their own stack"."""
    top, *rest = state.stacks[seat]
    left = _left_of(state, seat)
    return _with_stacks(state, {seat: tuple(rest), left: (*state.stacks[left], top)})


def _time_up(state: State, acting: str | None) -> State:
    """Note c: "If nobody has got rid of all their cards when the time runs out, the winner is the
    player with the fewest cards in hand. In case of a tie, the youngest player wins"."""
    if acting is not None:
        raise IllegalAction("Only the session's timer (the facilitator) says the time is up.")
    _check_running(state)
    if state.timer is None:
        raise IllegalAction("No timer was set for this game (note c), so the time cannot run out.")
    ranking = _ranking(state, None)
    state = replace(state, phase=OVER, claim=None)
    return replace(state, result=Outcome(winner=ranking[0], ranking=ranking, reason="time_up"))


# --- what a player sees ----------------------------------------------------------------------


def _covered(state: State, seat: int) -> bool:
    """Multiplayer: "Meanwhile, all other players except the one on the left cover their cards
    with their hand" (and the namer's card stays visible)."""
    if state.variant != "multiplayer" or state.phase != NAMING or state.claim is None:
        return False
    namer = _seat(state, state.claim.player)
    return seat not in (namer, _left_of(state, namer))


def player_view(state: State, player: str | None) -> dict[str, Any]:
    """What ``player`` may see (``None``: a spectator or the teacher).

    Stacks are face up, so every top card is visible (unless covered in multiplayer while
    someone names); the order below the top is not: only counts.  The correct name of a
    symbol appears only in ``reveal``, after the naming it belongs to.

    >>> view = player_view(new_game(_example_setup(), seed=1, variant="duel"), "p1")
    >>> view["phase"], len(view["comparison"]["own"]), view["reveal"]
    ('looking', 3, None)
    """
    if player is not None:
        _seat(state, player)

    def card(index: int | None) -> list[str] | None:
        return None if index is None else list(state.cards[index])

    seats = []
    for seat, p in enumerate(state.players):
        stack = state.stacks[seat]
        covered = _covered(state, seat)
        entry: dict[str, Any] = {
            "id": p.id,
            "name": p.name,
            "cards_in_hand": _cards_in_hand(state, seat),
            "top": None if covered or not stack else card(stack[0]),
            "covered": covered,
            "penalised": p.id in state.penalised,
        }
        if state.variant == "duel":
            entry["table"] = card(state.table[seat])
        if state.variant == "multiplayer":
            entry["left"] = state.players[_left_of(state, seat)].id
        seats.append(entry)

    comparison: dict[str, Any] | None = None
    if player is not None and state.result is None and not _covered(state, _seat(state, player)):
        own, other = compared_cards(state, player)
        seat = _seat(state, player)
        if state.variant == "warm_up":
            with_whom = "middle"
        elif state.variant == "duel":
            with_whom = state.players[1 - seat].id
        else:
            with_whom = state.players[_left_of(state, seat)].id
        comparison = {"own": card(own), "other": card(other), "other_is": with_whom}

    view: dict[str, Any] = {
        "game": GAME,
        "variant": state.variant,
        "you": player,
        "phase": state.phase,
        "players": seats,
        "comparison": comparison,
        "claim": None
        if state.claim is None
        else {"player": state.claim.player, "symbol": state.claim.symbol},
        "penalised": list(state.penalised),
        "reveal": None if state.reveal is None else _reveal_dict(state.reveal),
        "out_count": len(state.out),
        "timer": state.timer,
        "legal_actions": legal_actions(state, player),
        "terminal": state.result is not None,
        "outcome": outcome(state),
    }
    if state.variant == "warm_up":
        view["middle"] = {"top": card(state.middle[0]) if state.middle else None, "count": len(state.middle)}
    return view


def _example_setup() -> dict[str, Any]:
    """A seven-card deck (the plane of order 2) for the examples in the docstrings."""
    cards = [["a", "b", "c"], ["a", "d", "e"], ["a", "f", "g"], ["b", "d", "f"], ["b", "e", "g"],
             ["c", "d", "g"], ["c", "e", "f"]]  # fmt: skip
    return {
        "cards": cards,
        "names": {key: {"name": f"Symbol {key.upper()}"} for key in "abcdefg"},
        "players": [{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}],
        "cards_per_player": 3,
    }
