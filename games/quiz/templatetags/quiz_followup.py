"""``{% load quiz_followup %}``: whether a game's page offers its follow-up quiz."""

from __future__ import annotations

from django import template

from games.models import GameSession
from games.quiz import selectors

register = template.Library()


@register.filter
def followup_unavailable(session: GameSession) -> str:
    """Why ``session``'s game makes no follow-up quiz (``selectors.followup_unavailable``);
    empty if it makes one."""
    return selectors.followup_unavailable(session)
