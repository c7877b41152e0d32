"""A transactional test starts from the rows the migrations seeded (tests/conftest.py empties
PostgreSQL's tables with DELETE and writes the seeded rows back in bulk).

Each test compares every table the migrations fill with the serialized copy Django took
after migrating, many-to-many links included, and then leaves rows of its own behind for
whichever transactional test follows it.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.db import connection

from content.models import Period
from tests.factories import TeacherFactory

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _seeded() -> tuple[Counter[str], Counter[str]]:
    """The rows per model and the many-to-many links per field in Django's serialized copy."""
    rows: Counter[str] = Counter()
    links: Counter[str] = Counter()
    for row in json.loads(connection._test_serialized_contents):
        rows[row["model"]] += 1
        model = apps.get_model(row["model"])
        for name, value in row["fields"].items():
            if model._meta.get_field(name).many_to_many:
                links[f"{row['model']}.{name}"] += len(value)
    return rows, links


def _in_tables(rows: Counter[str], links: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    have_rows: Counter[str] = Counter()
    have_links: Counter[str] = Counter()
    for label in rows:
        have_rows[label] = apps.get_model(label)._base_manager.count()
    for key in links:
        label, name = key.rsplit(".", 1)
        through = apps.get_model(label)._meta.get_field(name).remote_field.through
        have_links[key] = through._base_manager.count()
    return have_rows, have_links


def _leave_rows_behind() -> None:
    teacher = TeacherFactory()
    Group.objects.get(name="Teachers").user_set.add(teacher)
    Period.objects.order_by("pk").first().delete()


@pytest.mark.parametrize("turn", [1, 2])
def test_a_transactional_test_starts_from_the_migrated_rows(turn):
    rows, links = _seeded()
    assert rows["content.period"] > 0 and rows["auth.group"] > 0, "the migrations seed periods and groups"
    assert links, "the seeded groups hold permissions"
    assert _in_tables(rows, links) == (rows, links)
    _leave_rows_behind()
