"""The content API, version 1: one operation per write, over the admin's rules.

Each write action (create, update, partial update, destroy) is one operation with its own
input and output serializer: it validates the request with the resource's input
serializer (``SymbolInput``, ``serializers.py``), makes one call of a service of
``content/services.py`` and renders the row the service returns with the output
serializer (``SymbolOutput``), which renders the reads too. The viewsets keep the routing
(the URLs), the lookups, permissions, throttling, filters and pages.

Rows come from ``content_visible_to`` (a row the user may not see is a 404), writes are
checked per row with ``can_change``/``can_delete`` (403).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Model, ProtectedError, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import routers, status, viewsets
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
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
_WRITES = {"POST", "PUT", "PATCH"}


def _operations(body: Any, output: type[BaseSerializer[Any]], **extra: Any) -> dict[str, Any]:
    """The schema of a viewset's writes for ``extend_schema_view``: the request ``body`` by
    its input serializer (or serializers, by media type), the answer by its output serializer."""
    return {
        "create": extend_schema(request=body, responses={201: output}),
        "update": extend_schema(request=body, responses=output),
        "partial_update": extend_schema(request=body, responses=output),
        **extra,
    }


@contextmanager
def _refusals_as_400() -> Iterator[None]:
    """A service's ``ValidationError`` (a rule of the model it checks for every writer) is
    an answer of 400 with its messages per field, not a 500."""
    try:
        yield
    except DjangoValidationError as error:
        raise ValidationError(as_serializer_error(error)) from error


class APIRootView(routers.APIRootView):
    """The endpoints of the content API, for teachers and admins."""

    permission_classes = [IsAuthor]
    throttle_scope = "content"  # REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, config/settings.py


class ContentViewSet(viewsets.ModelViewSet):
    """The routes of one resource. ``serializer_class`` is its output serializer,
    ``input_serializer_class`` its input serializer; each subclass writes its ``create``
    and ``update`` (DRF's ``partial_update`` calls ``update`` with ``partial=True``) as
    input, one service, output."""

    input_serializer_class: type[serializers.Input]
    pagination_class = Pagination
    throttle_scope = "content"
    parser_classes = [JSONParser]

    def get_serializer_class(self) -> type[BaseSerializer[Any]]:
        # The browsable API's forms and OPTIONS describe a write by what it takes; both ask
        # with the write's method on a copy of the request.
        if self.request.method in _WRITES:
            return self.input_serializer_class
        return super().get_serializer_class()

    def valid(self, row: Model | None = None, *, partial: bool = False) -> dict[str, Any]:
        """The request's body as the input serializer validated it (against ``row``, the
        row an update changes)."""
        serializer = self.input_serializer_class(
            row, data=self.request.data, partial=partial, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def rendered(self, row: Model, code: int = status.HTTP_200_OK) -> Response:
        """The answer to a write: ``row`` by the output serializer."""
        # A prefetched list (a set's members, a card's terms) shows the rows just written.
        getattr(row, "_prefetched_objects_cache", {}).clear()
        return Response(self.serializer_class(row, context=self.get_serializer_context()).data, status=code)

    @extend_schema(responses={204: None, 409: _IN_USE})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # (No docstring: the schema describes the operation by the viewset's.) A row that
        # other content still points at is a 409 with a message.
        row = self.get_object()
        try:
            services.content_delete(row=row)
        except ProtectedError as error:
            raise Conflict(
                _("%(row)s is still used by %(n)d other item(s); remove it from them first.")
                % {"row": row, "n": len(error.protected_objects)}
            ) from error
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Reference data ---------------------------------------------------------------------------


class ReferenceViewSet(ContentViewSet):
    """Periods, themes, collections, tags: rows whose rules are their fields' and
    constraints'. Authors add new ones; only admins change or delete."""

    permission_classes = [IsAuthor, AuthorsAddAdminsChange]
    lookup_field = "slug"
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("slug", "name")
    ordering_fields = ("slug", "name")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.valid()
        with _refusals_as_400():
            row = services.reference_create(model=self.input_serializer_class.Meta.model, data=data)
        return self.rendered(row, status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, partial: bool = False, **kwargs: Any) -> Response:
        row = self.get_object()
        data = self.valid(row, partial=partial)
        with _refusals_as_400():
            row = services.reference_update(row=row, data=data)
        return self.rendered(row)


@extend_schema_view(**_operations(serializers.PeriodInput, serializers.PeriodOutput))
class PeriodViewSet(ReferenceViewSet):
    """Periods: the chronological marking of ZnajZnak symbols. Only admins change them."""

    queryset = Period.objects.all()
    serializer_class = serializers.PeriodOutput
    input_serializer_class = serializers.PeriodInput
    permission_classes = [IsAuthor, IsAdminOrReadOnly]
    ordering_fields = ("position", "start_year", "name")


@extend_schema_view(**_operations(serializers.ThemeInput, serializers.ThemeOutput))
class ThemeViewSet(ReferenceViewSet):
    """Themes grouping symbols. Authors add new ones; only admins change or delete."""

    queryset = Theme.objects.all()
    serializer_class = serializers.ThemeOutput
    input_serializer_class = serializers.ThemeInput


@extend_schema_view(**_operations(serializers.CollectionInput, serializers.CollectionOutput))
class CollectionViewSet(ReferenceViewSet):
    """Editions of symbols. Authors add new ones; only admins change or delete."""

    queryset = Collection.objects.all()
    serializer_class = serializers.CollectionOutput
    input_serializer_class = serializers.CollectionInput


@extend_schema_view(**_operations(serializers.TagInput, serializers.TagOutput))
class TagViewSet(ReferenceViewSet):
    """Tags of Activity cards and Knowledge? questions. Authors add new ones; only admins
    change or delete."""

    queryset = Tag.objects.all()
    serializer_class = serializers.TagOutput
    input_serializer_class = serializers.TagInput
    search_fields = ("slug",)
    ordering_fields = ("slug",)


# --- Owned content ----------------------------------------------------------------------------


class AuthoredViewSet(ContentViewSet):
    """Content with an owner and editors: the admin's per-row rules."""

    permission_classes = [IsAuthor, ContentObjectPermission]
    filter_backends = [AuthoredFilter, SearchFilter, OrderingFilter]

    def get_queryset(self) -> QuerySet[Any]:
        return content_visible_to(self.request.user, super().get_queryset())

    def new_owner(self, data: dict[str, Any]) -> Any:
        """Who owns a new row: the owner an admin gave (the input serializer lets only an
        admin give one), else whoever creates it."""
        return data.pop("owner", self.request.user)


_SYMBOL_BODIES = {
    "application/json": serializers.SymbolInput,
    "multipart/form-data": serializers.SymbolUploadInput,
}


@extend_schema_view(
    **_operations(
        _SYMBOL_BODIES,
        serializers.SymbolOutput,
        list=extend_schema(parameters=[serializers.SymbolFilterSerializer]),
    )
)
class SymbolViewSet(AuthoredViewSet):
    """ZnajZnak symbols. Upload a picture with multipart/form-data."""

    queryset = Symbol.objects.select_related("collection").prefetch_related("periods", "themes", "editors")
    serializer_class = serializers.SymbolOutput
    # Both media types are validated alike; SymbolUploadInput only shows the picture as a
    # file in the schema's multipart body.
    input_serializer_class = serializers.SymbolInput
    parser_classes = [JSONParser, MultiPartParser]
    filter_backends = [SymbolFilter, OrderingFilter]
    ordering_fields = ("number", "name", "status", "created", "updated")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.valid()
        owner = self.new_owner(data)
        with _refusals_as_400():
            symbol = services.symbol_create(owner=owner, data=data)
        return self.rendered(symbol, status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, partial: bool = False, **kwargs: Any) -> Response:
        symbol = self.get_object()
        data = self.valid(symbol, partial=partial)
        with _refusals_as_400():
            symbol = services.symbol_update(symbol=symbol, data=data)
        return self.rendered(symbol)


@extend_schema_view(**_operations(serializers.SymbolSetInput, serializers.SymbolSetOutput))
class SymbolSetViewSet(AuthoredViewSet):
    """Curated, ordered lists of symbols; a deck is built from a set in its order. Private
    sets are seen only by their owner, editors and admins."""

    queryset = SymbolSet.objects.prefetch_related("members", "editors")
    serializer_class = serializers.SymbolSetOutput
    input_serializer_class = serializers.SymbolSetInput
    filter_backends = [SearchFilter, OrderingFilter]
    search_fields = ("name", "slug", "description")
    ordering_fields = ("name", "created", "updated")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.valid()
        ids, owner = data.pop("members", []), self.new_owner(data)
        with _refusals_as_400():
            symbol_set = services.symbol_set_create(owner=owner, data=data, symbol_ids=ids)
        return self.rendered(symbol_set, status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, partial: bool = False, **kwargs: Any) -> Response:
        symbol_set = self.get_object()
        data = self.valid(symbol_set, partial=partial)
        ids = data.pop("members", None)
        with _refusals_as_400():
            symbol_set = services.symbol_set_update(symbol_set=symbol_set, data=data, symbol_ids=ids)
        return self.rendered(symbol_set)


@extend_schema_view(
    **_operations(
        serializers.ActivityCardInput,
        serializers.ActivityCardOutput,
        list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]),
    )
)
class ActivityCardViewSet(AuthoredViewSet):
    """Activity term cards: six terms A–F."""

    queryset = ActivityCard.objects.prefetch_related("terms", "tags", "editors")
    serializer_class = serializers.ActivityCardOutput
    input_serializer_class = serializers.ActivityCardInput
    search_fields = ("title", "terms__text")
    ordering_fields = ("id", "title", "status", "created", "updated")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.valid()
        terms, owner = data.pop("terms"), self.new_owner(data)
        with _refusals_as_400():
            card = services.activity_card_create(owner=owner, data=data, terms=terms)
        return self.rendered(card, status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, partial: bool = False, **kwargs: Any) -> Response:
        card = self.get_object()
        data = self.valid(card, partial=partial)
        terms = data.pop("terms", None)
        with _refusals_as_400():
            card = services.activity_card_update(card=card, data=data, terms=terms)
        return self.rendered(card)


@extend_schema_view(
    **_operations(
        serializers.KnowledgeQuestionInput,
        serializers.KnowledgeQuestionOutput,
        list=extend_schema(parameters=[serializers.AuthoredFilterSerializer]),
    )
)
class KnowledgeQuestionViewSet(AuthoredViewSet):
    """Knowledge? quiz cards with their answers (so for authors only)."""

    queryset = KnowledgeQuestion.objects.prefetch_related("tags", "editors")
    serializer_class = serializers.KnowledgeQuestionOutput
    input_serializer_class = serializers.KnowledgeQuestionInput
    search_fields = ("front", "back", "source")
    ordering_fields = ("id", "category", "status", "created", "updated")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.valid()
        owner = self.new_owner(data)
        with _refusals_as_400():
            question = services.knowledge_question_create(owner=owner, data=data)
        return self.rendered(question, status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, partial: bool = False, **kwargs: Any) -> Response:
        question = self.get_object()
        data = self.valid(question, partial=partial)
        with _refusals_as_400():
            question = services.knowledge_question_update(question=question, data=data)
        return self.rendered(question)
