"""The "new Know game" form: what the facilitator sets up before the teams join."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from content.models import LANGUAGES
from games.engines import know


class KnowSessionForm(forms.Form):
    """Know rulebook, Question Prep: "The facilitator sets how many cards each team gets and the
    agreed source of answers"; Resolution: marked immediately or later; the marking variant."""

    source = forms.CharField(
        label=_("Agreed source of answers"),
        max_length=300,
        help_text=_("Everyone answers from this, e.g. “History textbook, class 7, chapters 1–3”."),
    )
    cards_per_team = forms.IntegerField(
        label=_("Question cards per team"),
        min_value=1,
        max_value=10,
        initial=2,
        help_text=_("Each team writes this many questions; there is one Question Round per card."),
    )
    variant = forms.ChoiceField(
        label=_("Who marks the answers"),
        choices=[
            ("facilitator_marks", _("The facilitator, against the agreed source")),
            ("team_marks", _("Each question's own team (the facilitator settles disputes)")),
        ],
        initial="facilitator_marks",
        widget=forms.RadioSelect,
    )
    resolution = forms.ChoiceField(
        label=_("When the answers are marked"),
        choices=[
            ("immediately", _("Immediately after each Question Round")),
            ("later", _("Later: rounds are put to one side and marked when the facilitator chooses")),
        ],
        initial="immediately",
        widget=forms.RadioSelect,
    )
    language = forms.ChoiceField(
        label=_("Language of the questions"),
        choices=LANGUAGES,
        help_text=_("For the question bank the questions can be kept in after the game."),
    )
    facilitator_sees_mapping = forms.BooleanField(
        label=_("I may see which team chose which Team ID"),
        required=False,
        help_text=_(
            "Off by default: teams answer more freely when nobody, the teacher included, knows "
            "whose answer is whose. Only with this on can the game log be downloaded."
        ),
    )
    allow_guests = forms.BooleanField(
        label=_("Students may join without an account, with a nickname"), required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = (get_language() or "pl")[:2]
        if language in dict(LANGUAGES):
            self.fields["language"].initial = language
        assert set(dict(self.fields["variant"].choices)) == set(know.VARIANTS)
