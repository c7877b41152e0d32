"""Who may see and change authored content (the admin and the API share these rules).

- Admins see and change everything.
- Teachers see their own content, content they are editors of, and shared content:
  published symbols, Activity cards and Knowledge? questions (the shared library)
  and symbol sets marked shared. They change only their own content and content
  they were granted (editors); only the owner or an admin deletes.
- Students and anonymous users see nothing here and change nothing.

A teacher's things for class (decks, quizzes, practice, game sessions) follow one more
rule, :func:`teaching_rows` and :func:`runs_for`: their owner sees and runs them, and so
do the co-teachers of the owner's classes (``User.objects.sharing_with``). Everyone
else gets a 404, as before.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db.models import Model, Q, QuerySet

from .models import AuthoredContent, Status, SymbolSet, Visibility

_M = TypeVar("_M", bound=Model)


def _shared(model: type[Model]) -> Q:
    if model is SymbolSet:
        return Q(visibility=Visibility.SHARED)
    return Q(status=Status.PUBLISHED)


def content_visible_to(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The rows of ``queryset`` that ``user`` may see."""
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        return queryset.none()
    if user.is_admin:
        return queryset
    mine = Q(owner=user) | Q(editors=user)
    return queryset.filter(mine | _shared(queryset.model)).distinct()


def content_editable_by(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The rows of ``queryset`` that ``user`` may change."""
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        return queryset.none()
    if user.is_admin:
        return queryset
    return queryset.filter(Q(owner=user) | Q(editors=user)).distinct()


def can_change(user: Any, obj: AuthoredContent) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        return False
    if user.is_admin:
        return True
    if obj.pk is None:
        return True
    return obj.owner_id == user.pk or obj.editors.filter(pk=user.pk).exists()


def can_delete(user: Any, obj: AuthoredContent) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        return False
    return user.is_admin or obj.owner_id == user.pk


# --- a teacher's things for class: decks, quizzes, practice, game sessions ---------------------


def teaching_rows(user: Any, queryset: QuerySet[_M], *, owner_field: str = "owner") -> QuerySet[_M]:
    """The rows of ``queryset`` whose ``owner_field`` is ``user`` or the owner of a class
    ``user`` co-teaches: what ``user`` sees and runs. Nobody else's."""
    return queryset.filter(**{f"{owner_field}__in": get_user_model().objects.sharing_with(user)})


def runs_for(user: Any, owner_id: int | None) -> bool:
    """Whether ``user`` sees and runs the things of teacher ``owner_id`` (their own, or
    those of the owner of a class they co-teach)."""
    if owner_id is None or not getattr(user, "is_authenticated", False):
        return False
    if owner_id == user.pk:
        return True
    return get_user_model().objects.sharing_with(user).filter(pk=owner_id).exists()
