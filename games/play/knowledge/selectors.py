"""Reads for Knowledge? play: the boards and questions a person may play with."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from content.models import KnowledgeBoard, KnowledgeQuestion, Status, Tag
from content.permissions import content_visible_to
from games.models import GameSession, Participant

#: Where a question pool comes from (the setup's "owner" filter).
OWNERS = ("any", "mine", "shared")


def boards_playable_by(user: Any) -> QuerySet[KnowledgeBoard]:
    """Teachers: the boards they may see (own, granted, published). Students: published ones."""
    boards = KnowledgeBoard.objects.all()
    if getattr(user, "can_author", False):
        return content_visible_to(user, boards)
    return boards.filter(status=Status.PUBLISHED)


def questions_playable_by(user: Any) -> QuerySet[KnowledgeQuestion]:
    """Teachers: the questions they may see. Students playing alone: the shared library."""
    questions = KnowledgeQuestion.objects.all()
    if getattr(user, "can_author", False):
        return content_visible_to(user, questions)
    return questions.filter(status=Status.PUBLISHED)


def question_pool(
    *, user: Any, tags: list[int] | None = None, language: str = "", owner: str = "any"
) -> QuerySet[KnowledgeQuestion]:
    """The question pool: a filter over the questions ``user`` may play with.

    ``tags``: any of these tags; ``language``: one language; ``owner``: ``mine`` (the
    user's own and granted), ``shared`` (published by anyone) or ``any``.
    """
    pool = questions_playable_by(user)
    if tags:
        pool = pool.filter(tags__in=tags)
    if language:
        pool = pool.filter(language=language)
    if owner == "mine":
        pool = pool.filter(Q(owner=user) | Q(editors=user)) if getattr(user, "pk", None) else pool.none()
    elif owner == "shared":
        pool = pool.filter(status=Status.PUBLISHED)
    return pool.distinct().order_by("pk")


def tags_in_use() -> QuerySet[Tag]:
    return Tag.objects.filter(pk__in=KnowledgeQuestion.tags.through.objects.values("tag_id")).order_by("slug")


def knowledge_sessions_of(user: Any) -> QuerySet[GameSession]:
    """Knowledge? games ``user`` plays or played (newest first)."""
    return GameSession.objects.filter(
        game="knowledge", participants__user=user, participants__role=Participant.Role.PLAYER
    ).order_by("-created")
