"""The table columns of Talia's content: one definition for export and for import.

The same django-import-export resources write an export and check and write an
import, so an exported file imports back unchanged (every row "unchanged"), and a
curator who edits the file in Excel or LibreOffice gets back exactly what they see.

Files are CSV (UTF-8; Talia writes it with a BOM so Excel shows Polish letters) or
XLSX (the first sheet). The first non-empty row is the header; column names are
matched without regard to case, and spaces count as ``_``. A column that is absent
from the file is left alone on rows that update existing content; a column that
Talia does not know is refused (so a misspelt column is never silently ignored).
Lists inside a cell are separated by ``|``.

Symbols (``symbols``)
    Identity: ``collection`` + ``number``; a row whose collection and number exist
    updates that symbol, any other row adds one.

    ================== ======== ==========================================================
    column             required meaning
    ================== ======== ==========================================================
    collection         yes      key (slug) of an existing collection; unknown keys are
                                refused with the list of known ones
    number             yes      1–999, unique in the collection ("002" and "2" are equal)
    name               yes      the name printed in bold
    alternative_names           accepted alternative names, ``|``-separated
    description        yes      the explanatory description (one sentence)
    outline                     the short historical outline (at most 1500 characters)
    periods            yes      period keys, ``|``-separated, at least one, e.g.
                                ``ii-rp|prl``; unknown keys are refused
    themes                      theme keys, ``|``-separated; unknown keys are refused
    portal_url                  the education portal page (a full URL)
    language                    pl, en, cs or de; empty: pl
    status                      draft or published; empty: draft
    picture                     the picture's file name inside the pictures ZIP (a path
                                such as ``pictures/test/orzel.png`` or just
                                ``orzel.png``); empty keeps the current picture.
                                PNG, JPEG, WebP or SVG (SVGs are cleaned of scripts).
    ================== ======== ==========================================================

    A CSV or XLSX export leaves ``picture`` empty (so it imports back without a
    ZIP); the ZIP export holds the table plus ``pictures/<collection>/<file>`` and
    names those paths, so the ZIP itself is the pictures ZIP of a re-import.

Activity cards (``activity_cards``)
    Identity: ``id``; empty adds a new card, an id updates that card (it must exist
    here: ids are not portable between Talia installations, so clear the column to
    copy cards to another one).

    ====================== ======== ======================================================
    column                 required meaning
    ====================== ======== ======================================================
    id                              empty for a new card
    title                           optional title shown in lists
    language                        pl, en, cs or de; empty: pl
    status                          draft or published; empty: draft
    tags                            tags, ``|``-separated; new tags are created
    a … f                  yes      the text of slot A … F (every card has all six)
    a_kind … f_kind                 term, chain or rhyme; empty: term
    a_points … f_points    yes      3–6 for a term; empty for chain and rhyme
    ====================== ======== ======================================================

Knowledge? questions (``knowledge_questions``)
    Identity: ``id``, as for Activity cards.

    ========== ======== ==================================================================
    column     required meaning
    ========== ======== ==================================================================
    id                  empty for a new question
    category   yes      number, letter or colour
    front      yes      the question
    back       yes      the answer and explanation
    answer     yes      number: 0–5 ("3"); letter: one or more of A–E ("C/D"); colour:
                        one or more of red, yellow, green, blue, white ("blue/white")
    source              where the fact comes from
    language            pl, en, cs or de; empty: pl
    status              draft or published; empty: draft
    tags                tags, ``|``-separated; new tags are created
    ========== ======== ==================================================================

Quiz questions (``quiz_questions``)
    Identity: ``id``, as for Activity cards. Options go in the slots ``a`` … ``f`` (2–6 of
    them, in order; an empty slot is skipped).

    ============ ======== ================================================================
    column       required meaning
    ============ ======== ================================================================
    id                    empty for a new question
    kind         yes      choice (multiple choice), chronology or matching
    text                  the question; a multiple choice needs it (or a picture)
    picture               the question's picture: a file name in the pictures ZIP;
                          empty keeps the current picture
    answer                multiple choice: the letter of the one right option (A–F);
                          empty for chronology and matching
    a … f        yes (a,  the option's text, the event, or the left-hand side of a pair
                 b)
    a_picture …           the option's picture (in the pictures ZIP); empty keeps the
                          current picture of that option
    a_date …              chronology: the event's date, YYYY, YYYY-MM or YYYY-MM-DD
    a_match …             matching: the right-hand side that pairs with the slot's text
    explanation           shown after the student hands in, and in the answer key
    language              pl, en, cs or de; empty: pl
    status                draft or published; empty: draft
    tags                  tags, ``|``-separated; new tags are created
    ============ ======== ================================================================

    A question students could not answer fairly is a row error naming the column: a
    multiple choice without a right option or with two options alike, a chronology with
    two events whose dates cannot be told apart (a year holds every day of it), a
    matching with a side left without its pair (``content/questions.py``).

New rows belong to the importing user. A row that would change content the user
may not change (``content.permissions.can_change``) is a row error. Every row is
checked with the model's own rules (``full_clean``, its constraints, the Activity
term rules and the Knowledge? answer rules) before anything is written.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import PurePath
from typing import IO, Any, ClassVar

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.files.base import ContentFile
from django.core.validators import validate_slug
from django.db import models
from django.db.models import Model, QuerySet
from django.utils import timezone
from import_export.fields import Field
from import_export.resources import ModelResource
from import_export.widgets import CharWidget, ForeignKeyWidget, ManyToManyWidget, Widget

from games.engines.quiz import OptionEntry

from .answers import AnswerError, answer_format, answer_parse
from .models import (
    LANGUAGES,
    SLOTS,
    SYMBOL_NUMBERS,
    ActivityCard,
    ActivityTerm,
    Collection,
    ImportJob,
    KnowledgeCategory,
    KnowledgeQuestion,
    Period,
    QuizQuestion,
    QuizQuestionOption,
    Status,
    Symbol,
    Tag,
    Theme,
    term_points_problem,
)
from .permissions import can_change
from .questions import picture_digest, question_errors
from .services import (
    PictureError,
    activity_card_create,
    activity_card_update,
    knowledge_question_create,
    knowledge_question_update,
    model_update,
    picture_file,
    symbol_create,
    symbol_update,
    tags_for,
)

__all__ = [
    "RESOURCES",
    "ActivityCardResource",
    "ExportFile",
    "KnowledgeQuestionResource",
    "QuizQuestionResource",
    "RowCheck",
    "SymbolResource",
    "content_export",
    "kind_for_model",
]

LIST_SEPARATOR = "|"
LANGUAGE_CODES = tuple(code for code, _label in LANGUAGES)
STATUSES = tuple(Status.values)
TERM_KINDS = tuple(ActivityTerm.Kind.values)

NEW, UPDATE, SKIP = "new", "update", "skip"


def cell_text(value: Any) -> str:
    """A cell as text: stripped, with one kind of line break."""
    if value is None:
        return ""
    return str(value).replace("\r\n", "\n").replace("\r", "\n").strip()


def _split(value: Any) -> list[str]:
    return [part.strip() for part in cell_text(value).split(LIST_SEPARATOR) if part.strip()]


def _known(model: type[Model], what: str, unknown: list[str]) -> str:
    """The message for keys (slugs) that do not exist, naming the ones that do."""
    names = ", ".join(f'"{slug}"' for slug in unknown)
    noun = what if len(unknown) == 1 else f"{what}s"
    slugs = list(model.objects.order_by("slug").values_list("slug", flat=True)[:31])
    if not slugs:
        return f"Unknown {noun} {names}: there are none yet; an admin adds them first."
    listing = ", ".join(slugs[:30]) + (", …" if len(slugs) > 30 else "")
    return f"Unknown {noun} {names}; the known {what}s are: {listing}."


# --- Widgets: each turns a cell into a value or raises ValueError with a clear message ------


class TextWidget(CharWidget):
    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> str:
        return cell_text(value)

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        return "" if value is None else str(value)


class WholeNumberWidget(Widget):
    """A whole number within limits; "002" and Excel's "2.0" read as 2."""

    def __init__(self, *, minimum: int, maximum: int, what: str) -> None:
        super().__init__()
        self.minimum, self.maximum, self.what = minimum, maximum, what

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> int | None:
        text = cell_text(value)
        if not text:
            return None
        if not re.fullmatch(r"\d+(\.0*)?", text):
            raise ValueError(
                f'{self.what} is a whole number from {self.minimum} to {self.maximum}, not "{text}".'
            )
        number = int(text.split(".")[0])
        if not self.minimum <= number <= self.maximum:
            raise ValueError(f"{self.what} is from {self.minimum} to {self.maximum}, not {number}.")
        return number

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        return "" if value is None else str(value)


class ChoiceWidget(Widget):
    """One of a few codes (language, status, category), case-insensitive."""

    def __init__(self, choices: Iterable[str]) -> None:
        super().__init__()
        self.choices = tuple(choices)

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> str | None:
        text = cell_text(value).lower()
        if not text:
            return None
        if text not in self.choices:
            raise ValueError(f'Use one of {", ".join(self.choices)}, not "{cell_text(value)}".')
        return text

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        return "" if value is None else str(value)


class SlugWidget(ForeignKeyWidget):
    """A foreign key written as the related row's key; an unknown key is an error."""

    def __init__(self, model: type[Model], what: str) -> None:
        super().__init__(model, field="slug")
        self.what = what

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Model | None:
        slug = cell_text(value)
        if not slug:
            return None
        found = self.model.objects.filter(slug=slug).first()
        if found is None:
            found = self.model.objects.filter(slug__iexact=slug).order_by("pk").first()
        if found is None:
            raise ValueError(_known(self.model, self.what, [slug]))
        return found

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        return value.slug if value is not None else ""


class SlugListWidget(ManyToManyWidget):
    """Several keys separated by ``|``.

    Unlike import-export's ``ManyToManyWidget``, which silently drops ids it does not
    find, an unknown key is an error that names the known keys.
    """

    def __init__(self, model: type[Model], what: str, *, required: bool = False, example: str = "") -> None:
        super().__init__(model, separator=LIST_SEPARATOR, field="slug")
        self.what, self.required, self.example = what, required, example

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> list[Model]:
        slugs = list(dict.fromkeys(_split(value)))
        if not slugs:
            if self.required:
                example = f', e.g. "{self.example}"' if self.example else ""
                raise ValueError(f"Give at least one {self.what}; separate several with |{example}.")
            return []
        by_slug = {obj.slug: obj for obj in self.model.objects.filter(slug__in=slugs)}
        unknown = [slug for slug in slugs if slug not in by_slug]
        if unknown:
            raise ValueError(_known(self.model, self.what, unknown))
        return [by_slug[slug] for slug in slugs]

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        if value is None:
            return ""
        return LIST_SEPARATOR.join(item.slug for item in value.all())


class TagListWidget(ManyToManyWidget):
    """Tags separated by ``|``. Tags are free labels: new ones are created on import."""

    def __init__(self) -> None:
        super().__init__(Tag, separator=LIST_SEPARATOR, field="slug")

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> list[str]:
        tags = list(dict.fromkeys(_split(value)))
        for tag in tags:
            try:
                validate_slug(tag)
            except ValidationError as error:
                raise ValueError(
                    f'"{tag}" is not a tag: a tag is letters, digits, hyphens and '
                    f'underscores, like "ii-wojna".'
                ) from error
            if len(tag) > Tag._meta.get_field("slug").max_length:
                raise ValueError(f'The tag "{tag}" is too long; keep tags under 50 characters.')
        return tags

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        if value is None:
            return ""
        return LIST_SEPARATOR.join(tag.slug for tag in value.all())

    @staticmethod
    def tags_for(slugs: list[str]) -> list[Tag]:
        return tags_for(slugs=slugs)


class NameListWidget(Widget):
    """Alternative names: ``|`` in the file, one per line in the model."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> str:
        return "\n".join(_split(value))

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        lines = [line.strip() for line in (value or "").splitlines() if line.strip()]
        return LIST_SEPARATOR.join(lines)


class AnswerWidget(Widget):
    """A Knowledge? answer as ``answer_parse`` reads it, for the row's category."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        category = cell_text((row or {}).get("category")).lower()
        text = cell_text(value)
        if category not in KnowledgeCategory.values:
            return text or None  # the category's own error says what to fix
        try:
            return answer_parse(category, text)
        except AnswerError as error:
            raise ValueError(str(error)) from error


# --- Checking and writing a row -----------------------------------------------------------


@dataclass
class RowCheck:
    """What one row of an import would do, and what is wrong with it."""

    line: int
    action: str = NEW
    summary: str = ""
    errors: list[str] = field(default_factory=list)
    instance: Any = None
    m2m: dict[str, list[Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_preview(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "action": self.action,
            "summary": self.summary,
            "errors": list(self.errors),
        }


class _Errors:
    """Per-column messages of one row, in the order found, without repeats."""

    def __init__(self) -> None:
        self.by_column: dict[str, list[str]] = {}

    def add(self, column: str, message: str) -> None:
        messages = self.by_column.setdefault(column, [])
        if message not in messages:
            messages.append(message)

    def __contains__(self, column: str) -> bool:
        return column in self.by_column

    def __bool__(self) -> bool:
        return bool(self.by_column)

    def lines(self, order: list[str]) -> list[str]:
        """ "column: message" lines; row-level messages first, then in column order."""
        position = {column: index for index, column in enumerate(["", *order])}
        columns = sorted(self.by_column, key=lambda column: position.get(column, len(position)))
        return [
            f"{column}: {message}" if column else message
            for column in columns
            for message in self.by_column[column]
        ]


class ContentResource(ModelResource):
    """A content kind's columns, plus the row check and write that imports share.

    ``check_row`` never writes; ``save_row`` writes what ``check_row`` accepted. The
    import service calls both, the first for the preview and both, again, in the
    single transaction of the import.
    """

    kind: ClassVar[str]
    noun: ClassVar[str]
    required_columns: ClassVar[tuple[str, ...]] = ()
    numeric_columns: ClassVar[frozenset[str]] = frozenset()
    # Errors on the key field are dropped when the value field already has one.
    dependent_fields: ClassVar[dict[str, str]] = {}
    #: Whether rows name pictures in a pictures ZIP (and the ZIP export holds them).
    takes_pictures: ClassVar[bool] = False

    class Meta:
        skip_diff = True
        clean_model_instances = True

    def __init__(self, *, user: Any = None, pictures: Any = None, lock: bool = False) -> None:
        super().__init__()
        self.user = user
        self.pictures = pictures
        self.lock = lock
        self.stored_files: list[str] = []
        self._seen: dict[Any, int] = {}

    # The column layout -------------------------------------------------------------------

    @classmethod
    def columns(cls) -> list[str]:
        return cls().get_export_headers()

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset

    # Hooks for the kinds --------------------------------------------------------------------

    def find_instance(self, row: dict[str, str], errors: _Errors) -> tuple[Any, bool]:
        raise NotImplementedError

    def identity(self, instance: Any, row: dict[str, str], errors: _Errors) -> Any:
        """A key that may appear only once per file, or None."""
        return None

    def identity_column(self) -> str:
        return "id"

    def check_extra(self, instance: Any, row: dict[str, str], check: RowCheck, errors: _Errors) -> None:
        """Check what is not a plain model field (terms, pictures)."""

    def extra_state(self, instance: Any, check: RowCheck | None) -> dict[str, Any]:
        """The extra parts' state, before (``check`` None) or after the row."""
        return {}

    def save_extra(self, instance: Any, check: RowCheck) -> None:
        """Write the extra parts after the instance is saved."""

    def before_instance_save(self, instance: Any, check: RowCheck) -> None:
        """Prepare the instance just before it is saved."""

    def describe(self, instance: Any, check: RowCheck | None = None) -> str:
        return str(instance)

    def export_pictures(self, queryset: QuerySet[Any], archive: Any) -> None:
        """Write the rows' pictures into a ZIP export and remember the paths for the table."""

    def read_picture(self, name: str, column: str, errors: _Errors) -> ContentFile | None:
        """The picture ``name`` of the pictures ZIP, checked and cleaned; None (and an error
        on ``column``) when there is no ZIP, no such file or no acceptable picture."""
        if self.pictures is None:
            errors.add(
                column,
                f'The row names the picture "{name}" but no pictures ZIP '
                "was uploaded; upload the ZIP with the table, or leave "
                f"{column} empty to keep the current picture.",
            )
            return None
        try:
            data = self.pictures.read(name)
            return picture_file(data, name)
        except (ValueError, PictureError) as error:
            errors.add(column, str(error))
            return None

    # The row check ------------------------------------------------------------------------

    def _new(self) -> Any:
        return self._meta.model()

    def _existing(self, **lookup: Any) -> Any:
        queryset = self._meta.model.objects.filter(**lookup)
        if self.lock:
            queryset = queryset.select_for_update()
        return queryset.first()

    def _data_fields(self) -> list[Field]:
        return [f for f in self.get_import_fields() if f.attribute and not f.readonly]

    def _state(self, instance: Any, check: RowCheck | None) -> dict[str, Any]:
        """What the row decides about ``instance``, comparable before and after."""
        state: dict[str, Any] = {}
        for data_field in self._data_fields():
            attribute = data_field.attribute
            if isinstance(data_field.widget, ManyToManyWidget):
                if check is not None and attribute in check.m2m:
                    values = check.m2m[attribute]
                elif instance.pk:
                    values = list(getattr(instance, attribute).all())
                else:
                    values = []
                state[attribute] = sorted(str(getattr(v, "slug", v)) for v in values)
            else:
                state[attribute] = data_field.get_value(instance)
        state.update(self.extra_state(instance, check))
        return state

    def check_row(self, row: dict[str, str], *, line: int) -> RowCheck:
        """Check one row; write nothing. ``row`` maps column names to cell text."""
        check = RowCheck(line=line)
        errors = _Errors()
        instance, new = self.find_instance(row, errors)
        check.instance = instance
        check.action = NEW if new else UPDATE
        if not new and not can_change(self.user, instance):
            whose = "another teacher" if instance.owner_id else "the shared library"
            errors.add("", f"{self.describe(instance)} belongs to {whose}; you may not change it.")
            check.summary = self.describe(instance)
            check.errors = errors.lines(self.get_export_headers())
            return check
        before = None if new else self._state(instance, None)

        for data_field in self._data_fields():
            column = data_field.column_name
            if column not in row:
                continue
            try:
                if isinstance(data_field.widget, ManyToManyWidget):
                    check.m2m[data_field.attribute] = data_field.clean(row)
                else:
                    data_field.save(instance, row)
            except ValueError as error:
                errors.add(column, str(error))
        if new:
            instance.owner = self.user
        self.check_extra(instance, row, check, errors)
        self._model_rules(instance, errors)

        key = self.identity(instance, row, errors)
        if key is not None:
            if key in self._seen:
                errors.add(
                    self.identity_column(),
                    f"{self.describe(instance, check)} is already in row {self._seen[key]}; "
                    f"each {self.noun} may appear only once in a file.",
                )
            else:
                self._seen[key] = line

        check.summary = self.describe(instance, check)
        check.errors = errors.lines(self.get_export_headers())
        if not errors and before is not None and self._state(instance, check) == before:
            check.action = SKIP
        return check

    def _model_rules(self, instance: Any, errors: _Errors) -> None:
        """The model's own validation, reported per column."""
        columns = {f.attribute: f.column_name for f in self._data_fields()}
        failed = {name for name, column in columns.items() if column in errors}
        try:
            instance.full_clean(exclude=failed)
        except ValidationError as error:
            for name, items in error.error_dict.items():
                if name in failed:
                    continue  # e.g. Model.clean() repeating a field's own error
                key = self.dependent_fields.get(name)
                if key and columns.get(key, key) in errors:
                    continue
                column = "" if name == NON_FIELD_ERRORS else columns.get(name, name)
                for item in items:
                    errors.add(column, _message(item))
        # Django checks a TextField's max_length only in forms; the cards need it here.
        for model_field in instance._meta.concrete_fields:
            if isinstance(model_field, models.TextField) and model_field.max_length:
                column = columns.get(model_field.name, model_field.name)
                value = getattr(instance, model_field.attname) or ""
                if column not in errors and len(value) > model_field.max_length:
                    errors.add(
                        column,
                        f"Ensure this value has at most {model_field.max_length} characters "
                        f"(it has {len(value)}).",
                    )

    # Writing ------------------------------------------------------------------------------

    def save_row(self, check: RowCheck) -> None:
        """Write a row that ``check_row`` accepted (inside the import's transaction)."""
        if check.errors:
            raise ValueError(f"Row {check.line} has errors and cannot be written.")
        if check.action == SKIP:
            return
        instance = check.instance
        self.before_instance_save(instance, check)
        data: dict[str, Any] = {
            field.name: getattr(instance, field.name)
            for field in instance._meta.concrete_fields
            if field.editable and not field.primary_key
        }
        for attribute, values in check.m2m.items():
            if isinstance(self.fields[attribute].widget, TagListWidget):
                values = TagListWidget.tags_for(values)
            data[attribute] = values
        check.instance = instance = self.write(instance, data, check)
        self.save_extra(instance, check)

    def write(self, instance: Any, data: dict[str, Any], check: RowCheck) -> Any:
        """Write the row, new (``instance.pk`` None) or changed, with ``data``: its fields and
        many-to-many fields. The kinds with a service of ``content/services.py`` call it."""
        return model_update(instance=instance, data=data)


# --- Symbols -------------------------------------------------------------------------------


class SymbolResource(ContentResource):
    kind = ImportJob.Kind.SYMBOLS
    noun = "symbol"
    takes_pictures = True
    required_columns = ("collection", "number", "name", "description", "periods")
    numeric_columns = frozenset({"number"})

    collection = Field("collection", "collection", SlugWidget(Collection, "collection"))
    number = Field(
        "number",
        "number",
        WholeNumberWidget(minimum=SYMBOL_NUMBERS[0], maximum=SYMBOL_NUMBERS[-1], what="A symbol's number"),
    )
    name = Field("name", "name", TextWidget())
    alternative_names = Field("alternative_names", "alternative_names", NameListWidget())
    description = Field("description", "description", TextWidget())
    outline = Field("outline", "outline", TextWidget())
    periods = Field(
        "periods", "periods", SlugListWidget(Period, "period", required=True, example="ii-rp|prl")
    )
    themes = Field("themes", "themes", SlugListWidget(Theme, "theme"))
    date = Field("date", "date", TextWidget())
    portal_url = Field("portal_url", "portal_url", TextWidget())
    language = Field("language", "language", ChoiceWidget(LANGUAGE_CODES), default="pl")
    status = Field("status", "status", ChoiceWidget(STATUSES), default=Status.DRAFT)
    picture = Field(None, "picture", readonly=True)

    class Meta(ContentResource.Meta):
        model = Symbol
        fields = (
            "collection",
            "number",
            "name",
            "alternative_names",
            "description",
            "outline",
            "periods",
            "themes",
            "date",
            "portal_url",
            "language",
            "status",
            "picture",
        )
        export_order = fields

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picture_paths: dict[int, str] = {}

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.select_related("collection").prefetch_related("periods", "themes")

    def dehydrate_picture(self, symbol: Symbol) -> str:
        return self.picture_paths.get(symbol.pk, "")

    def export_pictures(self, queryset: QuerySet[Any], archive: Any) -> None:
        for symbol in queryset:
            if not symbol.picture:
                continue
            # By collection and number: the stored name is random (media.random_name).
            path = f"pictures/{symbol.collection.slug}/{symbol.code}{PurePath(symbol.picture.name).suffix}"
            if _archive_file(archive, symbol.picture, path):
                self.picture_paths[symbol.pk] = path

    def identity_column(self) -> str:
        return "number"

    def find_instance(self, row: dict[str, str], errors: _Errors) -> tuple[Any, bool]:
        try:
            collection = self.fields["collection"].clean(row)
            number = self.fields["number"].clean(row)
        except (ValueError, KeyError):
            return self._new(), True  # the field loop reports what is wrong
        if collection is not None and number is not None:
            existing = self._existing(collection=collection, number=number)
            if existing is not None:
                return existing, False
        return self._new(), True

    def identity(self, instance: Any, row: dict[str, str], errors: _Errors) -> Any:
        if "collection" in errors or "number" in errors or instance.collection_id is None:
            return None
        return (instance.collection_id, instance.number)

    def describe(self, instance: Any, check: RowCheck | None = None) -> str:
        collection = instance.collection.slug if instance.collection_id else "?"
        code = instance.code
        if instance.number is None and check is not None:
            code = check.extra.get("number_text") or code
        return " ".join(f"Symbol {code} {instance.name}".split()) + f" ({collection})"

    def check_extra(self, instance: Any, row: dict[str, str], check: RowCheck, errors: _Errors) -> None:
        check.extra["number_text"] = cell_text(row.get("number"))
        name = cell_text(row.get("picture"))
        if not name:
            return
        content = self.read_picture(name, "picture", errors)
        if content is not None:
            check.extra["picture"] = content

    def extra_state(self, instance: Any, check: RowCheck | None) -> dict[str, Any]:
        content = check.extra.get("picture") if check is not None else None
        if content is None:
            return {"picture": "current"}
        new = hashlib.sha256(_content_bytes(content)).hexdigest()
        if instance.picture:
            try:
                with instance.picture.open("rb") as stored:
                    if hashlib.sha256(stored.read()).hexdigest() == new:
                        return {"picture": "current"}
            except OSError:
                pass  # the stored file is gone: the new one replaces it
        return {"picture": new}

    def write(self, instance: Any, data: dict[str, Any], check: RowCheck) -> Any:
        if instance.pk is None:
            return symbol_create(owner=instance.owner, data=data)
        return symbol_update(symbol=instance, data=data)

    def before_instance_save(self, instance: Any, check: RowCheck) -> None:
        content = check.extra.get("picture")
        if content is not None and self.extra_state(instance, check)["picture"] != "current":
            content.seek(0)
            instance.picture.save(content.name, content, save=False)
            self.stored_files.append(instance.picture.name)


def _message(error: ValidationError) -> str:
    if error.code in ("blank", "null"):
        return "Fill this in; it may not be empty."
    return " ".join(error.messages)


def _archive_file(archive: Any, picture: Any, path: str) -> bool:
    """Copy a stored picture into a ZIP export; False when its file is gone (the row is
    exported without it)."""
    try:
        with picture.open("rb") as stored:
            archive.writestr(path, stored.read())
    except OSError:
        return False
    return True


def _content_bytes(content: ContentFile) -> bytes:
    content.seek(0)
    data = content.read()
    content.seek(0)
    return data


# --- Activity cards ------------------------------------------------------------------------


def _term_of(card: ActivityCard, slot: str) -> ActivityTerm | None:
    for term in card.terms.all():
        if term.slot == slot:
            return term
    return None


def _term_column(slot: str, part: str) -> Callable[[ActivityCard], str]:
    def dehydrate(card: ActivityCard) -> str:
        term = _term_of(card, slot)
        if term is None:
            return ""
        if part == "text":
            return term.text
        if part == "kind":
            return term.kind
        return "" if term.points is None else str(term.points)

    return dehydrate


def _term_columns() -> dict[str, Field]:
    columns: dict[str, Field] = {}
    for slot in SLOTS:
        key = slot.lower()
        columns[key] = Field(None, key, readonly=True, dehydrate_method=_term_column(slot, "text"))
        columns[f"{key}_kind"] = Field(
            None, f"{key}_kind", readonly=True, dehydrate_method=_term_column(slot, "kind")
        )
        columns[f"{key}_points"] = Field(
            None, f"{key}_points", readonly=True, dehydrate_method=_term_column(slot, "points")
        )
    return columns


TERM_COLUMNS = _term_columns()


class _ByIdResource(ContentResource):
    """Cards and questions: identified by ``id``; empty means a new row."""

    def find_instance(self, row: dict[str, str], errors: _Errors) -> tuple[Any, bool]:
        raw = cell_text(row.get("id"))
        if not raw:
            return self._new(), True
        if not re.fullmatch(r"\d+(\.0*)?", raw):
            errors.add(
                "id", f'An id is a whole number, not "{raw}"; leave it empty to add a new {self.noun}.'
            )
            return self._new(), True
        pk = int(raw.split(".")[0])
        existing = self._existing(pk=pk)
        if existing is None:
            errors.add(
                "id",
                f"There is no {self.noun} with the id {pk} here; leave id empty "
                f"to add it as a new {self.noun}.",
            )
            return self._new(), True
        return existing, False

    def identity(self, instance: Any, row: dict[str, str], errors: _Errors) -> Any:
        return instance.pk


class ActivityCardResource(_ByIdResource):
    kind = ImportJob.Kind.ACTIVITY_CARDS
    noun = "Activity card"
    required_columns = tuple(s.lower() for s in SLOTS) + tuple(f"{s.lower()}_points" for s in SLOTS)
    numeric_columns = frozenset({"id"} | {f"{s.lower()}_points" for s in SLOTS})

    id = Field("id", "id", WholeNumberWidget(minimum=1, maximum=2**63 - 1, what="An id"), readonly=True)
    title = Field("title", "title", TextWidget())
    language = Field("language", "language", ChoiceWidget(LANGUAGE_CODES), default="pl")
    status = Field("status", "status", ChoiceWidget(STATUSES), default=Status.DRAFT)
    tags = Field("tags", "tags", TagListWidget())

    class Meta(ContentResource.Meta):
        model = ActivityCard
        fields = ("id", "title", "language", "status", "tags", *TERM_COLUMNS)
        export_order = fields

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("terms", "tags")

    def describe(self, instance: Any, check: RowCheck | None = None) -> str:
        label = f"Activity card {instance.pk}" if instance.pk else "New Activity card"
        if instance.title:
            return f"{label}: {instance.title}"
        if check is not None and check.extra.get("terms"):
            texts = [t.text for t in check.extra["terms"][:3] if t.text]
        elif instance.pk:
            texts = [t.text for t in instance.terms.all()[:3]]
        else:
            texts = []
        return f"{label}: {' · '.join(texts)}" if texts else label

    def check_extra(self, instance: Any, row: dict[str, str], check: RowCheck, errors: _Errors) -> None:
        """Activity rulebook, Play: six slots A–F; a term scores 3–6, chain and rhyme none."""
        terms = []
        for slot in SLOTS:
            key = slot.lower()
            text = cell_text(row.get(key))
            kind_text = cell_text(row.get(f"{key}_kind")).lower() or ActivityTerm.Kind.TERM
            points_text = cell_text(row.get(f"{key}_points"))
            failed = set()
            if not text:
                errors.add(key, f"Slot {slot} is empty; every card needs all six terms, A to F.")
                failed.add("text")
            if kind_text not in TERM_KINDS:
                errors.add(f"{key}_kind", f'Use term, chain or rhyme (empty means term), not "{kind_text}".')
                failed.add("kind")
            points = None
            if points_text:
                if re.fullmatch(r"\d+(\.0*)?", points_text):
                    points = int(points_text.split(".")[0])
                else:
                    errors.add(
                        f"{key}_points", f'Points are a whole number from 3 to 6, not "{points_text}".'
                    )
                    failed.add("points")
            if "kind" not in failed and "points" not in failed:
                # The rule is the model's (term_points_problem); the words name the column.
                problem = term_points_problem(kind_text, points)
                if problem:
                    errors.add(
                        f"{key}_points",
                        {
                            "missing": f"The term in slot {slot} needs its points, from 3 to 6.",
                            "range": f"A term scores 3 to 6 points, not {points}.",
                            "unexpected": f"A {kind_text} has no points; leave {key}_points empty.",
                        }[problem],
                    )
                    failed.add("points")
            if "kind" in failed:
                failed.add("points")  # the points rule depends on the kind
            term = ActivityTerm(slot=slot, kind=kind_text, text=text, points=points)
            try:
                term.full_clean(exclude={"card", *failed})
            except ValidationError as error:
                part_columns = {"text": key, "kind": f"{key}_kind", "points": f"{key}_points"}
                for name, messages in error.message_dict.items():
                    if name in failed:
                        continue
                    for message in messages:
                        errors.add(part_columns.get(name, key), message)
            terms.append(term)
        check.extra["terms"] = terms

    def extra_state(self, instance: Any, check: RowCheck | None) -> dict[str, Any]:
        if check is not None and "terms" in check.extra:
            terms = check.extra["terms"]
        elif instance.pk:
            terms = list(instance.terms.all())
        else:
            terms = []
        return {"terms": sorted((t.slot, t.kind, t.text, t.points) for t in terms)}

    def write(self, instance: Any, data: dict[str, Any], check: RowCheck) -> Any:
        # A slot's term is changed in place, so it keeps its id (sessions may refer to it).
        terms = [
            {"slot": t.slot, "kind": t.kind, "text": t.text, "points": t.points} for t in check.extra["terms"]
        ]
        if instance.pk is None:
            return activity_card_create(owner=instance.owner, data=data, terms=terms)
        return activity_card_update(card=instance, data=data, terms=terms)


for _name, _field in TERM_COLUMNS.items():
    ActivityCardResource.fields[_name] = _field


# --- Knowledge? questions ------------------------------------------------------------------


class KnowledgeQuestionResource(_ByIdResource):
    kind = ImportJob.Kind.KNOWLEDGE_QUESTIONS
    noun = "Knowledge? question"
    required_columns = ("category", "front", "back", "answer")
    numeric_columns = frozenset({"id"})
    dependent_fields = {"answer": "category"}

    id = Field("id", "id", WholeNumberWidget(minimum=1, maximum=2**63 - 1, what="An id"), readonly=True)
    category = Field("category", "category", ChoiceWidget(KnowledgeCategory.values))
    front = Field("front", "front", TextWidget())
    back = Field("back", "back", TextWidget())
    answer = Field("answer", "answer", AnswerWidget())
    source = Field("source", "source", TextWidget())
    language = Field("language", "language", ChoiceWidget(LANGUAGE_CODES), default="pl")
    status = Field("status", "status", ChoiceWidget(STATUSES), default=Status.DRAFT)
    tags = Field("tags", "tags", TagListWidget())

    class Meta(ContentResource.Meta):
        model = KnowledgeQuestion
        fields = ("id", "category", "front", "back", "answer", "source", "language", "status", "tags")
        export_order = fields

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related("tags")

    def write(self, instance: Any, data: dict[str, Any], check: RowCheck) -> Any:
        if instance.pk is None:
            return knowledge_question_create(owner=instance.owner, data=data)
        return knowledge_question_update(question=instance, data=data)

    def dehydrate_answer(self, question: KnowledgeQuestion) -> str:
        return answer_format(question.category, question.answer)

    def describe(self, instance: Any, check: RowCheck | None = None) -> str:
        label = f"Question {instance.pk}" if instance.pk else "New question"
        front = instance.front if len(instance.front) <= 80 else instance.front[:78] + "…"
        return f"{label}: {front}" if front else label


# --- Quiz questions ------------------------------------------------------------------------

QUESTION_SLOTS = ("a", "b", "c", "d", "e", "f")
QUESTION_KINDS = tuple(QuizQuestion.Kind.values)
#: An option's parts and the column suffix each is written in.
OPTION_COLUMN = {"text": "", "picture": "_picture", "date": "_date", "match": "_match"}


@dataclass
class _OptionDraft:
    """One filled slot of a row: what the option will be once written."""

    slot: str
    text: str
    date: str
    match: str
    correct: bool
    picture: ContentFile | None  # a new picture from the ZIP
    kept: Any = None  # the picture of the option this slot updates, kept when no new one

    def digest(self) -> str:
        """The picture the option will show, by its bytes."""
        if self.picture is not None:
            return hashlib.sha256(_content_bytes(self.picture)).hexdigest()
        return picture_digest(self.kept)

    def state(self) -> tuple[Any, ...]:
        return (self.text, self.date, self.match, self.correct, self.digest())


def _option_column(slot: str, part: str) -> Callable[[QuizQuestion], str]:
    index = QUESTION_SLOTS.index(slot)

    def dehydrate(question: QuizQuestion) -> str:
        options = list(question.options.all())
        if index >= len(options):
            return ""
        option = options[index]
        return str(getattr(option, part))

    return dehydrate


def _option_columns() -> dict[str, Field]:
    columns: dict[str, Field] = {}
    for slot in QUESTION_SLOTS:
        for part, suffix in OPTION_COLUMN.items():
            name = f"{slot}{suffix}"
            method = None if part == "picture" else _option_column(slot, part)
            columns[name] = Field(None, name, readonly=True, dehydrate_method=method)
    return columns


OPTION_COLUMNS = _option_columns()


class QuizQuestionResource(_ByIdResource):
    """Teacher-written quiz questions: multiple choice (with pictures), chronology, matching."""

    kind = ImportJob.Kind.QUIZ_QUESTIONS
    noun = "quiz question"
    takes_pictures = True
    required_columns = ("kind", "a", "b")
    numeric_columns = frozenset({"id"})

    id = Field("id", "id", WholeNumberWidget(minimum=1, maximum=2**63 - 1, what="An id"), readonly=True)
    kind = Field("kind", "kind", ChoiceWidget(QUESTION_KINDS))
    text = Field("text", "text", TextWidget())
    picture = Field(None, "picture", readonly=True)
    answer = Field(None, "answer", readonly=True)
    explanation = Field("explanation", "explanation", TextWidget())
    language = Field("language", "language", ChoiceWidget(LANGUAGE_CODES), default="pl")
    status = Field("status", "status", ChoiceWidget(STATUSES), default=Status.DRAFT)
    tags = Field("tags", "tags", TagListWidget())

    class Meta(ContentResource.Meta):
        model = QuizQuestion
        fields = (
            "id",
            "kind",
            "text",
            "picture",
            "answer",
            *OPTION_COLUMNS,
            "explanation",
            "language",
            "status",
            "tags",
        )
        export_order = fields

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picture_paths: dict[tuple[int, str], str] = {}

    def export_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.prefetch_related(
            models.Prefetch("options", queryset=QuizQuestionOption.objects.order_by("position", "pk")), "tags"
        )

    def export_pictures(self, queryset: QuerySet[Any], archive: Any) -> None:
        for question in queryset:
            folder = f"pictures/questions/{question.pk}"
            if question.picture:
                path = f"{folder}/question{PurePath(question.picture.name).suffix}"
                if _archive_file(archive, question.picture, path):
                    self.picture_paths[(question.pk, "")] = path
            for slot, option in zip(QUESTION_SLOTS, question.options.all(), strict=False):
                if option.picture:
                    path = f"{folder}/{slot}{PurePath(option.picture.name).suffix}"
                    if _archive_file(archive, option.picture, path):
                        self.picture_paths[(question.pk, slot)] = path

    def export_field(self, field: Field, instance: Any, **kwargs: Any) -> Any:
        name = field.column_name
        if name == "picture" or name.endswith("_picture"):
            return self.picture_paths.get((instance.pk, "" if name == "picture" else name[0]), "")
        return super().export_field(field, instance, **kwargs)

    def dehydrate_answer(self, question: QuizQuestion) -> str:
        if question.kind != QuizQuestion.Kind.CHOICE:
            return ""
        for slot, option in zip(QUESTION_SLOTS, question.options.all(), strict=False):
            if option.correct:
                return slot.upper()
        return ""

    def describe(self, instance: Any, check: RowCheck | None = None) -> str:
        label = f"Question {instance.pk}" if instance.pk else "New question"
        text = instance.text if len(instance.text) <= 80 else instance.text[:78] + "…"
        if not text and check is not None and check.extra.get("options"):
            text = " · ".join(d.text for d in check.extra["options"][:3] if d.text)
        return f"{label}: {text}" if text else label

    def check_extra(self, instance: Any, row: dict[str, str], check: RowCheck, errors: _Errors) -> None:
        """The options of slots a–f, and whether students could answer the question fairly."""
        name = cell_text(row.get("picture"))
        if name:
            check.extra["picture"] = self.read_picture(name, "picture", errors)
        existing = list(instance.options.order_by("position", "pk")) if instance.pk else []
        if not any(f"{slot}{suffix}" in row for slot in QUESTION_SLOTS for suffix in OPTION_COLUMN.values()):
            return  # no option columns: the options stay as they are
        answer = cell_text(row.get("answer")).lower()
        kind = instance.kind
        drafts: list[_OptionDraft] = []
        for slot in QUESTION_SLOTS:
            cells = {part: cell_text(row.get(f"{slot}{suffix}")) for part, suffix in OPTION_COLUMN.items()}
            if not any(cells.values()):
                continue
            picture = None
            if cells["picture"]:
                picture = self.read_picture(cells["picture"], f"{slot}_picture", errors)
            kept = existing[len(drafts)].picture if len(drafts) < len(existing) else None
            drafts.append(
                _OptionDraft(
                    slot=slot,
                    text=cells["text"],
                    date=cells["date"],
                    match=cells["match"],
                    correct=slot == answer,
                    picture=picture,
                    kept=kept or None,
                )
            )
        check.extra["options"] = drafts
        if "kind" in errors or kind not in QUESTION_KINDS:
            return
        if kind == QuizQuestion.Kind.CHOICE:
            if answer and answer not in QUESTION_SLOTS:
                errors.add("answer", f'Write the letter of the right option, A to F, not "{answer.upper()}".')
                return
            if answer and not any(d.slot == answer for d in drafts):
                errors.add(
                    "answer",
                    f"Option {answer.upper()} is empty: the answer is the letter of a filled option.",
                )
                return
        elif answer:
            errors.add(
                "answer",
                f"Only a multiple-choice question has a right option; leave answer empty for a {kind}.",
            )
        options = [
            OptionEntry(text=d.text, picture=d.digest(), correct=d.correct, date=d.date, match=d.match)
            for d in drafts
        ]
        question_picture = check.extra.get("picture") or instance.picture
        for error in question_errors(
            kind=kind,
            text=instance.text or "",
            picture=picture_digest(question_picture),
            options=options,
            option_name=lambda index: f"option {drafts[index].slot.upper()}",
            field_name=lambda index, part: _question_column(drafts, index, part),
        ):
            errors.add(_question_column(drafts, error.option, error.part), error.message)

    def extra_state(self, instance: Any, check: RowCheck | None) -> dict[str, Any]:
        picture = check.extra.get("picture") if check is not None else None
        state: dict[str, Any] = {
            "picture": hashlib.sha256(_content_bytes(picture)).hexdigest()
            if picture is not None
            else picture_digest(instance.picture)
        }
        if check is not None and "options" in check.extra:
            state["options"] = [draft.state() for draft in check.extra["options"]]
        elif instance.pk:
            state["options"] = [
                (o.text, o.date, o.match, o.correct, picture_digest(o.picture))
                for o in instance.options.order_by("position", "pk")
            ]
        else:
            state["options"] = []
        return state

    def before_instance_save(self, instance: Any, check: RowCheck) -> None:
        content = check.extra.get("picture")
        if content is not None and hashlib.sha256(_content_bytes(content)).hexdigest() != picture_digest(
            instance.picture
        ):
            content.seek(0)
            instance.picture.save(content.name, content, save=False)
            self.stored_files.append(instance.picture.name)

    def save_extra(self, instance: Any, check: RowCheck) -> None:
        if "options" not in check.extra:
            return
        existing = list(instance.options.order_by("position", "pk"))
        drafts: list[_OptionDraft] = check.extra["options"]
        for position, draft in enumerate(drafts):
            option = existing[position] if position < len(existing) else QuizQuestionOption(question=instance)
            option.position = position
            option.text, option.date, option.match, option.correct = (
                draft.text,
                draft.date,
                draft.match,
                draft.correct,
            )
            if draft.picture is not None and draft.digest() != picture_digest(option.picture):
                draft.picture.seek(0)
                option.picture.save(draft.picture.name, draft.picture, save=False)
                self.stored_files.append(option.picture.name)
            option.save()
        for option in existing[len(drafts) :]:
            option.delete()


for _name, _field in OPTION_COLUMNS.items():
    QuizQuestionResource.fields[_name] = _field


def _question_column(drafts: list[_OptionDraft], index: int | None, part: str) -> str:
    """The table column of a part of option ``index`` (None: the question's)."""
    if part == "correct":
        return "answer"
    if index is None:
        return "text" if part == "text" else ""
    return f"{drafts[index].slot}{OPTION_COLUMN.get(part, '')}"


RESOURCES: dict[str, type[ContentResource]] = {
    ImportJob.Kind.SYMBOLS: SymbolResource,
    ImportJob.Kind.ACTIVITY_CARDS: ActivityCardResource,
    ImportJob.Kind.KNOWLEDGE_QUESTIONS: KnowledgeQuestionResource,
    ImportJob.Kind.QUIZ_QUESTIONS: QuizQuestionResource,
}


def kind_for_model(model: type[Model]) -> str:
    for kind, resource in RESOURCES.items():
        if resource._meta.model is model:
            return kind
    raise LookupError(f"{model.__name__} has no import and export.")


# --- Writing files -------------------------------------------------------------------------

EXPORT_FORMATS = ("csv", "xlsx", "zip")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "zip": "application/zip",
}
# A cell that a spreadsheet would run as a formula; written with a leading apostrophe
# in CSV (and read back without it), so that opening an export never runs anything.
FORMULA_START = re.compile(r"'*[=+\-@\t\r]")


def csv_escape(value: str) -> str:
    return "'" + value if FORMULA_START.match(value) else value


def csv_unescape(value: str) -> str:
    return value[1:] if value.startswith("'") and FORMULA_START.match(value[1:]) else value


def table_csv(headers: list[str], rows: Iterable[list[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([csv_escape(cell_text_raw(value)) for value in row])
    return buffer.getvalue().encode("utf-8-sig")


def cell_text_raw(value: Any) -> str:
    return "" if value is None else str(value)


def table_xlsx(
    headers: list[str], rows: Iterable[list[Any]], *, title: str, numeric: frozenset[str] = frozenset()
) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.styles import Font

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title[:31])
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header_cells = []
    for name in headers:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = bold
        header_cells.append(cell)
    sheet.append(header_cells)
    for row in rows:
        cells = []
        for column, value in zip(headers, row, strict=True):
            text = ILLEGAL_CHARACTERS_RE.sub("", cell_text_raw(value))
            if column in numeric and text.isascii() and text.isdigit() and len(text) < 16:
                cells.append(int(text))
                continue
            cell = WriteOnlyCell(sheet, value=text)
            cell.data_type = "s"  # text stays text: "=..." is never a formula
            cells.append(cell)
        sheet.append(cells)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


@dataclass
class ExportFile:
    filename: str
    content_type: str
    file: IO[bytes]


def content_export(
    *, kind: str, queryset: QuerySet[Any], file_format: str, today: date | None = None
) -> ExportFile:
    """The rows of ``queryset`` as a CSV, XLSX or ZIP file (the caller filters visibility).

    The ZIP holds the table as CSV and the pictures (symbols' under
    ``pictures/<collection>/``, quiz questions' under ``pictures/questions/<id>/``); its
    table names those paths in the picture columns.
    """
    if file_format not in EXPORT_FORMATS:
        raise ValueError(f'Export as csv, xlsx or zip, not "{file_format}".')
    resource = RESOURCES[kind]()
    queryset = resource.export_queryset(queryset)
    stamp = (today or timezone.localdate()).isoformat()
    base = f"talia-{kind.replace('_', '-')}-{stamp}"
    spool = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115

    if file_format == "zip":
        import zipfile

        with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            resource.export_pictures(queryset, archive)
            dataset = resource.export(queryset)
            archive.writestr(f"{base}.csv", table_csv(dataset.headers, dataset))
    else:
        dataset = resource.export(queryset)
        if file_format == "csv":
            spool.write(table_csv(dataset.headers, dataset))
        else:
            spool.write(
                table_xlsx(dataset.headers, dataset, title=str(kind), numeric=resource.numeric_columns)
            )
    spool.seek(0)
    return ExportFile(f"{base}.{file_format}", CONTENT_TYPES[file_format], spool)


def template_csv(kind: str) -> bytes:
    """A table with the header and one example row, for curators to fill in."""
    headers = RESOURCES[kind].columns()
    collection = Collection.objects.order_by("slug").values_list("slug", flat=True).first()
    examples: dict[str, dict[str, str]] = {
        ImportJob.Kind.SYMBOLS: {
            "collection": collection or "your-collection",
            "number": "1",
            "name": "Orzeł Biały",
            "alternative_names": "godło|orzeł",
            "description": "The emblem of Poland.",
            "outline": "",
            "periods": "ii-rp|prl",
            "themes": "",
            "date": "",
            "portal_url": "",
            "language": "pl",
            "status": "draft",
            "picture": "",
        },
        ImportJob.Kind.ACTIVITY_CARDS: {
            "title": "Example card",
            "language": "pl",
            "status": "draft",
            "tags": "",
            "a": "Orzeł",
            "a_points": "4",
            "b": "Legiony",
            "b_points": "5",
            "c": "Defilada",
            "c_points": "3",
            "d": "Sierpień",
            "d_kind": "chain",
            "e": "Wolność",
            "e_kind": "rhyme",
            "f": "Solidarność",
            "f_points": "6",
        },
        ImportJob.Kind.QUIZ_QUESTIONS: {
            "kind": "choice",
            "text": "When did the Warsaw Uprising begin?",
            "answer": "B",
            "a": "1 September 1939",
            "b": "1 August 1944",
            "c": "13 December 1981",
            "explanation": "W-hour: 17:00 on 1 August 1944.",
            "language": "en",
            "status": "draft",
        },
        ImportJob.Kind.KNOWLEDGE_QUESTIONS: {
            "category": "letter",
            "front": "Which year? A 1918, B 1920, C 1939, D 1944, E 1989",
            "back": "C: 1 September 1939.",
            "answer": "C",
            "source": "",
            "language": "pl",
            "status": "draft",
            "tags": "",
        },
    }
    example = examples[kind]
    return table_csv(headers, [[example.get(column, "") for column in headers]])
