"""Requests that no view can serve, refused before any view runs."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.views.defaults import bad_request

# A NUL character inside a JSON string is the escape \u0000 after an even number of
# backslashes (an odd number makes the backslash itself the escaped character).
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_API_PREFIX = "/api/"
MESSAGE = "The request contains a NUL character (0x00), which no text field can hold."
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path or b"%00" in request.META.get("QUERY_STRING", "").encode().lower():
        return True
    if "\x00" in request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""):
        return True
    content_type = request.content_type or ""
    if request.method == "POST" and content_type in _FORMS:
        return _form_has_nul(request)
    if request.method in ("PUT", "PATCH") and content_type in _FORMS:
        return _other_form_has_nul(request)
    if content_type == "application/json" or content_type.endswith("+json"):
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if 0 < length <= (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or length):
            return b"\x00" in request.body or _JSON_NUL.search(request.body) is not None
    return False


def _small(request: HttpRequest) -> bool:
    """Whether the body may be read into memory (and kept) rather than parsed as it streams."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return length <= (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or length)


def _form_has_nul(request: HttpRequest) -> bool:
    """Whether a form field holds NUL; a form Django cannot parse is left to the view.

    A small body is read first and kept, so that when parsing fails here (a broken
    multipart body, too many fields) the view parses it again and meets the same error,
    which it answers in its own way (the LTI views with their refusal page). A large
    upload is parsed as it streams in, as it would be without this check.
    """
    kept = _small(request)
    try:
        if kept:
            request.body  # noqa: B018 -- read and kept for a second parse
        fields = list(request.POST.lists())
    except (SuspiciousOperation, MultiPartParserError, UnreadablePostError):
        if kept:
            request.__dict__.pop("_post", None)
            request.__dict__.pop("_files", None)
        return False
    return _any_nul(fields)


def _other_form_has_nul(request: HttpRequest) -> bool:
    """Whether a PUT or PATCH form (which Django leaves unparsed) has a field holding NUL.

    Parsed here with Django's own parsers. A small body is read and kept, so the API's
    parser reads it again from the start. A large upload is parsed as it streams in and
    its fields and files are left on the request, where Django REST framework looks when
    the body has already been read; a form that cannot be parsed is left to the view.
    """
    kept = _small(request)
    try:
        if request.content_type == "application/x-www-form-urlencoded":
            fields = QueryDict(request.body, encoding=request.encoding).lists() if kept else []
        else:
            source = io.BytesIO(request.body) if kept else request
            form, files = request.parse_file_upload(request.META, source)
            if not kept:
                request._post, request._files = form, files  # type: ignore[attr-defined]
            fields = form.lists()
    except (SuspiciousOperation, MultiPartParserError, UnreadablePostError):
        return False
    return _any_nul(fields)


def _any_nul(fields: Iterable[tuple[str, list[str]]]) -> bool:
    return any("\x00" in key or "\x00" in value for key, values in fields for value in values)


class NulCharacterMiddleware:
    """A NUL character in the path, the query string, a form field (POST, PUT or PATCH,
    URL-encoded or multipart), a JSON body or the session cookie is a 400, whatever the view.

    PostgreSQL cannot store or even compare text holding NUL: a lookup by such a slug,
    a search for it or a form saving it fails with a DataError (a 500) deep in the view,
    while SQLite quietly accepts it. No Talia text may contain NUL, so one check here
    spares every form, filter and URL parameter its own. File uploads are left to their
    validators: binary content holds NUL legitimately.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _has_nul(request):
            if request.path.startswith(_API_PREFIX):
                return JsonResponse({"detail": MESSAGE}, status=400)
            return bad_request(request, ValueError(MESSAGE))
        return self.get_response(request)
