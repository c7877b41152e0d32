"""Forms of the class and homework pages: they parse; the services decide."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.models import PracticeAssignment
from games.play.knowledge import forms as knowledge_forms
from games.play.knowledge import selectors as knowledge_selectors
from games.play.znajznak import forms as znajznak_forms
from lms.models import Assignment

from . import quizzes

DATETIME_FORMAT = "%Y-%m-%dT%H:%M"
#: The assignment's own fields, as the form shows them and the services take them.
ASSIGNMENT_FIELDS = (
    "title",
    "instructions",
    "kind",
    "opens_at",
    "due_at",
    "max_attempts",
    "policy",
    "time_limit_minutes",
    "points_possible",
)


class LocalDateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format=DATETIME_FORMAT, **kwargs)


class ClassForm(forms.Form):
    name = forms.CharField(
        label=_("Class name"),
        max_length=120,
        help_text=_("As your students know it, for example “3b History 2026/27”."),
    )


class JoinForm(forms.Form):
    code = forms.CharField(
        label=_("Class code"),
        max_length=20,
        help_text=_("Six letters and digits, as your teacher shows them."),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )


class CoTeacherForm(forms.Form):
    username = forms.CharField(label=_("Co-teacher's username"), max_length=150)


class AssignmentForm(forms.Form):
    """Homework: what (a quiz or a game), when (opens, due), and how it is graded."""

    title = forms.CharField(label=_("Title"), max_length=160)
    instructions = forms.CharField(
        label=_("Instructions for the students (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    kind = forms.ChoiceField(
        label=_("Assign"),
        choices=Assignment.Kind.choices,
        initial=Assignment.Kind.QUIZ,
        widget=forms.RadioSelect,
    )
    quiz = forms.ModelChoiceField(
        label=_("Quiz"), queryset=None, required=False, help_text=_("One of your published quizzes.")
    )
    game = forms.ChoiceField(
        label=_("Game"),
        choices=Assignment.Game.choices,
        initial=Assignment.Game.ZNAJZNAK_PRACTICE,
        widget=forms.RadioSelect,
        required=False,
    )
    deck = forms.ModelChoiceField(
        label=_("Deck for the ZnajZnak practice duel"), queryset=None, required=False
    )
    card_set = forms.CharField(
        label=_("Lesson card set (optional)"),
        max_length=3,
        required=False,
        help_text=_("The letter on the card backs: only that set's cards are dealt."),
    )
    mode = forms.ChoiceField(
        label=_("Play against"),
        choices=PracticeAssignment.Mode.choices,
        initial=PracticeAssignment.Mode.EITHER,
    )
    cards_per_player = znajznak_forms.cards_per_player_field()
    bot_seconds = znajznak_forms.bot_seconds_field()
    bot_accuracy = znajznak_forms.bot_accuracy_field()
    board = forms.ModelChoiceField(label=_("Knowledge? board"), queryset=None, required=False)
    variant = forms.ChoiceField(label=_("Knowledge? variant"), choices=(), initial="basic", required=False)
    harder_start = forms.BooleanField(
        label=_("Harder start: the opponents start further ahead"), required=False
    )
    opens_at = forms.DateTimeField(
        label=_("Opens (optional)"),
        required=False,
        widget=LocalDateTimeInput(),
        help_text=_("Empty: as soon as it is published."),
    )
    due_at = forms.DateTimeField(
        label=_("Due (optional)"),
        required=False,
        widget=LocalDateTimeInput(),
        help_text=_("Attempts still in progress then are graded as they stand."),
    )
    max_attempts = forms.IntegerField(
        label=_("Attempts allowed"),
        min_value=1,
        max_value=50,
        required=False,
        initial=1,
        help_text=_("Empty: as many as the student likes."),
    )
    policy = forms.ChoiceField(
        label=_("Attempt that counts"), choices=Assignment.Policy.choices, initial=Assignment.Policy.BEST
    )
    time_limit_minutes = forms.IntegerField(
        label=_("Time limit in minutes (optional)"), min_value=1, max_value=600, required=False
    )
    points_possible = forms.DecimalField(
        label=_("Points possible"),
        min_value=Decimal("0.01"),
        max_value=Decimal("10000"),
        decimal_places=2,
        initial=10,
    )
    publish = forms.BooleanField(label=_("Publish now (students see it)"), required=False, initial=True)

    def __init__(self, *args: Any, user: Any, editing: Assignment | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["deck"].queryset = game_selectors.decks_playable_by(user)

        self.fields["board"].queryset = knowledge_selectors.boards_playable_by(user)
        self.fields["variant"].choices = list(knowledge_forms.VARIANT_LABELS.items())
        if quizzes.available():
            self.fields["quiz"].queryset = quizzes.quizzes_assignable_by(user)
        else:
            del self.fields["quiz"]
            self.fields["kind"].choices = [(Assignment.Kind.GAME, Assignment.Kind.GAME.label)]
            self.fields["kind"].initial = Assignment.Kind.GAME
        if editing is not None:
            del self.fields["publish"]

    @staticmethod
    def initial_for(assignment: Assignment) -> dict[str, Any]:
        options = assignment.game_options or {}
        initial: dict[str, Any] = {name: getattr(assignment, name) for name in ASSIGNMENT_FIELDS}
        initial.update(
            {
                key: options[key]
                for key in ("card_set", "mode", "cards_per_player", "bot_seconds", "bot_accuracy")
                if key in options
            }
        )
        initial["game"] = assignment.game or Assignment.Game.ZNAJZNAK_PRACTICE
        if assignment.game == Assignment.Game.KNOWLEDGE_SOLO:
            initial.update(
                board=options.get("board"),
                variant=options.get("variant"),
                harder_start=options.get("harder_start"),
            )
        else:
            initial["deck"] = options.get("deck")
        initial["quiz"] = getattr(assignment, "quiz_id", None)
        return initial

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if kind == Assignment.Kind.QUIZ and not data.get("quiz"):
            self.add_error("quiz", _("Choose the quiz to assign."))
        game = data.get("game") or Assignment.Game.ZNAJZNAK_PRACTICE
        if (
            kind == Assignment.Kind.GAME
            and game == Assignment.Game.ZNAJZNAK_PRACTICE
            and not data.get("deck")
        ):
            self.add_error("deck", _("Choose the deck the practice duel is dealt from."))
        if kind == Assignment.Kind.GAME and game == Assignment.Game.KNOWLEDGE_SOLO and not data.get("board"):
            self.add_error("board", _("Choose the board the Knowledge? game is played on."))
        return data

    def service_fields(self) -> dict[str, Any]:
        """The cleaned data as ``assignment_create`` / ``assignment_update`` take it."""
        data = self.cleaned_data
        fields = {name: data.get(name) for name in ASSIGNMENT_FIELDS}
        if data.get("kind") == Assignment.Kind.QUIZ:
            fields["quiz"] = data.get("quiz")
            fields["game"] = ""
            fields["game_options"] = {}
        elif data.get("kind") == Assignment.Kind.REVIEW:
            fields["quiz"] = None
            fields["game"] = ""
            fields["game_options"] = {}
        elif data.get("game") == Assignment.Game.KNOWLEDGE_SOLO:
            fields["quiz"] = None
            fields["game"] = Assignment.Game.KNOWLEDGE_SOLO
            fields["game_options"] = {
                "board": data["board"].pk if data.get("board") else None,
                "variant": data.get("variant") or "basic",
                "harder_start": bool(data.get("harder_start")),
            }
        else:
            fields["quiz"] = None
            fields["game"] = Assignment.Game.ZNAJZNAK_PRACTICE
            fields["game_options"] = {
                "deck": data["deck"].pk if data.get("deck") else None,
                "card_set": (data.get("card_set") or "").strip().upper(),
                "mode": data.get("mode"),
                "cards_per_player": data.get("cards_per_player"),
                "bot_seconds": str(data.get("bot_seconds")),
                "bot_accuracy": data.get("bot_accuracy"),
            }
        return fields
