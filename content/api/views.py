"""The content API, version 1: thin viewsets over the admin's rules.

Rows come from ``content_visible_to`` (a row the user may not see is a 404), writes are
checked per row with ``can_change``/``can_delete`` (403) and go through the serializers
in ``serializers.py``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import ProtectedError, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import routers, status, viewsets
from rest_framework.exceptions import APIException
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.parsers import JSONParser, MultiPartParser

from content.models import (
    ActivityCard,
    Collection,
    KnowledgeQuestion,
    Period,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
)
from content.permissions import content_visible_to

from . import serializers
from .filters import AuthoredFilter, SymbolFilter
from .pagination import Pagination
from .permissions import (
    AuthorsAddAdminsChange,
    ContentObjectPermission,
    IsAdminOrReadOnly,
    IsAuthor,
)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The row is in use."
    default_code = "conflict"


_IN_USE = OpenApiResponse(description="The row is still used by other content.")


class APIRootView(routers.APIRootView):
    """The endpoints of the content API, for teachers and admins."""

    permission_classes = [IsAuthor]
    throttle_scope = "content"  # REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, config/settings.py


class DeleteProtectedMixin:
    """A row that other content still points at is a 409 with a message, not a 500."""

    def perform_destroy(self, instance: Any) -> None:
        try:
            instance.delete()
        except ProtectedError as error:
            raise Conflict(
                _("%(row)s is still used by %(n)d other item(s); remove it from them first.")
                % {"row": instance, "n": len(error.protected_objects)}
            ) from error


# --- Reference data ---------------------------------------------------------------------------


class PeriodViewSet(DeleteProtectedMixin, viewsets.ModelViewSet):
    """Periods: the chronological marking of ZnajZnak symbols. Only admins change them."""

    queryset = Period.objects.all()
    serializer_class = serializers.PeriodSerializer
    permission_classes = [IsAuthor, IsAdminOrReadOnly]
    pagination_class = Pagination
    throttle_scope = "content"
    parser_classes = [JSONParser]
    lookup_field = "slug"
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("slug", "name")
    ordering_fields = ("position", "start_year", "name")


class ReferenceViewSet(DeleteProtectedMixin, viewsets.ModelViewSet):
    permission_classes = [IsAuthor, AuthorsAddAdminsChange]
    pagination_class = Pagination
    throttle_scope = "content"
    parser_classes = [JSONParser]
    lookup_field = "slug"
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("slug", "name")
    ordering_fields = ("slug", "name")


class ThemeViewSet(ReferenceViewSet):
    """Themes grouping symbols. Authors add new ones; only admins change or delete."""

    queryset = Theme.objects.all()
    serializer_class = serializers.ThemeSerializer


@extend_schema_view(destroy=extend_schema(responses={204: None, 409: _IN_USE}))
class CollectionViewSet(ReferenceViewSet):
    """Editions of symbols. Authors add new ones; only admins change or delete."""

    queryset = Collection.objects.all()
    serializer_class = serializers.CollectionSerializer


class TagViewSet(ReferenceViewSet):
    """Tags of Activity cards and Knowledge? questions. Authors add new ones; only admins
    change or delete."""

    queryset = Tag.objects.all()
    serializer_class = serializers.TagSerializer
    search_fields = ("slug",)
    ordering_fields = ("slug",)


# --- Owned content ----------------------------------------------------------------------------


class AuthoredViewSet(DeleteProtectedMixin, viewsets.ModelViewSet):
    """Content with an owner and editors: the admin's per-row rules."""

    permission_classes = [IsAuthor, ContentObjectPermission]
    pagination_class = Pagination
    throttle_scope = "content"
    parser_classes = [JSONParser]
    filter_backends = [AuthoredFilter, SearchFilter, OrderingFilter]

    def get_queryset(self) -> QuerySet[Any]:
        return content_visible_to(self.request.user, super().get_queryset())


_SYMBOL_BODIES = {
    "application/json": serializers.SymbolSerializer,
    "multipart/form-data": serializers.SymbolUploadSerializer,
}


@extend_schema_view(
    list=extend_schema(parameters=[serializers.SymbolFilterSerializer]),
    create=extend_schema(request=_SYMBOL_BODIES),
    update=extend_schema(request=_SYMBOL_BODIES),
    partial_update=extend_schema(request=_SYMBOL_BODIES),
    destroy=extend_schema(responses={204: None, 409: _IN_USE}),
)
class SymbolViewSet(AuthoredViewSet):
    """ZnajZnak symbols. Upload a picture with multipart/form-data."""

    queryset = Symbol.objects.select_related("collection").prefetch_related("periods", "themes", "editors")
    serializer_class = serializers.SymbolSerializer
    parser_classes = [JSONParser, MultiPartParser]
    filter_backends = [SymbolFilter, OrderingFilter]
    ordering_fields = ("number", "name", "status", "created", "updated")


class SymbolSetViewSet(AuthoredViewSet):
    """Curated, ordered lists of symbols; a deck is built from a set in its order. Private
    sets are seen only by their owner, editors and admins."""

    queryset = SymbolSet.objects.prefetch_related("members", "editors")
    serializer_class = serializers.SymbolSetSerializer
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("name", "slug", "description")
    ordering_fields = ("name", "created", "updated")


@extend_schema_view(list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]))
class ActivityCardViewSet(AuthoredViewSet):
    """Activity term cards: six terms A–F."""

    queryset = ActivityCard.objects.prefetch_related("terms", "tags", "editors")
    serializer_class = serializers.ActivityCardSerializer
    search_fields = ("title", "terms__text")
    ordering_fields = ("id", "title", "status", "created", "updated")


@extend_schema_view(list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]))
class KnowledgeQuestionViewSet(AuthoredViewSet):
    """Knowledge? quiz cards with their answers (so for authors only)."""

    queryset = KnowledgeQuestion.objects.prefetch_related("tags", "editors")
    serializer_class = serializers.KnowledgeQuestionSerializer
    search_fields = ("front", "back", "source")
    ordering_fields = ("id", "category", "status", "created", "updated")
