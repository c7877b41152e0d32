"""Files stored before private media, moved to names nobody can guess (``manage.py media_rename_old``).

Before private media a symbol's picture kept its collection and uploaded file name
(``symbols/ipn/jozef-pilsudski.png``), an import its month (``imports/2026/11/symbole.csv``),
and a deck's or a print's files the row's number (``decks/12/deck.json``,
``decks/12/pictures/001.png``). New files get random or keyed names (``content.media``);
this moves the old ones there, with every stored copy of their names: the rows' file
fields, a deck's file map, plan and snapshot, a game session's assets and a quiz item's
answer key.

A batch of rows at a time, in an order that leaves a consistent state wherever it stops:
the files are copied to their new names, then the rows and the copies of the names are
rewritten in one transaction, and only once that is committed are the old files
deleted. Stopped before the commit, the rows still name the old files (the copies are
deleted, or at worst left unnamed); stopped after it, only unnamed old files are left.
Running it again carries on with the rows still named the old way, and finds nothing to
do once all are moved. A row whose file is missing keeps its name: there is nothing to
move, and its page says the file is gone. Works on any storage (a folder, a bucket).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Model

from content.media import private_folder, random_name
from content.models import Deck, ImportJob, PrintJob, Symbol

from .models import GameSession
from .quiz.models import QuizItem

logger = logging.getLogger(__name__)

#: A name ``content.media.random_name`` gave: the folder, 24 random characters, the extension.
OPAQUE_UPLOAD = re.compile(r"^(symbols|imports)/[A-Za-z0-9_-]{24}(\.[^/]*)?$")
#: File fields whose files were uploaded: model, field, folder of the new name.
UPLOADS: tuple[tuple[type[Model], str, str], ...] = (
    (Symbol, "picture", "symbols"),
    (ImportJob, "data_file", "imports"),
    (ImportJob, "pictures_zip", "imports"),
)
#: Rows whose generated files were kept in a folder named by the row's number; the
#: JSON fields that name them.
GENERATED: tuple[tuple[type[Model], str, tuple[str, ...]], ...] = (
    (Deck, "decks", ("files", "plan", "snapshot")),
    (PrintJob, "prints", ("files",)),
)
#: JSON fields of games and quizzes that keep copies of stored names.
REFERENCES: tuple[tuple[type[Model], str], ...] = ((GameSession, "assets"), (QuizItem, "key"))


@dataclass
class Report:
    """What a run did (or, with ``dry_run``, would do)."""

    moved: int = 0  # files copied to a new name whose old one was deleted
    rows: int = 0  # rows whose names were rewritten
    references: int = 0  # game sessions and quiz items whose copies of names were rewritten
    missing: list[str] = field(default_factory=list)  # old names with no file: left as they are
    failed: list[str] = field(default_factory=list)  # what went wrong, batch by batch
    moves: list[tuple[str, str]] = field(default_factory=list)  # (old, new) of each file


@dataclass
class _Row:
    """One row to rewrite: its model, key and the fields holding old names."""

    model: type[Model]
    pk: int
    fields: tuple[str, ...]
    generated: bool


@dataclass
class _Unit:
    """Old files that move together (one upload, or one row's generated folder), and the rows naming them."""

    targets: dict[str, str]
    rows: list[_Row]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def renamed(value: Any, moves: dict[str, str]) -> Any:
    """``value`` (JSON) with every string that is a moved name replaced by its new one."""
    if isinstance(value, str):
        return moves.get(value, value)
    if isinstance(value, list):
        return [renamed(item, moves) for item in value]
    if isinstance(value, dict):
        return {key: renamed(item, moves) for key, item in value.items()}
    return value


def _upload_units() -> Iterator[_Unit]:
    """One unit per old uploaded name, with every row that names it."""
    rows: dict[str, list[_Row]] = {}
    folders: dict[str, str] = {}
    for model, name_field, folder in UPLOADS:
        for pk, name in model._default_manager.exclude(**{name_field: ""}).values_list("pk", name_field):
            if name and not OPAQUE_UPLOAD.match(name):
                rows.setdefault(name, []).append(_Row(model, pk, (name_field,), generated=False))
                folders[name] = folder
    for name in sorted(rows):
        yield _Unit({name: random_name(folders[name], name)}, rows[name])


def _generated_units() -> Iterator[_Unit]:
    """One unit per deck or print with files in its numbered folder, moved to its keyed one."""
    for model, kind, json_fields in GENERATED:
        for values in model._default_manager.order_by("pk").values("pk", *json_fields).iterator():
            pk = values["pk"]
            folder = f"{kind}/{pk}/"
            names = {name for f in json_fields for name in _strings(values[f]) if name.startswith(folder)}
            if names:
                target = private_folder(kind, pk) + "/"
                moves = {name: target + name[len(folder) :] for name in sorted(names)}
                yield _Unit(moves, [_Row(model, pk, json_fields, generated=True)])


def units() -> Iterator[_Unit]:
    """Everything still stored under an old name, one unit of files at a time."""
    yield from _upload_units()
    yield from _generated_units()


def _copy(old: str, new: str) -> str | None:
    """Copy stored file ``old`` to ``new``; the name the copy got, or None if ``old`` is missing."""
    if not default_storage.exists(old):
        return None
    with default_storage.open(old, "rb") as source:
        stored: str = default_storage.save(new, source)
    return stored


def _rewrite_row(row: _Row, moves: dict[str, str]) -> bool:
    """Rewrite one row's names under its lock; whether it changed (it may have moved on meanwhile)."""
    current = row.model._default_manager.select_for_update().filter(pk=row.pk).values(*row.fields).first()
    if current is None:
        return False
    if row.generated:
        changes = {f: renamed(current[f], moves) for f in row.fields}
    else:
        changes = {f: moves.get(current[f], current[f]) for f in row.fields}
    changes = {f: value for f, value in changes.items() if value != current[f]}
    if changes:
        row.model._default_manager.filter(pk=row.pk).update(**changes)
    return bool(changes)


def _rewrite_references(moves: dict[str, str]) -> int:
    """Rewrite the copies of moved names that game sessions and quiz items keep."""
    changed = 0
    for model, json_field in REFERENCES:
        for pk, value in model._default_manager.values_list("pk", json_field).iterator(chunk_size=500):
            new = renamed(value, moves)
            if new != value:
                model._default_manager.filter(pk=pk).update(**{json_field: new})
                changed += 1
    return changed


def _delete(names: Iterable[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:
            logger.warning("Could not delete %s; it is named by no row", name, exc_info=True)


def _run_batch(batch: list[_Unit], report: Report) -> None:
    moves: dict[str, str] = {}
    try:
        for unit in batch:
            for old, target in unit.targets.items():
                stored = _copy(old, target)
                if stored is None:
                    report.missing.append(old)
                else:
                    moves[old] = stored
        if not moves:
            return
        with transaction.atomic():
            rows = sum(_rewrite_row(row, moves) for unit in batch for row in unit.rows)
            references = _rewrite_references(moves)
    except Exception as error:
        logger.exception("Renaming old media failed; this batch keeps its old names")
        report.failed.append(f"{', '.join(sorted(moves) or [n for u in batch for n in u.targets])}: {error}")
        _delete(moves.values())
        return
    # Committed: the old names are named nowhere now.
    _delete(moves)
    report.moved += len(moves)
    report.rows += rows
    report.references += references
    report.moves += sorted(moves.items())


def media_rename_old(
    *, dry_run: bool = False, batch_size: int = 50, progress: Callable[[Report], None] | None = None
) -> Report:
    """Move every file still stored under an old, guessable name to a new one (see the module).

    ``dry_run``: change nothing, report what would move (``moves`` with the new folder or
    name it would get; uploads get a random one). ``progress`` is called after each batch.
    """
    report = Report()
    batch: list[_Unit] = []
    for unit in units():
        if dry_run:
            for old, target in unit.targets.items():
                if default_storage.exists(old):
                    report.moves.append((old, target))
                    report.moved += 1
                else:
                    report.missing.append(old)
            report.rows += len(unit.rows)
            continue
        batch.append(unit)
        if len(batch) >= batch_size:
            _run_batch(batch, report)
            batch = []
            if progress:
                progress(report)
    if batch:
        _run_batch(batch, report)
    return report
