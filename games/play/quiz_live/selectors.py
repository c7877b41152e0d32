"""Reads for the live quiz: the pictures of the questions asked so far."""

from __future__ import annotations

from django.http.response import HttpResponseBase

from games.engines import quiz_live
from games.models import GameSession
from games.quiz.pictures import item_picture_response


def quiz_live_picture(*, session: GameSession, number: int, token: str) -> HttpResponseBase | None:
    """Question ``number``'s picture ``token``, once the question has been opened; ``None``
    otherwise (a later question's pictures are not fetched ahead of it)."""
    if session.game != "quiz_live" or session.state is None:
        return None
    state = quiz_live.state_from_dict(session.state)
    if not 1 <= number <= len(state.asked):
        return None
    return item_picture_response(state.items[number - 1].key.get("pictures"), token)
