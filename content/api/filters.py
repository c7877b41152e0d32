"""List filters of the content API: query parameters checked by a serializer (a bad value
is a 400 with a message), then applied to the rows the user may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.filters import BaseFilterBackend
from rest_framework.request import Request

from content.models import SymbolSet
from content.permissions import content_visible_to

from .serializers import AuthoredFilterSerializer, SymbolFilterSerializer


def _params(serializer_class: Any, request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    # An empty value (``?tag=``, as an empty form field sends) filters nothing.
    return {name: value for name, value in serializer.validated_data.items() if value != ""}


class SymbolFilter(BaseFilterBackend):
    """``?period=&theme=&status=&collection=&set=&search=``, as the admin's list filters."""

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> Any:
        params = _params(SymbolFilterSerializer, request)
        if "period" in params:
            queryset = queryset.filter(periods__slug=params["period"])
        if "theme" in params:
            queryset = queryset.filter(themes__slug=params["theme"])
        if "status" in params:
            queryset = queryset.filter(status=params["status"])
        if "collection" in params:
            queryset = queryset.filter(collection__slug=params["collection"])
        if "set" in params:
            # Only a set the user can see: membership of another teacher's private set
            # is not theirs to learn.
            visible = content_visible_to(request.user, SymbolSet.objects.filter(pk=params["set"]))
            queryset = queryset.filter(memberships__symbol_set__in=visible.values("pk"))
        for word in params.get("search", "").split():
            match = (
                Q(name__icontains=word)
                | Q(alternative_names__icontains=word)
                | Q(description__icontains=word)
                | Q(outline__icontains=word)
            )
            # isdigit() alone accepts '³' and other digits int() refuses.
            if word.isascii() and word.isdigit() and len(word) <= 3:
                match |= Q(number=int(word))
            queryset = queryset.filter(match)
        return queryset


class AuthoredFilter(BaseFilterBackend):
    """``?status=&tag=`` for Activity cards and Knowledge? questions."""

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> Any:
        params = _params(AuthoredFilterSerializer, request)
        if "status" in params:
            queryset = queryset.filter(status=params["status"])
        if "tag" in params:
            queryset = queryset.filter(tags__slug=params["tag"])
        return queryset
