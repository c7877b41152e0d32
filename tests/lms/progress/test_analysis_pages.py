"""The item analysis page of a quiz homework: the class of 10 worked out by hand in
``test_analysis.py``, answered through the quiz's own services and read back from the
page's selector, its export, and who may see it."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from content.models import Period
from games.quiz import services as quiz_services
from games.quiz.models import Quiz, QuizItem
from lms.classes import services
from lms.classes.selectors import class_students
from lms.progress import selectors
from lms.progress.services import memory_review
from tests.factories import SymbolFactory, TeacherFactory, UserFactory
from tests.lms.factories_classes import class_with_students, practice_homework, quiz_homework
from tests.lms.progress.test_analysis import ANSWERS, EXPECTED, SECONDS, STUDENTS
from tests.lms.test_classes import signed_in

pytestmark = pytest.mark.django_db

#: The order each student answers the questions in (s4 starts with Q3).
ORDER = {student: (1, 2, 3, 4) for student in STUDENTS} | {"s4": (3, 1, 2, 4)}


def four_question_quiz(owner: Any) -> Quiz:
    quiz = Quiz.objects.create(
        title="Kartkówka: symbole",
        owner=owner,
        source=Quiz.Source.QUESTIONS,
        seed=1,
        status=Quiz.Status.PUBLISHED,
        state="done",
        code="AN0010",
        published_at=timezone.now(),
    )
    choice = {"subjects": [], "explanation": ""}
    QuizItem.objects.create(
        quiz=quiz,
        position=1,
        kind="choice",
        prompt={"text": "Kiedy odzyskano niepodległość?", "options": [
            {"id": "a", "text": "1914"}, {"id": "b", "text": "1918"}, {"id": "c", "text": "1920"},
            {"id": "d", "text": "1939"}]},
        key={**choice, "answer": "b"},
    )  # fmt: skip
    QuizItem.objects.create(
        quiz=quiz,
        position=2,
        kind="periods",
        prompt={"name": "Orzeł w koronie", "options": [
            {"id": "a", "label": "II RP"}, {"id": "b", "label": "III RP"}, {"id": "c", "label": "PRL"}]},
        key={"subjects": [], "answer": ["a", "b"], "name": "Orzeł w koronie"},
    )  # fmt: skip
    QuizItem.objects.create(
        quiz=quiz,
        position=3,
        kind="choice",
        prompt={"text": "Czyj to znak?", "options": [
            {"id": "a", "text": "Polska Walcząca"}, {"id": "b", "text": "Solidarność"},
            {"id": "c", "text": "Legiony"}]},
        key={**choice, "answer": "a"},
    )  # fmt: skip
    QuizItem.objects.create(
        quiz=quiz,
        position=4,
        kind="picture_name_typed",
        prompt={"picture": "q"},
        key={"subjects": [], "name": "Kotwica", "alternatives": [], "pictures": {}},
    )
    return quiz


def _answer(number: int, student: str) -> dict[str, Any] | None:
    q1, q2, q3, q4 = ANSWERS[student]
    if number == 1:
        return {"choice": q1} if q1 else None
    if number == 2:
        return {"choices": list(q2)} if q2 else None
    if number == 3:
        return {"choice": q3} if q3 else None
    return None if q4 is None else {"text": "Kotwica" if q4 else "Orzeł"}


def hand_class_build(teacher: Any) -> dict[str, Any]:
    """The class of 10 of ``test_analysis.py``, each answer saved at its time, then handed in."""
    users = {name: UserFactory(username=f"uczen-{name}") for name in STUDENTS}  # created in order: ids rise
    school_class = class_with_students(teacher, *users.values())
    quiz = four_question_quiz(teacher)
    homework = quiz_homework(school_class, quiz)
    items = {item.position: item for item in quiz.items.all()}
    for name, user in users.items():
        attempt = services.submission_start(assignment=homework, student=user).quiz_attempt
        clock = attempt.started_at
        for number in ORDER[name]:
            answer, seconds = _answer(number, name), SECONDS[name][number - 1]
            if answer is None:
                continue
            clock += timedelta(seconds=seconds)
            quiz_services.attempt_answer_save(
                attempt=attempt, item_id=items[number].pk, answer=answer, now=clock
            )
        quiz_services.attempt_submit(attempt=attempt, now=clock + timedelta(minutes=5))
    return {"class": school_class, "homework": homework, "users": users, "quiz": quiz}


@pytest.fixture
def hand_class(teacher: Any) -> dict[str, Any]:
    return hand_class_build(teacher)


def test_the_class_of_ten_reads_back_as_worked_out_by_hand(hand_class):
    result = selectors.quiz_analysis(hand_class["homework"], class_students(hand_class["class"]))
    assert result.counted == result.students == 10 and result.group_size == 3
    for row in result.items:
        want, stats = EXPECTED[row.number], row.stats
        assert stats.answered == 10
        assert stats.share_correct == pytest.approx(want["share"])
        assert stats.discrimination == pytest.approx(want["d"], abs=1e-6)
        assert (stats.upper, stats.lower) == (pytest.approx(want["upper"]), pytest.approx(want["lower"]))
        assert stats.median_seconds == want["median"] and stats.timed == want["timed"]
        assert [option.count for option in row.options] == list(want["choices"].values())
        assert row.no_choice == want["no_choice"]
    q1 = result.items[0]
    assert [(o.label, o.right, o.percent) for o in q1.options] == [
        ("A) 1914", False, 10),
        ("B) 1918", True, 50),
        ("C) 1920", False, 30),
        ("D) 1939", False, 0),
    ]


def test_only_each_students_first_attempt_counts(hand_class):
    s2 = hand_class["users"]["s2"]
    attempt = services.submission_start(assignment=hand_class["homework"], student=s2).quiz_attempt
    quiz_services.attempt_submit(attempt=attempt)  # all blank the second time
    result = selectors.quiz_analysis(hand_class["homework"], class_students(hand_class["class"]))
    assert [row.stats.share_correct for row in result.items] == pytest.approx([0.5, 0.55, 0.5, 0.4])


def test_the_page_shows_every_question_with_its_chart_and_table_and_is_linked_from_the_homework_and_progress(
    hand_class, teacher
):
    url = reverse("progress:analysis", args=[hand_class["class"].pk, hand_class["homework"].pk])
    page = signed_in(teacher).get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('<svg class="chart"') == 4  # share correct + the options of Q1, Q2, Q3
    assert "Kiedy odzyskano niepodległość?" in html and "55 %" in html and "0.33" in html
    detail = signed_in(teacher).get(
        reverse("lms:assignment", args=[hand_class["class"].pk, hand_class["homework"].pk])
    )
    assert url in detail.content.decode()
    progress = signed_in(teacher).get(reverse("progress:class", args=[hand_class["class"].pk]))
    assert url in progress.content.decode()  # the class's progress page lists it too


def test_the_export_has_one_row_per_question_with_the_hand_computed_numbers(hand_class, teacher):
    url = reverse("progress:analysis_export", args=[hand_class["class"].pk, hand_class["homework"].pk, "csv"])
    response = signed_in(teacher).get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(rows) == 5
    header = rows[0]
    q2 = dict(zip(header, rows[2], strict=True))
    assert q2["Share correct %"] == "55.0" and q2["Discrimination"] == "0.33"
    assert q2["Upper group %"] == "66.7" and q2["Lower group %"] == "33.3"
    assert q2["Median time (s)"] == "40.0"
    assert q2["Choices"] == "A) II RP: 8; B) III RP: 5; C) PRL: 2; no choice: 1"
    xlsx = signed_in(teacher).get(url.replace(".csv", ".xlsx"))
    assert xlsx.status_code == 200


def test_a_co_teacher_reads_the_analysis_and_a_stranger_or_a_student_gets_404(hand_class, other_teacher):
    school_class, homework = hand_class["class"], hand_class["homework"]
    services.class_member_add(
        school_class=school_class, user=other_teacher, role="teacher", by=school_class.teacher
    )
    urls = [
        reverse("progress:analysis", args=[school_class.pk, homework.pk]),
        reverse("progress:analysis_export", args=[school_class.pk, homework.pk, "csv"]),
    ]
    for url in urls:
        assert signed_in(other_teacher).get(url).status_code == 200
        assert signed_in(TeacherFactory()).get(url).status_code == 404
        assert signed_in(hand_class["users"]["s1"]).get(url).status_code == 404


def test_homework_of_another_class_or_not_a_quiz_has_no_analysis(hand_class, teacher):
    school_class = hand_class["class"]
    other_class = class_with_students(teacher, name="3c")
    practice = practice_homework(school_class)
    client = signed_in(teacher)
    assert (
        client.get(reverse("progress:analysis", args=[other_class.pk, hand_class["homework"].pk])).status_code
        == 404
    )
    assert client.get(reverse("progress:analysis", args=[school_class.pk, practice.pk])).status_code == 404
    bad = reverse("progress:analysis_export", args=[school_class.pk, hand_class["homework"].pk, "pdf"])
    assert client.get(bad).status_code == 404


def test_a_homework_nobody_handed_in_says_so(teacher):
    school_class = class_with_students(teacher, UserFactory())
    homework = quiz_homework(school_class, four_question_quiz(teacher))
    page = signed_in(teacher).get(reverse("progress:analysis", args=[school_class.pk, homework.pk]))
    assert page.status_code == 200 and "Nothing to analyse yet" in page.content.decode()


def test_the_class_page_shows_mastery_week_by_week_with_a_table_and_export(teacher):
    student = UserFactory()
    school_class = class_with_students(teacher, student)
    symbol = SymbolFactory(name="Kotwica")
    symbol.periods.set([Period.objects.get(slug="prl")])
    now = datetime(2026, 11, 12, 12, 0, tzinfo=UTC)  # a Thursday: last week ended on Monday 9th
    memory_review(
        user=student, item_key=f"symbol:{symbol.pk}", correct=True, reviewed_at=now - timedelta(days=15)
    )
    memory_review(
        user=student, item_key=f"symbol:{symbol.pk}", correct=True, reviewed_at=now - timedelta(days=1)
    )
    weekly = selectors.class_mastery_weekly([student], now=now)
    assert len(weekly.weeks) == selectors.WEEKS
    (label, values) = weekly.periods[0]
    assert label == "PRL" and values[0] is None and values[-1] is not None
    # Met on 28 October: the weeks ending 2 and 9 November and this one; the second right
    # answer on the 11th lifts this week above the last.
    met = [value for value in values if value is not None]
    assert len(met) == 3 and met[2] > met[1]
    client = signed_in(teacher)
    page = client.get(reverse("progress:class", args=[school_class.pk])).content.decode()
    assert "Mastery by period, week by week" in page and "Week of" in page
    export = client.get(reverse("progress:class_weeks_export", args=[school_class.pk, "csv"]))
    rows = list(csv.reader(io.StringIO(export.content.decode("utf-8-sig"))))
    assert rows[1][:2] == ["Period", "PRL"] and len(rows[1]) == 2 + selectors.WEEKS
    stranger = signed_in(TeacherFactory()).get(
        reverse("progress:class_weeks_export", args=[school_class.pk, "csv"])
    )
    assert stranger.status_code == 404
