"""Class duels and the tournament helper: who plays whom, with which lesson card set.

Pure Python (no Django), deterministic for a seed. The rulebook's words
(``../shared/rules/znajznak.md``):

* "Duel (Pojedynek), 1 to 13 Pairs of Players"; "Each player receives five cards".
* Teacher's notes: "If the group has more than 26 people, only four cards are dealt
  to each player during setup" (:func:`cards_per_player_for`).
* "When running a tournament, try to ensure that players do not play twice with the
  same set of cards, as far as possible" (:func:`card_sets_assign`).

Readings where the rulebook is silent:

* Pairing (:func:`pairs_make`): round 1 pairs at random (by the seed); later rounds
  pair players with the same number of wins where possible (winners meet winners),
  avoiding a rematch when another partner is free, the order within equal wins drawn
  by the seed.
* The odd one out sits out the round with a bye: the player with the fewest byes so
  far (then the fewest wins, then drawn by the seed), so byes go round the class and
  nobody sits out twice before everyone has once. A trio cannot play instead: the
  multiplayer variant deals 15 cards, more than a lesson set of the boxed game has.
* "As far as possible" is read as: the fewest repeats. A duel's repeats are how many
  of its two players have already played its set. Online, two pairs may play the same
  set in one round (each has its own copy), so each pair takes a set with the fewest
  repeats for it; among those, the set used least this round, then least in the whole
  run, then drawn by the seed. Choosing per pair is optimal for the total as well.
* A lesson set of the boxed game has about ten cards: when a set has fewer cards than
  two hands need, each player gets half the set's cards (:func:`hand_size`). New
  practices and class runs refuse sets that cannot deal two hands of the rule's two
  cards (``znajznak.MIN_CARDS_PER_PLAYER``); runs set up before that rule keep playing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from games.engines.base import rng_for

__all__ = [
    "BIG_CLASS",
    "Pairing",
    "card_sets_assign",
    "cards_per_player_for",
    "hand_size",
    "pairs_make",
    "repeats_count",
]

#: "If the group has more than 26 people, only four cards are dealt".
BIG_CLASS = 26


def cards_per_player_for(class_size: int) -> int:
    """Five cards each, four when the class has more than 26 players.

    >>> cards_per_player_for(26), cards_per_player_for(27)
    (5, 4)
    """
    return 4 if class_size > BIG_CLASS else 5


def hand_size(cards_in_deck: int, wanted: int, players: int = 2) -> int:
    """The cards each player gets: ``wanted``, or as many as the deck deals evenly.

    >>> hand_size(10, 5), hand_size(4, 5), hand_size(133, 4)
    (5, 2, 4)
    """
    return max(1, min(wanted, cards_in_deck // players))


@dataclass(frozen=True)
class Pairing:
    """One round: the pairs in seating order (p1, p2) and who sits out, if anyone."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None


def pairs_make(
    players: Sequence[str],
    *,
    seed: int,
    round_number: int,
    wins: Mapping[str, int] | None = None,
    byes: Mapping[str, int] | None = None,
    met: Collection[frozenset[str]] = (),
) -> Pairing:
    """Pair ``players`` for round ``round_number``; the odd one out gets a bye.

    >>> pairing = pairs_make(["a", "b", "c"], seed=1, round_number=1)
    >>> len(pairing.pairs), pairing.bye is not None
    (1, True)
    >>> pairs_make(["b", "a"], seed=1, round_number=2, wins={"a": 1}).pairs
    (('a', 'b'),)
    """
    if len(set(players)) != len(players):
        raise ValueError("Every player is paired once: the ids must be different.")
    wins = wins or {}
    byes = byes or {}
    rng = rng_for(seed, "pairing", round_number)
    order = list(players)
    rng.shuffle(order)
    # sorted() is stable: within equal wins the drawn order stays.
    order.sort(key=lambda player: -wins.get(player, 0))
    bye = None
    if len(order) % 2:
        # The drawn order breaks the last ties: the last such player in it sits out.
        bye = min(reversed(order), key=lambda p: (byes.get(p, 0), wins.get(p, 0)))
        order.remove(bye)
    met_pairs = {frozenset(pair) for pair in met}
    pairs: list[tuple[str, str]] = []
    while order:
        first = order.pop(0)
        partner = next((p for p in order if frozenset((first, p)) not in met_pairs), order[0])
        order.remove(partner)
        pairs.append((first, partner))
    return Pairing(tuple(pairs), bye)


def repeats_count(pair: Sequence[str], card_set: str, played: Mapping[str, Collection[str]]) -> int:
    """How many players of ``pair`` have played ``card_set`` before.

    >>> repeats_count(("a", "b"), "A", {"a": {"A"}, "b": set()})
    1
    """
    return sum(card_set in played.get(player, ()) for player in pair)


def card_sets_assign(
    pairs: Sequence[Sequence[str]],
    card_sets: Sequence[str],
    played: Mapping[str, Collection[str]],
    *,
    seed: int,
    round_number: int,
) -> list[str]:
    """A lesson set for each pair, with the fewest possible repeats (Teacher's notes).

    ``played`` is the sets each player has played so far. With enough sets nobody
    plays a set twice; with too few, the repeats are as few as they can be.

    >>> card_sets_assign([("a", "b")], ["A", "B"], {"a": {"A"}}, seed=1, round_number=2)
    ['B']
    """
    if not card_sets:
        raise ValueError("A tournament needs at least one lesson card set.")
    rng = rng_for(seed, "card-sets", round_number)
    tie_break = {card_set: rng.random() for card_set in card_sets}
    used_before = Counter(card_set for sets in played.values() for card_set in sets)
    used_now: Counter[str] = Counter()
    chosen = []
    for pair in pairs:
        best = min(
            card_sets,
            key=lambda s: (repeats_count(pair, s, played), used_now[s], used_before[s], tie_break[s]),
        )
        used_now[best] += 1
        chosen.append(best)
    return chosen
