"""Student accounts without an LMS, in chromium, as the teacher and the students do it:

- a teacher creates a class of 25 from a pasted list and gets the login cards (page and
  PDF); one student signs in from a card's QR link, another with the card's username and
  one-time password; each chooses a password and sees the class;
- a student without an account makes one with the class code and waits until the
  teacher lets them in;
- a co-teacher publishes the owner's quiz and opens the owner's game as its facilitator.

axe (WCAG 2.2 AA) checks every new page, and the students' pages and the cards are
checked on a 360-px phone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from games import services as game_services
from games.models import GameSession
from games.quiz.models import Quiz
from lms.classes import services as class_services
from lms.models import ClassMember, LoginCard, SchoolClass
from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_homework import assert_accessible, assert_fits_a_phone
from tests.e2e.test_znajznak_duel import page_problems
from tests.factories import TeacherFactory, UserFactory
from tests.games.test_sessions import create_session
from tests.lms.factories_classes import knowledge_quiz

pytestmark = pytest.mark.e2e

NAMES = [f"Uczeń{n} Klasowy" for n in range(1, 26)]


def choose_password(browsing: Any, phone: Any, password: str, where: str) -> None:
    expect(phone.get_by_role("heading", level=1)).to_have_text("Choose your password")
    assert_accessible(browsing, phone, f"choose your password ({where})")
    assert_fits_a_phone(phone, f"choose your password ({where})")
    phone.get_by_label("Password", exact=True).fill(password)
    phone.get_by_label("The password again").fill(password)
    with phone.expect_navigation():
        phone.get_by_role("button", name="Save my password").click()


def test_a_class_of_25_from_a_pasted_list_signs_in_from_its_printed_cards(
    browsing, teacher_page, demo_site, tmp_path: Path
):
    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/classes/new")
    assert_accessible(browsing, teacher, "create a class (with a list)")
    teacher.get_by_label("Class name").fill("3b Historia")
    # Pasted from a spreadsheet: numbered, with a stray empty line.
    pasted = "\n".join(f"{n}. {name}" for n, name in enumerate(NAMES, start=1)).replace("\n5.", "\n\n5.")
    teacher.get_by_label("Students, one a line (optional)").fill(pasted)
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Create the class").click()

    school_class = SchoolClass.objects.get(teacher=demo_site.teacher_user)
    expect(teacher.get_by_role("heading", level=1)).to_have_text("Login cards")
    expect(teacher.locator(".messages")).to_contain_text("The class is made with 25 students.")
    cards = teacher.locator(".login-card")
    expect(cards).to_have_count(25)
    assert_accessible(browsing, teacher, "login cards")

    # The PDF to print.
    with teacher.expect_download() as download_info:
        teacher.get_by_role("link", name="Download the cards (PDF)").click()
    pdf = tmp_path / "cards.pdf"
    download_info.value.save_as(pdf)
    assert pdf.read_bytes().startswith(b"%PDF")
    browsing.problems(teacher)

    # What two cards say, as the teacher hands them out.
    first, second = cards.nth(0), cards.nth(1)
    link = first.locator(".card-link").get_attribute("href")
    username = second.locator(".card-username").inner_text()
    password = second.locator(".card-password").inner_text()
    first_name = first.locator(".card-name").inner_text()

    # The cards page on the teacher's phone.
    teacher_phone = browsing.new_phone_page()
    sign_in(teacher_phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    open_page(teacher_phone, f"{demo_site.url}/classes/{school_class.pk}/cards")
    assert_fits_a_phone(teacher_phone, "login cards")
    assert_accessible(browsing, teacher_phone, "login cards (phone)")
    open_page(teacher_phone, f"{demo_site.url}/classes/{school_class.pk}/students/new")
    assert_fits_a_phone(teacher_phone, "add students from a list")
    assert_accessible(browsing, teacher_phone, "add students from a list (phone)")

    # A student scans the first card's QR code: asked once, signed in, a password chosen.
    phone = browsing.new_phone_page()
    open_page(phone, link)
    expect(phone.get_by_role("heading", level=1)).to_have_text(f"Hello, {first_name}!")
    assert_accessible(browsing, phone, "sign in with your card")
    assert_fits_a_phone(phone, "sign in with your card")
    # By keyboard, as on a phone's keyboard or a switch.
    phone.get_by_role("button", name="Sign me in").focus()
    with phone.expect_navigation():
        phone.keyboard.press("Enter")
    choose_password(browsing, phone, "Zamek nad Wisłą 7", "QR link")
    expect(phone.get_by_role("heading", level=1)).to_have_text("My classes")
    expect(phone.locator("main")).to_contain_text("3b Historia")
    assert_accessible(browsing, phone, "my classes after the card")

    # The link works once: scanned again (another phone), it says so and signs nobody in.
    again = browsing.new_phone_page()
    again.goto(link)
    expect(again.get_by_role("heading", level=1)).to_have_text("This link does not sign you in")
    spent = browsing.problems(again)
    assert spent and all("410" in problem and link in problem for problem in spent), spent
    assert_accessible(browsing, again, "a spent card link")
    assert_fits_a_phone(again, "a spent card link")

    # Another student types the username and one-time password from the card.
    other = browsing.new_phone_page()
    open_page(other, f"{demo_site.url}/accounts/login/")
    assert_accessible(browsing, other, "sign in (phone)")
    assert_fits_a_phone(other, "sign in")
    other.get_by_label("Username").fill(username)
    other.get_by_label("Password").fill(password)
    with other.expect_navigation():
        other.locator("main form button[type=submit]").click()
    open_page(other, f"{demo_site.url}/classes/homework/")  # every page leads to the password first
    choose_password(browsing, other, "Zamek nad Odrą 8", "username and password")
    expect(other.locator("main")).to_contain_text("3b Historia")

    assert LoginCard.objects.filter(school_class=school_class, closed_at__isnull=False).count() == 2

    # The teacher's dashboard tells who has not chosen a password yet.
    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/")
    teacher.get_by_text("Students, login cards, co-teachers").click()
    expect(teacher.locator(".members .meta", has_text="has not chosen a password yet")).to_have_count(23)
    assert_accessible(browsing, teacher, "class dashboard with students from a list")


def test_a_student_makes_an_account_with_the_class_code_and_the_teacher_lets_them_in(
    browsing, teacher_page, demo_site
):
    school_class = class_services.class_create(teacher=demo_site.teacher_user, name="4a Historia")

    phone = browsing.new_phone_page()
    open_page(phone, f"{demo_site.url}/classes/join/{school_class.join_code}")
    assert_accessible(browsing, phone, "join a class (signed out)")
    assert_fits_a_phone(phone, "join a class (signed out)")
    with phone.expect_navigation():
        phone.get_by_role("link", name="Make my account").click()
    assert_accessible(browsing, phone, "make my account")
    assert_fits_a_phone(phone, "make my account")
    expect(phone.get_by_label("Class code")).to_have_value(school_class.join_code)
    phone.get_by_label("Your name").fill("Ola L.")
    phone.get_by_label("Username").fill("ola.l")
    phone.get_by_label("Password", exact=True).fill("Zamek nad Wisłą 7")
    phone.get_by_label("The password again").fill("Zamek nad Wisłą 7")
    with phone.expect_navigation():
        phone.keyboard.press("Enter")  # sends the form from its last field
    expect(phone.get_by_role("heading", name="Waiting for your teacher")).to_be_visible()
    expect(phone.locator("main")).to_contain_text("4a Historia")
    assert_accessible(browsing, phone, "waiting for the teacher")
    assert_fits_a_phone(phone, "waiting for the teacher")

    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/")
    expect(teacher.get_by_role("heading", name="1 student waits for you to let them in")).to_be_visible()
    assert_accessible(browsing, teacher, "class dashboard with a student waiting")
    teacher.get_by_role("button", name="Let ola.l in").focus()
    with teacher.expect_navigation():
        teacher.keyboard.press("Enter")
    expect(teacher.locator(".messages")).to_contain_text("Ola L. is in the class.")
    assert ClassMember.objects.get(user__username="ola.l").role == "student"

    open_page(phone, f"{demo_site.url}/classes/")
    expect(phone.get_by_role("heading", name="Waiting for your teacher")).to_have_count(0)
    expect(phone.locator("main")).to_contain_text("4a Historia")

    # The teacher's pages on a phone.
    teacher_phone = browsing.new_phone_page()
    sign_in(teacher_phone, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    for path in (f"/classes/{school_class.pk}/", "/classes/new"):
        open_page(teacher_phone, f"{demo_site.url}{path}")
        assert_fits_a_phone(teacher_phone, path)
        assert_accessible(browsing, teacher_phone, f"{path} (phone)")


def test_a_co_teacher_publishes_the_owners_quiz_and_opens_the_owners_game(browsing, teacher_page, demo_site):
    owner = demo_site.teacher_user
    school_class = class_services.class_create(teacher=owner, name="3b Historia")
    TeacherFactory(username="wspolpracownik", first_name="Ewa", last_name="Nowak")
    quiz = knowledge_quiz(owner)
    Quiz.objects.filter(pk=quiz.pk).update(status=Quiz.Status.DRAFT, published_at=None)
    session = create_session(owner)

    # The owner adds the co-teacher on the class page.
    teacher = teacher_page
    open_page(teacher, f"{demo_site.url}/classes/{school_class.pk}/")
    teacher.get_by_text("Students, login cards, co-teachers").click()
    teacher.get_by_label("Co-teacher's username").fill("wspolpracownik")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Add the co-teacher").click()
    expect(teacher.locator(".messages")).to_contain_text("Ewa Nowak now co-teaches this class.")

    co = browsing.new_page()
    sign_in(co, demo_site.url, "wspolpracownik", "pass-word-123")
    open_page(co, f"{demo_site.url}/games/quizzes/")
    with co.expect_navigation():
        co.get_by_role("link", name=quiz.title).click()
    with co.expect_navigation():
        co.get_by_role("button", name="Publish").click()
    expect(co.get_by_role("heading", name="Students take it here")).to_be_visible()
    quiz.refresh_from_db()
    assert quiz.status == Quiz.Status.PUBLISHED

    open_page(co, f"{demo_site.url}/games/sessions/new")
    with co.expect_navigation():
        co.get_by_role("link", name=f"· {session.join_code} ·").click()
    expect(co.locator("main")).to_contain_text(session.join_code)
    # The players join; the co-teacher starts the game as its facilitator.
    for player in (UserFactory(), UserFactory()):
        game_services.session_join(session=session, user=player)
    with co.expect_navigation():
        co.get_by_role("button", name="Start the game").click()
    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    co.close()
    assert not page_problems(browsing, co)  # the WSGI live server refuses the WebSocket: benign

    # Another teacher, teaching nothing with them, gets 404 on both.
    stranger = browsing.new_page()
    TeacherFactory(username="obcy")
    sign_in(stranger, demo_site.url, "obcy", "pass-word-123")
    for path in (f"/games/quizzes/{quiz.pk}/", f"/classes/{school_class.pk}/"):
        response = stranger.goto(f"{demo_site.url}{path}")
        assert response is not None and response.status == 404
    refused = browsing.problems(stranger)
    assert refused and all("404" in problem for problem in refused), refused
