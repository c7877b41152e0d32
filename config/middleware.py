"""Requests that no view can serve, refused before any view runs."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.views.defaults import bad_request

# A NUL character inside a JSON string is the escape \u0000 after an even number of
# backslashes (an odd number makes the backslash itself the escaped character).
_JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_API_PREFIX = "/api/"
MESSAGE = "The request contains a NUL character (0x00), which no text field can hold."


def _has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path or b"%00" in request.META.get("QUERY_STRING", "").encode().lower():
        return True
    if "\x00" in request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""):
        return True
    content_type = request.content_type or ""
    if request.method == "POST" and content_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        return _form_has_nul(request)
    if content_type == "application/json" or content_type.endswith("+json"):
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if 0 < length <= (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or length):
            return b"\x00" in request.body or _JSON_NUL.search(request.body) is not None
    return False


def _form_has_nul(request: HttpRequest) -> bool:
    """Whether a form field holds NUL; a form Django cannot parse is left to the view.

    A small body is read first and kept, so that when parsing fails here (a broken
    multipart body, too many fields) the view parses it again and meets the same error,
    which it answers in its own way (the LTI views with their refusal page). A large
    upload is parsed as it streams in, as it would be without this check.
    """
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    kept = length <= (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or length)
    try:
        if kept:
            request.body  # noqa: B018 -- read and kept for a second parse
        fields = list(request.POST.lists())
    except (SuspiciousOperation, MultiPartParserError, UnreadablePostError):
        if kept:
            request.__dict__.pop("_post", None)
            request.__dict__.pop("_files", None)
        return False
    return any("\x00" in key or "\x00" in value for key, values in fields for value in values)


class NulCharacterMiddleware:
    """A NUL character in the path, the query string, a form field, a JSON body or the
    session cookie is a 400, whatever the view.

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
