"""The one code space (``games.lobby``): a code opens one thing at a time, for every kind."""

from __future__ import annotations

import importlib
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, connections, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import lobby
from games.models import GameSession, JoinCode
from games.play.znajznak.practice import practice_assignment_create
from games.quiz.models import Quiz
from games.quiz.services import quiz_create_imported
from games.workshop.models import Workshop
from games.workshop.services import workshop_close, workshop_create
from lms.classes.services import class_create, class_update
from tests.factories import UserFactory
from tests.games.test_practice import small_deck
from tests.games.test_sessions import create_session, duel, play_to_the_end, signed_in  # noqa: F401

pytestmark = pytest.mark.django_db


def draws(monkeypatch: Any, *codes: str) -> None:
    """The next codes drawn are ``codes``, then random ones."""
    queue = list(codes)
    real = lobby.code_draw
    monkeypatch.setattr(lobby, "code_draw", lambda: queue.pop(0) if queue else real())


def quiz_made(owner: Any, *, published: bool) -> Quiz:
    quiz = quiz_create_imported(
        owner=owner, uid=uuid.uuid4(), title="Q", source="selection", source_description="", seed=1,
        options={}, pool={}, items=[],
    )  # fmt: skip
    if published:
        Quiz.objects.filter(pk=quiz.pk).update(status=Quiz.Status.PUBLISHED)
    return quiz


def live_claims(code: str) -> list[tuple[str, int]]:
    return list(JoinCode.objects.filter(code=code, released=None).values_list("kind", "object_id"))


# --- one code, one thing ------------------------------------------------------------------------


def test_no_code_opens_two_things_whatever_their_kinds(teacher, monkeypatch):
    draws(monkeypatch, "AAAAAA", "AAAAAA", "BBBBBB", "AAAAAA", "CCCCCC", "AAAAAA", "DDDDDD")
    session = create_session(teacher)
    workshop = workshop_create(teacher=teacher)  # drew AAAAAA, the session's: drew again
    school_class = class_create(teacher=teacher, name="3b")
    quiz = quiz_made(teacher, published=False)

    assert session.join_code == "AAAAAA"
    assert (workshop.join_code, school_class.join_code, quiz.code) == ("BBBBBB", "CCCCCC", "DDDDDD")
    assert live_claims("AAAAAA") == [("session", session.pk)]
    # The object's column is its copy of the claimed code.
    workshop.refresh_from_db()
    assert workshop.join_code == "BBBBBB"


def test_the_database_refuses_a_second_live_claim_of_a_code(teacher):
    session = create_session(teacher)
    with pytest.raises(IntegrityError), transaction.atomic():
        JoinCode.objects.create(code=session.join_code, kind="workshop", object_id=1)


def test_an_object_holds_one_code_a_renewed_one_releases_the_old(teacher):
    workshop = workshop_create(teacher=teacher)
    old = workshop.join_code

    new = lobby.code_claim(kind="workshop", obj=workshop)

    assert new != old and lobby.code_resolve(old) is None
    assert lobby.code_resolve(new).obj == workshop


# --- released codes ------------------------------------------------------------------------------


def test_a_finished_sessions_code_can_be_claimed_again(duel, monkeypatch):  # noqa: F811
    code = duel.session.join_code
    play_to_the_end(duel)
    assert duel.session.status == GameSession.Status.FINISHED
    assert lobby.code_resolve(code) is None and live_claims(code) == []

    draws(monkeypatch, code)
    workshop = workshop_create(teacher=duel.teacher)
    assert workshop.join_code == code and lobby.code_resolve(code).obj == workshop


def test_a_code_held_by_a_game_that_ended_without_releasing_it_is_taken_over(teacher, monkeypatch):
    """The live fast path may end a guests' game without the service that releases codes."""
    session = create_session(teacher)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)

    draws(monkeypatch, session.join_code)
    workshop = workshop_create(teacher=teacher)

    assert workshop.join_code == session.join_code
    assert live_claims(session.join_code) == [("workshop", workshop.pk)]


def test_a_closed_workshops_and_an_archived_classs_codes_are_released(teacher):
    workshop = workshop_create(teacher=teacher)
    school_class = class_create(teacher=teacher, name="3b")

    workshop_close(workshop=workshop, by=teacher)
    class_update(school_class=school_class, by=teacher, archived=True)

    assert live_claims(workshop.join_code) == [] and live_claims(school_class.join_code) == []


def test_a_class_brought_back_keeps_its_code_when_it_is_free(teacher):
    school_class = class_create(teacher=teacher, name="3b")
    class_update(school_class=school_class, by=teacher, archived=True)

    restored = class_update(school_class=school_class, by=teacher, archived=False)

    assert restored.join_code == school_class.join_code
    assert live_claims(restored.join_code) == [("class", school_class.pk)]


# --- claims at the same moment -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_claims_of_one_code_at_the_same_moment_leave_one_winner():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite writes one transaction at a time: there is no race to lose")
    leader = UserFactory()
    first, second = (Workshop.objects.create(teacher=leader, seed=n) for n in (1, 2))
    drawn_here = threading.local()
    real_draw = lobby.code_draw

    def draw() -> str:
        # Each claim draws AAAAAA first, then whatever comes.
        if not getattr(drawn_here, "once", False):
            drawn_here.once = True
            return "AAAAAA"
        return real_draw()

    inserted = threading.Event()
    won: dict[int, str] = {}
    failed: list[BaseException] = []

    def claim(workshop: Workshop, *, hold: bool) -> None:
        try:
            with transaction.atomic():
                won[workshop.pk] = lobby.code_claim(kind="workshop", obj=workshop)
                if hold:
                    # The second claim inserts AAAAAA now and waits on the unique index.
                    inserted.set()
                    time.sleep(0.5)
        except BaseException as error:  # the test thread reports it
            failed.append(error)
        finally:
            connections.close_all()

    lobby.code_draw = draw
    try:
        holder = threading.Thread(target=claim, args=(first,), kwargs={"hold": True})
        holder.start()
        assert inserted.wait(10)
        latecomer = threading.Thread(target=claim, args=(second,), kwargs={"hold": False})
        latecomer.start()
        holder.join()
        latecomer.join()
    finally:
        lobby.code_draw = real_draw

    assert failed == []
    assert won[first.pk] == "AAAAAA" and won[second.pk] != "AAAAAA"
    assert live_claims("AAAAAA") == [("workshop", first.pk)]
    assert Workshop.objects.get(pk=second.pk).join_code == won[second.pk]


# --- the join entry -------------------------------------------------------------------------------


def test_the_join_entry_opens_what_each_kind_of_code_was_claimed_for(teacher, student):
    session = create_session(teacher)
    practice = practice_assignment_create(owner=teacher, title="P", deck=small_deck(teacher))
    quiz = quiz_made(teacher, published=True)
    workshop = workshop_create(teacher=teacher)
    school_class = class_create(teacher=teacher, name="3b")
    client = signed_in(student)

    def join(code: str) -> Any:
        return client.get(reverse("games:join_code", args=[code]))

    response = join(session.join_code)
    assert response.status_code == 200 and response.context["session"] == session
    assert join(practice.code).url == reverse("games:practice", args=[practice.code])
    assert join(quiz.code).url == reverse("quiz:take", args=[quiz.code])
    assert join(workshop.join_code).url == reverse("workshop:join_code", args=[workshop.join_code])
    assert join(school_class.join_code).url == reverse("lms:join_code", args=[school_class.join_code])
    # Typed as people type it: lower case, with a dash.
    typed = f"{workshop.join_code[:3].lower()}-{workshop.join_code[3:]}"
    assert join(typed).url == reverse("games:join_code", args=[workshop.join_code])


def test_the_join_entry_answers_an_unpublished_quiz_and_an_ended_workshop_as_unknown(teacher, student):
    draft = quiz_made(teacher, published=False)
    workshop = workshop_create(teacher=teacher)
    workshop_close(workshop=workshop, by=teacher)
    client = signed_in(student)

    for code in (draft.code, workshop.join_code, "QQQQQQ"):
        page = client.get(reverse("games:join_code", args=[code]))
        assert page.status_code == 404
        # The entry opens every kind, so its message names them all, not games alone.
        assert (
            f"Nothing open has the code {code}: no game, practice, quiz, workshop or class."
            in page.content.decode()
        )


# --- the codes that existed before the code space -----------------------------------------------


def test_the_migration_claims_existing_codes_and_the_oldest_keeps_a_shared_one(teacher):
    """games 0009 and lms 0007 claim what is open; where two hold one code, the oldest keeps it."""
    JoinCode.objects.all().delete()
    now = timezone.now()
    workshop = workshop_create(teacher=teacher)
    session = create_session(teacher)
    finished = create_session(teacher)
    school_class = class_create(teacher=teacher, name="3b")
    quiz = quiz_made(teacher, published=True)
    archived = class_create(teacher=teacher, name="old")
    JoinCode.objects.all().delete()  # as before the code space
    rows = [
        (workshop, "AAAAAA", 3),  # the oldest of the two with AAAAAA
        (session, "AAAAAA", 2),
        (finished, "CCCCCC", 9),
        (school_class, "BBBBBB", 5),  # the oldest of the two with BBBBBB
        (quiz, "BBBBBB", 1),
        (archived, "AAAAAA", 10),
    ]
    for obj, code, days_ago in rows:
        field = "code" if isinstance(obj, Quiz) else "join_code"
        type(obj).objects.filter(pk=obj.pk).update(**{field: code, "created": now - timedelta(days=days_ago)})
    GameSession.objects.filter(pk=finished.pk).update(status=GameSession.Status.FINISHED)
    type(archived).objects.filter(pk=archived.pk).update(archived=True)

    importlib.import_module("games.migrations.0009_join_codes_claim_existing").claim_existing(apps, None)
    importlib.import_module("lms.migrations.0007_class_code_from_code_space").claim_existing(apps, None)

    for obj in (workshop, session, school_class, quiz, finished, archived):
        obj.refresh_from_db()
    assert workshop.join_code == "AAAAAA" and school_class.join_code == "BBBBBB"
    assert session.join_code not in ("AAAAAA", "BBBBBB") and quiz.code not in ("AAAAAA", "BBBBBB")
    assert lobby.code_resolve("AAAAAA").obj == workshop
    assert lobby.code_resolve("BBBBBB").obj == school_class
    assert lobby.code_resolve(session.join_code).obj == session
    assert lobby.code_resolve(quiz.code).obj == quiz
    # A finished session and an archived class claim nothing.
    assert JoinCode.objects.filter(released=None).count() == 4
    assert lobby.code_resolve("CCCCCC") is None


# --- joining a lobby: sessions and workshops alike ------------------------------------------------


def test_a_guests_nickname_follows_one_set_of_rules_in_a_game_and_a_workshop(teacher):
    session = create_session(teacher, allow_guests=True)
    workshop = workshop_create(teacher=teacher, allow_guests=True)
    pages = [
        (reverse("games:join_code", args=[session.join_code]), "game"),
        (reverse("workshop:join_code", args=[workshop.join_code]), "workshop"),
    ]
    for url, word in pages:
        assert Client().post(url, {"nickname": "x" * 25}).status_code == 400  # the form's limit
        refused = Client().post(url, {"nickname": "<b>"})
        assert refused.status_code == 400
        assert "cannot contain" in refused.context["error"]
        assert Client().post(url, {"nickname": "Kuba"}).status_code == 302
        taken = Client().post(url, {"nickname": "KUBA"})
        assert taken.context["error"] == f"Someone in this {word} already uses that nickname."
