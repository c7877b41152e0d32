"""The writes of the content app (HackSoft style services; the admin and API call these)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils.text import slugify

from .models import Symbol, SymbolSet, SymbolSetMember
from .permissions import can_change
from .pictures import PictureError, check_picture

__all__ = [
    "PictureError",
    "content_set_status",
    "picture_file",
    "symbol_set_add",
    "symbol_set_members_set",
]


def picture_file(data: bytes, filename: str) -> ContentFile[bytes]:
    """A checked picture ready to store: raster bytes as uploaded, SVG cleaned.

    Raises ``PictureError`` with a message for the curator when the picture is refused.
    """
    picture = check_picture(data, filename)
    stem = slugify(PurePath(filename).stem)[:60] or "picture"
    return ContentFile(picture.data, name=f"{stem}{picture.extension}")


@transaction.atomic
def content_set_status(*, user: Any, queryset: QuerySet[Any], status: str) -> tuple[int, int]:
    """Publish or unpublish the rows ``user`` may change; return (changed, skipped)."""
    # Lock the rows themselves: the visible queryset may be DISTINCT, which FOR UPDATE refuses.
    rows = list(queryset.model.objects.select_for_update().filter(pk__in=queryset.values("pk")))
    allowed = [row.pk for row in rows if can_change(user, row)]
    changed = queryset.model.objects.filter(pk__in=allowed).update(status=status)
    return changed, len(rows) - len(allowed)


@transaction.atomic
def symbol_set_add(*, user: Any, symbol_set: SymbolSet, symbols: list[Symbol]) -> int:
    """Append ``symbols`` to the end of the set, skipping those already in it."""
    symbol_set = SymbolSet.objects.select_for_update().get(pk=symbol_set.pk)
    if not can_change(user, symbol_set):
        raise PermissionError("You may not change this symbol set.")
    present = set(symbol_set.members.values_list("symbol_id", flat=True))
    position = symbol_set.members.aggregate(m=Max("position"))["m"] or 0
    new = []
    for symbol in symbols:
        if symbol.pk in present:
            continue
        position += 1
        present.add(symbol.pk)
        new.append(SymbolSetMember(symbol_set=symbol_set, symbol=symbol, position=position))
    SymbolSetMember.objects.bulk_create(new)
    return len(new)


def symbol_set_members_set(*, symbol_set: SymbolSet, symbol_ids: list[int]) -> None:
    """Make ``symbol_ids`` the set's members in this order.

    The caller checks who may see which symbol and holds the set's row lock.
    """
    SymbolSetMember.objects.filter(symbol_set=symbol_set).delete()
    SymbolSetMember.objects.bulk_create(
        SymbolSetMember(symbol_set=symbol_set, symbol_id=pk, position=position)
        for position, pk in enumerate(symbol_ids, start=1)
    )
