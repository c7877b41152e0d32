"""Activity over WebSockets: every socket's messages carry the term only to the representative
and the facilitator (Activity rulebook, Play: the representative takes the card "so that
teammates cannot see the terms"), through the real ASGI application."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import Group
from django.urls import reverse

from games import consumers
from lms.services import TEACHERS_GROUP
from tests.factories import TeacherFactory
from tests.games.test_live import connected, socket

from .activity_helpers import term_in_play, two_teams

pytestmark = pytest.mark.django_db(transaction=True)
TIMEOUT = 10  # s: generous for a loaded machine; only a failing test waits it out


@pytest.fixture(autouse=True)
def _seed(transactional_db: None, settings: Any) -> Iterator[None]:
    Group.objects.get_or_create(name=TEACHERS_GROUP)
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    yield
    consumers.database_threads_close()


async def messages_until(communicator: Any, version: int) -> list[dict[str, Any]]:
    """Every message the socket gets until one at ``version``."""
    received = []
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        received.append(message)
        if message.get("type") == "state" and message["version"] >= version:
            return received


def test_socket_messages_give_the_term_to_the_representative_and_the_facilitator_only():
    game = two_teams(TeacherFactory())
    session = game.session
    act_url = reverse("games:activity_act", args=[session.pk])

    async def scenario() -> dict[str, str]:
        sockets = {who: socket(session, client) for who, client in game.clients.items()}
        for communicator in sockets.values():
            await connected(communicator)
        # The representative of Sowy (p1) draws from their phone, by the Activity endpoint.
        post = database_sync_to_async(
            lambda: game.clients["p1"].post(
                act_url, data=json.dumps({"type": "draw"}), content_type="application/json"
            )
        )
        assert (await post()).status_code == 200
        received = {}
        for who, communicator in sockets.items():
            received[who] = json.dumps(await messages_until(communicator, 1), ensure_ascii=False)
        # A teammate sends an outcome over the socket: refused, and the reason never names the term.
        await sockets["p2"].send_json_to({"type": "action", "action": {"type": "guessed", "team": "t1"}})
        refusal = await sockets["p2"].receive_json_from(timeout=TIMEOUT)
        assert refusal["type"] == "error"
        received["p2"] += json.dumps(refusal, ensure_ascii=False)
        for communicator in sockets.values():
            await communicator.disconnect()
        return received

    received = async_to_sync(scenario)()
    term = term_in_play(game.refresh())
    assert term in received["p1"] and term in received["facilitator"]
    for who in ("p2", "p3", "p4"):
        assert term not in received[who], who
        assert '"phase": "memorise"' in received[who]  # they did get the new version
