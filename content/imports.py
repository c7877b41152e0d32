"""Importing content from CSV/XLSX tables and a ZIP of pictures: upload, check, apply.

An import is an ``ImportJob`` that moves CHECKING → CHECKED (or INVALID) → IMPORTING
→ DONE (or FAILED):

1. ``import_job_create`` refuses, up front and with a message a curator can act on,
   an upload that cannot be a table (size, empty, not CSV or XLSX by its content,
   binary data, an unreadable encoding) or a pictures ZIP that is unsafe (not a ZIP,
   absolute or ``..`` paths, too many entries, a ZIP bomb, a file that is not a
   PNG, JPEG, WebP or SVG). Then it stores the files and queues the check.
2. ``import_job_check`` is a dry run that writes no content: it reads the table,
   checks every row with the rules of ``content/resources.py`` and stores a preview
   (each row's action and errors), recording its progress as it goes.
3. ``import_job_apply`` runs only on a CHECKED job. It checks every row again and
   writes them all in one transaction; on any error nothing is written (pictures
   already stored are deleted again) and the job is FAILED with the reason. A write
   whose worker is killed leaves its pictures recorded in the cache, for the sweep
   (``imports_sweep``) or the job's next write to delete.

Text encodings of CSV files: UTF-8 (with or without a BOM, which Excel's "CSV UTF-8"
writes) and UTF-16 with a BOM (Excel's "Unicode text"). A file that is not valid
UTF-8 is read as Windows-1250, which is what Polish Excel writes for plain "CSV";
the delimiter may be a comma, a semicolon (Polish Excel) or a tab, and is chosen by
which one splits the header into known columns.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import secrets
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext_noop

from . import jobs, tasks
from . import pictures as picture_rules
from .models import ImportJob
from .resources import RESOURCES, SKIP, ContentResource, csv_unescape
from .services import PictureError
from .uploads import (
    ZIP_ERRORS,
    ImportFileError,
    megabytes,
    unpacked_max_bytes,
    upload_bytes,
    upload_max_bytes,
    zip_entry_name,
    zip_limits,
    zip_path_unsafe,
)

__all__ = [
    "ImportRefused",
    "PictureArchive",
    "StoredFiles",
    "files_delete",
    "import_job_apply",
    "import_job_check",
    "import_job_create",
    "import_job_fail",
    "import_job_progress",
    "import_job_queue_apply",
    "import_job_retry",
    "imports_requeue",
    "imports_sweep",
    "pictures_zip_check",
    "progress_key",
    "stored_files_delete",
    "stored_key",
    "table_read",
]

logger = logging.getLogger(__name__)

MAX_ROWS = 10_000
WORKBOOK_MAX_UNPACKED = 256 * 1024 * 1024  # far above 10,000 rows of XML
TABLE_SUFFIXES = (".csv", ".xlsx")


class ImportRefused(Exception):
    """The job is not in a state that allows this step; the message says why."""


# --- Reading the table --------------------------------------------------------------------

NOT_A_TABLE = "The file is not a CSV or XLSX table"
_SIGNATURES = (
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG picture"),
    (b"\xff\xd8\xff", "a JPEG picture"),
    (b"GIF8", "a GIF picture"),
    (
        b"\xd0\xcf\x11\xe0",
        "an old Excel (.xls) or Word (.doc) file; save it as XLSX or as CSV UTF-8 and upload that",
    ),
    (b"\x1f\x8b", "a compressed (gzip) file"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"{\\rtf", "an RTF document"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def table_format(data: bytes) -> str:
    """``"csv"`` or ``"xlsx"``, decided by the content (never by the file name)."""
    if not data.strip():
        raise ImportFileError("The file is empty; upload a table with a header row and rows.")
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = set(archive.namelist())
                mimetype = archive.read("mimetype")[:80] if "mimetype" in names else b""
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, zlib.error, EOFError) as error:
            raise ImportFileError(
                f"{NOT_A_TABLE}: it looks like a damaged XLSX or ZIP file; save it again and upload it."
            ) from error
        if "xl/workbook.xml" in names:
            return "xlsx"
        if b"opendocument.spreadsheet" in mimetype:
            kind = "an OpenDocument spreadsheet (.ods); save it as XLSX or CSV UTF-8"
        elif "word/document.xml" in names:
            kind = "a Word document"
        else:
            kind = "a ZIP archive; upload the table itself here, and a ZIP of pictures in the pictures field"
        raise ImportFileError(f"{NOT_A_TABLE}: it is {kind}.")
    for magic, kind in _SIGNATURES:
        if data.startswith(magic):
            raise ImportFileError(f"{NOT_A_TABLE}: it is {kind}.")
    _decode(data)
    return "csv"


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as error:
            raise ImportFileError(f"{NOT_A_TABLE}: its UTF-16 text is damaged.") from error
    elif b"\x00" in data[:65536]:
        raise ImportFileError(
            f"{NOT_A_TABLE}: it holds binary data, not text. Save the "
            "table from your spreadsheet as CSV UTF-8 or XLSX."
        )
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1250")
            except UnicodeDecodeError as error:
                raise ImportFileError(
                    f"{NOT_A_TABLE}: its text is neither UTF-8 nor Windows-1250. Save the "
                    "table from your spreadsheet as CSV UTF-8 and upload that."
                ) from error
    if _CONTROL.search(text[:65536]):
        raise ImportFileError(
            f"{NOT_A_TABLE}: it holds binary data, not text. Save the "
            "table from your spreadsheet as CSV UTF-8 or XLSX."
        )
    return text


def _header_name(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.replace("\ufeff", "").strip().lower())


def _csv_rows(text: str, columns: list[str]) -> Iterator[tuple[int, list[str]]]:
    first = next((line for line in text.splitlines() if line.strip()), "")

    def known(delimiter: str) -> int:
        cells = next(csv.reader([first], delimiter=delimiter), [])
        return sum(_header_name(cell) in columns for cell in cells)

    delimiter = max((",", ";", "\t"), key=known)  # ties keep the comma
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        for line, cells in enumerate(reader, 1):
            yield line, [csv_unescape(cell) for cell in cells]
    except csv.Error as error:
        raise ImportFileError(f"{NOT_A_TABLE}: row {reader.line_num} cannot be read ({error}).") from error


def _xlsx_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value)


def _xlsx_rows(data: bytes) -> Iterator[tuple[int, list[str]]]:
    from openpyxl import load_workbook

    _workbook_limits(data)
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many kinds of errors on bad input
        raise ImportFileError(
            f"{NOT_A_TABLE}: the workbook cannot be read; open it in your "
            "spreadsheet, save it again as XLSX and upload that."
        ) from error
    try:
        if not workbook.worksheets:
            raise ImportFileError(f"{NOT_A_TABLE}: the workbook has no sheet.")
        for line, row in enumerate(workbook.worksheets[0].iter_rows(values_only=True), 1):
            yield line, [_xlsx_cell(value) for value in row]
    finally:
        workbook.close()


@dataclass
class TableRow:
    line: int
    values: dict[str, str]
    problems: list[str] = field(default_factory=list)


@dataclass
class Table:
    columns: list[str]
    rows: list[TableRow]


def _column_label(index: int) -> str:
    label = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        label = chr(65 + remainder) + label
    return label


def _header(cells: list[str], resource: type[ContentResource]) -> list[str]:
    names = [_header_name(cell) for cell in cells]
    while names and not names[-1]:
        names.pop()
    known = resource.columns()
    for index, name in enumerate(names):
        if not name:
            raise ImportFileError(
                f"Column {_column_label(index)} of the header has no name; name it or delete the column."
            )
    doubled = sorted({name for name in names if names.count(name) > 1})
    if doubled:
        raise ImportFileError(
            f"The header names the column {', '.join(doubled)} more than once; keep one of each."
        )
    missing = [column for column in resource.required_columns if column not in names]
    unknown = [name for name in names if name not in known]
    if missing:
        message = f"The header lacks the columns: {', '.join(missing)}."
        if unknown:
            message += f" It has columns Talia does not know: {', '.join(unknown)}."
        raise ImportFileError(message + f" The columns are: {', '.join(known)}.")
    if unknown:
        raise ImportFileError(
            f"The header has columns Talia does not know: "
            f"{', '.join(unknown)}. The columns are: {', '.join(known)}."
        )
    return names


def _table(raw: Iterable[tuple[int, list[str]]], resource: type[ContentResource]) -> Table:
    header: list[str] | None = None
    rows: list[TableRow] = []
    for line, cells in raw:
        if not any(cell.strip() for cell in cells):
            continue
        if header is None:
            header = _header(cells, resource)
            continue
        if len(rows) >= MAX_ROWS:
            raise ImportFileError(
                f"The file has more than {MAX_ROWS} rows; split it into files of at most {MAX_ROWS} rows."
            )
        row = TableRow(line=line, values=dict.fromkeys(header, ""))
        for index, cell in enumerate(cells):
            if index < len(header):
                row.values[header[index]] = cell
            elif cell.strip():
                row.problems.append(
                    f"The row has a value in column {_column_label(index)}, which has no "
                    "name in the header; name the column or clear the value."
                )
                break
        rows.append(row)
    if header is None:
        raise ImportFileError("The file is empty; upload a table with a header row and rows.")
    if not rows:
        raise ImportFileError("The file has a header but no rows.")
    return Table(columns=header, rows=rows)


def table_read(data: bytes, *, resource: type[ContentResource]) -> Table:
    """Read a CSV or XLSX table into rows of text; ImportFileError when it cannot be used."""
    if table_format(data) == "xlsx":
        raw: Iterable[tuple[int, list[str]]] = _xlsx_rows(data)
    else:
        raw = _csv_rows(_decode(data), resource.columns())
    try:
        return _table(raw, resource)
    except ImportFileError:
        raise
    except Exception as error:  # a damaged workbook can fail half-way through
        raise ImportFileError(
            f"{NOT_A_TABLE}: it cannot be read to the end; open it in your "
            "spreadsheet, save it again and upload that."
        ) from error


# --- The pictures ZIP ---------------------------------------------------------------------

_JUNK = re.compile(r"(^|/)(__MACOSX/|\.)|(^|/)(thumbs\.db|desktop\.ini)$", re.IGNORECASE)


def _is_picture_entry(info: zipfile.ZipInfo) -> bool:
    name = zip_entry_name(info.filename)
    return not (info.is_dir() or _JUNK.search(name) or name.lower().endswith(TABLE_SUFFIXES))


def _workbook_limits(data: bytes) -> None:
    """An XLSX is a ZIP of XML: refuse a workbook bomb before openpyxl unpacks it."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        zip_limits(archive, what="The workbook", limit=WORKBOOK_MAX_UNPACKED, ratio=False)


def _looks_like_picture(head: bytes) -> bool:
    if head.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")):
        return True
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return True
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"<")


def pictures_zip_check(file: Any) -> None:
    """Refuse a pictures ZIP that is unsafe or holds something other than pictures.

    Cheap checks only (the web request waits for them): structure, paths, sizes, and
    each picture's first bytes. Every picture a row names is checked in full, and SVGs
    are cleaned, when the rows are checked and again when they are written.
    """
    try:
        file.seek(0)
        archive = zipfile.ZipFile(file)
    except ZIP_ERRORS as error:
        raise ImportFileError(
            "The pictures file is not a ZIP archive; put the pictures in a folder, compress "
            'it ("Compress" or "Send to → Compressed folder") and upload the ZIP.'
        ) from error
    with archive:
        infos = zip_limits(archive, what="The ZIP", limit=unpacked_max_bytes())
        problems = []
        for info in infos:
            name = zip_entry_name(info.filename)
            if zip_path_unsafe(name):
                problems.append(
                    f'The ZIP holds a file with an unsafe path, "{name}"; make the '
                    "ZIP again from the folder of pictures."
                )
            elif info.flag_bits & 0x1:
                problems.append(
                    f'The ZIP\'s file "{name}" is encrypted; make the ZIP again without a password.'
                )
            elif _is_picture_entry(info) and info.file_size > picture_rules.MAX_BYTES:
                problems.append(
                    f'The ZIP\'s file "{name}" is {megabytes(info.file_size)} MB; a picture may be '
                    f"at most {megabytes(picture_rules.MAX_BYTES)} MB, so save a smaller version."
                )
        if problems:
            raise ImportFileError(*problems)
        for info in infos:
            if not _is_picture_entry(info):
                continue
            name = zip_entry_name(info.filename)
            try:
                with archive.open(info) as entry:
                    head = entry.read(1024)
                    if _looks_like_picture(head):
                        continue
                    data = head + entry.read(picture_rules.MAX_BYTES)
            except ZIP_ERRORS:
                problems.append(
                    f'The ZIP\'s file "{name}" cannot be unpacked (it may be damaged); make the ZIP again.'
                )
                continue
            try:
                picture_rules.check_picture(data, name)
            except PictureError as error:
                problems.append(f'The ZIP\'s file "{name}": {error}')
        if problems:
            raise ImportFileError(*problems)


class PictureArchive:
    """The pictures of an uploaded ZIP, found by the names the rows give."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.entries: dict[str, zipfile.ZipInfo] = {}
        for info in archive.infolist():
            name = zip_entry_name(info.filename)
            if _is_picture_entry(info) and not zip_path_unsafe(name):
                self.entries[name] = info
        self.by_lower: dict[str, list[str]] = {}
        self.by_base: dict[str, list[str]] = {}
        for name in self.entries:
            self.by_lower.setdefault(name.lower(), []).append(name)
            self.by_base.setdefault(name.rsplit("/", 1)[-1].lower(), []).append(name)

    def _find(self, name: str) -> zipfile.ZipInfo:
        wanted = zip_entry_name(name.strip()).removeprefix("./").lstrip("/")
        if wanted in self.entries:
            return self.entries[wanted]
        # Then the same path in other letter case, then (for a bare name) any folder.
        tries = [self.by_lower.get(wanted.lower(), [])]
        if "/" not in wanted:
            tries.append(self.by_base.get(wanted.lower(), []))
        for candidates in tries:
            if len(candidates) == 1:
                return self.entries[candidates[0]]
            if len(candidates) > 1:
                raise ValueError(
                    f'The pictures ZIP has several files named "{wanted}"; write the path '
                    f'inside the ZIP instead, e.g. "{sorted(candidates)[0]}".'
                )
        example = next(iter(sorted(self.entries)), "")
        hint = f' (its files are named like "{example}")' if example else " (it holds no pictures)"
        raise ValueError(
            f'The pictures ZIP has no file "{wanted}"{hint}; add the picture or correct the name.'
        )

    def read(self, name: str) -> bytes:
        info = self._find(name)
        try:
            with self.archive.open(info) as entry:
                return entry.read(picture_rules.MAX_BYTES + 1)
        except ZIP_ERRORS as error:
            raise ValueError(
                f'The pictures ZIP\'s file "{info.filename}" cannot be unpacked '
                "(it may be damaged); make the ZIP again."
            ) from error


# --- Services -----------------------------------------------------------------------------


def import_job_create(*, user: Any, kind: str, data_file: Any, pictures_zip: Any = None) -> ImportJob:
    """Check an upload up front, store it and queue the check of its rows.

    Raises ``ValidationError`` keyed by ``kind``, ``data_file`` or ``pictures_zip``
    when the upload is refused; nothing is stored then.
    """
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        raise PermissionDenied("Only teachers and admins import content.")
    errors: dict[str, list[str]] = {}
    if kind not in RESOURCES:
        errors["kind"] = [
            "Choose what the file holds: symbols, Activity cards, Knowledge? questions or quiz questions."
        ]
    data, file_format = b"", "csv"
    try:
        data = upload_bytes(data_file, what="table")
        file_format = table_format(data)
        if file_format == "xlsx":
            _workbook_limits(data)
    except ImportFileError as error:
        errors["data_file"] = error.messages
    if pictures_zip is not None:
        if kind in RESOURCES and not RESOURCES[kind].takes_pictures:
            errors["pictures_zip"] = [
                "Only symbols and quiz questions have pictures; leave the pictures ZIP empty for this "
                "kind of file."
            ]
        else:
            try:
                if getattr(pictures_zip, "size", 0) > upload_max_bytes():
                    raise ImportFileError(
                        f"The pictures ZIP is {megabytes(pictures_zip.size)} MB; the limit is "
                        f"{megabytes(upload_max_bytes())} MB. Split the pictures into several imports."
                    )
                pictures_zip_check(pictures_zip)
            except ImportFileError as error:
                errors["pictures_zip"] = error.messages
    if errors:
        raise ValidationError(errors)

    token = secrets.token_hex(6)
    job = ImportJob(kind=kind, user=user, state=ImportJob.State.CHECKING)
    job.data_file.save(f"{kind}-{token}.{file_format}", ContentFile(data), save=False)
    if pictures_zip is not None:
        pictures_zip.seek(0)
        job.pictures_zip.save(f"{kind}-{token}-pictures.zip", pictures_zip, save=False)
    job.save()
    transaction.on_commit(partial(_enqueue_check, job.pk))
    return job


def _enqueue_check(job_id: int) -> None:
    tasks.import_job_check_task.delay(job_id)


def _enqueue_apply(job_id: int) -> None:
    tasks.import_job_apply_task.delay(job_id)


def _job_table(job: ImportJob) -> Table:
    with job.data_file.open("rb") as file:
        data = file.read()
    return table_read(data, resource=RESOURCES[job.kind])


@contextmanager
def _job_pictures(job: ImportJob) -> Iterator[PictureArchive | None]:
    if not job.pictures_zip:
        yield None
        return
    with job.pictures_zip.open("rb") as file:
        try:
            archive = zipfile.ZipFile(file)
        except ZIP_ERRORS as error:
            raise ImportFileError(
                "The pictures file is no longer a readable ZIP archive; upload it again."
            ) from error
        with archive:
            yield PictureArchive(archive)


def _percent(done: int, total: int) -> int:
    return min(99, done * 100 // total) if total else 0


def _refusal(job: ImportJob) -> str:
    if job.state == ImportJob.State.DONE:
        return "This import is already done."
    if job.state == ImportJob.State.CHECKED:
        return "This import waits for its curator to confirm it."
    return (
        f"This import cannot be applied: it is {job.get_state_display().lower()}. Only a "
        "file whose check found no errors can be imported."
    )


def _author_problem(job: ImportJob) -> str | None:
    user = job.user
    if not user.is_active or not user.can_author:
        return f"{user.get_username()} may no longer import content; nothing was imported."
    return None


def import_job_check(*, job: ImportJob) -> ImportJob:
    """Check every row without writing content; record the preview and the progress."""
    job = ImportJob.objects.select_related("user").get(pk=job.pk)
    if job.state != ImportJob.State.CHECKING:
        raise ImportRefused(f"This import was checked already (it is {job.get_state_display()}).")
    job.started = timezone.now()
    ImportJob.objects.filter(pk=job.pk).update(started=job.started, updated=job.started)
    problem = _author_problem(job)
    if problem:
        return _finish_check(job, state=ImportJob.State.INVALID, error=problem)
    try:
        table = _job_table(job)
        with _job_pictures(job) as pictures:
            resource = RESOURCES[job.kind](user=job.user, pictures=pictures)
            total = len(table.rows)
            ImportJob.objects.filter(pk=job.pk).update(total_rows=total, progress=0)
            rows, progress = [], 0
            for done, row in enumerate(table.rows, 1):
                check = resource.check_row(row.values, line=row.line)
                check.errors[:0] = row.problems
                rows.append(check.as_preview())
                if _percent(done, total) != progress:
                    progress = _percent(done, total)
                    ImportJob.objects.filter(pk=job.pk).update(progress=progress, updated=timezone.now())
    except ImportFileError as error:
        return _finish_check(job, state=ImportJob.State.INVALID, error=str(error))

    counts = {"rows": len(rows), "new": 0, "update": 0, "skip": 0, "invalid": 0}
    for row in rows:
        counts["invalid" if row["errors"] else row["action"]] += 1
    job.total_rows = len(rows)
    job.preview = {"columns": table.columns, "rows": rows, "counts": counts}
    if counts["invalid"]:
        error = (
            f"{counts['invalid']} of {counts['rows']} rows have errors; correct them in "
            "the file and import it again. Nothing was imported."
        )
        return _finish_check(job, state=ImportJob.State.INVALID, error=error)
    return _finish_check(job, state=ImportJob.State.CHECKED, error="")


def _finish_check(job: ImportJob, *, state: str, error: str) -> ImportJob:
    job.state, job.error, job.progress = state, error, 100
    job.save(update_fields=["state", "error", "progress", "total_rows", "preview", "updated"])
    return job


def import_job_queue_apply(*, job: ImportJob) -> ImportJob:
    """Confirm a checked import: mark it IMPORTING and queue the write."""
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().get(pk=job.pk)
        if job.state != ImportJob.State.CHECKED:
            raise ImportRefused(_refusal(job))
        job.state, job.progress, job.started = ImportJob.State.IMPORTING, 0, None
        job.save(update_fields=["state", "progress", "started", "updated"])
        transaction.on_commit(partial(_enqueue_apply, job.pk))
    return job


class _RowFailed(Exception):
    pass


def _job_key(job_id: int, model: type[Model], what: str) -> str:
    if model is ImportJob:
        return f"talia:import-job:{job_id}:{what}"
    return f"talia:{model._meta.label_lower}:{job_id}:{what}"


def progress_key(job_id: int, model: type[Model] = ImportJob) -> str:
    """Where a write in progress keeps its percentage (outside its own transaction)."""
    return _job_key(job_id, model, "progress")


def stored_key(job_id: int, model: type[Model] = ImportJob) -> str:
    """Where a write in progress records the files it stored (outside its own transaction)."""
    return _job_key(job_id, model, "stored")


#: How long a write's stored files stay recorded: far past its hard time limit
#: (``jobs.IMPORT_TIME_LIMIT``) and the sweep's stale window (``JOBS_STALE_SECONDS``).
STORED_TIMEOUT = 24 * 3600


class StoredFiles(list[str]):
    """The files a write stored, each one also recorded in the cache as it is appended.

    A write whose worker is killed (SIGKILL, out of memory, a deploy) runs no cleanup:
    PostgreSQL rolls its rows back, and nothing references the pictures it stored. The
    record outlives it, so the next holder of the job's row lock removes them
    (``stored_files_delete``): the sweep that finds the write dead, or the next write of
    the job. Under ``stored_key``: this write's run and how many names it stored; each
    name under a key of its own (one small cache write per file, however many rows).
    """

    def __init__(self, job_id: int, model: type[Model] = ImportJob) -> None:
        super().__init__()
        self.key = stored_key(job_id, model)
        self.run = secrets.token_hex(8)

    def append(self, name: str) -> None:
        super().append(name)
        record = {"run": self.run, "count": len(self)}
        # One MULTI/EXEC on Redis: the name is never counted without being there.
        cache.set_many({_name_key(self.key, self.run, len(self) - 1): name, self.key: record}, STORED_TIMEOUT)

    def forget(self) -> None:
        """The write ended here, its files referenced or deleted already: drop its record
        (never a later write's)."""
        cache.delete_many([_name_key(self.key, self.run, index) for index in range(len(self))])
        if (cache.get(self.key) or {}).get("run") == self.run:
            cache.delete(self.key)


def _name_key(key: str, run: str, index: int) -> str:
    return f"{key}:{run}:{index}"


def stored_files_delete(job_id: int, model: type[Model] = ImportJob) -> None:
    """Remove the files an earlier write of the job recorded (``StoredFiles``), then the record.

    Only for whoever holds the job's row lock, on a job not done: every write stores its
    files while it holds that lock, so a write that recorded files and no longer holds it
    was rolled back (a committed one made the job done), and nothing references them.
    """
    key = stored_key(job_id, model)
    record = cache.get(key)
    if not record:
        return
    keys = [_name_key(key, record["run"], index) for index in range(record["count"])]
    names = cache.get_many(keys)
    files_delete([names[name_key] for name_key in keys if name_key in names], what=key)
    cache.delete_many([*keys, key])


def import_job_progress(job: Any) -> int:
    """The job's progress in percent (an ``ImportJob`` or a ``PackageImport``); while
    importing it lives outside the transaction."""
    if job.state == ImportJob.State.IMPORTING:
        return int(cache.get(progress_key(job.pk, type(job)), job.progress))
    return int(job.progress)


def import_job_apply(*, job: ImportJob, queued: bool = False) -> ImportJob:
    """Write a checked import, all rows in one transaction, or nothing at all.

    Accepts a CHECKED job (or one that ``import_job_queue_apply`` marked IMPORTING);
    raises ``ImportRefused`` otherwise. ``queued`` (the task): only a job marked
    IMPORTING, that is confirmed by its curator. A write the broker hands out again
    hours later (its worker was killed whole) may find the import failed, tried again
    and checked again: that preview waits for the curator, not for the old write. Every
    row is checked again, since content may have changed since the preview; any error
    leaves the content untouched and the job FAILED with the reason.
    """
    writable = (
        (ImportJob.State.IMPORTING,) if queued else (ImportJob.State.CHECKED, ImportJob.State.IMPORTING)
    )
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().get(pk=job.pk)
        if job.state not in writable:
            raise ImportRefused(_refusal(job))
        job.state, job.progress, job.started = ImportJob.State.IMPORTING, 0, timezone.now()
        job.save(update_fields=["state", "progress", "started", "updated"])

    stored = StoredFiles(job.pk, ImportJob)
    try:
        with transaction.atomic():
            # Held to the end: a second run of the same job waits here, then finds it done.
            job = ImportJob.objects.select_for_update().select_related("user").get(pk=job.pk)
            if job.state != ImportJob.State.IMPORTING:
                raise ImportRefused(_refusal(job))
            stored_files_delete(job.pk, ImportJob)  # a killed earlier run's, not swept yet
            problem = _author_problem(job)
            if problem:
                raise _RowFailed(problem)
            counts = _apply_rows(job, stored)
            job.state, job.progress, job.error = ImportJob.State.DONE, 100, ""
            job.result = counts
            job.save(update_fields=["state", "progress", "error", "result", "updated"])
    except ImportRefused:
        raise
    except (_RowFailed, ImportFileError) as error:
        return _apply_failed(job, stored, str(error))
    except DatabaseError as error:
        logger.warning("Import job %s: the database refused the rows", job.pk, exc_info=True)
        return _apply_failed(
            job,
            stored,
            f"The database refused the rows ({error}); nothing was imported. Check the file again and retry.",
        )
    except Exception:
        _delete_files(job, stored)  # the task records the failure
        raise
    finally:
        cache.delete(progress_key(job.pk))
        stored.forget()
    return job


def _apply_rows(job: ImportJob, stored: list[str]) -> dict[str, int]:
    table = _job_table(job)
    counts = {"rows": len(table.rows), "new": 0, "update": 0, "skip": 0}
    with _job_pictures(job) as pictures:
        resource = RESOURCES[job.kind](user=job.user, pictures=pictures, lock=True)
        resource.stored_files = stored
        total = len(table.rows)
        for done, row in enumerate(table.rows, 1):
            check = resource.check_row(row.values, line=row.line)
            errors = row.problems + check.errors
            if errors:
                raise _RowFailed(
                    f"Row {row.line} no longer passes the checks ({'; '.join(errors[:3])}); "
                    "nothing was imported. Correct the file and import it again."
                )
            resource.save_row(check)
            counts[check.action] += 1
            cache.set(progress_key(job.pk), _percent(done, total), 3600)
    return counts


def files_delete(stored: list[str], *, what: str) -> None:
    """Remove the pictures a rolled-back import (``what``, for the log) had stored already."""
    from django.core.files.storage import default_storage

    for name in stored:
        try:
            default_storage.delete(name)
        except OSError:  # pragma: no cover - best effort; the rows were not written
            logger.warning("%s: could not delete %s", what, name)


def _delete_files(job: ImportJob, stored: list[str]) -> None:
    files_delete(stored, what=f"Import job {job.pk}")


def _apply_failed(job: ImportJob, stored: list[str], message: str) -> ImportJob:
    _delete_files(job, stored)
    return import_job_fail(job_id=job.pk, message=message)


def import_job_fail(*, job_id: int, message: str) -> ImportJob:
    """Record that a job failed (never over a finished import)."""
    ImportJob.objects.filter(pk=job_id).exclude(state=ImportJob.State.DONE).update(
        state=ImportJob.State.FAILED, error=message
    )
    return ImportJob.objects.get(pk=job_id)


#: What an import whose worker died says (``imports_sweep``); translated where it is shown.
STOPPED = gettext_noop(
    "The worker handling this file stopped before it finished: it may have run out of "
    "memory, or been restarted. Nothing was imported. Try again; if it stops again, split "
    "the file into smaller ones, or tell an admin."
)


def import_job_retry(*, job: ImportJob, user: Any) -> ImportJob:
    """ "Try again" for a FAILED import: check the stored file again from the start.

    The curator then confirms the fresh preview as usual; rows are never written
    without a check that found no errors.
    """
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        raise PermissionDenied("Only curators import content.")
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().get(pk=job.pk)
        if job.user_id != user.pk and not getattr(user, "is_admin", False):
            raise PermissionDenied("This is another curator's import.")
        if job.state != ImportJob.State.FAILED:
            raise ImportRefused(
                "Only an import that failed can be tried again; "
                f"this one is {job.get_state_display().lower()}."
            )
        job.state, job.progress, job.error, job.started = ImportJob.State.CHECKING, 0, "", None
        job.preview, job.result, job.total_rows = {}, {}, 0
        job.save(
            update_fields=[
                "state",
                "progress",
                "error",
                "started",
                "preview",
                "result",
                "total_rows",
                "updated",
            ]
        )
        transaction.on_commit(partial(_enqueue_check, job.pk))
    return job


def imports_requeue(
    *,
    now: datetime | None = None,
    model: type[Model] = ImportJob,
    enqueue_check: Callable[[int], None] = _enqueue_check,
    enqueue_apply: Callable[[int], None] = _enqueue_apply,
) -> int:
    """Send again to the queue every import waiting there for too long (``jobs.queued_cutoff``).

    A check sent twice checks twice (it writes no content); a write sent twice waits for
    the first one's row lock, then finds the import done. ``model`` and the two
    ``enqueue`` functions name another kind of import with the same states and fields
    (``PackageImport``).
    """
    now = now or timezone.now()
    with transaction.atomic():
        waiting = list(
            model._default_manager.select_for_update(skip_locked=True)
            .filter(
                state__in=(ImportJob.State.CHECKING, ImportJob.State.IMPORTING),
                started__isnull=True,
                updated__lt=jobs.queued_cutoff(now),
            )
            .values_list("pk", "state")
        )
        model._default_manager.filter(pk__in=[pk for pk, _state in waiting]).update(updated=now)
        for pk, state in waiting:
            enqueue = enqueue_check if state == ImportJob.State.CHECKING else enqueue_apply
            transaction.on_commit(partial(enqueue, pk))
    return len(waiting)


def imports_sweep(*, now: datetime | None = None, model: type[Model] = ImportJob) -> int:
    """Mark FAILED every import whose worker died while checking or writing it.

    A check touches ``updated`` as it goes (and the task's heartbeat, ``content.jobs``);
    a write holds the job's row lock for its whole transaction, so on PostgreSQL a
    write whose row is not locked has lost its worker (whose transaction, and so every
    row it wrote, was rolled back). Where locks cannot be seen (SQLite) a write counts
    as lost only after its task's hard time limit. A lost write's stored pictures
    (``StoredFiles``) are removed. Returns how many were failed.
    ``model`` names another kind of import with the same states and fields
    (``PackageImport``).
    """
    now = now or timezone.now()
    cutoff = jobs.stale_cutoff(now)
    working = model._default_manager.filter(started__isnull=False)
    failed = working.filter(state=ImportJob.State.CHECKING, updated__lt=cutoff).update(
        state=ImportJob.State.FAILED, error=STOPPED, updated=now
    )
    writing = working.filter(state=ImportJob.State.IMPORTING)
    with transaction.atomic():
        if connection.features.has_select_for_update_skip_locked:
            lost = writing.filter(updated__lt=cutoff).select_for_update(skip_locked=True)
        else:
            limit = jobs.IMPORT_TIME_LIMIT + settings.JOBS_STALE_SECONDS
            lost = writing.filter(updated__lt=now - timedelta(seconds=limit))
        ids = list(lost.values_list("pk", flat=True))
        for pk in ids:  # locked here: no write of theirs can be storing files now
            stored_files_delete(pk, model)
        failed += model._default_manager.filter(pk__in=ids).update(
            state=ImportJob.State.FAILED, error=STOPPED, updated=now
        )
    for pk in ids:
        cache.delete(progress_key(pk, model))
    if failed:
        logger.warning("%s import(s) lost their worker and were marked failed", failed)
    return failed


def import_job_counts(job: ImportJob) -> dict[str, int]:
    counts = (job.preview or {}).get("counts", {})
    return {key: int(counts.get(key, 0)) for key in ("rows", "new", "update", SKIP, "invalid")}
