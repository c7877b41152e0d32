"""Activity cards from a teacher's own term list, and the cards a game is dealt from.

Activity rulebook, Components: "Each card holds 6 terms marked with the letters A–F, which
match the 6 areas of the board" (A/D drawn, B/E described, C/F mime).  A teacher pastes
the vocabulary of a lesson, one term per line ("Westerplatte", "Solidarność"), and gets
cards of their own, tagged with the list's name, so a game can be dealt from exactly
those cards (the Activity setup page filters by tag).

A line is ``term``, optionally followed by ``; points`` (3–6) and ``; form`` (draw,
describe or mime, also in Polish and Czech) in any order; ``chain: word`` and
``rhyme: word`` make the special tasks (Chain, Rhyme).  Terms with a form go into the
slots of that form; the others fill the free slots.  When the list does not fill its
last card, the free slots take terms of the list again (never twice on one card), and
the result says how many.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils.text import slugify
from django.utils.translation import gettext as _

from .models import SLOT_FORMS, SLOTS, ActivityCard, Status, Tag, term_points_problem
from .permissions import content_visible_to
from .services import activity_card_create, tags_for

__all__ = [
    "CardsMade",
    "ParsedTerm",
    "TermListError",
    "activity_cards_for_game",
    "activity_cards_from_terms",
    "activity_cards_playable",
    "activity_tags_playable",
    "activity_terms_parse",
]

MAX_TERMS = 600
TEXT_MAX = 120
#: How a line may name the form, in the languages Talia speaks and the rulebook's Czech.
FORM_WORDS = {
    "draw": "draw",
    "drawing": "draw",
    "rysuj": "draw",
    "rysunek": "draw",
    "rysowanie": "draw",
    "kreslit": "draw",
    "kreslení": "draw",
    "describe": "describe",
    "description": "describe",
    "opisz": "describe",
    "opis": "describe",
    "opowiedz": "describe",
    "popsat": "describe",
    "popis": "describe",
    "mime": "mime",
    "pantomime": "mime",
    "pantomima": "mime",
    "pokaż": "mime",
    "pokaz": "mime",
    "předvést": "mime",
}
KIND_WORDS = {
    "chain": "chain",
    "łańcuch": "chain",
    "lancuch": "chain",
    "řetěz": "chain",
    "rhyme": "rhyme",
    "rym": "rhyme",
    "rým": "rhyme",
}
SEPARATORS = re.compile(r"[;|\t]")


class TermListError(ValueError):
    """The list cannot make cards; the message names the line and what to change."""


@dataclass(frozen=True)
class ParsedTerm:
    line: int
    text: str
    kind: str  # term, chain, rhyme
    points: int | None
    form: str | None  # draw, describe, mime, or None: any


@dataclass
class CardsMade:
    cards: list[ActivityCard]
    tag: Tag
    terms: int
    repeated: int = 0
    duplicates: list[str] = field(default_factory=list)


def activity_terms_parse(text: str, *, default_points: int = 4) -> tuple[list[ParsedTerm], list[str]]:
    """The terms of a pasted list, and the lines left out because they repeat an earlier term.

    "Westerplatte; 5" is a term worth 5, "Solidarność; describe" a term for B or E worth
    ``default_points``, "chain: dějepis" a chain; a later "westerplatte" is left out.
    """
    if term_points_problem("term", default_points):
        raise TermListError(_("Terms score 3 to 6 points."))
    terms: list[ParsedTerm] = []
    seen: set[str] = set()
    repeats: list[str] = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = " ".join(unicodedata.normalize("NFC", raw).split())
        if not line or line.startswith("#"):
            continue
        kind = "term"
        head, colon, tail = line.partition(":")
        if colon and head.strip().casefold() in KIND_WORDS:
            kind = KIND_WORDS[head.strip().casefold()]
            line = tail.strip()
        parts = [part.strip() for part in SEPARATORS.split(line)]
        term_text, options = parts[0], [p for p in parts[1:] if p]
        if not term_text:
            raise TermListError(_("Line %(n)d has no term before the options.") % {"n": number})
        if len(term_text) > TEXT_MAX:
            raise TermListError(
                _("Line %(n)d: a term has at most %(max)d characters.") % {"n": number, "max": TEXT_MAX}
            )
        points: int | None = None
        form: str | None = None
        for option in options:
            if option.isascii() and option.isdigit():
                points = int(option)
                if term_points_problem("term", points):
                    raise TermListError(
                        _("Line %(n)d: points are 3 to 6 (6 opens the game to every team), not %(p)s.")
                        % {"n": number, "p": option}
                    )
            elif option.casefold() in FORM_WORDS:
                form = FORM_WORDS[option.casefold()]
            else:
                raise TermListError(
                    _("Line %(n)d: “%(option)s” is neither points (3–6) nor a form (draw, describe, mime).")
                    % {"n": number, "option": option}
                )
        if kind != "term" and (points is not None or form is not None):
            raise TermListError(
                _("Line %(n)d: a chain or a rhyme has no points and no form of its own.") % {"n": number}
            )
        key = term_text.casefold()
        if key in seen:
            repeats.append(term_text)
            continue
        seen.add(key)
        terms.append(
            ParsedTerm(
                line=number,
                text=term_text,
                kind=kind,
                points=points if kind != "term" or points is not None else default_points,
                form=form,
            )
        )
    if len(terms) > MAX_TERMS:
        raise TermListError(_("At most %(max)d terms at a time.") % {"max": MAX_TERMS})
    # A chain or a rhyme fills a slot of a card like a term ("Two special tasks appear now
    # and then in all 6 areas"), so six lines of any kind fill a card.
    if len(terms) < len(SLOTS):
        raise TermListError(
            _(
                "Give at least 6 different terms (chains and rhymes count too): a card holds six, "
                "one for each area A–F."
            )
        )
    if not any(t.kind == "term" for t in terms):
        raise TermListError(
            _("Give at least one term to present: chains and rhymes alone are no game of Activity.")
        )
    return terms, repeats


def _layout(terms: list[ParsedTerm]) -> tuple[list[dict[str, ParsedTerm]], int]:
    """Terms placed on cards, slot by slot; and how many slots repeat a term of the list."""
    by_form: dict[str, list[ParsedTerm]] = {"draw": [], "describe": [], "mime": []}
    free: list[ParsedTerm] = []
    for term in terms:
        (by_form[term.form] if term.form else free).append(term)
    count = max(
        math.ceil(len(terms) / len(SLOTS)), *(math.ceil(len(group) / 2) for group in by_form.values())
    )
    cards: list[dict[str, ParsedTerm]] = [{} for _ in range(count)]
    for form, group in by_form.items():
        slots = [s for s in SLOTS if SLOT_FORMS[s] == form]
        for index, term in enumerate(group):
            cards[index // 2][slots[index % 2]] = term
    queue = iter(free)
    for card in cards:
        for slot in SLOTS:
            if slot not in card:
                term = next(queue, None)
                if term is None:
                    break
                card[slot] = term
    # Slots still empty take plain terms again: a term of the slot's form (or free) first,
    # then a chain or a rhyme (a list of few terms and many special tasks), then any plain
    # term; six different lines (``activity_terms_parse``) always fill a card.
    plain = [t for t in terms if t.kind == "term"]
    special = [t for t in terms if t.kind != "term"]
    repeated = 0
    for card in cards:
        for slot in SLOTS:
            if slot in card:
                continue
            on_card = {t.text for t in card.values()}
            fitting = [t for t in plain if t.text not in on_card and t.form in (None, SLOT_FORMS[slot])]
            tasks = [t for t in special if t.text not in on_card]
            choices = fitting or tasks or [t for t in plain if t.text not in on_card]
            card[slot] = choices[repeated % len(choices)]
            repeated += 1
    return cards, repeated


def _tag_for(owner: Any, name: str) -> Tag:
    """The list's tag: its name as a slug, made the teacher's own if others use it already."""
    base = slugify(name)[:40] or "terms"
    tag = tags_for(slugs=[base])[0]
    foreign = ActivityCard.objects.filter(tags=tag).exclude(owner=owner).exists()
    if not foreign:
        return tag
    own = f"{base}-{slugify(owner.get_username())}"[:50]
    return tags_for(slugs=[own])[0]


@transaction.atomic
def activity_cards_from_terms(
    *,
    owner: Any,
    name: str,
    text: str,
    language: str = "pl",
    default_points: int = 4,
    publish: bool = False,
) -> CardsMade:
    """Cards owned by ``owner`` from the term list ``text``, tagged with ``name``.

    Drafts unless ``publish``: the teacher's own cards, visible to them alone until shared.
    Raises :class:`TermListError` (nothing is written) when the list cannot make cards.
    """
    if not getattr(owner, "can_author", False):
        raise TermListError(_("Only teachers make Activity cards."))
    name = " ".join((name or "").split())
    if not name:
        raise TermListError(_("Name the list: its name becomes the tag the game is dealt by."))
    terms, repeats = activity_terms_parse(text, default_points=default_points)
    layout, repeated = _layout(terms)
    tag = _tag_for(owner, name)
    cards = []
    for number, slots in enumerate(layout, start=1):
        card = activity_card_create(
            owner=owner,
            data={
                "title": f"{name} {number}/{len(layout)}"[:120],
                "language": language,
                "status": Status.PUBLISHED if publish else Status.DRAFT,
                "tags": [tag],
            },
            terms=[
                {"slot": slot, "kind": term.kind, "text": term.text, "points": term.points}
                for slot, term in sorted(slots.items())
            ],
        )
        cards.append(card)
    return CardsMade(cards=cards, tag=tag, terms=len(terms), repeated=repeated, duplicates=repeats)


# --- reading: the cards a game may be dealt from ------------------------------------------------


def activity_cards_playable(
    user: Any, *, language: str = "", tags: list[str] | None = None, only_mine: bool = False
) -> QuerySet[ActivityCard]:
    """The complete cards (six slots) ``user`` may play with, filtered by language and tags
    (a card with any of the tags)."""
    queryset = content_visible_to(user, ActivityCard.objects.all())
    queryset = queryset.annotate(slot_count=Count("terms", distinct=True)).filter(slot_count=len(SLOTS))
    if language:
        queryset = queryset.filter(language=language)
    if tags:
        queryset = queryset.filter(tags__slug__in=tags)
    if only_mine:
        queryset = queryset.filter(Q(owner=user) | Q(editors=user))
    return queryset.distinct().order_by("id")


def activity_tags_playable(user: Any) -> list[str]:
    """The tags of the Activity cards ``user`` may play with, for the setup page's filter."""
    cards = content_visible_to(user, ActivityCard.objects.all())
    return list(
        Tag.objects.filter(pk__in=cards.values("tags")).order_by("slug").values_list("slug", flat=True)
    )


def activity_cards_for_game(cards: QuerySet[ActivityCard]) -> list[dict[str, Any]]:
    """The cards as the engine's setup reads them (``games.engines.activity``), a snapshot:
    later edits of a card do not change a game that was dealt from it."""
    rows = []
    for card in cards.prefetch_related("terms"):
        terms = [
            {"slot": t.slot, "kind": t.kind, "text": t.text, "points": t.points if t.kind == "term" else None}
            for t in sorted(card.terms.all(), key=lambda t: t.slot)
        ]
        rows.append({"id": f"card-{card.pk}", "terms": terms})
    return rows
