"""The error answers of the content API, documented on every operation; and what
drf-spectacular leaves out of request bodies: the item counts of list fields, and that
required text must hold more than spaces.

drf-spectacular documents each operation's success; the refusals come from layers it does
not see (authentication and permissions, the lookup of a row, validation, a NUL character
refused before the view). A client reading the schema should know every status it may get,
so this hook adds them, with the body DRF sends: ``{"detail": "..."}`` or, for invalid
input, the messages per field.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from rest_framework import serializers

_API_PREFIX = "/api/v1/"
_ERROR = "Error"
_ERROR_SCHEMA = {
    "type": "object",
    "description": 'What went wrong: {"detail": "..."}, or for invalid input a list of '
    "messages for each field that was refused.",
    "additionalProperties": {},
}
_DESCRIPTIONS = {
    "400": "The request is malformed or its data are invalid.",
    "403": "Not signed in, not a teacher or an admin, or not allowed to do this to this row.",
    "404": "No row with this key that you can see.",
    "405": "The method is not allowed here.",
    "409": "The row is still used by other content.",
    "415": "The body is not in a media type this operation takes.",
}
_WRITES = {"post", "put", "patch"}


def _codes(path: str, method: str) -> list[str]:
    codes = ["400", "403"]
    if "{" in path:
        codes.append("404")
    if method in _WRITES:
        codes.append("415")
    if method == "delete":
        codes.append("409")
    return codes


def error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the refusals to each operation of ``/api/v1/``."""
    result.setdefault("components", {}).setdefault("schemas", {})[_ERROR] = _ERROR_SCHEMA
    reference = {"$ref": f"#/components/schemas/{_ERROR}"}
    for path, operations in result.get("paths", {}).items():
        if not path.startswith(_API_PREFIX):
            continue
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for code in _codes(path, method):
                response = responses.setdefault(code, {"description": _DESCRIPTIONS[code]})
                response.setdefault("content", {"application/json": {"schema": reference}})
    return result


class _ItemCounts(OpenApiSerializerFieldExtension):
    """A list's ``minItems``/``maxItems`` as the serializer enforces them: a related list
    with ``allow_empty=False`` (a symbol's periods) needs one item, a nested list with
    ``min_length``/``max_length`` or ``item_counts`` (an Activity card's six terms) that
    many; and ``uniqueItems`` for a list that refuses an item twice (``unique_items``, a
    set's members). Without them the schema calls valid what the API refuses, and a client
    learns it only by trying."""

    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if not isinstance(schema, dict) or schema.get("type") != "array" or direction != "request":
            return schema
        counted = getattr(self.target, "item_counts", (None, None))
        least = max(
            counted[0] or getattr(self.target, "min_length", None) or 0, 0 if self.target.allow_empty else 1
        )
        if least:
            schema["minItems"] = least
        most = counted[1] if counted[1] is not None else getattr(self.target, "max_length", None)
        if most is not None:
            schema["maxItems"] = most
        if getattr(self.target, "unique_items", False):
            schema["uniqueItems"] = True
        return schema


class ManyRelatedItemCounts(_ItemCounts):
    target_class = "rest_framework.relations.ManyRelatedField"


class NestedListItemCounts(_ItemCounts):
    target_class = "rest_framework.serializers.ListSerializer"


class ListItemCounts(_ItemCounts):
    target_class = "rest_framework.fields.ListField"


# Text that holds a character ``str.strip()`` keeps, in a pattern that means the same in
# Python's regular expressions and ECMA 262's: their whitespace classes differ in
# U+001C–U+001F and U+0085 (Python only) and U+FEFF (ECMA only).
NOT_ONLY_SPACES = "[^\\s\\x1c-\\x1f\\x85]|\\ufeff"


class RequiredTextNotOnlySpaces(OpenApiSerializerFieldExtension):
    """Required text is trimmed before it is judged, so text of spaces alone is refused
    as blank; ``minLength: 1`` would call it valid. Text with a pattern of its own (a slug,
    a colour, a URL) keeps it: drf-spectacular adds the validators' patterns later, and
    would not replace this one."""

    target_class = "content.api.serializers.TextField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        field = self.target
        if (
            direction == "request"
            and isinstance(schema, dict)
            and schema.get("type") == "string"
            and "pattern" not in schema
            and "format" not in schema
            and not isinstance(field, serializers.SlugField | serializers.URLField)
            and not any(isinstance(validator, RegexValidator) for validator in field.validators)
            and field.trim_whitespace
            and not field.allow_blank
        ):
            schema["pattern"] = NOT_ONLY_SPACES
        return schema


class TermPointsRule(OpenApiSerializerExtension):
    """An Activity term's points by its kind (ActivityTerm.clean): a term (the kind left
    out is a term) has points, a chain or a rhyme none; ``nullable`` alone would allow a
    term without points and a chain with them. The kinds are patterns, not enums: the
    enum postprocessing would turn them into the full list of kinds."""

    target_class = "content.api.serializers.ActivityTermInput"

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction == "request":
            schema["anyOf"] = [
                {
                    "properties": {
                        "kind": {"type": "string", "pattern": "^term$"},
                        "points": {"type": "integer"},
                    },
                    "required": ["points"],
                },
                {
                    "properties": {
                        "kind": {"type": "string", "pattern": "^(chain|rhyme)$"},
                        "points": {"not": {"type": "integer"}},
                    },
                    "required": ["kind"],
                },
            ]
        return schema
