"""Live sessions over WebSockets, through the real ASGI application (``config.asgi``).

Every test runs on the in-memory channel layer and on the Redis layer (``REDIS_URL``);
under CI=true a missing Redis fails the run (``tests/conftest.py``) rather than skipping.
The tests run their coroutines with ``async_to_sync`` on the test's (transactional)
database: on SQLite the consumers' database calls run in the test's thread; on PostgreSQL
in the live path's database threads and, for actions on the fast path, on its own
connections (``games/database_threads.py``, ``games/live.py``;
``tests/games/test_live_fast_path.py`` tests the fast path itself).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from config.asgi import application
from games import consumers, services
from games.engines import znajznak
from games.models import GameSession
from lms.services import TEACHERS_GROUP
from tests.conftest import IN_CI
from tests.factories import UserFactory
from tests.games.test_sessions import ALL_NAMES, create_session, signed_in

TIMEOUT = 10  # s: generous for a loaded machine; only a failing test waits it out

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _seed(transactional_db: None) -> None:
    """An earlier transactional test may have emptied the database: add back what users need.

    (A serialized rollback would restore the whole seed, but clashes with the content
    types that a flush without it recreates.)
    """
    Group.objects.get_or_create(name=TEACHERS_GROUP)


@pytest.fixture(autouse=True)
def _database_threads_closed(transactional_db: None) -> Iterator[None]:
    """The consumers' database threads (PostgreSQL) close their connections after each test,
    before the test database is flushed or dropped."""
    yield
    consumers.database_threads_close()


@pytest.fixture(params=["memory", "redis"], autouse=True)
def channel_layer(request: pytest.FixtureRequest, settings: Any) -> str:
    """Each test on the in-memory layer and on Redis, with a prefix of its own on Redis."""
    return layer_in_use(request.param, settings)


def layer_in_use(kind: str, settings: Any) -> str:
    """Settings for the channel layer ``kind``: ``"memory"``, or ``"redis"`` with a prefix
    of its own (:func:`redis_layer_of_its_own`)."""
    if kind == "redis":
        redis_layer_of_its_own(settings)
    else:
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return kind


def redis_layer_of_its_own(settings: Any) -> str:
    """The Redis layer exactly as configured (config/settings.py), with a prefix of its own
    (returned); no Redis: a skip, or under CI=true a failure."""
    if not settings.REDIS_URL:
        if IN_CI:
            pytest.fail("REDIS_URL is not set: the live tests need Redis under CI=true.")
        pytest.skip("REDIS_URL is not set: the Redis channel layer is tested in CI.")
    configured = settings.CHANNEL_LAYERS["default"]
    assert configured["BACKEND"].startswith("channels_redis.")
    prefix = f"talia-test-{uuid.uuid4().hex[:12]}"
    settings.CHANNEL_LAYERS = {
        "default": {**configured, "CONFIG": {**configured["CONFIG"], "prefix": prefix}}
    }
    return prefix


def socket(session: GameSession, client: Client | None = None, *, origin: bytes = b"http://localhost"):
    headers = [(b"origin", origin)]
    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME) if client is not None else None
    if cookie is not None:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode()))
    return WebsocketCommunicator(application, f"/ws/sessions/{session.pk}/", headers=headers)


async def state_at(communicator: WebsocketCommunicator, version: int) -> dict[str, Any]:
    """The first state message at ``version`` or later (the sender may get one twice)."""
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        assert message["type"] == "state", message
        if message["version"] >= version:
            return message


async def connected(communicator: WebsocketCommunicator) -> dict[str, Any]:
    accepted, _ = await communicator.connect(timeout=TIMEOUT)
    assert accepted
    first = await communicator.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "state"
    return first


@pytest.fixture
def duel(teacher: Any) -> dict[str, Any]:
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    session = create_session(teacher, seed=7)
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    session = services.session_start(session=session, by=teacher)
    state = znajznak.state_from_dict(session.state)
    return {
        "session": session,
        "ala": signed_in(ala),
        "olek": signed_in(olek),
        "teacher": signed_in(teacher),
        "common": znajznak.common_symbol(state, "p1"),
        "p2_card": list(state.cards[state.table[1]]),
    }


def assert_no_names(message: dict[str, Any]) -> None:
    text = json.dumps(message, ensure_ascii=False)
    assert not any(name in text for name in ALL_NAMES), text


def test_an_action_by_one_player_brings_the_other_a_fresh_view_of_their_own(duel):
    session = duel["session"]

    async def scenario() -> None:
        ala, olek, table = (
            socket(session, duel["ala"]),
            socket(session, duel["olek"]),
            socket(session, duel["teacher"]),
        )
        assert (await connected(ala))["view"]["you"] == "p1"
        assert (await connected(olek))["view"]["you"] == "p2"
        assert (await connected(table))["you"]["role"] == "facilitator"

        await ala.send_json_to({"type": "action", "action": {"type": "stop", "symbol": duel["common"]}})

        mine = await state_at(ala, 1)
        assert mine["view"]["claim"] == {"player": "p1", "symbol": duel["common"]}
        theirs = await state_at(olek, 1)
        assert theirs["view"]["you"] == "p2" and theirs["view"]["phase"] == "naming"
        assert theirs["view"]["comparison"]["own"] == duel["p2_card"]
        assert_no_names(theirs)
        projector = await state_at(table, 1)
        assert projector["view"]["you"] is None and projector["view"]["comparison"] is None
        assert_no_names(projector)
        for communicator in (ala, olek, table):
            await communicator.disconnect()

    async_to_sync(scenario)()


def test_each_socket_gets_each_version_once_and_never_an_older_one(duel):
    """The actor's own state comes with its action's answer; the notice's echo is not sent
    again, and a late notice of an older version changes nothing on the screen."""
    session = duel["session"]

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        await ala.send_json_to({"type": "action", "action": {"type": "stop", "symbol": duel["common"]}})
        mine = await ala.receive_json_from(timeout=TIMEOUT)
        assert mine["version"] == 1 and mine["view"]["you"] == "p1"
        theirs = await olek.receive_json_from(timeout=TIMEOUT)
        assert theirs["version"] == 1 and theirs["view"]["you"] == "p2"
        assert theirs["view"]["comparison"]["own"] == duel["p2_card"]
        assert await ala.receive_nothing(timeout=0.5) and await olek.receive_nothing(timeout=0.1)

        layer = get_channel_layer()
        await layer.group_send(session.group_name, services.session_notice(version=0))
        assert await ala.receive_nothing(timeout=0.5) and await olek.receive_nothing(timeout=0.1)
        # A notice without payloads (a class run's, a join) is read afresh by every socket.
        await layer.group_send(session.group_name, services.session_notice(version=1))
        assert (await olek.receive_json_from(timeout=TIMEOUT))["view"]["you"] == "p2"
        assert (await ala.receive_json_from(timeout=TIMEOUT))["view"]["you"] == "p1"
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()


def test_a_reconnecting_player_resumes_at_the_current_state(duel):
    session = duel["session"]

    async def scenario() -> None:
        olek = socket(session, duel["olek"])
        assert (await connected(olek))["version"] == 0
        await olek.disconnect()

        apply = database_sync_to_async(services.session_apply_action)
        await apply(session_id=session.pk, player_id="p1", action={"type": "stop", "symbol": duel["common"]})
        await apply(session_id=session.pk, player_id="p1", action={"type": "dont_know"})

        again = socket(session, duel["olek"])
        resumed = await connected(again)
        assert resumed["version"] == 2 and resumed["view"]["reveal"]["result"] == "dont_know"
        await again.send_json_to({"type": "resume", "version": 0})
        assert (await again.receive_json_from(timeout=TIMEOUT))["version"] == 2
        await again.disconnect()

    async_to_sync(scenario)()


def test_a_refusal_goes_to_the_sender_only_and_changes_nothing(duel):
    session = duel["session"]

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)

        await ala.send_json_to({"type": "action", "action": {"type": "dont_know"}})
        refusal = await ala.receive_json_from(timeout=TIMEOUT)
        assert refusal["type"] == "error" and refusal["error"] == "illegal_action"
        assert refusal["reason"].startswith("Nobody is naming a symbol")
        await ala.send_json_to({"type": "action", "action": {"type": "jump"}})
        assert (await ala.receive_json_from(timeout=TIMEOUT))["error"] == "invalid_action"
        await ala.send_json_to({"type": "hello"})
        assert (await ala.receive_json_from(timeout=TIMEOUT))["error"] == "invalid_message"
        await ala.send_to(text_data="{not json")
        assert (await ala.receive_json_from(timeout=TIMEOUT))["error"] == "invalid_message"

        assert await olek.receive_nothing(timeout=0.5)
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()
    session.refresh_from_db()
    assert session.version == 0 and not session.actions.exists()


def test_sockets_of_people_outside_the_game_are_refused(duel):
    session = duel["session"]
    outsider = signed_in(UserFactory())

    async def scenario() -> None:
        for communicator in (socket(session), socket(session, outsider)):
            accepted, code = await communicator.connect(timeout=TIMEOUT)
            assert (accepted, code) == (False, 4403)
        foreign = socket(session, duel["ala"], origin=b"https://evil.example")
        accepted, _ = await foreign.connect(timeout=TIMEOUT)
        assert not accepted

    async_to_sync(scenario)()


def test_a_guest_s_socket_is_known_by_the_token_in_their_session(teacher):
    session = create_session(teacher, allow_guests=True)
    guest = Client()
    guest.post(reverse("games:join_code", args=[session.join_code]), {"nickname": "Kuba"})
    imposter = Client()
    imposter.get(reverse("games:join"))  # a session cookie of its own, without the token

    async def scenario() -> None:
        first = await connected(socket(session, guest))
        assert first["you"] == {"nickname": "Kuba", "player": "p1", "role": "player"}
        assert first["status"] == "lobby" and first["view"] is None
        accepted, _ = await socket(session, imposter).connect(timeout=TIMEOUT)
        assert not accepted

    async_to_sync(scenario)()


def test_starting_the_game_brings_every_player_their_first_view(teacher):
    session = create_session(teacher)
    clients = [signed_in(UserFactory()), signed_in(UserFactory())]
    for client in clients:
        client.post(reverse("games:join_code", args=[session.join_code]))

    async def scenario() -> None:
        sockets = [socket(session, client) for client in clients]
        for communicator in sockets:
            assert (await connected(communicator))["status"] == "lobby"
        await database_sync_to_async(services.session_start)(session=session, by=teacher)
        for player, communicator in zip(("p1", "p2"), sockets, strict=True):
            started = await communicator.receive_json_from(timeout=TIMEOUT)
            assert started["status"] == "running" and started["view"]["you"] == player
            assert_no_names(started)
            await communicator.disconnect()

    async_to_sync(scenario)()


def test_an_action_over_http_reaches_the_players_on_sockets(duel):
    session = duel["session"]
    url = reverse("games:session_actions", args=[session.pk])

    async def scenario() -> None:
        olek = socket(session, duel["olek"])
        await connected(olek)
        post = database_sync_to_async(duel["ala"].post)
        response = await post(
            url, {"type": "stop", "symbol": duel["common"]}, content_type="application/json"
        )
        assert response.status_code == 200
        update = await state_at(olek, 1)
        assert update["view"]["claim"]["player"] == "p1" and update["view"]["you"] == "p2"
        await olek.disconnect()

    async_to_sync(scenario)()


def test_the_redis_channel_layer_delivers_after_a_quiet_spell(settings):
    """A quiet class must not drop its sockets: redis-py's default 5 s read timeout equals
    channels_redis's blocking read and closed idle consumers (1011); the layer is set up
    without it."""
    if not settings.REDIS_URL:
        if IN_CI:
            pytest.fail("REDIS_URL is not set: the Redis channel layer must be tested in CI.")
        pytest.skip("REDIS_URL is not set: the Redis channel layer is tested in CI.")
    from channels.layers import get_channel_layer

    async def scenario() -> None:
        layer = get_channel_layer()
        name = await layer.new_channel()
        await layer.group_add("quiet-spell", name)

        async def later() -> None:
            await asyncio.sleep(6.5)
            await layer.group_send("quiet-spell", {"type": "x.y", "n": 1})

        sender = asyncio.ensure_future(later())
        message = await asyncio.wait_for(layer.receive(name), 15)
        await sender
        assert message["n"] == 1
        await layer.group_discard("quiet-spell", name)

    async_to_sync(scenario)()
