"""A student's data: export (GDPR access and portability), erasure, and the audit log."""

from __future__ import annotations

import json
from typing import Any

import pytest
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from lti_tool.models import LtiRegistration, LtiUser

from games import services as game_services
from games.models import GameSession, NamingRecord, Participant
from games.quiz.models import QuizAttempt
from games.replay import session_log
from lms import privacy
from lms.classes import services
from lms.models import ClassMember, Grade, Submission
from lms.progress.models import MemoryState, Review
from lms.progress.services import memory_review
from tests.factories import AdminFactory, TeacherFactory, UserFactory
from tests.games.test_sessions import create_session, znajznak_setup
from tests.lms.factories_classes import class_with_students, knowledge_quiz, quiz_answer, quiz_homework

pytestmark = pytest.mark.django_db

NAME = ("Zuzanna", "Kowalczyk")


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def zuzanna(db: Any) -> Any:
    return UserFactory(username="zkowalczyk", first_name=NAME[0], last_name=NAME[1])


@pytest.fixture
def lesson(teacher: Any, zuzanna: Any) -> dict[str, Any]:
    """Zuzanna in a class: a graded quiz homework and a ZnajZnak game played with a classmate."""
    classmate = UserFactory(first_name="Olek", last_name="Nowak")
    school_class = class_with_students(teacher, zuzanna, classmate)
    homework = quiz_homework(school_class, knowledge_quiz(teacher))
    submission = services.submission_start(assignment=homework, student=zuzanna)
    quiz_answer(submission, right=2)
    memory_review(user=zuzanna, item_key="symbol:7", correct=1.0, source="quiz")
    session = create_session(teacher, variant="warm_up", seed=3, setup=znajznak_setup())
    for player in (zuzanna, classmate):
        game_services.session_join(session=session, user=player)
    game_services.session_start(session=session, by=teacher)
    registration = LtiRegistration.objects.create(
        name="Moodle", issuer="https://moodle.example.org", client_id="talia"
    )
    LtiUser.objects.create(
        registration=registration,
        sub="42",
        name="Zuzanna Kowalczyk",
        email="z@example.org",
        auth_user=zuzanna,
    )
    return {"class": school_class, "homework": homework, "session": session, "classmate": classmate}


def _everything_about(session: GameSession) -> str:
    session.refresh_from_db()
    actions = [record.action for record in session.actions.all()]
    participants = list(session.participants.values_list("nickname", flat=True))
    return json.dumps([session.setup, session.state, actions, participants], ensure_ascii=False)


# --- access and portability ----------------------------------------------------------------------


def test_the_export_holds_the_account_grades_answers_games_and_lms_identity(teacher, zuzanna, lesson):
    data = privacy.student_data_export(student=zuzanna)

    assert data["format"] == privacy.EXPORT_FORMAT
    assert data["account"]["username"] == "zkowalczyk" and data["account"]["last_name"] == NAME[1]
    assert [c["name"] for c in data["classes"]] == [lesson["class"].name]
    assert len(data["homework_attempts"]) == 1 and data["homework_attempts"][0]["status"] == "graded"
    grade = Grade.objects.get(student=zuzanna)
    assert data["grades"] == [
        {
            "homework": lesson["homework"].title,
            "score": float(grade.score),
            "max_score": float(grade.max_score),
            "updated": grade.updated.isoformat(),
        }
    ]
    [attempt] = data["quiz_attempts"]
    assert len(attempt["answers"]) == QuizAttempt.objects.get(student=zuzanna).responses.count() > 0
    # The item analysis's clock is hers too.
    assert all("first_answered" in answer for answer in attempt["answers"])
    assert [g["session"] for g in data["games"]] == [lesson["session"].pk]
    assert data["lms_identities"] == [
        {"platform": "https://moodle.example.org", "name": "Zuzanna Kowalczyk", "email": "z@example.org"}
    ]
    assert len(data["reviews"]) == Review.objects.filter(user=zuzanna).count()
    json.dumps(data)  # JSON as it stands


def test_the_teacher_downloads_a_students_data_and_the_audit_log_records_it(teacher, zuzanna, lesson):
    url = reverse("lms:student_data", args=[lesson["class"].pk, zuzanna.pk])

    response = signed_in(teacher).get(url)

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith(f'attachment; filename="talia-student-{zuzanna.pk}-')
    assert json.loads(response.content)["account"]["first_name"] == NAME[0]
    entry = LogEntry.objects.get(action=LogEntry.Action.ACCESS)
    assert entry.actor == teacher and entry.object_pk == str(zuzanna.pk)


@pytest.mark.parametrize("who", ["other_teacher", "classmate", "anonymous"])
def test_nobody_else_gets_a_students_data(who, other_teacher, zuzanna, lesson):
    url = reverse("lms:student_data", args=[lesson["class"].pk, zuzanna.pk])
    client = {
        "other_teacher": lambda: signed_in(other_teacher),
        "classmate": lambda: signed_in(lesson["classmate"]),
        "anonymous": Client,
    }[who]()

    response = client.get(url)

    assert response.status_code in (302, 404)
    assert "Kowalczyk" not in response.content.decode()
    assert not LogEntry.objects.filter(action=LogEntry.Action.ACCESS).exists()


def test_a_co_teacher_may_export_but_only_students_of_the_class(teacher, zuzanna, lesson):
    co_teacher = TeacherFactory()
    services.class_member_add(school_class=lesson["class"], user=co_teacher, role="teacher", by=teacher)
    stranger = UserFactory()

    assert privacy.student_for_privacy(by=co_teacher, student_id=zuzanna.pk) == zuzanna
    assert privacy.student_for_privacy(by=co_teacher, student_id=stranger.pk) is None
    assert privacy.student_for_privacy(by=co_teacher, student_id=teacher.pk) is None  # not a student


# --- erasure --------------------------------------------------------------------------------------


def test_erasure_removes_the_account_answers_grades_and_progress(teacher, zuzanna, lesson):
    user_id = zuzanna.pk
    assert Grade.objects.filter(student_id=user_id).exists()
    assert MemoryState.objects.filter(user_id=user_id).exists()

    privacy.student_erase(student=zuzanna, by=teacher)

    assert not get_user_model().objects.filter(pk=user_id).exists()
    for model, field in [
        (Grade, "student_id"),
        (Submission, "student_id"),
        (QuizAttempt, "student_id"),
        (ClassMember, "user_id"),
        (MemoryState, "user_id"),
        (Review, "user_id"),
        (NamingRecord, "user_id"),
    ]:
        assert not model.objects.filter(**{field: user_id}).exists(), model
    assert not LtiUser.objects.filter(sub="42").exists()  # the LMS identity with name and e-mail


def test_erasure_replaces_the_name_in_every_game_by_a_pseudonym_and_the_game_still_replays(
    teacher, zuzanna, lesson
):
    session = lesson["session"]
    assert "Zuzanna Kowalczyk" in _everything_about(session)
    state_before = session.state

    pseudonym = privacy.student_erase(student=zuzanna, by=teacher)

    everything = _everything_about(session)
    assert "Zuzanna" not in everything and "Kowalczyk" not in everything and "zkowalczyk" not in everything
    assert pseudonym in everything and "Olek Nowak" in everything  # the classmate keeps their name
    participant = Participant.objects.get(session=session, nickname=pseudonym)
    assert participant.user is None and participant.player_id
    assert session.state.keys() == state_before.keys()
    log = json.dumps(session_log(session), ensure_ascii=False)  # what a download holds
    assert "Kowalczyk" not in log and pseudonym in log


def test_the_audit_log_keeps_that_an_erasure_happened_but_not_whose(teacher, zuzanna, lesson):
    privacy.student_data_exported(student=zuzanna, by=teacher)

    pseudonym = privacy.student_erase(student=zuzanna, by=teacher)

    erasure = LogEntry.objects.get(action=LogEntry.Action.DELETE, object_repr=pseudonym)
    assert erasure.actor == teacher
    written = json.dumps(
        list(LogEntry.objects.values("object_repr", "changes_text", "changes", "actor_email")), default=str
    )
    assert "Kowalczyk" not in written and "zkowalczyk" not in written


def test_the_teacher_erases_a_student_after_typing_the_username(teacher, zuzanna, lesson):
    url = reverse("lms:student_erase", args=[lesson["class"].pk, zuzanna.pk])
    client = signed_in(teacher)

    assert client.get(url).status_code == 200
    wrong = client.post(url, {"confirm": "zkowalczy"})
    assert wrong.status_code == 200 and "does not match" in wrong.content.decode()
    assert get_user_model().objects.filter(pk=zuzanna.pk).exists()

    done = client.post(url, {"confirm": "zkowalczyk"})

    assert done.status_code == 302 and done.url == reverse("lms:class", args=[lesson["class"].pk])
    assert not get_user_model().objects.filter(pk=zuzanna.pk).exists()


def test_a_teacher_may_not_erase_a_student_who_is_also_in_another_teachers_class(
    teacher, other_teacher, zuzanna, lesson
):
    class_with_students(other_teacher, zuzanna, name="4c")
    url = reverse("lms:student_erase", args=[lesson["class"].pk, zuzanna.pk])

    response = signed_in(teacher).post(url, {"confirm": "zkowalczyk"}, follow=True)

    assert "administrator" in response.content.decode()
    assert get_user_model().objects.filter(pk=zuzanna.pk).exists()
    assert Grade.objects.filter(student=zuzanna).exists()


def test_another_teacher_cannot_reach_the_erasure_page(other_teacher, zuzanna, lesson):
    url = reverse("lms:student_erase", args=[lesson["class"].pk, zuzanna.pk])

    assert signed_in(other_teacher).post(url, {"confirm": "zkowalczyk"}).status_code == 404
    assert get_user_model().objects.filter(pk=zuzanna.pk).exists()


def test_deleting_a_student_in_the_admin_erases_them(teacher, zuzanna, lesson):
    admin = AdminFactory()
    url = reverse("admin:lms_user_delete", args=[zuzanna.pk])

    response = signed_in(admin).post(url, {"post": "yes"})

    assert response.status_code == 302
    assert not get_user_model().objects.filter(pk=zuzanna.pk).exists()
    assert "Kowalczyk" not in _everything_about(lesson["session"])
    erasure = LogEntry.objects.get_for_model(get_user_model()).get(action=LogEntry.Action.DELETE)
    assert erasure.actor == admin and erasure.object_repr.startswith("anon-")


def test_the_admin_downloads_one_students_data(zuzanna, lesson):
    admin = AdminFactory()

    response = signed_in(admin).post(
        reverse("admin:lms_user_changelist"),
        {"action": "export_student_data", "_selected_action": [zuzanna.pk]},
    )

    assert response.status_code == 200
    assert json.loads(response.content)["account"]["username"] == "zkowalczyk"


# --- the audit log --------------------------------------------------------------------------------


def test_a_grade_change_is_in_the_audit_log_with_who_changed_it(teacher, zuzanna, lesson):
    grade = Grade.objects.get(student=zuzanna)

    entries = LogEntry.objects.get_for_object(grade)

    assert entries.filter(action=LogEntry.Action.CREATE).exists()


def test_only_admins_read_the_audit_log(teacher):
    url = reverse("admin:auditlog_logentry_changelist")

    assert signed_in(AdminFactory()).get(url).status_code == 200
    assert signed_in(teacher).get(url).status_code == 403
