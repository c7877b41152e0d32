"""Forms of the content pages (imports, packages, decks and prints, the library): they parse the
request; the services in ``imports.py``, ``packages/services.py`` and ``building.py`` check
and decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from . import building
from .decks import deck_options
from .models import LANGUAGES, ImportJob, LibraryEntry, Period, PrintJob, SymbolSet, Tag, Theme
from .permissions import content_visible_to


class ImportForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What the file holds"),
        choices=ImportJob.Kind.choices,
        widget=forms.RadioSelect,
    )
    data_file = forms.FileField(
        label=_("Table (CSV or XLSX)"),
        help_text=_("The first row names the columns. CSV in UTF-8 is best; Excel's CSV and XLSX work too."),
        widget=forms.ClearableFileInput(
            attrs={
                "accept": ".csv,.xlsx,text/csv,application/"
                "vnd.openxmlformats-officedocument."
                "spreadsheetml.sheet"
            }
        ),
    )
    pictures_zip = forms.FileField(
        label=_("Pictures (ZIP, for symbols and quiz questions)"),
        required=False,
        help_text=_(
            "PNG, JPEG, WebP or SVG files; each row names its pictures in the picture "
            "columns. A ZIP exported from Talia works as it is."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".zip,application/zip"}),
    )


class PackageForm(forms.Form):
    package = forms.FileField(
        label=_("Package (ZIP)"),
        help_text=_("A file exported from Talia with “Export as a package”, as it was downloaded."),
        widget=forms.ClearableFileInput(attrs={"accept": ".zip,application/zip"}),
    )


def _number(low: float, high: float, step: str = "1") -> forms.NumberInput:
    return forms.NumberInput(attrs={"min": low, "max": high, "step": step})


class PrintOptionsForm(forms.Form):
    """Paper and card options shared by decks and prints (checked by the service)."""

    paper = forms.ChoiceField(
        label=_("Paper"),
        choices=[("A4", "A4"), ("Letter", pgettext_lazy("paper size", "Letter (US)"))],
        initial="A4",
        widget=forms.RadioSelect,
    )
    cut_marks = forms.BooleanField(
        label=_("Cut marks"),
        required=False,
        initial=True,
        help_text=_("Short lines at the corners that show where to cut."),
    )
    bleed_mm = forms.DecimalField(
        label=_("Bleed (mm)"),
        required=False,
        max_digits=2,
        decimal_places=1,
        initial=0,
        widget=_number(building.BLEED_MM[0], building.BLEED_MM[1], "0.5"),
        help_text=_("0 to 5 mm of the card's background beyond the cut line, for a print shop."),
    )
    duplex = forms.ChoiceField(
        label=_("Backs"),
        initial="long_edge",
        widget=forms.RadioSelect,
        choices=[
            ("long_edge", _("On the back of the same sheet (print both sides, flip on the long edge)")),
            ("separate", _("On separate sheets (print one side; glue or pair them by hand)")),
        ],
    )

    option_names: tuple[str, ...] = ("paper", "cut_marks", "bleed_mm", "duplex")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for name, field in self.fields.items():
            if isinstance(field, forms.DecimalField) and data.get(name) is not None:
                data[name] = float(data[name])
        return data


class DeckForm(PrintOptionsForm):
    symbol_set = forms.ModelChoiceField(queryset=SymbolSet.objects.none(), widget=forms.HiddenInput)
    card_mm = forms.DecimalField(
        label=_("Card size (mm)"),
        required=False,
        max_digits=4,
        decimal_places=1,
        initial=building.DEFAULT_CARD_MM,
        widget=_number(building.CARD_MM[0], building.CARD_MM[1]),
        help_text=_(
            "The game card's diameter (round) or side (square), 50 to 120 mm. The boxed "
            "cards are about 90 mm."
        ),
    )
    shape = forms.ChoiceField(
        label=_("Card shape"),
        choices=[("round", _("Round")), ("square", _("Square"))],
        initial="round",
        widget=forms.RadioSelect,
    )
    name = forms.CharField(
        label=_("Name"), max_length=160, required=False, help_text=_("Empty: the symbol set's name.")
    )
    order = forms.TypedChoiceField(
        label=_("Deck"),
        coerce=int,
        widget=forms.RadioSelect,
        help_text=_(
            "The order of the deck: a card shows order + 1 symbols, and any two cards share exactly one."
        ),
    )
    cards_to_print = forms.IntegerField(
        label=_("Cards to print"),
        required=False,
        widget=forms.NumberInput(attrs={"min": 1}),
        help_text=_("Empty: every card of the deck. The boxed game prints 132 of the 133 cards of order 11."),
    )
    sets = forms.IntegerField(
        label=_("Number of lesson sets"),
        required=False,
        widget=forms.NumberInput(attrs={"min": 1}),
        help_text=_(
            "The printed cards are split into this many sets, lettered on the card "
            "backs (the box has 13). Empty: one set per 10 cards."
        ),
    )
    labels = forms.CharField(
        label=_("Set labels"),
        required=False,
        max_length=400,
        help_text=_("One per set, separated by spaces, up to 3 characters each. Empty: A, B, C, …"),
    )
    seed = forms.IntegerField(
        label=_("Seed"),
        required=False,
        initial=0,
        widget=forms.NumberInput(attrs={"min": 0}),
        help_text=_(
            "The same set, options and seed always make the same deck; another seed "
            "makes other lesson sets and card faces."
        ),
    )

    option_names = (
        *PrintOptionsForm.option_names,
        "card_mm",
        "shape",
        "order",
        "cards_to_print",
        "sets",
        "labels",
    )

    def __init__(self, *args: Any, user: Any, symbol_set: SymbolSet | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["symbol_set"].queryset = content_visible_to(user, SymbolSet.objects.all())
        size = symbol_set.members.count() if symbol_set is not None else 0
        choices = deck_options(size)
        self.fields["order"].choices = [
            (o.order, f"{o.describe()} — {_('recommended')}" if o.recommended else o.describe())
            for o in choices
        ]
        recommended = next((o.order for o in choices if o.recommended), None)
        if recommended is not None:
            self.fields["order"].initial = recommended
        if symbol_set is not None:
            self.fields["symbol_set"].initial = symbol_set.pk
            self.fields["name"].widget.attrs["placeholder"] = symbol_set.name


class PrintForm(PrintOptionsForm):
    kind = forms.ChoiceField(
        label=_("What to print"),
        choices=PrintJob.Kind.choices,
        widget=forms.RadioSelect,
        initial=PrintJob.Kind.ACTIVITY,
    )
    ids = forms.CharField(widget=forms.HiddenInput, required=False)
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        choices=[("", _("Any language")), *LANGUAGES],
        help_text=_(
            "Activity and Knowledge? cards: every published card you can see in this language. "
            "Know: the language of the words printed on the blank cards."
        ),
    )
    tag = forms.ChoiceField(
        label=_("Tag"), required=False, help_text=_("Only cards with this tag. Empty: any tag.")
    )
    card_width_mm = forms.DecimalField(
        label=_("Card width (mm)"),
        required=False,
        max_digits=4,
        decimal_places=1,
        initial=building.DEFAULT_CARD_SIDES_MM[0],
        widget=_number(building.CARD_SIDE_MM[0], building.CARD_SIDE_MM[1]),
        help_text=_("40 to 200 mm; a playing card is 63 × 88 mm."),
    )
    card_height_mm = forms.DecimalField(
        label=_("Card height (mm)"),
        required=False,
        max_digits=4,
        decimal_places=1,
        initial=building.DEFAULT_CARD_SIDES_MM[1],
        widget=_number(building.CARD_SIDE_MM[0], building.CARD_SIDE_MM[1]),
    )
    questions = forms.IntegerField(
        label=_("Blank question cards"),
        required=False,
        initial=24,
        widget=forms.NumberInput(attrs={"min": 0, "max": building.KNOW_MAX}),
        help_text=_("Know only."),
    )
    answers = forms.IntegerField(
        label=_("Blank answer cards"),
        required=False,
        initial=48,
        widget=forms.NumberInput(attrs={"min": 0, "max": building.KNOW_MAX}),
        help_text=_("Know only."),
    )

    option_names = (*PrintOptionsForm.option_names, "card_width_mm", "card_height_mm", "questions", "answers")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tag"].choices = [("", _("Any tag"))] + [
            (slug, slug) for slug in Tag.objects.order_by("slug").values_list("slug", flat=True)
        ]

    def clean_ids(self) -> list[int]:
        raw = self.cleaned_data.get("ids") or ""
        try:
            return [int(part) for part in raw.replace(",", " ").split()]
        except ValueError as error:
            raise ValidationError(_("The selection is damaged; select the cards again.")) from error

    def selection(self) -> dict[str, Any]:
        if self.cleaned_data.get("ids"):
            return {"ids": self.cleaned_data["ids"]}
        return {
            "language": self.cleaned_data.get("language") or None,
            "tag": self.cleaned_data.get("tag") or None,
        }


# --- the library ------------------------------------------------------------------------------


class LibrarySearchForm(forms.Form):
    text = forms.CharField(label=_("Words in the title or description"), required=False, max_length=100)
    kind = forms.ChoiceField(
        label=_("Game"), required=False, choices=[("", _("Any game")), *LibraryEntry.Kind.choices]
    )
    theme = forms.ModelChoiceField(
        label=_("Theme"), required=False, queryset=Theme.objects.all(), empty_label=_("Any theme")
    )
    period = forms.ModelChoiceField(
        label=_("Period"), required=False, queryset=Period.objects.all(), empty_label=_("Any period")
    )
    language = forms.ChoiceField(
        label=_("Language"), required=False, choices=[("", _("Any language")), *LANGUAGES]
    )


class PublishForm(forms.Form):
    title = forms.CharField(
        label=_("Title"),
        max_length=120,
        help_text=_("What other teachers see in the library, e.g. “Symbols of the Warsaw Uprising”."),
    )
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Optional: for which class, which lesson, what it is good for."),
    )
    language = forms.ChoiceField(label=_("Language"), choices=LANGUAGES)
    themes = forms.ModelMultipleChoiceField(
        label=_("Themes"), required=False, queryset=Theme.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    periods = forms.ModelMultipleChoiceField(
        label=_("Periods"), required=False, queryset=Period.objects.all(), widget=forms.CheckboxSelectMultiple
    )
