"""The demo content of the browser tests, loaded once per test process and written back after.

``content.demo.loader.demo_content`` builds the demo through the services: about 1,200
queries and a picture check per symbol, some 1.1 CPU seconds of the test process and
PostgreSQL for each of the dozens of browser tests that start from it. The first of them
in a process loads it for real and keeps the rows it added (in every model it wrote to,
many-to-many links included) and the picture files; each later one writes the same
rows back with one ``bulk_create`` per model and copies the files, the owner's foreign
keys pointing at that test's teacher. The tables then hold what ``demo_content`` would have
written, with the same keys and values.

The copy is used only where it is exact: the tables it writes to must hold the same rows
beforehand as when it was taken (the migrations' seeds, which every test starts from).
Anywhere else (a test that made content of its own first), the demo is loaded for real.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction


@dataclass
class _Snapshot:
    #: The rows there before the demo, per model: a copy is exact only on the same rows.
    before: dict[Any, frozenset[Any]]
    #: The rows the demo added, per model, as ``{attname: value}``.
    added: list[tuple[Any, list[dict[str, Any]]]]
    #: Where each model's foreign keys to the user model are (``attname``s).
    user_keys: dict[Any, list[str]]
    media: Path


_snapshot: _Snapshot | None = None
_unusable = False


def _models() -> list[Any]:
    user = get_user_model()
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy and model is not user
    ]


def _pks(model: Any) -> frozenset[Any]:
    return frozenset(model._base_manager.values_list("pk", flat=True))


def _media_files(root: Path) -> set[Path]:
    return {path.relative_to(root) for path in root.rglob("*") if path.is_file()} if root.exists() else set()


def demo_content_for(owner: Any) -> None:
    """``demo_content(owner=owner)``, from this process's copy where it is exact."""
    from content.demo.loader import demo_content

    global _snapshot, _unusable
    if _snapshot is not None and _same_rows_before(_snapshot):
        _write_back(_snapshot, owner)
        return
    if _snapshot is not None or _unusable:
        demo_content(owner=owner)
        return

    models = _models()
    before = {model: _pks(model) for model in models}
    media_root = Path(settings.MEDIA_ROOT)
    files_before = _media_files(media_root)
    demo_content(owner=owner)
    _snapshot = _take(owner, models, before, media_root, files_before)
    _unusable = _snapshot is None


def _take(
    owner: Any,
    models: list[Any],
    before: dict[Any, frozenset[Any]],
    media_root: Path,
    files_before: set[Path],
) -> _Snapshot | None:
    user = get_user_model()
    added: list[tuple[Any, list[dict[str, Any]]]] = []
    user_keys: dict[Any, list[str]] = {}
    touched: dict[Any, frozenset[Any]] = {}
    for model in models:
        after = _pks(model)
        if not after >= before[model]:
            return None  # the demo deleted rows: a copy of what it added would not be it
        new = after - before[model]
        if not new:
            continue
        fields = list(model._meta.concrete_fields)
        rows = list(
            model._base_manager.filter(pk__in=new).order_by("pk").values(*[f.attname for f in fields])
        )
        keys = [f.attname for f in fields if f.is_relation and f.related_model is user]
        for row in rows:
            if any(row[key] not in (None, owner.pk) for key in keys):
                return None  # a user other than the owner: nothing to point it at
        added.append((model, rows))
        user_keys[model] = keys
        touched[model] = before[model]
    media = Path(tempfile.mkdtemp(prefix="talia-demo-media-"))
    for name in _media_files(media_root) - files_before:
        (media / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(media_root / name, media / name)
    return _Snapshot(before=touched, added=added, user_keys=user_keys, media=media)


def _same_rows_before(snapshot: _Snapshot) -> bool:
    return all(_pks(model) == pks for model, pks in snapshot.before.items())


def _write_back(snapshot: _Snapshot, owner: Any) -> None:
    with transaction.atomic():
        for model, rows in snapshot.added:
            keys = snapshot.user_keys[model]
            objects = []
            for row in rows:
                values = dict(row)
                for key in keys:
                    if values[key] is not None:
                        values[key] = owner.pk
                objects.append(model(**values))
            model._base_manager.bulk_create(objects)
        _sequences_past([model for model, _ in snapshot.added])
    media_root = Path(settings.MEDIA_ROOT)
    shutil.copytree(snapshot.media, media_root, dirs_exist_ok=True)


def _sequences_past(models: list[Any]) -> None:
    """Keys written by hand: a sequence behind them (a test that reset the sequences came
    between) moves on past them. One ahead stays ahead, so a key is never handed out twice in
    a process, and nothing a past test left behind (a queued task, a channel group) can meet
    a new row under an old row's key. SQLite's AUTOINCREMENT follows the keys by itself."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            pk = model._meta.pk
            if not pk.get_internal_type().endswith("AutoField"):
                continue
            table, column = model._meta.db_table, pk.column
            sequence = "pg_get_serial_sequence(%s, %s)"
            cursor.execute(
                f"SELECT setval({sequence}, top) FROM (SELECT max({connection.ops.quote_name(column)}) AS top"
                f" FROM {connection.ops.quote_name(table)}) AS keys"
                f" WHERE top > coalesce(pg_sequence_last_value({sequence}::regclass), 0)",
                [table, column, table, column],
            )
