"""Activity's final task in the team game, and the game for 3 players from the lobby, in real
browsers: the projector, the facilitator's screen and the players' 360-px phones.

Issue 6, Final task: "the team plays part one as an open game with an area of its choice ... if
the finalist guesses, part two follows at once: the other teams choose the hardest term on a new
card and only the finalist team guesses; success wins the game". The game for 3 players: "each
plays alone, only open games; presenter and guesser both move". Whoever may not see a term never
has it on their page: the terms are looked up in the stored state (the server's), and each page
that must not hold one is searched for every term of the card in play.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_activity_turn import check, problems, running_game, second_window, state
from tests.e2e.test_znajznak_duel import _SQLITE

pytestmark = pytest.mark.e2e

PASSWORD = "pass-word-123"  # tests.factories.UserFactory's


def put_on_the_target_area(session_id: int, team_id: str) -> None:
    """The team's piece stands on the red target area: its next turn is the final task."""
    from games.engines import activity
    from games.models import GameSession

    session = GameSession.objects.get(pk=session_id)
    game = activity.state_from_dict(session.state)
    index = [t.id for t in game.teams].index(team_id)
    positions = tuple(activity.TARGET if k == index else p for k, p in enumerate(game.positions))
    session.state = replace(game, positions=positions).to_dict()
    session.save(update_fields=["state"])


def card_texts(game: Any, card_id: str) -> list[str]:
    return [t.text for t in next(c for c in game.cards if c.id == card_id).terms]


def assert_not_on(page: Any, texts: list[str], where: str) -> None:
    """None of ``texts`` is anywhere in the page (its DOM, hidden parts and scripts included)."""
    content = page.content()
    leaked = [text for text in texts if text in content]
    assert not leaked, f"{where}: the page holds {leaked}, which this player may not see"


def assert_not_shown(page: Any, texts: list[str], where: str) -> None:
    """None of ``texts`` is visible on the page (the facilitator's screens hold terms behind a button)."""
    shown = page.locator("body").inner_text()
    leaked = [text for text in texts if text in shown]
    assert not leaked, f"{where}: the screen shows {leaked}"


def phone_for(browsing: Any, site: Any, session_id: int, username: str) -> Any:
    phone = browsing.new_phone_page()
    sign_in(phone, site.url, username, PASSWORD)
    open_page(phone, f"{site.url}/games/sessions/{session_id}/")
    expect(phone.locator(".activity-board-svg")).to_be_visible()
    return phone


def test_the_final_task_both_parts_on_the_phones_the_projector_and_the_facilitators_screen(
    browsing, demo_users_site
):
    from games.models import Participant

    site = demo_users_site
    session = running_game(site.teacher_user)
    # Sowy (Uczeń1, Uczeń2) stand on the red target area; it is their turn.
    put_on_the_target_area(session.pk, "t1")
    users = {
        p.nickname: p.user.username
        for p in session.participants.filter(role=Participant.Role.PLAYER).select_related("user")
    }
    assert sorted(users) == ["Uczeń1", "Uczeń2", "Uczeń3", "Uczeń4"]

    teacher = browsing.new_page()
    sign_in(teacher, site.url, site.teacher.username, site.teacher.password)
    open_page(teacher, f"{site.url}/games/sessions/{session.pk}/")
    projector = second_window(browsing, teacher)
    open_page(projector, f"{site.url}/games/sessions/{session.pk}/?screen=projector")
    phones = {name: phone_for(browsing, site, session.pk, username) for name, username in users.items()}
    rep, teammate, lisy = phones["Uczeń1"], phones["Uczeń2"], (phones["Uczeń3"], phones["Uczeń4"])

    # Ready: the projector marks Sowy as finalists; their representative chooses the area first.
    expect(projector.locator(".activity-teams-list li").first).to_contain_text("Sowy · target area")
    expect(projector.locator(".activity-teams-list li").first).to_contain_text("final task")
    expect(projector.locator(".activity-turn")).to_have_text("Sowy's turn: Uczeń1 presents.")
    check(browsing, projector, "projector, a finalist's turn")
    expect(rep.get_by_text("Final task: choose one of the areas A–F, then draw a card.")).to_be_visible()
    expect(rep.get_by_role("button", name=re.compile("Draw a card"))).to_have_count(0)
    check(browsing, rep, "finalist representative's phone, choosing the area", phone=True)
    expect(teammate.get_by_role("button", name="C · Mime")).to_have_count(0)  # only the representative
    rep.get_by_role("button", name="C · Mime").tap()
    rep.get_by_role("button", name="Draw a card for Sowy").tap()

    # Part one: an open game in area C; the term on the representative's phone only.
    expect(rep.locator("#activity-term")).to_be_visible()
    session, game = state(session.pk)
    assert (game.task.stage, game.task.slot, game.phase) == ("final_open", "C", "memorise")
    first_card = card_texts(game, game.task.card)
    part_one = next(c for c in game.cards if c.id == game.task.card).term("C").text
    expect(rep.locator("#activity-term")).to_have_text(part_one)
    expect(rep.get_by_role("heading", name="The rules: Mime")).to_be_visible()
    check(browsing, rep, "finalist representative's phone, part one", phone=True)
    for page in (projector, teammate, *lisy):
        expect(page.locator(".activity-task")).to_contain_text("final task, part one")
        expect(page.locator(".activity-task")).to_contain_text("open game: every team may guess")
    for name, page in (("Uczeń2", teammate), ("Uczeń3", lisy[0]), ("Uczeń4", lisy[1])):
        assert_not_on(page, first_card, f"{name}'s phone, part one")
    assert_not_shown(projector, first_card, "projector, part one")
    expect(projector.locator("#activity-term")).to_be_hidden()
    rep.get_by_role("button", name="Ready: turn the hourglass").tap()
    for page in (projector, rep, lisy[0]):
        expect(page.locator(".hourglass .hourglass-label")).to_have_text("Hourglass")
    expect(lisy[0].locator(".activity-turn")).to_have_text("Guess! Uczeń1 presents.")
    check(browsing, lisy[0], "the other team's phone, part one (open game)", phone=True)
    expect(teacher.get_by_role("button", name="Guessed first: Lisy")).to_be_visible()
    check(browsing, teacher, "facilitator, part one")
    teacher.get_by_role("button", name="Guessed first: Sowy").click()

    # Part two at once: the same representative draws; the card goes to Lisy's phones.
    expect(teacher.get_by_role("button", name="Draw a card for Sowy")).to_be_visible()
    expect(teammate.locator(".activity-turn")).to_have_text("Sowy goes on to part two of the final task.")
    session, game = state(session.pk)
    assert game.positions == (49, 0) and [e.result for e in game.history] == ["guessed"]
    expect(rep.locator(".activity-turn")).to_have_text("Your turn: draw a card.")
    rep.get_by_role("button", name="Draw a card for Sowy").tap()
    intro = "The other teams choose the hardest term on the card; only Sowy guesses it."
    for page in (projector, rep, teammate, *lisy):
        expect(page.locator(".activity-choosing .status-line")).to_have_text(intro)
    session, game = state(session.pk)
    assert (game.phase, game.task.stage, game.task.slot) == ("choosing", "final_hardest", None)
    second_card = card_texts(game, game.task.card)
    for page in lisy:
        expect(page.locator(".activity-choices button")).to_have_count(6)
    expect(lisy[1].locator(".activity-choices")).to_contain_text(second_card[4])
    check(browsing, lisy[1], "the other team's phone, choosing the hardest term", phone=True)
    check(browsing, rep, "finalist representative's phone, the others choose", phone=True)
    check(browsing, projector, "projector, the others choose")
    for name, page in (("Uczeń1", rep), ("Uczeń2", teammate)):
        expect(page.locator(".activity-choices")).to_have_count(0)
        assert_not_on(page, second_card, f"{name}'s phone while Lisy choose")
    assert_not_shown(projector, second_card, "projector while Lisy choose")

    # Lisy choose E (describe); the representative sees that term and no other of the card.
    hardest = second_card[4]
    lisy[0].get_by_role("button", name=f"E · Describe: {hardest} (4)").tap()
    expect(rep.locator("#activity-term")).to_have_text(hardest)
    expect(rep.get_by_role("heading", name="Your term")).to_be_visible()
    expect(rep.get_by_role("heading", name="The rules: Describe")).to_be_visible()
    rest = [text for text in second_card if text != hardest]
    assert_not_on(rep, rest, "the finalist representative's phone, part two")
    check(browsing, rep, "finalist representative's phone, part two", phone=True)
    for page in lisy:
        expect(page.locator("#activity-term")).to_have_text(hardest)
        expect(page.get_by_role("heading", name="The hardest term, as you chose it")).to_be_visible()
    check(browsing, lisy[1], "the other team's phone, part two", phone=True)
    expect(teammate.locator(".activity-task")).to_contain_text("final task, part two")
    assert_not_on(teammate, second_card, "Uczeń2's phone, part two")
    assert_not_shown(projector, second_card, "projector, part two")
    rep.get_by_role("button", name="Ready: turn the hourglass").tap()
    expect(teammate.locator(".activity-turn")).to_have_text("Guess! Uczeń1 presents.")
    expect(lisy[0].locator(".activity-turn")).to_have_text("Uczeń1 presents (describe).")
    check(browsing, teammate, "the finalist teammate's phone, part two", phone=True)
    assert_not_on(teammate, second_card, "Uczeń2's phone, part two, the hourglass running")

    # Only Sowy may guess it: one button, and it asks before it ends the game.
    expect(teacher.get_by_role("button", name=re.compile("^Guessed"))).to_have_count(1)
    check(browsing, teacher, "facilitator, part two")
    dialogs: list[str] = []

    def accept(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    teacher.once("dialog", accept)
    teacher.get_by_role("button", name="Guessed in time").click()

    # Sowy win, on every screen.
    for where, page in (("facilitator", teacher), ("projector", projector), *phones.items()):
        expect(page.locator("#outcome-heading"), where).to_have_text("Sowy wins!")
        expect(page.locator(".outcome p"), where).to_have_text("The final task is complete.")
    assert dialogs == ["This ends the game. Record it?"]
    session, game = state(session.pk)
    assert session.status == "finished" and game.result.winner == "t1" and game.result.reason == "final_task"
    check(browsing, projector, "projector, Sowy won")
    check(browsing, rep, "a phone, Sowy won", phone=True)
    for name, page in phones.items():
        assert_not_on(page, [*first_card, *second_card], f"{name}'s phone after the end")
        assert not problems(browsing, page), name
    assert_not_shown(projector, [*first_card, *second_card], "projector after the end")
    assert not problems(browsing, teacher) and not problems(browsing, projector)


# --- the game for 3 players --------------------------------------------------------------------------

THREE = ("Ala", "Bartek", "Celina")
SPECTATOR = "Darek"


def join_by_nickname(browsing: Any, url: str, code: str, nickname: str) -> Any:
    """A guest joins on a phone (tried again after SQLite's locked table, as in the team game)."""
    phone = browsing.new_phone_page()
    waiting = phone.get_by_text("You are in. The game starts when your teacher starts it.")
    for _attempt in range(3):
        open_page(phone, f"{url}/games/join/{code}")
        if waiting.count():
            break
        phone.get_by_label("Your nickname").fill(nickname)
        with phone.expect_navigation():
            phone.get_by_role("button", name="Join", exact=True).tap()
        if not (_SQLITE and "Server Error (500)" in phone.content()):
            break
    expect(waiting).to_be_visible()
    return phone


def test_the_game_for_three_players_from_the_lobby_with_a_fourth_who_watches(browsing, demo_users_site):
    from games.models import GameSession, Participant
    from tests.games.play.activity_helpers import make_cards

    site = demo_users_site
    make_cards(site.teacher_user, 4)  # plain 4-point terms: no chain or rhyme comes up
    teacher = browsing.new_page()
    sign_in(teacher, site.url, site.teacher.username, site.teacher.password)
    open_page(teacher, f"{site.url}/games/activity/new")
    teacher.get_by_label("Game for 3 players: each plays alone").check()
    teacher.get_by_label("Language of the cards").select_option("pl")
    teacher.get_by_label("Students may join without an account, with a nickname").check()
    check(browsing, teacher, "Activity setup page, game for 3 players")
    teacher.get_by_role("button", name="Create the Activity game").click()
    expect(teacher.locator(".join-code")).to_be_visible()
    session_id = int(re.search(r"/sessions/(\d+)/", teacher.url).group(1))
    session = GameSession.objects.get(pk=session_id)
    assert session.variant == "three_players"
    expect(teacher.locator("#activity-lobby-heading")).to_have_text("Players")

    phones = {name: join_by_nickname(browsing, site.url, session.join_code, name) for name in THREE}
    check(browsing, phones["Ala"], "three players' lobby (phone)", phone=True)
    phones[SPECTATOR] = join_by_nickname(browsing, site.url, session.join_code, SPECTATOR)
    expect(teacher.locator("#activity-teams")).to_contain_text(SPECTATOR)
    # The lobby's help says "the game starts with the first three who join", and so does the
    # hint above the names with four joined.
    expect(teacher.locator("#activity-teams .status-line")).to_have_text(
        "4 have joined: the first three who joined play, the others watch."
    )
    check(browsing, teacher, "three players' lobby (facilitator), four joined")

    teacher.get_by_role("button", name="Start the game").click()
    expect(teacher.get_by_role("heading", name="The board")).to_be_visible()
    session, game = state(session_id)
    assert [t.name for t in game.teams] == list(THREE)
    watcher = Participant.objects.get(session=session, nickname=SPECTATOR)
    assert (watcher.role, watcher.player_id) == (Participant.Role.SPECTATOR, "")
    presenter = game.teams[game.turn].name
    guesser, third = (name for name in THREE if name != presenter)

    projector = second_window(browsing, teacher)
    open_page(projector, f"{site.url}/games/sessions/{session_id}/?screen=projector")
    expect(projector.locator(".activity-turn")).to_have_text(f"{presenter}'s turn.")
    check(browsing, projector, "projector, three players, ready")
    spectator = phones[SPECTATOR]
    expect(spectator.locator(".activity-board-svg")).to_be_visible()
    expect(spectator.locator(".activity-teams-list")).to_contain_text(presenter)
    expect(spectator.get_by_role("button", name=re.compile("Draw a card"))).to_have_count(0)
    check(browsing, spectator, "the spectator's phone, ready", phone=True)

    # The presenter draws: the term on their phone only; it is open to both others.
    phone = phones[presenter]
    expect(phone.locator(".activity-turn")).to_have_text("Your turn: draw a card.")
    check(browsing, phone, "the presenter's phone, ready", phone=True)
    phone.get_by_role("button", name=f"Draw a card for {presenter}").tap()
    expect(phone.locator("#activity-term")).to_be_visible()
    session, game = state(session_id)
    card = card_texts(game, game.task.card)
    term = next(c for c in game.cards if c.id == game.task.card).term(game.task.slot)
    expect(phone.locator("#activity-term")).to_have_text(term.text)
    check(browsing, phone, "the presenter's phone, memorising", phone=True)
    for name in (guesser, third, SPECTATOR):
        expect(phones[name].locator(".hourglass.memorise")).to_be_visible()
        assert_not_on(phones[name], card, f"{name}'s phone, memorising")
    assert_not_shown(projector, card, "projector, memorising")
    phone.get_by_role("button", name="Ready: turn the hourglass").tap()
    for name in (guesser, third):
        expect(phones[name].locator(".activity-turn")).to_have_text(f"Guess! {presenter} presents.")
    expect(spectator.locator(".activity-turn")).to_have_text(f"{presenter} presents (draw).")
    expect(spectator.locator(".activity-task")).to_contain_text("open game")
    check(browsing, spectator, "the spectator's phone, presenting", phone=True)
    check(browsing, phones[guesser], "a guesser's phone, presenting", phone=True)
    for name in (guesser, third, SPECTATOR):
        assert_not_on(phones[name], card, f"{name}'s phone, presenting")

    # The open game: the facilitator names who guessed first; both the presenter and the guesser move.
    expect(teacher.get_by_role("button", name=f"Guessed first: {third}")).to_be_visible()
    expect(teacher.get_by_role("button", name=f"Guessed first: {presenter}")).to_have_count(0)
    check(browsing, teacher, "facilitator, three players, presenting")
    teacher.get_by_role("button", name=f"Guessed first: {guesser}").click()
    moved = f"{presenter} start → A{term.points}, {guesser} start → A{term.points}"
    # Every screen has heard of the turn's end before what it holds is read: a phone not yet
    # updated still shows what it was allowed to see during the turn.
    for page in (projector, *phones.values()):
        expect(page.locator(".activity-history li").first).to_have_text(
            f"{presenter}, Draw: guessed by {guesser} ({moved})"
        )
    session, game = state(session_id)
    positions = {t.name: p for t, p in zip(game.teams, game.positions, strict=True)}
    assert positions == {presenter: term.points, guesser: term.points, third: 0}, positions
    standings = spectator.locator(".activity-teams-list")
    expect(standings).to_contain_text(f"{presenter} · A{term.points}")
    expect(standings).to_contain_text(f"{guesser} · A{term.points}")
    expect(standings).to_contain_text(f"{third} · start")
    check(browsing, spectator, "the spectator's phone, after the turn", phone=True)
    check(browsing, projector, "projector, three players, after the turn")
    for name, page in phones.items():
        assert_not_on(page, card, f"{name}'s phone after the turn")
        assert not problems(browsing, page), name
    assert not problems(browsing, teacher) and not problems(browsing, projector)
