"""The parts of a package's manifest and what each does on export and import.

A ``Section`` is one list of the manifest (``symbols``, ``symbol_sets``, …). It says
what an exported row looks like (``entry``), reads and checks an item of a package
(``read``), finds the content here it matches (by the stable identifier ``uid`` first,
then by name: ``by_name``) and writes an item (``write``). The reference data the items
name by key (periods, collections, themes) is not a section: an import adds what is
missing and never changes what exists (``ImportContext``).

Matching and comparing use the same ``entry`` as export: an item is *the same* as the
content it matches when the content, exported, gives the item (its ``uid`` aside);
otherwise the two are *in conflict*, and the preview lists the fields that differ.

Sections of higher apps (the quizzes) are added with :func:`section_register`; the
content app never imports them.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db.models import Max, Model, QuerySet
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content import services
from content.answers import AnswerError, answer_format, answer_validate
from content.media import random_name
from content.models import (
    LANGUAGES,
    SLOTS,
    SYMBOL_NUMBERS,
    TERM_POINTS_MAX,
    TERM_POINTS_MIN,
    ActivityCard,
    ActivityTerm,
    Collection,
    KnowledgeBoard,
    KnowledgeCategory,
    KnowledgeQuestion,
    KnowQuestion,
    Period,
    Status,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
    card_slots_problem,
)
from content.permissions import content_visible_to
from content.pictures import Picture, PictureError, check_picture, picture_extension

from .archive import FORMAT, VERSION, Package, PackageError
from .schema import Problems, Reader, where

__all__ = [
    "CONFLICT",
    "COPY",
    "EXISTING",
    "IMPORT",
    "KINDS",
    "NEW",
    "SAME",
    "SECTIONS",
    "SKIP",
    "Exporter",
    "ImportContext",
    "Item",
    "Section",
    "section_register",
]

NEW, SAME, CONFLICT = "new", "same", "conflict"
IMPORT, EXISTING, COPY, SKIP = "import", "existing", "copy", "skip"
#: The most items one part of a package may hold (a table import's most rows).
MAX_ITEMS = 10_000
MAX_TAGS = 50
LANGUAGE_CODES = tuple(code for code, _label in LANGUAGES)
PICTURES = "pictures/"

#: What a package holds, as its manifest's ``kind`` says (the preview's heading).
KINDS: dict[str, Any] = {
    "symbol_set": gettext_lazy("Symbol set"),
    "activity_cards": gettext_lazy("Activity cards"),
    "know_questions": gettext_lazy("Know questions"),
    "knowledge": gettext_lazy("Knowledge? questions and boards"),
}


def _max(model: type[Model], name: str) -> int:
    return int(model._meta.get_field(name).max_length or 0)


def _sha_path(data: bytes, extension: str) -> str:
    return f"{PICTURES}{hashlib.sha256(data).hexdigest()}{extension}"


# --- Export ----------------------------------------------------------------------------------


class Exporter:
    """What one package holds, gathered as rows are added.

    ``files=False`` gathers no picture bytes (only their names, from their hashes): that is
    how an import compares content here with an item of a package.
    """

    def __init__(self, user: Any, *, files: bool = True) -> None:
        self.user = user
        self.files = files
        self.entries: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in SECTIONS}
        self.pictures: dict[str, bytes] = {}
        self.periods: dict[str, Period] = {}
        self.collections: dict[str, Collection] = {}
        self.themes: dict[str, Theme] = {}
        self._hashes: dict[str, str] = {}

    def add(self, section: str, row: Any) -> str:
        """Add ``row`` (and what it refers to) to the package; its ``uid``."""
        uid = str(row.uid)
        if uid not in self.entries[section]:
            self.entries[section][uid] = {}  # taken before its references are added
            self.entries[section][uid] = SECTIONS[section].entry(row, self)
        return uid

    def ref(self, section: str, row: Any) -> str:
        """``row``'s ``uid`` as another item names it: added to the package when exporting."""
        return self.add(section, row) if self.files else str(row.uid)

    def picture(self, name: str) -> str:
        """The package's path of the stored file ``name``; "" when there is none (any more)."""
        if not name:
            return ""
        if name in self._hashes:
            return self._hashes[name]
        try:
            with default_storage.open(name, "rb") as stored:
                data = stored.read()
        except OSError:
            path = ""
        else:
            path = _sha_path(data, picture_extension(data))
            if self.files:
                self.pictures[path] = data
        self._hashes[name] = path
        return path

    def period(self, period: Period) -> str:
        self.periods[period.slug] = period
        return period.slug

    def collection(self, collection: Collection) -> str:
        self.collections[collection.slug] = collection
        return collection.slug

    def theme(self, theme: Theme) -> str:
        self.themes[theme.slug] = theme
        return theme.slug

    def manifest(self, *, kind: str, title: str) -> dict[str, Any]:
        periods = sorted(self.periods.values(), key=lambda p: (p.start_year, p.end_year, p.slug))
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": kind,
            "title": title,
            "periods": [
                {
                    "key": p.slug,
                    "name": p.name,
                    "start_year": p.start_year,
                    "end_year": p.end_year,
                    "label": p.label,
                    "colour": p.colour,
                }
                for p in periods
            ],
            "collections": [
                {"key": c.slug, "name": c.name, "description": c.description}
                for c in sorted(self.collections.values(), key=lambda c: c.slug)
            ],
            "themes": [
                {"key": t.slug, "name": t.name, "description": t.description}
                for t in sorted(self.themes.values(), key=lambda t: t.slug)
            ],
            **{name: list(entries.values()) for name, entries in self.entries.items()},
        }


# --- Import ----------------------------------------------------------------------------------


@dataclass
class Item:
    """One item of a package, as the preview shows it and the write uses it."""

    section: str
    index: int
    entry: dict[str, Any]
    label: str
    state: str = NEW
    existing: Any = None
    matched_by: str = ""
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        return f"{self.section}-{self.index}"

    @property
    def uid(self) -> str:
        return str(self.entry["uid"])

    @property
    def choices(self) -> tuple[str, ...]:
        return (IMPORT, SKIP) if self.state == NEW else (EXISTING, COPY, SKIP)

    @property
    def default(self) -> str:
        return IMPORT if self.state == NEW else EXISTING


class ImportContext:
    """What the check and the write of one package share: the user, the package, the
    problems found, the reference data and the rows each item became."""

    def __init__(self, *, user: Any, package: Package, manifest: dict[str, Any]) -> None:
        self.user = user
        self.package = package
        self.manifest = manifest
        self.problems = Problems()
        self.pictures: dict[str, Picture] = {}
        self.ref_periods: dict[str, dict[str, Any]] = {}
        self.ref_collections: dict[str, dict[str, Any]] = {}
        self.ref_themes: dict[str, dict[str, Any]] = {}
        self.uids: dict[str, set[str]] = {}
        #: (section, uid) → the row the item became (written, or the one used instead).
        self.resolved: dict[tuple[str, str], Any] = {}
        #: A package picture's path → the stored file written for it by this import.
        self.stored_pictures: dict[str, str] = {}
        #: Every file this import stored: deleted again if it fails.
        self.stored: list[str] = []
        self._made: dict[tuple[type[Model], str], Model] = {}

    # Pictures ----------------------------------------------------------------------------

    def picture(self, path: str, where: str) -> str:
        """Check the package's picture ``path``; its canonical path (from the checked
        bytes, so an SVG compares as cleaned), or "" after recording a problem."""
        if path in self.pictures:
            picture = self.pictures[path]
            return _sha_path(picture.data, picture.extension)
        try:
            picture = check_picture(self.package.read(path), path)
        except (PackageError, PictureError) as error:
            self.problems.add(
                where, _('the picture "%(path)s": %(problem)s') % {"path": path[:200], "problem": error}
            )
            return ""
        self.pictures[path] = picture
        return _sha_path(picture.data, picture.extension)

    def picture_store(self, path: str, folder: str) -> str:
        """Store the package's (checked) picture ``path``; its stored name."""
        if path in self.stored_pictures:
            return self.stored_pictures[path]
        picture = self.pictures[path]
        name = default_storage.save(
            random_name(folder, f"picture{picture.extension}"), ContentFile(picture.data)
        )
        self.stored.append(name)
        self.stored_pictures[path] = name
        return name

    # Reference data --------------------------------------------------------------------

    def _reference(
        self, model: type[Model], key: str, package: dict[str, dict[str, Any]], make: Any
    ) -> Model:
        found = model._default_manager.filter(slug=key).first()
        if found is not None:
            return found
        if (model, key) not in self._made:
            self._made[(model, key)] = make(package[key])
        return self._made[(model, key)]

    def _named(self, model: type[Model], key: str, package: dict[str, dict[str, Any]]) -> Any:
        """A collection or theme: the one here with the key, or a new one from the package."""
        return self._reference(
            model,
            key,
            package,
            lambda e: services.reference_create(
                model=model, data={"slug": e["key"], "name": e["name"], "description": e["description"]}
            ),
        )

    def collection(self, key: str) -> Collection:
        row: Collection = self._named(Collection, key, self.ref_collections)
        return row

    def theme(self, key: str) -> Theme:
        row: Theme = self._named(Theme, key, self.ref_themes)
        return row

    def period(self, key: str) -> Period:
        def make(e: dict[str, Any]) -> Period:
            last = Period.objects.aggregate(m=Max("position"))["m"] or 0
            return services.reference_create(
                model=Period,
                data={
                    "slug": e["key"],
                    "name": e["name"],
                    "start_year": e["start_year"],
                    "end_year": e["end_year"],
                    "label": e["label"],
                    "colour": e["colour"],
                    "position": last + 1,
                },
            )

        row = self._reference(Period, key, self.ref_periods, make)
        assert isinstance(row, Period)
        return row

    @staticmethod
    def tags(slugs: Iterable[str]) -> list[Tag]:
        return services.tags_for(slugs=list(slugs))

    def new_uid(self, model: type[Model], item: Item, *, copy: bool) -> uuid.UUID:
        """The item's own ``uid``, unless it is a copy or the identifier is taken here
        (by content the teacher cannot see, since what they see was matched)."""
        if not copy and not model._default_manager.filter(uid=item.uid).exists():
            return uuid.UUID(item.uid)
        return uuid.uuid4()


class Section:
    """One part of the manifest: a list of items of one model."""

    name: ClassVar[str]
    model: ClassVar[type[Model]]
    noun: ClassVar[Any]
    title: ClassVar[Any]
    #: The manifest fields of an item, in the order they are written.
    fields: ClassVar[tuple[str, ...]]

    # Export -------------------------------------------------------------------------------

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset

    def entry(self, row: Any, exporter: Exporter) -> dict[str, Any]:
        raise NotImplementedError

    # Import -------------------------------------------------------------------------------

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        """The item's fields, checked for type and limits (``reader`` records problems)."""
        raise NotImplementedError

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        """The checks across fields and items, and the model's own rules."""

    def label(self, entry: dict[str, Any]) -> str:
        raise NotImplementedError

    def visible(self, ctx: ImportContext) -> QuerySet[Any]:
        """The rows an item may be matched with (and used instead): those the user sees."""
        return content_visible_to(ctx.user, self.model._default_manager.all())

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        return None

    def requires(self, entry: dict[str, Any]) -> list[tuple[str, str]]:
        """Items of the package this item cannot be written without: (section, uid)."""
        return []

    def plan(self, items: list[Item], ctx: ImportContext) -> None:
        """Decide what the items to be written need from what is here (numbers, keys)."""

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> Any:
        raise NotImplementedError

    def link(self, row: Any) -> str:
        """Where a written row is seen."""
        meta = self.model._meta
        return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk])

    # Shared -------------------------------------------------------------------------------

    def match(self, item: Item, ctx: ImportContext) -> None:
        """Find the content here the item matches, and whether it is the same."""
        visible = self.visible(ctx)
        existing = visible.filter(uid=item.uid).first()
        matched_by = "uid"
        if existing is None:
            existing, matched_by = self.by_name(item.entry, ctx), "name"
        if existing is None:
            return
        item.existing, item.matched_by = existing, matched_by
        here = self.entry(existing, Exporter(ctx.user, files=False))
        item.differences = [
            name for name in self.fields if name != "uid" and here.get(name) != item.entry.get(name)
        ]
        item.state = CONFLICT if item.differences else SAME

    def describe_existing(self, row: Any) -> str:
        return str(row)

    def _data(self, item: Item, ctx: ImportContext, *, copy: bool, fields: tuple[str, ...]) -> dict[str, Any]:
        """A new row's data as a service of ``content/services.py`` takes it: its uid, the
        item's ``fields`` and its tags."""
        data = {
            "uid": ctx.new_uid(self.model, item, copy=copy),
            **{name: item.entry[name] for name in fields},
        }
        if "tags" in item.entry:
            data["tags"] = ctx.tags(item.entry["tags"])
        return data

    def _create(self, item: Item, ctx: ImportContext, *, copy: bool, fields: tuple[str, ...]) -> Any:
        """A new row of the item's ``fields``, the importing teacher's, with its tags."""
        data = self._data(item, ctx, copy=copy, fields=fields)
        return services.model_update(instance=self.model(owner=ctx.user), data=data)


SECTIONS: dict[str, Section] = {}


def section_register(section: Section, *, kinds: dict[str, Any] | None = None) -> None:
    """Add a part to the package format (a higher app's content, e.g. quizzes)."""
    SECTIONS[section.name] = section
    KINDS.update(kinds or {})


def _taken_note(item: Item, imported: str, copied: str) -> None:
    """Say what an item gets instead of what is taken: as imported (a new item) or as a
    copy (an item that matches content here, which it would be written beside)."""
    item.notes.append(imported if item.state == NEW else copied)


def _full_clean(instance: Model, where: str, ctx: ImportContext, exclude: Iterable[str]) -> None:
    try:
        instance.full_clean(exclude=list(exclude), validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            for message in messages:
                ctx.problems.add(where, message if name == "__all__" else f'"{name}": {message}')


def _read_language(reader: Reader) -> str:
    return reader.choice("language", LANGUAGE_CODES)


def _read_tags(reader: Reader) -> list[str]:
    tags = reader.texts("tags", max_items=MAX_TAGS, max_length=_max(Tag, "slug"), keys=True)
    return sorted(tags)


# --- Symbols ---------------------------------------------------------------------------------


class SymbolSection(Section):
    name = "symbols"
    model = Symbol
    noun = gettext_lazy("symbol")
    title = gettext_lazy("Symbols")
    fields = (
        "uid",
        "collection",
        "number",
        "name",
        "alternative_names",
        "description",
        "outline",
        "periods",
        "themes",
        "portal_url",
        "language",
        "picture",
    )

    def entry(self, row: Symbol, exporter: Exporter) -> dict[str, Any]:
        return {
            "uid": str(row.uid),
            "collection": exporter.collection(row.collection),
            "number": row.number,
            "name": row.name,
            "alternative_names": row.alternative_name_list,
            "description": row.description,
            "outline": row.outline,
            # Sorted by key, not by position: positions differ between installations.
            "periods": sorted(exporter.period(p) for p in row.periods.all()),
            "themes": sorted(exporter.theme(t) for t in row.themes.all()),
            "portal_url": row.portal_url,
            "language": row.language,
            "picture": exporter.picture(row.picture.name or ""),
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        return {
            "uid": reader.uid(),
            "collection": reader.key("collection", max_length=_max(Collection, "slug")),
            "number": reader.integer("number", minimum=SYMBOL_NUMBERS[0], maximum=SYMBOL_NUMBERS[-1]),
            "name": reader.text("name", max_length=_max(Symbol, "name"), blank=False),
            "alternative_names": reader.texts(
                "alternative_names", max_items=100, max_length=_max(Symbol, "name")
            ),
            "description": reader.text("description", max_length=_max(Symbol, "description"), blank=False),
            "outline": reader.text("outline", max_length=_max(Symbol, "outline")),
            "periods": reader.texts("periods", max_items=20, max_length=_max(Period, "slug"), keys=True),
            "themes": reader.texts("themes", max_items=50, max_length=_max(Theme, "slug"), keys=True),
            "portal_url": reader.text("portal_url", max_length=_max(Symbol, "portal_url")),
            "language": _read_language(reader),
            "picture": reader.text("picture", max_length=300),
        }

    def label(self, entry: dict[str, Any]) -> str:
        number = entry.get("number")
        code = f"{number:03d}" if isinstance(number, int) else "---"
        return f"{code} {entry.get('name', '')} ({entry.get('collection', '')})"

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        if any("\n" in name or "\r" in name for name in entry["alternative_names"]):
            ctx.problems.add(where, _('"alternative_names" lists each name on its own, without line breaks.'))
        if not entry["periods"]:
            ctx.problems.add(where, _('"periods" must name at least one period.'))
        _known_key(Collection, entry["collection"], ctx.ref_collections, where, ctx, "collections")
        for key in entry["periods"]:
            _known_key(Period, key, ctx.ref_periods, where, ctx, "periods")
        for key in entry["themes"]:
            _known_key(Theme, key, ctx.ref_themes, where, ctx, "themes")
        if entry["picture"]:
            entry["picture"] = ctx.picture(entry["picture"], where) and entry["picture"]
        symbol = Symbol(
            name=entry["name"],
            number=entry["number"],
            alternative_names="\n".join(entry["alternative_names"]),
            description=entry["description"],
            outline=entry["outline"],
            portal_url=entry["portal_url"],
            language=entry["language"],
        )
        _full_clean(symbol, where, ctx, ("collection", "owner", "picture", "uid", "status"))

    def match(self, item: Item, ctx: ImportContext) -> None:
        # Compared by the checked picture's canonical name, as export names it.
        path = item.entry["picture"]
        canonical = dict(item.entry, picture=ctx.picture(path, "") if path else "")
        shown = Item(item.section, item.index, canonical, item.label)
        super().match(shown, ctx)
        item.state, item.existing, item.matched_by = shown.state, shown.existing, shown.matched_by
        item.differences = shown.differences

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        # A symbol's name here is its place: the collection and the number printed on it.
        return (
            self.visible(ctx)
            .filter(collection__slug=entry["collection"], number=entry["number"])
            .order_by("pk")
            .first()
        )

    def plan(self, items: list[Item], ctx: ImportContext) -> None:
        """Numbers are unique in a collection: an item whose number is taken here gets the
        collection's next free one."""
        taken: dict[str, set[int]] = {}
        for item in items:
            key = item.entry["collection"]
            if key not in taken:
                taken[key] = set(Symbol.objects.filter(collection__slug=key).values_list("number", flat=True))
            used = taken[key]
            number = item.entry["number"]
            if number in used:
                free = [n for n in SYMBOL_NUMBERS if n not in used]
                if not free:
                    ctx.problems.add(
                        where(self.name, item.index, item.label),
                        _('the collection "%(key)s" has no free number left (1–999) for a copy.')
                        % {"key": key},
                    )
                    continue
                number = next((n for n in free if n > item.entry["number"]), free[0])
                values = {"new": number, "old": item.entry["number"]}
                _taken_note(
                    item,
                    _("Imported, it is numbered %(new)03d: %(old)03d is taken in this collection here.")
                    % values,
                    _("As a copy, it gets the collection's next free number: %(old)03d is taken here.")
                    % values,
                )
            used.add(number)
            item.plan["number"] = number

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> Symbol:
        entry = item.entry
        data = {
            "uid": ctx.new_uid(Symbol, item, copy=copy),
            "collection": ctx.collection(entry["collection"]),
            "number": item.plan["number"],
            "name": entry["name"],
            "alternative_names": "\n".join(entry["alternative_names"]),
            "description": entry["description"],
            "outline": entry["outline"],
            "portal_url": entry["portal_url"],
            "language": entry["language"],
            "status": Status.DRAFT,
            "periods": [ctx.period(key) for key in entry["periods"]],
            "themes": [ctx.theme(key) for key in entry["themes"]],
        }
        if entry["picture"]:
            data["picture"] = ctx.picture_store(entry["picture"], "symbols")
        return services.symbol_create(owner=ctx.user, data=data)


def _known_key(
    model: type[Model], key: str, package: dict[str, Any], where: str, ctx: ImportContext, part: str
) -> None:
    """A key an item names must be here already or come with the package (in ``part``)."""
    if not key or key in package or model._default_manager.filter(slug=key).exists():
        return
    ctx.problems.add(
        where,
        _(
            'it names the key "%(key)s", which is neither in this Talia\'s %(what)s nor in the '
            'package\'s "%(part)s".'
        )
        % {"key": key, "what": model._meta.verbose_name_plural, "part": part},
    )


# --- Symbol sets ------------------------------------------------------------------------------


class SymbolSetSection(Section):
    name = "symbol_sets"
    model = SymbolSet
    noun = gettext_lazy("symbol set")
    title = gettext_lazy("Symbol sets")
    fields = ("uid", "key", "name", "description", "symbols")

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("members__symbol")

    def entry(self, row: SymbolSet, exporter: Exporter) -> dict[str, Any]:
        # Only the members the exporting teacher may see (a colleague's symbol made a
        # draft again stays out of the package).
        visible = set(
            content_visible_to(exporter.user, Symbol.objects.filter(memberships__symbol_set=row)).values_list(
                "pk", flat=True
            )
        )
        members = [
            member.symbol
            for member in row.members.select_related("symbol__collection").order_by("position", "id")
            if member.symbol_id in visible
        ]
        return {
            "uid": str(row.uid),
            "key": row.slug,
            "name": row.name,
            "description": row.description,
            "symbols": [exporter.ref("symbols", symbol) for symbol in members],
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        return {
            "uid": reader.uid(),
            "key": reader.key("key", max_length=_max(SymbolSet, "slug")),
            "name": reader.text("name", max_length=_max(SymbolSet, "name"), blank=False),
            "description": reader.text("description", max_length=10_000),
            "symbols": reader.texts("symbols", max_items=MAX_ITEMS, max_length=36),
        }

    def label(self, entry: dict[str, Any]) -> str:
        return str(entry.get("name", ""))

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        unknown = [uid for uid in entry["symbols"] if uid not in ctx.uids.get("symbols", set())]
        if unknown:
            ctx.problems.add(
                where,
                _('"symbols" names %(n)s symbol(s) the package does not hold, e.g. "%(uid)s".')
                % {"n": len(unknown), "uid": unknown[0]},
            )

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        visible = self.visible(ctx)
        return (
            visible.filter(slug=entry["key"]).first()
            or visible.filter(name=entry["name"]).order_by("pk").first()
        )

    def requires(self, entry: dict[str, Any]) -> list[tuple[str, str]]:
        return [("symbols", uid) for uid in entry["symbols"]]

    def plan(self, items: list[Item], ctx: ImportContext) -> None:
        taken = set(SymbolSet.objects.values_list("slug", flat=True))
        for item in items:
            key = item.entry["key"]
            if key in taken:
                stem = slugify(key)[: _max(SymbolSet, "slug") - 4] or "set"
                key = next(f"{stem}-{n}" for n in range(2, 10_000) if f"{stem}-{n}" not in taken)
                values = {"new": key, "old": item.entry["key"]}
                _taken_note(
                    item,
                    _('Imported, its key is "%(new)s": "%(old)s" is taken here.') % values,
                    _('As a copy, it gets a key of its own: "%(old)s" is taken here.') % values,
                )
            taken.add(key)
            item.plan["key"] = key

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> SymbolSet:
        entry = item.entry
        return services.symbol_set_create(
            owner=ctx.user,
            data={
                "uid": ctx.new_uid(SymbolSet, item, copy=copy),
                "slug": item.plan["key"],
                "name": entry["name"],
                "description": entry["description"],
            },
            symbol_ids=[ctx.resolved[("symbols", uid)].pk for uid in entry["symbols"]],
        )


# --- Activity cards --------------------------------------------------------------------------


class ActivityCardSection(Section):
    name = "activity_cards"
    model = ActivityCard
    noun = gettext_lazy("Activity card")
    title = gettext_lazy("Activity cards")
    fields = ("uid", "title", "language", "tags", "terms")

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("terms", "tags")

    def entry(self, row: ActivityCard, exporter: Exporter) -> dict[str, Any]:
        terms = sorted(row.terms.all(), key=lambda t: t.slot)
        return {
            "uid": str(row.uid),
            "title": row.title,
            "language": row.language,
            "tags": sorted(tag.slug for tag in row.tags.all()),
            "terms": [{"slot": t.slot, "kind": t.kind, "text": t.text, "points": t.points} for t in terms],
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        entry = {
            "uid": reader.uid(),
            "title": reader.text("title", max_length=_max(ActivityCard, "title")),
            "language": _read_language(reader),
            "tags": _read_tags(reader),
            "terms": [],
        }
        raw = reader.list("terms", max_items=len(SLOTS))
        for position, term in enumerate(raw):
            part = Reader(
                term, f"{reader.where}, terms[{position}]", ctx.problems, ("slot", "kind", "text", "points")
            )
            points = part.data.get("points")
            entry["terms"].append(
                {
                    "slot": part.choice("slot", SLOTS),
                    "kind": part.choice("kind", ActivityTerm.Kind.values),
                    "text": part.text("text", max_length=_max(ActivityTerm, "text"), blank=False),
                    "points": None
                    if points is None
                    else part.integer("points", minimum=TERM_POINTS_MIN, maximum=TERM_POINTS_MAX),
                }
            )
        return entry

    def label(self, entry: dict[str, Any]) -> str:
        if entry.get("title"):
            return str(entry["title"])
        return " · ".join(str(t.get("text", "")) for t in entry.get("terms", [])[:3])

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        if card_slots_problem([t["slot"] for t in entry["terms"]]):
            ctx.problems.add(
                where, _('"terms" must hold six terms, one for each slot A to F (Activity rulebook, Play).')
            )
            return
        entry["terms"].sort(key=lambda t: t["slot"])
        for term in entry["terms"]:
            instance = ActivityTerm(
                slot=term["slot"], kind=term["kind"], text=term["text"], points=term["points"]
            )
            _full_clean(instance, f"{where}, {term['slot']}", ctx, ("card",))
        _full_clean(
            ActivityCard(title=entry["title"], language=entry["language"]),
            where,
            ctx,
            ("owner", "uid", "status"),
        )

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        texts = [t["text"] for t in entry["terms"]]
        candidates = self.visible(ctx).filter(terms__slot="A", terms__text=texts[0], title=entry["title"])
        for card in candidates.prefetch_related("terms").order_by("pk")[:50]:
            if [t.text for t in sorted(card.terms.all(), key=lambda t: t.slot)] == texts:
                return card
        return None

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> ActivityCard:
        data = self._data(item, ctx, copy=copy, fields=("title", "language"))
        return services.activity_card_create(owner=ctx.user, data=data, terms=item.entry["terms"])


# --- Knowledge? questions and boards --------------------------------------------------------


class KnowledgeQuestionSection(Section):
    name = "knowledge_questions"
    model = KnowledgeQuestion
    noun = gettext_lazy("Knowledge? question")
    title = gettext_lazy("Knowledge? questions")
    fields = ("uid", "category", "front", "back", "answer", "source", "language", "tags")

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("tags")

    def entry(self, row: KnowledgeQuestion, exporter: Exporter) -> dict[str, Any]:
        return {
            "uid": str(row.uid),
            "category": row.category,
            "front": row.front,
            "back": row.back,
            "answer": row.answer,
            "source": row.source,
            "language": row.language,
            "tags": sorted(tag.slug for tag in row.tags.all()),
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        return {
            "uid": reader.uid(),
            "category": reader.choice("category", KnowledgeCategory.values),
            "front": reader.text("front", max_length=_max(KnowledgeQuestion, "front"), blank=False),
            "back": reader.text("back", max_length=_max(KnowledgeQuestion, "back"), blank=False),
            "answer": reader.raw("answer"),
            "source": reader.text("source", max_length=_max(KnowledgeQuestion, "source")),
            "language": _read_language(reader),
            "tags": _read_tags(reader),
        }

    def label(self, entry: dict[str, Any]) -> str:
        return str(entry.get("front", ""))[:80]

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        if entry["category"] not in KnowledgeCategory.values:
            return  # the category's own problem says what to fix
        try:
            entry["answer"] = answer_validate(entry["category"], entry["answer"])
        except AnswerError as error:
            ctx.problems.add(where, f'"answer": {error}')

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        return (
            self.visible(ctx).filter(category=entry["category"], front=entry["front"]).order_by("pk").first()
        )

    def describe_existing(self, row: Any) -> str:
        return f"{row.front[:80]} ({answer_format(row.category, row.answer)})"

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> KnowledgeQuestion:
        fields = ("category", "front", "back", "answer", "source", "language")
        data = self._data(item, ctx, copy=copy, fields=fields)
        return services.knowledge_question_create(owner=ctx.user, data=data)


class KnowledgeBoardSection(Section):
    name = "knowledge_boards"
    model = KnowledgeBoard
    noun = gettext_lazy("Knowledge? board")
    title = gettext_lazy("Knowledge? boards")
    fields = ("uid", "name", "description", "spaces", "finish", "opponent_start", "opponent_start_hard")

    def entry(self, row: KnowledgeBoard, exporter: Exporter) -> dict[str, Any]:
        return {
            "uid": str(row.uid),
            "name": row.name,
            "description": row.description,
            "spaces": row.spaces,
            "finish": row.finish,
            "opponent_start": row.opponent_start,
            "opponent_start_hard": row.opponent_start_hard,
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        return {
            "uid": reader.uid(),
            "name": reader.text("name", max_length=_max(KnowledgeBoard, "name"), blank=False),
            "description": reader.text("description", max_length=10_000),
            "spaces": reader.list("spaces", max_items=1000),
            "finish": reader.integer("finish", minimum=0, maximum=999),
            "opponent_start": reader.integer("opponent_start", minimum=0, maximum=999),
            "opponent_start_hard": reader.integer("opponent_start_hard", minimum=0, maximum=999, null=True),
        }

    def label(self, entry: dict[str, Any]) -> str:
        return str(entry.get("name", ""))

    def check(self, entry: dict[str, Any], where: str, ctx: ImportContext) -> None:
        board = KnowledgeBoard(
            name=entry["name"],
            description=entry["description"],
            spaces=entry["spaces"],
            finish=entry["finish"],
            opponent_start=entry["opponent_start"],
            opponent_start_hard=entry["opponent_start_hard"],
        )
        _full_clean(board, where, ctx, ("owner", "uid", "status"))

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        return self.visible(ctx).filter(name=entry["name"]).order_by("pk").first()

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> KnowledgeBoard:
        board: KnowledgeBoard = self._create(item, ctx, copy=copy, fields=self.fields[1:])
        return board


# --- Know question bank ---------------------------------------------------------------------


class KnowQuestionSection(Section):
    name = "know_questions"
    model = KnowQuestion
    noun = gettext_lazy("Know question")
    title = gettext_lazy("Know questions")
    fields = ("uid", "text", "answers", "source", "language", "tags")

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("tags")

    def entry(self, row: KnowQuestion, exporter: Exporter) -> dict[str, Any]:
        return {
            "uid": str(row.uid),
            "text": row.text,
            "answers": [str(answer) for answer in row.answers or []],
            "source": row.source,
            "language": row.language,
            "tags": sorted(tag.slug for tag in row.tags.all()),
        }

    def read(self, reader: Reader, ctx: ImportContext) -> dict[str, Any]:
        return {
            "uid": reader.uid(),
            "text": reader.text("text", max_length=_max(KnowQuestion, "text"), blank=False),
            "answers": reader.texts("answers", max_items=100, max_length=500),
            "source": reader.text("source", max_length=_max(KnowQuestion, "source")),
            "language": _read_language(reader),
            "tags": _read_tags(reader),
        }

    def label(self, entry: dict[str, Any]) -> str:
        return str(entry.get("text", ""))[:80]

    def by_name(self, entry: dict[str, Any], ctx: ImportContext) -> Any:
        return self.visible(ctx).filter(text=entry["text"]).order_by("pk").first()

    def write(self, item: Item, ctx: ImportContext, *, copy: bool) -> KnowQuestion:
        question: KnowQuestion = self._create(
            item, ctx, copy=copy, fields=("text", "answers", "source", "language")
        )
        return question


for _section in (
    SymbolSection(),
    SymbolSetSection(),
    ActivityCardSection(),
    KnowledgeQuestionSection(),
    KnowledgeBoardSection(),
    KnowQuestionSection(),
):
    section_register(_section)
