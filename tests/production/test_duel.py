"""A ZnajZnak duel between two browsers over wss://, through nginx, with two web processes
behind it: the teacher's projector and two students joining by code.

The common symbol is found the way only the server can: from the stored state, read from
the production database (a read, nothing written), with the pure engine. The students'
sockets must have gone through nginx: its access log shows the upgrade (101) of each, to
one web process, since ``/ws/`` is hashed by URL.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest
from playwright.sync_api import expect

from games.engines import znajznak
from tests.e2e.browsing import open_page, sign_in

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

    projector = browsing.new_page()
    sign_in(projector, url, teacher.username, teacher.password)
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
        sign_in(page, url, login.username, login.password)
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
    sockets = production.access_log_lines(rf'"GET /ws/sessions/{session_id}/ HTTP/1\.1" 101 ', at_least=3)
    assert len(sockets) >= 3, sockets
    upstreams = {re.search(r"upstream=(\S+)", line).group(1) for line in sockets}
    assert len(upstreams) == 1, sockets
    pages = production.access_log_lines(r'"GET /games/[^"]*" 200 .*upstream=127\.0\.0\.1:800[12] ')
    assert {re.search(r"upstream=(\S+)", line).group(1) for line in pages} >= {
        "127.0.0.1:8001",
        "127.0.0.1:8002",
    }
