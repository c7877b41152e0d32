"""ZnajZnak on the classroom's screens (issue 18, items 1 and 2), measured in chromium.

A phone at 360×740 (touch) sees both cards of its comparison without scrolling, with taps of
44 px at least, and so does it turned to landscape; the teacher's 1366×768 laptop too. The
projector view at 1920×1080 and 1280×720 shows the whole table without scrolling, body text
of 32 px and key numbers of 64 px at 1080p, and the join code as a corner strip.

Set TALIA_SCREENSHOTS to a folder to keep a picture of each screen (docs/ uses them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import axe_violations, describe_violations, open_page, sign_in
from tests.e2e.geometry import (
    PHONE,
    PROJECTOR_720,
    PROJECTOR_1080,
    PROJECTOR_BODY_PX,
    PROJECTOR_NUMBER_PX,
    TEACHER,
    assert_fits,
    assert_font_at_least,
    assert_no_horizontal_overflow,
    assert_no_page_scroll,
    assert_tap_targets,
    assert_uncovered_by_join_strip,
    resize_to,
)
from tests.e2e.test_znajznak_duel import page_problems

pytestmark = pytest.mark.e2e

OWN_CARD = 'section[aria-labelledby="own-card"] .symbols'
OTHER_CARD = 'section[aria-labelledby="other-card"] .symbols'


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("TALIA_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def clean(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    problems = page_problems(browsing, page)
    assert not problems, f"{where}: {problems}"


def deck_of_57(owner: Any) -> Any:
    """A built deck of order 7 (57 cards of 8 symbols), the printed game's, with placeholders."""
    from content.building import deck_plan
    from content.models import BuildState, Deck

    snapshot = {
        "symbols": [
            {"id": None, "number": n, "name": f"Symbol {n}", "alternative_names": [], "picture": ""}
            for n in range(1, 58)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": 1}, seed=1)
    return Deck.objects.create(
        name="Talia 57", owner=owner, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )


def students(site: Any, count: int) -> list[Any]:
    """The demo students, then as many more as a game needs (players the pages do not open)."""
    from lms.models import User

    users = [User.objects.get(username=login.username) for login in site.students[:count]]
    users += [User.objects.create_user(username=f"extra{n}") for n in range(count - len(users))]
    return users


def running_game(site: Any, *, variant: str, players: int, timer: int | None = 600) -> Any:
    from games import services
    from games.play.znajznak.services import znajznak_setup_from_deck

    setup, assets = znajznak_setup_from_deck(
        deck=deck_of_57(site.teacher_user), cards_per_player=3, timer=timer
    )
    session = services.session_create(
        facilitator=site.teacher_user, game="znajznak", variant=variant, setup=setup, assets=assets
    )
    for user in students(site, players):
        services.session_join(session=session, user=user)
    return services.session_start(session=session, by=site.teacher_user)


def signed_in(browsing: Any, login: Any, url: str, **options: Any) -> Any:
    page = browsing.new_page(**options)
    sign_in(page, url, login.username, login.password)
    return page


def assert_both_cards_fit(page: Any, where: str) -> None:
    expect(page.locator(f"{OWN_CARD} button.symbol").first).to_be_visible()
    shoot(page, f"znajznak-{where}")
    own = assert_fits(page, OWN_CARD)
    other = assert_fits(page, OTHER_CARD)
    assert min(own.width, other.width) >= 160, f"{where}: cards of {own.width:.0f}/{other.width:.0f} px"
    assert_tap_targets(page, f"{OWN_CARD} button.symbol, {OTHER_CARD} button.symbol")
    assert_no_horizontal_overflow(page)


def assert_projector_table(page: Any, seats: int, *, big: bool) -> None:
    expect(page.locator(".seat:not(.middle) .symbols")).to_have_count(seats)
    assert_no_page_scroll(page)
    for index in range(seats):
        assert_fits(page, f".seat:not(.middle) >> nth={index}")
    assert_fits(page, ".timer-clock")
    assert_fits(page, "[data-join-strip]")
    assert_uncovered_by_join_strip(page, ".seat .symbols, .seat h3, .timer-clock")
    if big:
        assert_font_at_least(page, ".seat h3", PROJECTOR_BODY_PX)
        assert_font_at_least(page, "#connection", PROJECTOR_BODY_PX)
        assert_font_at_least(page, ".timer-clock", PROJECTOR_NUMBER_PX)
        assert_font_at_least(page, ".join-strip.is-compact .join-code", PROJECTOR_NUMBER_PX)


def test_a_duel_fits_the_phone_the_laptop_and_the_projector(browsing, demo_users_site):
    site = demo_users_site
    session = running_game(site, variant="duel", players=2)
    url = f"{site.url}/games/sessions/{session.pk}/"

    phone = signed_in(browsing, site.students[0], site.url, **PHONE)
    open_page(phone, url)
    assert_both_cards_fit(phone, "phone, portrait")
    shoot(phone, "znajznak-duel-phone")
    clean(browsing, phone, "ZnajZnak duel, phone")

    resize_to(phone, {"viewport": {"width": 740, "height": 360}})
    assert_both_cards_fit(phone, "phone, landscape")
    shoot(phone, "znajznak-duel-phone-landscape")

    laptop = signed_in(browsing, site.students[1], site.url, **TEACHER)
    open_page(laptop, url)
    assert_both_cards_fit(laptop, "laptop")
    clean(browsing, laptop, "ZnajZnak duel, laptop")

    projector = signed_in(browsing, site.teacher, site.url, **PROJECTOR_1080)
    open_page(projector, f"{url}?view=projector")
    assert_projector_table(projector, 2, big=True)
    shoot(projector, "znajznak-duel-projector-1080")
    clean(browsing, projector, "ZnajZnak duel, projector view 1080p")
    resize_to(projector, PROJECTOR_720)
    assert_projector_table(projector, 2, big=False)
    shoot(projector, "znajznak-duel-projector-720")

    # The teacher's own view at 1366×768, without the projector view: the table still fits.
    projector.set_viewport_size(TEACHER["viewport"])
    projector.get_by_role("button", name="Projector view").click()
    expect(projector.locator("html")).not_to_have_attribute("data-view", "projector")
    for index in range(2):
        assert_fits(projector, f".seat .symbols >> nth={index}")
    clean(browsing, projector, "ZnajZnak duel, teacher's view")
    for page in (phone, laptop):
        assert not page_problems(browsing, page)


@pytest.mark.parametrize(("variant", "middle"), [("multiplayer", False), ("warm_up", True)])
def test_every_seat_and_the_middle_fit_the_projector(browsing, demo_users_site, variant, middle):
    site = demo_users_site
    session = running_game(site, variant=variant, players=4)
    url = f"{site.url}/games/sessions/{session.pk}/"

    phone = signed_in(browsing, site.students[0], site.url, **PHONE)
    open_page(phone, url)
    assert_both_cards_fit(phone, f"{variant}, phone")
    clean(browsing, phone, f"ZnajZnak {variant}, phone")

    projector = signed_in(browsing, site.teacher, site.url, **PROJECTOR_1080)
    open_page(projector, f"{url}?view=projector")
    assert_projector_table(projector, 4, big=True)
    expect(projector.locator(".seat.middle .symbols")).to_have_count(1 if middle else 0)
    shoot(projector, f"znajznak-{variant}-projector-1080")
    clean(browsing, projector, f"ZnajZnak {variant}, projector view 1080p")
    resize_to(projector, PROJECTOR_720)
    assert_projector_table(projector, 4, big=False)
    if middle:
        assert_fits(projector, ".seat.middle .symbols")
    for page in (phone, projector):
        assert not page_problems(browsing, page)
