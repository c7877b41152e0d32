"""Shared fixtures. Under CI=true a missing PostgreSQL or Redis fails the run, never skips."""

from __future__ import annotations

import logging
import os

import pytest
from _pytest.nodeid import NodeId  # pytest 9's node id (no public way to rename a test yet)

from tests.factories import AdminFactory, TeacherFactory, UserFactory

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_sessionstart(session: pytest.Session) -> None:
    from django.conf import settings

    # WhiteNoise looks for collected static files there; the tests find them in place.
    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    if not IN_CI:
        return

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        raise pytest.UsageError(f"CI=true but the tests run on {engine}: set DATABASE_URL to PostgreSQL.")
    if not settings.REDIS_URL:
        raise pytest.UsageError("CI=true but REDIS_URL is not set: the tests need Redis.")


@pytest.hookimpl(tryfirst=True)  # before pytest-django sorts the transactional tests last
def pytest_collection_modifyitems(items):
    """Every transactional test starts from the migrated database and leaves it so; the
    production suite runs on one test worker (tests/parallel.py).

    A transactional test flushes the tables afterwards, which would also remove what
    the data migrations seeded (periods, the Teachers group); serialized rollback puts
    it back for the tests that follow.
    """
    _unique_node_ids(items)
    for item in items:
        if item.get_closest_marker("production") is not None:
            # One outside topology for the whole run: its tests take turns on one worker.
            item.add_marker(pytest.mark.xdist_group("production"))
        names = getattr(item, "fixturenames", ())
        marker = item.get_closest_marker("django_db")
        transactional = (
            "transactional_db" in names
            or "celery_worker_real" in names
            or "live_server" in names
            or (marker is not None and marker.kwargs.get("transaction", False))
        )
        if transactional and not (marker is not None and marker.kwargs.get("serialized_rollback")):
            # Prepended: a test's own `django_db(transaction=True)` must not hide it.
            item.add_marker(pytest.mark.django_db(transaction=True, serialized_rollback=True), append=False)


def _unique_node_ids(items) -> None:
    """schemathesis names each operation's case ``test_api_as_admin[GET /api/v1/…]`` but
    gives them all one node id; test workers (tests/parallel.py) tell tests apart by node
    id, and would run one case of each. The name makes the id unique again."""
    seen: dict[str, int] = {}
    for item in items:
        seen[item.nodeid] = seen.get(item.nodeid, 0) + 1
    for item in items:
        if seen[item.nodeid] > 1 and "[" in item.name and not item.nodeid.endswith("]"):
            item._id = NodeId.parse(f"{item.nodeid.rpartition('::')[0]}::{item.name}")


@pytest.fixture
def teacher(db):
    return TeacherFactory()


@pytest.fixture
def other_teacher(db):
    return TeacherFactory()


@pytest.fixture
def student(db):
    return UserFactory()


@pytest.fixture
def admin_user(db):
    return AdminFactory()


@pytest.fixture(autouse=True)
def _media_and_static(settings, tmp_path):
    """Media in a fresh folder per test; static files found where they live (no collectstatic)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _cache_empty():
    """Every test starts with an empty cache: the guessing limits (config/limits.py) and the
    API's throttles count in it, and one test's wrong codes must not refuse the next's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _celery_mode(request):
    """Tasks run eagerly in unit tests; tests marked ``celery`` use a real worker."""
    from config.celery import app

    eager = request.node.get_closest_marker("celery") is None
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = eager
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def celery_worker_real(request):
    """A real Celery worker (threads in this process) consuming from the real broker.

    Needs ``REDIS_URL``; under CI=true its absence fails the test rather than skipping.
    (Checked before the transactional database is set up, so a skip touches nothing.)
    """
    from celery.contrib.testing.worker import start_worker
    from django.conf import settings

    from config.celery import app

    if not settings.REDIS_URL:
        if IN_CI:
            pytest.fail("REDIS_URL is not set: the Celery tests need Redis.")
        pytest.skip("REDIS_URL is not set: the Celery tests need Redis (CI runs them).")
    request.getfixturevalue("transactional_db")
    app.conf.broker_url = settings.REDIS_URL
    app.conf.result_backend = settings.REDIS_URL
    # The test worker sets the root logger up for itself (level ERROR, its own handlers);
    # the tests after it must see warnings as the site logs them.
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        with start_worker(app, perform_ping_check=False, pool="threads", concurrency=2, shutdown_timeout=10):
            yield app
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
