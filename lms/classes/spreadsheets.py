"""Tables a teacher downloads (gradebook, progress) as CSV or XLSX, safe to open in a spreadsheet.

Names and titles come from students and teachers: a cell starting with ``=``, ``+``, ``-``
or ``@`` would run as a formula in Excel or LibreOffice (CSV injection), so such text gets
a leading apostrophe. The CSV starts with a BOM so that Excel reads Polish letters as UTF-8.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from django.http import HttpResponse

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def cell_safe(value: Any) -> Any:
    """Text opened in a spreadsheet is never a formula; other values pass unchanged.

    >>> cell_safe("=cmd|' /C calc'!A0"), cell_safe("Ala"), cell_safe(-3)
    ("'=cmd|' /C calc'!A0", 'Ala', -3)
    """
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _safe_rows(
    header: Sequence[Any], rows: Iterable[Sequence[Any]], *, empty: Any = None
) -> Iterable[list[Any]]:
    yield [cell_safe(value) for value in header]
    for row in rows:
        yield [empty if value is None else cell_safe(value) for value in row]


def csv_response(header: Sequence[Any], rows: Iterable[Sequence[Any]], *, filename: str) -> HttpResponse:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(_safe_rows(header, rows, empty=""))
    response = HttpResponse("\ufeff" + buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def xlsx_response(
    header: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    *,
    filename: str,
    title: str,
    freeze: str | None = None,
) -> HttpResponse:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = title[:31]  # Excel's limit
    for row in _safe_rows(header, rows):
        sheet.append(row)
    if freeze:
        sheet.freeze_panes = freeze
    buffer = io.BytesIO()
    workbook.save(buffer)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
