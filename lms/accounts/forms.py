"""Forms of the account pages: they parse the list, the code and the names; the services decide."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from lms.classes.forms import ClassForm, JoinForm

from .roster import ROSTER_MAX_ROWS, RosterError, RosterRow, roster_parse, roster_parse_csv


class StudentListForm(forms.Form):
    """A class list: pasted, or a CSV file. ``rows`` holds the students once the form is valid."""

    names = forms.CharField(
        label=_("Students, one a line"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )
    csv_file = forms.FileField(
        label=_("Or a CSV file"),
        required=False,
        help_text=_(
            "Its first row names the columns: “name” (or “first name” and “last name”), "
            "and “username” if you like."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )
    #: Whether a list must be given (adding students) or may be left out (a new class).
    list_required = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rows: list[RosterRow] = []
        self.fields["names"].help_text = gettext(
            "A name a line, and if you like a username after a comma, semicolon or tab: “Jan Nowak, jnowak”. "
            "Without one, Talia makes it from the name. At most %(n)d students."
        ) % {"n": ROSTER_MAX_ROWS}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        text = (data.get("names") or "").strip()
        upload = data.get("csv_file")
        if text and upload:
            raise forms.ValidationError(_("Paste a list or choose a file, not both."))
        try:
            if upload:
                self.rows = roster_parse_csv(upload.read())
            elif text:
                self.rows = roster_parse(text)
            elif self.list_required:
                raise forms.ValidationError(_("Paste the list of students, or choose a CSV file."))
        except RosterError as error:
            raise forms.ValidationError(list(error.problems)) from None
        return data


class ClassWithStudentsForm(ClassForm, StudentListForm):
    """A new class, and if the teacher gives one, its students from a list."""

    list_required = False
    field_order = ["name", "names", "csv_file"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["names"].label = _("Students, one a line (optional)")
        self.fields["csv_file"].label = _("Or a CSV file (optional)")


class _NewPasswordForm(forms.Form):
    """A new password, typed twice."""

    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=_("At least 8 characters, not only digits, not your name."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("The password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("password1") and data.get("password2") and data["password1"] != data["password2"]:
            self.add_error("password2", _("The two passwords differ; type the same one twice."))
        return data


class PasswordForm(_NewPasswordForm):
    """The student's own password, after signing in with a card."""


class SignupForm(_NewPasswordForm):
    """A student's own account, made with the class code: a name, a username, a password."""

    code = JoinForm.base_fields["code"]
    name = forms.CharField(
        label=_("Your name"),
        max_length=150,
        help_text=_(
            "As your teacher knows you, for example “Anna K.”. Talia asks for nothing else about you."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    username = forms.CharField(
        label=_("Username"),
        max_length=30,
        help_text=_("3 to 30 letters a–z, digits, dots, dashes or underscores. You sign in with it."),
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
    )
    field_order = ["code", "name", "username", "password1", "password2"]
