"""The balance simulator's job run by a real Celery worker (needs REDIS_URL; CI runs it)."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from content.models import BuildState
from games.engines.knowledge_board import board_from_dict
from games.knowledge_simulator import balance_figures, cards_from_rows
from games.models import KnowledgeBalanceRun
from games.play.knowledge import balance
from tests.content.test_knowledge_board import make_board
from tests.factories import TeacherFactory
from tests.games.play.test_knowledge_balance import publish_demo_pool


@pytest.mark.celery
def test_a_balance_run_is_played_by_a_real_worker(celery_worker_real):
    teacher = TeacherFactory()
    publish_demo_pool()
    board = make_board(owner=teacher)
    with transaction.atomic():
        run = balance.balance_run_create(user=teacher, board=board, options={"games": 40, "seed": 5})
        # Queued on commit: the worker cannot see the run before this block ends.
        assert KnowledgeBalanceRun.objects.get(pk=run.pk).state == BuildState.QUEUED

    deadline = time.monotonic() + 60
    while True:
        run.refresh_from_db()
        if run.state in (BuildState.DONE, BuildState.FAILED) or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert run.state == BuildState.DONE, run.message
    assert run.progress == 100
    expected = balance_figures(
        board_from_dict(board.as_setup()), cards_from_rows(run.snapshot["questions"]), games=40, seed=5
    )
    assert [(r["variant"], r["harder_start"], r["won"]) for r in run.figures] == [
        (f.variant, f.harder_start, f.won) for f in expected
    ]
