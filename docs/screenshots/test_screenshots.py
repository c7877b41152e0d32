"""Pictures of each game on a student's phone (360×740, touch) and on a projector
(1920×1080, projector view), for the guides in docs/: `make screenshots` writes them to
docs/images/. Each game is set up as its browser tests set it up and played to a moment worth
showing; a page that reports a problem (other than the WebSocket the test server refuses)
fails the picture rather than documenting a broken screen.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.geometry import PHONE, PROJECTOR_1080
from tests.e2e.test_board_screens import finish
from tests.e2e.test_screen_contract import benign

pytestmark = pytest.mark.e2e

IMAGES = Path(__file__).resolve().parent.parent / "images"
# Larger pictures are scaled down: the guides are read on slow school networks too.
MAX_BYTES = 400_000


def signed_in(browsing: Any, login: Any, url: str, screen: dict[str, Any]) -> Any:
    page = browsing.new_page(**screen)
    sign_in(page, url, login.username, login.password)
    return page


def save(browsing: Any, page: Any, name: str) -> Path:
    """The viewport as a PNG in docs/images/, once the page's fonts are in and nothing moves."""
    problems = [p for p in browsing.problems(page) if not benign(p)]
    assert not problems, f"{name}: {problems}"
    # Once the page has its state: pytest's live server refuses the WebSocket, so a live page
    # falls back to polling; it is pictured as `make run` shows it, connected ("Live").
    page.wait_for_function(
        "() => { const c = document.querySelector('#connection');"
        " return !c || !/^(Connecting|Reconnecting)/.test(c.textContent.trim()); }"
    )
    page.evaluate(
        "() => { const c = document.querySelector('#connection');"
        " if (c && c.textContent.includes('(no live connection)')) c.textContent = 'Live'; }"
    )
    page.evaluate("() => document.fonts.ready.then(() => window.scrollTo(0, 0))")
    shot = page.screenshot(type="png", animations="disabled", caret="hide")
    image = Image.open(io.BytesIO(shot))
    data = shot
    while len(data) > MAX_BYTES:
        scale = max(0.5, (MAX_BYTES / len(data)) ** 0.5 * 0.95)
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        data = out.getvalue()
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / f"{name}.png"
    path.write_bytes(data)
    return path


def test_znajznak_duel(browsing, demo_users_site):
    from tests.e2e.test_screens_znajznak import running_game

    site = demo_users_site
    session = running_game(site, variant="duel", players=2)
    url = f"{site.url}/games/sessions/{session.pk}/"

    phone = signed_in(browsing, site.students[0], site.url, PHONE)
    open_page(phone, url)
    expect(phone.locator(".symbols button.symbol")).to_have_count(16)  # eight on each card
    save(browsing, phone, "znajznak-duel-phone")

    projector = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    open_page(projector, f"{url}?view=projector")
    expect(projector.locator(".seat .symbols .symbol")).to_have_count(16)
    expect(projector.locator(".join-strip")).to_have_class(re.compile(r"\bis-compact\b"))
    save(browsing, projector, "znajznak-duel-projector")
    finish(browsing, phone, projector)


def test_know_round(browsing, demo_users_site):
    from tests.e2e.test_screens_know import ANSWER_FORM, know_in_its_answers

    site = demo_users_site
    session = know_in_its_answers(site)

    phone = signed_in(browsing, site.students[0], site.url, PHONE)
    open_page(phone, f"{site.url}/games/sessions/{session.pk}/")
    expect(phone.locator(ANSWER_FORM).first).to_be_visible()
    phone.locator(f"{ANSWER_FORM} textarea").first.fill("In 1918, on the 11th of November.")
    save(browsing, phone, "know-phone")

    projector = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    open_page(projector, f"{site.url}/games/know/{session.pk}/projector?view=projector")
    expect(projector.locator(".know-round .know-question")).to_have_count(3)
    save(browsing, projector, "know-projector")
    finish(browsing, phone, projector)


def test_activity_turn(browsing, demo_site):
    from games.models import Participant
    from tests.e2e.test_activity_turn import running_game

    site = demo_site
    session = running_game(site.teacher_user)
    # Sowy begin: its representative draws a card on their phone and memorises the term.
    player = session.state["representatives"]["t1"]
    representative = Participant.objects.get(session=session, player_id=player).user
    phone = browsing.new_page(**PHONE)
    sign_in(phone, site.url, representative.username, "pass-word-123")
    open_page(phone, f"{site.url}/games/sessions/{session.pk}/")
    phone.get_by_role("button", name=re.compile("Draw a card")).tap()
    expect(phone.locator("#activity-term")).to_be_visible()
    save(browsing, phone, "activity-phone")

    # The class's screen while the hourglass runs (it turns by itself after the memorising).
    projector = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    open_page(projector, f"{site.url}/games/sessions/{session.pk}/?screen=projector&view=projector")
    expect(projector.locator(".activity-board-svg")).to_be_visible()
    expect(projector.locator(".hourglass .hourglass-label")).to_have_text("Hourglass", timeout=20_000)
    save(browsing, projector, "activity-projector")
    finish(browsing, phone, projector)


def test_knowledge_round(browsing, demo_site):
    from tests.e2e.test_board_screens import knowledge_on_the_projector
    from tests.e2e.test_knowledge_round import solo_game

    site = demo_site
    session = solo_game(site)
    phone = signed_in(browsing, site.students[0], site.url, PHONE)
    open_page(phone, f"{site.url}/games/sessions/{session.pk}/")
    expect(phone.locator("button.assign")).to_have_count(6)
    save(browsing, phone, "knowledge-phone")

    # The class plays on the projector: one card assigned, the move explained beside the board.
    teacher = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    session_id = knowledge_on_the_projector(teacher, site.url, "basic")
    teacher.locator("button.assign").last.click()
    expect(teacher.locator(".last-move")).to_be_visible()
    open_page(teacher, f"{site.url}/games/sessions/{session_id}/?view=projector")
    expect(teacher.locator(".knowledge-board")).to_be_visible()
    expect(teacher.locator(".last-move")).to_be_visible()
    save(browsing, teacher, "knowledge-projector")
    finish(browsing, phone, teacher)


def test_znajznak_workshop(browsing, demo_site):
    from games.workshop import services as workshop_services
    from lms.models import User

    site = demo_site
    workshop = workshop_services.workshop_create(teacher=site.teacher_user, title="3b")
    for login in site.students[1:]:
        workshop_services.workshop_join(workshop=workshop, user=User.objects.get(username=login.username))
    phone = signed_in(browsing, site.students[0], site.url, PHONE)
    open_page(phone, f"{site.url}/games/workshops/join/{workshop.join_code}")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Join as").click()
    workshop_services.workshop_deal(workshop=workshop, by=site.teacher_user)
    # The dealt card arrives by polling.
    expect(phone.locator(".card-name")).to_be_visible(timeout=20_000)
    save(browsing, phone, "workshop-phone")

    projector = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    open_page(projector, f"{site.url}/games/workshops/{workshop.pk}/lead?view=projector")
    expect(projector.locator(".join-strip")).to_have_class(re.compile(r"\bis-compact\b"))
    save(browsing, projector, "workshop-projector")
    finish(browsing, phone, projector)


def test_znajznak_class_duels(browsing, demo_users_site):
    from games.models import ClassDuel
    from tests.e2e.test_screens_class_duels import class_round

    site = demo_users_site
    run = class_round(site, 8)
    # The student's phone shows their duel of the round; the projector, the round's overview.
    player = site.students[0]
    duel = ClassDuel.objects.get(run=run, session__participants__user__username=player.username)
    phone = signed_in(browsing, player, site.url, PHONE)
    open_page(phone, f"{site.url}/games/sessions/{duel.session_id}/")
    expect(phone.locator(".symbols button.symbol")).to_have_count(16)
    save(browsing, phone, "znajznak-class-duels-phone")

    projector = signed_in(browsing, site.teacher, site.url, PROJECTOR_1080)
    open_page(projector, f"{site.url}/games/sessions/{run.lobby_id}/?view=projector")
    expect(projector.locator(".duels .duel")).to_have_count(4)
    save(browsing, projector, "znajznak-class-duels-projector")
    finish(browsing, phone, projector)


def test_znajznak_practice(browsing, demo_users_site):
    from games.play.znajznak.practice import practice_assignment_create, practice_start
    from tests.e2e.test_screens_znajznak import deck_of_57, students

    site = demo_users_site
    assignment = practice_assignment_create(
        owner=site.teacher_user,
        title="Practice",
        deck=deck_of_57(site.teacher_user),
        mode="bot",
        cards_per_player=3,
        bot_seconds=600,
        bot_accuracy=100,
    )
    # Practice is one student's game: no projector view, but a large screen (a classroom's
    # computer or the board) as well as the phone.
    for screen, name in ((PHONE, "phone"), (PROJECTOR_1080, "screen")):
        run = practice_start(assignment=assignment, student=students(site, 1)[0])
        page = signed_in(browsing, site.students[0], site.url, screen)
        open_page(page, f"{site.url}/games/sessions/{run.session_id}/")
        expect(page.locator(".symbols button.symbol")).to_have_count(16)
        save(browsing, page, f"znajznak-practice-{name}")
        finish(browsing, page)
