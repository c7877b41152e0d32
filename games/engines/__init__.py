"""Pure game rules, one module per game; nothing here imports Django.

``engine_for("znajznak")`` returns the module of a game; every module follows the API
in ``games/engines/base.py``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, cast

from .base import Engine

GAMES = ("znajznak", "know", "activity", "knowledge", "quiz_live")

if TYPE_CHECKING:
    # mypy checks every game's module against ``Engine`` here; at run time each is
    # imported when first asked for.
    from . import activity, know, knowledge, quiz_live, znajznak

    _ENGINES: tuple[Engine, ...] = (znajznak, know, activity, knowledge, quiz_live)


def engine_for(game: str) -> Engine:
    """The engine module of ``game``; ``KeyError`` with the known games otherwise."""
    if game not in GAMES:
        raise KeyError(f"Unknown game {game!r}; Talia knows {', '.join(GAMES)}.")
    try:
        # A module's type is ModuleType: the check above is what makes it an Engine.
        return cast(Engine, import_module(f"games.engines.{game}"))
    except ModuleNotFoundError as error:
        raise KeyError(f"The game {game!r} is not playable in Talia yet.") from error
