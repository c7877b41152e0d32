"""A bare relay of the live duels' messages: the baseline ``bench_live.py`` measures Talia against.

Run by the bench as Talia's server is: ``daphne bench.relay_app:application`` on the bench's
database (``RELAY_DATABASE_URL``), driven by the same simulated students with the same
messages. It does what any server of a live duel must do, and nothing more:

* a socket opens at ``/ws/sessions/<id>/?player=<engine id>`` (a bare relay trusts the player
  its URL names: no Django session, no user, no participant look-up); the first socket of a
  game reads the session row and its participants once (one read for the sockets opening
  together) and holds the game's engine state in memory;
* an action is applied to that state with the game's pure engine (``games.engines``: the
  students read their cards from its ``player_view``, and a lost STOP race is refused,
  answered to that socket only, with nothing stored);
* an accepted action is stored with one statement on an asynchronous psycopg connection of
  a small pool: the session's version bumped if it is still the one held, and the action's
  row inserted (``games_actionrecord``, which the bench counts and matches as for Talia);
  not the state's JSON, the namings, the process list;
* the new state goes to the opponent's socket, then to the actor's, within the process.

What it leaves out is what Talia adds around that: Django, Channels' consumers and
middleware, the session cookie and the participant, the stored state and namings, the
payload built for every viewer, the process list and the channel layer. One process only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

import psycopg
from psycopg_pool import AsyncConnectionPool

from games.engines import znajznak
from games.stored_state import state_restored

POOL_MAX_SIZE = 4  # as Talia's LIVE_DB_POOL_MAX_SIZE default

READ_GAME = """
    SELECT s.setup, s.state, s.version, s.status, s.game, s.variant,
        coalesce((SELECT json_agg(json_build_array(p.nickname, p.player_id, p.role) ORDER BY p.id)
                  FROM games_participant p WHERE p.session_id = s.id), '[]'::json)
    FROM games_gamesession s WHERE s.id = %s
"""

WRITE_ACTION = """
    WITH written AS (
        UPDATE games_gamesession SET version = version + 1, status = %s, updated = %s
        WHERE id = %s AND version = %s
        RETURNING id
    )
    INSERT INTO games_actionrecord (session_id, index, player_id, action, created)
    SELECT id, %s, %s, %s::jsonb, %s FROM written
    RETURNING 1
"""


@dataclass
class Game:
    session_id: int
    state: Any
    version: int
    status: str
    shared: dict[str, Any]  # game, variant, participants
    sockets: dict[str, Any] = field(default_factory=dict)  # player -> the socket's ASGI send
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def message(self, player: str) -> str:
        return json.dumps(
            {
                "type": "state",
                "version": self.version,
                "status": self.status,
                **self.shared,
                "you": {"player": player},
                "view": znajznak.player_view(self.state, player),
            }
        )


_games: dict[int, Game] = {}
_reading: dict[int, asyncio.Future[Game | None]] = {}
_pool: AsyncConnectionPool[psycopg.AsyncConnection[Any]] | None = None


async def pool() -> AsyncConnectionPool[psycopg.AsyncConnection[Any]]:
    global _pool
    if _pool is None:
        _pool = AsyncConnectionPool(
            os.environ["RELAY_DATABASE_URL"],
            kwargs={"autocommit": True},
            min_size=0,
            max_size=POOL_MAX_SIZE,
            open=False,
        )
        await _pool.open()
    return _pool


async def game_of(session_id: int) -> Game | None:
    game = _games.get(session_id)
    if game is not None:
        return game
    reading = _reading.get(session_id)
    if reading is not None:  # the opponent's socket is reading it: one read for both
        return await asyncio.shield(reading)
    reading = _reading[session_id] = asyncio.get_running_loop().create_future()
    try:
        async with (await pool()).connection() as conn:
            row = await (await conn.execute(READ_GAME, [session_id])).fetchone()
        game = None
        if row is not None and row[1] is not None and row[4] == "znajznak":
            setup, state, version, status, name, variant, people = row
            shared = {
                "game": name,
                "variant": variant,
                "participants": [{"nickname": n, "player": p, "role": r} for n, p, r in people],
            }
            state = state_restored(state, setup)  # the row's form (games.stored_state)
            game = Game(session_id, znajznak.state_from_dict(state), version, status, shared)
            _games[session_id] = game
        reading.set_result(game)
        return game
    except BaseException:
        reading.set_result(None)
        raise
    finally:
        del _reading[session_id]


async def act(game: Game, player: str, action: Any, send: Any) -> None:
    async with game.lock:
        try:
            if not isinstance(action, dict):
                raise ValueError("An action is a JSON object.")
            state = znajznak.apply_action(game.state, player, action)
        except Exception as error:  # the engine's refusal (ActionError) or a malformed action
            code = getattr(error, "code", "invalid_action")
            await deliver(send, json.dumps({"type": "error", "error": code}))
            return
        ended = znajznak.is_terminal(state)
        status = "finished" if ended else game.status
        now = datetime.now(UTC)
        params = [status, now, game.session_id, game.version, game.version, player, json.dumps(action), now]
        async with (await pool()).connection() as conn:
            written = await (await conn.execute(WRITE_ACTION, params)).fetchone()
        if written is None:  # another writer moved the version: the relay holds one process only
            raise RuntimeError(f"session {game.session_id}: version {game.version} moved on")
        game.state, game.version, game.status = state, game.version + 1, status
        others = [(p, s) for p, s in game.sockets.items() if p != player]
    for other, other_send in others:  # the opponent first, as Talia does
        await deliver(other_send, game.message(other))
    await deliver(send, game.message(player))
    if ended:
        _games.pop(game.session_id, None)


async def deliver(send: Any, text: str) -> None:
    # The socket may have closed meanwhile (its student moved on to the next duel).
    with contextlib.suppress(Exception):
        await send({"type": "websocket.send", "text": text})


async def websocket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if (await receive())["type"] != "websocket.connect":
        return
    parts = scope["path"].strip("/").split("/")
    player = (parse_qs(scope.get("query_string", b"").decode()).get("player") or [""])[0]
    game = None
    if len(parts) == 3 and parts[:2] == ["ws", "sessions"] and parts[2].isdigit():
        game = await game_of(int(parts[2]))
    if game is None or not player:
        await send({"type": "websocket.close", "code": 4404})
        return
    await send({"type": "websocket.accept"})
    game.sockets[player] = send
    try:
        await send({"type": "websocket.send", "text": game.message(player)})
        while True:
            event = await receive()
            if event["type"] == "websocket.disconnect":
                return
            message = json.loads(event.get("text") or "null")
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "action":
                await act(game, player, message.get("action"), send)
            elif kind == "resume":
                await send({"type": "websocket.send", "text": game.message(player)})
    finally:
        if game.sockets.get(player) is send:
            del game.sockets[player]
        if not game.sockets:
            _games.pop(game.session_id, None)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await websocket(scope, receive, send)
    elif scope["type"] == "http":
        # /healthz, as the bench waits for Talia's.
        found = scope["path"] == "/healthz"
        await send(
            {
                "type": "http.response.start",
                "status": 200 if found else 404,
                "headers": [(b"content-type", b"text/plain")],
            }
        )
        await send({"type": "http.response.body", "body": b"ok" if found else b""})
