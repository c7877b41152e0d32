"""Namings in play reach the student's memory without anyone opening a page: when their game
ends (``games.signals.session_finished``), and by the sweep for games still running."""

from __future__ import annotations

from typing import Any

import pytest

from config.celery import app
from content.building import deck_plan
from content.models import BuildState, Deck
from games.models import NamingRecord
from lms.classes import services as classes
from lms.progress import services, tasks
from lms.progress.models import NamingWatermark, Review
from lms.progress.services import namings_absorb_sweep
from lms.progress.tasks import namings_absorb_sweep_task
from tests.factories import SymbolFactory, TeacherFactory, UserFactory
from tests.lms.factories_classes import class_with_students, practice_homework, practice_play

pytestmark = pytest.mark.django_db


def _linked(student: Any) -> int:
    return NamingRecord.objects.filter(user=student, symbol__isnull=False).count()


def linked_deck(owner: Any) -> Deck:
    """A built deck of order 3 (13 cards of 4 symbols) whose symbols are the library's."""
    snapshot = {
        "symbols": [
            {
                "id": SymbolFactory().pk,
                "number": n,
                "name": f"Symbol numer {n}",
                "alternative_names": [],
                "picture": "",
            }
            for n in range(1, 14)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": 1}, seed=1)
    return Deck.objects.create(
        name="Talia 13", owner=owner, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )


def _played(student: Any, *, finish: bool, capture: Any) -> Any:
    teacher = TeacherFactory()
    homework = practice_homework(
        class_with_students(teacher, student), game_options={"deck": linked_deck(teacher).pk}
    )
    submission = classes.submission_start(assignment=homework, student=student)
    with capture(execute=True):
        return practice_play(submission, wrong=1, finish=finish)


def test_namings_reach_memory_when_their_game_ends(student, django_capture_on_commit_callbacks):
    run = _played(student, finish=True, capture=django_capture_on_commit_callbacks)
    assert run.finished is not None and _linked(student) >= 2
    reviews = Review.objects.filter(user=student, source="play")
    assert reviews.count() == _linked(student)
    assert set(reviews.values_list("correct", flat=True)) == {0.0, 1.0}  # the "don't know" counts too
    assert NamingWatermark.objects.get(user=student).last_naming_id == NamingRecord.objects.latest("pk").pk


def test_namings_of_a_game_still_running_wait_for_the_sweep(student, django_capture_on_commit_callbacks):
    other = UserFactory()
    run = _played(student, finish=False, capture=django_capture_on_commit_callbacks)
    assert run.finished is None and _linked(student) >= 1
    assert not Review.objects.exists()  # the game runs on: nothing is taken in yet

    assert namings_absorb_sweep_task() == _linked(student)
    assert Review.objects.filter(user=student, source="play").count() == _linked(student)
    assert not Review.objects.filter(user=other).exists()
    assert namings_absorb_sweep_task() == 0  # the watermark remembers


def test_the_sweep_takes_in_only_the_students_with_namings_not_taken_in(
    student, django_capture_on_commit_callbacks, monkeypatch
):
    _played(student, finish=False, capture=django_capture_on_commit_callbacks)
    namings_absorb_sweep(user_ids=[student.pk])
    later = UserFactory()
    _played(later, finish=False, capture=django_capture_on_commit_callbacks)
    taken: list[int] = []
    real = services.namings_absorb

    def spy(*, user: Any) -> int:
        taken.append(user.pk)
        return real(user=user)

    monkeypatch.setattr(services, "namings_absorb", spy)
    assert namings_absorb_sweep() == _linked(later)
    assert taken == [later.pk]


def test_the_sweep_is_scheduled() -> None:
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["progress-namings-sweep"]
    assert entry["task"] == namings_absorb_sweep_task.name and entry["task"] in app.tasks


def test_namings_of_duels_the_teacher_ends_reach_memory(teacher, django_capture_on_commit_callbacks):
    """The teacher ends the class's duels mid-game: their namings go to memory as at a game's end."""
    from games import services as games
    from games.engines import znajznak
    from games.play.znajznak import duels

    run = duels.class_run_create(facilitator=teacher, deck=linked_deck(teacher))
    users = [UserFactory(), UserFactory()]
    for user in users:
        games.session_join(session=run.lobby, user=user)
    [duel] = duels.class_round_start(run=run, by=teacher)
    session = duel.session
    symbol = znajznak.common_symbol(znajznak.state_from_dict(session.state), "p1")
    games.session_apply_action(
        session_id=session.pk, player_id="p1", action={"type": "stop", "symbol": symbol}
    )
    games.session_apply_action(session_id=session.pk, player_id="p1", action={"type": "dont_know"})
    namer = NamingRecord.objects.get(session=session).user
    assert namer in users and not Review.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        duels.class_run_finish(run=run, by=teacher)

    assert Review.objects.filter(user=namer, source="play").count() == _linked(namer) == 1


def test_a_broker_that_cannot_take_the_task_leaves_the_namings_to_the_sweep(
    student, django_capture_on_commit_callbacks, monkeypatch
):
    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(tasks.namings_absorb_task, "delay", broker_down)
    run = _played(student, finish=True, capture=django_capture_on_commit_callbacks)
    assert run.finished is not None and not Review.objects.exists()  # the game's end stands
    assert namings_absorb_sweep_task() == _linked(student) > 0
