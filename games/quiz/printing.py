"""The worksheet and the answer key of a quiz, as PDFs from the printing service.

The HTML comes from ``templates/games/quiz/print.html``; WeasyPrint renders it through the
printing service's worker (``content.printing.worker.render_pdf``), whose fetcher reads
only the shipped fonts and the symbol pictures the quiz names (nothing from the network,
nothing an author typed). The worksheet shows what a student sees before submitting
(prompts only); the answer key adds the answers.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import default_storage
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from content.printing.fetcher import FetchPolicy
from content.printing.worker import render_pdf
from games.engines.quiz import option_letter

from . import selectors
from .answers import answer_text, explanation, knowledge_label
from .models import Quiz

FONTS = Path(__file__).resolve().parents[2] / "content" / "printing" / "fonts"

logger = logging.getLogger(__name__)


class PrintError(Exception):
    """The PDF could not be made; the message says so to the teacher."""


def _picture_path(name: str) -> str:
    """A local path of a stored picture, or "" where storage is not on this disk."""
    if not name:
        return ""
    try:
        path = default_storage.path(name)
    except NotImplementedError:  # object storage: the picture is left out, its box stays
        return ""
    except (SuspiciousFileOperation, ValueError):  # a name that is no file of ours
        return ""
    return path if os.path.exists(path) else ""


def quiz_pdf(quiz: Quiz, *, answer_key: bool) -> bytes:
    """The worksheet (``answer_key=False``) or the answer key of ``quiz`` as PDF bytes.

    A picture whose file is missing prints as a labelled empty box; a render that fails
    raises :class:`PrintError` with words for the teacher.
    """
    files: list[str] = []
    items: list[dict[str, Any]] = []
    for item in selectors.quiz_items(quiz):
        pictures = {token: _picture_path(name) for token, name in (item.key.get("pictures") or {}).items()}
        files.extend(path for path in pictures.values() if path)

        def uri(token: str, pictures: dict[str, str] = pictures) -> str:
            path = pictures.get(token, "")
            return Path(path).as_uri() if path else ""

        options = []
        for index, option in enumerate(item.prompt.get("options", [])):
            if isinstance(option, dict):
                picture = uri(option["picture"]) if option.get("picture") else ""
                options.append(
                    {
                        **option,
                        "picture_uri": picture,
                        "picture_missing": bool(option.get("picture")) and not picture,
                        "letter": option_letter(index),
                    }
                )
            else:
                options.append(
                    {
                        "id": option,
                        "text": knowledge_label(item.prompt.get("category", ""), option),
                        "letter": option_letter(index),
                    }
                )

        def pictured(entry: dict[str, Any], uri: Any = uri) -> dict[str, Any]:
            picture = uri(entry["picture"]) if entry.get("picture") else ""
            return {
                **entry,
                "picture_uri": picture,
                "picture_missing": bool(entry.get("picture")) and not picture,
            }

        picture = uri(item.prompt["picture"]) if item.prompt.get("picture") else ""
        items.append(
            {
                "item": item,
                "prompt": item.prompt,
                "options": options,
                "events": [pictured(event) for event in item.prompt.get("events", [])],
                "left": [pictured(side) for side in item.prompt.get("left", [])],
                "right": [
                    {**side, "letter": option_letter(index)}
                    for index, side in enumerate(item.prompt.get("right", []))
                ],
                "explanation": explanation(item) if answer_key else "",
                "picture_uri": picture,
                # A picture whose file is gone prints as a labelled empty box.
                "picture_missing": bool(item.prompt.get("picture")) and not picture,
                "answer_text": answer_text(item) if answer_key else "",
            }
        )
    html = render_to_string(
        "games/quiz/print.html",
        {
            "quiz": quiz,
            "items": items,
            "answer_key": answer_key,
            "font_regular": (FONTS / "DejaVuSans.ttf").as_uri(),
            "font_bold": (FONTS / "DejaVuSans-Bold.ttf").as_uri(),
            "printed": timezone.localtime(),
        },
    )
    policy = FetchPolicy.build(roots=[FONTS], files=files)
    try:
        return render_pdf(html, base_url=str(FONTS), policy=policy)
    except Exception as error:  # WeasyPrint fails in many ways; the teacher gets a page, not a 500
        logger.exception("Quiz %s: the PDF could not be rendered", quiz.pk)
        raise PrintError(
            _("The PDF could not be made. Try again in a minute; if it fails again, tell an admin.")
        ) from error
