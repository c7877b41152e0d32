"""Forms of the quiz pages (a new quiz, the follow-up of a game, publishing): they parse
the request; the services decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from content.models import Period, QuizQuestion, Symbol, SymbolSet, Theme
from content.permissions import content_visible_to
from games.engines import quiz as engine
from games.models import GameSession

from . import selectors, services
from .models import Quiz


def _question_label(question: QuizQuestion) -> str:
    return f"{question.get_kind_display()}: {question}"


def _student_name(user: Any) -> str:
    full = user.get_full_name() if hasattr(user, "get_full_name") else ""
    return f"{full} ({user.get_username()})" if full else user.get_username()


class QuizNewForm(forms.Form):
    """A quiz from a symbol set, a theme, a period or the teacher's own choice of symbols."""

    SOURCES = [
        (Quiz.Source.SYMBOL_SET, gettext_lazy("A symbol set")),
        (Quiz.Source.THEME, gettext_lazy("A theme")),
        (Quiz.Source.PERIOD, gettext_lazy("A period")),
        (Quiz.Source.SELECTION, gettext_lazy("Symbols I choose")),
        (Quiz.Source.QUESTIONS, gettext_lazy("Only the quiz questions I choose below")),
    ]
    title = forms.CharField(label=gettext_lazy("Title"), max_length=160, required=False)
    source = forms.ChoiceField(
        label=gettext_lazy("Build from"),
        choices=SOURCES,
        widget=forms.RadioSelect,
        initial=Quiz.Source.SYMBOL_SET,
    )
    symbol_set = forms.ModelChoiceField(
        label=gettext_lazy("Symbol set"), queryset=SymbolSet.objects.none(), required=False
    )
    theme = forms.ModelChoiceField(label=gettext_lazy("Theme"), queryset=Theme.objects.all(), required=False)
    period = forms.ModelChoiceField(
        label=gettext_lazy("Period"), queryset=Period.objects.all(), required=False
    )
    symbols = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Symbols"),
        queryset=Symbol.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("For “Symbols I choose”."),
    )
    with_knowledge = forms.BooleanField(
        label=gettext_lazy("Add Knowledge? questions from the library"), required=False
    )
    questions = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Quiz questions written by teachers"),
        queryset=QuizQuestion.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy(
            "Multiple choice, chronology and matching questions (Authoring → Quiz questions): your "
            "own and the published ones. Every one you tick is asked."
        ),
    )
    total = forms.IntegerField(
        label=gettext_lazy("Number of items"),
        min_value=1,
        max_value=services.MAX_ITEMS,
        initial=services.DEFAULT_ITEMS,
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["symbol_set"].queryset = content_visible_to(user, SymbolSet.objects.all()).order_by(
            "name"
        )
        self.fields["symbols"].queryset = content_visible_to(user, Symbol.objects.all()).order_by("name")
        questions = self.fields["questions"]
        questions.queryset = selectors.questions_usable_by(user)  # type: ignore[attr-defined]
        questions.label_from_instance = _question_label  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        source = data.get("source")
        needed = {
            "symbol_set": "symbol_set",
            "theme": "theme",
            "period": "period",
            "selection": "symbols",
            "questions": "questions",
        }.get(source or "")
        if needed and not data.get(needed):
            self.add_error(needed, _("Choose what to build the quiz from."))
        return data

    def pool_and_label(self) -> tuple[engine.Pool, str]:
        data = self.cleaned_data
        source = data["source"]
        if source == Quiz.Source.SYMBOL_SET:
            chosen = data["symbol_set"]
            queryset = Symbol.objects.filter(symbol_sets=chosen)
            label = str(chosen)
        elif source == Quiz.Source.THEME:
            queryset = Symbol.objects.filter(themes=data["theme"], status="published")
            label = str(data["theme"])
        elif source == Quiz.Source.PERIOD:
            queryset = Symbol.objects.filter(periods=data["period"], status="published")
            label = data["period"].name
        elif source == Quiz.Source.QUESTIONS:
            queryset = Symbol.objects.none()
            label = ngettext(
                "%(count)d quiz question", "%(count)d quiz questions", len(data["questions"])
            ) % {"count": len(data["questions"])}
        else:
            queryset = Symbol.objects.filter(pk__in=[s.pk for s in data["symbols"]])
            label = _("%(count)d chosen symbols") % {"count": len(data["symbols"])}
        pool = selectors.pool_from_symbols(
            user=self.user,
            queryset=queryset,
            with_knowledge=data["with_knowledge"],
            questions=data["questions"],
        )
        return pool, label

    def items_wanted(self) -> int:
        """The items asked for; a quiz of chosen questions only has one item per question."""
        data = self.cleaned_data
        if data["source"] == Quiz.Source.QUESTIONS and not data["with_knowledge"]:
            return min(data["total"], len(data["questions"]))
        return int(data["total"])


class FollowupForm(forms.Form):
    """The follow-up quiz of a finished game: one for the class, or one per student."""

    FOR_CLASS = "class"
    PER_STUDENT = "students"
    build = forms.ChoiceField(
        choices=[(FOR_CLASS, FOR_CLASS), (PER_STUDENT, PER_STUDENT)], required=False, initial=FOR_CLASS
    )
    students = forms.ModelMultipleChoiceField(
        label=gettext_lazy("Students"),
        queryset=get_user_model().objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    total = forms.IntegerField(
        label=gettext_lazy("Number of items"),
        min_value=1,
        max_value=services.MAX_ITEMS,
        initial=services.DEFAULT_ITEMS,
        required=False,
    )

    def __init__(self, *args: Any, session: GameSession, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        students = self.fields["students"]
        students.queryset = selectors.session_students(session)  # type: ignore[attr-defined]
        students.label_from_instance = _student_name  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("build") == self.PER_STUDENT and not data.get("students"):
            self.add_error("students", _("Choose at least one student who played the game."))
        return data


class PublishForm(forms.Form):
    time_limit = forms.IntegerField(
        label=gettext_lazy("Time limit in minutes (optional)"),
        min_value=1,
        max_value=600,
        required=False,
        help_text=gettext_lazy("Counted from when a student starts; the server closes the attempt then."),
    )
