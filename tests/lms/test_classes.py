"""Classes: a teacher creates one, students join by code, teachers see only their own classes."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from openpyxl import load_workbook

from games import lobby
from games.lobby import JOIN_CODE_ALPHABET
from lms import grading
from lms.classes import services
from lms.classes.errors import ClassError
from lms.models import ClassMember, SchoolClass, Submission
from tests.factories import TeacherFactory, UserFactory
from tests.lms.factories_classes import class_with_students, member_roles, practice_homework


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- creating and joining ------------------------------------------------------------------------


def test_a_teacher_creates_a_class_with_a_six_character_unambiguous_code(teacher):
    school_class = services.class_create(teacher=teacher, name="  3b   Historia ")
    assert school_class.name == "3b Historia" and school_class.teacher == teacher
    assert len(school_class.join_code) == 6 and set(school_class.join_code) <= set(JOIN_CODE_ALPHABET)


@pytest.mark.parametrize("name", ["", "   ", "x" * 121])
def test_a_class_needs_a_name_of_at_most_120_characters(teacher, name):
    with pytest.raises(ClassError) as refusal:
        services.class_create(teacher=teacher, name=name)
    assert refusal.value.code == "invalid_name"
    assert not SchoolClass.objects.exists()


def test_students_do_not_create_classes(student):
    with pytest.raises(ClassError) as refusal:
        services.class_create(teacher=student, name="3b")
    assert refusal.value.code == "not_allowed"


def test_a_student_joins_with_the_code_typed_in_lower_case_with_spaces_and_twice_is_harmless(
    teacher, student
):
    school_class = services.class_create(teacher=teacher, name="3b")
    typed = " ".join(school_class.join_code.lower()[i : i + 3] for i in (0, 3))
    member = services.class_join(code=typed, student=student)
    again = services.class_join(code=school_class.join_code, student=student)
    assert member == again and member.role == ClassMember.Role.STUDENT
    assert ClassMember.objects.count() == 1


def test_a_wrong_code_is_refused_with_the_code_and_what_to_do(student):
    with pytest.raises(ClassError) as refusal:
        services.class_join(code="zzzz99", student=student)
    assert refusal.value.code == "unknown_code"
    assert "ZZZZ99" in str(refusal.value) and "teacher" in str(refusal.value)
    with pytest.raises(ClassError) as empty:
        services.class_join(code=" - ", student=student)
    assert empty.value.code == "invalid_code"
    assert not ClassMember.objects.exists()


def test_an_archived_class_takes_no_new_students_and_its_code_answers_as_an_unknown_one(teacher, student):
    school_class = services.class_create(teacher=teacher, name="3b")
    services.class_update(school_class=school_class, by=teacher, archived=True)
    with pytest.raises(ClassError) as refusal:
        services.class_join(code=school_class.join_code, student=student)
    with pytest.raises(ClassError) as unknown:
        services.class_join(code="QQQQQQ", student=student)
    assert refusal.value.code == unknown.value.code == "unknown_code"
    assert str(refusal.value) == str(unknown.value).replace("QQQQQQ", school_class.join_code)
    assert not ClassMember.objects.exists()


def test_teachers_do_not_join_by_code(teacher, other_teacher):
    school_class = services.class_create(teacher=teacher, name="3b")
    with pytest.raises(ClassError) as refusal:
        services.class_join(code=school_class.join_code, student=other_teacher)
    assert refusal.value.code == "not_allowed"


def test_a_new_code_replaces_the_old_one(teacher, student):
    school_class = services.class_create(teacher=teacher, name="3b")
    old = school_class.join_code
    renewed = services.class_code_renew(school_class=school_class, by=teacher)
    assert renewed.join_code != old
    with pytest.raises(ClassError):
        services.class_join(code=old, student=student)
    services.class_join(code=renewed.join_code, student=student)


def test_a_class_brought_back_gets_a_fresh_code_when_its_own_was_reused(teacher, monkeypatch):
    school_class = services.class_create(teacher=teacher, name="3b")
    services.class_update(school_class=school_class, by=teacher, archived=True)
    with monkeypatch.context() as patch:
        patch.setattr(lobby, "code_draw", lambda: school_class.join_code)
        services.class_create(teacher=teacher, name="other")  # takes the released code
    restored = services.class_update(school_class=school_class, by=teacher, archived=False)
    assert not restored.archived and restored.join_code != school_class.join_code


# --- members and co-teachers ---------------------------------------------------------------------


def test_a_co_teacher_manages_the_class_but_only_the_owner_removes_co_teachers(
    teacher, other_teacher, student
):
    school_class = class_with_students(teacher, student)
    services.class_member_add(school_class=school_class, user=other_teacher, role="teacher", by=teacher)
    assert services.is_class_teacher(school_class, other_teacher)
    services.class_member_remove(school_class=school_class, user=student, by=other_teacher)
    third = TeacherFactory()
    services.class_member_add(school_class=school_class, user=third, role="teacher", by=teacher)
    with pytest.raises(ClassError) as refusal:
        services.class_member_remove(school_class=school_class, user=third, by=other_teacher)
    assert refusal.value.code == "not_allowed"
    assert member_roles(school_class) == {other_teacher.username: "teacher", third.username: "teacher"}


def test_a_student_is_never_a_co_teacher_and_strangers_add_nobody(teacher, other_teacher, student):
    school_class = services.class_create(teacher=teacher, name="3b")
    with pytest.raises(ClassError) as not_teacher:
        services.class_member_add(school_class=school_class, user=student, role="teacher", by=teacher)
    assert not_teacher.value.code == "not_allowed"
    with pytest.raises(ClassError) as stranger:
        services.class_member_add(
            school_class=school_class, user=other_teacher, role="teacher", by=other_teacher
        )
    assert stranger.value.code == "not_found"
    assert not ClassMember.objects.exists()


def test_a_removed_student_keeps_their_grades_but_leaves_the_gradebook(teacher, student):
    school_class = class_with_students(teacher, student)
    homework = practice_homework(school_class)
    submission = Submission.objects.create(assignment=homework, student=student, number=1)
    grading.submission_score(submission=submission, fraction=Decimal("0.5"))
    services.class_member_remove(school_class=school_class, user=student, by=teacher)
    assert homework.grades.get(student=student).score == Decimal("5.00")
    response = signed_in(teacher).get(f"/classes/{school_class.pk}/")
    assert student.username not in response.content.decode()


# --- pages and who sees them ----------------------------------------------------------------------


def test_a_teacher_lists_only_their_own_and_co_taught_classes(teacher, other_teacher):
    mine = services.class_create(teacher=teacher, name="Moja klasa")
    theirs = services.class_create(teacher=other_teacher, name="Cudza klasa")
    shared = services.class_create(teacher=other_teacher, name="Wspólna klasa")
    services.class_member_add(school_class=shared, user=teacher, role="teacher", by=other_teacher)
    page = signed_in(teacher).get("/classes/").content.decode()
    assert mine.name in page and shared.name in page and theirs.name not in page


@pytest.mark.parametrize(
    "path",
    ["/", "/code", "/gradebook.csv", "/gradebook.xlsx", "/homework/new"],
)
def test_another_teachers_class_pages_are_404(teacher, other_teacher, student, path):
    school_class = class_with_students(teacher, student)
    assert signed_in(other_teacher).get(f"/classes/{school_class.pk}{path}").status_code == 404
    assert signed_in(student).get(f"/classes/{school_class.pk}{path}").status_code == 404
    assert signed_in(teacher).get(f"/classes/{school_class.pk}{path}").status_code == 200


def test_another_teacher_can_neither_rename_nor_empty_a_class(teacher, other_teacher, student):
    school_class = class_with_students(teacher, student, name="3b")
    client = signed_in(other_teacher)
    assert (
        client.post(f"/classes/{school_class.pk}/settings", {"action": "rename", "name": "x"}).status_code
        == 404
    )
    assert client.post(f"/classes/{school_class.pk}/members/{student.pk}/remove").status_code == 404
    school_class.refresh_from_db()
    assert school_class.name == "3b" and ClassMember.objects.filter(user=student).exists()


def test_the_create_page_shows_the_code_and_a_qr_code_for_the_projector(teacher):
    client = signed_in(teacher)
    response = client.post("/classes/new", {"name": "3b"}, follow=True)
    school_class = SchoolClass.objects.get()
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/classes/{school_class.pk}/code"
    assert school_class.join_code in page and "<svg" in page
    assert f"/classes/join/{school_class.join_code}" in page


def test_the_join_page_joins_and_a_wrong_code_explains_and_changes_nothing(teacher, student):
    school_class = services.class_create(teacher=teacher, name="3b")
    client = signed_in(student)
    wrong = client.post("/classes/join", {"code": "QQQQQQ"})
    assert wrong.status_code == 400 and "No class has the code QQQQQQ" in wrong.content.decode()
    assert not ClassMember.objects.exists()
    assert client.get(f"/classes/join/{school_class.join_code}").status_code == 200
    joined = client.post("/classes/join", {"code": school_class.join_code.lower()})
    assert joined.status_code == 302 and joined["Location"] == "/classes/homework/"
    assert ClassMember.objects.get().user == student


def test_pages_need_a_signed_in_user(teacher):
    school_class = services.class_create(teacher=teacher, name="3b")
    for path in ("/classes/", "/classes/homework/", f"/classes/{school_class.pk}/"):
        response = Client().get(path)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    # The join page offers the way in instead (sign in, or make an account with the code);
    # joining itself still needs an account.
    joined = Client().post("/classes/join", {"code": school_class.join_code})
    assert joined.status_code == 302 and joined["Location"].startswith("/accounts/login/")
    assert not school_class.members.exists()


# --- the gradebook export ------------------------------------------------------------------------


@pytest.fixture
def graded_class(teacher: Any) -> tuple[SchoolClass, list[Any]]:
    ala = UserFactory(first_name="Ala", last_name="Nowak", username="ala")
    olek = UserFactory(first_name="=cmd", last_name="Kowal", username="olek")
    school_class = class_with_students(teacher, ala, olek)
    homework = practice_homework(school_class, title="Symbole II RP", points_possible=20)
    for number, fraction in enumerate(("0.25", "0.75"), start=1):
        submission = Submission.objects.create(assignment=homework, student=ala, number=number)
        grading.submission_score(submission=submission, fraction=Decimal(fraction))
    return school_class, [ala, olek]


def test_the_gradebook_csv_has_each_students_counted_score_and_attempts(teacher, graded_class):
    school_class, (ala, olek) = graded_class
    response = signed_in(teacher).get(f"/classes/{school_class.pk}/gradebook.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["Student", "Username", "Symbole II RP (out of 20)", "Symbole II RP: attempts"]
    # Sorted by surname; a name that looks like a formula is not one in a spreadsheet.
    assert rows[1:] == [["'=cmd Kowal", "olek", "", "0"], ["Ala Nowak", "ala", "15.00", "2"]]


def test_the_gradebook_xlsx_has_the_same_table(teacher, graded_class):
    school_class, _students = graded_class
    response = signed_in(teacher).get(f"/classes/{school_class.pk}/gradebook.xlsx")
    sheet = load_workbook(io.BytesIO(response.content)).active
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert values[0][2] == "Symbole II RP (out of 20)"
    assert values[2] == ["Ala Nowak", "ala", 15, 2]


def test_the_dashboard_shows_completion_and_each_counted_grade(teacher, graded_class):
    school_class, (ala, olek) = graded_class
    page = signed_in(teacher).get(f"/classes/{school_class.pk}/").content.decode()
    assert "1 of 2" in page  # one of two students has a grade
    assert "<strong>15</strong> / 20" in page and "2 attempts" in page
