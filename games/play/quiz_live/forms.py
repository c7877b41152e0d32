"""The "run this quiz live" form: what the teacher sets before the phones join."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.engines import quiz_live


class QuizLiveForm(forms.Form):
    """Teams or alone, time as a tie-break or not at all, an optional time per question."""

    team_count = forms.IntegerField(
        label=_("Teams"),
        min_value=0,
        max_value=30,
        initial=0,
        help_text=_(
            "0: everyone answers alone. 2 or more: the students who joined are dealt into this many "
            "teams when the quiz starts; each team chooses a secret Team ID."
        ),
    )
    time = forms.ChoiceField(
        label=_("Time"),
        choices=[
            (quiz_live.TIME_OFF, _("Off: only right answers count; equal scores share a place")),
            (quiz_live.TIME_TIE_BREAK, _("Tie-break: among equal scores, the faster team is placed first")),
        ],
        initial=quiz_live.TIME_OFF,
        widget=forms.RadioSelect,
    )
    seconds = forms.IntegerField(
        label=_("Seconds per question"),
        min_value=quiz_live.MIN_SECONDS,
        max_value=quiz_live.MAX_SECONDS,
        required=False,
        help_text=_("Leave empty to close each question yourself."),
    )
    allow_guests = forms.BooleanField(
        label=_("Students may join without an account, with a nickname"),
        required=False,
        help_text=_("A guest plays, but gets no grade: grades go to students with an account."),
    )

    def clean_team_count(self) -> int:
        count = self.cleaned_data["team_count"] or 0
        if count == 1:
            raise forms.ValidationError(_("One team is everyone together: choose 0 or at least 2."))
        return int(count)
