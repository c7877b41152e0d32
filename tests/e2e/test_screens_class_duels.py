"""ZnajZnak's class duels and practice on the classroom's screens (issue 18, items 1 and 2).

The class-duels overview (the teacher's page of the class lobby, on the projector) shows
every duel of the round without scrolling at 1920×1080 and 1280×720, with body text of 32 px
and the round's heading large at 1080p; on the teacher's 1366×768 laptop and a 360×740 phone
it fits too. A student's duel of the round and a practice game against the simulated
opponent keep both cards on the screen at all four sizes. The join code's corner strip
covers nothing of the game.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import geometry
from tests.e2e.browsing import open_page
from tests.e2e.test_screens_znajznak import (
    OTHER_CARD,
    OWN_CARD,
    clean,
    deck_of_57,
    shoot,
    signed_in,
    students,
)

pytestmark = pytest.mark.e2e

SIZES = {
    "projector-1080": geometry.PROJECTOR_1080,
    "projector-720": geometry.PROJECTOR_720,
    "laptop": geometry.TEACHER,
    "phone": geometry.PHONE,
}


def class_round(site: Any, players: int) -> Any:
    """A class lobby of ``players`` students in its first round of duels."""
    from games import services
    from games.play.znajznak.duels import class_round_start, class_run_create

    run = class_run_create(facilitator=site.teacher_user, deck=deck_of_57(site.teacher_user), timer=600)
    for user in students(site, players):
        services.session_join(session=run.lobby, user=user)
    class_round_start(run=run, by=site.teacher_user)
    return run


def assert_cards_on_screen(page: Any, where: str) -> None:
    expect(page.locator(f"{OWN_CARD} button.symbol").first).to_be_visible()
    own = geometry.assert_fits(page, OWN_CARD)
    other = geometry.assert_fits(page, OTHER_CARD)
    assert min(own.width, other.width) >= 160, f"{where}: cards of {own.width:.0f}/{other.width:.0f} px"
    geometry.assert_tap_targets(page, f"{OWN_CARD} button.symbol, {OTHER_CARD} button.symbol")
    geometry.assert_uncovered_by_join_strip(page, f"{OWN_CARD} button.symbol, {OTHER_CARD} button.symbol")
    geometry.assert_no_horizontal_overflow(page)


def test_the_class_duels_overview_fits_every_screen(browsing, demo_users_site):
    site = demo_users_site
    run = class_round(site, 8)
    url = f"{site.url}/games/sessions/{run.lobby_id}/"

    teacher = signed_in(browsing, site.teacher, site.url, **geometry.PROJECTOR_1080)
    open_page(teacher, f"{url}?view=projector")
    expect(teacher.locator(".duels .duel")).to_have_count(4)
    shoot(teacher, "class-duels-projector")
    for name, size in SIZES.items():
        teacher.set_viewport_size(size["viewport"])
        if name == "laptop":
            open_page(teacher, f"{url}?view=normal")
        expect(teacher.locator(".duels .duel")).to_have_count(4)
        if name.startswith("projector"):
            geometry.assert_no_page_scroll(teacher)
            for index in range(4):
                geometry.assert_fits(teacher, f".duels .duel >> nth={index}")
        else:
            # Off the projector the overview may scroll below the round's state, but the
            # round's heading, its state and the first duel are on the first screen.
            geometry.assert_fits(teacher, ".duels .duel >> nth=0")
            geometry.assert_no_horizontal_overflow(teacher)
            shoot(teacher, f"class-duels-{name}")
        geometry.assert_fits(teacher, "#board h2")
        geometry.assert_uncovered_by_join_strip(teacher, ".duels .duel, .class-controls button, #board h2")
        if name == "projector-1080":
            geometry.assert_font_at_least(teacher, ".duels .duel h3", geometry.PROJECTOR_BODY_PX)
            geometry.assert_font_at_least(teacher, ".duels .duel .counts li", geometry.PROJECTOR_BODY_PX)
            geometry.assert_font_at_least(teacher, "#board .status-line", geometry.PROJECTOR_BODY_PX)
            geometry.assert_font_at_least(
                teacher, ".join-strip.is-compact .join-code", geometry.PROJECTOR_NUMBER_PX
            )
        clean(browsing, teacher, f"class duels overview, {name}")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_duel_of_the_class_round_keeps_both_cards_on_screen(browsing, demo_users_site, size):
    from games.models import ClassDuel

    site = demo_users_site
    run = class_round(site, 2)
    duel = ClassDuel.objects.get(run=run)
    page = signed_in(browsing, site.students[0], site.url, **SIZES[size])
    open_page(page, f"{site.url}/games/sessions/{duel.session_id}/")
    assert_cards_on_screen(page, f"class duel, {size}")
    shoot(page, f"class-duel-{size}")
    clean(browsing, page, f"class duel, {size}")


@pytest.mark.parametrize("size", list(SIZES))
def test_practice_with_the_simulated_opponent_keeps_both_cards_on_screen(browsing, demo_users_site, size):
    from games.play.znajznak.practice import practice_assignment_create, practice_start

    site = demo_users_site
    assignment = practice_assignment_create(
        owner=site.teacher_user,
        title="Practice",
        deck=deck_of_57(site.teacher_user),
        mode="bot",
        cards_per_player=3,
        bot_seconds=600,  # the opponent does not move while the screen is measured
        bot_accuracy=100,
    )
    run = practice_start(assignment=assignment, student=students(site, 1)[0])
    page = signed_in(browsing, site.students[0], site.url, **SIZES[size])
    open_page(page, f"{site.url}/games/sessions/{run.session_id}/")
    assert_cards_on_screen(page, f"practice, {size}")
    shoot(page, f"practice-{size}")
    clean(browsing, page, f"practice, {size}")
