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
