"""Uploads as every import takes them: size limits, ZIP archives that are safe to open,
and the error that tells a curator what to do about a file.

Shared by the table imports (``content.imports``) and the packages
(``content.packages.archive``); it imports no other part of content, so both reach it
without passing through each other.
"""

from __future__ import annotations

import math
import re
import zipfile
import zlib
from collections.abc import Collection
from typing import Any

from django.conf import settings

__all__ = [
    "DEFAULT_MAX_UNPACKED",
    "ImportFileError",
    "ZIP_ERRORS",
    "ZIP_MAX_ENTRIES",
    "ZIP_MAX_RATIO",
    "megabytes",
    "unpacked_max_bytes",
    "upload_bytes",
    "upload_max_bytes",
    "zip_entry_name",
    "zip_limits",
    "zip_path_unsafe",
]

ZIP_MAX_ENTRIES = 2000
ZIP_MAX_RATIO = 100  # a picture never shrinks a hundredfold; a ZIP bomb does
DEFAULT_MAX_UNPACKED = 1024 * 1024 * 1024
MIB = 1024 * 1024


class ImportFileError(ValueError):
    """An uploaded file cannot be used; ``messages`` say what to do, one line each."""

    def __init__(self, *messages: str) -> None:
        super().__init__(messages[0] if messages else "The file cannot be read.")
        self.messages = list(messages) or [str(self)]


def upload_max_bytes() -> int:
    return int(settings.TALIA_IMPORT_MAX_BYTES)


def unpacked_max_bytes() -> int:
    return int(getattr(settings, "TALIA_IMPORT_MAX_UNPACKED_BYTES", DEFAULT_MAX_UNPACKED))


def megabytes(size: int) -> str:
    return f"{math.ceil(size * 10 / MIB) / 10:g}"


def upload_bytes(file: Any, *, what: str) -> bytes:
    limit = upload_max_bytes()
    size = getattr(file, "size", None)
    if size is not None and size > limit:
        raise ImportFileError(
            f"The {what} is {megabytes(size)} MB; the limit is {megabytes(limit)} MB. "
            "Split it into smaller files."
        )
    file.seek(0)
    data = file.read(limit + 1)
    if len(data) > limit:
        raise ImportFileError(
            f"The {what} is larger than the limit of {megabytes(limit)} MB. Split it into smaller files."
        )
    return bytes(data)


ZIP_ERRORS = (
    zipfile.BadZipFile,
    NotImplementedError,
    OSError,
    EOFError,
    zlib.error,
    RuntimeError,
    ValueError,
)


def zip_entry_name(name: str) -> str:
    return name.replace("\\", "/")


def zip_path_unsafe(name: str) -> bool:
    return (
        name.startswith("/")
        or bool(re.match(r"[A-Za-z]:", name))
        or "\x00" in name
        or ".." in name.split("/")
    )


def zip_limits(
    archive: zipfile.ZipFile,
    *,
    what: str,
    limit: int,
    ratio: bool = True,
    text_files: Collection[str] = (),
) -> list[zipfile.ZipInfo]:
    """Refuse an archive with too many files, too big unpacked, or a file that shrank as
    only a ZIP bomb does. ``text_files`` (a package's manifest) are exempt from the
    ratio, since text does shrink that much; the caller bounds their size."""
    # The sizes in the ZIP's directory bound what zipfile unpacks, so they can be trusted.
    infos = archive.infolist()
    if len(infos) > ZIP_MAX_ENTRIES:
        raise ImportFileError(
            f"{what} holds {len(infos)} files; at most {ZIP_MAX_ENTRIES} "
            "are allowed. Split the pictures into several imports."
        )
    total = sum(info.file_size for info in infos)
    if total > limit:
        raise ImportFileError(
            f"{what} unpacks to {megabytes(total)} MB, more than the limit of {megabytes(limit)} MB; "
            "it may be a ZIP bomb, or too much for one import."
        )
    if not ratio:
        return infos
    for info in infos:
        if (
            zip_entry_name(info.filename) not in text_files
            and info.file_size > MIB
            and info.compress_size
            and info.file_size > ZIP_MAX_RATIO * info.compress_size
        ):
            raise ImportFileError(
                f'{what}\'s file "{zip_entry_name(info.filename)}" unpacks from '
                f"{megabytes(info.compress_size)} MB to {megabytes(info.file_size)} MB, which no picture "
                "does (it looks like a ZIP bomb); remove it and upload the ZIP again."
            )
    return infos
