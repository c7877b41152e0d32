"""Student accounts without an LMS (lms/accounts/): a class from a list, login cards, the
card's one-time password and QR link, the student's first password, signing up with the
class code and the teacher's approval, and who may do each."""

from __future__ import annotations

import html
import io
import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from lms import privacy
from lms.accounts import cards as card_words
from lms.accounts import services
from lms.accounts.roster import roster_parse
from lms.classes import selectors as class_selectors
from lms.classes import services as class_services
from lms.models import ClassMember, LoginCard, SchoolClass, User
from tests.factories import TeacherFactory, UserFactory
from tests.lms.factories_classes import class_with_students, practice_homework
from tests.lms.test_classes import signed_in

pytestmark = pytest.mark.django_db

NAMES_25 = "\n".join(f"Uczeń{n} Klasowy" for n in range(1, 26))


def errors_of(response: Any) -> str:
    found = re.findall(r'class="errors" role="alert">(.*?)</(?:div|span)>', response.content.decode(), re.S)
    return html.unescape(" ".join(" ".join(re.sub(r"<[^>]+>", " ", f).split()) for f in found))


def made_class(
    teacher: Any, names: str = "Anna Kowalska\nJan Nowak, jnowak"
) -> tuple[SchoolClass, list[Any]]:
    return services.class_create_with_students(teacher=teacher, name="3b", rows=roster_parse(names))


def sign_in(client: Client, username: str, password: str) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password})


def is_signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


# --- a class from a list ------------------------------------------------------------------------------


def test_a_class_of_25_from_a_pasted_list_gets_accounts_places_and_open_cards(teacher):
    response = signed_in(teacher).post(reverse("lms:class_new"), {"name": "3b Historia", "names": NAMES_25})
    school_class = SchoolClass.objects.get(teacher=teacher)
    assert response.status_code == 302 and response["Location"] == reverse(
        "lms:cards", args=[school_class.pk]
    )
    students = class_selectors.class_students(school_class)
    assert len(students) == 25
    for student in students:
        # No more data than a name: no e-mail, no password of their own yet.
        assert student.role == "student" and not student.is_staff
        assert student.email == "" and not student.has_usable_password()
        assert student.first_name.startswith("Uczeń") and student.last_name == "Klasowy"
    assert {s.username for s in students} == {f"uczen{n}.klasowy" for n in range(1, 26)}
    assert LoginCard.objects.filter(school_class=school_class, closed_at__isnull=True).count() == 25


def test_generated_usernames_step_round_the_ones_already_taken(teacher):
    UserFactory(username="anna.kowalska")
    _class, cards = made_class(teacher, "Anna Kowalska\nAnna Kowalska\nAnna Kowalska, anna.kowalska2")
    assert [c.student.username for c in cards] == ["anna.kowalska3", "anna.kowalska4", "anna.kowalska2"]


def test_a_taken_username_refuses_the_whole_list_and_nothing_is_made(teacher):
    UserFactory(username="JNowak")
    before = User.objects.count()
    with pytest.raises(services.AccountError) as refusal:
        made_class(teacher, "Anna Kowalska\nJan Nowak, jnowak\nOla Lis, ola")
    assert refusal.value.problems == [
        "Line 2: the username “jnowak” is taken; choose another or leave it empty."
    ]
    assert User.objects.count() == before
    assert not SchoolClass.objects.exists() and not LoginCard.objects.exists()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"names": "Anna Kowalska, ania\nJan Nowak, ANIA"}, "the username “ANIA” is already on line 1"),
        ({"names": "\n".join(f"Uczeń {n}" for n in range(201))}, "at most 200 students; this one has 201"),
        ({"names": "Anna Kowalska, ania, extra"}, "this one has 3 parts"),
        (
            {"csv_file": SimpleUploadedFile("lista.csv", b"email;phone\na@b.pl;123\n", "text/csv")},
            "This file's columns are: “email”, “phone”.",
        ),
        (
            {
                "names": "Anna",
                "csv_file": SimpleUploadedFile("lista.csv", b"name\nAnna\n", "text/csv"),
            },
            "Paste a list or choose a file, not both.",
        ),
    ],
)
def test_a_bad_list_is_refused_on_the_page_and_nothing_is_made(teacher, data, said):
    users = User.objects.count()
    response = signed_in(teacher).post(reverse("lms:class_new"), {"name": "3b", **data})
    assert response.status_code == 400
    assert said in errors_of(response)
    assert not SchoolClass.objects.exists() and User.objects.count() == users


def test_empty_lines_in_a_pasted_list_make_no_students(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    response = signed_in(teacher).post(
        reverse("lms:students_new", args=[school_class.pk]),
        {"names": "\n\nAnna Kowalska\n \n\nJan Nowak\n\n"},
    )
    assert response.status_code == 302
    assert [s.username for s in class_selectors.class_students(school_class)] == [
        "anna.kowalska",
        "jan.nowak",
    ]


def test_adding_students_needs_a_list(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    response = signed_in(teacher).post(
        reverse("lms:students_new", args=[school_class.pk]), {"names": "\n \n"}
    )
    assert response.status_code == 400 and "Paste the list of students" in errors_of(response)


def test_a_csv_file_adds_students_to_a_class(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    upload = SimpleUploadedFile("3b.csv", "Imię;Nazwisko;Login\nŻaneta;Łęcka;zaneta\n".encode("cp1250"))
    response = signed_in(teacher).post(
        reverse("lms:students_new", args=[school_class.pk]), {"csv_file": upload}
    )
    assert response.status_code == 302
    (student,) = class_selectors.class_students(school_class)
    assert (student.username, student.first_name, student.last_name) == ("zaneta", "Żaneta", "Łęcka")


def test_another_teacher_adds_no_students_and_sees_no_cards(teacher, other_teacher):
    school_class, _cards = made_class(teacher)
    client = signed_in(other_teacher)
    assert (
        client.post(reverse("lms:students_new", args=[school_class.pk]), {"names": "Ola"}).status_code == 404
    )
    assert client.get(reverse("lms:cards", args=[school_class.pk])).status_code == 404
    assert client.get(reverse("lms:cards_pdf", args=[school_class.pk])).status_code == 404
    student = class_selectors.class_students(school_class)[0]
    assert client.post(reverse("lms:card_new", args=[school_class.pk, student.pk])).status_code == 404
    with pytest.raises(services.ClassError):
        services.class_students_create(school_class=school_class, by=other_teacher, rows=roster_parse("Ola"))
    assert len(class_selectors.class_students(school_class)) == 2


# --- login cards --------------------------------------------------------------------------------------


def test_the_cards_page_shows_each_username_password_and_a_qr_link_to_the_teachers_only(teacher):
    school_class, cards = made_class(teacher)
    response = signed_in(teacher).get(reverse("lms:cards", args=[school_class.pk]))
    page = response.content.decode()
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    for card in cards:
        assert card.student.username in page and card_words.card_password(card) in page
        assert reverse("card_signin", args=[card_words.card_token(card)]) in page
    assert page.count("<svg") == 2


def test_the_cards_pdf_holds_every_card_eight_to_a_page(teacher):
    school_class, cards = made_class(teacher, "\n".join(f"Zofia{n} Wiśniewska-Łęcka" for n in range(9)))
    response = signed_in(teacher).get(reverse("lms:cards_pdf", args=[school_class.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages]
    assert [page.count("One-time password") for page in pages] == [8, 1]
    for card in cards:
        assert card.student.username in " ".join(pages) and card_words.card_password(card) in " ".join(pages)


def test_a_card_password_is_the_same_when_printed_again_and_differs_between_cards(teacher):
    _class, cards = made_class(teacher)
    again = LoginCard.objects.get(pk=cards[0].pk)
    assert card_words.card_password(again) == card_words.card_password(cards[0])
    assert card_words.card_password(cards[0]) != card_words.card_password(cards[1])
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", card_words.card_password(cards[0]))


def test_a_student_signs_in_with_the_cards_password_must_choose_a_password_and_the_card_closes(teacher):
    school_class, cards = made_class(teacher)
    card = cards[0]
    client = Client()
    # Typed in lower case and without the dash, as a child may.
    response = sign_in(client, card.student.username, card_words.card_password(card).lower().replace("-", ""))
    assert response.status_code == 302 and is_signed_in(client)
    # Every page leads to the password page first.
    assert client.get(reverse("lms:classes"))["Location"] == reverse("password_set")
    assert client.get(reverse("lms:homework"))["Location"] == reverse("password_set")
    weak = client.post(reverse("password_set"), {"password1": "12345678", "password2": "12345678"})
    assert weak.status_code == 400 and "entirely numeric" in errors_of(weak)
    differ = client.post(reverse("password_set"), {"password1": "Zamek nad Wisłą 7", "password2": "other"})
    assert differ.status_code == 400 and "The two passwords differ" in errors_of(differ)
    done = client.post(
        reverse("password_set"), {"password1": "Zamek nad Wisłą 7", "password2": "Zamek nad Wisłą 7"}
    )
    assert done["Location"] == reverse("lms:classes")
    page = client.get(reverse("lms:classes"))
    assert page.status_code == 200 and school_class.name in page.content.decode()
    card.refresh_from_db()
    assert card.closed_at is not None
    # The card's password is spent; the student's own works.
    assert not is_signed_in_after(card.student.username, card_words.card_password(card))
    assert is_signed_in_after(card.student.username, "Zamek nad Wisłą 7")


def is_signed_in_after(username: str, password: str) -> bool:
    client = Client()
    sign_in(client, username, password)
    return is_signed_in(client)


def test_an_expired_card_signs_nobody_in(teacher):
    _class, cards = made_class(teacher)
    LoginCard.objects.filter(pk=cards[0].pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert not is_signed_in_after(cards[0].student.username, card_words.card_password(cards[0]))
    assert is_signed_in_after(cards[1].student.username, card_words.card_password(cards[1]))


def test_a_cards_password_signs_in_only_its_own_student(teacher):
    _class, cards = made_class(teacher)
    assert not is_signed_in_after(cards[1].student.username, card_words.card_password(cards[0]))


def test_the_qr_link_asks_first_then_signs_in_once(teacher):
    _class, cards = made_class(teacher)
    card = cards[0]
    url = reverse("card_signin", args=[card_words.card_token(card)])
    client = Client()
    asked = client.get(url)
    # Opening the link (a phone's preview, a scanner app) spends nothing.
    assert asked.status_code == 200 and "Sign me in" in asked.content.decode()
    assert client.get(url).status_code == 200 and not is_signed_in(client)
    response = client.post(url)
    assert response["Location"] == reverse("password_set") and is_signed_in(client)
    card.refresh_from_db()
    assert card.link_used_at is not None
    # Single use: the same link, anywhere, does no more.
    other = Client()
    assert other.get(url).status_code == 410
    assert other.post(url).status_code == 410 and not is_signed_in(other)


def test_an_expired_or_replaced_cards_link_does_not_sign_in(teacher):
    school_class, cards = made_class(teacher)
    expired_url = reverse("card_signin", args=[card_words.card_token(cards[0])])
    LoginCard.objects.filter(pk=cards[0].pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    client = Client()
    assert client.post(expired_url).status_code == 410 and not is_signed_in(client)
    replaced_url = reverse("card_signin", args=[card_words.card_token(cards[1])])
    services.login_card_issue(school_class=school_class, student=cards[1].student, by=teacher)
    assert client.post(replaced_url).status_code == 410 and not is_signed_in(client)


def test_a_forged_link_is_not_found_and_counts_as_a_guess(settings, teacher):
    settings.LIMIT_CODE_FAILURES = 3
    _class, cards = made_class(teacher)
    good = card_words.card_token(cards[0])
    guesser = Client()
    forged = [f"{cards[0].pk}-{'0' * 32}", f"{cards[1].pk}-{good.split('-')[1]}", "x", "99999-abc"]
    answers = [guesser.get(reverse("card_signin", args=[token])).status_code for token in forged]
    assert answers == [404, 404, 404, 429]
    # Even the right link waits now: the limit is the client's.
    assert guesser.get(reverse("card_signin", args=[good])).status_code == 429


def test_a_new_card_replaces_the_students_password_and_their_old_card(teacher):
    school_class, cards = made_class(teacher)
    student = cards[0].student
    services.password_set(user=student, password="Zamek nad Wisłą 7")
    client = Client()
    sign_in(client, student.username, "Zamek nad Wisłą 7")
    assert is_signed_in(client)
    response = signed_in(teacher).post(reverse("lms:card_new", args=[school_class.pk, student.pk]))
    assert response["Location"] == reverse("lms:cards", args=[school_class.pk]) + f"?student={student.pk}"
    new = LoginCard.objects.get(student=student, closed_at__isnull=True)
    assert new.pk != cards[0].pk
    # The forgotten password and its sessions end; the new card's password works.
    assert client.get(reverse("lms:classes")).status_code == 302 and not is_signed_in(client)
    assert not is_signed_in_after(student.username, "Zamek nad Wisłą 7")
    assert is_signed_in_after(student.username, card_words.card_password(new))
    page = signed_in(teacher).get(response["Location"]).content.decode()
    assert card_words.card_password(new) in page and cards[1].student.username not in page


def test_a_new_card_is_only_for_a_student_of_the_class(teacher, other_teacher):
    school_class, cards = made_class(teacher)
    outsider = UserFactory()
    class_services.class_member_add(school_class=school_class, user=other_teacher, role="teacher", by=teacher)
    for person in (outsider, other_teacher, teacher):
        with pytest.raises(services.ClassError):
            services.login_card_issue(school_class=school_class, student=person, by=teacher)
    assert other_teacher.has_usable_password() and outsider.has_usable_password()


def test_an_lms_student_in_the_class_can_get_a_card_too(teacher, student):
    school_class = class_with_students(teacher, student)
    student.set_unusable_password()
    student.save()
    card = services.login_card_issue(school_class=school_class, student=student, by=teacher)
    assert is_signed_in_after(student.username, card_words.card_password(card))


# --- signing up with the class code -------------------------------------------------------------------


def signup(client: Client, code: str, **fields: str) -> Any:
    data = {
        "code": code,
        "name": "Ola L.",
        "username": "ola.l",
        "password1": "Zamek nad Wisłą 7",
        "password2": "Zamek nad Wisłą 7",
    }
    data.update(fields)
    return client.post(reverse("lms:signup"), data)


def test_with_approval_a_new_account_waits_until_the_teacher_lets_it_in(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    homework = practice_homework(school_class)
    client = Client()
    response = signup(client, school_class.join_code.lower())
    assert response["Location"] == reverse("lms:classes") and is_signed_in(client)
    student = User.objects.get(username="ola.l")
    assert (student.role, student.email, student.first_name, student.last_name) == (
        "student",
        "",
        "Ola",
        "L.",
    )
    assert ClassMember.objects.get(user=student).role == "pending"
    assert "your teacher has not let you in yet" in client.get(reverse("lms:classes")).content.decode()
    # Waiting is not being in the class: no homework, no gradebook row.
    assert client.get(reverse("lms:homework_detail", args=[homework.pk])).status_code == 404
    assert student not in class_selectors.class_students(school_class)
    dashboard = signed_in(teacher).get(reverse("lms:class", args=[school_class.pk])).content.decode()
    assert "1 student waits for you to let them in" in dashboard
    signed_in(teacher).post(
        reverse("lms:signup_answer", args=[school_class.pk, student.pk]), {"approve": "1"}
    )
    assert ClassMember.objects.get(user=student).role == "student"
    assert client.get(reverse("lms:homework_detail", args=[homework.pk])).status_code == 200


def test_an_open_class_lets_a_new_account_in_at_once(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    class_services.class_update(school_class=school_class, by=teacher, signup="open")
    signup(Client(), school_class.join_code)
    assert ClassMember.objects.get(user__username="ola.l").role == "student"


def test_a_closed_class_makes_no_accounts(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    class_services.class_update(school_class=school_class, by=teacher, signup="closed")
    response = signup(Client(), school_class.join_code)
    assert response.status_code == 400 and "Ask your teacher for your login card" in errors_of(response)
    assert not User.objects.filter(username="ola.l").exists()


def test_a_turned_away_account_is_erased(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    signup(Client(), school_class.join_code)
    student = User.objects.get(username="ola.l")
    signed_in(teacher).post(
        reverse("lms:signup_answer", args=[school_class.pk, student.pk]), {"approve": "0"}
    )
    assert not User.objects.filter(username="ola.l").exists()
    assert not ClassMember.objects.exists()


def test_a_turned_away_student_who_is_in_another_class_keeps_the_account(teacher, other_teacher):
    waiting_for = class_services.class_create(teacher=teacher, name="3b")
    other = class_services.class_create(teacher=other_teacher, name="4a")
    signup(Client(), waiting_for.join_code)
    student = User.objects.get(username="ola.l")
    class_services.class_join(code=other.join_code, student=student)
    services.signup_answer(school_class=waiting_for, student=student, by=teacher, approve=False)
    assert User.objects.filter(pk=student.pk).exists()
    assert list(ClassMember.objects.filter(user=student).values_list("school_class", "role")) == [
        (other.pk, "student")
    ]


def test_a_waiting_student_typing_the_code_again_still_waits(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    signup(Client(), school_class.join_code)
    student = User.objects.get(username="ola.l")
    member = class_services.class_join(code=school_class.join_code, student=student)
    assert member.role == "pending"


def test_let_them_all_in(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    for n in range(3):
        signup(Client(), school_class.join_code, username=f"ola{n}")
    signed_in(teacher).post(reverse("lms:signups_approve_all", args=[school_class.pk]))
    assert set(ClassMember.objects.values_list("role", flat=True)) == {"student"}


def test_another_teacher_lets_nobody_in(teacher, other_teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    signup(Client(), school_class.join_code)
    student = User.objects.get(username="ola.l")
    url = reverse("lms:signup_answer", args=[school_class.pk, student.pk])
    assert signed_in(other_teacher).post(url, {"approve": "1"}).status_code == 404
    assert ClassMember.objects.get(user=student).role == "pending"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"username": "OLA.L"}, "The username “OLA.L” is taken"),
        ({"username": "ola l"}, "cannot be a username"),
        (
            {"username": "konstantynopol", "password1": "Konstantynopol1", "password2": "Konstantynopol1"},
            "too similar to the username",
        ),
        ({"password1": "12345678", "password2": "12345678"}, "entirely numeric"),
        ({"password2": "something else"}, "The two passwords differ"),
        ({"name": "   "}, "This field is required"),
    ],
)
def test_a_sign_up_with_bad_input_says_what_to_change_and_makes_nothing(teacher, fields, said):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    UserFactory(username="ola.l")
    users = User.objects.count()
    response = signup(Client(), school_class.join_code, **{"username": "nowa", **fields})
    assert response.status_code == 400 and said in errors_of(response)
    assert User.objects.count() == users


def test_wrong_codes_at_sign_up_count_as_guesses(settings, teacher):
    settings.LIMIT_CODE_FAILURES = 3
    school_class = class_services.class_create(teacher=teacher, name="3b")
    guesser = Client()
    answers = [signup(guesser, f"QQQQQ{n}", username=f"ola{n}").status_code for n in range(2, 6)]
    assert answers == [400, 400, 400, 429]
    assert signup(guesser, school_class.join_code).status_code == 429
    assert not User.objects.filter(username__startswith="ola").exists()


def test_the_join_page_offers_sign_in_or_a_new_account_to_someone_signed_out(teacher):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    page = Client().get(reverse("lms:join_code", args=[school_class.join_code])).content.decode()
    assert reverse("lms:signup_code", args=[school_class.join_code]) in page
    assert reverse("login") + "?next=" in page


def test_a_co_teacher_makes_cards_and_lets_students_in_like_the_owner(teacher, other_teacher):
    school_class, cards = made_class(teacher)
    class_services.class_member_add(school_class=school_class, user=other_teacher, role="teacher", by=teacher)
    client = signed_in(other_teacher)
    assert client.get(reverse("lms:cards", args=[school_class.pk])).status_code == 200
    assert (
        client.post(reverse("lms:students_new", args=[school_class.pk]), {"names": "Ola Lis"}).status_code
        == 302
    )
    assert len(class_selectors.class_students(school_class)) == 3


def test_a_teacher_signs_in_with_their_own_password_as_before(teacher):
    # A teacher's own password never goes through the card backend.
    teacher.set_password("Nauczyciel 2026!")
    teacher.save()
    assert is_signed_in_after(teacher.username, "Nauczyciel 2026!")
    assert TeacherFactory().has_usable_password()


def test_someone_with_the_code_cannot_fill_the_waiting_list(teacher, monkeypatch):
    monkeypatch.setattr(services, "PENDING_MAX", 2)
    school_class = class_services.class_create(teacher=teacher, name="3b")
    assert [signup(Client(), school_class.join_code, username=f"ola{n}").status_code for n in range(2)] == [
        302,
        302,
    ]
    refused = signup(Client(), school_class.join_code, username="ola2")
    assert refused.status_code == 400 and "Ask them to let those in first" in errors_of(refused)
    assert not User.objects.filter(username="ola2").exists()
    # Letting them in makes room again.
    services.signups_approve_all(school_class=school_class, by=teacher)
    assert signup(Client(), school_class.join_code, username="ola2").status_code == 302


def test_a_students_data_copy_lists_their_cards_and_waiting_classes_but_no_password(teacher):
    school_class, cards = made_class(teacher)
    waiting_for = class_services.class_create(teacher=teacher, name="4a")
    student = cards[0].student
    class_services.class_member_add(school_class=waiting_for, user=student, role="pending")
    data = privacy.student_data_export(student=student)
    assert [c["name"] for c in data["classes"]] == ["3b"]
    assert [c["name"] for c in data["classes_waiting_for_approval"]] == ["4a"]
    [card] = data["login_cards"]
    assert card["class"] == "3b" and card["closed"] is None and card["qr_link_used"] is None
    assert card_words.card_password(cards[0]) not in json.dumps(data)
