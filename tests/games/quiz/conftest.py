"""Fixtures of the quiz tests: symbols with pictures, periods and themes; a built quiz."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from PIL import Image

from content.models import Period
from games import signals
from games.quiz import selectors, services
from games.quiz.models import Quiz
from tests.factories import (
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    ThemeFactory,
    symbol_set_with,
)

NAMES = [
    "Orzeł Biały",
    "Kotwica",
    "Szare Szeregi",
    "Biało-Czerwona",
    "Krzyż Virtuti Militari",
    "Order Orła Białego",
    "Solidarność",
    "Tarcza Warszawy",
    "Zegar Zygmunta",
    "Syrenka warszawska",
    "Mały Powstaniec",
    "Kopiec Piłsudskiego",
    "Ryngraf",
    "Lilijka harcerska",
    "Znak Polski Podziemnej",
    "Krzyż Walecznych",
    "Gwiazda Wytrwałych",
    "Stocznia Gdańska",
    "Dzwon Zygmunta",
    "Pomnik Poległych Stoczniowców",
    "Sierp i młot",
    "Kosynier",
    "Bursztyn",
    "Polonez",
]


def png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def periods(db) -> dict[str, Period]:
    return {p.slug: p for p in Period.objects.all()}


@pytest.fixture
def symbols(periods) -> list[Any]:
    """Twenty-four published symbols with pictures, spread over the periods and three themes,
    written by one curator (not the ``teacher`` of the tests)."""
    curator = TeacherFactory()
    themes = [
        ThemeFactory(slug=s, name=n)
        for s, n in (("ludzie", "Ludzie"), ("miejsca", "Miejsca"), ("znaki", "Znaki"))
    ]
    period_list = list(periods.values())
    made = []
    for index, name in enumerate(NAMES, start=1):
        symbol = SymbolFactory(
            owner=curator,
            number=index,
            name=name,
            periods=[period_list[index % len(period_list)]],
            description=f"{name} to symbol numer {index} w tej kolekcji.",
            outline=f"Historia znaku numer {index}: powstał dawno.",
        )
        symbol.themes.set([themes[(index // 3) % 3]])
        symbol.picture.save(f"pic-{index}.png", ContentFile(png((index * 9, 40, 200 - index * 5))), save=True)
        made.append(symbol)
    return made


@pytest.fixture
def knowledge_questions(db) -> list[Any]:
    return [
        KnowledgeQuestionFactory(category="number", front="Ile lat trwała II RP? (w dziesiątkach)", answer=2),
        KnowledgeQuestionFactory(category="letter", front="Która litera?", answer=["C", "D"]),
        KnowledgeQuestionFactory(category="colour", front="Jaki kolor ma flaga na górze?", answer=["white"]),
    ]


@pytest.fixture
def symbol_set(symbols, teacher):
    return symbol_set_with(symbols, owner=teacher)


def build(
    teacher, symbols, *, total: int = 12, counts=None, seed: int = 11, with_knowledge: bool = False
) -> Quiz:
    from content.models import Symbol

    pool = selectors.pool_from_symbols(
        user=teacher,
        queryset=Symbol.objects.filter(pk__in=[s.pk for s in symbols]),
        with_knowledge=with_knowledge,
    )
    quiz = services.quiz_create(
        owner=teacher,
        title="Test quiz",
        source=Quiz.Source.SELECTION,
        pool=pool,
        total=total,
        counts=counts,
        seed=seed,
    )
    quiz.refresh_from_db()
    return quiz


@pytest.fixture
def built_quiz(teacher, symbols, knowledge_questions, django_capture_on_commit_callbacks) -> Quiz:
    with django_capture_on_commit_callbacks(execute=True):
        quiz = build(teacher, symbols, total=14, with_knowledge=True)
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    return quiz


@pytest.fixture
def published_quiz(built_quiz, teacher) -> Quiz:
    return services.quiz_publish(quiz=built_quiz, by=teacher)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviews() -> Iterator[list[dict[str, Any]]]:
    """Every answer the quiz reports to progress (``games.signals.item_answered``), as sent."""
    calls: list[dict[str, Any]] = []

    def record(sender: Any, **kwargs: Any) -> None:
        calls.append({key: kwargs[key] for key in ("user", "item_key", "correct", "reviewed_at")})

    signals.item_answered.connect(record, dispatch_uid="test.reviews")
    yield calls
    signals.item_answered.disconnect(dispatch_uid="test.reviews")


@pytest.fixture
def graded_reports() -> Iterator[list[Any]]:
    """Every attempt the quiz reports graded (``games.signals.quiz_attempt_graded``)."""
    calls: list[Any] = []

    def record(sender: Any, *, attempt: Any, **kwargs: Any) -> None:
        calls.append(attempt)

    signals.quiz_attempt_graded.connect(record, dispatch_uid="test.graded_reports")
    yield calls
    signals.quiz_attempt_graded.disconnect(dispatch_uid="test.graded_reports")


@pytest.fixture
def know_quiz(teacher, django_capture_on_commit_callbacks) -> Quiz:
    from games.engines.quiz import KnowEntry, Pool

    pool = Pool(
        know=(KnowEntry("know:7", "Kto dowodził?", ("Piłsudski",)), KnowEntry("know-game:1:2", "Gdzie?", ()))
    )
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create(
            owner=teacher, title="Know", source=Quiz.Source.SESSION, pool=pool, total=2
        )
    quiz.refresh_from_db()
    return services.quiz_publish(quiz=quiz, by=teacher)
