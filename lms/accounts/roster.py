"""A class list as a teacher pastes or uploads it, read into names and usernames.

Two shapes are read:

* **A pasted list**: one student a line, the name first, then optionally a username
  after a tab (a spreadsheet's column), a semicolon or a comma::

      Anna Kowalska
      Jan Nowak, jnowak
      3. Zofia Wiśniewska

  Empty lines are skipped, and so is a number in front ("3." or "3)") from a numbered list.
* **A CSV file** whose first row names its columns: ``name`` (or ``first name`` and
  ``last name``) and optionally ``username`` — in English or Polish (``imię i nazwisko``,
  ``imię``, ``nazwisko``, ``login``). Comma, semicolon or tab separated, UTF-8 or the
  Windows-1250 that a Polish Excel writes.

Everything wrong is said at once, line by line (:class:`RosterError`); nothing is read
from a list that has any problem. Checking the usernames against the accounts that
already exist is the service's (``lms.accounts.services``).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

#: The most students one list creates (a year group, not a school).
ROSTER_MAX_ROWS = 200
#: The biggest CSV read (200 rows of names fit in a few kilobytes).
ROSTER_MAX_BYTES = 256 * 1024
NAME_MAX_LENGTH = 150
#: Usernames children type on a phone: ASCII letters, digits, dots, dashes, underscores.
USERNAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{3,30}")
USERNAME_MAX_LENGTH = 30
#: At most this many problems are listed; the count says if there were more.
PROBLEMS_SHOWN = 20

_NUMBERING = re.compile(r"^\s*\d{1,3}\s*[.)]\s+")
_SEPARATORS = ("\t", ";", ",")
_COLUMNS = {
    "name": "name",
    "full name": "name",
    "student": "name",
    "imię i nazwisko": "name",
    "imie i nazwisko": "name",
    "uczeń": "name",
    "first name": "first_name",
    "given name": "first_name",
    "imię": "first_name",
    "imie": "first_name",
    "last name": "last_name",
    "surname": "last_name",
    "family name": "last_name",
    "nazwisko": "last_name",
    "username": "username",
    "user name": "username",
    "login": "username",
    "nazwa użytkownika": "username",
}
#: Letters that Unicode does not take apart into a base letter and a mark.
_FOLD = str.maketrans({"ł": "l", "Ł": "L", "ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "đ": "d"})


@dataclass(frozen=True)
class RosterRow:
    """One student of a list: where they came from, their name, the username asked for ("" = make one)."""

    line: int
    first_name: str
    last_name: str
    username: str = ""

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()


class RosterError(ValueError):
    """The list cannot be read as it is; ``problems`` says what to change, line by line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = problems[:PROBLEMS_SHOWN]
        if len(problems) > PROBLEMS_SHOWN:
            more = len(problems) - PROBLEMS_SHOWN
            shown.append(
                ngettext("… and %(n)d more problem.", "… and %(n)d more problems.", more) % {"n": more}
            )
        super().__init__(" ".join(shown))


def _clean(text: str) -> str:
    """``text`` on one line: control characters out, runs of spaces as one."""
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return " ".join(text.split())


def _split_name(name: str) -> tuple[str, str]:
    """ "Anna Maria Kowalska" → ("Anna Maria", "Kowalska"); one word is a first name."""
    first, _space, last = name.rpartition(" ")
    return (first, last) if first else (name, "")


def _name_problem(line: int, first: str, last: str) -> str | None:
    if not first and not last:
        return _("Line %(line)d: the name is missing.") % {"line": line}
    if len(first) > NAME_MAX_LENGTH or len(last) > NAME_MAX_LENGTH:
        return _("Line %(line)d: a name has at most %(n)d characters.") % {"line": line, "n": NAME_MAX_LENGTH}
    return None


def username_problem(username: str) -> str | None:
    """Why ``username`` cannot be a student's username, or None."""
    if not USERNAME_PATTERN.fullmatch(username):
        return _(
            "“%(username)s” cannot be a username: "
            "use 3 to 30 letters a–z, digits, dots, dashes or underscores."
        ) % {"username": username}
    return None


def _check(rows: list[RosterRow], problems: list[str]) -> list[RosterRow]:
    """The list's own rules, over all rows: not empty, not too long, usernames once each."""
    if not rows and not problems:
        problems.append(_("The list has no names. Paste one student a line, or choose a CSV file."))
    if len(rows) > ROSTER_MAX_ROWS:
        problems.insert(
            0,
            _("A list creates at most %(max)d students; this one has %(n)d. Split it into smaller lists.")
            % {"max": ROSTER_MAX_ROWS, "n": len(rows)},
        )
    seen: dict[str, int] = {}
    for row in rows:
        if not row.username:
            continue
        problem = username_problem(row.username)
        if problem:
            problems.append(_("Line %(line)d: %(problem)s") % {"line": row.line, "problem": problem})
            continue
        key = row.username.casefold()
        if key in seen:
            problems.append(
                _("Line %(line)d: the username “%(username)s” is already on line %(first)d.")
                % {"line": row.line, "username": row.username, "first": seen[key]}
            )
        else:
            seen[key] = row.line
    if problems:
        raise RosterError(problems)
    return rows


def roster_parse(text: str) -> list[RosterRow]:
    """The students of a pasted list (see the module's docstring); :class:`RosterError` if any line is wrong.

    >>> rows = roster_parse("1. Anna Kowalska\\n\\nJan Nowak; jnowak")
    >>> [(r.first_name, r.last_name, r.username) for r in rows]
    [('Anna', 'Kowalska', ''), ('Jan', 'Nowak', 'jnowak')]
    """
    rows: list[RosterRow] = []
    problems: list[str] = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        if not raw.strip():
            continue
        line = _NUMBERING.sub("", raw, count=1)
        separator = next((s for s in _SEPARATORS if s in line), None)
        fields = [_clean(part) for part in line.split(separator)] if separator else [_clean(line)]
        while len(fields) > 1 and not fields[-1]:
            fields.pop()
        if len(fields) > 2:
            problems.append(
                _(
                    "Line %(line)d: a line holds a name and, if you like, a username after a comma, "
                    "semicolon or tab; this one has %(n)d parts."
                )
                % {"line": number, "n": len(fields)}
            )
            continue
        first, last = _split_name(fields[0])
        problem = _name_problem(number, first, last)
        if problem:
            problems.append(problem)
            continue
        rows.append(RosterRow(number, first, last, fields[1] if len(fields) == 2 else ""))
    return _check(rows, problems)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1250", errors="replace")


def _column(header: str) -> str | None:
    key = _clean(header).casefold().replace("_", " ").replace("-", " ")
    return _COLUMNS.get(key)


def roster_parse_csv(data: bytes) -> list[RosterRow]:
    """The students of a CSV file (see the module's docstring); :class:`RosterError` if it cannot be read."""
    if len(data) > ROSTER_MAX_BYTES:
        raise RosterError(
            [
                _("The file is bigger than %(n)d KB; a class list is much smaller.")
                % {"n": ROSTER_MAX_BYTES // 1024}
            ]
        )
    if b"\x00" in data:
        raise RosterError([_("This is not a CSV file. Save the list from your spreadsheet as CSV.")])
    text = _decode(data)
    first_line = text.split("\n", 1)[0]
    delimiter = max(_SEPARATORS, key=first_line.count) if any(s in first_line for s in _SEPARATORS) else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        table = list(reader)
    except csv.Error as error:
        raise RosterError([_("The CSV file cannot be read: %(error)s") % {"error": error}]) from None
    if not table:
        raise RosterError([_("The file is empty.")])
    header = table[0]
    columns = [_column(cell) for cell in header]
    known = {c for c in columns if c}
    has_name = "name" in known or {"first_name", "last_name"} & known
    unknown = [
        _clean(cell) for cell, column in zip(header, columns, strict=True) if column is None and cell.strip()
    ]
    duplicated = sorted({c for c in columns if c and columns.count(c) > 1})
    if not has_name or unknown or duplicated or ("name" in known and {"first_name", "last_name"} & known):
        found = ", ".join(f"“{_clean(cell)}”" for cell in header if cell.strip()) or _("none")
        raise RosterError(
            [
                _(
                    "The CSV file's first row must name its columns: “name” (or “first name” and "
                    "“last name”) and, if you like, “username”. This file's columns are: %(found)s."
                )
                % {"found": found}
            ]
        )
    rows: list[RosterRow] = []
    problems: list[str] = []
    for number, record in enumerate(table[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        if len(record) > len(header) and any(cell.strip() for cell in record[len(header) :]):
            problems.append(
                _("Line %(line)d has more cells than the first row has columns.") % {"line": number}
            )
            continue
        values = {
            column: _clean(record[i]) if i < len(record) else "" for i, column in enumerate(columns) if column
        }
        if "name" in values:
            first, last = _split_name(values["name"])
        else:
            first, last = values.get("first_name", ""), values.get("last_name", "")
            if not first:
                first, last = last, ""
        problem = _name_problem(number, first, last)
        if problem:
            problems.append(problem)
            continue
        rows.append(RosterRow(number, first, last, values.get("username", "")))
    return _check(rows, problems)


def username_base(first_name: str, last_name: str) -> str:
    """A username to start from for a student: their name in plain lower-case letters.

    >>> username_base("Zofia", "Łukasiewicz-Żak")
    'zofia.lukasiewiczzak'
    """

    def plain(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
        return "".join(ch for ch in decomposed if ch.isascii() and ch.isalnum()).lower()

    parts = [part for part in (plain(first_name), plain(last_name)) if part]
    base = ".".join(parts)[: USERNAME_MAX_LENGTH - 3]
    return base if len(base) >= 3 else f"student{base}"
