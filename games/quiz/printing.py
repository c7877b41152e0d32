"""The worksheet and the answer key of a quiz, as PDFs from the printing service.

The HTML comes from ``templates/games/quiz/print.html``; WeasyPrint renders it through the
printing service's worker (``content.printing.worker.render_pdf``), whose fetcher reads
only the shipped fonts and the symbol pictures the quiz names (nothing from the network,
nothing an author typed). The worksheet shows what a student sees before submitting
(prompts only); the answer key adds the answers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from django.template.loader import render_to_string
from django.utils import timezone

from content.printing.fetcher import FetchPolicy
from content.printing.worker import render_pdf

from . import selectors
from .models import Quiz

FONTS = Path(__file__).resolve().parents[2] / "content" / "printing" / "fonts"


def _picture_path(name: str) -> str:
    """A local path of a stored picture, or "" where storage is not on this disk."""
    if not name:
        return ""
    try:
        path = default_storage.path(name)
    except NotImplementedError:  # object storage: the picture is left out, its box stays
        return ""
    return path if os.path.exists(path) else ""


def quiz_pdf(quiz: Quiz, *, answer_key: bool) -> bytes:
    """The worksheet (``answer_key=False``) or the answer key of ``quiz`` as PDF bytes."""
    from .views import _answer_text, _knowledge_label  # the pages' words for answers

    files: list[str] = []
    items: list[dict[str, Any]] = []
    for item in selectors.quiz_items(quiz):
        pictures = {token: _picture_path(name) for token, name in (item.key.get("pictures") or {}).items()}
        files.extend(path for path in pictures.values() if path)

        def uri(token: str, pictures: dict[str, str] = pictures) -> str:
            path = pictures.get(token, "")
            return Path(path).as_uri() if path else ""

        options = []
        for option in item.prompt.get("options", []):
            if isinstance(option, dict):
                options.append(
                    {**option, "picture_uri": uri(option["picture"]) if option.get("picture") else ""}
                )
            else:
                options.append(
                    {"id": option, "text": _knowledge_label(item.prompt.get("category", ""), option)}
                )
        items.append(
            {
                "item": item,
                "prompt": item.prompt,
                "options": options,
                "picture_uri": uri(item.prompt["picture"]) if item.prompt.get("picture") else "",
                "answer_text": _answer_text(item) if answer_key else "",
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
    return render_pdf(html, base_url=str(FONTS), policy=policy)
