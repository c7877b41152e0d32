"""Know on the classroom's screens (issue 18, items 1 and 2), measured in chromium.

A team's phone at 360×740 (touch) sees its answer form without scrolling, with taps of 44 px
at least, and in landscape too; the projector page in the projector view shows the round at
1920×1080 and 1280×720 without scrolling, in type of 32 px at 1080p, with the join code as a
corner strip; the facilitator's page has the projector toggle.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import geometry
from tests.e2e.browsing import open_page
from tests.e2e.test_screens_znajznak import clean, shoot, signed_in, students
from tests.e2e.test_znajznak_duel import page_problems

pytestmark = pytest.mark.e2e

ANSWER_FORM = "form.know-card"


def know_in_its_answers(site: Any) -> Any:
    """A Know game of three team devices (the demo students), in its first round's answers."""
    from games import services
    from games.engines import know
    from games.models import Participant
    from games.play.know.services import know_session_create

    session = know_session_create(
        facilitator=site.teacher_user,
        variant="facilitator_marks",
        cards_per_team=1,
        source="Polish textbook, class 7",
        resolve_immediately=True,
        facilitator_sees_mapping=False,
        allow_guests=True,
        language="en",
    )
    for user in students(site, 3):
        services.session_join(session=session, user=user)
    session = services.session_start(session=session, by=site.teacher_user)
    players = {p.player_id: p for p in Participant.objects.filter(session=session, role="player")}
    facilitator = Participant.objects.get(session=session, role="facilitator")
    state = know.state_from_dict(session.state)
    card = {player: next(c.number for c in state.questions if c.team == player) for player in players}
    for player, participant in players.items():
        services.session_act(
            participant=participant, action={"type": "choose_team_id", "team_id": f"Team {player}"}
        )
        text = f"When did the event number {player} happen, and who took part in it on the day?"
        services.session_act(
            participant=participant, action={"type": "write_question", "card": card[player], "text": text}
        )
    services.session_act(participant=facilitator, action={"type": "start_round"})
    for player, participant in players.items():
        services.session_act(
            participant=participant, action={"type": "submit_question", "card": card[player]}
        )
    return session


def assert_answer_form_fits(page: Any, where: str) -> None:
    expect(page.locator(ANSWER_FORM).first).to_be_visible()
    shoot(page, f"know-{where}")
    geometry.assert_fits(page, ANSWER_FORM)
    geometry.assert_tap_targets(page, f"{ANSWER_FORM} button, {ANSWER_FORM} textarea")
    geometry.assert_no_horizontal_overflow(page)


def test_the_answer_form_fits_a_phone_and_the_round_fits_the_projector(browsing, demo_users_site):
    site = demo_users_site
    session = know_in_its_answers(site)
    url = f"{site.url}/games/sessions/{session.pk}/"

    phone = signed_in(browsing, site.students[0], site.url, **geometry.PHONE)
    open_page(phone, url)
    assert_answer_form_fits(phone, "phone")
    clean(browsing, phone, "Know answers, phone")
    geometry.resize_to(phone, {"viewport": {"width": 740, "height": 360}})
    assert_answer_form_fits(phone, "phone-landscape")

    projector = signed_in(browsing, site.teacher, site.url, **geometry.PROJECTOR_1080)
    open_page(projector, f"{site.url}/games/know/{session.pk}/projector?view=projector")
    expect(projector.locator(".know-round .know-question")).to_have_count(3)
    shoot(projector, "know-projector-1080")
    geometry.assert_no_page_scroll(projector)
    geometry.assert_font_at_least(projector, ".know-question-text", geometry.PROJECTOR_BODY_PX)
    geometry.assert_font_at_least(projector, ".know-banner h2", geometry.PROJECTOR_BODY_PX)
    geometry.assert_font_at_least(
        projector, ".join-strip.is-compact .join-code", geometry.PROJECTOR_NUMBER_PX
    )
    geometry.assert_fits(projector, "[data-join-strip]")
    geometry.assert_uncovered_by_join_strip(projector, ".know-round .know-question, .know-banner h2")
    clean(browsing, projector, "Know projector, projector view 1080p")
    geometry.resize_to(projector, geometry.PROJECTOR_720)
    shoot(projector, "know-projector-720")
    geometry.assert_no_page_scroll(projector)

    # The facilitator's page: the toggle, and the controls on the screen in both views.
    teacher = signed_in(browsing, site.teacher, site.url, **geometry.TEACHER)
    open_page(teacher, url)
    expect(teacher.locator("body")).to_have_class("live")
    expect(teacher.locator(".know-controls")).to_be_visible()
    shoot(teacher, "know-facilitator-1366")
    geometry.assert_fits(teacher, ".know-controls")
    clean(browsing, teacher, "Know facilitator, normal view")
    # At the projector first: the toggle asks for full screen, and a browser in full screen
    # has no window size to set (chromium's headless shell grants it to a click).
    teacher.set_viewport_size(geometry.PROJECTOR_1080["viewport"])
    teacher.get_by_role("button", name="Projector view").click()
    expect(teacher.locator("html")).to_have_attribute("data-view", "projector")
    shoot(teacher, "know-facilitator-projector-1080")
    geometry.assert_fits(teacher, ".know-controls")
    geometry.assert_uncovered_by_join_strip(teacher, ".know-controls button, .know-banner h2")
    geometry.assert_no_horizontal_overflow(teacher)
    geometry.assert_font_at_least(teacher, ".know-banner h2", geometry.PROJECTOR_BODY_PX)
    clean(browsing, teacher, "Know facilitator, projector view")
    for page in (phone, projector, teacher):
        assert not page_problems(browsing, page)
