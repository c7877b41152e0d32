"""Forms of the game pages (a new session, joining): they parse the request; the services
decide. Class duels and practice alone have theirs in ``games/play/znajznak/forms.py``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content.models import Deck, SymbolSet
from content.permissions import content_visible_to
from games.engines import engine_for
from games.lobby import NICKNAME_MAX_LENGTH
from games.play.znajznak.forms import cards_per_player_field
from games.play.znajznak.services import znajznak_setup_from_deck, znajznak_setup_from_symbol_set

from . import selectors
from .models import GAME_LABELS, VARIANT_LABELS


class SessionForm(forms.Form):
    """A ZnajZnak session from a built deck (or one of its lesson sets) or a symbol set.

    The other games get their own setup fields when their play pages come.
    """

    game = forms.ChoiceField(label=gettext_lazy("Game"), choices=[("znajznak", GAME_LABELS["znajznak"])])
    variant = forms.ChoiceField(label=gettext_lazy("Variant"), choices=())
    deck = forms.ModelChoiceField(
        label=gettext_lazy("Deck"),
        queryset=Deck.objects.none(),
        required=False,
        empty_label=gettext_lazy("(none: build one from the symbol set below)"),
        help_text=gettext_lazy("One of your built decks, with the names as they were when it was built."),
    )
    card_set = forms.CharField(
        label=gettext_lazy("Card set (optional)"),
        max_length=3,
        required=False,
        help_text=gettext_lazy("The letter on the card backs, e.g. A: only that set's cards are dealt."),
    )
    symbol_set = forms.ModelChoiceField(
        label=gettext_lazy("Symbol set"),
        queryset=SymbolSet.objects.none(),
        required=False,
        help_text=gettext_lazy("Without a deck: the cards are made from the set in its order."),
    )
    cards_per_player = cards_per_player_field(gettext_lazy("Cards per player (duel and multiplayer)"))
    timer_minutes = forms.IntegerField(
        label=gettext_lazy("Timer in minutes (optional)"),
        min_value=1,
        max_value=120,
        required=False,
        help_text=gettext_lazy("When the time is up, the player with the fewest cards wins."),
    )
    allow_guests = forms.BooleanField(
        label=gettext_lazy("Students may join without an account, with a nickname"), required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["variant"].choices = [(v, VARIANT_LABELS[v]) for v in engine_for("znajznak").VARIANTS]
        self.fields["deck"].queryset = selectors.decks_playable_by(user)
        self.fields["symbol_set"].queryset = content_visible_to(user, SymbolSet.objects.all())

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("deck") and not data.get("symbol_set"):
            raise forms.ValidationError(_("Choose a deck or a symbol set."))
        if data.get("card_set") and not data.get("deck"):
            self.add_error("card_set", _("Card sets belong to a built deck: choose the deck."))
        return data

    def setup(self) -> tuple[dict[str, Any], dict[str, Any]]:
        data = self.cleaned_data
        options = {
            "cards_per_player": data["cards_per_player"] if data["variant"] != "warm_up" else None,
            "timer": data["timer_minutes"] * 60 if data["timer_minutes"] else None,
        }
        if data["deck"]:
            return znajznak_setup_from_deck(
                deck=data["deck"], card_set=data["card_set"].strip().upper(), **options
            )
        return znajznak_setup_from_symbol_set(symbol_set=data["symbol_set"], **options)


class JoinCodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Join code"),
        max_length=12,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )


class GuestForm(forms.Form):
    nickname = forms.CharField(
        label=gettext_lazy("Your nickname"),
        max_length=NICKNAME_MAX_LENGTH,
        help_text=gettext_lazy("1 to 24 characters; the others see it."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
