"""No index of Talia's own tables is the leading part of another index of the same table.

Django gives every foreign key an index of its own, and a unique constraint that starts with
the same column already serves every look-up, join and cascade by that column. The extra
index is written on every insert and every update of its column: a live action, a naming,
a quiz answer, a review paid for one more index each, for nothing (``bench/README.md``,
``bench_live.py``). Such a foreign key says ``db_index=False`` and why.

Many-to-many tables that Django makes itself (``auto_created``) and the tables of installed
libraries are not Talia's to change.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection
from django.db.models import Model

pytestmark = pytest.mark.django_db


def _own_models() -> list[type[Model]]:
    root = Path(settings.BASE_DIR).resolve()
    venv = root / ".venv"
    models = []
    for app in apps.get_app_configs():
        path = Path(app.path).resolve()
        if not path.is_relative_to(root) or path.is_relative_to(venv):
            continue
        for model in app.get_models():
            if model._meta.managed and not model._meta.proxy and not model._meta.auto_created:
                models.append(model)
    return models


def _conditional(model: type[Model]) -> set[str]:
    """The names of ``model``'s partial indexes and unique constraints (with a ``condition``):
    they hold only some rows, so they serve no look-up of every row."""
    declared = [*model._meta.indexes, *model._meta.constraints]
    return {item.name for item in declared if getattr(item, "condition", None) is not None}


def _redundant(table: str, conditional: Collection[str] = ()) -> list[str]:
    """The plain indexes of ``table`` whose columns lead another index (or unique constraint)
    of the table that holds every row (``conditional`` names the others)."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    indexes = {
        name: tuple(info["columns"])
        for name, info in constraints.items()
        if (info["index"] or info["unique"])
        and info["columns"]
        and not info.get("check")
        and info.get("type") in (None, "btree", "idx")
        and not name.endswith("_like")  # PostgreSQL's pattern_ops twin, for LIKE
        and name not in conditional
    }
    found = []
    for name, columns in indexes.items():
        info = constraints[name]
        if info["unique"] or info["primary_key"]:
            continue
        for other, longer in indexes.items():
            if other != name and len(longer) >= len(columns) and longer[: len(columns)] == columns:
                found.append(f"{table}.{name} {list(columns)} is led by {other} {list(longer)}")
                break
    return found


def test_own_tables_are_found():
    tables = {model._meta.db_table for model in _own_models()}
    assert "games_actionrecord" in tables
    assert "content_symbol" in tables
    assert not any(table.startswith(("auth_", "axes_", "lti_tool_")) for table in tables)


def test_no_index_is_the_leading_part_of_another():
    redundant = [
        line for model in _own_models() for line in _redundant(model._meta.db_table, _conditional(model))
    ]
    assert redundant == []


def test_the_check_finds_a_foreign_key_index_a_unique_constraint_leads():
    """The check itself: a table made here with Django's default foreign-key index beside a
    unique constraint on (the key, another column) is reported."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE talia_index_probe (id integer PRIMARY KEY, owner integer, n integer)")
        cursor.execute("CREATE INDEX talia_index_probe_owner ON talia_index_probe (owner)")
        cursor.execute("CREATE UNIQUE INDEX talia_index_probe_owner_n ON talia_index_probe (owner, n)")
    found = _redundant("talia_index_probe")
    assert (
        len(found) == 1 and "talia_index_probe_owner " in found[0] and "talia_index_probe_owner_n" in found[0]
    )
