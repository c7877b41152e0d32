"""A ZnajZnak duel between two browsers over wss://, through nginx, with two web processes
behind it: the teacher's projector and two students joining by code.

The common symbol is found the way only the server can: from the stored state, read from
the production database (a read, nothing written), with the pure engine. The students'
sockets must have gone through nginx: its access log shows the upgrade (101) of each, to
one web process, since ``/ws/`` is hashed by URL.

Then the two ways a game's sockets can sit on the web processes: through nginx, every socket
of a game on one process (each game's row names one process, ``games.sockets``), the games
spread over both; and the two players of one duel each on a process of their own (straight
to the two ports nginx proxies to), where every action crosses Redis to reach the opponent.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from playwright.sync_api import expect

from games.engines import znajznak
from games.stored_state import state_restored
from tests.e2e.browsing import open_page, sign_in_through_form
from tests.production.conftest import signed_in
from tests.production.websocket import WebSocket

pytestmark = pytest.mark.production

DEMO_SET_LABEL = "ZnajZnak: 57 symboli (demo)"


def session_row(production: Any, code: str) -> tuple[int, dict[str, Any], dict[str, Any] | None, str]:
    with psycopg.connect(production.env["DATABASE_URL"]) as connection:
        row = connection.execute(
            "SELECT id, setup, state, status FROM games_gamesession WHERE join_code = %s ORDER BY id DESC",
            [code],
        ).fetchone()
    assert row is not None, code
    return row


def common_symbol(production: Any, code: str, player: str) -> tuple[str, str]:
    _id, setup, state, _status = session_row(production, code)
    state = state_restored(state, setup)  # the row's form (games.stored_state)
    key = znajznak.common_symbol(znajznak.state_from_dict(state), player)
    return key, setup["names"][key]["name"]


def problems(browsing: Any, page: Any) -> list[str]:
    """The page's problems, less pictures of a card that was played before they loaded
    (over a socket the next card comes quickly, and the browser drops the old requests)."""
    return [p for p in browsing.problems(page) if not ("/pictures/" in p and "net::ERR_ABORTED" in p)]


def own_picture(page: Any, key: str) -> Any:
    return page.locator(f'section[aria-labelledby="own-card"] button.symbol:has(img[src$="/pictures/{key}"])')


def test_a_duel_over_wss_through_nginx_with_two_web_processes(production, people, browsing):
    url = production.url
    teacher, ala_login, kuba_login = people["teacher"], people["ala"], people["kuba"]
    log_mark = production.access_log_mark()

    projector = browsing.new_page()
    sign_in_through_form(projector, url, teacher.username, teacher.password)
    open_page(projector, f"{url}/games/sessions/new")
    projector.get_by_label("Variant").select_option("duel")
    projector.get_by_label("Symbol set").select_option(label=DEMO_SET_LABEL)
    projector.get_by_label("Cards per player (duel and multiplayer)").fill("2")
    with projector.expect_navigation():
        projector.get_by_role("button", name="Create the session").click()
    code = projector.locator(".join-code").inner_text().strip()
    session_id = session_row(production, code)[0]
    assert projector.url == f"{url}/games/sessions/{session_id}/"

    players = []
    for login, phone in ((ala_login, False), (kuba_login, True)):
        options = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}
        page = browsing.new_page(**(options if phone else {}))
        sign_in_through_form(page, url, login.username, login.password)
        open_page(page, f"{url}/games/join")
        page.get_by_label("Join code").fill(code)
        page.get_by_role("button", name="Next").click()
        page.get_by_role("button", name=re.compile("^Join as")).click()
        expect(page.get_by_text("You are in.")).to_be_visible()
        players.append(page)
    ala, kuba = players

    expect(projector.locator("#people li")).to_have_count(3)
    projector.get_by_role("button", name="Start the game").click()
    for page in players:
        expect(page.locator('section[aria-labelledby="own-card"] button.symbol').first).to_be_visible()

    # Ala finds the common symbol and names it: both students' pages see the answer.
    key, name = common_symbol(production, code, "p1")
    own_picture(ala, key).click()
    ala.get_by_label("Name the symbol you pointed at").fill(name)
    ala.get_by_role("button", name="Name it").click()
    expect(ala.locator(".reveal.right")).to_contain_text(name)
    expect(kuba.locator(".reveal.right")).to_contain_text(name)

    # Her hand is then empty: pointing at the common symbol of her last card wins.
    key, _name = common_symbol(production, code, "p1")
    expect(own_picture(ala, key)).to_be_visible()
    own_picture(ala, key).click()
    for page in (ala, kuba, projector):
        expect(page.locator(".outcome h2")).to_have_text(f"{ala_login.username} wins!")
    assert session_row(production, code)[3] == "finished"
    for page in (ala, kuba, projector):
        assert not problems(browsing, page)
    assert not [p for p in browsing.close() if "/pictures/" not in p]

    # Three sockets of this game (projector and two students) were upgraded by nginx, all to
    # one web process; the pages themselves were served by both.
    sockets = production.access_log_lines(
        rf'"GET /ws/sessions/{session_id}/ HTTP/1\.1" 101 ', at_least=3, since=log_mark
    )
    assert len(sockets) >= 3, sockets
    upstreams = {re.search(r"upstream=(\S+)", line).group(1) for line in sockets}
    assert len(upstreams) == 1, sockets
    pages = production.access_log_lines(
        r'"GET /games/[^"]*" 200 .*upstream=127\.0\.0\.1:800[12] ', since=log_mark
    )
    assert {re.search(r"upstream=(\S+)", line).group(1) for line in pages} >= {
        "127.0.0.1:8001",
        "127.0.0.1:8002",
    }


# --- where a game's sockets are: one process through nginx, or two --------------------------

NGINX_SITE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "talia.conf"

DUELS = """
import json
from content.demo.loader import DEMO_SET
from content.models import SymbolSet
from games import services
from games.play.znajznak.services import znajznak_setup_from_symbol_set
from lms.models import User
given = json.loads({given!r})
teacher = User.objects.get(username=given["teacher"])
first, second = (User.objects.get(username=name) for name in given["players"])
setup, assets = znajznak_setup_from_symbol_set(
    symbol_set=SymbolSet.objects.get(slug=DEMO_SET[0]), cards_per_player=4
)
made = []
for _ in range(given["count"]):
    session = services.session_create(
        facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets
    )
    services.session_join(session=session, user=first)
    services.session_join(session=session, user=second)
    services.session_start(session=session, by=teacher)
    made.append(session.pk)
print(json.dumps(made))
"""


def running_duels(production: Any, people: Any, count: int) -> list[int]:
    """``count`` duels of Ala and Kuba, started by the teacher (as the teacher's pages do)."""
    given = {
        "teacher": people["teacher"].username,
        "players": [people["ala"].username, people["kuba"].username],
        "count": count,
    }
    return [int(pk) for pk in production.shell(DUELS.format(given=json.dumps(given)))]


def web_processes() -> list[tuple[str, int]]:
    """The web processes nginx sends the games' sockets to: deploy/nginx/talia.conf's ``talia_ws``."""
    upstream = re.search(r"^upstream talia_ws \{(.*?)^\}", NGINX_SITE.read_text(), re.MULTILINE | re.DOTALL)
    assert upstream, NGINX_SITE
    found = re.findall(r"^\s*server (\S+):(\d+);", upstream.group(1), re.MULTILINE)
    return [(address, int(port)) for address, port in found]


def cookie_of(production: Any, login: Any) -> str:
    """The Cookie header of a browser signed in as ``login`` (its session cookie)."""
    return "; ".join(f"{c.name}={c.value}" for c in signed_in(production, login).cookies)


def live_processes(production: Any, session_id: int) -> list[str]:
    """The processes that hold a socket of the session, as its row names them (``games.sockets``)."""
    with psycopg.connect(production.env["DATABASE_URL"]) as connection:
        row = connection.execute(
            "SELECT live_processes FROM games_gamesession WHERE id = %s", [session_id]
        ).fetchone()
    assert row is not None, session_id
    return list(row[0])


async def through_nginx(production: Any, path: str, cookie: str) -> WebSocket:
    site = urlsplit(production.url)
    assert site.hostname
    context = ssl.create_default_context(cafile=production.ca)
    return await WebSocket.connect(
        site.hostname, site.port or 443, path, cookie=cookie, host=site.hostname, ssl=context
    )


async def straight_to(production: Any, process: tuple[str, int], path: str, cookie: str) -> WebSocket:
    """A socket to one web process, past nginx, asking for the site by its name as nginx does."""
    site = urlsplit(production.url)
    assert site.hostname
    return await WebSocket.connect(
        process[0], process[1], path, cookie=cookie, host=site.hostname, origin=production.url
    )


async def state_from(sock: WebSocket, *, version: int = 0, seconds: float = 15.0) -> dict[str, Any]:
    """The first state of at least ``version`` that reaches ``sock``."""
    async with asyncio.timeout(seconds):
        while True:
            message = json.loads(await sock.recv())
            assert message["type"] == "state", message
            if message["version"] >= version:
                return message


def stop_on(state: dict[str, Any]) -> str:
    """A STOP on the symbol the two compared cards share, as a player who sees them says it."""
    comparison = state["view"]["comparison"]
    (symbol,) = set(comparison["own"]) & set(comparison["other"])
    return json.dumps({"type": "action", "action": {"type": "stop", "symbol": symbol}})


def run_apart(scenario: Coroutine[Any, Any, None]) -> None:
    """Run ``scenario`` in an event loop of its own thread: a browser test before this one may
    leave Playwright's loop running in the test's thread, where ``asyncio.run`` refuses."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, scenario).result()


def test_the_players_of_a_duel_on_two_web_processes_see_each_others_actions_through_redis(production, people):
    (session_id,) = running_duels(production, people, 1)
    first, second = web_processes()[:2]
    path = f"/ws/sessions/{session_id}/"
    ala_cookie, kuba_cookie = cookie_of(production, people["ala"]), cookie_of(production, people["kuba"])

    async def scenario() -> None:
        ala = await straight_to(production, first, path, ala_cookie)
        kuba = await straight_to(production, second, path, kuba_cookie)
        try:
            seen_by_ala, seen_by_kuba = await state_from(ala), await state_from(kuba)
            assert seen_by_ala["version"] == seen_by_kuba["version"]
            # Each process said it holds the game: an action stored by one is published for the other.
            assert len(set(live_processes(production, session_id))) == 2

            # Ala's STOP, applied by the first process, reaches Kuba on the second.
            ala.send(stop_on(seen_by_ala))
            mine = await state_from(ala, version=seen_by_ala["version"] + 1)
            theirs = await state_from(kuba, version=mine["version"])
            assert theirs["version"] == mine["version"]
            assert theirs["view"]["claim"]["player"] == seen_by_ala["you"]["player"]

            # She names it wrongly; then Kuba's STOP, applied by the second process, reaches her.
            ala.send(json.dumps({"type": "action", "action": {"type": "name", "text": "?"}}))
            named = await state_from(kuba, version=mine["version"] + 1)
            assert named["view"]["phase"] == "looking", named["view"]
            await state_from(ala, version=named["version"])
            kuba.send(stop_on(named))
            his = await state_from(kuba, version=named["version"] + 1)
            heard = await state_from(ala, version=his["version"])
            assert heard["view"]["claim"]["player"] == named["you"]["player"]
        finally:
            await ala.close()
            await kuba.close()

    run_apart(scenario())


def test_through_nginx_the_sockets_of_a_game_are_on_one_web_process(production, people):
    # Enough games that consistent hashing giving them all to one process would be a fault.
    log_mark = production.access_log_mark()
    sessions = running_duels(production, people, 24)
    ala_cookie, kuba_cookie = cookie_of(production, people["ala"]), cookie_of(production, people["kuba"])

    async def scenario() -> None:
        for session_id in sessions:
            path = f"/ws/sessions/{session_id}/"
            sockets = [await through_nginx(production, path, cookie) for cookie in (ala_cookie, kuba_cookie)]
            try:
                for sock in sockets:
                    await state_from(sock)
            finally:
                for sock in sockets:
                    await sock.close()

    run_apart(scenario())
    # The server's word: each game's row names the one process that holds both its sockets.
    for session_id in sessions:
        assert len(live_processes(production, session_id)) == 1, session_id
    # nginx's: both upgrades of each game went to one web process, and the games to both.
    upstreams: dict[int, set[str]] = {}
    for session_id in sessions:
        lines = production.access_log_lines(
            rf'"GET /ws/sessions/{session_id}/ HTTP/1\.1" 101 ', at_least=2, since=log_mark
        )
        assert len(lines) == 2, lines
        upstreams[session_id] = {re.search(r"upstream=(\S+)", line).group(1) for line in lines}
    assert all(len(taken) == 1 for taken in upstreams.values()), upstreams
    assert set().union(*upstreams.values()) == {f"{address}:{port}" for address, port in web_processes()}
