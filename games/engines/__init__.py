"""Pure game rules, one module per game; nothing here imports Django.

``engine_for("znajznak")`` returns the module of a game; every module follows the API
in ``games/engines/base.py``.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

GAMES = ("znajznak", "know", "activity", "knowledge", "quiz_live")


def engine_for(game: str) -> ModuleType:
    """The engine module of ``game``; ``KeyError`` with the known games otherwise."""
    if game not in GAMES:
        raise KeyError(f"Unknown game {game!r}; Talia knows {', '.join(GAMES)}.")
    try:
        return import_module(f"games.engines.{game}")
    except ModuleNotFoundError as error:
        raise KeyError(f"The game {game!r} is not playable in Talia yet.") from error
