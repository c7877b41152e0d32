"""Shared fixtures. Under CI=true a missing PostgreSQL or Redis fails the run, never skips."""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest
from _pytest.nodeid import NodeId  # pytest 9's node id (no public way to rename a test yet)

from tests import database_template
from tests.factories import AdminFactory, TeacherFactory, UserFactory

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_sessionstart(session: pytest.Session) -> None:
    from django.conf import settings

    _flush_by_delete()
    _restore_in_bulk()
    database_template.install()
    # WhiteNoise looks for collected static files there; the tests find them in place.
    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    if not IN_CI:
        return

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        raise pytest.UsageError(f"CI=true but the tests run on {engine}: set DATABASE_URL to PostgreSQL.")
    if not settings.REDIS_URL:
        raise pytest.UsageError("CI=true but REDIS_URL is not set: the tests need Redis.")


def _flush_by_delete() -> None:
    """A transactional test empties PostgreSQL's tables with DELETE, not TRUNCATE.

    Django's flush truncates every table in one statement; PostgreSQL gives each truncated
    table and index new files and syncs them at commit, about 2.5 s for Talia's tables
    after every browser, live or worker test. A test leaves a few rows, which DELETE
    removes in milliseconds; Django's foreign keys are deferred to the commit, so the order
    does not matter. A flush that resets sequences or cascades to tables outside
    ``available_apps`` keeps Django's TRUNCATE. What the tables hold afterwards is the same.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if not tables or reset_sequences or allow_cascade:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return [f"DELETE FROM {self.quote_name(table)};" for table in tables]

    DatabaseOperations.sql_flush = sql_flush


def _restore_in_bulk() -> None:
    """Serialized rollback writes back what the migrations seeded with one INSERT per model.

    Django deserializes its JSON and saves the rows one by one (permissions, content types,
    periods, the Teachers group: about 0.9 s before every transactional test). The rows are
    parsed once per database and written with one ``bulk_create`` per model (an update
    where the row is there, as ``save()`` does), many-to-many rows too; the tables hold the
    same rows afterwards, and the constraints are checked as Django checks them.
    """
    from django.core import serializers
    from django.db.backends.base.creation import BaseDatabaseCreation
    from django.db.transaction import atomic

    parsed: dict[tuple[str, int], list[tuple[Any, list[Any], list[Any]]]] = {}

    def rows(creation: Any, data: str) -> list[tuple[Any, list[Any], list[Any]]]:
        key = (creation.connection.alias, hash(data))
        if key not in parsed:
            by_model: dict[Any, tuple[list[Any], list[Any]]] = {}
            for found in serializers.deserialize("json", data, using=creation.connection.alias):
                instance = found.object
                model = type(instance)
                objects, links = by_model.setdefault(model, ([], []))
                objects.append(instance)
                for name, targets in (found.m2m_data or {}).items():
                    field = model._meta.get_field(name)
                    through = field.remote_field.through
                    source, target = field.m2m_field_name(), field.m2m_reverse_field_name()
                    links.extend(
                        through(**{f"{source}_id": instance.pk, f"{target}_id": pk}) for pk in targets
                    )
            parsed[key] = [(model, objects, links) for model, (objects, links) in by_model.items()]
        return parsed[key]

    def deserialize_db_from_string(self: Any, data: str) -> None:
        tables = set()
        with atomic(using=self.connection.alias):
            with self.connection.constraint_checks_disabled():
                for model, objects, links in rows(self, data):
                    # Django's save() updates a row that is there: the first transactional
                    # test finds the migrated rows, the ones after it empty tables.
                    fields = [f.name for f in model._meta.concrete_fields if not f.primary_key]
                    manager = model._base_manager.using(self.connection.alias)
                    if fields:
                        manager.bulk_create(
                            objects,
                            update_conflicts=True,
                            unique_fields=[model._meta.pk.name],
                            update_fields=fields,
                        )
                    else:
                        manager.bulk_create(objects, ignore_conflicts=True)
                    tables.add(model._meta.db_table)
                    if links:
                        through = type(links[0])
                        through._base_manager.using(self.connection.alias).bulk_create(
                            links, ignore_conflicts=True
                        )
                        tables.add(through._meta.db_table)
            self.connection.check_constraints(table_names=tables)

    BaseDatabaseCreation.deserialize_db_from_string = deserialize_db_from_string


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


@pytest.fixture(scope="session", autouse=True)
def _fast_passwords():
    """Passwords are hashed with MD5 in the test process: Django's PBKDF2 costs 0.18 CPU
    seconds a password, and a test makes users by the dozen. Signing in still goes through
    the real forms and checks the password; servers the tests start in processes of their
    own (``make run``, the production topology) hash with the shipped settings."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language. A request's ``LocaleMiddleware`` leaves the
    language it chose active in the thread, so a later test in the same worker (an import
    checked in the test's thread, say) would word its messages in a Polish user's language."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


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
