"""Homework: set a quiz or a game, open and due times, attempt limits, resuming, who sees what."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import PracticeAssignment
from games.quiz.models import QuizAttempt
from lms.classes import selectors, services
from lms.classes.errors import ClassError
from lms.lti.services import assignment_from_template
from lms.models import Assignment, Grade, SchoolClass, Submission
from tests.factories import TeacherFactory, UserFactory
from tests.lms.factories_classes import (
    class_with_students,
    knowledge_quiz,
    practice_homework,
    practice_play,
    quiz_answer,
    quiz_homework,
    soon,
)
from tests.writes import get_writing


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def school_class(teacher: Any, student: Any) -> SchoolClass:
    return class_with_students(teacher, student)


# --- setting homework ----------------------------------------------------------------------------


def test_a_game_homework_makes_the_practice_duel_from_the_teachers_deck(school_class, teacher):
    homework = practice_homework(
        school_class, game_options={"mode": "bot", "bot_seconds": "6.5"}, time_limit_minutes=4
    )
    practice = homework.practice
    assert isinstance(practice, PracticeAssignment) and practice.owner == teacher
    assert (practice.mode, practice.bot_seconds, practice.timer) == ("bot", Decimal("6.5"), 240)
    assert homework.game_options["deck"] == practice.deck_id


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"title": "  "}, "invalid_title"),
        (
            {"opens_at": timezone.now() + timedelta(days=2), "due_at": timezone.now() + timedelta(days=1)},
            "invalid_dates",
        ),
        ({"max_attempts": 0}, "invalid_attempts"),
        ({"max_attempts": 51}, "invalid_attempts"),
        ({"policy": "average"}, "invalid_policy"),
        ({"time_limit_minutes": 0}, "invalid_time_limit"),
        ({"points_possible": "0"}, "invalid_points"),
        ({"points_possible": "1.005"}, "invalid_points"),
        ({"points_possible": "NaN"}, "invalid"),
        ({"game": "chess"}, "invalid_game"),
        ({"game_options": {"deck": None}}, "no_deck"),
        ({"game_options": {"card_set": "Z"}}, "invalid_setup"),
    ],
)
def test_bad_homework_settings_are_refused_and_nothing_is_written(school_class, fields, code):
    with pytest.raises(ClassError) as refusal:
        practice_homework(school_class, **fields)
    assert refusal.value.code == code and str(refusal.value)
    assert not Assignment.objects.exists() and not PracticeAssignment.objects.exists()


def test_a_quiz_must_be_the_teachers_own_published_quiz(school_class, teacher, other_teacher):
    with pytest.raises(ClassError) as theirs:
        quiz_homework(school_class, knowledge_quiz(other_teacher))
    draft = knowledge_quiz(teacher)
    draft.status = "draft"
    draft.save()
    with pytest.raises(ClassError) as unpublished:
        quiz_homework(school_class, draft)
    assert theirs.value.code == unpublished.value.code == "no_quiz"
    assert not Assignment.objects.exists()


def test_only_the_classs_teachers_set_homework_and_an_archived_class_gets_none(
    school_class, teacher, other_teacher
):
    with pytest.raises(ClassError) as stranger:
        services.assignment_create(
            school_class=school_class,
            by=other_teacher,
            title="x",
            kind="quiz",
            quiz=knowledge_quiz(other_teacher),
        )
    assert stranger.value.code == "not_found"
    services.class_update(school_class=school_class, by=teacher, archived=True)
    with pytest.raises(ClassError) as archived:
        practice_homework(school_class)
    assert archived.value.code == "archived"


def test_what_was_assigned_and_its_points_stay_once_a_student_started(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher))
    services.submission_start(assignment=homework, student=student)
    for change in ({"quiz": knowledge_quiz(teacher)}, {"points_possible": 50}):
        with pytest.raises(ClassError) as refusal:
            services.assignment_update(assignment=homework, by=teacher, **change)
        assert refusal.value.code == "started"
    with pytest.raises(ClassError):
        services.assignment_publish(assignment=homework, by=teacher, published=False)
    later = timezone.now() + timedelta(days=7)
    services.assignment_update(assignment=homework, by=teacher, title="Nowy tytuł", due_at=later)
    homework.refresh_from_db()
    assert (homework.title, homework.due_at, homework.points_possible) == (
        "Nowy tytuł",
        later,
        Decimal("20.00"),
    )


# --- starting attempts ---------------------------------------------------------------------------


def test_a_draft_is_invisible_to_students(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher), publish=False)
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert refusal.value.code == "not_found"
    assert signed_in(student).get(f"/classes/homework/{homework.pk}/").status_code == 404
    assert homework.title not in signed_in(student).get("/classes/homework/").content.decode()


def test_homework_opens_at_its_opening_time(school_class, teacher, student):
    opens = timezone.now() + timedelta(hours=2)
    homework = quiz_homework(school_class, knowledge_quiz(teacher), opens_at=opens)
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert refusal.value.code == "not_open" and "opens on" in str(refusal.value)
    assert not Submission.objects.exists() and not QuizAttempt.objects.exists()
    submission = services.submission_start(
        assignment=homework, student=student, now=opens + timedelta(seconds=1)
    )
    assert submission.number == 1


def test_no_attempt_starts_after_the_due_time(school_class, teacher, student):
    due = timezone.now() + timedelta(hours=1)
    homework = quiz_homework(school_class, knowledge_quiz(teacher), due_at=due)
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student, now=due)
    assert refusal.value.code == "due" and "was due on" in str(refusal.value)
    assert not Submission.objects.exists()


def test_the_attempt_limit_is_kept_and_an_open_attempt_is_resumed_not_counted_twice(
    school_class, teacher, student
):
    homework = quiz_homework(school_class, knowledge_quiz(teacher), max_attempts=2)
    first = services.submission_start(assignment=homework, student=student)
    assert services.submission_start(assignment=homework, student=student) == first  # resumed
    quiz_answer(first, right=1)
    second = services.submission_start(assignment=homework, student=student)
    quiz_answer(second, right=4)
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert refusal.value.code == "no_attempts_left" and "all 2 attempts" in str(refusal.value)
    assert [s.number for s in Submission.objects.order_by("number")] == [1, 2]
    assert QuizAttempt.objects.count() == 2


def test_a_quiz_attempt_is_bounded_by_the_due_time_and_the_time_limit(school_class, teacher, student):
    due = timezone.now() + timedelta(hours=3)
    homework = quiz_homework(school_class, knowledge_quiz(teacher), due_at=due, time_limit_minutes=20)
    attempt = services.submission_start(assignment=homework, student=student).quiz_attempt
    assert timezone.now() + timedelta(minutes=19) < attempt.deadline <= timezone.now() + timedelta(minutes=20)
    late = quiz_homework(
        school_class,
        knowledge_quiz(teacher),
        due_at=timezone.now() + timedelta(minutes=5),
        time_limit_minutes=20,
    )
    assert services.submission_start(assignment=late, student=student).quiz_attempt.deadline == late.due_at


def test_a_graded_quiz_attempt_is_scored_out_of_the_homeworks_points(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3, 1, 4, 2)))
    submission = services.submission_start(assignment=homework, student=student)
    quiz_answer(submission, right=3)
    submission.refresh_from_db()
    assert (submission.status, submission.score, submission.max_score) == (
        "graded",
        Decimal("15.00"),
        Decimal("20.00"),
    )
    assert Grade.objects.get(assignment=homework, student=student).score == Decimal("15.00")


def test_a_quiz_attempt_in_progress_at_the_due_time_is_graded_by_the_quiz_engine(
    school_class, teacher, student
):
    due = timezone.now() + timedelta(hours=1)
    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3, 1)), due_at=due)
    submission = services.submission_start(assignment=homework, student=student)
    from games.quiz import services as quiz_services

    first = submission.quiz_attempt.quiz.items.order_by("position").first()
    quiz_services.attempt_answer_save(
        attempt=submission.quiz_attempt, item_id=first.pk, answer={"choice": "3"}
    )
    assert services.assignments_due_sweep(now=due + timedelta(seconds=5)) == 1
    submission.refresh_from_db()
    assert (submission.status, submission.score, submission.graded_at_due) == (
        "graded",
        Decimal("10.00"),
        True,
    )


def test_the_due_time_of_one_homework_grades_only_its_own_attempts(school_class, teacher, student):
    """The due-time task of one homework leaves another homework's overdue attempt for its
    own task or the beat sweep: one homework's clock never grades another's work."""
    due = timezone.now() + timedelta(hours=1)
    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3, 1)), due_at=due)
    colleague = TeacherFactory()
    other = quiz_homework(
        class_with_students(colleague, student, name="4c"), knowledge_quiz(colleague, (2,)), due_at=due
    )
    mine = services.submission_start(assignment=homework, student=student)
    theirs = services.submission_start(assignment=other, student=student)

    assert services.assignment_due_grade(assignment_id=homework.pk, now=due + timedelta(seconds=5)) == 1

    mine.refresh_from_db(), theirs.refresh_from_db()
    assert mine.status == "graded" and mine.quiz_attempt.status == "graded"
    assert theirs.status == "in_progress" and theirs.quiz_attempt.status == "in_progress"


def _time_passes(attempt: QuizAttempt, minutes: int) -> None:
    """As if the attempt had been started ``minutes`` earlier (the sweep reads the clock)."""
    QuizAttempt.objects.filter(pk=attempt.pk).update(
        started_at=attempt.started_at - timedelta(minutes=minutes),
        deadline=attempt.deadline - timedelta(minutes=minutes),
    )


def test_the_scheduled_sweep_grades_an_abandoned_timed_homework_without_a_due_time(
    school_class, teacher, student
):
    from games.quiz import services as quiz_services
    from lms.classes.tasks import assignments_due_sweep_task

    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3, 1)), due_at=None, time_limit_minutes=5)
    submission = services.submission_start(assignment=homework, student=student)
    attempt = submission.quiz_attempt
    first = attempt.quiz.items.order_by("position").first()
    quiz_services.attempt_answer_save(attempt=attempt, item_id=first.pk, answer={"choice": "3"})
    assert assignments_due_sweep_task() == 0  # the time is not up yet: nothing happens
    _time_passes(attempt, 6)  # the student closed the tab and never came back
    assert assignments_due_sweep_task() == 1
    submission.refresh_from_db()
    attempt.refresh_from_db()
    assert attempt.status == "graded" and attempt.submitted_at == attempt.deadline
    assert (submission.status, submission.score) == ("graded", Decimal("10.00"))
    assert Grade.objects.get(assignment=homework, student=student).score == Decimal("10.00")
    assert assignments_due_sweep_task() == 0  # once only


def test_the_scheduled_sweep_grades_an_abandoned_timed_standalone_quiz(teacher, student):
    from games.quiz import services as quiz_services
    from lms.classes.tasks import assignments_due_sweep_task

    quiz = knowledge_quiz(teacher, (3, 1))
    attempt = quiz_services.attempt_start(quiz=quiz, student=student, time_limit=timedelta(minutes=5))
    untimed = quiz_services.attempt_start(quiz=knowledge_quiz(teacher, (2,)), student=UserFactory())
    _time_passes(attempt, 6)
    assert assignments_due_sweep_task() == 1
    attempt.refresh_from_db()
    untimed.refresh_from_db()
    assert attempt.status == "graded" and attempt.score == 0 and attempt.graded_at
    assert untimed.status == "in_progress"  # no time limit, no due time: it waits for the student


def test_a_class_page_grades_its_own_timed_attempts_whose_time_is_up(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3,)), due_at=None, time_limit_minutes=5)
    submission = services.submission_start(assignment=homework, student=student)
    _time_passes(submission.quiz_attempt, 6)
    assert services.assignments_due_sweep(assignments=Assignment.objects.filter(pk=homework.pk)) == 1
    submission.refresh_from_db()
    assert submission.status == "graded"


def test_an_attempt_waiting_for_the_teachers_marks_is_handed_in_not_in_progress(
    school_class, teacher, student
):
    homework = quiz_homework(school_class, knowledge_quiz(teacher, (3,), know="Piłsudski"), max_attempts=1)
    submission = services.submission_start(assignment=homework, student=student)
    quiz_answer(submission, right=1, know_text="Marszałek")  # not a best answer: the teacher marks it
    page = signed_in(student).get(f"/classes/homework/{homework.pk}/")
    submission.refresh_from_db()
    assert submission.status == Submission.Status.SUBMITTED
    assert "Resume" not in page.content.decode()
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert refusal.value.code == "no_attempts_left"


# --- pages ---------------------------------------------------------------------------------------


def test_the_teacher_sets_game_homework_on_the_page(school_class, teacher):
    from tests.games.test_practice import small_deck

    deck = small_deck(teacher)
    response = signed_in(teacher).post(
        f"/classes/{school_class.pk}/homework/new",
        {
            "title": "Duel",
            "kind": "game",
            "deck": deck.pk,
            "mode": "clock",
            "cards_per_player": 5,
            "bot_seconds": "8",
            "bot_accuracy": 80,
            "due_at": (timezone.localtime() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
            "max_attempts": 2,
            "policy": "last",
            "points_possible": "10",
            "publish": "on",
        },
    )
    homework = Assignment.objects.get()
    assert (
        response.status_code == 302
        and response["Location"] == f"/classes/{school_class.pk}/homework/{homework.pk}/"
    )
    assert (homework.published, homework.policy, homework.max_attempts, homework.practice.mode) == (
        True,
        "last",
        2,
        "clock",
    )


def test_the_homework_form_explains_a_missing_deck_and_writes_nothing(school_class, teacher):
    response = signed_in(teacher).post(
        f"/classes/{school_class.pk}/homework/new",
        {
            "title": "Duel",
            "kind": "game",
            "mode": "clock",
            "cards_per_player": 5,
            "bot_seconds": "8",
            "bot_accuracy": 80,
            "policy": "best",
            "points_possible": "10",
        },
    )
    assert response.status_code == 400
    assert "Choose the deck" in response.content.decode()
    assert not Assignment.objects.exists()


def test_the_student_starts_a_game_homework_and_lands_in_the_duel(school_class, student):
    homework = practice_homework(school_class)
    response = signed_in(student).post(f"/classes/homework/{homework.pk}/", {"mode": "clock"})
    submission = Submission.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/games/sessions/{submission.practice_run.session_id}/"


def test_the_student_starts_a_quiz_homework_and_lands_on_the_attempt(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher))
    response = signed_in(student).post(f"/classes/homework/{homework.pk}/")
    submission = Submission.objects.get()
    assert response["Location"] == f"/games/quizzes/attempts/{submission.quiz_attempt_id}/"


def test_a_refused_start_says_why_on_the_page(school_class, teacher, student):
    homework = quiz_homework(school_class, knowledge_quiz(teacher), max_attempts=1)
    quiz_answer(services.submission_start(assignment=homework, student=student), right=4)
    response = signed_in(student).post(f"/classes/homework/{homework.pk}/")
    assert response.status_code == 400 and "You have used your only attempt" in response.content.decode()


def test_a_student_sees_only_their_own_attempts_and_classes(school_class, teacher, student):
    classmate = UserFactory(username="classmate")
    services.class_join(code=school_class.join_code, student=classmate)
    outsider = UserFactory(username="outsider")
    homework = quiz_homework(school_class, knowledge_quiz(teacher))
    quiz_answer(services.submission_start(assignment=homework, student=classmate), right=4)
    mine = signed_in(student).get(f"/classes/homework/{homework.pk}/").content.decode()
    assert "20 / 20" not in mine and "My attempts" not in mine
    assert signed_in(outsider).get(f"/classes/homework/{homework.pk}/").status_code == 404
    assert signed_in(outsider).post(f"/classes/homework/{homework.pk}/").status_code == 404
    assert Submission.objects.filter(student=outsider).count() == 0


def test_another_teachers_homework_pages_are_404(school_class, teacher, other_teacher, student):
    homework = practice_homework(school_class)
    base = f"/classes/{school_class.pk}/homework/{homework.pk}"
    for client in (signed_in(other_teacher), signed_in(student)):
        assert client.get(f"{base}/").status_code == 404
        assert client.get(f"{base}/edit").status_code == 404
        assert client.post(f"{base}/publish", {"published": "0"}).status_code == 404
    homework.refresh_from_db()
    assert homework.published


def test_the_teachers_result_page_shows_each_students_attempts_and_the_one_that_counts(
    school_class, teacher, student
):
    homework = practice_homework(school_class)
    practice_play(services.submission_start(assignment=homework, student=student), wrong=4)
    practice_play(services.submission_start(assignment=homework, student=student))
    page = signed_in(teacher).get(f"/classes/{school_class.pk}/homework/{homework.pk}/").content.decode()
    assert "5 / 10" in page and "10 / 10" in page
    assert "1 of 1 students graded" in page


def test_my_homework_groups_open_due_soon_upcoming_and_done(school_class, teacher, student):
    now = timezone.now()
    practice_homework(school_class, title="Otwarte", due_at=now + timedelta(days=5))
    practice_homework(school_class, title="Wkrótce", due_at=now + timedelta(hours=5))
    practice_homework(school_class, title="Później", opens_at=now + timedelta(days=1))
    done = practice_homework(school_class, title="Zrobione", max_attempts=1)
    practice_play(services.submission_start(assignment=done, student=student))
    page = signed_in(student).get("/classes/homework/").content.decode()
    order = [
        page.index(text)
        for text in ("Due soon", "Wkrótce", "Open", "Otwarte", "Not open yet", "Później", "Done", "Zrobione")
    ]
    assert order == sorted(order)
    assert "Score: 10 / 10" in page


# --- Knowledge? alone ------------------------------------------------------------------------------


def knowledge_homework(school_class: SchoolClass, **options: Any) -> Assignment:
    from content.models import KnowledgeBoard

    board = KnowledgeBoard.objects.get(owner__isnull=True)  # Talia's default board, published
    return services.assignment_create(
        school_class=school_class,
        by=school_class.teacher,
        title="Wiedza o II RP",
        kind="game",
        game="knowledge_solo",
        game_options={"board": board.pk, **options},
        publish=True,
    )


def test_a_knowledge_game_needs_a_board_and_enough_questions(school_class, teacher):
    with pytest.raises(ClassError) as no_board:
        services.assignment_create(
            school_class=school_class,
            by=teacher,
            title="x",
            kind="game",
            game="knowledge_solo",
            game_options={},
        )
    assert no_board.value.code == "no_board"
    with pytest.raises(ClassError) as too_few:
        knowledge_homework(school_class)  # no questions at all
    assert "6" in str(too_few.value)
    assert not Assignment.objects.exists()


def test_a_knowledge_game_alone_is_graded_by_the_right_guesses_once_it_has_ended(
    school_class, teacher, student
):
    from games.models import GameSession
    from tests.factories import KnowledgeQuestionFactory

    for _n in range(8):
        KnowledgeQuestionFactory(owner=teacher)
    homework = knowledge_homework(school_class)
    submission = services.submission_start(assignment=homework, student=student)
    session = submission.session
    assert session.game == "knowledge" and session.status == GameSession.Status.RUNNING
    assert session.participants.get(player_id="p1").user == student
    response = signed_in(student).post(f"/classes/homework/{homework.pk}/")  # resume
    assert response["Location"] == f"/games/sessions/{session.pk}/"

    # The game ends with three of the student's guesses recorded, two right (the engine's
    # history; a card resolved without a guess does not count).
    history = [
        {"player": "p1", "guess_correct": True},
        {"player": "p1", "guess_correct": False},
        {"player": None, "guess_correct": None},
        {"player": "p1", "guess_correct": True},
    ]
    GameSession.objects.filter(pk=session.pk).update(
        state={**session.state, "history": history}, status=GameSession.Status.FINISHED
    )
    page = signed_in(student).get(f"/classes/homework/{homework.pk}/").content.decode()
    submission.refresh_from_db()
    assert (submission.status, submission.score) == ("graded", Decimal("6.67"))
    assert "Your score: 6.67 / 10" in page


def test_a_knowledge_homework_is_graded_the_moment_the_game_ends(school_class, teacher, student):
    """No page load or sweep needed: the game's last action grades its homework attempt."""
    import random

    from games.engines import engine_for
    from games.models import GameSession, Participant
    from games.services import session_act
    from tests.factories import KnowledgeQuestionFactory

    for _n in range(8):
        KnowledgeQuestionFactory(owner=teacher)
    submission = services.submission_start(assignment=knowledge_homework(school_class), student=student)
    session, engine, rng = submission.session, engine_for("knowledge"), random.Random(4)
    player = Participant.objects.get(session=session, user=student)
    for _step in range(2000):
        session.refresh_from_db()
        if session.status == GameSession.Status.FINISHED:
            break
        state = engine.state_from_dict(session.state)
        session_act(
            participant=player, action=rng.choice(list(engine.legal_actions(state, player.engine_player)))
        )
    submission.refresh_from_db()
    assert session.status == GameSession.Status.FINISHED
    assert submission.status == Submission.Status.GRADED and submission.graded_at is not None


@pytest.mark.parametrize("key", ["assignment:³", "quiz:²", "assignment:"])
def test_a_template_key_without_an_ascii_number_is_refused(school_class, teacher, key):
    with pytest.raises(ClassError) as refusal:
        assignment_from_template(key=key, school_class=school_class, teacher=teacher)
    assert refusal.value.code == "invalid_template"
    assert not Assignment.objects.exists()


def test_a_single_attempt_used_up_is_told_in_the_singular(school_class, teacher, student):
    from django.utils import translation

    homework = quiz_homework(school_class, knowledge_quiz(teacher), max_attempts=1)
    quiz_answer(services.submission_start(assignment=homework, student=student), right=4)
    with pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert str(refusal.value) == "You have used your only attempt at this homework."
    with translation.override("pl"), pytest.raises(ClassError) as refusal:
        services.submission_start(assignment=homework, student=student)
    assert "jedyne podejście" in str(refusal.value)


# --- reads never write (issue 17) ------------------------------------------------------------------


def _overdue_in_progress(school_class: SchoolClass, teacher: Any, student: Any, title: str) -> Submission:
    """A quiz homework whose due time has just passed with the student's attempt in progress:
    no due-time task ran yet (none runs in a test), nor the sweep."""
    homework = quiz_homework(
        school_class, knowledge_quiz(teacher, (3, 1)), due_at=soon(minutes=60), title=title
    )
    submission = services.submission_start(assignment=homework, student=student)
    past = timezone.now() - timedelta(minutes=1)
    Assignment.objects.filter(pk=homework.pk).update(due_at=past)
    QuizAttempt.objects.filter(pk=submission.quiz_attempt_id).update(deadline=past)
    return submission


def test_the_class_gradebook_only_reads_and_shows_an_overdue_attempt_as_being_graded(
    school_class, teacher, student
):
    submission = _overdue_in_progress(school_class, teacher, student, "Quiz 1")
    response, writes = get_writing(signed_in(teacher), reverse("lms:class", args=[school_class.pk]))
    assert (response.status_code, writes) == (200, [])
    assert "one being graded at the due time" in response.content.decode()
    submission.refresh_from_db()
    assert submission.status == "in_progress"  # the due-time task or the sweep grades it


def test_my_homework_list_only_reads_and_shows_an_overdue_attempt_as_done_being_graded(
    school_class, teacher, student
):
    _overdue_in_progress(school_class, teacher, student, "Quiz 1")
    response, writes = get_writing(signed_in(student), reverse("lms:homework"))
    assert (response.status_code, writes) == (200, [])
    page = response.content.decode()
    assert "Being graded at the due time" in page and "In progress: resume" not in page
    [item] = selectors.homework_of(student)
    assert (item.state, item.being_graded, item.in_progress) == ("done", True, False)


def test_opening_one_homework_grades_that_homework_only(school_class, teacher, student):
    """The teacher opens a homework just after its due time and sees its grades; another
    overdue homework of the class waits for its due-time task or the sweep."""
    opened = _overdue_in_progress(school_class, teacher, student, "Quiz 1")
    other = _overdue_in_progress(school_class, teacher, student, "Quiz 2")
    url = reverse("lms:assignment", args=[school_class.pk, opened.assignment_id])
    assert signed_in(teacher).get(url).status_code == 200
    opened.refresh_from_db(), other.refresh_from_db()
    assert (opened.status, other.status) == ("graded", "in_progress")

    student_url = reverse("lms:homework_detail", args=[other.assignment_id])
    assert signed_in(student).get(student_url).status_code == 200
    other.refresh_from_db()
    assert other.status == "graded"


def test_opening_a_homework_with_no_attempt_in_progress_writes_nothing(school_class, teacher, student):
    submission = _overdue_in_progress(school_class, teacher, student, "Quiz 1")
    services.assignment_open(assignment=submission.assignment)
    pages = [
        (teacher, reverse("lms:assignment", args=[school_class.pk, submission.assignment_id])),
        (student, reverse("lms:homework_detail", args=[submission.assignment_id])),
    ]
    for user, url in pages:
        response, writes = get_writing(signed_in(user), url)
        assert (response.status_code, writes) == (200, []), url
