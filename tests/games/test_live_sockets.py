"""A fast-path action reaches the sockets of its game in this process directly, and crosses
Redis only when another process holds the game too (``games.sockets``).

The real ASGI application on the real Redis channel layer: a raw Redis subscriber on the
session's group channel sees what this process publishes. "Another process" is a process
id in the session's set in Redis, as a second web process's first socket puts it there.
PostgreSQL only, as the fast path (``tests/games/test_live_fast_path.py``).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio
import redis.exceptions
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import sockets
from games.engines import znajznak
from tests.games.test_live import (  # noqa: F401  (the autouse fixtures apply where imported)
    TIMEOUT,
    _database_threads_closed,
    _fast_passwords,
    _seed,
    connected,
    redis_layer_of_its_own,
    socket,
    state_at,
)

# Fixtures (``duel``, ``locked``) are taken as the tests' arguments: hence the noqa F811s.
from tests.games.test_live_fast_path import action_message, duel, locked, require_postgresql  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

require_postgresql()


@pytest.fixture(autouse=True)
def redis_layer(settings: Any) -> str:
    """The Redis layer as configured, with a prefix of its own; no socket or session known."""
    prefix = redis_layer_of_its_own(settings)
    sockets.forget()
    return prefix


def group_channel(prefix: str, session_id: int) -> str:
    return f"{prefix}__group__session-{session_id}"


async def published(listener: Any, seconds: float = 0.5) -> list[dict[str, Any]]:
    """The messages published on the listener's channel within ``seconds``."""
    layer = get_channel_layer()
    found = []
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while loop.time() < until:
        message = await listener.get_message(ignore_subscribe_messages=True, timeout=0.05)
        if message is not None:
            found.append(layer.deserialize(message["data"]))
    return found


def play_a_stop(game: dict[str, Any], redis_layer: str, *, other_process: str | None) -> dict[str, Any]:
    """Ala says STOP on the common symbol with Olek and the teacher watching, all on this
    process; what each socket got and what crossed Redis."""
    session = game["session"]
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(duel_settings_url())
        key = f"talia-live:processes:{session.pk}"
        await client.delete(key)
        if other_process is not None:
            await client.sadd(key, other_process)
        listener = client.pubsub()
        await listener.subscribe(group_channel(redis_layer, session.pk))
        ala, olek, teacher = (socket(session, game[name]) for name in ("ala", "olek", "teacher"))
        for communicator in (ala, olek, teacher):
            await connected(communicator)
        seen["members"] = await client.smembers(key)
        await published(listener, 0.2)  # whatever opening the sockets published
        await ala.send_json_to(action_message(type="stop", symbol=common))
        seen["ala"] = await state_at(ala, 1)
        seen["olek"] = await state_at(olek, 1)
        seen["teacher"] = await state_at(teacher, 1)
        seen["published"] = await published(listener)
        # Each socket got version 1 once: nothing more arrives.
        seen["again"] = [await communicator.receive_nothing(0.3) for communicator in (ala, olek, teacher)]
        for communicator in (ala, olek, teacher):
            await communicator.disconnect()
        await listener.aclose()
        await client.delete(key)
        await client.aclose()

    async_to_sync(scenario)()
    seen["common"] = common
    return seen


def duel_settings_url() -> str:
    from django.conf import settings

    return settings.REDIS_URL


def test_an_action_reaches_the_sockets_of_this_process_without_crossing_redis(duel, locked, redis_layer):  # noqa: F811
    seen = play_a_stop(duel, redis_layer, other_process=None)

    assert locked == []  # the fast path
    assert seen["members"] == {sockets.PROCESS.encode()}  # the first socket put this process in
    claim = {"player": "p1", "symbol": seen["common"]}
    for name in ("ala", "olek", "teacher"):
        assert seen[name]["version"] == 1 and seen[name]["view"]["claim"] == claim
    assert seen["published"] == []
    assert seen["again"] == [True, True, True]


def test_with_another_process_in_the_game_each_action_is_published_and_shown_once_here(
    duel,  # noqa: F811
    locked,  # noqa: F811
    redis_layer,
):
    other = uuid.uuid4().hex
    seen = play_a_stop(duel, redis_layer, other_process=other)

    assert locked == []
    assert seen["members"] == {sockets.PROCESS.encode(), other.encode()}
    (notice,) = seen["published"]
    assert notice["type"] == "session.changed" and notice["version"] == 1
    assert notice["origin"] == sockets.PROCESS  # this process's sockets skip it: they had it
    assert notice["applied"] == {"player": "p1", "action": {"type": "stop", "symbol": seen["common"]}}
    for name in ("ala", "olek", "teacher"):
        assert seen[name]["version"] == 1
    assert seen["again"] == [True, True, True]


def test_without_redis_to_ask_a_writer_publishes_rather_than_risk_a_lost_update(monkeypatch, settings):
    async def failing(*args: Any, **kwargs: Any) -> Any:
        raise redis.exceptions.ConnectionError("Redis is gone")

    monkeypatch.setattr(redis.asyncio.Redis, "smembers", failing)

    async def ask() -> bool:
        return await sockets.elsewhere(987654)

    assert async_to_sync(ask)() is True
