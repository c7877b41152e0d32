"""Files stored before private media keep names anyone could guess: a symbol's picture
under its collection and uploaded file name (``symbols/ipn/jozef-pilsudski.png``), an
import under its month (``imports/2026/11/symbole.csv``), a deck's or a print's files under
the row's number (``decks/12/deck.json``). This moves each such file to the name a new one
gets (``content.media``) and rewrites every stored reference to it: the rows' file fields
and file maps, and the copies of names that games and quizzes keep (a session's assets, a
quiz item's answer key, a deck's plan).

Idempotent: a name that is already opaque is left alone, so running it again (or on a
database with only new files) changes nothing. A row whose file is missing keeps its name
(there is nothing to move, and the row's own page says the file is gone).
"""

from __future__ import annotations

import re
from typing import Any

from django.core.files.storage import default_storage
from django.db import migrations

from content.media import private_folder, random_name

_OPAQUE_UPLOAD = re.compile(r"^(symbols|imports)/[A-Za-z0-9_-]{24}(\.[a-z0-9]{1,7})?$")
_NUMBERED_FOLDER = re.compile(r"^(decks|prints)/(\d{1,12})/")


def _move(old: str, new: str) -> str | None:
    """Move stored file ``old`` to ``new``; the name it got, or None if it was missing."""
    if not default_storage.exists(old):
        return None
    with default_storage.open(old, "rb") as source:
        stored: str = default_storage.save(new, source)
    default_storage.delete(old)
    return stored


def _renamed(value: Any, moved: dict[str, str]) -> Any:
    """``value`` (JSON) with every string that is a moved name, or starts with a moved
    folder, replaced."""
    if isinstance(value, str):
        if value in moved:
            return moved[value]
        match = _NUMBERED_FOLDER.match(value)
        if match and match.group(0) in moved:
            return moved[match.group(0)] + value[match.end() :]
        return value
    if isinstance(value, list):
        return [_renamed(item, moved) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, moved) for key, item in value.items()}
    return value


def _uploads(apps: Any, moved: dict[str, str]) -> None:
    fields = (
        ("Symbol", "picture", "symbols"),
        ("ImportJob", "data_file", "imports"),
        ("ImportJob", "pictures_zip", "imports"),
    )
    for model_name, field, folder in fields:
        model = apps.get_model("content", model_name)
        for row in model.objects.exclude(**{field: ""}).only("pk", field).iterator():
            old = getattr(row, field).name
            if _OPAQUE_UPLOAD.match(old):
                continue
            new = moved.get(old) or _move(old, random_name(folder, old))
            if new is None:
                continue
            moved[old] = new
            model.objects.filter(pk=row.pk).update(**{field: new})


def _generated(apps: Any, moved: dict[str, str]) -> None:
    for model_name, kind in (("Deck", "decks"), ("PrintJob", "prints")):
        model = apps.get_model("content", model_name)
        for row in model.objects.all().iterator():
            folder = f"{kind}/{row.pk}/"
            names = [name for name in _strings(row.files) if name.startswith(folder)]
            names += [name for name in _strings(getattr(row, "plan", {})) if name.startswith(folder)]
            if not names:
                continue
            target = private_folder(kind, row.pk) + "/"
            moved[folder] = target
            for name in dict.fromkeys(names):
                stored = _move(name, target + name[len(folder) :])
                if stored is not None:
                    moved[name] = stored
            changes = {"files": _renamed(row.files, moved)}
            if hasattr(row, "plan"):
                changes["plan"] = _renamed(row.plan, moved)
            model.objects.filter(pk=row.pk).update(**changes)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def _references(apps: Any, moved: dict[str, str]) -> None:
    """The names games and quizzes copied when they were set up."""
    for app_label, model_name, field in (("games", "GameSession", "assets"), ("quiz", "QuizItem", "key")):
        model = apps.get_model(app_label, model_name)
        for row in model.objects.only("pk", field).iterator():
            value = getattr(row, field)
            renamed = _renamed(value, moved)
            if renamed != value:
                model.objects.filter(pk=row.pk).update(**{field: renamed})


def opaque_media_names(apps: Any, schema_editor: Any) -> None:
    moved: dict[str, str] = {}
    _uploads(apps, moved)
    _generated(apps, moved)
    if moved:
        _references(apps, moved)


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0010_import_job_started"),
        # Sessions and quiz items keep copies of stored names; they are rewritten too.
        ("games", "0005_session_live_processes"),
        ("quiz", "0002_review_source"),
    ]

    operations = [migrations.RunPython(opaque_media_names, migrations.RunPython.noop, elidable=True)]
