"""A game's state as the session's row stores it: without the parts the setup already holds.

A ZnajZnak state carries its deck, the cards and the symbols' names, which the setup holds
too: in a duel of the 57-symbol set 8 of its 10 KB of JSON. The state is written again after
every action, so PostgreSQL parsed, compressed and logged those 8 KB every time, and the
row (about 5 KB compressed) was too large for its new version to share a page with the old
one: every update wrote every index of the row (``bench/README.md``, ``bench_live.py``).

Activity's and Knowledge?'s states carry their setups' cards in the same way (and
Knowledge?'s its board), and a live quiz's state its items, written again after every
answer and every move.

So the row keeps the state without each part that :data:`FROM_SETUP_PARTS` names for its
game and that equals the setup's part of the same name, and lists those parts under
:data:`FROM_SETUP`. :class:`GameStateField` does both ways: it stores the short form and
gives the whole state back when ``session.state`` is read, so no caller sees the
difference. Rows stored before keep the whole state and are read as they are. The live
fast path writes its JSON itself (``games.live.LiveTable.state_json``) in the same form.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.db import models
from django.db.models.query_utils import DeferredAttribute

__all__ = [
    "FROM_SETUP",
    "FROM_SETUP_PARTS",
    "GameStateField",
    "from_setup_listed",
    "held_by_setup",
    "state_restored",
    "state_stored",
]

#: The key under which a stored state lists the parts it left to the setup.
FROM_SETUP = "from_setup"
#: By game: the state's parts that its setup may hold as well (they never change in play):
#: ZnajZnak's deck, Activity's cards (up to 200, six terms each), Knowledge?'s board and
#: question pool, a live quiz's items (with their keys). Know's state repeats nothing large
#: of its setup.
FROM_SETUP_PARTS: dict[str, tuple[str, ...]] = {
    "znajznak": ("cards", "names"),
    "activity": ("cards",),
    "knowledge": ("board", "cards"),
    "quiz_live": ("items",),
}


def held_by_setup(game: str, key: str, value: Any, setup: Mapping[str, Any]) -> bool:
    """Whether the state's part ``key`` (``value``) is left to the setup in the row: a part
    :data:`FROM_SETUP_PARTS` names for ``game``, equal to the setup's part of that name."""
    return key in FROM_SETUP_PARTS.get(game, ()) and key in setup and setup[key] == value


def from_setup_listed(game: str, shared: Collection[str]) -> list[str]:
    """The parts left to the setup as the row lists them under :data:`FROM_SETUP`."""
    return [key for key in FROM_SETUP_PARTS.get(game, ()) if key in shared]


def state_stored(game: str, state: Any, setup: Any) -> Any:
    """``state`` as the row stores it: without each part :func:`held_by_setup`, and those
    parts named under :data:`FROM_SETUP`; unchanged when none."""
    if not isinstance(state, Mapping) or not isinstance(setup, Mapping):
        return state
    shared = from_setup_listed(
        game, [key for key, value in state.items() if held_by_setup(game, key, value, setup)]
    )
    if not shared:
        return state
    stored = {key: value for key, value in state.items() if key not in shared}
    stored[FROM_SETUP] = shared
    return stored


def state_restored(stored: Any, setup: Any) -> Any:
    """The whole state of a row's ``stored`` form (:func:`state_stored`), with ``setup``."""
    if not isinstance(stored, Mapping) or FROM_SETUP not in stored:
        return stored
    state = {key: value for key, value in stored.items() if key != FROM_SETUP}
    for key in stored[FROM_SETUP]:
        state[key] = setup[key]
    return state


class _StateAttribute(DeferredAttribute):
    """``session.state``: the whole state, put together from the row's form on first reading."""

    def __get__(self, instance: Any, cls: Any = None) -> Any:
        if instance is None:
            return self
        value = super().__get__(instance, cls)
        if isinstance(value, Mapping) and FROM_SETUP in value:
            value = instance.__dict__[self.field.attname] = state_restored(value, instance.setup)
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.field.attname] = value


class GameStateField(models.JSONField):
    """A session's state: stored as :func:`state_stored` says, read whole. The model needs
    ``game`` and ``setup`` fields."""

    descriptor_class = _StateAttribute

    def pre_save(self, model_instance: Any, add: bool) -> Any:
        state = super().pre_save(model_instance, add)
        return state_stored(model_instance.game, state, model_instance.setup)
