"""The error answers of the content API, documented on every operation.

drf-spectacular documents each operation's success; the refusals come from layers it does
not see (authentication and permissions, the lookup of a row, validation, a NUL character
refused before the view). A client reading the schema should know every status it may get,
so this hook adds them, with the body DRF sends: ``{"detail": "..."}`` or, for invalid
input, the messages per field.
"""

from __future__ import annotations

from typing import Any

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
