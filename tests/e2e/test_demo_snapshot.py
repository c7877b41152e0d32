"""The browser tests' copy of the demo content writes what ``demo_content`` writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from content.models import Symbol, Tag
from tests.e2e import demo_snapshot
from tests.factories import TeacherFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh(monkeypatch):
    """No copy taken yet in this process, whatever an earlier test left."""
    monkeypatch.setattr(demo_snapshot, "_snapshot", None)
    monkeypatch.setattr(demo_snapshot, "_unusable", False)


def _tables(owner: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the demo wrote, in every model, the owner's key replaced by a mark; not the
    times a row was made and changed, which are the load's own, as a new load's are."""
    user_model = type(owner)
    seen = {}
    for model, _rows in demo_snapshot._snapshot.added:
        fields = [
            f
            for f in model._meta.concrete_fields
            if not (getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False))
        ]
        rows = []
        for row in model._base_manager.order_by("pk").values_list(*[f.attname for f in fields]):
            rows.append(
                tuple(
                    "<owner>"
                    if f.is_relation and f.related_model is user_model and value == owner.pk
                    else value
                    for f, value in zip(fields, row, strict=True)
                )
            )
        seen[model._meta.label] = rows
    return seen


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_copy_writes_the_rows_and_pictures_the_loader_wrote(fresh, settings, tmp_path):
    first = TeacherFactory(username="first")
    loaded = transaction.savepoint()
    demo_snapshot.demo_content_for(first)
    assert demo_snapshot._snapshot is not None, "the first load is kept"
    by_loader = _tables(first)
    pictures = _files(Path(settings.MEDIA_ROOT))
    assert Symbol.objects.filter(owner=first).count() == 62
    assert "content.Symbol_themes" in by_loader, "many-to-many links are copied too"
    transaction.savepoint_rollback(loaded)
    assert not Symbol.objects.exists()

    second = TeacherFactory(username="second")
    settings.MEDIA_ROOT = tmp_path / "other-media"
    demo_snapshot.demo_content_for(second)
    assert _tables(second) == by_loader
    assert Symbol.objects.filter(owner=second).count() == 62
    assert _files(Path(settings.MEDIA_ROOT)) == pictures
    assert all(symbol.picture.storage.exists(symbol.picture.name) for symbol in Symbol.objects.all())


def test_after_content_of_the_tests_own_the_demo_is_loaded_for_real(fresh, monkeypatch):
    loads = []
    from content.demo import loader

    real = loader.demo_content
    monkeypatch.setattr(loader, "demo_content", lambda owner: loads.append(owner) or real(owner=owner))
    first = TeacherFactory(username="first")
    loaded = transaction.savepoint()
    demo_snapshot.demo_content_for(first)
    transaction.savepoint_rollback(loaded)

    Tag.objects.create(slug="wlasny")
    second = TeacherFactory(username="second")
    demo_snapshot.demo_content_for(second)
    assert loads == [first, second], "with a row of its own before it, the copy is not used"
    assert Symbol.objects.filter(owner=second).count() == 62


def test_a_sequence_reset_behind_the_copy_moves_past_its_keys(fresh):
    first = TeacherFactory(username="first")
    loaded = transaction.savepoint()
    demo_snapshot.demo_content_for(first)
    top = Symbol.objects.order_by("-pk").values_list("pk", flat=True).first()
    transaction.savepoint_rollback(loaded)
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT setval(pg_get_serial_sequence('content_symbol', 'id'), 1)")
    demo_snapshot.demo_content_for(TeacherFactory(username="second"))
    made = Symbol.objects.create(
        collection=Symbol.objects.first().collection, number=999, name="Nowy", owner=first
    )
    assert made.pk > top
