"""The authoring admin: what curators and teachers use every day.

Per-object rules come from ``content/permissions.py``. The rows of symbols, symbol sets,
Activity cards, Knowledge? questions and the reference data are written by the services
of ``content/services.py`` (one call with the form's and the inlines' data, as the API
and the imports call them), as are bulk publishing and adding to a set.
"""

from __future__ import annotations

from typing import Any

from adminsortable2.admin import CustomInlineFormSet, SortableAdminBase, SortableTabularInline
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminFileWidget, AutocompleteSelect
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db.models import Count, Model, Q, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.engines.base import InvalidSetup
from games.engines.knowledge_board import board_from_dict, board_svg
from games.engines.knowledge_board import move_lengths as board_move_lengths
from games.engines.quiz import OptionEntry

from . import library, services
from .admin_actions import ImportExportLinksMixin, export_package, export_selected, publish_to_library
from .admin_decks import print_selected_activity_cards, print_selected_knowledge_questions
from .answers import AnswerError, answer_format, answer_parse
from .decks import deck_options
from .models import (
    KNOWLEDGE_COLOURS,
    KNOWLEDGE_LETTERS,
    SLOTS,
    ActivityCard,
    ActivityTerm,
    Collection,
    ImportJob,
    KnowledgeBoard,
    KnowledgeQuestion,
    KnowQuestion,
    LibraryEntry,
    Period,
    QuizQuestion,
    QuizQuestionOption,
    Status,
    Symbol,
    SymbolSet,
    SymbolSetMember,
    Tag,
    Theme,
    card_slots_problem,
)
from .permissions import can_change, can_delete, content_editable_by, content_visible_to
from .questions import picture_digest, question_errors
from .views import question_picture_url, symbol_picture_url


class AuthoredAdmin(admin.ModelAdmin):
    """Row-level rules for owned content: see shared and own rows, change own and granted."""

    readonly_fields: tuple[str, ...] = ("created", "updated")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return content_visible_to(request.user, super().get_queryset(request))

    def get_list_select_related(self, request: HttpRequest) -> Any:
        """The list's foreign keys in the list's one query, the owner's too: Django follows
        only the non-null ones by itself, and the library's rows have no owner, so each
        row's owner cost a query of its own."""
        chosen = super().get_list_select_related(request)
        if chosen is not False:
            return chosen
        related = []
        for name in self.get_list_display(request):
            if not isinstance(name, str):
                continue
            try:
                field = self.model._meta.get_field(name)
            except FieldDoesNotExist:
                continue
            if field.many_to_one:
                related.append(name)
        return tuple(related) or False

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        # "Copy to my content" lists the copies of one library entry.
        return lookup == "copied_from__id__exact" or super().lookup_allowed(lookup, value, request)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is not None and obj.copied_from_id:
            fieldsets.append((_("From the library"), {"fields": ("copied_from_link",)}))
        return fieldsets

    @admin.display(description=_("copied from the library"))
    def copied_from_link(self, obj: Any) -> str:
        entry = obj.copied_from
        if entry is None:
            return "–"
        who = entry.owner.get_full_name() or entry.owner.get_username()
        return format_html(
            '<a href="{}">{}</a> ({})',
            reverse("content:library_entry", args=[entry.pk]),
            entry.title,
            _("published by %(who)s") % {"who": who},
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or can_change(request.user, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        return obj is None or can_delete(request.user, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fields = (*super().get_readonly_fields(request, obj), "copied_from_link")
        if not request.user.is_admin:
            fields += ("owner",)
            if obj is not None and obj.owner_id != request.user.pk:
                fields += ("editors",)  # only the owner grants editing
        return fields

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "editors":
            kwargs["queryset"] = get_user_model().objects.teaching().exclude(pk=request.user.pk)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change and obj.owner_id is None and not request.user.is_admin:
            obj.owner = request.user
        super().save_model(request, obj, form, change)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        # Bulk delete only touches what this user may delete.
        allowed = [obj.pk for obj in queryset if can_delete(request.user, obj)]
        super().delete_queryset(request, queryset.filter(pk__in=allowed))

    @admin.action(description=_("Publish the selected items"), permissions=["change"])
    def publish(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        changed, skipped = services.content_set_status(
            user=request.user, queryset=queryset, status=Status.PUBLISHED
        )
        self._report_status(request, changed, skipped, _("published"))

    @admin.action(description=_("Make the selected items drafts"), permissions=["change"])
    def unpublish(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        changed, skipped = services.content_set_status(
            user=request.user, queryset=queryset, status=Status.DRAFT
        )
        self._report_status(request, changed, skipped, _("made drafts"))

    def _report_status(self, request: HttpRequest, changed: int, skipped: int, what: Any) -> None:
        self.message_user(
            request,
            ngettext("%(n)d item %(what)s.", "%(n)d items %(what)s.", changed) % {"n": changed, "what": what},
            messages.SUCCESS,
        )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(n)d item was left alone: you may not change it.",
                    "%(n)d items were left alone: you may not change them.",
                    skipped,
                )
                % {"n": skipped},
                messages.WARNING,
            )


def _form_data(form: Any) -> dict[str, Any]:
    """What an admin form validated, as a service takes it: the row's fields (the form's
    clean has set them on its instance) and its many-to-many fields."""
    data: dict[str, Any] = {}
    for field in form.instance._meta.get_fields():
        if field.name not in form.cleaned_data or not getattr(field, "editable", False):
            continue
        if field.many_to_many:
            data[field.name] = form.cleaned_data[field.name]
        elif field.concrete:
            data[field.name] = getattr(form.instance, field.name)
    return data


def _inline_rows(formset: Any) -> list[dict[str, Any]]:
    """The kept forms' cleaned data of an inline, in the order of the form."""
    return [
        form.cleaned_data
        for form in formset.forms
        if getattr(form, "cleaned_data", None) and not form.cleaned_data.get("DELETE")
    ]


def _inline_of(formsets: list[Any], model: type[Model], rows: Any) -> Any:
    """``rows`` of the inline of ``model``; None when the page has no such inline."""
    formset = next((f for f in formsets if f.model is model), None)
    return None if formset is None else rows(formset)


class ServiceSaved:
    """A row and its inlines written by one service call (``row_save``), once the form and
    every inline are valid: ``save_model`` only settles what the call needs."""

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """Nothing yet: the admin calls ``save_related`` next (the change list too, with no
        inlines), and that writes the row with its inlines."""

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        obj = form.instance
        row = self.row_save(obj=obj, data=_form_data(form), formsets=list(formsets), change=change)
        if row is not obj:
            obj.__dict__.update(row.__dict__)  # the admin goes on with the object it made
        for formset in formsets:
            # The admin's history lists what an inline's save did; the service wrote them.
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []


class AuthoredServiceSaved(ServiceSaved):
    """Owned content: a new row is the creator's unless an admin chose."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change and obj.owner_id is None and not request.user.is_admin:
            obj.owner = request.user
        super().save_model(request, obj, form, change)


class ReferenceAdmin(ServiceSaved, admin.ModelAdmin):
    """Periods, themes, collections, tags."""

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        if change:
            return services.reference_update(row=obj, data=data)
        return services.reference_create(model=type(obj), data=data)


# --- Reference data: periods, themes, collections, tags -------------------------------------


@admin.register(Period)
class PeriodAdmin(ReferenceAdmin):
    list_display = ("name", "years", "colour_swatch", "position")
    list_editable = ("position",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    @admin.display(description=_("colour"))
    def colour_swatch(self, obj: Period) -> str:
        return format_html(
            '<span class="talia-swatch" style="background:{}" aria-hidden="true"></span> {}',
            obj.colour,
            obj.colour,
        )


@admin.register(Theme)
class ThemeAdmin(ReferenceAdmin):
    list_display = ("name", "slug", "symbol_count")
    search_fields = ("name", "slug", "description")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).annotate(n_symbols=Count("symbols"))

    @admin.display(description=_("symbols"), ordering="n_symbols")
    def symbol_count(self, obj: Any) -> int:
        return obj.n_symbols


@admin.register(Collection)
class CollectionAdmin(ReferenceAdmin):
    list_display = ("name", "slug", "symbol_count")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).annotate(n_symbols=Count("symbols"))

    @admin.display(description=_("symbols"), ordering="n_symbols")
    def symbol_count(self, obj: Any) -> int:
        return obj.n_symbols


@admin.register(Tag)
class TagAdmin(ReferenceAdmin):
    search_fields = ("slug",)


# --- Symbols ----------------------------------------------------------------------------------


class _StoredPicture:
    """What the file input shows of the current picture: a link through the author's view
    (media has no public URL) and a plain label instead of the random stored name."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __str__(self) -> str:
        return str(_("current picture"))


class PrivatePictureInput(AdminFileWidget):
    """The admin's file input (its layout and styles), linking the picture through its private view."""

    def get_context(self, name: str, value: Any, attrs: Any) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        owner = getattr(value, "instance", None)
        if self.is_initial(value) and getattr(owner, "pk", None):
            if isinstance(owner, Symbol):
                context["widget"]["value"] = _StoredPicture(symbol_picture_url(owner))
            elif isinstance(owner, QuizQuestion | QuizQuestionOption):
                context["widget"]["value"] = _StoredPicture(question_picture_url(owner))
        return context


def _cleaned_picture(picture: Any) -> Any:
    """A new upload checked and cleaned as every picture is (``services.picture_file``)."""
    if picture and not getattr(picture, "_committed", False):
        try:
            return services.picture_file(picture.read(), picture.name)
        except services.PictureError as error:
            raise ValidationError(str(error)) from error
    return picture


class SymbolForm(forms.ModelForm):
    class Meta:
        model = Symbol
        fields = "__all__"  # noqa: DJ007 -- the fieldsets choose what is shown
        widgets = {
            "picture": PrivatePictureInput,
            "periods": forms.CheckboxSelectMultiple,
            "alternative_names": forms.Textarea(attrs={"rows": 3}),
            "description": forms.Textarea(attrs={"rows": 2}),
        }

    def clean_picture(self) -> Any:
        return _cleaned_picture(self.cleaned_data.get("picture"))


class SymbolSetFilter(admin.SimpleListFilter):
    title = _("symbol set")
    parameter_name = "set"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        sets = content_visible_to(request.user, SymbolSet.objects.all())
        return [(s.pk, s.name) for s in sets]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value():
            return queryset.filter(memberships__symbol_set_id=self.value())
        return queryset


class AddToSetForm(forms.Form):
    symbol_set = forms.ModelChoiceField(queryset=SymbolSet.objects.none(), label=_("Symbol set"))


@admin.register(Symbol)
class SymbolAdmin(AuthoredServiceSaved, ImportExportLinksMixin, AuthoredAdmin):
    form = SymbolForm
    list_display = ("thumbnail", "code", "name", "collection", "period_list", "status", "owner")
    list_display_links = ("code", "name")
    list_filter = ("status", "periods", "themes", SymbolSetFilter, "collection", "language")
    search_fields = ("name", "alternative_names", "description", "outline", "=number")
    list_select_related = ("collection", "owner")
    filter_horizontal = ("themes", "editors")
    actions = ["publish", "unpublish", "add_to_set", export_selected]
    list_per_page = 50
    readonly_fields = ("picture_preview", "created", "updated")
    fieldsets = (
        (None, {"fields": ("collection", "number", "name", "alternative_names", "status", "language")}),
        (_("Cards"), {"fields": ("picture", "picture_preview", "description", "outline", "portal_url")}),
        (_("Chronological marking and themes"), {"fields": ("periods", "themes", "date")}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).prefetch_related("periods")

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        if change:
            return services.symbol_update(symbol=obj, data=data)
        return services.symbol_create(owner=obj.owner, data=data)

    @admin.display(description=_("picture"))
    def thumbnail(self, obj: Symbol) -> str:
        if not obj.picture:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" class="talia-thumb" width="48" height="48" loading="lazy">',
            symbol_picture_url(obj),
            obj.name,
        )

    @admin.display(description=_("preview"))
    def picture_preview(self, obj: Symbol) -> str:
        if not obj.picture:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" width="160" height="160" style="object-fit:contain">',
            symbol_picture_url(obj),
            obj.name,
        )

    @admin.display(description=_("number"), ordering="number")
    def code(self, obj: Symbol) -> str:
        return obj.code

    @admin.display(description=_("periods"))
    def period_list(self, obj: Symbol) -> str:
        return format_html_join(
            " ",
            '<span class="talia-period" style="border-color:{}">{}</span>',
            ((p.colour, p.name) for p in obj.periods.all()),
        )

    @admin.action(description=_("Add the selected symbols to a symbol set"), permissions=["change"])
    def add_to_set(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        editable = content_editable_by(request.user, SymbolSet.objects.all())
        form = AddToSetForm(request.POST if "apply" in request.POST else None)
        form.fields["symbol_set"].queryset = editable
        if form.is_valid():
            added = services.symbol_set_add(
                user=request.user,
                symbol_set=form.cleaned_data["symbol_set"],
                symbols=list(queryset),
            )
            self.message_user(
                request,
                ngettext("%(n)d symbol added to %(set)s.", "%(n)d symbols added to %(set)s.", added)
                % {"n": added, "set": form.cleaned_data["symbol_set"]},
                messages.SUCCESS,
            )
            return None
        if not editable.exists():
            self.message_user(
                request,
                _("You have no symbol set you may change. Create one first."),
                messages.WARNING,
            )
            return None
        return TemplateResponse(
            request,
            "admin/content/symbol/add_to_set.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Add symbols to a symbol set"),
                "form": form,
                "symbols": queryset,
                "opts": self.model._meta,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )


# --- Symbol sets -----------------------------------------------------------------------------


class ParentEditableInline:
    """Rows of an inline are changed by whoever may change the row they belong to."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or can_change(request.user, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or can_change(request.user, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or can_change(request.user, obj)


class KnownSymbolsAutocomplete(AutocompleteSelect):
    """The symbol picker of a set's member row, told the labels of the set's own symbols.

    Django's autocomplete widget looks its chosen symbol up in a query of its own, one per
    row: 57 for a 57-symbol set. The set's members are read once with their symbols
    (``SymbolSetMemberInline``), and every one of them is among the picker's choices (the
    choices include the set's symbols), so a row that shows one of them needs no query.
    Any other value (a form sent back with another symbol chosen) is looked up as before.
    """

    def __init__(self, *args: Any, known: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.known = known  # symbol pk → label; shared by the rows' copies of the widget

    def optgroups(self, name: str, value: Any, attr: Any = None) -> Any:
        chosen = [str(v) for v in value if str(v) not in self.choices.field.empty_values]
        if len(chosen) != 1 or chosen[0] not in self.known:
            return super().optgroups(name, value, attr)
        options = [] if self.is_required else [self.create_option(name, "", "", False, 0)]
        options.append(self.create_option(name, chosen[0], self.known[chosen[0]], True, len(options)))
        return [(None, options, 0)]


class SymbolSetMemberInline(ParentEditableInline, SortableTabularInline):
    model = SymbolSetMember
    extra = 0
    autocomplete_fields = ("symbol",)
    fields = ("symbol",)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        self._symbol_set = obj
        members = obj.members.select_related("symbol") if obj is not None else []
        self._known = {str(member.symbol_id): str(member.symbol) for member in members}
        return super().get_formset(request, obj, **kwargs)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("symbol")  # one query, not one a row

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "symbol":
            # Symbols the user can see, and those already in the set (an editor may
            # reorder a set holding the owner's drafts without dropping them).
            visible = content_visible_to(request.user, Symbol.objects.all()).values("pk")
            in_set = Q(memberships__symbol_set=getattr(self, "_symbol_set", None))
            kwargs["queryset"] = Symbol.objects.filter(Q(pk__in=visible) | in_set).distinct()
            kwargs["widget"] = KnownSymbolsAutocomplete(
                db_field, self.admin_site, using=kwargs.get("using"), known=getattr(self, "_known", {})
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(SymbolSet)
class SymbolSetAdmin(AuthoredServiceSaved, SortableAdminBase, AuthoredAdmin):
    list_display = ("name", "size", "decks_summary", "visibility", "owner", "copied_from_link")
    list_filter = ("visibility",)
    search_fields = ("name", "slug", "description")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [SymbolSetMemberInline]
    filter_horizontal = ("editors",)
    actions = [export_package, publish_to_library]
    readonly_fields = ("decks", "created", "updated")
    fieldsets = (
        (None, {"fields": ("name", "slug", "description", "visibility")}),
        (_("ZnajZnak decks"), {"fields": ("decks",)}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return (
            super()
            .get_queryset(request)
            .annotate(n_members=Count("members", distinct=True))
            .select_related("owner", "copied_from__owner")
        )

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        ids = _inline_of(formsets, SymbolSetMember, _member_ids)
        if change:
            return services.symbol_set_update(symbol_set=obj, data=data, symbol_ids=ids)
        return services.symbol_set_create(owner=obj.owner, data=data, symbol_ids=ids or [])

    @admin.display(description=_("symbols"), ordering="n_members")
    def size(self, obj: Any) -> int:
        return obj.n_members

    @admin.display(description=_("decks it can make"))
    def decks_summary(self, obj: Any) -> str:
        options = deck_options(obj.n_members)
        return options[0].describe() if options else _("too few symbols for a deck")

    @admin.display(description=_("decks it can make"))
    def decks(self, obj: SymbolSet) -> str:
        if obj.pk is None:
            return _("Save the set to see which decks it can make.")
        options = deck_options(obj.members.count())
        if not options:
            return _("A ZnajZnak deck needs at least 3 symbols.")
        return format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((o.describe(),) for o in options))
        )


def _member_ids(formset: Any) -> list[int]:
    """The set's symbols in the order the curator dragged them to (a new row, without a
    position yet, after the others)."""
    rows = [
        (row.get("position") or 0, index, row["symbol"].pk)
        for index, row in enumerate(_inline_rows(formset))
        if row.get("symbol") is not None
    ]
    rows.sort(key=lambda row: (row[0] <= 0, row[0], row[1]))
    return [pk for _position, _index, pk in rows]


# --- Activity cards --------------------------------------------------------------------------


class ActivityTermFormSet(BaseInlineFormSet):
    """A card has exactly six slots, A–F, each once (Activity rulebook, Play)."""

    def clean(self) -> None:
        super().clean()
        problem = card_slots_problem([row.get("slot") for row in _inline_rows(self)])
        if problem:
            raise ValidationError(problem)


class ActivityTermInline(admin.TabularInline):
    model = ActivityTerm
    formset = ActivityTermFormSet
    fields = ("slot", "kind", "text", "points")
    min_num = 6
    max_num = 6
    extra = 0
    can_delete = False

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        if obj is None:
            # A new card starts with its six slots laid out.
            initial = [{"slot": slot} for slot in SLOTS]

            class WithSlots(formset):  # type: ignore[misc, valid-type]
                def __init__(self, *args: Any, **kw: Any) -> None:
                    kw.setdefault("initial", initial)
                    super().__init__(*args, **kw)

            return WithSlots
        return formset

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or can_change(request.user, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or can_change(request.user, obj)


@admin.register(ActivityCard)
class ActivityCardAdmin(AuthoredServiceSaved, ImportExportLinksMixin, AuthoredAdmin):
    list_display = ("__str__", "term_summary", "language", "status", "owner")
    list_filter = ("status", "language", "tags")
    search_fields = ("title", "terms__text")
    filter_horizontal = ("tags", "editors")
    inlines = [ActivityTermInline]
    actions = [
        "publish",
        "unpublish",
        export_selected,
        export_package,
        publish_to_library,
        print_selected_activity_cards,
    ]
    fieldsets = (
        (None, {"fields": ("title", "language", "status", "tags")}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).prefetch_related("terms")

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        terms = _inline_of(formsets, ActivityTerm, _inline_rows)
        if change:
            return services.activity_card_update(card=obj, data=data, terms=terms)
        return services.activity_card_create(owner=obj.owner, data=data, terms=terms or [])

    @admin.display(description=_("terms"))
    def term_summary(self, obj: ActivityCard) -> str:
        return format_html_join(" · ", "<b>{}</b> {}", ((t.slot, _term_label(t)) for t in obj.terms.all()))


def _term_label(term: ActivityTerm) -> str:
    if term.kind == ActivityTerm.Kind.TERM:
        return f"{term.text} ({term.points})"
    return f"{term.get_kind_display().upper()}: {term.text}"


# --- Knowledge? questions --------------------------------------------------------------------


class KnowledgeQuestionForm(forms.ModelForm):
    answer = forms.CharField(
        label=_("Answer"),
        help_text=_(
            "Number card: 0–5. Letter card: one or more of A–E (C/D). "
            "Colour card: one or more of red, yellow, green, blue, white (blue/white). "
            "Several options mean the nearest available of these."
        ),
    )

    class Meta:
        model = KnowledgeQuestion
        fields = "__all__"  # noqa: DJ007 -- the fieldsets choose what is shown
        widgets = {"front": forms.Textarea(attrs={"rows": 3}), "back": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["answer"] = answer_format(self.instance.category, self.instance.answer)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        category, text = data.get("category"), self.data.get(self.add_prefix("answer"), "")
        if category and not self.has_error("answer"):  # an empty answer is told once, as required
            try:
                data["answer"] = answer_parse(category, text)
            except AnswerError as error:
                self.add_error("answer", str(error))
        return data

    def _post_clean(self) -> None:
        """The model's clean() checks the answer again, on the value the form could not
        parse (``None`` for a new question): its message would follow the form's as a second,
        misleading one ("... not None").  The form's message is the one the author needs."""
        before = len(self.errors.get("answer", ()))
        super()._post_clean()
        if before:
            del self.errors["answer"][before:]


@admin.register(KnowledgeQuestion)
class KnowledgeQuestionAdmin(AuthoredServiceSaved, ImportExportLinksMixin, AuthoredAdmin):
    form = KnowledgeQuestionForm
    list_display = ("front_short", "category", "answer_shown", "language", "status", "owner")
    list_filter = ("category", "status", "language", "tags")
    search_fields = ("front", "back", "source")
    filter_horizontal = ("tags", "editors")
    actions = [
        "publish",
        "unpublish",
        export_selected,
        export_package,
        publish_to_library,
        print_selected_knowledge_questions,
    ]
    fieldsets = (
        (None, {"fields": ("category", "front", "back", "answer", "source", "language", "status", "tags")}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    def row_save(self, *, obj: Any, data: dict[str, Any], formsets: list[Any], change: bool) -> Model:
        if change:
            return services.knowledge_question_update(question=obj, data=data)
        return services.knowledge_question_create(owner=obj.owner, data=data)

    @admin.display(description=_("question"), ordering="front")
    def front_short(self, obj: KnowledgeQuestion) -> str:
        return obj.front if len(obj.front) <= 90 else obj.front[:88] + "…"

    @admin.display(description=_("answer"))
    def answer_shown(self, obj: KnowledgeQuestion) -> str:
        return obj.answer_display


# --- Knowledge? boards ------------------------------------------------------------------------


class KnowledgeBoardForm(forms.ModelForm):
    """The spaces typed as text, one space per line or separated by commas: ``green B``
    (a colour and a letter) or ``-`` for a space showing neither (the finish, say)."""

    spaces = forms.CharField(
        label=_("Spaces"),
        widget=forms.Textarea(attrs={"rows": 12, "cols": 40}),
        help_text=_(
            "Clockwise from space 0, one per line or separated by commas: a colour (red, yellow, "
            "green, blue, white) and a letter (A–E), e.g. “green B”, or “-” for a space showing "
            "neither. Every colour and every letter must occur."
        ),
    )

    class Meta:
        model = KnowledgeBoard
        fields = "__all__"  # noqa: DJ007 -- the fieldsets choose what is shown

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["spaces"] = "\n".join(
                "-" if space is None else f"{space['colour']} {space['letter']}"
                for space in self.instance.spaces
            )

    def clean_spaces(self) -> list[dict[str, str] | None]:
        text = self.cleaned_data["spaces"]
        tokens = [token.strip() for line in text.splitlines() for token in line.split(",") if token.strip()]
        spaces: list[dict[str, str] | None] = []
        for number, token in enumerate(tokens):
            if token == "-":
                spaces.append(None)
                continue
            words = token.split()
            colour = words[0].lower() if words else ""
            letter = words[1].upper() if len(words) == 2 else ""
            if len(words) != 2 or colour not in KNOWLEDGE_COLOURS or letter not in KNOWLEDGE_LETTERS:
                raise ValidationError(
                    _("Space %(n)d (“%(text)s”): write a colour and a letter, e.g. “green B”, or “-”.")
                    % {"n": number, "text": token}
                )
            spaces.append({"colour": colour, "letter": letter})
        return spaces


@admin.register(KnowledgeBoard)
class KnowledgeBoardAdmin(AuthoredAdmin):
    form = KnowledgeBoardForm
    list_display = ("name", "length", "opponent_start", "opponent_start_hard", "status", "owner")
    list_filter = ("status",)
    search_fields = ("name", "description")
    filter_horizontal = ("editors",)
    actions = ["publish", "unpublish", export_package, publish_to_library]
    readonly_fields = ("preview", "move_lengths", "created", "updated")
    fieldsets = (
        (None, {"fields": ("name", "description", "status")}),
        (
            _("The loop"),
            {
                "fields": (
                    "preview",
                    "move_lengths",
                    "spaces",
                    "finish",
                    "opponent_start",
                    "opponent_start_hard",
                )
            },
        ),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    @admin.display(description=_("spaces"))
    def length(self, obj: KnowledgeBoard) -> int:
        return len(obj.spaces or [])

    def _board(self, obj: KnowledgeBoard | None) -> Any:
        if obj is None or obj.pk is None:
            return None
        try:
            return board_from_dict(obj.as_setup())
        except InvalidSetup:
            return None

    @admin.display(description=_("preview"))
    def preview(self, obj: KnowledgeBoard | None) -> str:
        board = self._board(obj)
        if board is None:
            return _("Saved boards are drawn here: the loop clockwise from space 0 at the top.")
        legend = _("⚑ start/finish · S opponents' start · H harder start; small numbers are space numbers.")
        return format_html(
            '<div class="knowledge-board-preview">{}<p class="help">{}</p></div>',
            mark_safe(board_svg(board, title=str(obj))),  # noqa: S308 -- built from checked values only
            legend,
        )

    @admin.display(description=_("letter and colour moves"))
    def move_lengths(self, obj: KnowledgeBoard | None) -> str:
        board = self._board(obj)
        if board is None:
            return "–"
        lengths = board_move_lengths(board)
        return _("At most %(max)d spaces, %(mean).1f on average (on the empty board).") % {
            "max": lengths["max"],
            "mean": lengths["mean"],
        }


# --- Know question bank ----------------------------------------------------------------------


class KnowQuestionForm(forms.ModelForm):
    answers = forms.CharField(
        label=_("Accepted answers"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One answer per line, best first; any of them counts as right in a quiz."),
    )

    class Meta:
        model = KnowQuestion
        fields = "__all__"  # noqa: DJ007 -- the fieldsets choose what is shown
        widgets = {"text": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["answers"] = "\n".join(self.instance.answers or [])

    def clean_answers(self) -> list[str]:
        lines = [" ".join(line.split()) for line in (self.cleaned_data.get("answers") or "").splitlines()]
        answers = [line for line in lines if line]
        if any(len(answer) > 500 for answer in answers):
            raise ValidationError(_("An answer has at most 500 characters."))
        return answers


@admin.register(LibraryEntry)
class LibraryEntryAdmin(admin.ModelAdmin):
    """Admins' overview of the library (teachers use the library's own pages): read-only,
    with taking an entry out through the library's service."""

    list_display = ("title", "kind", "language", "owner", "published", "created", "page")
    list_filter = ("kind", "published", "language")
    search_fields = ("title", "description")
    actions = ["take_out"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in self.model._meta.get_fields() if field.concrete] + ["page"]

    @admin.display(description=_("in the library"))
    def page(self, obj: LibraryEntry) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("content:library_entry", args=[obj.pk]), _("Open the entry")
        )

    @admin.action(description=_("Take the selected entries out of the library"))
    def take_out(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for entry in queryset.filter(published=True):
            library.library_unpublish(user=request.user, entry=entry)
        self.message_user(request, _("The copies teachers made stay theirs."), messages.SUCCESS)


@admin.register(KnowQuestion)
class KnowQuestionAdmin(AuthoredAdmin):
    """Questions kept from Know games: the teacher edits them and uses them in quizzes."""

    form = KnowQuestionForm
    list_display = ("text_short", "answers_shown", "language", "status", "created_from", "owner")
    list_filter = ("status", "language", "tags")
    search_fields = ("text", "source")
    filter_horizontal = ("tags", "editors")
    actions = ["publish", "unpublish", export_package, publish_to_library]
    readonly_fields = ("created", "updated", "created_from", "question_number")
    fieldsets = (
        (None, {"fields": ("text", "answers", "source", "language", "status", "tags")}),
        (_("Kept from"), {"fields": ("created_from", "question_number")}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    @admin.display(description=_("question"), ordering="text")
    def text_short(self, obj: KnowQuestion) -> str:
        return obj.text if len(obj.text) <= 90 else obj.text[:88] + "…"

    @admin.display(description=_("accepted answers"))
    def answers_shown(self, obj: KnowQuestion) -> str:
        return " · ".join(obj.answers or []) or "—"


# --- Quiz questions ----------------------------------------------------------------------------


class QuizQuestionOptionForm(forms.ModelForm):
    class Meta:
        model = QuizQuestionOption
        fields = ("text", "picture", "correct", "date", "match")
        widgets = {"picture": PrivatePictureInput}

    def clean_picture(self) -> Any:
        return _cleaned_picture(self.cleaned_data.get("picture"))


class QuizQuestionOptionFormSet(CustomInlineFormSet):
    """Refuses a question students could not answer fairly, each message on the field it
    names (``content/questions.py``): nothing is saved while one is left."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return  # a field's own error first (a picture refused, a date unreadable)
        forms_kept = [
            form
            for form in self.forms
            if getattr(form, "cleaned_data", None) and not form.cleaned_data.get("DELETE")
        ]
        options = [
            OptionEntry(
                text=form.cleaned_data.get("text") or "",
                picture=picture_digest(form.cleaned_data.get("picture")),
                correct=bool(form.cleaned_data.get("correct")),
                date=form.cleaned_data.get("date") or "",
                match=form.cleaned_data.get("match") or "",
            )
            for form in forms_kept
        ]
        question = self.instance
        labels = {name: str(QuizQuestionOption._meta.get_field(name).verbose_name) for name in OPTION_PARTS}
        errors = question_errors(
            kind=question.kind,
            text=question.text or "",
            picture=picture_digest(question.picture),
            options=options,
            option_name=lambda index: _("row %(n)d") % {"n": index + 1},
            field_name=lambda index, part: f"“{labels.get(part, part)}”",
        )
        whole = []
        for error in errors:
            if error.option is not None and error.part in OPTION_PARTS:
                forms_kept[error.option].add_error(error.part, error.message)
            else:
                whole.append(error.message)
        if whole:
            raise ValidationError(whole)


OPTION_PARTS = ("text", "picture", "correct", "date", "match")


class QuizQuestionOptionInline(ParentEditableInline, SortableTabularInline):
    model = QuizQuestionOption
    form = QuizQuestionOptionForm
    formset = QuizQuestionOptionFormSet
    fields = ("text", "picture", "correct", "date", "match")
    extra = 4
    max_num = 6
    verbose_name = _("option, event or pair")
    verbose_name_plural = _(
        "Options (multiple choice: tick the right one), events (chronology: give each its date) "
        "or pairs (matching: fill in “pairs with”)"
    )


class QuizQuestionForm(forms.ModelForm):
    class Meta:
        model = QuizQuestion
        fields = "__all__"  # noqa: DJ007 -- the fieldsets choose what is shown
        widgets = {
            "picture": PrivatePictureInput,
            "text": forms.Textarea(attrs={"rows": 3}),
            "explanation": forms.Textarea(attrs={"rows": 3}),
        }

    def clean_picture(self) -> Any:
        return _cleaned_picture(self.cleaned_data.get("picture"))


@admin.register(QuizQuestion)
class QuizQuestionAdmin(ImportExportLinksMixin, SortableAdminBase, AuthoredAdmin):
    """Questions teachers write for quizzes: multiple choice with pictures, chronology, matching."""

    form = QuizQuestionForm
    list_display = ("question_short", "kind", "option_count", "language", "status", "owner")
    list_filter = ("kind", "status", "language", "tags")
    search_fields = ("text", "explanation", "options__text", "options__match")
    filter_horizontal = ("tags", "editors")
    inlines = [QuizQuestionOptionInline]
    actions = ["publish", "unpublish", export_selected]
    readonly_fields = ("picture_preview", "created", "updated")
    fieldsets = (
        (None, {"fields": ("kind", "text", "picture", "picture_preview", "explanation")}),
        (_("Use"), {"fields": ("language", "status", "tags")}),
        (_("Ownership"), {"fields": ("owner", "editors", "created", "updated")}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).annotate(n_options=Count("options"))

    @admin.display(description=_("question"), ordering="text")
    def question_short(self, obj: QuizQuestion) -> str:
        text = str(obj)
        return text if len(text) <= 90 else text[:88] + "…"

    @admin.display(description=_("options"), ordering="n_options")
    def option_count(self, obj: Any) -> int:
        return obj.n_options

    @admin.display(description=_("preview"))
    def picture_preview(self, obj: QuizQuestion) -> str:
        if not obj.picture:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" width="160" height="160" style="object-fit:contain">',
            question_picture_url(obj),
            _("The question’s picture"),
        )


# --- Imports ---------------------------------------------------------------------------------


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "state", "progress", "total_rows", "user")
    list_filter = ("kind", "state")
    readonly_fields = [f.name for f in ImportJob._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        return queryset if request.user.is_admin else queryset.filter(user=request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def response_change(self, request: HttpRequest, obj: ImportJob) -> HttpResponse:
        return HttpResponseRedirect(reverse("content:import_detail", args=[obj.pk]))
