"""A notice published by synchronous code on a thread whose event loop is running still arrives.

Playwright's sync API keeps an asyncio loop running in the browser tests' thread, and so does
any coroutine that calls a synchronous service directly; ``async_to_sync`` refuses to run
there, and ``games.services.notice_send`` sends from a thread of its own instead. The
deliveries are tested on the in-memory layer and on Redis's (a prefix of its own), as in
``tests/games/test_live.py``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.exceptions
from channels.layers import get_channel_layer

from games import services
from games.workshop import services as workshop_services
from tests.games.test_live import layer_in_use, redis_layer_of_its_own

TIMEOUT = 10  # s: only a failing test waits it out


@pytest.fixture(params=["memory", "redis"])
def channel_layer(request: pytest.FixtureRequest, settings: Any) -> str:
    return layer_in_use(request.param, settings)


def received_in_loop(group: str, publish: Any) -> dict[str, Any]:
    """What a channel of ``group`` receives when ``publish()`` runs, synchronously, on the loop."""

    async def scenario() -> dict[str, Any]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        try:
            asyncio.get_running_loop()  # as in the browser tests' thread
            publish()
            return await asyncio.wait_for(layer.receive(channel), TIMEOUT)
        finally:
            await layer.group_discard(group, channel)
            await layer.flush()

    return asyncio.run(scenario())


def test_a_session_notice_published_on_a_running_event_loop_reaches_the_group(channel_layer):
    message = received_in_loop(
        "session-7", lambda: services.session_publish(group="session-7", version=3, broadcast={"p1": 1})
    )
    assert message == {"type": "session.changed", "version": 3, "broadcast": {"p1": 1}}


def test_a_workshop_notice_published_on_a_running_event_loop_reaches_the_group(channel_layer):
    message = received_in_loop(
        "workshop-4", lambda: workshop_services.workshop_publish(group="workshop-4", version=2)
    )
    assert message == {"type": "workshop.changed", "version": 2}


def test_a_failed_send_on_a_running_event_loop_is_raised_to_the_caller_as_elsewhere(settings):
    # A Redis nobody listens on: the caller (on_commit's robust hook, which logs it) gets the error.
    prefix = redis_layer_of_its_own(settings)
    layer = settings.CHANNEL_LAYERS["default"]
    hosts = [{**layer["CONFIG"]["hosts"][0], "address": "redis://127.0.0.1:1/0"}]
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {"hosts": hosts, "prefix": prefix}}}

    async def scenario() -> None:
        services.notice_send(group="session-7", message={"type": "session.changed", "version": 1})

    with pytest.raises(redis.exceptions.ConnectionError):
        asyncio.run(scenario())
