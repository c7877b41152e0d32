"""Know in real browsers: a facilitator, a projector and three team devices through one full
round (Team IDs, questions, a Question Round, Resolution at once, marking, a re-mark, the
round closed, the questions kept), with axe and 360-px checks of every Know screen.

The test reads the server's state (ORM) only to know which question belongs to which team,
so that every question gets an answer; the pages never hold that link. The live server is
WSGI: the pages fall back to polling, as on a school network that blocks WebSockets.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import axe_violations, describe_violations, open_page, scroll_width, sign_in
from tests.e2e.test_znajznak_duel import page_problems

pytestmark = pytest.mark.e2e

PHONE_WIDTH = 360
TEAMS = {"Ala": "Kestrel", "Kuba": "Lantern", "Ola": "Moss"}
QUESTIONS = {
    "Ala": "Which sea borders Poland?",
    "Kuba": "Which river flows through Warsaw?",
    "Ola": "Who wrote Pan Tadeusz?",
}
ANSWERS = {"Ala": "Mickiewicz", "Kuba": "The Baltic", "Ola": "The Vistula"}


def assert_accessible(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    problems = page_problems(browsing, page)
    assert not problems, f"{where}: {problems}"


def assert_fits_a_phone(page: Any, where: str) -> None:
    """At 360 px: no sideways scrolling, and every button at least 24×24 px (WCAG 2.5.8)."""
    size = page.viewport_size
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 740})
    try:
        assert scroll_width(page) <= PHONE_WIDTH, f"{where}: scrolls sideways at 360 px"
        small = page.evaluate(
            """() => [...document.querySelectorAll('#board button, #board input, #board textarea, main form button')]
                .filter((e) => e.offsetParent !== null)
                .map((e) => e.getBoundingClientRect())
                .filter((r) => r.width < 24 || r.height < 24).length"""
        )
        assert small == 0, f"{where}: {small} touch targets under 24 px"
    finally:
        page.set_viewport_size(size)


def answer_typefaces(page: Any) -> list[tuple[str, str, str]]:
    """The computed font family, weight and style of every answer on the page."""
    return [
        tuple(style)
        for style in page.evaluate(
            """() => [...document.querySelectorAll('.know-answer')].map((e) => {
                const s = getComputedStyle(e); return [s.fontFamily, s.fontWeight, s.fontStyle]; })"""
        )
    ]


def knows_state(session_id: int) -> Any:
    from games.engines import know
    from games.models import GameSession

    return know.state_from_dict(GameSession.objects.get(pk=session_id).state)


def test_three_teams_and_a_facilitator_play_one_full_round_of_know(browsing, demo_users_site):
    from content.models import KnowQuestion
    from games.models import GameSession, Participant

    site = demo_users_site
    # The facilitator sets the game up on the "new Know game" page (checked on a phone too).
    facilitator = browsing.new_page()
    sign_in(facilitator, site.url, site.teacher.username, site.teacher.password)
    open_page(facilitator, f"{site.url}/")
    facilitator.get_by_role("link", name="Play Know in class").click()
    expect(facilitator.get_by_role("heading", name="New Know game")).to_be_visible()
    assert_accessible(browsing, facilitator, "new Know game")
    assert_fits_a_phone(facilitator, "new Know game")
    facilitator.get_by_label("Agreed source of answers").fill("Polish textbook, class 7")
    facilitator.get_by_label("Question cards per team").fill("1")
    facilitator.get_by_label("Immediately after each Question Round").check()
    facilitator.get_by_label("Students may join without an account, with a nickname").check()
    with facilitator.expect_navigation():
        facilitator.get_by_role("button", name="Create the Know game").click()
    session = GameSession.objects.get(game="know")
    code = session.join_code

    # The projector: the facilitator's own screen with the public view only.
    projector = browsing.new_page()
    sign_in(projector, site.url, site.teacher.username, site.teacher.password)
    open_page(projector, f"{site.url}/games/know/{session.pk}/projector")
    expect(projector.locator(".join-code")).to_have_text(code)
    expect(projector.locator("#connection")).to_have_text("Live (updated every 1.5 seconds)")

    # Three team devices: two guest phones and a shared laptop.
    teams = {}
    for nickname in TEAMS:
        page = browsing.new_phone_page() if nickname != "Ola" else browsing.new_page()
        open_page(page, f"{site.url}/games/join/{code}")
        page.get_by_label("Your nickname").fill(nickname)
        page.get_by_role("button", name="Join", exact=True).click()
        expect(page.get_by_text("This device is your team's")).to_be_visible()
        teams[nickname] = page
    expect(projector.locator("#know-joined")).to_have_text("3 team devices have joined.")
    assert_accessible(browsing, projector, "projector, lobby")
    facilitator.get_by_role("button", name="Start the game").click()
    player_of = {p.nickname: p.player_id for p in Participant.objects.filter(session=session, role="player")}

    # Question Prep: a secret Team ID (a clash is refused) and the questions.
    for nickname, page in teams.items():
        expect(page.get_by_role("heading", name="Your secret Team ID")).to_be_visible()
        page.get_by_label("Team ID", exact=True).fill(TEAMS[nickname])
        page.get_by_role("button", name="Choose this Team ID").click()
        expect(page.locator(".know-team-id strong")).to_have_text(TEAMS[nickname])
    kuba = teams["Kuba"]
    kuba.get_by_label("Team ID", exact=True).fill("kestrel")
    kuba.get_by_role("button", name="Change the Team ID").click()
    expect(kuba.locator("#game-error")).to_have_text("That Team ID is taken; choose another.")
    refused = page_problems(browsing, kuba)  # the refusal is the expected 409, nothing else
    assert refused and all("409" in problem and "/actions" in problem for problem in refused), refused
    for nickname, page in teams.items():
        page.get_by_label(re.compile(r"^Question card \d+")).fill(QUESTIONS[nickname])
        page.get_by_role("button", name=re.compile(r"^Save question")).click()
        expect(page.get_by_text("(written)")).to_be_visible()
    assert_accessible(browsing, teams["Kuba"], "team device, Question Prep (phone)")
    assert scroll_width(teams["Kuba"]) <= PHONE_WIDTH
    expect(facilitator.get_by_role("button", name="Start the first Question Round")).to_be_visible()
    assert_accessible(browsing, facilitator, "facilitator, Question Prep")
    facilitator.get_by_role("button", name="Start the first Question Round").click()

    # The Question Round: each team submits its question card, then one answer card.
    # By mouse, by touch and by keyboard.
    teams["Ala"].get_by_role("button", name=re.compile(r"^Submit question \d+")).click()
    teams["Kuba"].get_by_role("button", name=re.compile(r"^Submit question \d+")).tap()
    teams["Ola"].get_by_role("button", name=re.compile(r"^Submit question \d+")).focus()
    teams["Ola"].keyboard.press("Enter")
    expect(projector.locator(".know-round .know-question")).to_have_count(3)
    state = knows_state(session.pk)
    owner = {card.number: card.team for card in state.questions}
    order = list(TEAMS)
    for index, nickname in enumerate(order):
        target_team = player_of[order[(index + 1) % 3]]
        number = next(n for n, team in owner.items() if team == target_team)
        page = teams[nickname]
        expect(page.get_by_label(f"Your answer to question {number}")).to_be_visible()
        page.get_by_label(f"Your answer to question {number}").fill(ANSWERS[nickname])
        if nickname == "Ola":  # the shared laptop, by keyboard: Tab to the button, Enter
            page.keyboard.press("Tab")
            expect(
                page.get_by_role("button", name=f"Submit the answer card for question {number}")
            ).to_be_focused()
            page.keyboard.press("Enter")
        else:
            page.get_by_role("button", name=f"Submit the answer card for question {number}").tap()
        expect(page.get_by_text("Your answer card:")).to_be_visible()
    assert_accessible(browsing, teams["Ala"], "team device, answers (phone)")
    assert scroll_width(teams["Ala"]) <= PHONE_WIDTH
    expect(facilitator.get_by_text("Answer cards in: 3")).to_be_visible()
    facilitator.get_by_role("button", name="Close the answers: end this round").click()

    # Resolution at once: the Round Deck revealed without Team IDs, marked by the facilitator.
    expect(projector.locator(".know-resolution.open .know-question")).to_have_count(3)
    for answer in ANSWERS.values():
        expect(projector.locator(".know-answer", has_text=answer)).to_have_count(1)
    assert_accessible(browsing, projector, "projector, Resolution")
    assert_fits_a_phone(projector, "projector, Resolution")
    for number in sorted(owner):
        form = facilitator.locator(
            "form.know-marking", has=facilitator.get_by_role("button", name=f"Mark question {number}")
        )
        form.get_by_role("checkbox").first.check()
        form.get_by_role("button", name=f"Mark question {number}").click()
        expect(facilitator.get_by_role("button", name=f"Re-mark question {number}")).to_be_visible()
    # A dispute: the first question is re-marked with no best answer, then settled again.
    first = sorted(owner)[0]
    form = facilitator.locator(
        "form.know-marking", has=facilitator.get_by_role("button", name=f"Re-mark question {first}")
    )
    form.get_by_role("checkbox").first.uncheck()
    form.get_by_role("button", name=f"Re-mark question {first}").click()
    expect(projector.get_by_text("No answer earned points.")).to_be_visible()
    form = facilitator.locator(
        "form.know-marking", has=facilitator.get_by_role("button", name=f"Re-mark question {first}")
    )
    form.get_by_role("checkbox").first.check()
    form.get_by_role("button", name=f"Re-mark question {first}").click()
    expect(projector.get_by_text("No answer earned points.")).to_have_count(0)
    # One neutral typeface for every answer, best-marked or not, on every kind of screen.
    expect(projector.locator("li.best .know-answer")).to_have_count(3)
    expect(teams["Ala"].locator("li.best .know-answer")).to_have_count(3)
    faces = {}
    for where, page in (("projector", projector), ("facilitator", facilitator), ("team", teams["Ala"])):
        faces[where] = answer_typefaces(page)
        assert len(faces[where]) >= 3, (where, faces[where])
    assert len({face for found in faces.values() for face in found}) == 1, faces
    assert faces["projector"][0][1:] == ("400", "normal"), faces
    assert_accessible(browsing, facilitator, "facilitator, Resolution")
    assert_fits_a_phone(facilitator, "facilitator, Resolution")
    facilitator.get_by_role("button", name="Close the round: the scores count").click()

    # The questions ran out: the final score record by Team ID, on every screen.
    for page in (projector, facilitator, *teams.values()):
        expect(page.get_by_role("heading", name="Final score record")).to_be_visible()
        for team_id in TEAMS.values():
            expect(page.locator(".know-scores tbody th", has_text=team_id)).to_have_count(1)
        expect(page.locator(".know-scores tbody td")).to_have_text(["2", "2", "2"])
    expect(teams["Ala"].locator(".know-scores")).to_contain_text("Kestrel (you)")
    # No screen but a team's own links a Team ID to a nickname.
    for page in (projector, *teams.values()):
        assert "Kestrel (you)" not in page.content() or page is teams["Ala"]
    for nickname in TEAMS:
        assert nickname not in projector.locator("#board").inner_text()
    assert_accessible(browsing, teams["Ola"], "team device, game over")
    assert_fits_a_phone(teams["Ola"], "team device, game over")
    assert_accessible(browsing, projector, "projector, game over")

    # After the game the facilitator keeps the questions as a question bank.
    with facilitator.expect_navigation():
        facilitator.get_by_role("button", name="Keep these questions in my question bank").click()
    expect(facilitator.get_by_text("3 questions were kept in your question bank.")).to_be_visible()
    assert sorted(KnowQuestion.objects.values_list("text", flat=True)) == sorted(QUESTIONS.values())
    for page in (facilitator, projector, *teams.values()):
        assert not page_problems(browsing, page)


def test_know_marked_by_the_teams_later_and_ended_by_the_facilitator_with_a_round_unmarked(
    browsing, demo_users_site
):
    """team_marks, resolution later: the facilitator resolves round 1 when it chooses, each team
    device marks its own question, round 2 waits unmarked and the facilitator ends the game,
    told first what that leaves unmarked. A 360-px phone answers by keyboard (Tab, Enter)."""
    from games.models import GameSession

    site = demo_users_site
    names = {"Ala": "Kestrel", "Ola": "Moss"}
    questions = {
        "Ala": ["Capital of Poland?", "Longest Polish river?"],
        "Ola": ["Who wrote Lalka?", "Year 1410?"],
    }
    facilitator = browsing.new_page()
    sign_in(facilitator, site.url, site.teacher.username, site.teacher.password)
    open_page(facilitator, f"{site.url}/games/know/new")
    facilitator.get_by_label("Agreed source of answers").fill("Polish textbook, class 7")
    facilitator.get_by_label("Question cards per team").fill("2")
    facilitator.get_by_label("Each question's own team (the facilitator settles disputes)").check()
    facilitator.get_by_label(
        "Later: rounds are put to one side and marked when the facilitator chooses"
    ).check()
    facilitator.get_by_label("Students may join without an account, with a nickname").check()
    with facilitator.expect_navigation():
        facilitator.get_by_role("button", name="Create the Know game").click()
    session = GameSession.objects.get(game="know")
    assert (session.variant, session.setup["resolve_immediately"]) == ("team_marks", False)
    projector = browsing.new_page()
    sign_in(projector, site.url, site.teacher.username, site.teacher.password)
    open_page(projector, f"{site.url}/games/know/{session.pk}/projector")

    teams = {}
    for nickname in names:
        page = browsing.new_phone_page() if nickname == "Ala" else browsing.new_page()
        open_page(page, f"{site.url}/games/join/{session.join_code}")
        page.get_by_label("Your nickname").fill(nickname)
        page.get_by_role("button", name="Join", exact=True).click()
        expect(page.get_by_text("This device is your team's")).to_be_visible()
        teams[nickname] = page
    expect(projector.locator("#know-joined")).to_have_text("2 team devices have joined.")
    facilitator.get_by_role("button", name="Start the game").click()
    for nickname, page in teams.items():
        page.get_by_label("Team ID", exact=True).fill(names[nickname])
        page.get_by_role("button", name="Choose this Team ID").click()
        expect(page.locator(".know-team-id strong")).to_have_text(names[nickname])
        for index, text in enumerate(questions[nickname]):
            page.get_by_label(re.compile(r"^Question card \d+")).nth(index).fill(text)
            page.get_by_role("button", name=re.compile(r"^Save question")).nth(index).click()
            expect(page.get_by_text("(written)")).to_have_count(index + 1)
    facilitator.get_by_role("button", name="Start the first Question Round").click()

    def play_round(number: int) -> None:
        for page in teams.values():
            page.get_by_role("button", name=re.compile(r"^Submit question \d+")).first.click()
        for nickname, page in teams.items():
            box = page.get_by_role("textbox", name=re.compile(r"^Your answer to question \d+"))
            box.fill(f"{nickname}'s answer in round {number}")
            if nickname == "Ala":  # the phone, by keyboard: Tab to the button, Enter
                page.keyboard.press("Tab")
                expect(
                    page.get_by_role("button", name=re.compile(r"^Submit the answer card"))
                ).to_be_focused()
                page.keyboard.press("Enter")
            else:
                page.get_by_role("button", name=re.compile(r"^Submit the answer card")).click()
            expect(page.get_by_text("Your answer card:")).to_be_visible()
        assert scroll_width(teams["Ala"]) <= PHONE_WIDTH
        expect(facilitator.get_by_text("Answer cards in: 2")).to_be_visible()
        facilitator.get_by_role("button", name="Close the answers: end this round").click()
        expect(
            projector.get_by_text(f"Round Decks put to one side, to be marked later: {number}.")
        ).to_be_visible()

    # Round 1, put to one side, then resolved when the facilitator chooses; each team marks its own.
    play_round(1)
    facilitator.get_by_role("button", name="Resolve round 1 now").click()
    expect(projector.locator(".know-resolution.open .know-question")).to_have_count(2)
    expect(facilitator.get_by_role("button", name=re.compile(r"^Mark question"))).to_have_count(0)
    ala, ola = teams["Ala"], teams["Ola"]
    expect(ala.get_by_text("Mark your own questions")).to_be_visible()
    form = ala.locator("form.know-marking")
    expect(form).to_have_count(1)  # its own question only
    form.get_by_role("checkbox", name="Ola's answer in round 1").check()
    form.get_by_role("button", name=re.compile(r"^Mark question")).tap()
    expect(ala.get_by_role("button", name=re.compile(r"^Re-mark question"))).to_be_visible()
    ola.locator("form.know-marking").get_by_role("button", name=re.compile(r"^Mark question")).click()
    expect(projector.get_by_text("No answer earned points.")).to_be_visible()
    assert_accessible(browsing, ala, "team device, marking its own question (phone)")
    assert_fits_a_phone(ala, "team device, marking")
    facilitator.get_by_role("button", name="Close the round: the scores count").click()
    expect(projector.locator(".know-scores tbody td")).to_have_text(["0", "1"])  # Kestrel, Moss

    # Round 2 waits, put to one side; the facilitator ends the game, told what that leaves.
    facilitator.get_by_role("button", name="Start the next Question Round").click()
    play_round(2)
    facilitator.get_by_role("button", name="End the game…").click()
    confirm = facilitator.get_by_role("group", name="End the game now?")
    expect(confirm).to_contain_text(
        "2 questions are still waiting to be marked (Round Decks put to one side: 2)."
    )
    expect(confirm).to_contain_text("Ending now, they are never marked and their answers earn no points.")
    expect(confirm).to_contain_text("The score record as it stands becomes the final score record.")
    expect(facilitator.get_by_role("button", name="No, go on playing")).to_be_focused()
    assert_accessible(browsing, facilitator, "facilitator, ending the game")
    facilitator.keyboard.press("Enter")  # no: nothing happens
    expect(facilitator.get_by_role("button", name="End the game…")).to_be_focused()
    assert GameSession.objects.get(pk=session.pk).status == "running"
    facilitator.get_by_role("button", name="End the game…").click()
    facilitator.get_by_role("button", name="Yes, end the game now").click()
    for page in (projector, facilitator, *teams.values()):
        expect(page.get_by_role("heading", name="Final score record")).to_be_visible()
        expect(page.locator(".know-scores tbody th")).to_have_count(2)
        expect(page.locator(".know-scores tbody td")).to_have_text(["1", "0"])  # Moss first
        expect(page.get_by_text("The facilitator ended the game.")).to_be_visible()
    expect(facilitator.get_by_role("button", name="End the game…")).to_have_count(0)
    assert GameSession.objects.get(pk=session.pk).status == "finished"
    for page in (facilitator, projector, *teams.values()):
        assert not page_problems(browsing, page)
