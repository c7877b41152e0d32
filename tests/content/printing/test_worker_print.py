"""A print run by the worker a deployment runs (``celery -A config worker``, prefork).

The prefork pool's children are daemonic, and a daemonic process may not start
``multiprocessing`` children: the renderer's pool (``content.printing.pool``) starts its
workers with subprocess instead. This test runs a real worker in a process of its own
(``tests.worker_process``) and reads from its log how many processes rendered the pages.
"""

from __future__ import annotations

import re

import pytest

from content import building
from content.models import BuildState, PrintJob
from content.printing import render
from tests.factories import ActivityCardFactory, TeacherFactory
from tests.worker_process import require_services, wait_for, worker_process

PRINTED = re.compile(r"Printed Activity: (\d+) pages in [\d.]+ s, rendered by (\d+) process")


@pytest.mark.celery
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_print_run_by_the_prefork_worker_renders_in_more_than_one_process(tmp_path):
    require_services()
    assert render.workers() >= 2, "a machine with one CPU renders in one process: nothing to test"
    teacher = TeacherFactory()
    cards = [ActivityCardFactory(owner=teacher) for _ in range(24)]

    with worker_process(tmp_path, tmp_path / "no-hold") as worker:
        job = building.print_job_create(
            user=teacher, kind="activity", selection={"ids": [c.pk for c in cards]}
        )
        wait_for(
            lambda: (
                PrintJob.objects.filter(pk=job.pk)
                .exclude(state__in=[BuildState.QUEUED, BuildState.RUNNING])
                .exists()
            ),
            "the print to end",
            worker,
            timeout=180,
        )
        printed = wait_for(lambda: PRINTED.search(worker.output()), "the print's log line", worker)
        assert "ForkPoolWorker" in worker.output()  # it ran in a prefork child

    job.refresh_from_db()
    assert job.state == BuildState.DONE, job.message
    pages, processes = int(printed[1]), int(printed[2])
    assert pages >= render.MIN_PARALLEL_PAGES
    assert processes == render.workers()
