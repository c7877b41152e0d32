"""Pages of the content API: ``?limit=&offset=``, and a 400 for values that are not counts.

DRF's LimitOffsetPagination quietly ignores ``?offset=abc``; a client that sent it gets a
page it did not ask for. Here such a value is an error, as the schema documents.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

# Beyond what a database offset holds; no list of Talia's comes near it.
MAX_OFFSET = 2**31 - 1


class Pagination(LimitOffsetPagination):
    max_limit = 1000  # a larger page is given as 1000 rows, not as a request the database refuses

    def _count(self, request: Request, name: str, minimum: int, maximum: int | None) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return None
        if not (raw.isascii() and raw.isdigit()) or int(raw) < minimum or (maximum and int(raw) > maximum):
            raise ValidationError({name: [_("Give a whole number from %(min)d.") % {"min": minimum}]})
        return int(raw)

    def get_limit(self, request: Request) -> int | None:
        limit = self._count(request, self.limit_query_param, 1, None)
        if limit is None:
            return self.default_limit
        return min(limit, self.max_limit) if self.max_limit else limit

    def get_offset(self, request: Request) -> int:
        return self._count(request, self.offset_query_param, 0, MAX_OFFSET) or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        minimum = {self.limit_query_param: 1, self.offset_query_param: 0}
        for parameter in parameters:
            parameter["schema"]["minimum"] = minimum[parameter["name"]]
            if parameter["name"] == self.offset_query_param:
                parameter["schema"]["maximum"] = MAX_OFFSET
        return parameters
