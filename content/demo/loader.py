"""Load the demo content; safe to run again (nothing is duplicated).

The demo users are people, so they live a layer up, in :mod:`lms.demo`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from django.db import transaction

from content import services
from content.models import (
    ActivityCard,
    Collection,
    KnowledgeQuestion,
    Period,
    QuizQuestion,
    QuizQuestionOption,
    Status,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
    Visibility,
)
from content.services import picture_file

from .placeholders import placeholder_svg

DATA = Path(__file__).parent / "data"
PORTAL_URL = "https://polska1918-89.pl/"

THEMES = {
    "ludzie": ("Ludzie", "Postacie historyczne."),
    "panstwo": ("Państwo", "Symbole i instytucje państwa."),
    "wojsko": ("Wojsko", "Wojsko i walka zbrojna."),
    "ii-wojna": ("Symbole II wojny światowej", "Symbole związane z II wojną światową."),
    "wydarzenia-prl": ("Wydarzenia w PRL", "Wydarzenia z lat 1944/45–1989."),
    "opozycja": ("Opozycja", "Opór wobec komunizmu i opozycja demokratyczna."),
    "kultura": ("Kultura i codzienność", "Kultura, sport i życie codzienne."),
    "gospodarka": ("Gospodarka", "Gospodarka, przemysł i technika."),
    "miejsca": ("Miejsca", "Miejsca i pomniki."),
}
COLLECTION = ("znajznak-1918-1989", "ZnajZnak 1918–1989 (demo)")
DEMO_SET = ("znajznak-demo-57", "ZnajZnak: 57 symboli (demo)")
#: The demo Activity decks, one file per language (Polish, English).
ACTIVITY_DECKS = ("activity_cards.json", "activity_cards_en.json")


def _read(name: str) -> list[dict[str, Any]]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


# The placeholders drawn before they became wordless carried this word; a picture that
# has it is an old placeholder, not a curator's upload, and may be replaced.
_OLD_PLACEHOLDER_MARK = b"PLACEHOLDER"


def _placeholder_refresh(symbol: Symbol) -> None:
    """Give a demo symbol the current placeholder picture, once.

    A symbol with no picture or with an old placeholder (which drew the symbol's
    initials and number) gets the current one; a symbol that already has it, or has a
    picture a curator uploaded, is left alone, so loading the demo again changes nothing.
    """
    # Stored as any upload is: checked and cleaned.
    picture = picture_file(placeholder_svg(symbol.number), f"{symbol.number:03d}.svg")
    wanted = picture.read()
    picture.seek(0)
    if symbol.picture:
        try:
            with symbol.picture.open("rb") as stored:
                current = stored.read()
        except OSError:  # the file is gone: draw it again
            current = b""
        if current == wanted or (current and _OLD_PLACEHOLDER_MARK not in current):
            return
        symbol.picture.delete(save=False)
    symbol.picture.save(picture.name, picture)


@transaction.atomic
def demo_content(owner: Any = None) -> dict[str, int]:
    """Themes, the demo collection and its symbols with placeholder pictures (the events
    among them dated), a 57-symbol set, Activity cards, Knowledge? questions and a few quiz
    questions (multiple choice, chronology, matching), all published."""
    for slug, (name, description) in THEMES.items():
        Theme.objects.get_or_create(slug=slug, defaults={"name": name, "description": description})
    collection, _ = Collection.objects.get_or_create(
        slug=COLLECTION[0], defaults={"name": COLLECTION[1], "description": "Demo content written for Talia."}
    )
    periods = {p.slug: p for p in Period.objects.all()}
    themes = {t.slug: t for t in Theme.objects.all()}

    # The rows share a few dozen tags, named about three hundred times: each is looked up once.
    tag = functools.cache(lambda slug: services.tags_for(slugs=[slug])[0])

    def _tags(slugs: list[str]) -> list[Tag]:
        return [tag(slug) for slug in slugs]

    stored = {symbol.number: symbol for symbol in Symbol.objects.filter(collection=collection)}
    symbols = []
    for row in _read("symbols.json"):
        symbol = stored.get(row["number"])
        if symbol is None:
            symbol = services.symbol_create(
                owner=owner,
                data={
                    "collection": collection,
                    "number": row["number"],
                    "name": row["name"],
                    "alternative_names": "\n".join(row.get("alternative_names", [])),
                    "description": row["description"],
                    "outline": row.get("outline", ""),
                    "portal_url": PORTAL_URL,
                    "date": row.get("date", ""),
                    "language": "pl",
                    "status": Status.PUBLISHED,
                    "periods": [periods[slug] for slug in row["periods"]],
                    "themes": [themes[slug] for slug in row["themes"]],
                },
            )
        elif row.get("date") and not symbol.date:
            # A tree loaded before symbols had dates gets them now; a curator's date stays.
            services.symbol_update(symbol=symbol, data={"date": row["date"]})
        _placeholder_refresh(symbol)
        symbols.append(symbol)

    if not SymbolSet.objects.filter(slug=DEMO_SET[0]).exists():
        services.symbol_set_create(
            owner=owner,
            data={
                "slug": DEMO_SET[0],
                "name": DEMO_SET[1],
                "visibility": Visibility.SHARED,
                "description": "The first 57 demo symbols: a ZnajZnak deck of order 7.",
            },
            symbol_ids=[symbol.pk for symbol in symbols[:57]],
        )

    for name in ACTIVITY_DECKS:
        rows = _read(name)
        # Each language's demo deck once: a tree loaded before English cards came gets them now.
        if ActivityCard.objects.filter(language=rows[0].get("language", "pl"), owner=owner).exists():
            continue
        for row in rows:
            services.activity_card_create(
                owner=owner,
                data={
                    "language": row.get("language", "pl"),
                    "status": Status.PUBLISHED,
                    "tags": _tags(row.get("tags", [])),
                },
                terms=row["slots"],
            )

    if not KnowledgeQuestion.objects.exists():
        for row in _read("knowledge_questions.json"):
            services.knowledge_question_create(
                owner=owner,
                data={
                    "category": row["category"],
                    "front": row["front"],
                    "back": row["back"],
                    "answer": row["answer"],
                    "source": row.get("source", ""),
                    "language": row.get("language", "pl"),
                    "status": Status.PUBLISHED,
                    "tags": _tags(row.get("tags", [])),
                },
            )

    if not QuizQuestion.objects.filter(owner=owner).exists():
        for row in _read("quiz_questions.json"):
            question = QuizQuestion.objects.create(
                kind=row["kind"],
                text=row["text"],
                explanation=row.get("explanation", ""),
                language="pl",
                status=Status.PUBLISHED,
                owner=owner,
            )
            question.tags.set(_tags(row.get("tags", [])))
            QuizQuestionOption.objects.bulk_create(
                QuizQuestionOption(
                    question=question,
                    position=position,
                    text=option.get("text", ""),
                    correct=option.get("correct", False),
                    date=option.get("date", ""),
                    match=option.get("match", ""),
                )
                for position, option in enumerate(row["options"])
            )

    return {
        "symbols": Symbol.objects.count(),
        "symbol_sets": SymbolSet.objects.count(),
        "activity_cards": ActivityCard.objects.count(),
        "knowledge_questions": KnowledgeQuestion.objects.count(),
        "quiz_questions": QuizQuestion.objects.count(),
    }
