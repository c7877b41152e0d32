"""The school's library: teachers publish content, others find, preview and copy it.

A ``LibraryEntry`` names live content of its publisher: a symbol set (with its symbols),
Activity cards, Knowledge? questions and boards, or Know questions. Every teacher finds
the published entries by game, theme, period and language (:func:`library_entries`),
previews them read-only (:func:`library_items`) and copies one into their own content
with :func:`library_copy`, which is a package export and import in one transaction
(``content.packages.services.package_copy``): the copy is the teacher's draft, with new
identifiers, and each copied row names its entry in ``copied_from``.

Only the publisher (or an admin) unpublishes an entry; copies made before stay.
Students and anonymous users use none of this.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Model, Q, QuerySet
from django.utils.translation import gettext as _

from .models import (
    ActivityCard,
    KnowledgeBoard,
    KnowledgeQuestion,
    KnowQuestion,
    LibraryEntry,
    Period,
    Symbol,
    SymbolSet,
    Theme,
)
from .packages.archive import PackageError
from .packages.services import package_copy
from .permissions import content_visible_to

__all__ = [
    "SECTION_MODELS",
    "LibraryError",
    "library_copy",
    "library_entries",
    "library_entry_rows",
    "library_entry_visible",
    "library_items",
    "library_publish",
    "library_publish_initial",
    "library_unpublish",
]

Kind = LibraryEntry.Kind

#: The parts of an entry (named as the package's sections) and their models.
SECTION_MODELS: dict[str, type[Model]] = {
    "symbol_sets": SymbolSet,
    "activity_cards": ActivityCard,
    "knowledge_questions": KnowledgeQuestion,
    "knowledge_boards": KnowledgeBoard,
    "know_questions": KnowQuestion,
}
#: The parts each kind of entry may hold.
KIND_SECTIONS: dict[str, tuple[str, ...]] = {
    Kind.SYMBOL_SET: ("symbol_sets",),
    Kind.ACTIVITY_CARDS: ("activity_cards",),
    Kind.KNOWLEDGE: ("knowledge_questions", "knowledge_boards"),
    Kind.KNOW_QUESTIONS: ("know_questions",),
}


class LibraryError(ValueError):
    """The library refuses the request; the message says why, for the teacher."""


def _teacher(user: Any) -> None:
    if not getattr(user, "is_authenticated", False) or not user.can_author:
        raise PermissionDenied(_("Only teachers and admins use the library."))


def _own(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    return queryset if user.is_admin else queryset.filter(owner=user)


# --- Reads -----------------------------------------------------------------------------------


def library_entries(
    *,
    user: Any,
    kind: str = "",
    theme: Theme | None = None,
    period: Period | None = None,
    language: str = "",
    text: str = "",
) -> QuerySet[LibraryEntry]:
    """The published entries a teacher finds with these filters (empty: any)."""
    _teacher(user)
    entries = LibraryEntry.objects.filter(published=True)
    if kind:
        entries = entries.filter(kind=kind)
    if theme is not None:
        entries = entries.filter(themes=theme)
    if period is not None:
        entries = entries.filter(periods=period)
    if language:
        entries = entries.filter(language=language)
    if text.strip():
        entries = entries.filter(Q(title__icontains=text.strip()) | Q(description__icontains=text.strip()))
    return entries.select_related("owner").prefetch_related("themes", "periods").distinct()


def library_entry_visible(user: Any) -> QuerySet[LibraryEntry]:
    """The entries ``user`` may open: the published ones, and their own (admins: all)."""
    _teacher(user)
    entries = LibraryEntry.objects.select_related("owner", "symbol_set")
    if user.is_admin:
        return entries
    return entries.filter(Q(published=True) | Q(owner=user))


def _symbols(entry: LibraryEntry) -> list[Symbol]:
    """The set's symbols in order, those its publisher may see (as a package holds them)."""
    if entry.symbol_set is None:
        return []
    visible = content_visible_to(entry.owner, Symbol.objects.filter(memberships__symbol_set=entry.symbol_set))
    pks = set(visible.values_list("pk", flat=True))
    members = entry.symbol_set.members.select_related("symbol__collection").prefetch_related(
        "symbol__periods"
    )
    return [m.symbol for m in members.order_by("position", "id") if m.symbol_id in pks]


def library_entry_rows(entry: LibraryEntry) -> dict[str, list[Any]]:
    """The content an entry holds now, by part (the parts that hold nothing left out)."""
    rows: dict[str, list[Any]] = {
        "symbol_sets": [entry.symbol_set] if entry.symbol_set is not None else [],
        "activity_cards": list(entry.activity_cards.order_by("pk")),
        "knowledge_questions": list(entry.knowledge_questions.order_by("pk")),
        "knowledge_boards": list(entry.knowledge_boards.order_by("name", "pk")),
        "know_questions": list(entry.know_questions.order_by("pk")),
    }
    return {name: found for name, found in rows.items() if found}


def library_items(entry: LibraryEntry) -> dict[str, Any]:
    """What the preview shows: the symbols (with pictures), cards with their terms,
    questions and boards."""
    return {
        "symbols": _symbols(entry),
        "activity_cards": list(entry.activity_cards.prefetch_related("terms").order_by("pk")),
        "knowledge_questions": list(entry.knowledge_questions.order_by("pk")),
        "knowledge_boards": list(entry.knowledge_boards.order_by("name", "pk")),
        "know_questions": list(entry.know_questions.order_by("pk")),
    }


def library_publish_initial(*, user: Any, rows: Mapping[str, Sequence[int]]) -> dict[str, Any]:
    """What the publish form proposes: a title, the content's language, and for a symbol
    set the themes and periods of its symbols."""
    _teacher(user)
    language: Counter[str] = Counter()
    title = ""
    themes: set[int] = set()
    periods: set[int] = set()
    for section, pks in rows.items():
        found = list(_own(user, SECTION_MODELS[section]._default_manager.filter(pk__in=pks)))
        for row in found:
            if isinstance(row, SymbolSet):
                title = title or row.name
                symbols = Symbol.objects.filter(memberships__symbol_set=row)
                language.update(symbols.values_list("language", flat=True))
                themes.update(symbols.values_list("themes", flat=True))
                periods.update(symbols.values_list("periods", flat=True))
            elif hasattr(row, "language"):
                language[row.language] += 1
    themes.discard(None)  # type: ignore[arg-type]
    periods.discard(None)  # type: ignore[arg-type]
    return {
        "title": title,
        "language": language.most_common(1)[0][0] if language else "pl",
        "themes": sorted(themes),
        "periods": sorted(periods),
    }


# --- Writes ----------------------------------------------------------------------------------


@transaction.atomic
def library_publish(
    *,
    user: Any,
    kind: str,
    rows: Mapping[str, Iterable[int]],
    title: str,
    description: str = "",
    language: str = "pl",
    themes: Iterable[Theme] = (),
    periods: Iterable[Period] = (),
) -> LibraryEntry:
    """Publish the user's own content (``rows``: primary keys by part) as one entry.

    Only content the user owns is published (an admin publishes anyone's); a symbol set
    entry holds exactly one set. ``LibraryError`` when nothing of the user's is left.
    """
    _teacher(user)
    if kind not in KIND_SECTIONS:
        raise LibraryError(
            _("Choose what to publish: a symbol set, Activity cards, Knowledge? or Know questions.")
        )
    found: dict[str, list[Any]] = {}
    for section in KIND_SECTIONS[kind]:
        pks = list(rows.get(section, ()))
        if pks:
            found[section] = list(_own(user, SECTION_MODELS[section]._default_manager.filter(pk__in=pks)))
    if not any(found.values()):
        raise LibraryError(_("There is nothing to publish: only your own content can be published."))
    if kind == Kind.SYMBOL_SET and len(found["symbol_sets"]) != 1:
        raise LibraryError(_("Publish one symbol set at a time: each set is an entry of its own."))
    if not title.strip():
        raise LibraryError(_("Give the entry a title: it is what other teachers see in the library."))
    entry = LibraryEntry.objects.create(
        kind=kind,
        title=title.strip(),
        description=description.strip(),
        language=language,
        owner=user,
        symbol_set=found.get("symbol_sets", [None])[0],
    )
    for section in ("activity_cards", "knowledge_questions", "knowledge_boards", "know_questions"):
        if found.get(section):
            getattr(entry, section).set(found[section])
    entry.themes.set(list(themes))
    entry.periods.set(list(periods))
    return entry


@transaction.atomic
def library_unpublish(*, user: Any, entry: LibraryEntry) -> LibraryEntry:
    """Take an entry out of the library (its publisher or an admin); copies stay."""
    _teacher(user)
    entry = LibraryEntry.objects.select_for_update().get(pk=entry.pk)
    if entry.owner_id != user.pk and not user.is_admin:
        raise PermissionDenied(_("Only the teacher who published this entry can take it out of the library."))
    entry.published = False
    entry.save(update_fields=["published", "updated"])
    return entry


def library_copy(*, user: Any, entry_id: int) -> tuple[LibraryEntry, dict[str, list[int]]]:
    """Copy a published entry into ``user``'s own content, in one transaction.

    The copies are ``user``'s drafts (a set private) and name the entry in
    ``copied_from``; returns the entry and the copied primary keys by part.
    ``LibraryError`` (nothing written) for an entry that is not (or no longer) in the
    library or holds nothing any more.
    """
    _teacher(user)
    with transaction.atomic():
        entry = (
            LibraryEntry.objects.select_for_update(of=("self",))
            .select_related("owner", "symbol_set")
            .filter(pk=entry_id)
            .first()
        )
        if entry is None or not entry.published:
            raise LibraryError(
                _(
                    "This content is not in the library (any more): its teacher took it out. "
                    "Nothing was copied."
                )
            )
        rows = library_entry_rows(entry)
        if not rows:
            raise LibraryError(
                _("This entry holds nothing any more: its content was deleted. Nothing was copied.")
            )
        try:
            written = package_copy(
                user=user,
                source_user=entry.owner,
                kind=entry.kind,
                title=entry.title,
                rows=rows,
                copied_from=entry,
            )
        except PackageError as error:
            raise LibraryError(" ".join(error.messages)) from error
    return entry, written
