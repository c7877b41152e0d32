"""What the package tests share: making content with pictures, emptying the installation,
and running an import from upload to done (content/packages)."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from content.models import (
    ActivityCard,
    Collection,
    KnowledgeBoard,
    KnowledgeQuestion,
    KnowQuestion,
    PackageImport,
    Symbol,
    SymbolSet,
    SymbolSetMember,
    Tag,
    Theme,
)
from content.packages import services
from content.packages.archive import manifest_of

SVG = (
    b"<?xml version='1.0' encoding='utf-8'?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">"
    b'<rect width="10" height="10" fill="#c8102e" /></svg>'
)


def png_bytes(colour: str = "red", size: int = 64) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, "PNG")
    return buffer.getvalue()


def picture_set(symbol: Symbol, data: bytes, name: str = "picture.png") -> None:
    symbol.picture.save(name, ContentFile(data), save=True)


def exported(file: Any) -> bytes:
    """The bytes of an ``ExportFile``."""
    return bytes(file.file.read())


def manifest(data: bytes) -> dict[str, Any]:
    return manifest_of(data)


def zip_of(entries: Mapping[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def package_bytes(manifest_data: Any, pictures: Mapping[str, bytes] | None = None) -> bytes:
    """A package of ``manifest_data`` (JSON-dumped unless already text or bytes)."""
    if not isinstance(manifest_data, str | bytes):
        manifest_data = json.dumps(manifest_data, ensure_ascii=False)
    return zip_of({"manifest.json": manifest_data, **(pictures or {})})


def upload(data: bytes, name: str = "package.zip") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/zip")


def installation_empty() -> None:
    """Make this database what a second, empty Talia holds: the migrations' periods and
    default board, and no other content, no pictures.

    The rows and files are deleted rather than a second database made: the tests then
    prove the import needs nothing but the package (every uid, key and picture comes
    from it), which is what "another installation" means here.
    """
    names = [name for name in Symbol.objects.exclude(picture="").values_list("picture", flat=True)]
    SymbolSetMember.objects.all().delete()
    SymbolSet.objects.all().delete()
    from games.quiz.models import Quiz

    Quiz.objects.all().delete()
    Symbol.objects.all().delete()
    Collection.objects.all().delete()
    Theme.objects.all().delete()
    ActivityCard.objects.all().delete()
    KnowledgeQuestion.objects.all().delete()
    KnowledgeBoard.objects.exclude(owner__isnull=True).delete()
    KnowQuestion.objects.all().delete()
    Tag.objects.all().delete()
    for name in names:
        default_storage.delete(name)


def package_check(user: Any, data: bytes, capture: Any) -> PackageImport:
    """Upload ``data`` and run its check (the task runs eagerly on commit)."""
    with capture(execute=True):
        job = services.package_import_create(user=user, file=upload(data))
    job.refresh_from_db()
    return job


def package_import(
    user: Any, data: bytes, capture: Any, choices: Mapping[str, str] | None = None
) -> PackageImport:
    """Upload, check, confirm with ``choices`` (the rest the preview's defaults) and write."""
    job = package_check(user, data, capture)
    assert job.state == PackageImport.State.CHECKED, job.error
    with capture(execute=True):
        services.package_import_confirm(job=job, user=user, choices=dict(choices or {}))
    job.refresh_from_db()
    return job


def preview_items(job: PackageImport) -> dict[str, dict[str, Any]]:
    """The preview's items by their label."""
    return {item["label"]: item for part in job.preview["sections"] for item in part["items"]}
