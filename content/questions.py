"""Teacher-written quiz questions: whether students can answer one fairly, in words.

The rules are the quiz engine's (``games.engines.quiz.question_problems``): a multiple
choice has one right option and no two alike; a chronology has 3–6 events with dates that
can be told apart; a matching has 3–6 pairs, each with both sides. The admin
(``content/admin.py``) and the import (``content/resources.py``) ask :func:`question_errors`
and put each message on the field it names (an option's row in the admin, its column in
the table); nothing is saved while one is left.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engines.quiz import QUESTION_SIZES, OptionEntry, Problem, question_problems


@dataclass(frozen=True)
class QuestionError:
    """A message for people: on ``part`` of option ``option`` (from 0), or of the question
    when ``option`` is None (``part`` is then ``options``, ``correct`` or ``text``)."""

    option: int | None
    part: str
    message: str


def picture_digest(value: Any) -> str:
    """A digest of a picture's bytes, so two options showing the same picture compare equal
    however they were named; "" for no picture, an unreadable file compares by its name."""
    if not value:
        return ""
    try:
        if hasattr(value, "seek") and not getattr(value, "_committed", False):
            value.seek(0)
            data = value.read()
            value.seek(0)
        else:
            with value.open("rb") as stored:
                data = stored.read()
    except (OSError, ValueError):
        return f"name:{getattr(value, 'name', value)}"
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


def _size_message(kind: str, code: str) -> str:
    low, high = QUESTION_SIZES[kind]
    if kind == "choice":
        if code == "too_few":
            return ngettext(
                "A multiple-choice question needs at least %(n)d option.",
                "A multiple-choice question needs at least %(n)d options.",
                low,
            ) % {"n": low}
        return ngettext(
            "A multiple-choice question has at most %(n)d option.",
            "A multiple-choice question has at most %(n)d options.",
            high,
        ) % {"n": high}
    if kind == "chronology":
        if code == "too_few":
            return ngettext(
                "A chronology needs at least %(n)d event to put in order.",
                "A chronology needs at least %(n)d events to put in order.",
                low,
            ) % {"n": low}
        return ngettext(
            "A chronology has at most %(n)d event.", "A chronology has at most %(n)d events.", high
        ) % {"n": high}
    if code == "too_few":
        return ngettext(
            "A matching needs at least %(n)d pair.", "A matching needs at least %(n)d pairs.", low
        ) % {"n": low}
    return ngettext("A matching has at most %(n)d pair.", "A matching has at most %(n)d pairs.", high) % {
        "n": high
    }


def _message(
    kind: str,
    problem: Problem,
    index: int | None,
    options: Sequence[OptionEntry],
    option_name: Callable[[int], str],
    field_name: Callable[[int | None, str], str],
) -> str:
    """The words for one problem, as seen from option ``index`` (None: the question)."""
    code = problem.code
    others = [option_name(i) for i in problem.options if i != index]
    other = ", ".join(others)
    if code in ("too_few", "too_many"):
        return _size_message(kind, code)
    if code == "no_question":
        return _("Write the question (or give it a picture): the student must know what is asked.")
    if code == "no_right":
        return _(
            "No option is marked right (%(field)s): a multiple-choice question needs exactly one "
            "right option, or no answer could score."
        ) % {"field": field_name(index, "correct")}
    if code == "several_right":
        return _(
            "Only one option may be right (%(field)s); %(other)s is marked right too. Keep the "
            "tick on one of them."
        ) % {"field": field_name(index, "correct"), "other": other}
    if code == "empty_option":
        if kind == "chronology":
            return _("This event has no text and no picture (%(field)s): write what happened.") % {
                "field": field_name(index, "text")
            }
        return _("This option has no text and no picture (%(field)s): fill it in or clear the row.") % {
            "field": field_name(index, "text")
        }
    if code == "same_options":
        if problem.part == "match":
            return _(
                "This right-hand side (%(field)s) reads the same as that of %(other)s: a student "
                "could not tell which pair is meant. Change one of them."
            ) % {"field": field_name(index, "match"), "other": other}
        return _(
            "This option (%(field)s) reads the same as %(other)s: a student could not tell them "
            "apart. Change one of them."
        ) % {"field": field_name(index, "text"), "other": other}
    if code == "no_date":
        return _(
            "This event has no date (%(field)s): a chronology orders events by their dates. "
            "Write YYYY, YYYY-MM or YYYY-MM-DD."
        ) % {"field": field_name(index, "date")}
    if code == "bad_date":
        value = options[index].date if index is not None else ""
        return _(
            "“%(value)s” is not a date (%(field)s): write YYYY, YYYY-MM or YYYY-MM-DD, e.g. 1944-08-01."
        ) % {"value": value, "field": field_name(index, "date")}
    if code == "same_date":
        mine = options[index].date if index is not None else ""
        theirs = ", ".join(options[i].date for i in problem.options if i != index)
        return _(
            "The date %(mine)s (%(field)s) cannot be told apart from %(theirs)s of %(other)s: a "
            "student could not know which came first. Give the events dates that differ (a year "
            "alone holds every day of it)."
        ) % {"mine": mine, "theirs": theirs, "other": other, "field": field_name(index, "date")}
    if code == "unpaired":
        if problem.part == "match":
            return _(
                "This left-hand side has nothing to pair with (%(field)s): write the right-hand "
                "side that goes with it, or clear the row."
            ) % {"field": field_name(index, "match")}
        return _(
            "This right-hand side has no left-hand side (%(field)s): write the text (or give the "
            "picture) it goes with, or clear the row."
        ) % {"field": field_name(index, "text")}
    return _("This question cannot be answered fairly (%(code)s).") % {"code": code}


def question_errors(
    *,
    kind: str,
    text: str,
    picture: str,
    options: Sequence[OptionEntry],
    option_name: Callable[[int], str],
    field_name: Callable[[int | None, str], str],
) -> list[QuestionError]:
    """Every reason students could not answer the question fairly, one message per option
    concerned (a pair of alike options gets one on each), or on the question itself.

    ``option_name(i)`` names option ``i`` for people ("row 2", "option B");
    ``field_name(i, part)`` names a field of option ``i`` (None: of the question), such as
    "“date”" in the admin or "b_date" in a table.
    """
    errors: list[QuestionError] = []
    for problem in question_problems(kind, text, options, picture):
        if problem.code == "no_question":
            continue  # the model's own clean() says it, on the question's text
        if not problem.options:
            message = _message(kind, problem, None, options, option_name, field_name)
            errors.append(QuestionError(None, problem.part, message))
            continue
        for index in problem.options:
            errors.append(
                QuestionError(
                    index, problem.part, _message(kind, problem, index, options, option_name, field_name)
                )
            )
    return errors
