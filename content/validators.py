"""Django validators around the pure picture checks in ``content/pictures.py``."""

from django.core.exceptions import ValidationError
from django.core.files import File

from .pictures import PictureError, check_picture


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
