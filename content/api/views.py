"""The content API, version 1: thin viewsets over the admin's rules.

Rows come from ``content_visible_to`` (a row the user may not see is a 404), writes are
checked per row with ``can_change``/``can_delete`` (403). A write is one call of a service
of ``content/services.py``: the serializer of ``serializers.py`` validates the request's
shape before it and renders the row after it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Model, ProtectedError, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import routers, status, viewsets
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.serializers import BaseSerializer, as_serializer_error

from content import services
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


class ServiceWrites:
    """Each write is one service call: ``row_create`` and ``row_update`` take what the
    serializer validated and return the row it renders. A row that other content still
    points at is a 409 with a message, not a 500."""

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        raise NotImplementedError

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        raise NotImplementedError

    def perform_create(self, serializer: BaseSerializer[Any]) -> None:
        data = dict(serializer.validated_data)
        serializer.instance = self._written(lambda: self.row_create(data, serializer))

    def perform_update(self, serializer: BaseSerializer[Any]) -> None:
        row, data = serializer.instance, dict(serializer.validated_data)
        serializer.instance = self._written(lambda: self.row_update(row, data, serializer))

    @staticmethod
    def _written(write: Any) -> Model:
        try:
            row: Model = write()
        except DjangoValidationError as error:
            raise ValidationError(as_serializer_error(error)) from error
        # A prefetched list (a set's members, a card's terms) shows the new rows.
        getattr(row, "_prefetched_objects_cache", {}).clear()
        return row

    def perform_destroy(self, instance: Any) -> None:
        try:
            services.content_delete(row=instance)
        except ProtectedError as error:
            raise Conflict(
                _("%(row)s is still used by %(n)d other item(s); remove it from them first.")
                % {"row": instance, "n": len(error.protected_objects)}
            ) from error


# --- Reference data ---------------------------------------------------------------------------


class ReferenceWrites(ServiceWrites):
    """Periods, themes, collections, tags: rows whose rules are their fields' and
    constraints'."""

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        return services.reference_create(model=serializer.Meta.model, data=data)

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        return services.reference_update(row=row, data=data)


class PeriodViewSet(ReferenceWrites, viewsets.ModelViewSet):
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


class ReferenceViewSet(ReferenceWrites, viewsets.ModelViewSet):
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


class AuthoredViewSet(ServiceWrites, viewsets.ModelViewSet):
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

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        return services.symbol_create(owner=serializer.owner_for_new(data), data=data)

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        return services.symbol_update(symbol=row, data=data)


class SymbolSetViewSet(AuthoredViewSet):
    """Curated, ordered lists of symbols; a deck is built from a set in its order. Private
    sets are seen only by their owner, editors and admins."""

    queryset = SymbolSet.objects.prefetch_related("members", "editors")
    serializer_class = serializers.SymbolSetSerializer
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("name", "slug", "description")
    ordering_fields = ("name", "created", "updated")

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        ids = data.pop("members", [])
        owner = serializer.owner_for_new(data)
        return services.symbol_set_create(owner=owner, data=data, symbol_ids=ids)

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        ids = data.pop("members", None)
        return services.symbol_set_update(symbol_set=row, data=data, symbol_ids=ids)


@extend_schema_view(list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]))
class ActivityCardViewSet(AuthoredViewSet):
    """Activity term cards: six terms A–F."""

    queryset = ActivityCard.objects.prefetch_related("terms", "tags", "editors")
    serializer_class = serializers.ActivityCardSerializer
    search_fields = ("title", "terms__text")
    ordering_fields = ("id", "title", "status", "created", "updated")

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        terms = data.pop("terms")
        owner = serializer.owner_for_new(data)
        return services.activity_card_create(owner=owner, data=data, terms=terms)

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        terms = data.pop("terms", None)
        return services.activity_card_update(card=row, data=data, terms=terms)


@extend_schema_view(list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]))
class KnowledgeQuestionViewSet(AuthoredViewSet):
    """Knowledge? quiz cards with their answers (so for authors only)."""

    queryset = KnowledgeQuestion.objects.prefetch_related("tags", "editors")
    serializer_class = serializers.KnowledgeQuestionSerializer
    search_fields = ("front", "back", "source")
    ordering_fields = ("id", "category", "status", "created", "updated")

    def row_create(self, data: dict[str, Any], serializer: Any) -> Model:
        return services.knowledge_question_create(owner=serializer.owner_for_new(data), data=data)

    def row_update(self, row: Any, data: dict[str, Any], serializer: Any) -> Model:
        return services.knowledge_question_update(question=row, data=data)
