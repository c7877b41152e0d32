"""Forms of ZnajZnak's pages (class duels, practice alone): they parse the request; the
services decide."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from content.models import Deck
from games import selectors as game_selectors
from games.engines import znajznak
from games.models import ClassRun, PracticeAssignment, validate_cards_per_player

from .practice import BOT_DEFAULT_ACCURACY, BOT_DEFAULT_SECONDS


def bot_seconds_field() -> forms.DecimalField:
    """The simulated opponent's pace, as every form that sets up a practice asks it (this
    page's and a homework's, ``lms.classes.forms``)."""
    return forms.DecimalField(
        label=gettext_lazy("Simulated opponent: seconds to find a symbol"),
        min_value=Decimal("0.5"),
        max_value=Decimal("120"),
        decimal_places=1,
        initial=BOT_DEFAULT_SECONDS,
    )


def cards_per_player_field(label: Any = None) -> forms.IntegerField:
    """The cards dealt to each player, as every form that sets up a ZnajZnak game asks it:
    one rule and one message (``games.models.validate_cards_per_player``), its limits given
    to the browser as well."""
    return forms.IntegerField(
        label=label or gettext_lazy("Cards per player"),
        initial=znajznak.DEFAULT_CARDS_PER_PLAYER,
        validators=[validate_cards_per_player],
        widget=forms.NumberInput(
            attrs={"min": znajznak.MIN_CARDS_PER_PLAYER, "max": znajznak.MAX_CARDS_PER_PLAYER}
        ),
    )


def bot_accuracy_field() -> forms.IntegerField:
    """How often the simulated opponent names the symbol right, in per cent."""
    return forms.IntegerField(
        label=gettext_lazy("Simulated opponent: names right (%)"),
        min_value=0,
        max_value=100,
        initial=BOT_DEFAULT_ACCURACY,
    )


class ClassRunForm(forms.Form):
    """Duels for a whole class: one lobby, then rounds of pairs, each pair its own duel."""

    deck = forms.ModelChoiceField(
        label=gettext_lazy("Deck"),
        queryset=Deck.objects.none(),
        help_text=gettext_lazy("One of your built decks."),
    )
    set_mode = forms.ChoiceField(
        label=gettext_lazy("Cards"), choices=ClassRun.SetMode.choices, initial=ClassRun.SetMode.DECK
    )
    card_set = forms.CharField(
        label=gettext_lazy("Lesson card set (for one set)"),
        max_length=3,
        required=False,
        help_text=gettext_lazy("The letter on the card backs, e.g. A."),
    )
    timer_minutes = forms.IntegerField(
        label=gettext_lazy("Timer in minutes (optional)"), min_value=1, max_value=60, required=False
    )
    allow_guests = forms.BooleanField(
        label=gettext_lazy("Students may join without an account, with a nickname"), required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["deck"].queryset = game_selectors.decks_playable_by(user)


class PracticeForm(forms.Form):
    title = forms.CharField(label=gettext_lazy("Title"), max_length=120, required=False)
    deck = forms.ModelChoiceField(label=gettext_lazy("Deck"), queryset=Deck.objects.none())
    card_set = forms.CharField(
        label=gettext_lazy("Lesson card set (optional)"),
        max_length=3,
        required=False,
        help_text=gettext_lazy("The letter on the card backs: only that set's cards are dealt."),
    )
    mode = forms.ChoiceField(
        label=gettext_lazy("Play against"),
        choices=PracticeAssignment.Mode.choices,
        initial=PracticeAssignment.Mode.EITHER,
    )
    cards_per_player = cards_per_player_field()
    bot_seconds = bot_seconds_field()
    bot_accuracy = bot_accuracy_field()
    timer_minutes = forms.IntegerField(
        label=gettext_lazy("Time limit in minutes (optional)"), min_value=1, max_value=60, required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["deck"].queryset = game_selectors.decks_playable_by(user)
