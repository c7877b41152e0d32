"""Jobs whose worker dies: the heartbeat, the sweep, "Try again" (content/jobs.py).

The first tests run the services in this process. The last ones start a real
``celery -A config worker`` (prefork) in a process of its own, SIGKILL its pool process
in the middle of a deck build, a print and an import, and check that the sweep fails
the job with a reason, that "Try again" then finishes it, and that a killed import
wrote no rows. Then the whole worker (its process group) is killed in the middle of a
deck build and of an import's write: the task stays unacknowledged in Redis, and a
fresh worker started after the visibility timeout (seconds here) builds the deck and
writes the import once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connections, transaction
from django.urls import reverse
from django.utils import timezone

from content import building, imports
from content.models import BuildState, Deck, ImportJob, PrintJob, Symbol
from content.tasks import import_job_apply_task
from tests.content.test_building import make_set
from tests.content.test_imports import SYMBOLS, png_bytes, symbol_row, table_bytes, upload, zip_bytes
from tests.factories import ActivityCardFactory, CollectionFactory, TeacherFactory
from tests.worker_process import (
    REDELIVERY,
    kill_whole_worker,
    sweeps_around_a_kill,
    unacknowledged,
    wait_ended,
    wait_for,
    wait_started,
    worker_process,
    worker_test_hold,
)

pytestmark = pytest.mark.django_db

LONG_AGO = timedelta(hours=1)


def _age(model, pk: int, by: timedelta = LONG_AGO) -> None:
    """As if the job's worker had last been heard of ``by`` ago."""
    model.objects.filter(pk=pk).update(updated=timezone.now() - by)


def _deck(teacher, state=BuildState.RUNNING, **options) -> Deck:
    deck = building.deck_create(
        user=teacher,
        symbol_set=make_set(7, owner=teacher),
        options={"render": False, **options},
        enqueue=False,
    )
    Deck.objects.filter(pk=deck.pk).update(state=state, progress=43)
    return deck


# --- The sweep ----------------------------------------------------------------------------------


def test_the_sweep_fails_a_build_whose_heartbeat_stopped_and_says_why(teacher):
    lost, alive, waiting = _deck(teacher), _deck(teacher), _deck(teacher, state=BuildState.QUEUED)
    _age(Deck, lost.pk)
    _age(Deck, waiting.pk)  # a long queue is not a dead worker

    assert building.builds_sweep() == {"Deck": 1, "PrintJob": 0}

    lost.refresh_from_db()
    assert lost.state == BuildState.FAILED
    assert lost.message == building.STOPPED["deck"]
    assert lost.progress == 43  # where it stopped
    assert Deck.objects.get(pk=alive.pk).state == BuildState.RUNNING
    assert Deck.objects.get(pk=waiting.pk).state == BuildState.QUEUED


def test_the_sweep_fails_a_print_whose_heartbeat_stopped(teacher):
    card = ActivityCardFactory(owner=teacher)
    job = building.print_job_create(
        user=teacher, kind="activity", enqueue=False, selection={"ids": [card.pk]}
    )
    PrintJob.objects.filter(pk=job.pk).update(state=BuildState.RUNNING, progress=5)
    _age(PrintJob, job.pk)

    assert building.builds_sweep() == {"Deck": 0, "PrintJob": 1}
    job.refresh_from_db()
    assert (job.state, job.message) == (BuildState.FAILED, building.STOPPED["PDF"])


def test_the_stale_window_is_a_setting(teacher, settings):
    deck = _deck(teacher)
    _age(Deck, deck.pk, timedelta(seconds=90))
    assert building.builds_sweep() == {"Deck": 0, "PrintJob": 0}  # default: five minutes
    settings.JOBS_STALE_SECONDS = 60
    assert building.builds_sweep() == {"Deck": 1, "PrintJob": 0}


def test_a_late_redelivery_does_not_restart_a_failed_or_live_build(teacher):
    failed = _deck(teacher, state=BuildState.FAILED)
    alive = _deck(teacher)

    assert building.deck_build(deck=failed).state == BuildState.FAILED
    assert building.deck_build(deck=alive).state == BuildState.RUNNING  # another worker has it


def test_a_redelivery_takes_over_a_build_whose_worker_died(teacher):
    deck = _deck(teacher)
    _age(Deck, deck.pk)

    assert building.deck_build(deck=deck).state == BuildState.DONE


def _import(teacher, state, **fields) -> ImportJob:
    CollectionFactory()
    job = imports.import_job_create(user=teacher, kind=SYMBOLS, data_file=upload(table_bytes([symbol_row()])))
    ImportJob.objects.filter(pk=job.pk).update(state=state, **fields)
    _age(ImportJob, job.pk)
    return job


def test_a_late_redelivered_write_does_not_import_a_file_checked_again_but_not_confirmed(teacher):
    # The write's worker was killed whole, the sweep failed the import, "Try again" checked
    # it again: it waits for the curator to confirm the new preview.
    job = _import(teacher, ImportJob.State.CHECKED)

    import_job_apply_task(job.pk)  # Redis hands out the killed worker's write, hours later

    assert ImportJob.objects.get(pk=job.pk).state == ImportJob.State.CHECKED
    assert Symbol.objects.count() == 0


def test_the_sweep_fails_a_lost_import_but_not_one_waiting_in_the_queue(teacher):
    checking = _import(teacher, ImportJob.State.CHECKING, started=timezone.now() - LONG_AGO)
    waiting = _import(teacher, ImportJob.State.IMPORTING, started=None)

    assert imports.imports_sweep() == 1

    checking.refresh_from_db()
    assert (checking.state, checking.error) == (ImportJob.State.FAILED, imports.STOPPED)
    assert ImportJob.objects.get(pk=waiting.pk).state == ImportJob.State.IMPORTING


def _stored_by_a_write(job: ImportJob, count: int = 2) -> list[str]:
    """Pictures stored by a write of ``job`` and recorded as it records them; the write
    itself never ends here (as if its worker had been killed)."""
    stored = imports.StoredFiles(job.pk)
    for _ in range(count):
        stored.append(default_storage.save("symbols/picture.png", ContentFile(png_bytes())))
    return list(stored)


@contextmanager
def _row_locked(job: ImportJob) -> Iterator[None]:
    """The job's row locked by another connection, as a live write holds it."""
    locked, done = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                ImportJob.objects.select_for_update().get(pk=job.pk)
                locked.set()
                done.wait(30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert locked.wait(10)
        yield
    finally:
        done.set()
        thread.join()


@pytest.mark.django_db(transaction=True)
def test_the_sweep_deletes_the_pictures_a_lost_write_stored_but_not_a_live_ones(teacher):
    lost = _import(teacher, ImportJob.State.IMPORTING, started=timezone.now() - LONG_AGO)
    alive = _import(teacher, ImportJob.State.IMPORTING, started=timezone.now() - LONG_AGO)
    lost_files, alive_files = _stored_by_a_write(lost), _stored_by_a_write(alive)

    with _row_locked(alive):
        assert imports.imports_sweep() == 1

    assert ImportJob.objects.get(pk=lost.pk).state == ImportJob.State.FAILED
    assert not any(default_storage.exists(name) for name in lost_files)
    assert cache.get(imports.stored_key(lost.pk)) is None
    assert ImportJob.objects.get(pk=alive.pk).state == ImportJob.State.IMPORTING
    assert all(default_storage.exists(name) for name in alive_files)
    assert cache.get(imports.stored_key(alive.pk)) is not None


def test_a_write_taking_over_from_a_killed_one_deletes_its_pictures_and_records_afresh(teacher):
    # Redis hands the killed worker's write out again before any sweep ran.
    job = _import(teacher, ImportJob.State.IMPORTING, started=timezone.now() - LONG_AGO)
    killed = _stored_by_a_write(job)

    assert imports.import_job_apply(job=job, queued=True).state == ImportJob.State.DONE

    assert not any(default_storage.exists(name) for name in killed)
    assert cache.get(imports.stored_key(job.pk)) is None  # the write ended: nothing to clean
    assert Symbol.objects.count() == 1


def test_a_build_waiting_too_long_is_sent_to_the_queue_again_once_per_window(
    teacher, django_capture_on_commit_callbacks
):
    lost, recent = _deck(teacher, state=BuildState.QUEUED), _deck(teacher, state=BuildState.QUEUED)
    _age(Deck, lost.pk)

    with django_capture_on_commit_callbacks(execute=True) as sent:
        assert building.builds_requeue() == 1
    assert len(sent) == 1
    assert Deck.objects.get(pk=lost.pk).state == BuildState.DONE  # the task ran (in-process here)
    assert Deck.objects.get(pk=recent.pk).state == BuildState.QUEUED
    assert building.builds_requeue() == 0


def test_an_import_waiting_too_long_is_sent_again_but_not_one_a_worker_has(
    teacher, django_capture_on_commit_callbacks
):
    waiting = _import(teacher, ImportJob.State.CHECKING, started=None)
    taken = _import(teacher, ImportJob.State.CHECKING, started=timezone.now())

    with django_capture_on_commit_callbacks(execute=True):
        assert imports.imports_requeue() == 1
    assert ImportJob.objects.get(pk=waiting.pk).state == ImportJob.State.CHECKED
    assert ImportJob.objects.get(pk=taken.pk).state == ImportJob.State.CHECKING


# --- Try again ----------------------------------------------------------------------------------


def test_try_again_queues_a_failed_deck_and_it_is_built(teacher, client, django_capture_on_commit_callbacks):
    deck = _deck(teacher, state=BuildState.FAILED)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_detail", args=[deck.pk]))
    assert reverse("decks:deck_retry", args=[deck.pk]) in page.content.decode()

    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = client.post(reverse("decks:deck_retry", args=[deck.pk]))

    assert response.status_code == 302
    assert len(queued) == 1
    deck.refresh_from_db()
    assert deck.state == BuildState.DONE  # tasks run in-process in these tests
    assert deck.message.startswith("Order")


def test_only_a_failed_deck_of_ones_own_can_be_tried_again(teacher, other_teacher):
    deck = _deck(teacher)
    with pytest.raises(building.DeckRefused):
        building.deck_retry(deck=deck, user=teacher)
    Deck.objects.filter(pk=deck.pk).update(state=BuildState.FAILED)
    with pytest.raises(PermissionDenied):
        building.deck_retry(deck=deck, user=other_teacher)


def test_try_again_on_a_print(teacher, client, django_capture_on_commit_callbacks):
    card = ActivityCardFactory(owner=teacher)
    job = building.print_job_create(
        user=teacher, kind="activity", enqueue=False, selection={"ids": [card.pk]}, options={"render": False}
    )
    PrintJob.objects.filter(pk=job.pk).update(state=BuildState.FAILED, message=building.STOPPED["PDF"])
    client.force_login(teacher)

    page = client.get(reverse("decks:print_detail", args=[job.pk])).content.decode()
    assert "stopped before it finished" in page
    assert reverse("decks:print_retry", args=[job.pk]) in page

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("decks:print_retry", args=[job.pk]))
    assert PrintJob.objects.get(pk=job.pk).state == BuildState.DONE


def test_try_again_checks_a_failed_import_again(teacher, client, django_capture_on_commit_callbacks):
    job = _import(teacher, ImportJob.State.FAILED, error=imports.STOPPED, progress=40)
    client.force_login(teacher)

    page = client.get(reverse("content:import_detail", args=[job.pk])).content.decode()
    assert reverse("content:import_retry", args=[job.pk]) in page

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("content:import_retry", args=[job.pk]))

    job.refresh_from_db()
    assert job.state == ImportJob.State.CHECKED  # checked again in-process; confirmed as before
    assert job.error == ""
    assert Symbol.objects.count() == 0


def test_the_reason_is_shown_in_the_teachers_language(teacher, client):
    deck = _deck(teacher, state=BuildState.FAILED)
    Deck.objects.filter(pk=deck.pk).update(message=building.STOPPED["deck"])
    client.force_login(teacher)

    page = client.get(
        reverse("decks:deck_detail", args=[deck.pk]), HTTP_ACCEPT_LANGUAGE="pl"
    ).content.decode()

    assert building.STOPPED["deck"] not in page
    assert "Spróbuj ponownie" in page


# --- A real worker, killed ----------------------------------------------------------------------


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_deck_build_whose_worker_is_killed_is_failed_then_built_again(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    hold.touch()
    teacher = TeacherFactory()
    symbol_set = make_set(7, owner=teacher)

    with worker_process(tmp_path, hold) as worker:
        deck = building.deck_create(user=teacher, symbol_set=symbol_set, options={"sets": 2})
        wait_started(worker, deck, "the build to start")
        alive, killed = sweeps_around_a_kill(worker, building.builds_sweep)
        assert alive == {"Deck": 0, "PrintJob": 0}
        assert killed == {"Deck": 1, "PrintJob": 0}
        deck.refresh_from_db()
        assert deck.state == BuildState.FAILED
        assert deck.message == building.STOPPED["deck"]
        assert deck.progress > 0

        hold.unlink()
        time.sleep(2)  # the worker acknowledged the lost task: nothing builds it behind the teacher
        assert Deck.objects.get(pk=deck.pk).state == BuildState.FAILED

        building.deck_retry(deck=deck, user=teacher)
        wait_ended(worker, deck, "the build to end")
    deck.refresh_from_db()
    assert deck.state == BuildState.DONE, deck.message
    assert set(deck.files) == {"deck.json", "game-cards.pdf", "auxiliary-cards.pdf"}


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_print_whose_worker_is_killed_is_failed_then_printed_again(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    hold.touch()
    teacher = TeacherFactory()
    cards = [ActivityCardFactory(owner=teacher) for _ in range(3)]

    with worker_process(tmp_path, hold) as worker:
        job = building.print_job_create(
            user=teacher, kind="activity", selection={"ids": [c.pk for c in cards]}
        )
        wait_started(worker, job, "the print to start")
        alive, killed = sweeps_around_a_kill(worker, building.builds_sweep)
        assert alive == {"Deck": 0, "PrintJob": 0}
        assert killed == {"Deck": 0, "PrintJob": 1}
        job.refresh_from_db()
        assert (job.state, job.message) == (BuildState.FAILED, building.STOPPED["PDF"])

        hold.unlink()
        building.print_job_retry(job=job, user=teacher)
        wait_ended(worker, job, "the print to end")
    job.refresh_from_db()
    assert job.state == BuildState.DONE, job.message
    assert list(job.files) == ["activity-cards.pdf"]


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_import_whose_worker_is_killed_writes_no_rows_and_can_be_tried_again(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    teacher = TeacherFactory()
    CollectionFactory()
    rows = [symbol_row(number=str(n), name=f"Symbol {n}", picture=f"{n}.png") for n in range(1, 11)]
    pictures = zip_bytes({f"{n}.png": png_bytes(size=64 + n) for n in range(1, 11)})
    media = settings.MEDIA_ROOT / "symbols"

    def state_is(state):
        return lambda: ImportJob.objects.filter(pk=job.pk, state=state).exists()

    def pictures_stored():
        return set(media.rglob("*.png")) if media.exists() else set()

    with worker_process(tmp_path, hold) as worker:
        job = imports.import_job_create(
            user=teacher,
            kind=SYMBOLS,
            data_file=upload(table_bytes(rows)),
            pictures_zip=upload(pictures, "pictures.zip"),
        )
        wait_for(state_is(ImportJob.State.CHECKED), "the check", worker)

        hold.touch()  # the write now stops after its second row, inside its transaction
        imports.import_job_queue_apply(job=job)
        wait_for(
            lambda: (
                ImportJob.objects.get(pk=job.pk).started
                and imports.import_job_progress(ImportJob.objects.get(pk=job.pk)) > 0
            ),
            "the write to start",
            worker,
        )
        assert pictures_stored()  # a row's picture, stored by the write in its transaction
        alive, killed = sweeps_around_a_kill(worker, imports.imports_sweep)
        assert alive == 0  # its worker holds the row: it is alive
        assert killed == 1
        job.refresh_from_db()
        assert (job.state, job.error) == (ImportJob.State.FAILED, imports.STOPPED)
        assert Symbol.objects.count() == 0  # the killed write was rolled back whole
        assert pictures_stored() == set()  # and the sweep deleted the pictures it stored

        hold.unlink()
        imports.import_job_retry(job=job, user=teacher)
        wait_for(state_is(ImportJob.State.CHECKED), "the second check", worker)
        imports.import_job_queue_apply(job=job)
        wait_for(state_is(ImportJob.State.DONE), "the import", worker)

    assert Symbol.objects.count() == 10
    assert {settings.MEDIA_ROOT / symbol.picture.name for symbol in Symbol.objects.all()} == pictures_stored()
    assert len(pictures_stored()) == 10


# --- A whole worker killed: Redis hands its task out again --------------------------------------


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_deck_build_whose_whole_worker_is_killed_is_built_by_the_next_worker(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    hold.touch()
    teacher = TeacherFactory()
    symbol_set = make_set(7, owner=teacher)

    with worker_process(tmp_path / "killed", hold, **REDELIVERY) as worker:
        deck = building.deck_create(user=teacher, symbol_set=symbol_set, options={"sets": 2})
        wait_started(worker, deck, "the build to start")
        kill_whole_worker(worker)
    assert Deck.objects.get(pk=deck.pk).state == BuildState.RUNNING  # nobody said otherwise

    # The first worker_process removed the hold file: the next worker works at full speed.
    with worker_process(tmp_path / "next", hold, **REDELIVERY) as worker:
        wait_ended(worker, deck, "the build to end")
        wait_for(lambda: unacknowledged() == 0, "the task to be acknowledged", worker)
    deck.refresh_from_db()
    assert deck.state == BuildState.DONE, deck.message
    assert set(deck.files) == {"deck.json", "game-cards.pdf", "auxiliary-cards.pdf"}


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_import_whose_whole_worker_is_killed_is_written_once_by_the_next_worker(tmp_path, settings):
    hold = worker_test_hold(tmp_path, settings)
    teacher = TeacherFactory()
    CollectionFactory()
    rows = [symbol_row(number=str(n), name=f"Symbol {n}") for n in range(1, 11)]

    with worker_process(tmp_path / "killed", hold, **REDELIVERY) as worker:
        job = imports.import_job_create(user=teacher, kind=SYMBOLS, data_file=upload(table_bytes(rows)))
        wait_for(
            lambda: ImportJob.objects.filter(pk=job.pk, state=ImportJob.State.CHECKED).exists(),
            "the check",
            worker,
        )

        hold.touch()  # the write now stops after its second row, inside its transaction
        imports.import_job_queue_apply(job=job)
        wait_for(
            lambda: imports.import_job_progress(ImportJob.objects.get(pk=job.pk)) > 0,
            "the write to start",
            worker,
        )
        kill_whole_worker(worker)
    assert ImportJob.objects.get(pk=job.pk).state == ImportJob.State.IMPORTING
    assert Symbol.objects.count() == 0

    # The first worker_process removed the hold file: the next worker works at full speed.
    with worker_process(tmp_path / "next", hold, **REDELIVERY) as worker:
        wait_for(
            lambda: ImportJob.objects.filter(pk=job.pk).exclude(state=ImportJob.State.IMPORTING).exists(),
            "the import to end",
            worker,
        )
        wait_for(lambda: unacknowledged() == 0, "the task to be acknowledged", worker)
    job.refresh_from_db()
    assert job.state == ImportJob.State.DONE, job.error
    assert job.result["new"] == 10  # the killed write left no row behind to update
    assert sorted(Symbol.objects.values_list("name", flat=True)) == sorted(
        f"Symbol {n}" for n in range(1, 11)
    )
