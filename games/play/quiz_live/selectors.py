"""Reads for the live quiz: the pictures of the questions asked so far."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.utils.html import escape

from content.media import PICTURE_CSP, picture_response
from games.engines import quiz_live
from games.models import GameSession


def quiz_live_picture(*, session: GameSession, number: int, token: str) -> HttpResponseBase | None:
    """Question ``number``'s picture ``token``, once the question has been opened; ``None``
    otherwise (a later question's pictures are not fetched ahead of it)."""
    if session.game != "quiz_live" or session.state is None:
        return None
    state = quiz_live.state_from_dict(session.state)
    if not 1 <= number <= len(state.asked):
        return None
    name = (state.items[number - 1].key.get("pictures") or {}).get(token)
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
