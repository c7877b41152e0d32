"""ZnajZnak's setups: a deck dealt from a symbol set, a built deck or one lesson set of it.

Playing goes through ``games.services.session_act`` like every game; class duels are
``duels.py``, practice alone ``practice.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from content.decks import DeckError, build_deck
from games import services
from games.engines import znajznak

#: The fewest cards that deal a duel: two hands of the rule's fewest (``znajznak.MIN_CARDS_PER_PLAYER``).
DUEL_CARDS_MIN = 2 * znajznak.MIN_CARDS_PER_PLAYER


def duel_cards_check(count: int, card_set: str = "") -> None:
    """Refuse a new practice or class run whose deck (or lesson set ``card_set``) has fewer
    than :data:`DUEL_CARDS_MIN` cards, in words the teacher can act on."""
    if count >= DUEL_CARDS_MIN:
        return
    least = znajznak.MIN_CARDS_PER_PLAYER
    if card_set:
        message = ngettext(
            "Lesson set %(label)s has %(count)d card: a duel deals at least %(least)d to each "
            "player. Choose a bigger set, or no set for the whole deck.",
            "Lesson set %(label)s has %(count)d cards: a duel deals at least %(least)d to each "
            "player. Choose a bigger set, or no set for the whole deck.",
            count,
        ) % {"label": card_set, "count": count, "least": least}
    else:
        message = ngettext(
            "The deck has %(count)d card: a duel deals at least %(least)d to each player.",
            "The deck has %(count)d cards: a duel deals at least %(least)d to each player.",
            count,
        ) % {"count": count, "least": least}
    raise services.SessionError("invalid_setup", message)


@dataclass(frozen=True)
class _SymbolInfo:
    name: str
    alternatives: list[str]
    symbol_id: int | None
    picture: str


def _znajznak_setup(
    cards: list[list[str]],
    symbols: dict[str, _SymbolInfo],
    *,
    cards_per_player: int | None,
    timer: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    used = sorted({key for card in cards for key in card})
    setup: dict[str, Any] = {
        "cards": cards,
        "names": {
            key: {"name": symbols[key].name, "alternatives": symbols[key].alternatives} for key in used
        },
    }
    if cards_per_player is not None:
        setup["cards_per_player"] = cards_per_player
    if timer is not None:
        setup["timer"] = timer
    # Server-side only: the symbol rows (for the follow-up quiz) and the pictures.
    assets = {
        "symbols": {key: symbols[key].symbol_id for key in used},
        "pictures": {key: symbols[key].picture for key in used if symbols[key].picture},
    }
    return setup, assets


def znajznak_setup_from_symbol_set(
    *, symbol_set: Any, cards_per_player: int | None = None, timer: int | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ZnajZnak setup from a symbol set, and the assets its pages need.

    The deck is built from the set in the curator's order (``content.decks.build_deck``,
    the best order for the set's size). Symbols are known by their printed number
    ("002"), or by collection and number where two collections in the set share one.
    The assets map each key to its symbol and picture; they stay on the server.
    """
    members = [member.symbol for member in symbol_set.members.select_related("symbol__collection")]
    unique = len({symbol.code for symbol in members}) == len(members)
    symbols = {
        (symbol.code if unique else f"{symbol.collection.slug}-{symbol.code}"): _SymbolInfo(
            symbol.name, symbol.alternative_name_list, symbol.pk, symbol.picture.name or ""
        )
        for symbol in members
    }
    try:
        deck = build_deck(list(symbols))
    except DeckError as error:
        raise services.SessionError("invalid_setup", str(error)) from error
    cards = [list(card) for card in deck.cards]
    return _znajznak_setup(cards, symbols, cards_per_player=cards_per_player, timer=timer)


def znajznak_setup_from_deck(
    *,
    deck: Any,
    card_set: str = "",
    cards_per_player: int | None = None,
    timer: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ZnajZnak setup from a built deck (``content.models.Deck``), or one lesson set of it.

    "In the Duel variant, using the cards from one set during play lets students become
    familiar with the largest possible number of new symbols" (Teacher's notes): with
    ``card_set`` (a letter on the card backs) only that set's cards are dealt. The names
    and pictures are the deck's snapshot, so later edits of a symbol do not show up.
    """
    plan, snapshot = deck.plan or {}, deck.snapshot or {}
    if deck.state != "done" or not plan.get("cards"):
        raise services.SessionError("invalid_setup", _("This deck is not built yet."))
    indexes: Sequence[int] = range(len(plan["cards"]))
    if card_set:
        labels = plan.get("card_labels") or []
        indexes = [i for i in indexes if i < len(labels) and labels[i] == card_set]
        if len(indexes) < 2:
            raise services.SessionError(
                "invalid_setup", _("The deck has no card set %(label)s.") % {"label": card_set}
            )
    cards = [[f"{number:03d}" for number in plan["cards"][i]] for i in indexes]
    symbols = {
        f"{entry['number']:03d}": _SymbolInfo(
            entry["name"],
            list(entry.get("alternative_names") or []),
            entry.get("id"),
            entry.get("picture") or "",
        )
        for entry in snapshot.get("symbols", [])
    }
    setup, assets = _znajznak_setup(cards, symbols, cards_per_player=cards_per_player, timer=timer)
    faces = _card_faces(plan, indexes)
    if faces:
        assets["faces"] = faces
    return setup, assets


def _card_faces(plan: dict[str, Any], indexes: Any) -> dict[str, Any] | None:
    """Each dealt card's face as the deck lays it out (``content.decks.layout``), for the play page.

    Keyed by the card's symbol keys, sorted and joined with commas (a card is known by its
    symbols: any two cards share only one); each picture as ``[key, x, y, size, rotation]``
    in card widths. Only positions and keys: no names.
    """
    layouts = plan.get("layouts") or []
    if len(layouts) != len(plan.get("cards") or []):
        return None
    cards: dict[str, list[list[Any]]] = {}
    for i in indexes:
        placements = [
            [f"{p['symbol']:03d}", p["x"], p["y"], p["size"], p.get("rotation", 0)] for p in layouts[i]
        ]
        cards[",".join(sorted(p[0] for p in placements))] = placements
    return {"shape": plan.get("shape") or "round", "cards": cards}
