"""Input and output of the content API, version 1: two serializers for each resource.

``<Resource>Input`` validates the body of a write as the admin's forms do (same messages
where the admin has one, from the same rules in ``content/models.py``); it has no
``create`` or ``update`` of its own and is never saved: the view hands what it validated
to one service of ``content/services.py``. ``<Resource>Output`` renders a row, every field
read-only, for reads and for the answer to a write. Who may write at all is decided
before, in ``content/api/permissions.py``; what only some writers may touch (the owner,
the editors, which symbols go into a set) is checked by the input serializers.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.fields import SkipField
from rest_framework.relations import ManyRelatedField

from content import services
from content.answers import AnswerError, answer_parse, answer_validate
from content.decks import deck_options
from content.models import (
    SLOTS,
    ActivityCard,
    ActivityTerm,
    Collection,
    KnowledgeQuestion,
    Period,
    Status,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
    card_slots_problem,
)
from content.permissions import content_visible_to
from content.pictures import MAX_BYTES
from content.views import symbol_picture_url

# Registers the schema's item counts (minItems, maxItems) for the list fields below.
from . import schema as _schema  # noqa: F401


class TextField(serializers.CharField):
    """Text, and only text: DRF's CharField turns 12 or true into "12" and "True", so a
    client that sent a number where the schema says string would not learn its mistake;
    and it measures the length after trimming, so a name one space too long passed.

    Its refusal has a key of its own: under ``invalid`` it would replace the message of the
    URL and slug validators of the subclasses below ("Enter a valid URL.")."""

    default_error_messages = {"not_text": _("Give text here, in quotes.")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        # The length the schema promises is that of what was sent, before the spaces around
        # it are trimmed.
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return str(super().to_internal_value(data))


class SlugTextField(TextField, serializers.SlugField):
    pass


class URLTextField(TextField, serializers.URLField):
    pass


class Input(serializers.ModelSerializer):
    """Validates a write against its model's fields (lengths, choices, uniqueness, given
    the row being changed as ``instance``), its text fields taking text only. Never saved:
    the views call a service with ``validated_data``."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.CharField: TextField,
        models.TextField: TextField,
        models.SlugField: SlugTextField,
        models.URLField: URLTextField,
    }

    def save(self, **kwargs: Any) -> Any:
        raise NotImplementedError("An input serializer only validates; the views write through services.")


class Output(serializers.ModelSerializer):
    """Renders a row; every field is read-only (``read_only_fields`` lists them all, and
    the declared ones say so themselves)."""


# --- Reference data ---------------------------------------------------------------------------


class PeriodInput(Input):
    """A chronological marking of symbols (II RP, II wojna światowa, PRL)."""

    class Meta:
        model = Period
        fields = ("slug", "name", "start_year", "end_year", "label", "colour", "position")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The model's check constraint (years in order), as a message on the end year
        # instead of an IntegrityError.
        start = attrs.get("start_year", getattr(self.instance, "start_year", None))
        end = attrs.get("end_year", getattr(self.instance, "end_year", None))
        if start is not None and end is not None:
            try:
                Period(start_year=start, end_year=end).validate_constraints()
            except DjangoValidationError as error:
                raise serializers.ValidationError({"end_year": error.messages}) from error
        return attrs


class PeriodOutput(Output):
    """A chronological marking of symbols (II RP, II wojna światowa, PRL)."""

    years = serializers.CharField(read_only=True, help_text="The years as printed on the cards.")

    class Meta:
        model = Period
        fields = ("id", "slug", "name", "start_year", "end_year", "label", "years", "colour", "position")
        read_only_fields = fields


class ThemeInput(Input):
    """A key for grouping symbols."""

    class Meta:
        model = Theme
        fields = ("slug", "name", "description")


class ThemeOutput(Output):
    """A key for grouping symbols."""

    class Meta:
        model = Theme
        fields = ("id", "slug", "name", "description")
        read_only_fields = fields


class CollectionInput(Input):
    """An edition of symbols; symbol numbers are unique within it."""

    class Meta:
        model = Collection
        fields = ("slug", "name", "description")


class CollectionOutput(Output):
    """An edition of symbols; symbol numbers are unique within it."""

    class Meta:
        model = Collection
        fields = ("id", "slug", "name", "description")
        read_only_fields = fields


class TagInput(Input):
    """A free label for Activity cards and Knowledge? questions."""

    class Meta:
        model = Tag
        fields = ("slug",)


class TagOutput(Output):
    """A free label for Activity cards and Knowledge? questions."""

    class Meta:
        model = Tag
        fields = ("id", "slug")
        read_only_fields = fields


# --- Owned content ----------------------------------------------------------------------------


def authors() -> QuerySet[Any]:
    """Users who may own or edit content: active teachers and admins."""
    return get_user_model().objects.authors()


class AuthoredInput(Input):
    """Owner and editors, as in the admin: only admins set the owner; only the owner and
    admins grant editors. Sending back the current value unchanged is always accepted, so
    a client may PUT what it read."""

    owner = serializers.PrimaryKeyRelatedField(
        queryset=authors(),
        required=False,
        allow_null=True,
        help_text="Id of the author. Only admins may set it (empty: the shared library); "
        "new content is owned by whoever creates it.",
    )
    editors = serializers.PrimaryKeyRelatedField(
        queryset=authors(),
        many=True,
        required=False,
        help_text="Ids of teachers granted the right to edit this besides its owner. "
        "Only the owner or an admin may change the list.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        user = self.context["request"].user
        instance = self.instance
        if "owner" in attrs and not user.is_admin:
            current = instance.owner if instance is not None else user
            if attrs["owner"] != current:
                raise PermissionDenied(_("Only an admin may change the owner."))
            del attrs["owner"]
        is_owner = instance is None or instance.owner_id == user.pk
        if "editors" in attrs and not (user.is_admin or is_owner):
            current = set(instance.editors.values_list("pk", flat=True))
            if {editor.pk for editor in attrs["editors"]} != current:
                raise PermissionDenied(_("Only the owner or an admin may change the editors."))
            del attrs["editors"]
        return attrs


class AuthoredOutput(Output):
    owner = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="Id of the author (empty: the shared library)."
    )
    editors = serializers.PrimaryKeyRelatedField(
        read_only=True, many=True, help_text="Ids of teachers who may edit this besides its owner."
    )


def _keys(help_text: str) -> ManyRelatedField:
    """A read-only list of related rows' keys (periods, themes, tags)."""
    return serializers.SlugRelatedField(slug_field="slug", read_only=True, many=True, help_text=help_text)


class LinesField(serializers.ListField):
    """A text field holding one item per line, exchanged as a list of strings."""

    child = TextField(max_length=120)

    def to_representation(self, data: str) -> list[str]:
        return [line.strip() for line in (data or "").splitlines() if line.strip()]

    def to_internal_value(self, data: Any) -> str:
        items = super().to_internal_value(data)
        if any("\n" in item or "\r" in item for item in items):
            raise serializers.ValidationError(_("Give one name per item, without line breaks."))
        return "\n".join(item.strip() for item in items if item.strip())


class PictureField(serializers.FileField):
    """An uploaded picture in; its URL out (the author's picture view: media has no public
    URL). The URL sent back unchanged keeps the picture, so a client may PUT what it read."""

    def to_representation(self, value: Any) -> str | None:
        if not value:
            return None
        url = symbol_picture_url(value.instance)
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url

    def to_internal_value(self, data: Any) -> Any:
        instance = getattr(self.parent, "instance", None)
        current = instance.picture if instance is not None else None
        unchanged = current and data == self.to_representation(current)
        if isinstance(data, str) and unchanged:
            raise SkipField()
        return super().to_internal_value(data)


_SYMBOL_FIELDS = (
    "collection",
    "number",
    "name",
    "alternative_names",
    "description",
    "outline",
    "picture",
    "periods",
    "themes",
    "portal_url",
    "language",
    "status",
    "owner",
    "editors",
)


class SymbolInput(AuthoredInput):
    """A ZnajZnak symbol, as on the game card's back and the auxiliary card."""

    collection = serializers.SlugRelatedField(
        slug_field="slug", queryset=Collection.objects.all(), help_text="Key of the collection."
    )
    periods = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Period.objects.all(),
        many=True,
        allow_empty=False,
        help_text="Keys of the periods (the chronological marking), e.g. ii-rp.",
    )
    themes = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Theme.objects.all(),
        many=True,
        required=False,
        help_text="Keys of the themes.",
    )
    alternative_names = LinesField(
        required=False,
        help_text="Accepted alternative names; a typed answer matching any of them counts.",
    )
    picture = PictureField(
        required=False,
        allow_null=True,
        help_text="PNG, JPEG, WebP or SVG, at most 5 MB, uploaded as multipart/form-data. "
        "SVGs are stored cleaned of scripts. The response gives its URL.",
    )

    class Meta:
        model = Symbol
        fields = _SYMBOL_FIELDS

    def validate_picture(self, upload: Any) -> Any:
        if upload is None:
            return None
        # Refuse a huge upload before reading it into memory.
        if upload.size is not None and upload.size > MAX_BYTES:
            raise serializers.ValidationError(
                _(
                    "The picture is %(size).1f MB; the limit is %(limit)g MB, so save a smaller "
                    "or more compressed version and upload that."
                )
                % {"size": upload.size / 1024 / 1024, "limit": MAX_BYTES / 1024 / 1024}
            )
        try:
            return services.picture_file(upload.read(), upload.name or "")
        except services.PictureError as error:
            raise serializers.ValidationError(str(error)) from error


@extend_schema_field({"type": "string", "format": "binary", "nullable": True})
class PictureUploadField(PictureField):
    """The picture as a file part; only so the schema offers an upload in multipart bodies."""


class SymbolUploadInput(SymbolInput):
    """A symbol sent as multipart/form-data, with its picture as a file."""

    picture = PictureUploadField(
        required=False,
        allow_null=True,
        help_text="PNG, JPEG, WebP or SVG, at most 5 MB. SVGs are stored cleaned of scripts.",
    )


class SymbolOutput(AuthoredOutput):
    """A ZnajZnak symbol, as on the game card's back and the auxiliary card."""

    code = serializers.CharField(
        read_only=True, help_text="The number as printed on the cards: three digits (002)."
    )
    collection = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="Key of the collection."
    )
    periods = _keys("Keys of the periods (the chronological marking), e.g. ii-rp.")
    themes = _keys("Keys of the themes.")
    alternative_names = LinesField(
        read_only=True, help_text="Accepted alternative names; a typed answer matching any of them counts."
    )
    picture = PictureField(read_only=True, allow_null=True, help_text="The picture's URL (for authors).")
    # Declared so that the schema says an empty text is an answer too (no page given).
    portal_url = serializers.URLField(
        read_only=True,
        allow_blank=True,
        label="Education portal page",
        help_text="The page on the topic; printed as a QR code on the auxiliary card.",
    )

    class Meta:
        model = Symbol
        # The printed code beside the number; the dates last.
        fields = ("id", *_SYMBOL_FIELDS[:2], "code", *_SYMBOL_FIELDS[2:], "created", "updated")
        read_only_fields = fields


class MemberListField(serializers.ListField):
    """The symbols of a set as an ordered list of symbol ids (the deck's order)."""

    child = serializers.IntegerField(min_value=1)
    unique_items = True  # checked in validate_members; this tells the schema

    def get_attribute(self, instance: SymbolSet) -> list[int]:
        return [member.symbol_id for member in instance.members.all()]


class SymbolSetInput(AuthoredInput):
    """A curated, ordered list of symbols; a deck is built from it in this order."""

    members = MemberListField(
        required=False,
        help_text="Ids of the symbols in the set, in order. Writing the list replaces the "
        "members and their order; you may add only symbols you can see.",
    )

    class Meta:
        model = SymbolSet
        fields = ("name", "slug", "description", "visibility", "members", "owner", "editors")

    def validate_members(self, ids: list[int]) -> list[int]:
        doubled = sorted(symbol for symbol, n in Counter(ids).items() if n > 1)
        if doubled:
            raise serializers.ValidationError(
                _("Each symbol is in a set once; %(ids)s appear more than once.")
                % {"ids": ", ".join(map(str, doubled))}
            )
        user = self.context["request"].user
        allowed = set(
            content_visible_to(user, Symbol.objects.filter(pk__in=ids)).values_list("pk", flat=True)
        )
        if self.instance is not None:
            # A symbol already in the set stays addressable even if this editor cannot see
            # it (the owner's draft), so reordering never drops it by accident.
            allowed |= set(
                self.instance.members.filter(symbol_id__in=ids).values_list("symbol_id", flat=True)
            )
        unknown = [str(pk) for pk in ids if pk not in allowed]
        if unknown:
            raise serializers.ValidationError(
                _("No symbol you can see has the id %(ids)s.") % {"ids": ", ".join(unknown)}
            )
        return ids


class SymbolSetOutput(AuthoredOutput):
    """A curated, ordered list of symbols; a deck is built from it in this order."""

    members = MemberListField(read_only=True, help_text="Ids of the symbols in the set, in order.")
    deck_options = serializers.SerializerMethodField(
        help_text="The ZnajZnak decks the set can make, largest first."
    )

    class Meta:
        model = SymbolSet
        fields = (
            "id",
            "name",
            "slug",
            "description",
            "visibility",
            "members",
            "deck_options",
            "owner",
            "editors",
            "created",
            "updated",
        )
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_deck_options(self, obj: SymbolSet) -> list[str]:
        size = len(obj.members.all())  # prefetched by the view
        return [str(option.describe()) for option in deck_options(size)]


class SixTermsSerializer(serializers.ListSerializer):
    """A card's terms. Their count is checked with their slots in ``validate_terms`` (one
    message that names the missing slots); ``item_counts`` only tells the schema."""

    item_counts = (len(SLOTS), len(SLOTS))


_TERM_FIELDS = ("slot", "kind", "text", "points")


class ActivityTermInput(Input):
    """One slot A–F of an Activity card: a term with 3–6 points, or a chain or a rhyme without."""

    class Meta:
        model = ActivityTerm
        fields = _TERM_FIELDS
        list_serializer_class = SixTermsSerializer

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The points by the kind: ActivityTerm.clean, which the admin shows too.
        term = ActivityTerm(kind=attrs.get("kind", ActivityTerm.Kind.TERM), points=attrs.get("points"))
        try:
            term.clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.message_dict) from error
        return attrs


class ActivityTermOutput(Output):
    """One slot A–F of an Activity card: a term with 3–6 points, or a chain or a rhyme without."""

    class Meta:
        model = ActivityTerm
        fields = _TERM_FIELDS
        read_only_fields = fields


_TAGS_HELP = "Tags (create new ones at the tags endpoint)."


def _tags() -> ManyRelatedField:
    return serializers.SlugRelatedField(
        slug_field="slug", queryset=Tag.objects.all(), many=True, required=False, help_text=_TAGS_HELP
    )


_CARD_FIELDS = ("title", "language", "status", "tags", "terms", "owner", "editors")


class ActivityCardInput(AuthoredInput):
    """An Activity term card: six terms, one for each slot A–F."""

    terms = ActivityTermInput(
        many=True, help_text="Six terms, one for each slot A–F (Activity rulebook, Play)."
    )
    tags = _tags()

    class Meta:
        model = ActivityCard
        fields = _CARD_FIELDS

    def validate_terms(self, terms: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # Exactly A–F, each once, as in the admin.
        problem = card_slots_problem([term["slot"] for term in terms])
        if problem:
            raise serializers.ValidationError(problem)
        return terms


class ActivityCardOutput(AuthoredOutput):
    """An Activity term card: six terms, one for each slot A–F."""

    terms = ActivityTermOutput(many=True, read_only=True, help_text="Its six terms, slots A–F.")
    tags = _keys(_TAGS_HELP)

    class Meta:
        model = ActivityCard
        fields = ("id", *_CARD_FIELDS, "created", "updated")
        read_only_fields = fields


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 5},
            {"type": "array", "items": {"type": "string"}},
            {"type": "string"},
        ],
        "description": "Number card: 0–5. Letter card: letters A–E. Colour card: red, yellow, "
        'green, blue, white. Several options (a list, or text such as "C/D") '
        "mean the nearest available of these. Returned as a number or a list.",
    }
)
class AnswerField(serializers.Field):
    """What a curator gives as the answer: 3, ["C", "D"] or "C/D"; checked in validate()."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int | str | list):
            raise serializers.ValidationError(_('Give the answer as a number, a list or text such as "C/D".'))
        return data

    def to_representation(self, value: Any) -> Any:
        return value


_QUESTION_FIELDS = (
    "category",
    "front",
    "back",
    "answer",
    "source",
    "language",
    "status",
    "tags",
    "owner",
    "editors",
)


class KnowledgeQuestionInput(AuthoredInput):
    """A Knowledge? quiz card and the answer that moves a marker."""

    answer = AnswerField()
    tags = _tags()

    class Meta:
        model = KnowledgeQuestion
        fields = _QUESTION_FIELDS

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        instance = self.instance
        if "answer" in attrs or "category" in attrs:
            # A new category re-checks the stored answer too.
            category = attrs.get("category", getattr(instance, "category", None))
            value = attrs.get("answer", getattr(instance, "answer", None))
            try:
                if isinstance(value, int | str):
                    attrs["answer"] = answer_parse(category, str(value))
                else:
                    attrs["answer"] = answer_validate(category, value)
            except AnswerError as error:
                raise serializers.ValidationError({"answer": str(error)}) from error
        return attrs


class KnowledgeQuestionOutput(AuthoredOutput):
    """A Knowledge? quiz card and the answer that moves a marker."""

    answer = AnswerField(read_only=True)
    answer_display = serializers.CharField(
        read_only=True, help_text="The answer as printed on the card's back, e.g. C/D."
    )
    tags = _keys(_TAGS_HELP)

    class Meta:
        model = KnowledgeQuestion
        # The answer as printed beside the answer; the dates last.
        fields = ("id", *_QUESTION_FIELDS[:4], "answer_display", *_QUESTION_FIELDS[4:], "created", "updated")
        read_only_fields = fields


# --- Query parameters -------------------------------------------------------------------------


class SymbolFilterSerializer(serializers.Serializer):
    """The list filters of ``/symbols/`` (all optional, combined with AND)."""

    period = serializers.SlugField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="Key of a period, e.g. ii-rp."
    )
    theme = serializers.SlugField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="Key of a theme."
    )
    status = serializers.ChoiceField(choices=Status.choices, required=False, allow_blank=True)
    collection = serializers.SlugField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="Key of a collection."
    )
    set = serializers.IntegerField(
        required=False, min_value=1, help_text="Id of a symbol set you can see: its symbols."
    )
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Words found in the name, alternative names, description "
        "or outline, or the symbol's number.",
    )


class AuthoredFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Status.choices, required=False, allow_blank=True)
    tag = serializers.SlugField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="Key of a tag."
    )
