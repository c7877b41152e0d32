"""Each test worker gets services of its own (tests/parallel.py)."""

from __future__ import annotations

import pytest

from tests.parallel import isolate, pytest_collection_modifyitems, redis_url_for, worker_index


def test_worker_index_reads_xdists_worker_name():
    assert worker_index("gw0") == 0
    assert worker_index("gw7") == 7
    assert worker_index("") == 0
    assert worker_index("master") == 0


@pytest.mark.parametrize(
    ("url", "index", "expected"),
    [
        ("redis://127.0.0.1:6379/0", 1, "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/4", 2, "redis://127.0.0.1:6379/6"),
        ("redis://127.0.0.1:6379", 1, "redis://127.0.0.1:6379/1"),
        (
            "rediss://:secret@cache:6380/2?ssl_cert_reqs=none",
            3,
            "rediss://:secret@cache:6380/5?ssl_cert_reqs=none",
        ),
        ("redis://127.0.0.1:6379/4", 0, "redis://127.0.0.1:6379/4"),
        ("", 3, ""),
    ],
)
def test_each_worker_uses_the_next_redis_database(url, index, expected):
    assert redis_url_for(url, index) == expected


def test_a_redis_url_of_another_form_is_refused_rather_than_shared():
    with pytest.raises(ValueError, match="database of its own"):
        redis_url_for("unix:///run/redis.sock", 1)


def test_a_worker_gets_its_own_redis_database_channel_prefix_and_var_folder(tmp_path):
    environ = {
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "LIVE_CHANNEL_PREFIX": "talia",
        "TALIA_VAR_DIR": str(tmp_path),
    }

    isolate(environ, "gw1")

    assert environ == {
        "REDIS_URL": "redis://127.0.0.1:6379/1",
        "LIVE_CHANNEL_PREFIX": "talia-gw1",
        "TALIA_VAR_DIR": str(tmp_path / "test-gw1"),
    }
    assert (tmp_path / "test-gw1").is_dir()


def test_a_run_without_workers_changes_nothing(tmp_path):
    environ = {"REDIS_URL": "redis://127.0.0.1:6379/0", "TALIA_VAR_DIR": str(tmp_path)}

    isolate(environ, "")

    assert environ == {"REDIS_URL": "redis://127.0.0.1:6379/0", "TALIA_VAR_DIR": str(tmp_path)}


class _Item:
    """As much of a pytest item as the run's order reads."""

    def __init__(self, name: str, fixtures: tuple[str, ...] = (), **django_db: bool) -> None:
        self.name = name
        self.fixturenames = fixtures
        self._marker = pytest.mark.django_db(**django_db).mark if django_db or "db" in fixtures else None

    def get_closest_marker(self, name: str):
        return self._marker if name == "django_db" else None


def test_the_run_starts_with_the_tests_without_a_database_and_the_long_ones_of_each_class():
    items = [
        _Item("db unit", ("db",)),
        _Item("transactional unit", ("transactional_db",)),
        _Item("browser page", ("live_server", "browsing")),
        _Item("plain unit"),
        _Item("make run", ("browser",)),
        _Item("real worker", ("celery_worker_real",), transaction=True),
        _Item("another db unit", ("db",)),
    ]
    pytest_collection_modifyitems(items)
    assert [item.name for item in items] == [
        "make run",
        "plain unit",
        "db unit",
        "another db unit",
        "browser page",
        "real worker",
        "transactional unit",
    ]
