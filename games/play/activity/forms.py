"""Forms of Activity in class: the setup of a game, and a deck from the teacher's own term list."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content.activity_terms import activity_cards_playable, activity_tags_playable
from content.models import LANGUAGES

from . import services

VARIANTS = [
    ("teams", gettext_lazy("Teams: 2 to 4 teams of at least two players")),
    ("three_players", gettext_lazy("Game for 3 players: each plays alone")),
]


class ActivitySessionForm(forms.Form):
    """Activity rulebook, Setup: teams, the card stack (a deck of Activity cards), the hourglass."""

    variant = forms.ChoiceField(
        label=gettext_lazy("Players"), choices=VARIANTS, initial="teams", widget=forms.RadioSelect
    )
    team_count = forms.IntegerField(
        label=gettext_lazy("Number of teams"), min_value=2, max_value=4, initial=2, required=False
    )
    team_names = forms.CharField(
        label=gettext_lazy("Team names (optional)"),
        max_length=200,
        required=False,
        help_text=gettext_lazy("Separated by commas, e.g. Owls, Foxes. Empty: Team 1, Team 2, …"),
    )
    language = forms.ChoiceField(
        label=gettext_lazy("Language of the cards"),
        choices=[("", gettext_lazy("Any language")), *LANGUAGES],
        required=False,
        initial="pl",
    )
    tags = forms.MultipleChoiceField(
        label=gettext_lazy("Only cards with one of these tags"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None ticked: every card in the language. A term list you made is a tag."),
    )
    only_mine = forms.BooleanField(label=gettext_lazy("Only my own cards"), required=False)
    timer = forms.IntegerField(
        label=gettext_lazy("Hourglass (seconds)"),
        min_value=services.TIMER_RANGE[0],
        max_value=services.TIMER_RANGE[1],
        initial=60,
    )
    reduce_points = forms.BooleanField(
        label=gettext_lazy("Points minus 2 (game for 3 players: a longer game)"), required=False
    )
    facilitator_sees_terms = forms.BooleanField(
        label=gettext_lazy("I see the terms on my screen (behind a Show button) to judge"),
        required=False,
        initial=True,
    )
    allow_guests = forms.BooleanField(
        label=gettext_lazy("Students may join without an account, with a nickname"), required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["tags"].choices = [(slug, slug) for slug in activity_tags_playable(user)]

    def cards(self) -> Any:
        data = self.cleaned_data
        return activity_cards_playable(
            self.user,
            language=data.get("language") or "",
            tags=data.get("tags") or [],
            only_mine=data.get("only_mine"),
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if data.get("variant") == "teams":
            count = data.get("team_count") or 2
            names = [" ".join(n.split()) for n in (data.get("team_names") or "").split(",") if n.strip()]
            if names and len(names) != count:
                self.add_error(
                    "team_names",
                    _("Give %(count)d names, one per team, or leave the field empty.") % {"count": count},
                )
            elif len({n.casefold() for n in names}) != len(names):
                self.add_error("team_names", _("Every team needs a name of its own."))
            elif any(len(n) > 40 for n in names):
                self.add_error("team_names", _("A team name has at most 40 characters."))
            data["names"] = names or [_("Team %(n)d") % {"n": k + 1} for k in range(count)]
            if data.get("reduce_points"):
                self.add_error(
                    "reduce_points", _("“Points minus 2” is a variant of the game for 3 players only.")
                )
        else:
            data["names"] = []
        if not self.errors and not self.cards().exists():
            raise forms.ValidationError(
                _("No Activity cards match: choose another language, other tags, or all cards.")
            )
        return data


class TermListForm(forms.Form):
    """A deck from the teacher's own terms (``content.activity_terms``)."""

    name = forms.CharField(
        label=gettext_lazy("Name of the list"),
        max_length=60,
        help_text=gettext_lazy("e.g. History 7b: 1939; it becomes the tag you pick the cards by."),
    )
    text = forms.CharField(
        label=gettext_lazy("Terms, one per line"),
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "true"}),
        max_length=40000,
        help_text=gettext_lazy(
            "Optionally after a semicolon: points (3–6; 6 opens the game to all teams) and the form "
            "(draw, describe, mime). “chain: word” and “rhyme: word” make the special tasks. "
            "Example: Westerplatte; 5; describe"
        ),
    )
    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=LANGUAGES, initial="pl")
    default_points = forms.TypedChoiceField(
        label=gettext_lazy("Points of a term without points"),
        choices=[(n, str(n)) for n in (3, 4, 5, 6)],
        coerce=int,
        initial=4,
    )
    publish = forms.BooleanField(
        label=gettext_lazy("Share the cards with other teachers (publish)"), required=False
    )
