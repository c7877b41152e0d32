"""Django validators around the pure checks: pictures (``content/pictures.py``) and the
chronology's dates (``games.engines.quiz.date_parse``)."""

from django.core.exceptions import ValidationError
from django.core.files import File
from django.utils.translation import gettext as _

from games.engines.quiz import date_parse

from .pictures import PictureError, check_picture


def validate_event_date(value: str) -> None:
    """A date as chronology questions order them: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""
    if not value:
        return
    try:
        date_parse(value)
    except ValueError as error:
        raise ValidationError(
            _("“%(value)s” is not a date: write YYYY, YYYY-MM or YYYY-MM-DD, e.g. 1944-08-01.")
            % {"value": value},
            code="date",
        ) from error


def validate_picture_file(file: File) -> None:
    """Refuse a picture that is not a safe PNG, JPEG, WebP or SVG within the limits."""
    if getattr(file, "_committed", False):
        return  # already stored: it was checked when it was uploaded
    position = file.tell() if hasattr(file, "tell") else 0
    file.seek(0)
    data = file.read()
    file.seek(position)
    try:
        check_picture(data, getattr(file, "name", "") or "")
    except PictureError as error:
        raise ValidationError(str(error), code="picture") from error
