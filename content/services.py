"""The writes of the content app (HackSoft style services; the admin and API call these)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import models, transaction
from django.db.models import Max, QuerySet
from django.utils.text import slugify

from .models import (
    ActivityCard,
    ActivityTerm,
    KnowledgeQuestion,
    Symbol,
    SymbolSet,
    SymbolSetMember,
    Tag,
    card_slots_problem,
)
from .permissions import can_change
from .pictures import PictureError, check_picture

__all__ = [
    "PictureError",
    "activity_card_create",
    "activity_card_terms_set",
    "activity_card_update",
    "content_delete",
    "content_set_status",
    "knowledge_question_create",
    "knowledge_question_update",
    "model_update",
    "picture_file",
    "reference_create",
    "reference_update",
    "symbol_create",
    "symbol_set_add",
    "symbol_set_create",
    "symbol_set_members_set",
    "symbol_set_update",
    "symbol_update",
    "tags_for",
]

Row = TypeVar("Row", bound=models.Model)


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


# --- Rows of content: one writer each (admin, API, imports, packages and the demo call these) ---


def model_update(*, instance: Row, data: Mapping[str, Any]) -> Row:
    """Set ``data`` on ``instance``, check the row's own rule (its model's ``clean``, e.g. a
    Knowledge? answer that fits its category) and save it; a many-to-many field in ``data``
    is set after the row (HackSoft's ``model_update``). Fields not in ``data`` stay."""
    many = {field.name for field in instance._meta.many_to_many}
    for name, value in data.items():
        if name not in many:
            setattr(instance, name, value)
    instance.clean()
    new = instance._state.adding
    instance.save()
    for name, value in data.items():
        if name in many:
            # A new row has no links yet: adding them spares ``set``'s read of the current ones.
            if new:
                getattr(instance, name).add(*value)
            else:
                getattr(instance, name).set(value)
    return instance


def _row_create(model: type[Row], data: Mapping[str, Any]) -> Row:
    return model_update(instance=model(), data=data)


@transaction.atomic
def reference_create(*, model: type[Row], data: Mapping[str, Any]) -> Row:
    """A period, theme, collection or tag (their rules are their fields' and constraints')."""
    return _row_create(model, data)


@transaction.atomic
def reference_update(*, row: Row, data: Mapping[str, Any]) -> Row:
    return model_update(instance=row, data=data)


def tags_for(*, slugs: Sequence[str]) -> list[Tag]:
    """The tags of these slugs, made when missing (a tag is a free label)."""
    return [Tag.objects.get_or_create(slug=slug)[0] for slug in slugs]


def content_delete(*, row: models.Model) -> None:
    """Delete a row; raises ``ProtectedError`` while other content still points at it."""
    row.delete()


@transaction.atomic
def symbol_create(*, owner: Any, data: Mapping[str, Any]) -> Symbol:
    """A ZnajZnak symbol owned by ``owner`` (None: the shared library); ``data`` holds its
    fields, ``periods``, ``themes`` and ``editors`` included. A picture comes checked
    (``picture_file``)."""
    return _row_create(Symbol, {"owner": owner, **data})


@transaction.atomic
def symbol_update(*, symbol: Symbol, data: Mapping[str, Any]) -> Symbol:
    return model_update(instance=symbol, data=data)


@transaction.atomic
def symbol_set_create(*, owner: Any, data: Mapping[str, Any], symbol_ids: Sequence[int] = ()) -> SymbolSet:
    """A symbol set with ``symbol_ids`` as its members in this order (the caller checked
    that the writer may see them)."""
    symbol_set = _row_create(SymbolSet, {"owner": owner, **data})
    symbol_set_members_set(symbol_set=symbol_set, symbol_ids=list(symbol_ids))
    return symbol_set


@transaction.atomic
def symbol_set_update(
    *, symbol_set: SymbolSet, data: Mapping[str, Any], symbol_ids: Sequence[int] | None = None
) -> SymbolSet:
    """Change a set's fields and, given ``symbol_ids``, replace its members and their order."""
    locked = SymbolSet.objects.select_for_update().get(pk=symbol_set.pk)
    model_update(instance=locked, data=data)
    if symbol_ids is not None:
        symbol_set_members_set(symbol_set=locked, symbol_ids=list(symbol_ids))
    return locked


def activity_terms_check(terms: Sequence[Mapping[str, Any]]) -> list[ActivityTerm]:
    """A card's six terms as unsaved rows, or ``ValidationError``: one term in each slot
    A–F (``card_slots_problem``), each valid on its own (``ActivityTerm``'s fields and
    ``clean``: a term scores 3–6, a chain or a rhyme nothing)."""
    problem = card_slots_problem([term["slot"] for term in terms])
    if problem:
        raise ValidationError({"terms": problem})
    rows = [
        ActivityTerm(
            slot=term["slot"],
            kind=term.get("kind") or ActivityTerm.Kind.TERM,
            text=term.get("text", ""),
            points=term.get("points"),
        )
        for term in terms
    ]
    for row in rows:
        row.full_clean(exclude=["card"], validate_unique=False, validate_constraints=False)
    return sorted(rows, key=lambda row: row.slot)


@transaction.atomic
def activity_card_terms_set(*, card: ActivityCard, terms: Sequence[Mapping[str, Any]]) -> None:
    """Replace the card's terms with ``terms`` (dicts of slot, kind, text, points), checked by
    ``activity_terms_check``. A slot's term is changed in place, so it keeps its id."""
    rows = activity_terms_check(terms)
    # One writer of a card's terms at a time: the card's row is the lock.
    list(ActivityCard.objects.select_for_update().filter(pk=card.pk).values_list("pk", flat=True))
    present = {term.slot: term for term in ActivityTerm.objects.filter(card=card)}
    changed, new = [], []
    for row in rows:
        old = present.get(row.slot)
        if old is None:
            row.card = card
            new.append(row)
        elif (old.kind, old.text, old.points) != (row.kind, row.text, row.points):
            old.kind, old.text, old.points = row.kind, row.text, row.points
            changed.append(old)
    ActivityTerm.objects.bulk_update(changed, ["kind", "text", "points"])
    ActivityTerm.objects.bulk_create(new)
    getattr(card, "_prefetched_objects_cache", {}).pop("terms", None)


@transaction.atomic
def activity_card_create(
    *, owner: Any, data: Mapping[str, Any], terms: Sequence[Mapping[str, Any]]
) -> ActivityCard:
    """An Activity card with its six terms (``activity_card_terms_set``)."""
    card = _row_create(ActivityCard, {"owner": owner, **data})
    activity_card_terms_set(card=card, terms=terms)
    return card


@transaction.atomic
def activity_card_update(
    *, card: ActivityCard, data: Mapping[str, Any], terms: Sequence[Mapping[str, Any]] | None = None
) -> ActivityCard:
    model_update(instance=card, data=data)
    if terms is not None:
        activity_card_terms_set(card=card, terms=terms)
    return card


@transaction.atomic
def knowledge_question_create(*, owner: Any, data: Mapping[str, Any]) -> KnowledgeQuestion:
    """A Knowledge? question; its answer is checked against its category
    (``KnowledgeQuestion.clean``, through ``model_update``)."""
    return _row_create(KnowledgeQuestion, {"owner": owner, **data})


@transaction.atomic
def knowledge_question_update(*, question: KnowledgeQuestion, data: Mapping[str, Any]) -> KnowledgeQuestion:
    return model_update(instance=question, data=data)
