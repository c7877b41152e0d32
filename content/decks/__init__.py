"""ZnajZnak decks: projective planes, decks from symbol sets, lesson sets, card faces.

Pure Python (standard library only), typed, deterministic.

* :mod:`.fields` - finite fields GF(p^k);
* :mod:`.planes` - the projective plane PG(2, n) of a deck of order ``n``;
* :mod:`.deck` - a deck from a curator's ordered symbol set;
* :mod:`.cardsets` - lettered lesson sets (A, B, C, ...);
* :mod:`.layout` - where the pictures go on each card face.
"""

from __future__ import annotations

from .cardsets import (
    CardSet,
    default_labels,
    round_robin_sets,
    split_into_sets,
    total_pair_symbols,
)
from .deck import Deck, DeckError, DeckOption, build_deck, deck_options
from .fields import GaloisField, galois_field
from .layout import MIN_SIZE, Placement, Shape, deck_layouts, layout_card
from .orders import ImpossibleOrder, is_prime_power, nearest_orders
from .planes import SUPPORTED_ORDERS, plane_size, projective_plane

__all__ = [
    "MIN_SIZE",
    "SUPPORTED_ORDERS",
    "CardSet",
    "Deck",
    "DeckError",
    "DeckOption",
    "GaloisField",
    "ImpossibleOrder",
    "Placement",
    "Shape",
    "build_deck",
    "clear_caches",
    "deck_layouts",
    "deck_options",
    "default_labels",
    "galois_field",
    "is_prime_power",
    "layout_card",
    "nearest_orders",
    "plane_size",
    "projective_plane",
    "round_robin_sets",
    "split_into_sets",
    "total_pair_symbols",
]


def clear_caches() -> None:
    """Forget every cached field, plane, deck plan and layout template."""
    from . import deck, layout, planes

    planes.clear_cache()
    deck.clear_cache()
    layout.clear_cache()
