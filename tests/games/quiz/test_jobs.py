"""A quiz whose worker dies while generating it: the sweep fails it, "Try again" finishes it.

The last test kills a real ``celery -A config worker`` (prefork) in the middle of the
generation (tests/worker_process.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from content.models import BuildState, Symbol
from games.quiz import selectors, services
from games.quiz.models import Quiz
from tests.factories import SymbolFactory, TeacherFactory
from tests.worker_process import (
    sweeps_around_a_kill,
    wait_ended,
    wait_started,
    worker_process,
    worker_test_hold,
)

pytestmark = pytest.mark.django_db


def _quiz(teacher, state=BuildState.RUNNING) -> Quiz:
    for n in range(1, 9):
        SymbolFactory(number=n, name=f"Znak numer {n}", description=f"Opis znaku numer {n} i jego dzieje.")
    pool = selectors.pool_from_symbols(user=teacher, queryset=Symbol.objects.all())
    quiz = services.quiz_create(
        owner=teacher, title="Lost", source=Quiz.Source.SELECTION, pool=pool, total=5, enqueue=False
    )
    Quiz.objects.filter(pk=quiz.pk).update(state=state, progress=50)
    return quiz


def test_the_sweep_fails_a_quiz_whose_heartbeat_stopped(teacher):
    lost = _quiz(teacher)
    Quiz.objects.filter(pk=lost.pk).update(updated=timezone.now() - timedelta(hours=1))

    assert services.quizzes_sweep() == 1
    lost.refresh_from_db()
    assert (lost.state, lost.message) == (BuildState.FAILED, services.STOPPED)
    assert services.quizzes_sweep() == 0


def test_a_quiz_waiting_too_long_is_sent_to_the_queue_again(teacher, django_capture_on_commit_callbacks):
    """The rest of a class's batch, say, whose worker died on an earlier quiz."""
    quiz = _quiz(teacher, state=BuildState.QUEUED)
    Quiz.objects.filter(pk=quiz.pk).update(updated=timezone.now() - timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert services.quizzes_requeue() == 1
    assert Quiz.objects.get(pk=quiz.pk).state == BuildState.DONE
    assert services.quizzes_requeue() == 0


def test_a_late_redelivery_leaves_a_failed_quiz_for_try_again(teacher):
    quiz = _quiz(teacher, state=BuildState.FAILED)
    assert services.quiz_generate(quiz=quiz).state == BuildState.FAILED


def test_try_again_on_the_quiz_page(teacher, client, django_capture_on_commit_callbacks):
    quiz = _quiz(teacher, state=BuildState.FAILED)
    Quiz.objects.filter(pk=quiz.pk).update(message=services.STOPPED)
    client.force_login(teacher)

    page = client.get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    assert "stopped before it finished" in page
    assert reverse("quiz:retry", args=[quiz.pk]) in page

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("quiz:retry", args=[quiz.pk]))

    quiz.refresh_from_db()
    assert quiz.state == BuildState.DONE, quiz.message
    assert quiz.items.count() == 5


def test_only_the_owner_retries_only_a_failed_quiz(teacher, other_teacher):
    quiz = _quiz(teacher)
    with pytest.raises(services.QuizError):
        services.quiz_retry(quiz=quiz, by=teacher)
    Quiz.objects.filter(pk=quiz.pk).update(state=BuildState.FAILED)
    with pytest.raises(services.QuizError):
        services.quiz_retry(quiz=quiz, by=other_teacher)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_quiz_whose_worker_is_killed_is_failed_then_generated_again(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    hold.touch()
    teacher = TeacherFactory()
    for n in range(1, 9):
        SymbolFactory(number=n, name=f"Znak numer {n}", description=f"Opis znaku numer {n} i jego dzieje.")
    pool = selectors.pool_from_symbols(user=teacher, queryset=Symbol.objects.all())

    with worker_process(tmp_path, hold) as worker:
        quiz = services.quiz_create(
            owner=teacher, title="Killed", source=Quiz.Source.SELECTION, pool=pool, total=5
        )
        wait_started(worker, quiz, "the generation to start")
        alive, killed = sweeps_around_a_kill(worker, services.quizzes_sweep)
        assert (alive, killed) == (0, 1)
        quiz.refresh_from_db()
        assert (quiz.state, quiz.message) == (BuildState.FAILED, services.STOPPED)
        assert quiz.items.count() == 0

        hold.unlink()
        services.quiz_retry(quiz=quiz, by=teacher)
        wait_ended(worker, quiz, "the generation to end")
    quiz.refresh_from_db()
    assert quiz.state == BuildState.DONE, quiz.message
    assert quiz.items.count() == 5
