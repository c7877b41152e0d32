"""Setup forms for Knowledge?: the board, the question pool (a filter), the options."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from content.models import LANGUAGES
from games.engines import knowledge

from . import selectors
from .services import KnowledgeOptions

VARIANT_LABELS = {
    "basic": _("Basic: each card is read, assigned and resolved in turn"),
    "strategic": _("Strategic: all six fronts are read first, then assigned in any order"),
}


class KnowledgeOptionsForm(forms.Form):
    """What every Knowledge? game needs; ``user`` decides which boards and questions appear."""

    board = forms.ModelChoiceField(label=_("Board"), queryset=None, empty_label=None)
    variant = forms.ChoiceField(
        label=_("Variant"), choices=[(v, VARIANT_LABELS[v]) for v in knowledge.VARIANTS], initial="basic"
    )
    harder_start = forms.BooleanField(
        label=_("Harder start: the opponents start further ahead"), required=False
    )
    tags = forms.ModelMultipleChoiceField(
        label=_("Question tags (optional)"),
        queryset=None,
        required=False,
        help_text=_("Only questions with any of these tags; none chosen: all questions."),
        widget=forms.CheckboxSelectMultiple,
    )
    language = forms.ChoiceField(
        label=_("Question language"), choices=[("", _("any language")), *LANGUAGES], required=False
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["board"].queryset = selectors.boards_playable_by(user)
        self.fields["tags"].queryset = selectors.tags_in_use()

    def options(self) -> KnowledgeOptions:
        data = self.cleaned_data
        return KnowledgeOptions(
            board_id=data["board"].pk,
            variant=data["variant"],
            harder_start=bool(data["harder_start"]),
            tags=tuple(sorted(tag.pk for tag in data["tags"])),
            language=data["language"] or "",
            owner=data.get("owner") or "any",
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        board = data.get("board")
        if board is not None and data.get("harder_start") and board.opponent_start_hard is None:
            self.add_error("harder_start", _("This board has no harder start space."))
        return data


class KnowledgeSetupForm(KnowledgeOptionsForm):
    """A teacher's setup: play in class (projector and phones) or give a homework link."""

    MODES = [
        ("class", _("In class or a small team: students join with the code, one shared game")),
        ("projector", _("On the projector only: the class discusses, I assign the cards")),
        ("homework", _("Homework: a link for each student to play alone")),
    ]
    OWNER_CHOICES = [
        ("any", _("All questions I may use")),
        ("mine", _("Only my own questions")),
        ("shared", _("Only the shared library (published)")),
    ]

    owner = forms.ChoiceField(label=_("Whose questions"), choices=OWNER_CHOICES, initial="any")
    mode = forms.ChoiceField(
        label=_("How it is played"), choices=MODES, initial="class", widget=forms.RadioSelect
    )
    allow_guests = forms.BooleanField(
        label=_("Students may join without an account, with a nickname"), required=False
    )

    field_order = ["mode", "board", "variant", "harder_start", "tags", "language", "owner", "allow_guests"]
