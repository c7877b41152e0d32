"""Parallel test runs (pytest-xdist): each worker gets services of its own.

Loaded with ``-p tests.parallel`` (pyproject's addopts) before pytest-django reads the
settings, so what it changes here is what ``config/settings.py`` sees. pytest-django
already gives each worker its own test database (``test_talia_gw1``); this module does the
same for what the database does not cover:

- the Redis database (cache, Celery broker and results): worker ``gwN`` uses the number in
  ``REDIS_URL`` plus N, so one worker's ``cache.clear()`` or Celery worker never sees
  another's keys or tasks (``REDIS_URL=redis://…/0`` with two workers uses 0 and 1);
- the channel layer's prefix (``LIVE_CHANNEL_PREFIX``), so live groups never cross;
- ``TALIA_VAR_DIR``, so files kept there (the demo logins, the static stamp) never race.

The tests that share one outside topology (``tests/production/``) run on one worker
(``xdist_group``; the Makefile asks for ``--dist loadgroup``).
"""

from __future__ import annotations

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
#: The run's ``TALIA_VAR_DIR`` before each worker got a folder of its own in it: what the
#: workers share (``tests/config/embedded_run.py``'s migrated SQLite database).
SHARED_VAR_DIR = os.environ.get("TALIA_VAR_DIR") or os.path.join(ROOT, "var")


def worker_index(worker: str) -> int:
    """``gw3`` → 3; the controller or a run without xdist → 0."""
    match = re.fullmatch(r"gw(\d+)", worker)
    return int(match.group(1)) if match else 0


def redis_url_for(url: str, index: int) -> str:
    """The same server with the database number moved up by ``index``."""
    if not url or index == 0:
        return url
    match = re.fullmatch(r"(rediss?://[^/?#]*)(?:/(\d*))?([?#].*)?", url)
    if match is None:
        raise ValueError(f"REDIS_URL {url!r}: cannot give each test worker a database of its own")
    base, number, rest = match.group(1), match.group(2), match.group(3) or ""
    return f"{base}/{int(number or 0) + index}{rest}"


def isolate(environ: os._Environ[str] | dict[str, str], worker: str) -> None:
    index = worker_index(worker)
    if not worker:
        return
    if environ.get("REDIS_URL"):
        environ["REDIS_URL"] = redis_url_for(environ["REDIS_URL"], index)
    environ["LIVE_CHANNEL_PREFIX"] = f"{environ.get('LIVE_CHANNEL_PREFIX', 'talia-live')}-{worker}"
    var_dir = environ.get("TALIA_VAR_DIR") or os.path.join(ROOT, "var")
    environ["TALIA_VAR_DIR"] = os.path.join(var_dir, f"test-{worker}")
    os.makedirs(environ["TALIA_VAR_DIR"], exist_ok=True)


isolate(os.environ, WORKER)


# --- the order of the run -----------------------------------------------------------------


def _order(item) -> tuple[int, int]:
    """Where a test goes in the run: (class, long first).

    Classes as pytest-django sorts them (the database tests, then the transactional ones),
    but the tests that use no test database first: among them are the longest of all (the
    production suite, ``make run``'s own), which otherwise end the run on one worker while
    the others wait. Within a class, the tests that drive a browser or a real Celery
    worker first, so that the run ends on short ones that fill every worker to the end.
    """
    names = getattr(item, "fixturenames", ())
    marker = item.get_closest_marker("django_db")
    if (
        marker is None
        and "db" not in names
        and "transactional_db" not in names
        and "live_server" not in names
    ):
        group = 0
    elif (
        "transactional_db" in names
        or "live_server" in names
        or (marker is not None and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")))
    ):
        group = 2
    else:
        group = 1
    long = "live_server" in names or "celery_worker_real" in names or "browser" in names
    return group, 0 if long else 1


def pytest_collection_modifyitems(items) -> None:
    """Runs after pytest-django's sort (``tryfirst`` there, a plain hook here), and sorts
    stably, so tests keep their file order within each place."""
    items.sort(key=_order)
