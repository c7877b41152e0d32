"""A live quiz in real browsers: the teacher's screen on the projector and three teams on
360-px touch phones (two signed-in students and a guest), through two questions, a changed
answer, a tie-break setting and the end, with axe and 360-px checks of every screen; the
students with an account get their graded attempts.

The live server is WSGI: the pages fall back to polling, as on a school network that blocks
WebSockets.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, scroll_width, sign_in
from tests.e2e.test_know_round import PHONE_WIDTH, assert_accessible, assert_fits_a_phone
from tests.e2e.test_znajznak_duel import page_problems

pytestmark = pytest.mark.e2e

TEAM_IDS = ["Kestrel", "Lantern", "Moss"]


def test_three_teams_on_phones_play_a_live_quiz_shown_on_the_projector(browsing, demo_users_site):
    from games.models import GameSession
    from games.quiz.models import QuizAttempt
    from tests.games.play.test_quiz_live_play import published_quiz, with_a_picture

    site = demo_users_site
    quiz = with_a_picture(published_quiz(site.teacher_user))

    projector = browsing.new_page()
    sign_in(projector, site.url, site.teacher.username, site.teacher.password)
    open_page(projector, f"{site.url}/games/quiz-live/new/{quiz.pk}")
    expect(projector.get_by_role("heading", name=re.compile("live"))).to_be_visible()
    assert_accessible(browsing, projector, "run a quiz live")
    assert_fits_a_phone(projector, "run a quiz live")
    projector.get_by_label("Teams").fill("3")
    projector.get_by_label(re.compile("^Tie-break")).check()
    projector.get_by_label("Students may join without an account, with a nickname").check()
    with projector.expect_navigation():
        projector.get_by_role("button", name="Create the live quiz").click()
    session = GameSession.objects.get(game="quiz_live")

    phones = []
    for student in site.students[:2]:
        page = browsing.new_phone_page()
        sign_in(page, site.url, student.username, student.password)
        open_page(page, f"{site.url}/games/join/{session.join_code}")
        page.get_by_role("button", name=re.compile("^Join as")).tap()
        expect(page.get_by_text("You are in.")).to_be_visible()
        phones.append(page)
    guest = browsing.new_phone_page()
    open_page(guest, f"{site.url}/games/join/{session.join_code}")
    guest.get_by_label("Your nickname").fill("Ola")
    guest.get_by_role("button", name="Join", exact=True).tap()
    expect(guest.get_by_text("You are in.")).to_be_visible()
    phones.append(guest)
    projector.get_by_role("button", name="Start the game").click()

    # The lobby: each team chooses its secret Team ID on its phone.
    for page, team_id in zip(phones, TEAM_IDS, strict=True):
        page.get_by_label(re.compile("secret")).fill(team_id)
        page.get_by_role("button", name="Choose it").tap()
        expect(page.get_by_text(f"Your Team ID: {team_id}")).to_be_visible()
    assert_accessible(browsing, phones[0], "phone, lobby")
    expect(projector.get_by_text("Teams with a Team ID: 3 of 3")).to_be_visible()

    # Question 1: one team changes its mind, the projector counts answers, not who.
    projector.get_by_role("button", name="Open the first question").click()
    expect(projector.get_by_text("Independence")).to_be_visible()
    for page in phones:
        expect(page.get_by_role("button", name="1918")).to_be_visible()
    # The question's picture, at the URL the session page gave the script.
    picture_url = reverse("games:quiz_live_picture", args=[session.pk, 1, "p1"])
    for page in (projector, phones[2]):
        picture = page.get_by_role("img", name="The question's picture")
        expect(picture).to_have_attribute("src", picture_url)
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
    assert_accessible(browsing, phones[0], "phone, question open")
    assert_fits_a_phone(phones[0], "phone, question open")
    phones[0].get_by_role("button", name="1945").tap()
    phones[0].get_by_role("button", name="1918").tap()
    expect(phones[0].get_by_role("button", name="1918")).to_have_attribute("aria-pressed", "true")
    phones[1].get_by_role("button", name="1918").tap()
    phones[2].get_by_role("button", name="1989").tap()
    expect(projector.get_by_text("3 of 3 teams have answered")).to_be_visible()
    expect(projector.locator(".quiz-live-reveal")).to_have_count(0)  # no right answer while open
    assert_accessible(browsing, projector, "projector, question open")
    projector.get_by_role("button", name="Close the question").click()
    expect(projector.get_by_text("Teams fully right: 2 of 3")).to_be_visible()
    expect(phones[0].get_by_role("heading", name="Your team: 1 of 1")).to_be_visible()
    expect(phones[2].get_by_role("heading", name="Your team: 0 of 1")).to_be_visible()
    assert_accessible(browsing, phones[2], "phone, question closed")
    assert scroll_width(phones[2]) <= PHONE_WIDTH
    assert_accessible(browsing, projector, "projector, standings")

    # Question 2, by keyboard on the first phone; then the end.
    projector.get_by_role("button", name="Open the next question").click()
    expect(phones[0].get_by_role("button", name="1989")).to_be_visible()
    phones[0].get_by_role("button", name="1989").focus()
    phones[0].keyboard.press("Enter")
    expect(phones[0].get_by_text("Your team's answer is in.")).to_be_visible()
    projector.get_by_role("button", name="Close the question").click()
    expect(projector.get_by_text("Teams fully right: 1 of 3")).to_be_visible()
    projector.get_by_role("button", name="End the quiz").click()
    expect(projector.get_by_role("heading", name="The quiz is over")).to_be_visible()
    standings = projector.locator(".quiz-live-standings tbody th")
    expect(standings.first).to_have_text("Kestrel")
    assert_accessible(browsing, projector, "projector, the end")

    attempts = QuizAttempt.objects.filter(quiz=quiz)
    assert sorted(attempts.values_list("score", flat=True)) == [1.0, 2.0]
    for page in (projector, *phones):
        assert page_problems(browsing, page) == []
