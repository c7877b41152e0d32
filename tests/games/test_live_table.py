"""A live table follows another process's stored actions (``games.live.table_heard``).

The fast path's notice carries the action it stored; a process whose table is one version
behind applies it too (the engines are deterministic), and anything else makes it forget
the table, to be read afresh. No database: the tables are built in memory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from games import live
from games.engines import znajznak
from games.models import GameSession
from tests.games.test_sessions import znajznak_setup

SESSION_ID = 4242


@pytest.fixture(autouse=True)
def _no_tables() -> Iterator[None]:
    live._tables.clear()
    live._heard.clear()
    yield
    live._tables.clear()
    live._heard.clear()


def table_at_start(seed: int = 3) -> live.LiveTable:
    setup = znajznak_setup(players=[{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}])
    state = znajznak.new_game(setup, seed=seed, variant="duel")
    session = GameSession(pk=SESSION_ID, game="znajznak", variant="duel", version=0, status="running")
    table = live.LiveTable(session=session, engine=znajznak, state=state, participants=[])
    live._tables[SESSION_ID] = table
    return table


def a_stop(state: Any, player: str = "p1") -> dict[str, Any]:
    return {"player": player, "action": {"type": "stop", "symbol": znajznak.common_symbol(state, player)}}


def test_a_table_one_version_behind_applies_the_stored_action_as_the_writer_did():
    table = table_at_start()
    applied = a_stop(table.state)
    expected = znajznak.apply_action(table.state, "p1", applied["action"])

    live.table_heard(SESSION_ID, version=1, has_payloads=True, applied=applied)

    assert live._tables[SESSION_ID] is table
    assert table.session.version == 1
    assert table.state == expected


def test_a_notice_of_the_version_the_table_holds_changes_nothing():
    table = table_at_start()
    state = table.state
    live.table_heard(SESSION_ID, version=0, has_payloads=True, applied=a_stop(state))
    assert live._tables[SESSION_ID] is table and table.state is state and table.session.version == 0


@pytest.mark.parametrize(
    "notice",
    [
        pytest.param({"version": 2, "has_payloads": True}, id="two-versions-ahead"),
        pytest.param({"version": 1, "has_payloads": True, "applied": None}, id="locked-path-write"),
        pytest.param({"version": 0, "has_payloads": False}, id="someone-joined"),
    ],
)
def test_any_other_change_makes_the_process_forget_the_table(notice):
    table = table_at_start()
    applied = notice.pop("applied", a_stop(table.state))
    live.table_heard(SESSION_ID, applied=applied, **notice)
    assert SESSION_ID not in live._tables


def test_an_action_the_table_refuses_makes_it_forget_the_table_not_raise():
    table_at_start()
    wrong = {"player": "p1", "action": {"type": "name", "text": "nothing was claimed"}}
    live.table_heard(SESSION_ID, version=1, has_payloads=True, applied=wrong)
    assert SESSION_ID not in live._tables


def test_a_table_with_an_action_of_its_own_in_flight_does_not_follow():
    """The in-flight action will find the version moved on and take the locked path."""
    table = table_at_start()

    async def heard_while_locked() -> None:
        async with table.lock:
            live.table_heard(SESSION_ID, version=1, has_payloads=True, applied=a_stop(table.state))

    asyncio.run(heard_while_locked())
    assert SESSION_ID not in live._tables


def test_every_notice_is_remembered_so_a_table_read_meanwhile_is_not_kept_if_older():
    """What a table read must be checked against: the newest version heard, and every
    change without payloads (a join, which names no new version)."""
    live.table_heard(SESSION_ID, version=6, has_payloads=True)
    live.table_heard(SESSION_ID, version=5, has_payloads=True)
    assert live._heard[SESSION_ID] == (0, 6)
    live.table_heard(SESSION_ID, version=6, has_payloads=False)
    assert live._heard[SESSION_ID] == (1, 6)


def test_the_stored_state_json_is_the_state_whichever_parts_were_encoded_before():
    table = table_at_start()
    first = json.loads(table.state_json(table.state))
    assert first == json.loads(json.dumps(table.state.to_dict()))
    after = znajznak.apply_action(table.state, "p1", a_stop(table.state)["action"])
    second = json.loads(table.state_json(after))
    assert second == json.loads(json.dumps(after.to_dict())) and second != first


def test_the_deck_is_encoded_once_a_game_and_the_json_stays_the_state(monkeypatch):
    """The parts an engine hands back as the same objects (ZnajZnak's cards and names) are
    encoded once, at the second state; every state's JSON is still the whole state."""
    table = table_at_start()
    encoded: list[Any] = []
    real = json.dumps

    def counting(value: Any, *args: Any, **kwargs: Any) -> str:
        encoded.append(value)
        return real(value, *args, **kwargs)

    monkeypatch.setattr(live.json, "dumps", counting)
    state = table.state
    for turn in range(4):
        text = table.state_json(state)
        assert json.loads(text) == json.loads(real(state.to_dict()))
        if turn < 3:
            state = znajznak.apply_action(state, "p1", a_stop(state)["action"])
            state = znajznak.apply_action(state, "p1", {"type": "name", "text": "?"})
    deck = state.to_dict()
    assert sum(value is deck["cards"] for value in encoded) == 1
    assert sum(value is deck["names"] for value in encoded) == 1


def test_two_sockets_opening_at_once_read_the_session_once(monkeypatch):
    table = table_at_start()
    live._tables.clear()
    reads: list[int] = []

    async def read(session_id: int) -> live.LiveTable:
        reads.append(session_id)
        await asyncio.sleep(0.01)
        live._tables[session_id] = table
        return table

    monkeypatch.setattr(live, "_table_read", read)

    async def both() -> list[live.LiveTable | None]:
        return list(await asyncio.gather(live._table(SESSION_ID), live._table(SESSION_ID)))

    assert asyncio.run(both()) == [table, table]
    assert reads == [SESSION_ID]
    assert not live._reading


def test_a_failed_read_fails_its_reader_and_sends_the_others_the_slow_way(monkeypatch):
    async def read(session_id: int) -> live.LiveTable:
        await asyncio.sleep(0.01)
        raise RuntimeError("the database is gone")

    monkeypatch.setattr(live, "_table_read", read)

    async def both() -> list[Any]:
        return list(
            await asyncio.gather(live._table(SESSION_ID), live._table(SESSION_ID), return_exceptions=True)
        )

    first, second = asyncio.run(both())
    assert isinstance(first, RuntimeError) and second is None
    assert not live._reading
