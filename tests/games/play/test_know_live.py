"""Know over WebSockets (``ws/sessions/<id>/``), through the real ASGI application: every
message each non-member's socket receives during a full round is read for links between a
Team ID or an answer and another team (issue: Know in class, "Anonymity is a feature")."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client

from config.asgi import application
from games import consumers, services
from games.engines import know
from games.models import GameSession, Participant
from games.play.know.services import know_session_create
from lms.services import TEACHERS_GROUP
from tests.factories import TeacherFactory, UserFactory
from tests.games.play.test_know_play import ANSWERS, QUESTIONS, TEAM_IDS, Game, assert_no_link

TIMEOUT = 10  # s: generous for a loaded machine; only a failing test waits it out

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _seed(transactional_db: None, settings: Any) -> Iterator[None]:
    Group.objects.get_or_create(name=TEACHERS_GROUP)
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    yield
    consumers.database_threads_close()


def socket(session: GameSession, client: Client) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost")]
    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
    if cookie is not None:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode()))
    return WebsocketCommunicator(application, f"/ws/sessions/{session.pk}/", headers=headers)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_game(*, mapping: bool) -> Game:
    teacher = TeacherFactory()
    session = know_session_create(
        facilitator=teacher,
        variant="team_marks",
        cards_per_team=1,
        source="Atlas",
        resolve_immediately=False,
        facilitator_sees_mapping=mapping,
        allow_guests=True,
    )
    teams = {}
    for name in ("Ala", "Bartek", "Celina"):
        user = UserFactory(first_name=name)
        participant = services.session_join(session=session, user=user)
        teams[participant.player_id] = signed_in(user)
    session = services.session_start(session=session, by=teacher)
    guest = Client()
    guest.post(f"/games/join/{session.join_code}", {"nickname": "Latecomer"})
    assert Participant.objects.filter(session=session, role=Participant.Role.SPECTATOR).count() == 1
    return Game(session, signed_in(teacher), teams, guest, Client())


@pytest.mark.parametrize("mapping", [False, True])
def test_anonymity_every_websocket_message_of_a_full_round_links_nothing_for_non_members(
    mapping: bool,
) -> None:
    game = make_game(mapping=mapping)
    viewers: dict[str, str | None] = {
        "p1": "p1",
        "p2": "p2",
        "p3": "p3",
        "teacher": "facilitator",
        "guest": None,
    }
    clients = {**game.teams, "teacher": game.teacher, "guest": game.guest}
    received: dict[str, list[dict[str, Any]]] = {name: [] for name in clients}

    async def run() -> None:
        sockets = {name: socket(game.session, client) for name, client in clients.items()}
        for name, communicator in sockets.items():
            accepted, _ = await communicator.connect(timeout=TIMEOUT)
            assert accepted, name
            received[name].append(await communicator.receive_json_from(timeout=TIMEOUT))

        async def drain_one(name: str, communicator: WebsocketCommunicator) -> None:
            while not await communicator.receive_nothing(timeout=0.15):
                received[name].append(await communicator.receive_json_from(timeout=TIMEOUT))

        async def drain() -> None:
            # Every socket until it has been silent for 0.15 s, all at once.
            await asyncio.gather(*(drain_one(name, c) for name, c in sockets.items()))

        async def act(name: str, action: dict[str, Any]) -> None:
            await sockets[name].send_json_to({"type": "action", "action": action})
            await drain()
            errors = [m for m in received[name] if m["type"] == "error"]
            assert not errors, errors

        state = know.state_from_dict(game.session.state)
        for player in ("p1", "p2", "p3"):
            await act(player, {"type": "choose_team_id", "team_id": TEAM_IDS[player]})
            card = next(c.number for c in state.questions if c.team == player)
            await act(player, {"type": "write_question", "card": card, "text": QUESTIONS[player]})
        await act("teacher", {"type": "start_round"})
        for player in ("p1", "p2", "p3"):
            card = next(c.number for c in state.questions if c.team == player)
            await act(player, {"type": "submit_question", "card": card})
        owner = {c.number: c.team for c in state.questions}
        for index, player in enumerate(("p1", "p2", "p3")):
            target = next(n for n, team in owner.items() if team == ("p1", "p2", "p3")[(index + 1) % 3])
            await act(player, {"type": "submit_answer", "question_number": target, "text": ANSWERS[player],
                               "team_id": TEAM_IDS[player]})  # fmt: skip
        await act("teacher", {"type": "close_submissions"})
        await act("teacher", {"type": "resolve"})
        # team_marks: each question's own team marks it, and nobody learns who marked.
        stored = await database_sync_to_async(GameSession.objects.get)(pk=game.session.pk)
        deck = know.state_from_dict(stored.state).rounds[0]
        for answer in deck.answers:
            await act(owner[answer.question_number], {"type": "mark", "question_number": answer.question_number,
                                                      "best_answers": [answer.id]})  # fmt: skip
        await act("teacher", {"type": "close_round"})
        for communicator in sockets.values():
            await communicator.disconnect()

    async_to_sync(run)()
    for name, messages in received.items():
        states = [m for m in messages if m["type"] == "state"]
        assert len(states) >= 15, (name, len(states))
        for message in states:
            assert_no_link(game, message, viewer=viewers[name], mapping_allowed=mapping)
    final = received["guest"][-1]["view"]
    assert final["terminal"] and final["score_record"] == {"Kestrel": 2, "Lantern": 2, "Moss": 2}
    # The facilitator's socket carries the Team IDs of the teams only when set up so.
    teacher_text = json.dumps(
        [m for m in received["teacher"] if m["type"] == "state"][-1]["view"]["facilitator"]
    )
    assert ("Kestrel" in teacher_text) == mapping
