"""Background work of the content app. Each task loads its row and calls one service.

Tasks run in a Celery worker, or eagerly in the web process in the embedded mode
(``CELERY_TASK_ALWAYS_EAGER``). They never raise into the caller: an unexpected
error is logged and recorded on the job as FAILED with a message for the curator,
so an eager run cannot turn into an error page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from celery import shared_task
from django.db.models import Model
from django.utils.translation import gettext_noop

from . import building, imports, jobs
from .jobs import IMPORT_SOFT_TIME_LIMIT, IMPORT_TIME_LIMIT
from .models import ImportJob, PackageImport
from .packages import services as packages

logger = logging.getLogger(__name__)

#: How every step of an import runs: acknowledged once done, its result unused, with time limits.
IMPORT_TASK: dict[str, Any] = {
    "acks_late": True,
    "ignore_result": True,
    "soft_time_limit": IMPORT_SOFT_TIME_LIMIT,
    "time_limit": IMPORT_TIME_LIMIT,
}

#: What a job says when its step failed unexpectedly: whole sentences, stored in English and
#: translated where they are shown (``{% translate job.error %}``).
UNEXPECTED = {
    (ImportJob, "check"): gettext_noop(
        "Talia hit an unexpected error while checking the file; nothing was imported. "
        "Try again, and tell an admin if it happens again."
    ),
    (ImportJob, "import"): gettext_noop(
        "Talia hit an unexpected error while importing the file; nothing was imported. "
        "Try again, and tell an admin if it happens again."
    ),
    (PackageImport, "check"): gettext_noop(
        "Talia hit an unexpected error while checking the package; nothing was imported. "
        "Try again, and tell an admin if it happens again."
    ),
    (PackageImport, "import"): gettext_noop(
        "Talia hit an unexpected error while importing the package; nothing was imported. "
        "Try again, and tell an admin if it happens again."
    ),
}


def _import_step(
    model: type[Model],
    job_id: int,
    *,
    what: str,
    step: str,
    run: Callable[[Any], Any],
    fail: Callable[[int], Any],
    heartbeat: Any = None,
) -> None:
    """One step of an import (``step`` "check" or "import") of a table or a package: load
    the job, run the service, log a refusal, record an unexpected error with ``fail``."""
    job = model._default_manager.filter(pk=job_id).first()
    if job is None:
        logger.info("%s %s is gone; nothing to %s.", what, job_id, step)
        return
    try:
        with heartbeat or nullcontext():
            run(job)
    except imports.ImportRefused as refused:
        logger.info("%s %s not %s: %s", what, job_id, "checked" if step == "check" else "applied", refused)
    except Exception:
        logger.exception("%s %s: the %s failed", what, job_id, step)
        fail(job_id)


@shared_task(bind=True, **IMPORT_TASK)
def import_job_check_task(self, job_id: int) -> None:  # type: ignore[no-untyped-def]
    """Check the rows of an uploaded import (``imports.import_job_check``)."""
    _import_step(
        ImportJob,
        job_id,
        what="Import job",
        step="check",
        run=lambda job: imports.import_job_check(job=job),
        fail=lambda pk: imports.import_job_fail(job_id=pk, message=UNEXPECTED[ImportJob, "check"]),
        heartbeat=jobs.task_heartbeat(self, ImportJob, job_id),
    )


@shared_task(**IMPORT_TASK)
def import_job_apply_task(job_id: int) -> None:
    """Write a confirmed import (``imports.import_job_apply``).

    No heartbeat: the write holds the job's row lock to its end, which is what the sweep
    looks at (``imports.imports_sweep``).
    """
    _import_step(
        ImportJob,
        job_id,
        what="Import job",
        step="import",
        run=lambda job: imports.import_job_apply(job=job, queued=True),
        fail=lambda pk: imports.import_job_fail(job_id=pk, message=UNEXPECTED[ImportJob, "import"]),
    )


@shared_task(bind=True, **IMPORT_TASK)
def package_import_check_task(self, job_id: int) -> None:  # type: ignore[no-untyped-def]
    """Check an uploaded package (``packages.services.package_import_check``)."""
    _import_step(
        PackageImport,
        job_id,
        what="Package import",
        step="check",
        run=lambda job: packages.package_import_check(job=job),
        fail=lambda pk: packages.package_import_fail(job_id=pk, message=UNEXPECTED[PackageImport, "check"]),
        heartbeat=jobs.task_heartbeat(self, PackageImport, job_id),
    )


@shared_task(**IMPORT_TASK)
def package_import_apply_task(job_id: int) -> None:
    """Write a confirmed package import (``packages.services.package_import_apply``); no
    heartbeat, as for tables: the write holds the job's row lock to its end."""
    _import_step(
        PackageImport,
        job_id,
        what="Package import",
        step="import",
        run=lambda job: packages.package_import_apply(job=job),
        fail=lambda pk: packages.package_import_fail(job_id=pk, message=UNEXPECTED[PackageImport, "import"]),
    )


@shared_task(acks_late=True, ignore_result=True, soft_time_limit=60, time_limit=90)
def jobs_sweep_task() -> None:
    """From beat, every minute: fail the builds, prints and imports whose worker died, and
    queue again the ones that have waited in the queue too long (their task was lost).

    Nothing else recovers them: a prefork child killed mid-task is acknowledged as lost,
    and a whole worker killed leaves its task to Redis's visibility timeout (hours).
    """
    builds = building.builds_sweep()
    imported = imports.imports_sweep() + packages.package_imports_sweep()
    if any(builds.values()) or imported:
        logger.warning("Jobs sweep: %s, %s import(s) failed", builds, imported)
    sent = building.builds_requeue() + imports.imports_requeue() + packages.package_imports_requeue()
    if sent:
        logger.warning("Jobs sweep: %s job(s) waiting too long were sent to the queue again", sent)


# The deck and print tasks live beside; importing them here lets the worker find them.
from .tasks_print import deck_build_task, print_job_run_task  # noqa: E402, F401
