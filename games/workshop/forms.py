"""Forms of the workshop pages (a new workshop, joining): they parse the request; the
services decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from content.models import Period, SymbolSet, Theme
from content.permissions import content_visible_to

from .models import Workshop


class WorkshopForm(forms.Form):
    title = forms.CharField(
        label=gettext_lazy("Title (optional)"),
        max_length=120,
        required=False,
        help_text=gettext_lazy("Shown on the projector, e.g. the class."),
    )
    symbol_set = forms.ModelChoiceField(
        label=gettext_lazy("Auxiliary cards from"),
        queryset=SymbolSet.objects.none(),
        required=False,
        empty_label=gettext_lazy("All published symbols"),
    )
    deal_mode = forms.ChoiceField(
        label=gettext_lazy("Deal the cards"),
        choices=Workshop.DealMode.choices,
        initial=Workshop.DealMode.RANDOM,
        widget=forms.RadioSelect,
    )
    key_themes = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Themes"),
        queryset=Theme.objects.all(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    key_periods = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Periods"),
        queryset=Period.objects.all(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    allow_guests = forms.BooleanField(
        label=gettext_lazy("Students may join without an account, with a nickname"), required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["symbol_set"].queryset = content_visible_to(user, SymbolSet.objects.all())
