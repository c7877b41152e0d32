"""The follow-up quiz page of a finished game in chromium: the teacher builds one quiz per
student, sees them built and publishes them; each student finds only their own under "My
quizzes". axe (WCAG 2.2 AA) and a 360-px phone check every new page, the PDF failure page
included.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from content.models import Symbol
from games import services as game_services
from games.models import GameSession
from games.quiz import printing
from games.quiz.models import Quiz
from lms.models import User
from tests.e2e.browsing import open_page, scroll_width, sign_in
from tests.e2e.test_quiz_take import PHONE_WIDTH, assert_accessible
from tests.games.test_sessions import create_session

pytestmark = pytest.mark.e2e


def assert_phone_fit(page, where: str) -> None:
    assert scroll_width(page) <= PHONE_WIDTH, f"{where} scrolls sideways on a 360-px phone"
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll('main button, main .quiz-option, main .button'))
            .filter(el => el.offsetParent !== null)
            .map(el => el.getBoundingClientRect())
            .filter(r => r.height < 44).length"""
    )
    assert small == 0, f"{where}: {small} touch targets under 44 px"


def finished_game(demo_site) -> tuple[GameSession, list[User]]:
    session = create_session(demo_site.teacher_user, seed=7)
    students = [User.objects.get(username=login.username) for login in demo_site.students[:2]]
    for user in students:
        game_services.session_join(session=session, user=user)
    symbols = Symbol.objects.filter(status="published").order_by("pk")[:16]
    GameSession.objects.filter(pk=session.pk).update(
        status=GameSession.Status.FINISHED, assets={"symbols": {f"{s.pk:03d}": s.pk for s in symbols}}
    )
    session.refresh_from_db()
    return session, students


def test_teacher_builds_one_quiz_per_student_and_each_student_sees_their_own(browsing, demo_site):
    session, students = finished_game(demo_site)
    teacher = browsing.new_phone_page()
    sign_in(teacher, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    url = f"{demo_site.url}/games/quizzes/from-game/{session.pk}"
    open_page(teacher, url)
    assert_accessible(browsing, teacher, "follow-up quiz page")
    assert_phone_fit(teacher, "follow-up quiz page")
    expect(teacher.locator('input[name="students"]')).to_have_count(2)
    teacher.get_by_label("Number of items").nth(1).fill("6")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Build one quiz per student").tap()
    quizzes = list(Quiz.objects.filter(session=session, student__isnull=False))
    assert sorted(q.student_id for q in quizzes) == sorted(u.pk for u in students)
    # Built by the Celery task (eager here): the table lists each student's quiz with its state.
    expect(teacher.locator("#per-student table tbody tr")).to_have_count(2)
    expect(teacher.locator("#per-student")).to_contain_text("2 of 2 built")
    assert_accessible(browsing, teacher, "follow-up quiz page with the quizzes per student")
    assert_phone_fit(teacher, "follow-up quiz page with the quizzes per student")
    with teacher.expect_navigation():
        teacher.get_by_role("button", name="Publish the 2 built drafts").tap()
    assert set(Quiz.objects.filter(session=session).values_list("status", flat=True)) == {"published"}

    own = {q.student_id: Quiz.objects.get(pk=q.pk) for q in quizzes}
    student = browsing.new_phone_page()
    login = demo_site.students[0]
    sign_in(student, demo_site.url, login.username, login.password)
    open_page(student, f"{demo_site.url}/")
    assert scroll_width(student) <= PHONE_WIDTH, "the student's home page scrolls sideways"
    with student.expect_navigation():
        student.get_by_role("link", name="My quizzes").tap()
    expect(student.get_by_role("heading", level=1)).to_have_text("My quizzes")
    assert_accessible(browsing, student, "my quizzes")
    assert_phone_fit(student, "my quizzes")
    mine, other = own[students[0].pk], own[students[1].pk]
    expect(student.locator(f'a[href$="/take/{mine.code}"]')).to_have_count(1)
    expect(student.locator(f'a[href$="/take/{other.code}"]')).to_have_count(0)
    response = student.goto(f"{demo_site.url}/games/quizzes/take/{other.code}")
    assert response.status == 404
    browsing.problems(student)  # the 404 is the point here


def test_the_pdf_failure_page_is_accessible_and_fits_a_phone(browsing, demo_site, monkeypatch):
    from games.quiz import selectors, services

    pool = selectors.pool_from_symbols(
        user=demo_site.teacher_user, queryset=Symbol.objects.filter(status="published")
    )
    quiz = services.quiz_create(
        owner=demo_site.teacher_user,
        title="Print",
        source=Quiz.Source.SELECTION,
        pool=pool,
        total=4,
        enqueue=False,
    )
    services.quiz_generate(quiz=quiz)

    def broken(*args, **kwargs):
        raise OSError("the renderer fell over")

    monkeypatch.setattr(printing, "render_pdf", broken)
    page = browsing.new_phone_page()
    sign_in(page, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    response = page.goto(f"{demo_site.url}/games/quizzes/{quiz.pk}/worksheet.pdf")
    assert response.status == 503
    browsing.problems(page)  # the 503 is the point here
    expect(page.get_by_role("heading", level=1)).to_have_text("The PDF could not be made")
    assert_accessible(browsing, page, "PDF failure page")
    assert_phone_fit(page, "PDF failure page")
