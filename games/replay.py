"""Game logs and their replay: what a session's download holds, and the engine run on it again.

The format is ``docs/replay.md``: game, variant, seed, setup and the actions in order.
Replaying uses only the pure engine, so the same log always gives the same state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games import services
from games.engines import engine_for
from games.engines.base import ActionError, InvalidAction, InvalidSetup
from games.models import GameSession

#: What a game's log may leave out of its setup and the replay fills in (``replay.md``), by game.
REPLAY_SETUPS: dict[str, Callable[[dict[str, Any], int], dict[str, Any]]] = {}


def replay_setup_register(game: str, complete: Callable[[dict[str, Any], int], dict[str, Any]]) -> None:
    """``complete(setup, seed)`` gives the setup a replayed ``game`` log starts from."""
    REPLAY_SETUPS[game] = complete


def session_log(session: GameSession) -> dict[str, Any]:
    """The session as a game log in the replay format (``docs/replay.md``)."""
    actions = []
    for record in session.actions.order_by("index"):
        entry = {"type": record.action["type"]}
        if record.player_id:
            entry["player"] = record.player_id
        entry.update((key, value) for key, value in record.action.items() if key != "type")
        actions.append(entry)
    return {
        "game": session.game,
        "variant": session.variant,
        "seed": session.seed,
        "setup": session.setup,
        "actions": actions,
    }


@dataclass(frozen=True)
class Replay:
    """What replaying a log gave: the last good state, and the first refusal if any.

    ``state`` is ``None`` only when the log could not start a game at all.
    ``error`` is ``{"index", "error", "reason"}`` with ``error`` one of
    ``illegal_action``, ``invalid_action`` or ``invalid_log`` (``index`` is then the
    action's index, or ``None`` when the log itself is at fault).
    """

    state: dict[str, Any] | None
    error: dict[str, Any] | None = None


def log_replay(log: Any) -> Replay:
    """Replay a game log: setup + seed, then each action in order, with the pure engine.

    >>> log_replay({"game": "chess"}).error["error"]
    'invalid_log'
    """

    def bad_log(reason: str) -> Replay:
        return Replay(None, {"index": None, "error": "invalid_log", "reason": reason})

    if not isinstance(log, dict):
        return bad_log("A game log is a JSON object.")
    missing = [key for key in ("game", "variant", "seed", "setup", "actions") if key not in log]
    if missing:
        return bad_log(f"The log has no {', '.join(missing)}.")
    game, variant, seed, setup, actions = (
        log[key] for key in ("game", "variant", "seed", "setup", "actions")
    )
    try:
        engine = engine_for(game)
    except (KeyError, TypeError) as error:
        return bad_log(str(error.args[0]) if error.args else f"Unknown game {game!r}.")
    if variant not in engine.VARIANTS:
        return bad_log(f"{game} has no variant {variant!r}; it has {', '.join(engine.VARIANTS)}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        return bad_log("The seed must be an integer.")
    if not isinstance(setup, dict):
        return bad_log("The setup must be a JSON object.")
    if not isinstance(actions, list):
        return bad_log("The actions must be a JSON list.")
    if game in REPLAY_SETUPS:
        setup = REPLAY_SETUPS[game](setup, seed)
    try:
        state = engine.new_game(setup, seed=seed, variant=variant)
    except InvalidSetup as error:
        return bad_log(f"The setup cannot start a game: {error}")
    for index, action in enumerate(actions):
        try:
            if not isinstance(action, dict):
                raise InvalidAction("An action is a JSON object with a type.")
            player = action.get("player")
            if player is not None and not isinstance(player, str):
                raise InvalidAction("The player of an action is a string.")
            state = engine.apply_action(state, player, services.action_clean(action))
        except ActionError as error:
            return Replay(state.to_dict(), {"index": index, "error": error.code, "reason": str(error)})
    return Replay(state.to_dict())
