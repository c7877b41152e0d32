"""A quiz item's picture as a quiz-taker or a live quiz's screens receive it."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.files.storage import default_storage
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.utils.html import escape

from content.media import PICTURE_CSP, picture_response


def item_picture_response(pictures: Mapping[str, str] | None, token: str) -> HttpResponseBase | None:
    """The picture ``token`` of an item whose key names ``pictures`` (token → stored name);
    ``None`` when the item has no such picture.

    A stored picture goes out unnamed, an SVG without its words (``picture_response``): the
    picture must not answer the item. One whose file is gone is a grey square with its token,
    so the item can still be answered from the others.
    """
    name = (pictures or {}).get(token)
    if not name:
        return None
    if default_storage.exists(name):
        return picture_response(name)
    response = HttpResponse(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" '
        f'fill="#f1f1f1" stroke="#1a1a1a" stroke-width="3"/><text x="50" y="60" font-size="28" '
        f'text-anchor="middle" font-family="sans-serif">{escape(token)}</text></svg>',
        content_type="image/svg+xml",
    )
    response["Content-Security-Policy"] = PICTURE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response
