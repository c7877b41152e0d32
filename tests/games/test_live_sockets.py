"""A fast-path action reaches the sockets of its game in this process directly, and crosses
Redis only when another process holds the game too (``games.sockets``).

The real ASGI application on the real Redis channel layer: a raw Redis subscriber on the
session's group channel sees what this process publishes. "Another process" is a process
id in the session row's ``live_processes``, as a second web process's first socket puts it
there.
PostgreSQL only: on SQLite (the embedded mode: one process) no row names processes.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from games import consumers, live, sockets
from games.engines import znajznak
from games.models import GameSession
from tests.games.test_live import (  # noqa: F401  (the autouse fixtures apply where imported)
    TIMEOUT,
    _database_threads_closed,
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
    return f"{prefix}__group__{GameSession.group_name_of(session_id)}"


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
    process (``other_process`` named in the session row as holding a socket too); what each
    socket got, what crossed Redis and the row's processes after."""
    session = game["session"]
    if other_process is not None:
        GameSession.objects.filter(pk=session.pk).update(live_processes=[other_process])
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        listener = client.pubsub()
        await listener.subscribe(group_channel(redis_layer, session.pk))
        ala, olek, teacher = (socket(session, game[name]) for name in ("ala", "olek", "teacher"))
        for communicator in (ala, olek, teacher):
            await connected(communicator)
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
        await client.aclose()

    async_to_sync(scenario)()
    seen["common"] = common
    seen["processes"] = GameSession.objects.get(pk=session.pk).live_processes
    return seen


def test_an_action_reaches_the_sockets_of_this_process_without_crossing_redis(duel, locked, redis_layer):  # noqa: F811
    seen = play_a_stop(duel, redis_layer, other_process=None)

    assert locked == []  # the fast path
    assert seen["processes"] == [sockets.PROCESS]  # added once, by the first socket
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
    assert seen["processes"] == [other, sockets.PROCESS]
    (notice,) = seen["published"]
    assert notice["type"] == "session.changed" and notice["version"] == 1
    assert notice["origin"] == sockets.PROCESS  # this process's sockets skip it: they had it
    assert notice["applied"] == {"player": "p1", "action": {"type": "stop", "symbol": seen["common"]}}
    assert "local" not in notice
    for name in ("ala", "olek", "teacher"):
        assert seen[name]["version"] == 1
    assert seen["again"] == [True, True, True]


def test_a_socket_whose_process_cannot_say_it_holds_the_game_is_closed_to_be_opened_again(
    duel,  # noqa: F811
    monkeypatch,
):
    """Without its process in the row, the socket would miss other processes' actions."""

    async def failing(self: Any, sql: str, params: list[Any]) -> None:
        return None  # as for a broken connection

    monkeypatch.setattr(live._Statements, "write", failing)
    session = duel["session"]

    async def scenario() -> dict[str, Any]:
        ala = socket(session, duel["ala"])
        opened, _ = await ala.connect(timeout=TIMEOUT)
        assert opened
        return await ala.receive_output(timeout=TIMEOUT)

    closing = async_to_sync(scenario)()

    assert (closing["type"], closing["code"]) == ("websocket.close", consumers.CLOSE_TRY_AGAIN)
    assert sockets.here(session.pk) == []
    assert GameSession.objects.get(pk=session.pk).live_processes == []


def test_an_answer_to_a_socket_the_browser_closed_meanwhile_is_dropped():
    """daphne refuses a send on a closed socket (autobahn's ``Disconnected``): a refusal or a
    state for a student who has already moved on is dropped, not an error of the consumer."""
    from autobahn.exception import Disconnected

    consumer = consumers.SessionConsumer()
    sent: list[dict[str, Any]] = []

    async def closed(message: dict[str, Any]) -> None:
        sent.append(message)
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = closed
    async_to_sync(consumer.send_json)(
        {"type": "error", "error": "illegal_action", "reason": "The game is over."}
    )
    assert [message["type"] for message in sent] == ["websocket.send"]
