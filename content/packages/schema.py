"""Reading the manifest's fields: each value checked for its type and limits, each
problem reported with where it is (``symbols[3] ("Orzeł Biały"): …``).

A ``Reader`` wraps one JSON object of the manifest. It refuses fields the format does
not have (so a misspelt field is never silently ignored), and each of its methods
returns the field's value, or a harmless empty one after recording a problem; the
caller stops once ``Problems`` holds any, so no half-read value is ever used.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

__all__ = ["Problems", "Reader", "where"]

_SLUG = re.compile(r"^[-a-zA-Z0-9_]+\Z")


class Problems:
    """The problems found in a package, at most ``LIMIT`` of them kept."""

    LIMIT = 50

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.more = 0

    def add(self, where: str, message: str) -> None:
        line = f"{where}: {message}" if where else message
        if len(self.messages) < self.LIMIT:
            if line not in self.messages:
                self.messages.append(line)
        else:
            self.more += 1

    def __bool__(self) -> bool:
        return bool(self.messages)

    def lines(self) -> list[str]:
        if not self.more:
            return list(self.messages)
        more = ngettext("… and %(n)s more problem.", "… and %(n)s more problems.", self.more) % {
            "n": self.more
        }
        return [*self.messages, more]


def where(section: str, index: int, label: str = "") -> str:
    """``symbols[3]`` or ``symbols[3] ("Orzeł Biały")``: an item as a problem names it."""
    label = " ".join(label.split())[:60]
    return f'{section}[{index}] ("{label}")' if label else f"{section}[{index}]"


def _shown(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


class Reader:
    """One object of the manifest, read field by field."""

    def __init__(self, value: Any, where: str, problems: Problems, fields: Iterable[str]) -> None:
        self.where, self.problems = where, problems
        self.fields = tuple(fields)
        if not isinstance(value, dict):
            problems.add(where, _("it must be a JSON object {…}, not %(type)s.") % {"type": _type(value)})
            self.data: dict[str, Any] = {}
            return
        self.data = value
        unknown = sorted(key for key in value if key not in self.fields)
        if unknown:
            problems.add(
                where,
                _("it has fields the package format does not have: %(unknown)s. Its fields are: %(known)s.")
                % {"unknown": ", ".join(_shown(key) for key in unknown[:5]), "known": ", ".join(self.fields)},
            )

    def _problem(self, key: str, message: str) -> None:
        self.problems.add(self.where, f'"{key}" {message}')

    def _missing(self, key: str) -> bool:
        if key in self.data:
            return False
        self._problem(key, _("is missing."))
        return True

    def text(self, key: str, *, max_length: int, blank: bool = True, required: bool = True) -> str:
        if key not in self.data and not required:
            return ""
        if self._missing(key):
            return ""
        value = self.data[key]
        if not isinstance(value, str):
            self._problem(key, _("must be text, not %(type)s.") % {"type": _type(value)})
            return ""
        if "\x00" in value:
            self._problem(key, _("holds a NUL character, which no text may hold."))
            return ""
        if len(value) > max_length:
            self._problem(
                key,
                _("may be at most %(max)s characters long; it has %(n)s.")
                % {"max": max_length, "n": len(value)},
            )
            return ""
        if not blank and not value.strip():
            self._problem(key, _("may not be empty."))
        return value

    def choice(self, key: str, choices: Iterable[str]) -> str:
        allowed = tuple(choices)
        value = self.text(key, max_length=40)
        if value and value not in allowed or (not value and "" not in allowed and key in self.data):
            self._problem(
                key,
                _('must be one of %(choices)s, not "%(value)s".')
                % {"choices": ", ".join(allowed), "value": _shown(value)},
            )
        return value

    def integer(self, key: str, *, minimum: int, maximum: int, null: bool = False) -> int | None:
        if self._missing(key):
            return None
        value = self.data[key]
        if value is None and null:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
            self._problem(
                key,
                _("must be a whole number from %(min)s to %(max)s, not %(value)s.")
                % {"min": minimum, "max": maximum, "value": _shown(value)},
            )
            return None
        return value

    def uid(self, key: str = "uid") -> str:
        if self._missing(key):
            return ""
        value = self.data[key]
        try:
            if not isinstance(value, str):
                raise ValueError
            return str(uuid.UUID(value))
        except ValueError:
            self._problem(key, _('must be a UUID such as "%(example)s".') % {"example": uuid.UUID(int=1)})
            return ""

    def texts(self, key: str, *, max_items: int, max_length: int, keys: bool = False) -> list[str]:
        """A list of texts; ``keys``: each a key such as ``ii-rp`` (letters, digits, - and _)."""
        result: list[str] = []
        for item in self.list(key, max_items=max_items):
            if not isinstance(item, str) or not item.strip() or len(item) > max_length or "\x00" in item:
                self._problem(
                    key,
                    _("must list texts of 1 to %(max)s characters, not %(value)s.")
                    % {"max": max_length, "value": _shown(item)},
                )
                return []
            if keys and not _SLUG.match(item):
                self._problem(
                    key,
                    _(
                        'must list keys of letters, digits, hyphens and underscores, like "ii-rp", '
                        'not "%(value)s".'
                    )
                    % {"value": _shown(item)},
                )
                return []
            result.append(item)
        if len(set(result)) != len(result):
            self._problem(key, _("names a value twice."))
            return []
        return result

    def key(self, key: str, *, max_length: int) -> str:
        value = self.text(key, max_length=max_length, blank=False)
        if value and not _SLUG.match(value):
            self._problem(
                key,
                _('must be a key of letters, digits, hyphens and underscores, like "ii-rp", not "%(value)s".')
                % {"value": _shown(value)},
            )
            return ""
        return value

    def object(self, key: str) -> dict[str, Any]:
        if self._missing(key):
            return {}
        value = self.data[key]
        if not isinstance(value, dict):
            self._problem(key, _("must be a JSON object {…}, not %(type)s.") % {"type": _type(value)})
            return {}
        return value

    def list(self, key: str, *, max_items: int, required: bool = True) -> list[Any]:
        if key not in self.data and not required:
            return []
        if self._missing(key):
            return []
        value = self.data[key]
        if not isinstance(value, list):
            self._problem(key, _("must be a list […], not %(type)s.") % {"type": _type(value)})
            return []
        if len(value) > max_items:
            self._problem(
                key, _("may list at most %(max)s values; it has %(n)s.") % {"max": max_items, "n": len(value)}
            )
            return []
        return value

    def raw(self, key: str) -> Any:
        if self._missing(key):
            return None
        return self.data[key]


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _("true or false")
    if isinstance(value, int | float):
        return _("a number")
    if isinstance(value, str):
        return _("text")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("an object")
    return type(value).__name__
