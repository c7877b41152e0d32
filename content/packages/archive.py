"""A package file: a ZIP with ``manifest.json`` and the pictures it names.

Reading refuses, with a message a teacher can act on, what the table imports refuse
(``content.imports``: too big, not a ZIP, too many files, a ZIP bomb, paths out of the
archive, encrypted files) and what only a package can get wrong: no manifest, a
manifest too big or nested too deep, JSON that is not JSON (or names a field twice),
another format or a newer version. The pictures themselves are checked in full by
``content.pictures`` when the items that name them are checked.

Writing is deterministic: the same manifest and pictures give the same bytes (fixed
dates, the manifest first, the pictures in name order), so two exports of unchanged
content are the same file.
"""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from django.utils.translation import gettext as _

from content import pictures as picture_rules
from content import uploads

__all__ = [
    "FORMAT",
    "MANIFEST",
    "MANIFEST_MAX_BYTES",
    "MAX_DEPTH",
    "VERSION",
    "Package",
    "PackageError",
    "manifest_bytes",
    "package_check_upload",
    "package_open",
    "package_write",
]

FORMAT = "talia-package"
VERSION = 1
MANIFEST = "manifest.json"
#: Far above a manifest of thousands of items (the pictures are separate files).
MANIFEST_MAX_BYTES = 16 * 1024 * 1024
#: JSON nesting: a quiz item is the deepest (manifest → quizzes → quiz → items → item →
#: key → pictures), eight levels; anything far deeper is not Talia's.
MAX_DEPTH = 24
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


class PackageError(ValueError):
    """A package cannot be used; ``messages`` say what is wrong, one sentence each."""

    def __init__(self, *messages: str) -> None:
        super().__init__(messages[0] if messages else "The package cannot be read.")
        self.messages = list(messages) or [str(self)]


def _zip(file: Any) -> zipfile.ZipFile:
    try:
        file.seek(0)
        return zipfile.ZipFile(file)
    except uploads.ZIP_ERRORS as error:
        raise PackageError(
            _(
                "The file is not a Talia package: a package is a ZIP file exported from Talia "
                "(Export as a package). Upload that file as it was downloaded."
            )
        ) from error


def _entries(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by name, after the checks that need no unpacking."""
    try:
        infos = uploads.zip_limits(
            archive, what=_("The package"), limit=uploads.unpacked_max_bytes(), text_files={MANIFEST}
        )
    except uploads.ImportFileError as error:
        raise PackageError(*error.messages) from error
    problems: list[str] = []
    entries: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = uploads.zip_entry_name(info.filename)
        if uploads.zip_path_unsafe(name):
            problems.append(
                _(
                    'The package holds a file with an unsafe path, "%(name)s"; it was not made by '
                    "Talia. Export the package again."
                )
                % {"name": name}
            )
        elif info.flag_bits & 0x1:
            problems.append(
                _('The package\'s file "%(name)s" is encrypted; export the package again.') % {"name": name}
            )
        elif info.is_dir():
            continue
        elif name in entries:
            problems.append(
                _('The package holds two files named "%(name)s"; export the package again.') % {"name": name}
            )
        else:
            entries[name] = info
    if problems:
        raise PackageError(*problems)
    if MANIFEST not in entries:
        raise PackageError(
            _(
                "The file is a ZIP but not a Talia package: it has no %(manifest)s. Export the "
                "package from Talia (Export as a package) and upload that file."
            )
            % {"manifest": MANIFEST}
        )
    size = entries[MANIFEST].file_size
    if size > MANIFEST_MAX_BYTES:
        raise PackageError(
            _(
                "The package's manifest unpacks to %(size)s MB; the limit is %(limit)s MB. Export "
                "fewer items in one package."
            )
            % {"size": uploads.megabytes(size), "limit": uploads.megabytes(MANIFEST_MAX_BYTES)}
        )
    return entries


def package_check_upload(file: Any) -> None:
    """The cheap checks a web request can wait for: size, ZIP, paths, limits, a manifest."""
    size = getattr(file, "size", None)
    limit = uploads.upload_max_bytes()
    if size is not None and size > limit:
        raise PackageError(
            _("The package is %(size)s MB; the limit is %(limit)s MB. Export fewer items in one package.")
            % {"size": uploads.megabytes(size), "limit": uploads.megabytes(limit)}
        )
    with _zip(file) as archive:
        _entries(archive)


def _no_constants(name: str) -> Any:
    raise ValueError(_("%(name)s is not a number JSON allows") % {"name": name})


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(_('the field "%(key)s" is named twice in one object') % {"key": key[:60]})
        result[key] = value
    return result


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(current, dict):
            stack.extend((child, depth + 1) for child in current.values())
        elif isinstance(current, list):
            stack.extend((child, depth + 1) for child in current)
    return False


def _manifest(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> dict[str, Any]:
    try:
        with archive.open(info) as entry:
            data = entry.read(MANIFEST_MAX_BYTES + 1)
    except uploads.ZIP_ERRORS as error:
        raise PackageError(
            _("The package's manifest cannot be unpacked (the file may be damaged).")
        ) from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PackageError(
            _("The package's manifest is not UTF-8 text; it was not made by Talia.")
        ) from error
    try:
        manifest = json.loads(text, object_pairs_hook=_object, parse_constant=_no_constants)
    except json.JSONDecodeError as error:
        raise PackageError(
            _("The package's manifest is not valid JSON (line %(line)s, column %(column)s: %(problem)s).")
            % {"line": error.lineno, "column": error.colno, "problem": error.msg}
        ) from error
    except RecursionError as error:
        raise PackageError(
            _("The package's manifest is nested too deeply; it was not made by Talia.")
        ) from error
    except ValueError as error:  # our hooks, or a number with thousands of digits
        raise PackageError(
            _("The package's manifest cannot be read: %(problem)s.") % {"problem": error}
        ) from error
    if _too_deep(manifest):
        raise PackageError(_("The package's manifest is nested too deeply; it was not made by Talia."))
    if not isinstance(manifest, dict):
        raise PackageError(_("The package's manifest is not a JSON object; it was not made by Talia."))
    if manifest.get("format") != FORMAT:
        raise PackageError(
            _('The manifest does not say "format": "%(format)s"; the file is not a Talia package.')
            % {"format": FORMAT}
        )
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise PackageError(
            _('The manifest\'s "version" must be a whole number from 1; it was not made by Talia.')
        )
    if version > VERSION:
        raise PackageError(
            _(
                "The package was made by a newer Talia (package format version %(version)s); this "
                "Talia reads version %(ours)s. Ask your admin to update Talia, or ask for a package "
                "made by this version."
            )
            % {"version": version, "ours": VERSION}
        )
    return manifest


@dataclass
class Package:
    """An open package: its manifest and the files beside it."""

    manifest: dict[str, Any]
    archive: zipfile.ZipFile
    entries: dict[str, zipfile.ZipInfo]

    def has(self, path: str) -> bool:
        return path in self.entries

    def read(self, path: str) -> bytes:
        """The file ``path`` (a picture); ``PackageError`` when it is absent or too big."""
        info = self.entries.get(path)
        if info is None or path == MANIFEST:
            raise PackageError(_('The package has no file "%(path)s".') % {"path": path[:200]})
        if info.file_size > picture_rules.MAX_BYTES:
            raise PackageError(
                _('The package\'s file "%(path)s" is %(size)s MB; a picture may be at most %(limit)s MB.')
                % {
                    "path": path,
                    "size": uploads.megabytes(info.file_size),
                    "limit": uploads.megabytes(picture_rules.MAX_BYTES),
                }
            )
        try:
            with self.archive.open(info) as entry:
                return entry.read(picture_rules.MAX_BYTES + 1)
        except uploads.ZIP_ERRORS as error:
            raise PackageError(
                _('The package\'s file "%(path)s" cannot be unpacked (it may be damaged).') % {"path": path}
            ) from error


@contextmanager
def package_open(file: Any) -> Iterator[Package]:
    """Open ``file`` (a binary file object) as a package; ``PackageError`` when it is not one."""
    with _zip(file) as archive:
        entries = _entries(archive)
        yield Package(manifest=_manifest(archive, entries[MANIFEST]), archive=archive, entries=entries)


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    """The manifest as written into a package: UTF-8 JSON, indented, keys in their order."""
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def package_write(manifest: Mapping[str, Any], pictures: Mapping[str, bytes]) -> IO[bytes]:
    """The package file (a spooled temporary file, at its start) of ``manifest`` and ``pictures``."""
    spool = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115
    with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            zipfile.ZipInfo(MANIFEST, _FIXED_DATE), manifest_bytes(manifest), zipfile.ZIP_DEFLATED
        )
        for path in sorted(pictures):
            # Pictures are compressed already: stored as they are.
            archive.writestr(zipfile.ZipInfo(path, _FIXED_DATE), pictures[path], zipfile.ZIP_STORED)
    spool.seek(0)
    return spool


def manifest_of(data: bytes) -> dict[str, Any]:
    """The manifest of a package given as bytes (tests and tools)."""
    with package_open(io.BytesIO(data)) as package:
        return package.manifest
