"""A real Celery worker whose jobs wait while a flag file exists (tests only).

Run as ``python -m tests.slow_worker worker --pool=prefork ...``. It wraps a few steps
of the real services so that, while ``TALIA_TEST_HOLD_FILE`` exists, a job stops just
after it has shown progress, then hands over to Celery's own command line. A test can
so kill the worker in the middle of a job that runs the production code path; once it
removes the file, the next job runs at full speed.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from content import building, imports  # noqa: E402
from games.engines import quiz as quiz_engine  # noqa: E402

HOLD = Path(os.environ["TALIA_TEST_HOLD_FILE"])


def hold() -> None:
    deadline = time.monotonic() + 120
    while HOLD.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def after(function: Any, when: Any = lambda *args: True) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        if when(*args):
            hold()
        return result

    return wrapper


def before(function: Any) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        hold()
        return function(*args, **kwargs)

    return wrapper


# A deck or print: after each progress step (the first one is 1 % or 5 %).
building._Progress.set = after(building._Progress.set)  # type: ignore[method-assign]
# An import: once the second row is done (the first one's progress is recorded).
imports._percent = after(imports._percent, when=lambda done, total: done >= 2)  # type: ignore[assignment]
# A quiz: after its share-out (50 %), before the items are drawn.
quiz_engine.generate = before(quiz_engine.generate)  # type: ignore[assignment]

if __name__ == "__main__":
    from config.celery import app

    app.worker_main(sys.argv[1:])
