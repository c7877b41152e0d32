"""The fast path of a live action (``games.live``), through the real ASGI application.

A socket's action in a plain game is applied to the process's live table and stored with
one statement that bumps the version only if it is still the table's (on SQLite, the
embedded mode: one short transaction that does the same).
These tests prove that it stores exactly what the locked service would (the stored state
is what the stored log replays to, versions and action indexes are contiguous, the
namings are the same rows), that refusals are answered from memory and store nothing,
that a version written elsewhere is never overwritten (no lost update, with or without
its change notice), that a game ends on it and is announced as the locked service announces
it (the students' namings reach their memory, the join code is released), and that what it
must not do alone (the end of a Knowledge? game or a practice, a passed deadline,
``LIVE_FAST_PATH = False``) goes to the locked service (``services.session_act``), spied on
to tell the paths apart. The twin tests play a duel over sockets, and every golden log of a
game a socket plays live, through both writers and compare the rows they store.

They run on the database the suite runs on: PostgreSQL in CI, SQLite on a laptop without
``DATABASE_URL``; the fast path's own connection pool exists on PostgreSQL only, and its two
tests skip elsewhere (under CI=true they fail). ``tests/e2e/test_make_run.py`` plays a duel
to its end on ``make run``'s own SQLite server. Each test runs on the in-memory channel
layer and on Redis, as ``tests/games/test_live.py``.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import actions, live, selectors, services
from games.engines import engine_for, znajznak
from games.engines.base import IllegalAction
from games.models import GameSession, JoinCode, NamingRecord, Participant
from games.play.quiz_live.services import quiz_live_session_create
from games.play.znajznak.duels import class_round_start
from games.play.znajznak.practice import practice_assignment_create, practice_start
from games.quiz.models import QuizAttempt
from games.replay import log_replay, session_log
from tests.conftest import IN_CI
from tests.factories import SymbolFactory, UserFactory
from tests.games.play.test_quiz_live_play import published_quiz
from tests.games.test_classroom import class_with
from tests.games.test_live import (  # noqa: F401  (the autouse fixtures apply where imported)
    TIMEOUT,
    _database_threads_closed,
    _seed,
    channel_layer,
    connected,
    socket,
    state_at,
)
from tests.games.test_practice import small_deck
from tests.games.test_sessions import NAMES, create_session, signed_in, znajznak_setup

pytestmark = pytest.mark.django_db(transaction=True)


def require_postgresql() -> None:
    """Skip the calling test or module without PostgreSQL (the fast path's own connection
    pool, the processes a session row names); under CI=true, fail instead."""
    if connection.vendor != "postgresql":
        no_postgresql = (
            "This part of the fast path is PostgreSQL's: set DATABASE_URL to a PostgreSQL database."
        )
        if IN_CI:
            pytest.fail(f"{no_postgresql} Under CI=true these tests never skip.", pytrace=False)
        pytest.skip(no_postgresql, allow_module_level=True)


GOLDEN = Path(__file__).parent / "engines" / "golden"
KNOWLEDGE_GOLDEN = GOLDEN / "knowledge_basic.json"


# --- fixtures --------------------------------------------------------------------------------
# test_live.py's autouse fixtures (seed, closed database threads, fast passwords, each test on
# the in-memory layer and on Redis) apply here too: imported above, they are this module's.


@pytest.fixture
def locked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every action that went to the locked service, as (player, action): the fast path's
    misses. (The consumer calls ``services.session_act`` for each one.)"""
    calls: list[tuple[str, dict[str, Any]]] = []
    real = services.session_act

    def spy(*, participant: Participant, action: Any) -> Any:
        calls.append((participant.player_id, action))
        return real(participant=participant, action=action)

    monkeypatch.setattr(services, "session_act", spy)
    return calls


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each statement of the fast path stored its version, in order."""
    stored_or_not: list[bool] = []
    real = live._write

    async def spy(*args: Any, **kwargs: Any) -> Any:
        row = await real(*args, **kwargs)
        stored_or_not.append(row is not None and row[0] == 1)
        return row

    monkeypatch.setattr(live, "_write", spy)
    return stored_or_not


def library_links() -> dict[str, Any]:
    """Assets linking odd symbol keys to symbols of the library and even ones to a symbol
    deleted since the deal (its naming rows keep the snapshot, with no link)."""
    deleted = SymbolFactory()
    deleted_pk = deleted.pk
    deleted.delete()
    return {
        "symbols": {
            key: SymbolFactory(number=int(key), name=entry["name"]).pk if int(key) % 2 else deleted_pk
            for key, entry in NAMES.items()
        }
    }


def duel_started(teacher: Any, ala: Any, olek: Any, *, assets: dict[str, Any], **kwargs: Any) -> GameSession:
    """A running ZnajZnak duel (test_live.py's, seed 7): Ala is p1, Olek p2."""
    session = create_session(teacher, seed=7, assets=assets, **kwargs)
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    return services.session_start(session=session, by=teacher)


@pytest.fixture
def duel(teacher: Any) -> dict[str, Any]:
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    assets = library_links()
    return {
        "session": duel_started(teacher, ala, olek, assets=assets),
        "assets": assets,
        "users": {"p1": ala, "p2": olek, "teacher": teacher},
        "ala": signed_in(ala),
        "olek": signed_in(olek),
        "teacher": signed_in(teacher),
    }


# --- helpers -----------------------------------------------------------------------------------


def action_message(**action: Any) -> dict[str, Any]:
    return {"type": "action", "action": action}


def stored(session: GameSession) -> GameSession:
    return GameSession.objects.get(pk=session.pk)


def state_now(session: GameSession) -> znajznak.State:
    return znajznak.state_from_dict(stored(session).state)


def assert_stored_as_the_log_replays(session: GameSession) -> GameSession:
    """The one invariant of a stored session: one action per version, indexed from 0 without a
    gap, and the stored state is what replaying that log from the setup and seed gives."""
    session = stored(session)
    indexes = list(session.actions.order_by("index").values_list("index", flat=True))
    assert indexes == list(range(session.version))
    replay = log_replay(session_log(session))
    assert replay.error is None
    assert replay.state == session.state
    return session


def stored_records(session: GameSession) -> tuple[list[Any], list[Any]]:
    """The session's action and naming rows, without what differs between two sessions."""
    actions = list(session.actions.order_by("index").values_list("index", "player_id", "action"))
    namings = list(
        NamingRecord.objects.filter(session=session)
        .order_by("action_index", "id")
        .values_list(
            "participant__player_id",
            "user_id",
            "action_index",
            "symbol_id",
            "symbol_key",
            "symbol_number",
            "symbol_name",
            "text",
            "correct",
            "dont_know",
        )
    )
    return actions, namings


def scripted_move(state: znajznak.State, turn: int) -> tuple[str, dict[str, Any]]:
    """A varied but fixed game: a wrong STOP first (note a), then the players' STOPs in turn,
    and names given right, wrong or not known."""
    if state.phase == znajznak.LOOKING:
        if turn == 0:
            own, other = znajznak.compared_cards(state, "p1")
            wrong = next(symbol for symbol in state.cards[own] if symbol not in state.cards[other])
            return "p1", {"type": "stop", "symbol": wrong}
        who = "p2" if len(state.namings) % 2 or "p1" in state.penalised else "p1"
        return who, {"type": "stop", "symbol": znajznak.common_symbol(state, who)}
    assert state.claim is not None
    who, symbol = state.claim.player, state.claim.symbol
    if turn % 3 == 0:
        return who, {"type": "dont_know"}
    if turn % 3 == 1:
        return who, {"type": "name", "text": "Wawel"}
    return who, {"type": "name", "text": NAMES[symbol]["name"]}


async def play_to_the_end(
    session: GameSession, sockets: dict[str, WebsocketCommunicator]
) -> list[tuple[str, dict[str, Any]]]:
    """Play ``session`` over ``sockets`` (by player) with :func:`scripted_move`; the moves made."""
    read = database_sync_to_async(stored)
    moves: list[tuple[str, dict[str, Any]]] = []
    for turn in range(100):
        now = await read(session)
        state = znajznak.state_from_dict(now.state)
        if znajznak.is_terminal(state):
            return moves
        who, action = scripted_move(state, turn)
        moves.append((who, action))
        await sockets[who].send_json_to(action_message(**action))
        for communicator in sockets.values():  # each shows the new version before the next move
            await state_at(communicator, now.version + 1)
    raise AssertionError("The scripted game did not end in 100 moves.")


def payload_as_stored(session: GameSession, user: Any) -> dict[str, Any]:
    """What the locked path would send ``user``: the payload read from the stored session."""
    session = stored(session)
    participant = session.participants.get(user=user)
    return {"type": "state", **selectors.session_payload(session=session, participant=participant)}


# --- the fast path stores what the locked service would ---------------------------------------


def test_a_stop_then_a_name_take_the_fast_path_and_store_what_the_log_replays(duel, locked, writes):
    session = duel["session"]
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    sent: dict[str, Any] = {}

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        await ala.send_json_to(action_message(type="stop", symbol=common))
        sent["stop"] = await state_at(ala, 1)
        await state_at(olek, 1)
        await ala.send_json_to(action_message(type="name", text=NAMES[common]["name"].upper()))
        sent["name"] = await state_at(ala, 2)
        sent["olek"] = await state_at(olek, 2)
        # A socket that opens now gets its payload from the table, as the row would give it.
        sent["table"] = await connected(socket(session, duel["teacher"]))
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == [] and writes == [True, True]  # one statement each, no locked service
    session = assert_stored_as_the_log_replays(session)
    assert session.version == 2 and session.status == GameSession.Status.RUNNING
    assert list(session.actions.values_list("player_id", "action")) == [
        ("p1", {"type": "stop", "symbol": common}),
        ("p1", {"type": "name", "text": NAMES[common]["name"].upper()}),
    ]
    assert sent["stop"]["view"]["claim"] == {"player": "p1", "symbol": common}
    assert sent["name"] == payload_as_stored(session, duel["users"]["p1"])
    assert sent["olek"] == payload_as_stored(session, duel["users"]["p2"])
    assert sent["table"] == payload_as_stored(session, duel["users"]["teacher"])

    naming = NamingRecord.objects.get(session=session)  # the STOP named nothing
    ala = session.participants.get(player_id="p1")
    linked = duel["assets"]["symbols"][common]
    assert (naming.participant_id, naming.user_id, naming.action_index) == (ala.pk, ala.user_id, 1)
    assert (naming.symbol_key, naming.symbol_number) == (common, int(common))
    assert naming.symbol_id == (linked if int(common) % 2 else None)  # a deleted symbol: no link
    assert naming.symbol_name == NAMES[common]["name"]
    assert naming.text == NAMES[common]["name"].upper()
    assert naming.correct is True and naming.dont_know is False


def test_a_class_duel_takes_the_fast_path_and_its_lobby_hears_of_each_action(teacher, locked, writes):
    """A class run's duel is a game while it runs: its actions take the fast path, and the
    lobby's projector, which lists every duel's cards in hand, is told of each one."""
    run, (first, second) = class_with(teacher, 2)
    (class_duel,) = class_round_start(run=run, by=teacher)
    session = class_duel.session
    players = {p.player_id: p.user for p in session.participants.all()}
    common = znajznak.common_symbol(state_now(session), "p1")
    name = session.setup["names"][common]["name"]
    sent: dict[str, Any] = {}
    browsers = {seat: signed_in(user) for seat, user in players.items()}
    projector_browser = signed_in(teacher)

    async def scenario() -> None:
        p1, p2 = (socket(session, browsers[seat]) for seat in ("p1", "p2"))
        projector = socket(run.lobby, projector_browser)
        for communicator in (p1, p2, projector):
            await connected(communicator)
        await p1.send_json_to(action_message(type="stop", symbol=common))
        await state_at(p2, 1)
        await projector.receive_json_from(timeout=TIMEOUT)  # the lobby, read afresh
        await p1.send_json_to(action_message(type="name", text=name))
        sent["p1"] = await state_at(p1, 2)
        sent["p2"] = await state_at(p2, 2)
        sent["lobby"] = await projector.receive_json_from(timeout=TIMEOUT)
        for communicator in (p1, p2, projector):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == [] and writes == [True, True]
    session = assert_stored_as_the_log_replays(session)
    assert sent["p1"] == payload_as_stored(session, players["p1"])
    assert sent["p2"] == payload_as_stored(session, players["p2"])
    assert sent["p2"]["follow"] is None and sent["p2"]["class"] is None
    counts = [player["cards_in_hand"] for player in sent["lobby"]["class"]["duels"][0]["players"]]
    state = znajznak.state_from_dict(session.state)
    assert counts == [len(stack) for stack in state.stacks]  # the right name gave a card away
    assert counts != [state.cards_per_player] * 2


def played_over_sockets(session: GameSession, clients: dict[str, Client]) -> list[tuple[str, dict[str, Any]]]:
    """Play ``session`` to the end over one socket per player (by player id); the moves made."""
    played: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> None:
        sockets = {player: socket(session, client) for player, client in clients.items()}
        for communicator in sockets.values():
            await connected(communicator)
        played.extend(await play_to_the_end(session, sockets))
        for communicator in sockets.values():
            await communicator.disconnect()

    async_to_sync(scenario)()
    return played


def assert_twin_stores_the_same(session: GameSession, twin: GameSession, played: list[Any]) -> None:
    """The same moves on ``twin`` through the locked service store the same rows."""
    session = assert_stored_as_the_log_replays(session)
    assert session.status == GameSession.Status.FINISHED and session.finished_at is not None
    assert znajznak.is_terminal(znajznak.state_from_dict(session.state))
    assert session.pk not in live._tables  # a finished game is never played again
    for who, action in played:
        services.session_apply_action(session_id=twin.pk, player_id=who, action=action, from_client=True)
    twin = stored(twin)
    assert (session.state, session.version, session.status) == (twin.state, twin.version, twin.status)
    assert stored_records(session) == stored_records(twin)
    namings = stored_records(session)[1]
    # The script names right, wrong and "I don't know", of linked and of deleted symbols.
    assert {(n[8], n[9]) for n in namings} == {(True, False), (False, False), (False, True)}
    assert {n[3] is None for n in namings} == {True, False}


def test_a_whole_duel_of_guests_over_sockets_ends_on_the_fast_path_as_the_locked_service_ends_it(
    teacher, locked
):
    assets, setup = library_links(), znajznak_setup(cards_per_player=3)  # a longer game
    session, twin = (
        create_session(teacher, seed=7, assets=assets, setup=setup, allow_guests=True) for _ in range(2)
    )
    clients = {"p1": Client(), "p2": Client()}
    for nickname, client in zip(("Ala", "Olek"), clients.values(), strict=True):
        client.post(reverse("games:join_code", args=[session.join_code]), {"nickname": nickname})
        services.session_join(session=twin, nickname=nickname)
    session, twin = (services.session_start(session=s, by=teacher) for s in (session, twin))
    played = played_over_sockets(session, clients)

    assert locked == []
    assert_twin_stores_the_same(session, twin, played)
    assert not JoinCode.objects.filter(object_id=session.pk, released=None).exists()  # announced


def test_a_whole_duel_of_students_ends_on_the_fast_path_and_their_namings_reach_their_memory(teacher, locked):
    """Every action takes the fast path, the last one too; its end is announced as the one
    service announces its own: the students' namings are taken into their memory, no page
    opened, and the game's join code is released."""
    from lms.progress.models import Review

    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    assets, setup = library_links(), znajznak_setup(cards_per_player=3)  # a longer game
    session, twin = (duel_started(teacher, ala, olek, assets=assets, setup=setup) for _ in range(2))
    assert JoinCode.objects.filter(object_id=session.pk, released=None).exists()
    played = played_over_sockets(session, {"p1": signed_in(ala), "p2": signed_in(olek)})

    assert locked == []
    assert not JoinCode.objects.filter(object_id=session.pk, released=None).exists()
    for student in (ala, olek):
        linked = NamingRecord.objects.filter(session=session, user=student, symbol__isnull=False)
        assert linked.exists()
        assert Review.objects.filter(user=student, source="play").count() == linked.count()
    assert_twin_stores_the_same(session, twin, played)


#: Every golden log of a game a plain session plays live (ZnajZnak, Know, Activity, Knowledge?),
#: with the kinds of session it is played in: ZnajZnak also as a class run's duel.
TWIN_LOGS = [
    *((name, GameSession.Kind.GAME) for name in sorted(p.stem for p in GOLDEN.glob("*.json"))),
    ("znajznak_duel", GameSession.Kind.CLASS_DUEL),
]


def golden_session(
    teacher: Any, golden: dict[str, Any], kind: str, users: dict[str, Any]
) -> tuple[GameSession, dict[str, Any]]:
    """A running session of ``golden``'s setup and seed, its players (``users``, by the log's
    player ids) seated under the log's ids (the facilitator acts as ``"facilitator"`` or as no
    one); its participants by player id."""
    session = services.session_create(
        facilitator=teacher,
        game=golden["game"],
        variant=golden["variant"],
        setup=golden["setup"],
        seed=golden["seed"],
        kind=kind,
    )
    seats: dict[str | None, Participant] = {None: session.participants.get()}
    seats["facilitator"] = seats[None]
    for player_id, user in users.items():
        seats[player_id] = Participant.objects.create(
            session=session,
            user=user,
            nickname=player_id,
            role=Participant.Role.PLAYER,
            player_id=player_id,
        )
    engine = engine_for(golden["game"])
    state = engine.new_game(golden["setup"], seed=golden["seed"], variant=golden["variant"])
    GameSession.objects.filter(pk=session.pk).update(state=state.to_dict(), status=GameSession.Status.RUNNING)
    return stored(session), seats


@pytest.mark.parametrize(("log", "kind"), TWIN_LOGS)
def test_every_golden_log_stores_the_same_rows_on_the_fast_path_as_through_the_locked_service(
    teacher, monkeypatch, log, kind
):
    """The twin test: each game a socket plays on the fast path, its golden log played action by
    action through ``live.act`` (the consumer's first try; the locked service where it declines)
    and on a twin session through ``services.session_apply_action``: the same state, version,
    status, action records and namings. The server's clock (``at``, Activity) is the log's."""
    golden = json.loads((GOLDEN / f"{log}.json").read_text())
    clock = {"now": 0.0}
    monkeypatch.setattr(actions, "time", type("Clock", (), {"time": staticmethod(lambda: clock["now"])}))
    moves = []
    for number, entry in enumerate(golden["actions"]):
        action = {key: value for key, value in entry.items() if key != "player"}
        moves.append((entry.get("player"), action, action.get("at", 1_800_000_000.0 + number)))
    players = sorted({entry.get("player") for entry in golden["actions"]} - {None, "facilitator"})
    users = {player_id: UserFactory(first_name=player_id.title()) for player_id in players}
    session, seats = golden_session(teacher, golden, kind, users)
    twin, twin_seats = golden_session(teacher, golden, kind, users)
    locked: list[int] = []

    async def play() -> None:
        for number, (player, action, at) in enumerate(moves):
            clock["now"] = at
            if await live.act(seats[player], action) is None:
                locked.append(number)
                clock["now"] = at
                act = database_sync_to_async(services.session_act)
                await act(participant=seats[player], action=action)

    async_to_sync(play)()
    for player, action, at in moves:
        clock["now"] = at
        services.session_act(participant=twin_seats[player], action=action)

    # Only an end with effects (a Knowledge? game's grade) leaves the fast path.
    engine = engine_for(golden["game"])
    ended = engine.is_terminal(engine.state_from_dict(stored(session).state))
    leaves = ended and actions.end_has_effects(session)
    assert locked == ([len(moves) - 1] if leaves else [])
    session, twin = assert_stored_as_the_log_replays(session), stored(twin)
    assert session.state == twin.state
    assert session.version == twin.version == len(moves)
    assert session.status == twin.status
    assert (session.finished_at is None) == (twin.finished_at is None)
    assert stored_records(session) == stored_records(twin)
    if golden["game"] == "znajznak":  # the namings were compared, not two empty lists
        assert stored_records(session)[1]


# --- refusals -----------------------------------------------------------------------------------


def test_a_refused_action_is_answered_to_its_socket_only_and_stores_nothing(duel, locked):
    session = duel["session"]
    state = znajznak.state_from_dict(session.state)
    common = znajznak.common_symbol(state, "p1")
    on_the_cards = {s for card in znajznak.compared_cards(state, "p1") for s in state.cards[card]}
    elsewhere = next(key for key in sorted(NAMES) if key not in on_the_cards)
    with pytest.raises(IllegalAction) as off_the_cards:
        znajznak.apply_action(state, "p1", {"type": "stop", "symbol": elsewhere})
    claimed = znajznak.apply_action(state, "p1", {"type": "stop", "symbol": common})
    with pytest.raises(IllegalAction) as lost_race:
        znajznak.apply_action(claimed, "p2", {"type": "stop", "symbol": common})

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        await ala.send_json_to(action_message(type="stop", symbol=elsewhere))
        refusal = await ala.receive_json_from(timeout=TIMEOUT)
        assert refusal == {"type": "error", "error": "illegal_action", "reason": str(off_the_cards.value)}
        assert await olek.receive_nothing(timeout=0.5)

        await ala.send_json_to(action_message(type="stop", symbol=common))
        await state_at(ala, 1)
        await state_at(olek, 1)
        await olek.send_json_to(action_message(type="stop", symbol=common))  # Ala said STOP first
        refusal = await olek.receive_json_from(timeout=TIMEOUT)
        assert refusal == {"type": "error", "error": "illegal_action", "reason": str(lost_race.value)}
        assert await ala.receive_nothing(timeout=0.5)
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == []  # refused from the table, without the locked service
    session = assert_stored_as_the_log_replays(session)
    assert session.version == 1 and session.actions.count() == 1  # only Ala's good STOP


def test_an_action_after_the_end_is_refused_from_the_table_without_the_locked_service(duel, locked):
    """The other player's STOP that lost the race to the last action: "The game is over.",
    answered from the finished game's table, as the locked service would answer it."""
    session = duel["session"]

    @database_sync_to_async
    def locked_refusal() -> str:
        """What the locked service answers the same STOP."""
        with pytest.raises(IllegalAction) as over:
            services.session_apply_action(
                session_id=session.pk, player_id="p2", action={"type": "stop", "symbol": "s001"}
            )
        return str(over.value)

    async def scenario() -> None:
        sockets = {"p1": socket(session, duel["ala"]), "p2": socket(session, duel["olek"])}
        for communicator in sockets.values():
            await connected(communicator)
        await play_to_the_end(session, sockets)
        final = await database_sync_to_async(stored)(session)
        assert session.pk in live._tables  # kept for the sockets still open
        await sockets["p2"].send_json_to(action_message(type="stop", symbol="s001"))
        refusal = await sockets["p2"].receive_json_from(timeout=TIMEOUT)
        assert refusal == {"type": "error", "error": "illegal_action", "reason": await locked_refusal()}
        assert await sockets["p1"].receive_nothing(timeout=0.5)
        assert (await database_sync_to_async(stored)(session)).version == final.version
        for communicator in sockets.values():
            await communicator.disconnect()

    async_to_sync(scenario)()
    assert locked == []


def test_two_stops_at_once_give_one_claim_and_one_refusal(duel, locked, writes):
    session = duel["session"]
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    answers: dict[str, list[dict[str, Any]]] = {}

    async def scenario() -> None:
        sockets = {"p1": socket(session, duel["ala"]), "p2": socket(session, duel["olek"])}
        for communicator in sockets.values():
            await connected(communicator)
        stop = action_message(type="stop", symbol=common)
        await asyncio.gather(*(communicator.send_json_to(stop) for communicator in sockets.values()))
        for player, communicator in sockets.items():
            answers[player] = [await communicator.receive_json_from(timeout=TIMEOUT)]
            while not await communicator.receive_nothing(timeout=0.5):
                answers[player].append(await communicator.receive_json_from(timeout=TIMEOUT))
            await communicator.disconnect()

    async_to_sync(scenario)()

    refused = [player for player, messages in answers.items() if any(m["type"] == "error" for m in messages)]
    assert len(refused) == 1, answers
    (winner,) = {"p1", "p2"} - set(refused)
    session = assert_stored_as_the_log_replays(session)
    assert session.version == 1
    assert znajznak.state_from_dict(session.state).claim == znajznak.Claim(player=winner, symbol=common)
    for messages in answers.values():  # both sockets show the one claim
        assert [m["version"] for m in messages if m["type"] == "state"] == [1]
    assert locked == [] and writes == [True]  # the second STOP was refused from the table


# --- a version written elsewhere ---------------------------------------------------------------


def penalised_stop(session: GameSession) -> dict[str, Any]:
    """A STOP by p1 on a symbol of its own card that is not common: stored, and p1 waits (note a)."""
    state = state_now(session)
    own, other = znajznak.compared_cards(state, "p1")
    return {"type": "stop", "symbol": next(s for s in state.cards[own] if s not in state.cards[other])}


def test_an_action_after_one_over_http_is_applied_on_the_new_version(duel, locked):
    """The change notice of the HTTP action makes the process forget its table; the next
    socket action reads the session afresh and still takes the fast path."""
    session = duel["session"]
    common = znajznak.common_symbol(state_now(session), "p2")
    http_action = {"type": "name", "text": NAMES[common]["name"]}
    later: dict[str, Any] = {}

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        await olek.send_json_to(action_message(type="stop", symbol=common))
        await state_at(ala, 1)
        await state_at(olek, 1)
        assert live._tables[session.pk].session.version == 1

        apply = database_sync_to_async(services.session_apply_action)
        await apply(session_id=session.pk, player_id="p2", action=http_action, from_client=True)
        await state_at(ala, 2)
        await state_at(olek, 2)
        assert session.pk not in live._tables  # heard of version 2: forgotten

        now = await database_sync_to_async(state_now)(session)
        later["stop"] = {"type": "stop", "symbol": znajznak.common_symbol(now, "p1")}
        await ala.send_json_to(action_message(**later["stop"]))
        assert (await state_at(ala, 3))["view"]["claim"]["player"] == "p1"
        await state_at(olek, 3)
        assert live._tables[session.pk].session.version == 3
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == []  # the socket's actions all took the fast path, the last on a reloaded table
    session = assert_stored_as_the_log_replays(session)
    assert list(session.actions.values_list("player_id", "action")) == [
        ("p2", {"type": "stop", "symbol": common}),
        ("p2", http_action),
        ("p1", later["stop"]),
    ]


def test_a_stale_table_never_overwrites_a_version_written_without_a_notice(duel, locked, writes):
    """The optimistic version alone: no notice reaches the process, its table still holds
    version 0 when the socket acts; the statement writes nothing, the table is read again
    and the action applied on the stored version 1 (optimistic concurrency, no lock)."""
    session = duel["session"]
    http_action = penalised_stop(session)
    common = znajznak.common_symbol(state_now(session), "p2")

    def http_act_without_notice() -> list[Any]:
        with services.session_publish_deferred() as notices:
            services.session_apply_action(
                session_id=session.pk, player_id="p1", action=http_action, from_client=True
            )
        return notices

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        assert live._tables[session.pk].session.version == 0  # loaded by the opening sockets
        held_back = await database_sync_to_async(http_act_without_notice)()
        assert [notice["version"] for _group, notice in held_back] == [1]
        assert await olek.receive_nothing(timeout=0.3)

        # Legal on the table's version 0 and on the stored version 1 (any STOP lifts the penalty).
        await olek.send_json_to(action_message(type="stop", symbol=common))
        answer = await state_at(olek, 2)
        assert answer["view"]["claim"] == {"player": "p2", "symbol": common}
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    # The first statement found version 1 stored, not the table's 0; the second, on the
    # table read again, stored version 2.
    assert writes == [False, True]
    assert locked == []
    session = assert_stored_as_the_log_replays(session)
    assert list(session.actions.values_list("player_id", "action")) == [
        ("p1", http_action),
        ("p2", {"type": "stop", "symbol": common}),
    ]


def test_an_action_whose_version_keeps_moving_goes_to_the_locked_service_after_a_few_tries(
    duel, locked, monkeypatch
):
    """Optimistic tries are bounded: when every statement finds another version stored (here:
    made to, as if other processes kept writing first), the action takes the lock."""
    session = duel["session"]
    common = znajznak.common_symbol(state_now(session), "p1")
    tries: list[int] = []

    async def always_moved_on(*args: Any, **kwargs: Any) -> Any:
        tries.append(1)
        return (0, True, None)

    monkeypatch.setattr(live, "_write", always_moved_on)

    async def scenario() -> None:
        ala = socket(session, duel["ala"])
        await connected(ala)
        await ala.send_json_to(action_message(type="stop", symbol=common))
        answer = await state_at(ala, 1)
        assert answer["view"]["claim"] == {"player": "p1", "symbol": common}
        await ala.disconnect()

    async_to_sync(scenario)()

    assert len(tries) == live.ATTEMPTS
    assert locked == [("p1", {"type": "stop", "symbol": common})]
    assert_stored_as_the_log_replays(session)


def test_a_spectator_who_joins_during_an_action_is_in_the_next_payloads(duel):
    """A join locks the row and publishes "version N" (no payloads); an action written right
    after it (N + 1) can reach the acting socket first. The join's notice must still make the
    process forget its table, whose participants no longer are the session's."""
    session = duel["session"]
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    watcher = UserFactory(first_name="Ewa")
    shown: dict[str, Any] = {}

    def join_with_its_notice_held_back() -> list[tuple[str, dict[str, Any]]]:
        with services.session_publish_deferred() as notices:
            services.session_join(session=session, user=watcher)
        return notices

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        held_back = await database_sync_to_async(join_with_its_notice_held_back)()
        await ala.send_json_to(action_message(type="stop", symbol=common))  # version 1
        await state_at(ala, 1)
        await state_at(olek, 1)
        layer = get_channel_layer()
        for group, notice in held_back:  # the join's "version 0" arrives late
            await layer.group_send(group, notice)
        await ala.receive_nothing(timeout=0.5)  # time for the consumers to handle it
        await ala.send_json_to(action_message(type="dont_know"))  # version 2
        shown["ala"] = await state_at(ala, 2)
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert shown["ala"]["participants"] == payload_as_stored(session, duel["users"]["p1"])["participants"]


# --- what the fast path leaves to the locked service ------------------------------------------


def test_only_a_practice_or_a_knowledge_game_has_an_end_with_effects():
    Kind = GameSession.Kind
    ends = {
        (kind, game): actions.end_has_effects(GameSession(kind=kind, game=game))
        for kind in (Kind.GAME, Kind.PRACTICE, Kind.CLASS_DUEL)
        for game in ("znajznak", "knowledge", "activity")
    }
    assert {key for key, effects in ends.items() if effects} == {
        (Kind.GAME, "knowledge"),
        (Kind.PRACTICE, "znajznak"),
        (Kind.PRACTICE, "knowledge"),
        (Kind.PRACTICE, "activity"),
        (Kind.CLASS_DUEL, "knowledge"),
    }


def test_a_knowledge_game_over_a_socket_is_ended_by_the_locked_service_with_its_grade(
    teacher, locked, monkeypatch
):
    """Every action but the last takes the fast path; the last, which ends the game, goes to
    the locked service, which also grades a homework's game (``lms.grading``)."""
    from lms import grading

    graded: list[int] = []
    monkeypatch.setattr(grading, "game_session_finished", lambda *, session: graded.append(session.pk))
    golden = json.loads(KNOWLEDGE_GOLDEN.read_text())
    session = services.session_create(
        facilitator=teacher,
        game="knowledge",
        variant=golden["variant"],
        setup=golden["setup"],
        seed=golden["seed"],
    )
    session = services.session_start(session=session, by=teacher)  # the facilitator plays as the table
    actions = [
        {key: value for key, value in action.items() if key != "player"} for action in golden["actions"]
    ]
    engine = engine_for("knowledge")
    state = engine.state_from_dict(session.state)
    for action in actions[:-1]:
        state = engine.apply_action(state, None, action)
        assert not engine.is_terminal(state)
    assert engine.is_terminal(engine.apply_action(state, None, actions[-1]))
    facilitator = signed_in(teacher)

    async def scenario() -> None:
        table = socket(session, facilitator)
        await connected(table)
        for version, action in enumerate(actions, start=1):
            await table.send_json_to(action_message(**action))
            await state_at(table, version)
        await table.disconnect()

    async_to_sync(scenario)()

    assert locked == [("", actions[-1])]
    assert graded == [session.pk]
    session = assert_stored_as_the_log_replays(session)
    assert session.status == GameSession.Status.FINISHED and session.version == len(actions)


def test_a_live_quizs_answers_take_the_fast_path_and_its_end_the_locked_service_with_the_attempts(
    teacher, student, locked, writes
):
    """The live quiz is a plain game: opening, answering and closing take the fast path; the
    end records every student's attempt (``quiz_live_attempts_record``), so the locked service
    takes it, as a Knowledge? game's end."""
    quiz = published_quiz(teacher)
    session = quiz_live_session_create(facilitator=teacher, quiz=quiz)
    services.session_join(session=session, user=student)
    session = services.session_start(session=session, by=teacher)
    facilitator, phone = signed_in(teacher), signed_in(student)
    moves = [
        ("teacher", {"type": "open_question"}),
        ("phone", {"type": "answer", "question": 1, "answer": {"choice": "b"}}),
        ("phone", {"type": "answer", "question": 1, "answer": {"choice": "a"}}),  # a change of mind
        ("teacher", {"type": "close_question"}),
        ("teacher", {"type": "end_game"}),
    ]

    async def scenario() -> None:
        sockets = {"teacher": socket(session, facilitator), "phone": socket(session, phone)}
        for communicator in sockets.values():
            await connected(communicator)
        for version, (who, action) in enumerate(moves, start=1):
            await sockets[who].send_json_to(action_message(**action))
            for communicator in sockets.values():
                await state_at(communicator, version)
        for communicator in sockets.values():
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == [("", {"type": "end_game"})]
    assert writes == [True] * (len(moves) - 1)
    session = assert_stored_as_the_log_replays(session)
    assert session.status == GameSession.Status.FINISHED
    assert QuizAttempt.objects.get(quiz=quiz, student=student).score == 1.0


def test_a_practice_over_a_socket_takes_the_locked_path_to_its_result(teacher, student, locked):
    assignment = practice_assignment_create(
        owner=teacher, title="", deck=small_deck(teacher), mode="clock", cards_per_player=3
    )
    run = practice_start(assignment=assignment, student=student)
    session = run.session
    moves: list[dict[str, Any]] = []
    client = signed_in(student)

    async def scenario() -> None:
        player = socket(session, client)
        await connected(player)
        read = database_sync_to_async(stored)
        while (now := await read(session)).status == GameSession.Status.RUNNING:
            state = znajznak.state_from_dict(now.state)
            if state.phase == znajznak.LOOKING:
                action = {"type": "stop", "symbol": znajznak.common_symbol(state, "p1")}
            else:
                assert state.claim is not None
                action = {"type": "name", "text": f"Symbol numer {int(state.claim.symbol)}"}
            moves.append(action)
            await player.send_json_to(action_message(**action))
            await state_at(player, now.version + 1)
        await player.disconnect()

    async_to_sync(scenario)()

    assert moves and locked == [("p1", action) for action in moves]
    assert session.pk not in live._tables  # a practice never gets a table
    assert_stored_as_the_log_replays(session)
    run.refresh_from_db()
    assert run.finished is not None and run.won is True and run.reason == "last_card"


def test_an_action_after_the_deadline_goes_to_the_locked_service_which_ends_the_game(teacher, locked):
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    session = duel_started(teacher, ala, olek, assets={}, setup=znajznak_setup(timer=600))
    GameSession.objects.filter(pk=session.pk).update(time_up_at=timezone.now() - timedelta(seconds=1))
    common = znajznak.common_symbol(state_now(session), "p1")
    client = signed_in(ala)

    async def scenario() -> None:
        player = socket(session, client)
        await connected(player)
        await player.send_json_to(action_message(type="stop", symbol=common))
        ended = await state_at(player, 1)
        assert ended["status"] == "finished" and ended["view"]["outcome"]["reason"] == "time_up"
        await player.disconnect()

    async_to_sync(scenario)()

    assert locked == [("p1", {"type": "stop", "symbol": common})]
    session = assert_stored_as_the_log_replays(session)
    assert list(session.actions.values_list("player_id", "action")) == [("", {"type": "time_up"})]
    assert session.status == GameSession.Status.FINISHED


def test_with_the_fast_path_off_the_same_actions_go_to_the_locked_service(duel, locked, settings):
    settings.LIVE_FAST_PATH = False
    session = duel["session"]
    common = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    moves = [{"type": "stop", "symbol": common}, {"type": "name", "text": NAMES[common]["name"]}]

    async def scenario() -> None:
        ala, olek = socket(session, duel["ala"]), socket(session, duel["olek"])
        await connected(ala)
        await connected(olek)
        for version, action in enumerate(moves, start=1):
            await ala.send_json_to(action_message(**action))
            await state_at(ala, version)
            assert (await state_at(olek, version))["view"]["you"] == "p2"
        for communicator in (ala, olek):
            await communicator.disconnect()

    async_to_sync(scenario)()

    assert locked == [("p1", action) for action in moves]
    assert live._tables == {}
    session = assert_stored_as_the_log_replays(session)
    assert session.version == 2 and NamingRecord.objects.get(session=session).correct is True


def test_the_fast_path_writes_on_a_bounded_pool_of_connections(settings):
    """However many actions of a process are written at once, the fast path holds at most
    ``LIVE_DB_POOL_MAX_SIZE`` connections (``docs/deploy.md``, Scaling): the others wait
    for a free one, and every write is answered."""
    require_postgresql()
    settings.LIVE_DB_POOL_MAX_SIZE = 2
    live.connections_close()  # a pool made with another size is forgotten

    async def scenario() -> list[Any]:
        statements = live._statements()
        return await asyncio.gather(
            *(statements.write("SELECT pg_backend_pid() FROM pg_sleep(0.02)", []) for _ in range(20))
        )

    rows = async_to_sync(scenario)()

    assert None not in rows
    assert 1 <= len({row[0] for row in rows}) <= 2


def test_a_fast_path_write_that_finds_no_free_connection_in_time_answers_none():
    """A write that waits longer than the pool's timeout gives up (and its action takes the
    locked path) instead of opening one more connection."""
    require_postgresql()

    async def scenario() -> list[Any]:
        statements = live._Statements(1, timeout=0.5)
        try:
            assert await statements.write("SELECT 1", []) == (1,)  # its one connection is open
            return await asyncio.gather(
                statements.write("SELECT pg_backend_pid() FROM pg_sleep(2)", []),
                statements.write("SELECT pg_backend_pid()", []),
            )
        finally:
            await statements.pool.close()

    slow, starved = async_to_sync(scenario)()

    assert slow is not None
    assert starved is None


@pytest.mark.parametrize("prepare", [True, False])
def test_the_fast_path_prepares_its_statement_unless_live_db_prepare_is_off(settings, prepare):
    """With ``LIVE_DB_PREPARE`` the fast path's connections prepare a statement they run
    again, so PostgreSQL parses and plans it once (``bench/README.md``); off (behind an old
    PgBouncer), they prepare none, as Django's own connections do."""
    require_postgresql()
    settings.LIVE_DB_PREPARE = prepare

    async def scenario() -> tuple[list[Any], Any]:
        statements = live._Statements(1, timeout=5.0)  # one connection: every write on it
        try:
            rows = [await statements.write("SELECT %s::int + 1", [n]) for n in range(3)]
            prepared = await statements.write(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["SELECT $1::int + 1%"]
            )
            return rows, prepared
        finally:
            await statements.pool.close()

    rows, prepared = async_to_sync(scenario)()

    assert rows == [(1,), (2,), (3,)]
    assert prepared == ((1,) if prepare else (0,))
