"""ZnajZnak's play page in a real browser: note c's timer ends the game for everyone, the
card face of a built deck, the facilitator's age order, and the page in Polish.

The live server is pytest-django's WSGI server: the pages poll (no WebSocket), which is
also the path a school network that blocks sockets takes.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import test_znajznak_duel
from tests.e2e.browsing import axe_violations, describe_violations, open_page, scroll_width, sign_in
from tests.e2e.test_znajznak_duel import _SQLITE, PHONE_WIDTH, built_deck

pytestmark = pytest.mark.e2e

SMALL_TARGETS = (
    "els => els.filter(e => e.offsetParent).filter(e => {"
    " const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })"
    ".map(e => e.outerHTML.slice(0, 80))"
)


def page_problems(browsing: Any, page: Any) -> list[str]:
    """As in the duel test; and the console's line for the same SQLite refusal: when the time
    is up, every open page asks at once, and the in-memory test database refuses a read while
    another thread writes instead of waiting (PostgreSQL, in CI, waits for the row lock)."""
    return [
        p
        for p in test_znajznak_duel.page_problems(browsing, page)
        if not (_SQLITE and "status of 500" in p and "/view.json" in p)
    ]


def assert_accessible(browsing: Any, page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    problems = page_problems(browsing, page)
    assert not problems, f"{where}: {problems}"


def duel_from_deck(site: Any, *, timer: int | None = None, variant: str = "duel", cards: int = 3) -> Any:
    """A running duel from a built deck between the two demo students."""
    from games import services
    from games.play.znajznak.services import znajznak_setup_from_deck
    from lms.models import User

    setup, assets = znajznak_setup_from_deck(
        deck=built_deck(site.teacher_user), cards_per_player=cards, timer=timer
    )
    session = services.session_create(
        facilitator=site.teacher_user, game="znajznak", variant=variant, setup=setup, assets=assets
    )
    for login in site.students[:2]:
        services.session_join(session=session, user=User.objects.get(username=login.username))
    return services.session_start(session=session, by=site.teacher_user)


def student_page(browsing: Any, site: Any, index: int, *, phone: bool = False, **options: Any) -> Any:
    page = browsing.new_phone_page(**options) if phone else browsing.new_page(**options)
    login = site.students[index]
    sign_in(page, site.url, login.username, login.password)
    return page


def own_buttons(page: Any) -> Any:
    return page.locator('section[aria-labelledby="own-card"] button.symbol')


def test_note_c_the_timer_counts_down_and_ends_the_game_for_everyone_without_a_click(
    browsing, demo_users_site
):
    site = demo_users_site
    projector = browsing.new_page()
    sign_in(projector, site.url, site.teacher.username, site.teacher.password)
    pages = [student_page(browsing, site, 0), student_page(browsing, site, 1, phone=True)]
    session = duel_from_deck(site, timer=12)
    for page in (projector, *pages):
        open_page(page, f"{site.url}/games/sessions/{session.pk}/")
        expect(page.locator("#timer")).to_be_visible()
        expect(page.locator("#timer-clock")).to_have_text(re.compile(r"^0:(0\d|1[0-2])$"))
    assert_accessible(browsing, pages[1], "player page with the timer (phone)")
    assert scroll_width(pages[1]) <= PHONE_WIDTH

    # Nobody plays: when the time is up the server ends the game, fewest cards win.
    for page in (projector, *pages):
        expect(page.locator(".outcome")).to_contain_text("Time is up.", timeout=20_000)
        expect(page.locator("#timer")).to_be_hidden()
    expect(pages[0].locator("#announce")).to_contain_text("Time is up.")
    session.refresh_from_db()
    assert session.status == "finished"
    assert [a.action for a in session.actions.all()] == [{"type": "time_up"}]
    assert_accessible(browsing, projector, "projector, time is up")
    for page in (projector, *pages):
        assert not page_problems(browsing, page)


def test_the_card_face_of_a_built_deck_is_round_with_pictures_at_their_places_and_playable_by_touch_and_keys(
    browsing, demo_users_site
):
    from games.engines import znajznak

    site = demo_users_site
    session = duel_from_deck(site)
    phone = student_page(browsing, site, 0, phone=True)
    open_page(phone, f"{site.url}/games/sessions/{session.pk}/")
    face = phone.locator('section[aria-labelledby="own-card"] ul.symbols.face.round')
    expect(face).to_be_visible()
    expect(own_buttons(phone)).to_have_count(4)

    # Round, and every picture inside the circle at the size the layout gives it.
    box = face.bounding_box()
    assert box is not None and abs(box["width"] - box["height"]) < 2
    sizes = []
    for button in own_buttons(phone).all():
        b = button.bounding_box()
        assert b is not None
        cx, cy = b["x"] + b["width"] / 2 - box["x"], b["y"] + b["height"] / 2 - box["y"]
        r = box["width"] / 2
        assert ((cx - r) ** 2 + (cy - r) ** 2) ** 0.5 + b["width"] / 2 <= r + 2
        sizes.append(round(b["width"]))
    assert len(set(sizes)) > 1, "the pictures keep the layout's different sizes"
    assert not phone.eval_on_selector_all("main button, main a, main input", SMALL_TARGETS)
    assert scroll_width(phone) <= PHONE_WIDTH
    assert_accessible(browsing, phone, "player page with card faces (phone)")

    # By keyboard: Tab to the common symbol on the own card and press Enter to say STOP.
    session.refresh_from_db()
    key = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    target = phone.locator(
        f'section[aria-labelledby="own-card"] button.symbol:has(img[src$="/pictures/{key}"])'
    )
    for _ in range(40):
        if target.evaluate("el => el === document.activeElement"):
            break
        phone.keyboard.press("Tab")
    else:
        raise AssertionError("Tab never reached the common symbol")
    outline = target.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none", "the focused symbol shows where the focus is"
    phone.keyboard.press("Enter")
    expect(phone.get_by_label("Name the symbol you pointed at")).to_be_focused()
    assert not page_problems(browsing, phone)


def test_a_game_from_a_symbol_set_keeps_the_grid(browsing, demo_users_site):
    from games import services
    from lms.models import User

    site = demo_users_site
    setup = {
        "cards": [["001", "002", "003"], ["001", "004", "005"], ["001", "006", "007"], ["002", "004", "006"],
                  ["002", "005", "007"], ["003", "004", "007"], ["003", "005", "006"]],
        "names": {f"00{n}": {"name": f"Symbol {n}"} for n in range(1, 8)},
        "cards_per_player": 2,
    }  # fmt: skip
    session = services.session_create(
        facilitator=site.teacher_user, game="znajznak", variant="duel", setup=setup
    )
    for login in site.students[:2]:
        services.session_join(session=session, user=User.objects.get(username=login.username))
    services.session_start(session=session, by=site.teacher_user)
    page = student_page(browsing, site, 0)
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")

    expect(own_buttons(page)).to_have_count(3)
    assert page.locator("ul.symbols.face").count() == 0
    assert not page_problems(browsing, page)


def test_the_facilitator_puts_the_players_in_age_order_on_a_phone(browsing, demo_users_site):
    from games import services
    from games.models import Participant
    from games.play.znajznak.services import znajznak_setup_from_deck
    from lms.models import User

    site = demo_users_site
    session = services.session_create(
        facilitator=site.teacher_user,
        game="znajznak",
        variant="warm_up",
        setup=znajznak_setup_from_deck(deck=built_deck(site.teacher_user))[0],
    )
    players = [
        services.session_join(session=session, user=User.objects.get(username=login.username))
        for login in site.students[:2]
    ]
    teacher = browsing.new_phone_page()
    sign_in(teacher, site.url, site.teacher.username, site.teacher.password)
    open_page(teacher, f"{site.url}/games/sessions/{session.pk}/")
    teacher.get_by_role("link", name=re.compile("Who is the youngest")).click()
    expect(teacher.get_by_role("heading", name="Who is the youngest?")).to_be_visible()
    assert_accessible(browsing, teacher, "age order (phone)")
    assert scroll_width(teacher) <= PHONE_WIDTH
    assert not teacher.eval_on_selector_all("main button, main a, main select", SMALL_TARGETS)

    teacher.get_by_label(players[0].nickname).select_option("2")
    teacher.get_by_label(players[1].nickname).select_option("1")
    teacher.get_by_role("button", name="Save the age order").tap()
    expect(teacher.get_by_text("The age order is saved.")).to_be_visible()
    assert list(
        Participant.objects.filter(pk__in=[p.pk for p in players])
        .order_by("joined_at")
        .values_list("age_rank", flat=True)
    ) == [2, 1]
    assert not page_problems(browsing, teacher)


def test_the_polish_game_page_shows_the_scripts_strings_in_polish(browsing, demo_users_site):
    site = demo_users_site
    session = duel_from_deck(site, timer=600)
    page = student_page(browsing, site, 0, locale="pl-PL")
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")

    # Drawn by static/games/znajznak.js and live.js, translated through the JavaScript catalogue.
    expect(page.locator("#own-card")).to_have_text("Twoja karta")
    expect(page.locator(".status-line")).to_have_text(
        "Znajdź symbol, który jest na obu kartach, i naciśnij go, by powiedzieć STOP."
    )
    expect(page.locator("#connection")).to_have_text(re.compile("Odświeżanie co 2 sekundy|Na żywo"))
    expect(page.locator("#timer-clock")).to_have_attribute("aria-label", re.compile(r"^zostało \d+:\d\d$"))
    alt = page.locator('section[aria-labelledby="own-card"] img').first.get_attribute("alt")
    assert alt is not None and alt.startswith("Symbol 1 z 4")
    assert_accessible(browsing, page, "Polish player page")


def test_a_count_of_cards_in_hand_takes_its_plural_form_in_english_and_in_polish(browsing, demo_users_site):
    site = demo_users_site
    session = duel_from_deck(site, timer=600, cards=2)  # one card on the table, one in hand
    english = student_page(browsing, site, 0)
    open_page(english, f"{site.url}/games/sessions/{session.pk}/")
    counts = english.locator(".counts li")
    expect(counts.first).to_have_text("You: 1 card in hand")
    expect(counts.last).to_have_text(re.compile(r": 1 card in hand$"))
    polish = student_page(browsing, site, 1, locale="pl-PL")
    open_page(polish, f"{site.url}/games/sessions/{session.pk}/")
    expect(polish.locator(".counts li").first).to_have_text(re.compile(r": 1 karta w ręce$"))
    for page in (english, polish):
        assert not page_problems(browsing, page)
