"""Limits on guessing (config/limits.py): sign-in lockout with backoff, wrong join codes, the 429 page.

The counters live in the cache, which tests/conftest.py empties before every test; the
sign-in lockouts are django-axes's rows, rolled back with the database. Every test
client comes from 127.0.0.1: one school behind one address.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from config import limits
from games.models import GameSession
from games.workshop import services as workshop_services
from games.workshop.models import Workshop
from lms.classes import services as class_services
from lms.models import ClassMember
from tests.factories import UserFactory
from tests.games.test_sessions import create_session

PASSWORD = "correct horse 42"


@pytest.fixture
def person(db):
    user = UserFactory(username="ola")
    user.set_password(PASSWORD)
    user.save()
    return user


def sign_in(client: Client, password: str, *, url: str = "/accounts/login/", username: str = "ola") -> Any:
    return client.post(url, {"username": username, "password": password})


def signed_in(response: Any) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.client.session


def time_passes(seconds: int) -> None:
    """As if ``seconds`` went by since the failures axes recorded."""
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= timedelta(seconds=seconds)
        attempt.save(update_fields=["attempt_time"])


def retry_after(response: Any) -> int:
    assert response.status_code == 429, response.status_code
    return int(response["Retry-After"])


# --- signing in -----------------------------------------------------------------------------------


def test_thirty_wrong_passwords_lock_the_account_and_the_right_one_is_then_refused_with_when(person):
    client = Client()
    answers = [sign_in(client, f"wrong {n}").status_code for n in range(30)]
    # Four wrong passwords are answered by the form; the fifth locks, and what follows
    # during the lockout is refused without looking at the password.
    assert answers[:4] == [200] * 4 and set(answers[4:]) == {429}

    right = sign_in(client, PASSWORD)
    assert not signed_in(right)
    wait = retry_after(right)
    assert 50 <= wait <= 60
    page = right.content.decode()
    said = "1 minute" if wait == 60 else f"{wait} seconds"
    assert "Too many tries" in page and re.search(rf"Try again in {said} \(at \d\d:\d\d\)\.", page)
    # Tries during the lockout did not count: still the first lockout's five failures.
    assert sum(a.failures_since_start for a in AccessAttempt.objects.all()) == 5


def test_each_failure_after_a_lockout_doubles_it_and_the_right_password_then_signs_in(person):
    client = Client()
    for n in range(5):
        sign_in(client, f"wrong {n}")
    assert 50 <= retry_after(sign_in(client, PASSWORD)) <= 60

    time_passes(61)
    assert 110 <= retry_after(sign_in(client, "wrong again")) <= 120  # the 6th failure: 2 minutes
    time_passes(121)
    assert 230 <= retry_after(sign_in(client, "wrong again")) <= 240  # the 7th: 4 minutes
    assert retry_after(sign_in(client, PASSWORD)) > 200

    time_passes(241)
    assert signed_in(sign_in(client, PASSWORD))
    assert not AccessAttempt.objects.exists()  # a success forgets the failures


def test_the_backoff_stops_at_its_longest(settings):
    assert limits.signin_backoff(4, 5) == timedelta(0)
    assert limits.signin_backoff(5, 5) == timedelta(seconds=60)
    assert limits.signin_backoff(8, 5) == timedelta(seconds=480)
    assert limits.signin_backoff(40, 5) == timedelta(seconds=settings.LIMIT_SIGNIN_LOCKOUT_MAX)


def test_the_admin_login_is_locked_as_well(person):
    person.is_staff = True
    person.save()
    client = Client()
    for n in range(5):
        sign_in(client, f"wrong {n}", url="/admin/login/")
    refused = sign_in(client, PASSWORD, url="/admin/login/")
    assert refused.status_code == 429 and "Retry-After" in refused
    # The lockout is the account's from this address, whichever form it came through.
    assert sign_in(client, PASSWORD).status_code == 429


def test_a_lockout_holds_one_account_from_one_address(person):
    other = UserFactory(username="kuba")
    other.set_password(PASSWORD)
    other.save()
    for n in range(5):
        sign_in(Client(), f"wrong {n}")
    assert sign_in(Client(), PASSWORD).status_code == 429
    # A classmate behind the same address, and the same account from home, still sign in.
    assert signed_in(sign_in(Client(), PASSWORD, username="kuba"))
    assert signed_in(
        Client(REMOTE_ADDR="198.51.100.7").post("/accounts/login/", {"username": "ola", "password": PASSWORD})
    )


def classmates(count: int) -> list[str]:
    names = [f"student{n:02d}" for n in range(count)]
    for name in names:
        user = UserFactory(username=name)
        user.set_password(PASSWORD)
        user.save()
    return names


def test_many_usernames_tried_from_one_address_are_capped_over_every_account(settings, person):
    settings.LIMIT_SIGNIN_ADDRESS_FAILURES = 6
    # One wrong password for each of six accounts: no account reaches its own limit of 5.
    for n in range(6):
        assert sign_in(Client(), "guess", username=f"nobody{n}").status_code == 200
    refused = sign_in(Client(), PASSWORD)  # a real account, the right password, same address
    assert retry_after(refused) <= settings.LIMIT_SIGNIN_ADDRESS_WINDOW
    assert "several accounts" in refused.content.decode()
    # The cap is the address's: the same account from elsewhere signs in.
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    assert signed_in(elsewhere.post("/accounts/login/", {"username": "ola", "password": PASSWORD}))


def test_tries_refused_by_the_address_cap_do_not_extend_it(settings, person):
    settings.LIMIT_SIGNIN_ADDRESS_FAILURES = 3
    for n in range(3):
        sign_in(Client(), "guess", username=f"nobody{n}")
    for n in range(10):
        assert sign_in(Client(), "guess", username=f"more{n}").status_code == 429
    assert not AccessAttempt.objects.filter(username__startswith="more").exists()


def test_a_class_behind_one_address_signs_in_and_its_few_typos_lock_nobody_out(settings, db):
    names = classmates(30)
    # A few mistype first (one each, as a class does), then everyone signs in within a minute.
    for name in names[:8]:
        assert sign_in(Client(), "Correct horse 42", username=name).status_code == 200
    for name in names:
        assert signed_in(sign_in(Client(), PASSWORD, username=name)), name
    # And again after the lesson's break: successes are never counted against the address.
    for name in names:
        assert signed_in(sign_in(Client(), PASSWORD, username=name)), name


def test_spraying_one_password_over_many_usernames_is_refused_at_the_default_cap(settings, person):
    limit = settings.LIMIT_SIGNIN_ADDRESS_FAILURES
    for n in range(limit):
        assert sign_in(Client(), "Summer2026!", username=f"user{n:03d}").status_code == 200, n
    refused = sign_in(Client(), "Summer2026!", username="user999")
    assert 0 < retry_after(refused) <= settings.LIMIT_SIGNIN_ADDRESS_WINDOW
    assert not AccessAttempt.objects.filter(username="user999").exists()
    # Another address is not touched, and an account's own lockout is as before there: four
    # wrong passwords are answered by the form, the fifth locks "ola" from that address.
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    answers = [
        elsewhere.post("/accounts/login/", {"username": "ola", "password": f"x{n}"}).status_code
        for n in range(settings.LIMIT_SIGNIN_FAILURES)
    ]
    assert answers == [200] * (settings.LIMIT_SIGNIN_FAILURES - 1) + [429]
    locked = elsewhere.post("/accounts/login/", {"username": "ola", "password": PASSWORD})
    assert 50 <= retry_after(locked) <= 60
    assert "for this account" in locked.content.decode()


def test_a_class_where_everyone_mistypes_and_half_twice_signs_in_under_the_default_cap(db):
    names = classmates(30)
    # 45 failures in a few minutes: more than a class makes, fewer than the cap.
    for name in names + names[:15]:
        assert sign_in(Client(), "correct horse 24", username=name).status_code == 200, name
    for name in names:
        assert signed_in(sign_in(Client(), PASSWORD, username=name)), name


def test_an_operator_lifts_a_lockout_with_axes_reset_username(person):
    for n in range(5):
        sign_in(Client(), f"wrong {n}")
    assert sign_in(Client(), PASSWORD).status_code == 429
    call_command("axes_reset_username", "ola")
    assert signed_in(sign_in(Client(), PASSWORD))


def test_the_address_behind_the_proxies_is_the_one_counted(settings, rf):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="10.9.9.9, 203.0.113.5", REMOTE_ADDR="127.0.0.1")
    settings.FORWARDED_PROXY_COUNT = 0
    assert limits.client_ip(request) == "127.0.0.1"
    settings.FORWARDED_PROXY_COUNT = 1  # what the client wrote (10.9.9.9) is not believed
    assert limits.client_ip(request) == "203.0.113.5"
    settings.FORWARDED_PROXY_COUNT = 2
    assert limits.client_ip(request) == "10.9.9.9"


# --- join codes -------------------------------------------------------------------------------------


def _error_text(response: Any) -> str:
    found = re.search(r'<p class="errors" role="alert">(.*?)</p>', response.content.decode(), re.S)
    assert found, response.content.decode()[:500]
    return " ".join(found.group(1).split())


def test_thirty_students_behind_one_address_all_join_within_a_minute(settings, teacher, student):
    settings.LIMIT_CODE_FAILURES = 5
    workshop = workshop_services.workshop_create(teacher=teacher, allow_guests=True, seed=1)
    school_class = class_services.class_create(teacher=teacher, name="3b")
    # A few typos first, under the limit: they must not cost the others anything.
    for typo in ("ABCDE2", "ABCDE3", "ABCDE4", "ABCDE5"):
        assert Client().get(f"/games/workshops/join/{typo}").status_code == 404
    for n in range(30):
        joined = Client().post(f"/games/workshops/join/{workshop.join_code}", {"nickname": f"Uczeń {n}"})
        assert joined.status_code == 302, (n, joined.status_code)
        pupil = UserFactory()
        client = Client()
        client.force_login(pupil)
        assert client.post(reverse("lms:join"), {"code": school_class.join_code}).status_code == 302
    assert workshop.participants.count() == 30
    assert ClassMember.objects.filter(school_class=school_class, role="student").count() == 30


@pytest.mark.parametrize("url", ["/games/join/{code}", "/games/workshops/join/{code}"])
def test_wrong_codes_are_refused_with_429_after_the_limit_even_the_right_one(settings, teacher, url):
    settings.LIMIT_CODE_FAILURES = 5
    workshop = workshop_services.workshop_create(teacher=teacher, allow_guests=True, seed=1)
    guesser = Client()
    answers = [guesser.get(url.format(code=f"QQQQ{n}A")).status_code for n in range(2, 8)]
    assert answers == [404] * 5 + [429]
    refused = guesser.get(f"/games/workshops/join/{workshop.join_code}")
    wait = retry_after(refused)
    assert 0 < wait <= settings.LIMIT_CODE_WINDOW
    assert "Too many codes that open nothing" in refused.content.decode()


def test_the_limit_is_shared_by_every_code_entry(settings, teacher, student):
    settings.LIMIT_CODE_FAILURES = 3
    Client().get("/games/join/QQQQQ2")
    Client().get("/games/workshops/join/QQQQQ3")
    client = Client()
    client.force_login(student)
    client.post(reverse("lms:join"), {"code": "QQQQQ4"})
    assert client.get(reverse("quiz:take", args=["QQQQQ5"])).status_code == 429
    assert client.post(reverse("lms:join"), {"code": "QQQQQ6"}).status_code == 429
    assert client.get(reverse("games:practice", args=["QQQQQ7"])).status_code == 429


def test_a_finished_game_code_answers_as_an_unknown_one(teacher):
    session = create_session(teacher)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)
    finished = Client().get(f"/games/join/{session.join_code}")
    unknown = Client().get("/games/join/QQQQQ2")
    assert finished.status_code == unknown.status_code == 404
    assert _error_text(finished).replace(session.join_code, "CODE") == _error_text(unknown).replace(
        "QQQQQ2", "CODE"
    )


def test_a_closed_workshop_code_answers_as_an_unknown_one(teacher):
    workshop = workshop_services.workshop_create(teacher=teacher, allow_guests=True, seed=1)
    Workshop.objects.filter(pk=workshop.pk).update(status=Workshop.Status.CLOSED)
    closed = Client().get(f"/games/workshops/join/{workshop.join_code}")
    unknown = Client().get("/games/workshops/join/QQQQQ2")
    assert closed.status_code == unknown.status_code == 404
    assert _error_text(closed).replace(workshop.join_code, "CODE") == _error_text(unknown).replace(
        "QQQQQ2", "CODE"
    )


def test_an_archived_class_code_answers_as_an_unknown_one_on_the_page(teacher, student):
    school_class = class_services.class_create(teacher=teacher, name="3b")
    class_services.class_update(school_class=school_class, by=teacher, archived=True)
    client = Client()
    client.force_login(student)
    archived = client.post(reverse("lms:join"), {"code": school_class.join_code})
    unknown = client.post(reverse("lms:join"), {"code": "QQQQQ2"})
    assert archived.status_code == unknown.status_code == 400

    def message(response: Any) -> str:
        found = re.search(r"No class has the code [^<]*", response.content.decode())
        assert found
        return found.group(0)

    assert message(archived).replace(school_class.join_code, "CODE") == message(unknown).replace(
        "QQQQQ2", "CODE"
    )


def test_the_429_page_speaks_the_person_s_language(settings, db):
    settings.LIMIT_CODE_FAILURES = 1
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl")
    polish.get("/games/join/QQQQQ2")
    refused = polish.get("/games/join/QQQQQ3")
    page = refused.content.decode()
    assert refused.status_code == 429 and 'lang="pl"' in page
    assert "Zbyt wiele prób" in page and re.search(r"Spróbuj ponownie za \d+ (minut|sekund)", page)
