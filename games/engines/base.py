"""The engine API every game shares (``../shared/STYLE.md``, One engine API for all games).

An engine is a module with these functions, pure and deterministic for a seed::

    new_game(setup: Mapping, *, seed: int, variant: str) -> State
    legal_actions(state: State, player: str | None) -> list[dict]
    apply_action(state: State, player: str | None, action: Mapping) -> State
    is_terminal(state: State) -> bool
    outcome(state: State) -> dict | None
    player_view(state: State, player: str | None) -> dict
    state_from_dict(data: Mapping) -> State

and the constants ``GAME`` (its name) and ``VARIANTS``; :class:`Engine` says the same
for mypy (``games.engines.engine_for`` returns one, checked against every game's module).

``State`` is an immutable value with ``to_dict()`` and a ``from_dict()`` class method
that round-trip through JSON. ``apply_action`` returns a new state and never changes
the one it was given; an action that cannot be applied raises ``InvalidAction`` (it
is malformed) or ``IllegalAction`` (the rules do not allow it now), whose message a
player can read.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any, Protocol


class ActionError(Exception):
    """An action was refused; ``str(error)`` is a message for the player."""

    code = "action_error"


class InvalidAction(ActionError):
    """The action is malformed: unknown type, missing or ill-typed fields."""

    code = "invalid_action"


class IllegalAction(ActionError):
    """The action is well formed but the rules do not allow it now."""

    code = "illegal_action"


class InvalidSetup(ValueError):
    """The setup cannot start a game; the message says what to change."""


class State(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class Engine(Protocol):
    """What ``games/`` expects of a game module.

    Each engine takes its own ``State`` class, so the states it is given are ``Any`` here
    (a parameter of one game's type would not accept another's); what it returns is a
    :class:`State`.
    """

    GAME: str
    VARIANTS: tuple[str, ...]

    def new_game(self, setup: Mapping[str, Any], *, seed: int, variant: str) -> State: ...
    def legal_actions(self, state: Any, player: str | None) -> list[dict[str, Any]]: ...
    def apply_action(self, state: Any, player: str | None, action: Mapping[str, Any]) -> State: ...
    def is_terminal(self, state: Any) -> bool: ...
    def outcome(self, state: Any) -> dict[str, Any] | None: ...
    def player_view(self, state: Any, player: str | None) -> dict[str, Any]: ...
    def state_from_dict(self, data: Mapping[str, Any]) -> State: ...


def rng_for(seed: int, *purpose: object) -> random.Random:
    """A ``random.Random`` derived from the session's seed and a purpose.

    Separate purposes ("deal", "shuffle", round 3, ...) get independent streams, so
    adding a draw in one place never shifts the draws of another.

    >>> rng_for(7, "deal").random() == rng_for(7, "deal").random()
    True
    """
    text = ":".join(str(part) for part in (seed, *purpose))
    digest = hashlib.sha256(text.encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
