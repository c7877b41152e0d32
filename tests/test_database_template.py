"""Each worker's test database is a copy of one migrated template (tests/database_template.py):
the template's name follows the code the migrations run, so changed code is migrated anew."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import IN_CI
from tests.database_template import NAME_LIMIT, fingerprint, template_name


def _tree(root: Path) -> Path:
    (root / "content" / "migrations").mkdir(parents=True)
    (root / "content" / "migrations" / "0001_initial.py").write_text("operations = []\n")
    (root / "content" / "demo.json").write_text("[]\n")
    (root / "config").mkdir()
    (root / "config" / "settings.py").write_text("DEBUG = False\n")
    return root


def test_the_fingerprint_follows_every_file_the_migrations_may_read(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = fingerprint(root)
    assert fingerprint(root) == first
    (root / "content" / "demo.json").write_text('[{"name": "Westerplatte"}]\n')
    second = fingerprint(root)
    assert second != first
    (root / "content" / "migrations" / "0002_more.py").write_text("operations = []\n")
    assert fingerprint(root) not in (first, second)


def test_the_fingerprint_ignores_what_no_migration_reads(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = fingerprint(root)
    (root / "content" / "notes.md").write_text("# notes\n")
    (root / "content" / "__pycache__").mkdir()
    (root / "content" / "__pycache__" / "x.py").write_text("cached = True\n")
    (root / "docs").mkdir()
    (root / "docs" / "x.py").write_text("x = 1\n")
    assert fingerprint(root) == first


def test_the_template_name_fits_postgresql_with_its_building_suffix() -> None:
    name = template_name("talia", "0123456789ab")
    assert name == "test_talia_tpl_0123456789ab"
    long = template_name("x" * 80, "0123456789ab")
    assert long.endswith("_tpl_0123456789ab")
    assert len(long + "_building") <= NAME_LIMIT


@pytest.mark.django_db
def test_this_workers_database_is_a_copy_of_the_template_of_this_code() -> None:
    """On PostgreSQL the template of this code exists beside the database the tests use,
    which holds the migrations' rows (the Teachers group)."""
    if connection.vendor != "postgresql":
        reason = "The template is PostgreSQL's; SQLite's test database is in memory."
        if IN_CI:
            pytest.fail(f"{reason} Under CI=true this test never skips.", pytrace=False)
        pytest.skip(reason)
    from django.contrib.auth.models import Group

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", [r"test\_%\_tpl\_" + fingerprint()]
        )
        assert cursor.fetchall(), "no template of this code"
    assert Group.objects.filter(name="Teachers").exists()
