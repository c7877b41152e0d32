"""Login cards as a PDF: eight to an A4 page, to cut apart and hand out.

The HTML comes from ``templates/lms/cards_print.html`` and is rendered by the printing
service's worker (``content.printing.worker.render_pdf``): its fetcher reads only the
shipped fonts and the QR codes made here, nothing from the network.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from content.printing.fetcher import FetchPolicy
from content.printing.qr import qr_data_uri
from content.printing.worker import render_pdf

from .cards import PrintedCard

FONTS = Path(__file__).resolve().parents[2] / "content" / "printing" / "fonts"

logger = logging.getLogger(__name__)


class PrintError(Exception):
    """The PDF could not be made; the message says so to the teacher."""


def cards_pdf(cards: list[PrintedCard], *, school_class: Any, signin_url: str) -> bytes:
    """The cards as PDF bytes; :class:`PrintError` with words for the teacher if WeasyPrint fails."""
    qr = {card.card.pk: qr_data_uri(card.link) for card in cards}
    html = render_to_string(
        "lms/cards_print.html",
        {
            "cards": [(card, qr[card.card.pk]) for card in cards],
            "school_class": school_class,
            "signin_url": signin_url,
            "font_regular": (FONTS / "DejaVuSans.ttf").as_uri(),
            "font_bold": (FONTS / "DejaVuSans-Bold.ttf").as_uri(),
            "printed": timezone.localtime(),
        },
    )
    policy = FetchPolicy.build(roots=[FONTS], data=qr.values())
    try:
        return render_pdf(html, base_url=str(FONTS), policy=policy)
    except Exception as error:  # WeasyPrint fails in many ways; the teacher gets a page, not a 500
        logger.exception(
            "Login cards of class %s: the PDF could not be rendered", getattr(school_class, "pk", None)
        )
        raise PrintError(
            _("The PDF could not be made. Print this page instead, or try again in a minute.")
        ) from error
