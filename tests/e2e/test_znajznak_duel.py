"""A full ZnajZnak duel in real browsers: the teacher's projector and two students joining by code.

The test finds the common symbol the way only the server can (the stored state, through
the ORM) to press the right picture and type the right name; the pages never hold it.

The live server is pytest-django's WSGI server: the pages' WebSocket cannot open there,
so they fall back to polling (``static/games/live.js``), the path a school network
that blocks sockets takes. The socket itself is tested through the ASGI application in
``tests/games/test_live.py``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.e2e.browsing import (
    axe_violations,
    describe_violations,
    open_page,
    refused_websocket,
    scroll_width,
    sign_in,
)

pytestmark = pytest.mark.e2e

_SQLITE = "sqlite" in settings.DATABASES["default"]["ENGINE"]

PHONE_WIDTH = 360
DEMO_SET_LABEL = "ZnajZnak: 57 symboli (demo)"


def page_problems(browsing: Any, page: Any) -> list[str]:
    """The page's problems, less two that are not: the refused WebSocket handshake of the
    WSGI live server, and a poll of view.json cut off because the page moved on (a form
    posted, or a student's page following them into their duel)."""

    def benign(problem: str) -> bool:
        return (
            refused_websocket(problem)
            or ("/view.json" in problem and "ERR_ABORTED" in problem)
            # SQLite's in-memory test database (one shared cache) refuses a read while
            # another thread writes ("database table is locked") instead of waiting; the
            # page polls again a moment later. PostgreSQL (CI) gets no such leniency.
            or (_SQLITE and problem.startswith("HTTP 500:") and "/view.json" in problem)
        )

    return [p for p in browsing.problems(page) if not benign(p)]


def assert_accessible(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    problems = page_problems(browsing, page)
    assert not problems, f"{where}: {problems}"


def state_of(session_id: int) -> Any:
    from games.engines import znajznak
    from games.models import GameSession

    session = GameSession.objects.get(pk=session_id)
    return session, znajznak.state_from_dict(session.state)


def common_symbol(session_id: int, player: str) -> tuple[str, str]:
    """The symbol ``player`` has to find now, and its name: read on the server only."""
    from games.engines import znajznak

    session, state = state_of(session_id)
    key = znajznak.common_symbol(state, player)
    return key, session.setup["names"][key]["name"]


def own_picture(page: Any, key: str) -> Any:
    return page.locator(f'section[aria-labelledby="own-card"] button.symbol:has(img[src$="/pictures/{key}"])')


def test_a_full_duel_between_two_browsers_joining_by_code(browsing, demo_site):
    from games.models import GameSession, NamingRecord

    # The teacher starts a duel from the demo set (57 symbols, order 7), two cards each.
    projector = browsing.new_page()
    sign_in(projector, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    open_page(projector, f"{demo_site.url}/games/sessions/new")
    projector.get_by_label("Variant").select_option("duel")
    projector.get_by_label("Symbol set").select_option(label=DEMO_SET_LABEL)
    projector.get_by_label("Cards per player (duel and multiplayer)").fill("2")
    projector.get_by_label("Students may join without an account, with a nickname").check()
    with projector.expect_navigation():
        projector.get_by_role("button", name="Create the session").click()
    session = GameSession.objects.get()
    code = session.join_code
    expect(projector.locator(".join-code")).to_have_text(code)
    assert_accessible(browsing, projector, "projector, lobby")

    # Student one: signed in, on a desktop; types the code in lower case.
    ala = browsing.new_page()
    sign_in(ala, demo_site.url, demo_site.students[0].username, demo_site.students[0].password)
    open_page(ala, f"{demo_site.url}/games/join")
    ala.get_by_label("Join code").fill(code.lower())
    ala.get_by_role("button", name="Next").click()
    ala.get_by_role("button", name=re.compile("^Join as")).click()
    expect(ala.get_by_text("You are in.")).to_be_visible()

    # Student two: a guest on a 360-px touch phone.
    kuba = browsing.new_phone_page()
    open_page(kuba, f"{demo_site.url}/games/join")
    assert_accessible(browsing, kuba, "join page (phone)")
    assert scroll_width(kuba) <= PHONE_WIDTH
    kuba.get_by_label("Join code").fill(code)
    kuba.get_by_role("button", name="Next").tap()
    kuba.get_by_label("Your nickname").fill("Kuba")
    kuba.get_by_role("button", name="Join", exact=True).tap()
    expect(kuba.get_by_text("You are in.")).to_be_visible()

    expect(projector.locator("#people li")).to_have_count(3)
    projector.get_by_role("button", name="Start the game").click()

    for page in (ala, kuba):
        expect(page.locator('section[aria-labelledby="own-card"] button.symbol').first).to_be_visible()
    session.refresh_from_db()
    players = {p["name"]: p["id"] for p in session.setup["players"]}
    assert players["Kuba"] == "p2"
    assert_accessible(browsing, kuba, "player page (phone)")
    assert scroll_width(kuba) <= PHONE_WIDTH
    assert_accessible(browsing, projector, "projector, running")

    # Ala finds the common symbol but types a wrong name.
    key, name = common_symbol(session.pk, "p1")
    assert name not in ala.content() and name not in kuba.content() and name not in projector.content()
    own_picture(ala, key).click()
    naming = ala.get_by_label("Name the symbol you pointed at")
    expect(naming).to_be_focused()
    naming.fill("Tramwaj konny na Marszałkowskiej")
    ala.get_by_role("button", name="Name it").click()
    expect(ala.locator(".reveal.wrong")).to_contain_text(name)
    expect(kuba.locator(".reveal.wrong")).to_contain_text(name)

    # Kuba, by touch, finds it and names it right (any case, no diacritics needed).
    key, name = common_symbol(session.pk, "p2")
    expect(own_picture(kuba, key)).to_be_visible()
    own_picture(kuba, key).tap()
    kuba.get_by_label("Name the symbol you pointed at").fill(name.upper())
    kuba.get_by_role("button", name="Name it").tap()
    expect(kuba.locator(".reveal.right")).to_contain_text(name)
    expect(ala.locator(".reveal.right")).to_contain_text(name)

    # Kuba's hand is empty: pointing at the common symbol of his last card wins.
    key, _name = common_symbol(session.pk, "p2")
    expect(own_picture(kuba, key)).to_be_visible()
    own_picture(kuba, key).tap()
    for page in (ala, kuba, projector):
        expect(page.locator(".outcome h2")).to_have_text("Kuba wins!")
    session.refresh_from_db()
    assert session.status == GameSession.Status.FINISHED
    assert list(NamingRecord.objects.order_by("action_index").values_list("correct", flat=True)) == [
        False,
        True,
    ]
    assert_accessible(browsing, kuba, "player page, game over (phone)")
    assert_accessible(browsing, projector, "projector, game over")
    for page in (ala, kuba, projector):
        assert not page_problems(browsing, page)


def built_deck(owner: Any) -> Any:
    """A built deck of order 3 (13 cards), with placeholder pictures."""
    from content.building import deck_plan
    from content.models import BuildState, Deck

    snapshot = {
        "symbols": [
            {"id": None, "number": n, "name": f"Nazwa symbolu {n}", "alternative_names": [], "picture": ""}
            for n in range(1, 14)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": 1}, seed=1)
    return Deck.objects.create(
        name="Talia 13", owner=owner, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )


def test_class_duels_pair_the_class_and_each_student_follows_into_their_duel(browsing, demo_users_site):
    from games.models import ClassDuel, ClassRun

    site = demo_users_site
    built_deck(site.teacher_user)
    projector = browsing.new_page()
    sign_in(projector, site.url, site.teacher.username, site.teacher.password)
    open_page(projector, f"{site.url}/games/class/new")
    assert_accessible(browsing, projector, "class duels form")
    projector.get_by_label("Deck").select_option(label="Talia 13")
    projector.get_by_label("Students may join without an account, with a nickname").check()
    with projector.expect_navigation():
        projector.get_by_role("button", name="Open the class lobby").click()
    run = ClassRun.objects.get()

    students = []
    for nickname, page in (("Ola", browsing.new_page()), ("Kuba", browsing.new_phone_page())):
        open_page(page, f"{site.url}/games/join/{run.lobby.join_code}")
        page.get_by_label("Your nickname").fill(nickname)
        page.get_by_role("button", name="Join", exact=True).click()
        expect(page.get_by_text("Your teacher pairs the class")).to_be_visible()
        students.append(page)
    assert_accessible(browsing, students[1], "class lobby (phone)")

    projector.get_by_role("button", name="Pair and start").click()
    duel = ClassDuel.objects.get()
    for page in students:
        page.wait_for_url(f"**/games/sessions/{duel.session_id}/")
        expect(page.locator('section[aria-labelledby="own-card"] button.symbol').first).to_be_visible()
    expect(projector.locator(".duels .duel")).to_have_count(1)
    expect(projector.locator(".duels .duel .counts li")).to_have_count(2)
    expect(projector.locator(".duels .duel .counts li").first).to_contain_text("4 cards in hand")
    assert_accessible(browsing, projector, "class projector, round 1")
    assert scroll_width(students[1]) <= PHONE_WIDTH
    for page in (projector, *students):
        assert not page_problems(browsing, page)


def test_practice_against_a_simulated_opponent_in_the_browser(browsing, demo_users_site):
    from games.models import PracticeRun
    from games.play.znajznak.practice import practice_assignment_create

    site = demo_users_site
    assignment = practice_assignment_create(
        owner=site.teacher_user,
        title="Ćwiczenie z botem",
        deck=built_deck(site.teacher_user),
        mode="bot",
        cards_per_player=2,
        bot_seconds=1,
        bot_accuracy=100,
    )
    page = browsing.new_phone_page()
    sign_in(page, site.url, site.students[0].username, site.students[0].password)
    open_page(page, f"{site.url}/games/join")
    page.get_by_label("Join code").fill(assignment.code)
    page.get_by_role("button", name="Next").tap()
    expect(page.get_by_role("heading", name="Ćwiczenie z botem")).to_be_visible()
    assert_accessible(browsing, page, "practice page (phone)")
    page.get_by_role("button", name="Start").tap()
    expect(page.locator('section[aria-labelledby="own-card"] button.symbol').first).to_be_visible()
    assert_accessible(browsing, page, "practice game (phone)")
    # The student does nothing: the opponent finds and names twice, then wins on its last card.
    expect(page.locator(".outcome h2")).to_have_text("Simulated opponent wins!", timeout=20_000)
    expect(page.locator("#practice-result")).to_contain_text("Time")
    run = PracticeRun.objects.get()
    assert run.won is False and run.finished is not None
    assert scroll_width(page) <= PHONE_WIDTH
    assert not page_problems(browsing, page)
