"""Quiz generation by a real Celery worker (needs REDIS_URL; CI runs it)."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from content.models import Symbol
from games.quiz import selectors, services
from games.quiz.models import Quiz
from tests.factories import SymbolFactory, TeacherFactory


@pytest.mark.celery
def test_a_quiz_is_generated_by_a_real_worker(celery_worker_real):
    teacher = TeacherFactory()
    for n in range(1, 9):
        SymbolFactory(number=n, name=f"Znak numer {n}", description=f"Opis znaku numer {n} i jego dzieje.")
    pool = selectors.pool_from_symbols(user=teacher, queryset=Symbol.objects.all())
    with transaction.atomic():
        quiz = services.quiz_create(
            owner=teacher, title="Worker", source=Quiz.Source.SELECTION, pool=pool, total=5
        )
        # Queued on commit: the worker cannot see the quiz before this block ends.
        assert Quiz.objects.get(pk=quiz.pk).state == "queued"

    deadline = time.monotonic() + 30
    while True:
        quiz.refresh_from_db()
        if quiz.state in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert quiz.state == "done", quiz.message
    assert quiz.items.count() == 5
