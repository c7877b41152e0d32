"""Grading homework: the attempt policy (best, last, first), due-time grading, the LMS outbox hook."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from games.models import GameSession, PracticeRun
from lms import grading
from lms.classes import services
from lms.models import Assignment, Grade, Submission
from tests.lms.factories_classes import class_with_students, practice_homework, practice_play


@pytest.fixture
def homework(teacher: Any, student: Any) -> Assignment:
    return practice_homework(class_with_students(teacher, student), max_attempts=None)


@pytest.fixture
def outbox(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Decimal, Decimal, int | None]]:
    """What ``lms.grading`` handed to the LMS outbox: (score, max_score, counted submission)."""
    sent: list[tuple[Decimal, Decimal, int | None]] = []
    from lms.lti import outbox as lti_outbox

    monkeypatch.setattr(
        lti_outbox,
        "score_enqueue",
        lambda *, grade: sent.append((grade.score, grade.max_score, grade.submission_id)),
    )
    return sent


def graded(assignment: Assignment, student: Any, *fractions: str) -> list[Submission]:
    """Attempts graded in order with these fractions of the points (through the grading service)."""
    made = []
    for number, fraction in enumerate(
        fractions, start=1 + assignment.submissions.filter(student=student).count()
    ):
        submission = Submission.objects.create(assignment=assignment, student=student, number=number)
        grading.submission_score(submission=submission, fraction=Decimal(fraction))
        made.append(submission)
    return made


def counted(assignment: Assignment, student: Any) -> Grade:
    return Grade.objects.get(assignment=assignment, student=student)


# --- the policy ----------------------------------------------------------------------------------


def test_policy_best_counts_the_highest_score_and_the_earlier_attempt_on_a_tie(homework, student):
    first, second, third = graded(homework, student, "0.4", "0.9", "0.9")
    grade = counted(homework, student)
    assert (grade.score, grade.max_score, grade.submission) == (Decimal("9.00"), Decimal("10.00"), second)


def test_policy_last_counts_the_latest_attempt_even_when_it_is_worse(homework, student):
    homework.policy = Assignment.Policy.LAST
    homework.save()
    *_, last = graded(homework, student, "0.9", "0.3")
    assert counted(homework, student).submission == last
    assert counted(homework, student).score == Decimal("3.00")


def test_policy_first_counts_the_first_attempt_and_later_ones_change_nothing(homework, student, outbox):
    homework.policy = Assignment.Policy.FIRST
    homework.save()
    first, *_ = graded(homework, student, "0.5", "1", "0.2")
    assert counted(homework, student).submission == first
    assert outbox == [(Decimal("5.00"), Decimal("10.00"), first.pk)]


def test_a_changed_counted_grade_goes_to_the_outbox_once_per_change(homework, student, outbox):
    first, second, third = graded(homework, student, "0.5", "0.4", "0.8")
    # best: 5 → (4 is worse: unchanged, nothing sent) → 8
    assert outbox == [
        (Decimal("5.00"), Decimal("10.00"), first.pk),
        (Decimal("8.00"), Decimal("10.00"), third.pk),
    ]


def test_changing_the_policy_chooses_every_counted_grade_again(homework, teacher, student, outbox):
    first, second = graded(homework, student, "0.9", "0.2")
    services.assignment_update(assignment=homework, by=teacher, policy=Assignment.Policy.LAST)
    assert counted(homework, student).submission == second
    assert outbox[-1] == (Decimal("2.00"), Decimal("10.00"), second.pk)


def test_scores_are_kept_out_of_the_points_possible_and_rounded_to_hundredths(teacher, student):
    homework = practice_homework(class_with_students(teacher, student), points_possible="7.5")
    (submission,) = graded(homework, student, "0.3333")
    submission.refresh_from_db()
    assert (submission.score, submission.max_score) == (Decimal("2.50"), Decimal("7.50"))


# --- practice duels report back -------------------------------------------------------------------


def test_a_finished_practice_duel_is_graded_by_its_right_namings(homework, student, outbox):
    submission = services.submission_start(assignment=homework, student=student)
    run = practice_play(submission, wrong=1)  # a hand of 5: 4 namings needed; 1 "don't know" first
    submission.refresh_from_db()
    assert run.finished is not None and (run.named_right, run.named_wrong) == (4, 1)
    assert submission.status == Submission.Status.GRADED
    assert submission.score == Decimal("8.00")  # 4 right of 5 namings made
    assert counted(homework, student).submission == submission
    assert len(outbox) == 1


def test_a_practice_played_outside_homework_is_not_graded(homework, student):
    from games.play.znajznak.practice import practice_start

    run = practice_start(assignment=homework.practice, student=student, mode="clock")
    practice_play(Submission(practice_run=run))
    assert not Grade.objects.exists() and not Submission.objects.exists()


def test_submission_graded_takes_exactly_one_attempt():
    with pytest.raises(TypeError):
        grading.submission_graded()


# --- the due time --------------------------------------------------------------------------------


def test_an_attempt_in_progress_at_the_due_time_is_graded_as_it_stood(teacher, student, outbox):
    homework = practice_homework(
        class_with_students(teacher, student), due_at=timezone.now() + timedelta(hours=1)
    )
    submission = services.submission_start(assignment=homework, student=student)
    practice_play(submission, finish=False)  # one right name, the game goes on
    assert Submission.objects.get().status == Submission.Status.IN_PROGRESS

    assert services.assignments_due_sweep(now=timezone.now()) == 0  # not due yet: nothing happens
    later = homework.due_at + timedelta(seconds=1)
    assert services.assignments_due_sweep(now=later) == 1

    submission.refresh_from_db()
    assert (submission.status, submission.graded_at_due) == (Submission.Status.GRADED, True)
    assert submission.score == Decimal("2.50")  # 1 right of the 4 a game needs
    assert counted(homework, student).score == Decimal("2.50")
    homework.refresh_from_db()
    assert homework.due_graded_at == later
    assert services.assignments_due_sweep(now=later + timedelta(hours=1)) == 0  # once only


def test_a_duel_finished_after_the_due_time_counts_only_what_was_done_by_then(teacher, student):
    homework = practice_homework(
        class_with_students(teacher, student), due_at=timezone.now() + timedelta(hours=1)
    )
    submission = services.submission_start(assignment=homework, student=student)
    practice_play(submission, finish=False)
    Assignment.objects.filter(pk=homework.pk).update(due_at=timezone.now())  # it is due now
    from games.models import NamingRecord

    NamingRecord.objects.update(created=timezone.now() - timedelta(minutes=1))
    practice_play(submission)  # finishes after the due time, before any sweep
    submission.refresh_from_db()
    assert submission.graded_at_due and submission.score == Decimal("2.50")


def test_the_due_task_run_early_does_nothing(teacher, student):
    homework = practice_homework(
        class_with_students(teacher, student), due_at=timezone.now() + timedelta(days=1)
    )
    services.submission_start(assignment=homework, student=student)
    from lms.classes.tasks import assignment_due_grade_task

    assert assignment_due_grade_task.apply(args=(homework.pk,)).get() == 0
    assert Submission.objects.get().status == Submission.Status.IN_PROGRESS


def test_publishing_schedules_the_due_task_at_the_due_time(
    teacher, student, monkeypatch, django_capture_on_commit_callbacks
):
    from lms.classes import tasks

    calls: list[Any] = []
    monkeypatch.setattr(
        tasks.assignment_due_grade_task, "apply_async", lambda args, eta: calls.append((args, eta))
    )
    due = timezone.now() + timedelta(minutes=50)
    with django_capture_on_commit_callbacks(execute=True):
        homework = practice_homework(class_with_students(teacher, student), due_at=due)
    assert calls == [((homework.pk,), due)]


def test_a_due_time_days_away_is_reached_in_hops_shorter_than_the_visibility_timeout(
    teacher, student, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """A task waiting for its ETA past Redis's visibility timeout would be handed out twice."""
    from lms.classes import tasks

    calls: list[Any] = []
    monkeypatch.setattr(tasks.assignment_due_grade_task, "apply_async", lambda args, eta: calls.append(eta))
    hop = timedelta(seconds=settings.TASK_ETA_MAX_SECONDS)
    due = timezone.now() + timedelta(days=3)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        homework = practice_homework(class_with_students(teacher, student), due_at=due)
    assert len(calls) == 1 and before + hop <= calls[0] <= timezone.now() + hop

    # The hop runs early: it grades nothing and schedules the next one (as with a broker).
    tasks.assignment_due_grade_task.app.conf.task_always_eager = False
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.assignment_due_grade_task.apply(args=(homework.pk,)).get() == 0
    assert len(calls) == 2 and calls[1] <= timezone.now() + hop < due


def test_opening_the_homework_grades_due_work_without_a_worker(teacher, student, client):
    """The list of homework only reads (it shows the attempt as being graded); opening the
    homework grades it at the due time."""
    homework = practice_homework(
        class_with_students(teacher, student), due_at=timezone.now() + timedelta(hours=1)
    )
    submission = services.submission_start(assignment=homework, student=student)
    practice_play(submission, finish=False)
    Assignment.objects.filter(pk=homework.pk).update(due_at=timezone.now())  # due now, after the naming
    client.force_login(student)
    response = client.get("/classes/homework/")
    assert response.status_code == 200 and "Being graded at the due time" in response.content.decode()
    submission.refresh_from_db()
    assert submission.status == Submission.Status.IN_PROGRESS
    assert client.get(f"/classes/homework/{homework.pk}/").status_code == 200
    submission.refresh_from_db()
    assert submission.status == Submission.Status.GRADED and submission.graded_at_due
    assert submission.score == Decimal("2.50")
    assert "Score: 2.50 / 10" in client.get("/classes/homework/").content.decode()


def test_the_game_goes_on_but_a_later_finish_does_not_regrade(teacher, student):
    homework = practice_homework(
        class_with_students(teacher, student), due_at=timezone.now() + timedelta(hours=1)
    )
    submission = services.submission_start(assignment=homework, student=student)
    practice_play(submission, finish=False)
    services.assignments_due_sweep(now=homework.due_at + timedelta(minutes=1))
    practice_play(submission)
    submission.refresh_from_db()
    assert PracticeRun.objects.get().finished is not None
    assert (
        GameSession.objects.get(pk=submission.practice_run.session_id).status == GameSession.Status.FINISHED
    )
    assert submission.score == Decimal("2.50")
