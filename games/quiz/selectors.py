"""Reads for quizzes: the item pools built from content and played games, and who sees what.

A pool (``games.engines.quiz.Pool``) is plain data; :func:`pool_to_dict` and
:func:`pool_from_dict` keep it on ``Quiz.pool`` so a later replacement item comes from
the same content the quiz was generated from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from django.db.models import Prefetch, QuerySet

from content.models import KnowledgeQuestion, Period, Status, Symbol, Theme
from content.permissions import content_visible_to
from games.engines import engine_for
from games.engines import quiz as engine
from games.models import GameSession, NamingRecord

from .models import Quiz, QuizAttempt, QuizItem, QuizResponse

#: The keys progress knows (``lms.progress``): only these are reported to it.
PROGRESS_KEY = re.compile(r"^(symbol|knowledge|know):\d+$")

#: Weights of the symbols of a finished ZnajZnak game: named wrongly (or "I don't know")
#: weighs most, named rightly a little more than only dealt.
WEIGHT_WRONG = 3.0
WEIGHT_SEEN = 1.5
WEIGHT_DEALT = 1.0


def pool_to_dict(pool: engine.Pool) -> dict[str, Any]:
    return asdict(pool)


def pool_from_dict(data: dict[str, Any]) -> engine.Pool:
    def tuples(entry: dict[str, Any], *names: str) -> dict[str, Any]:
        return {k: (tuple(v) if k in names and isinstance(v, list) else v) for k, v in entry.items()}

    return engine.Pool(
        symbols=tuple(
            engine.SymbolEntry(**tuples(e, "alternatives", "periods", "themes"))
            for e in data.get("symbols", [])
        ),
        knowledge=tuple(engine.KnowledgeEntry(**tuples(e, "answer")) for e in data.get("knowledge", [])),
        know=tuple(engine.KnowEntry(**tuples(e, "best_answers")) for e in data.get("know", [])),
        periods=tuple(engine.Label(**e) for e in data.get("periods", [])),
        themes=tuple(engine.Label(**e) for e in data.get("themes", [])),
    )


def symbols_with_relations(queryset: QuerySet[Symbol]) -> QuerySet[Symbol]:
    return queryset.prefetch_related(
        Prefetch("periods", queryset=Period.objects.order_by("position")), "themes"
    ).order_by("pk")


def symbol_entries(
    symbols: Iterable[Symbol], weights: dict[int, float] | None = None
) -> list[engine.SymbolEntry]:
    weights = weights or {}
    return [
        engine.SymbolEntry(
            key=f"symbol:{symbol.pk}",
            name=symbol.name,
            alternatives=tuple(symbol.alternative_name_list),
            periods=tuple(period.slug for period in symbol.periods.all()),
            themes=tuple(theme.slug for theme in symbol.themes.all()),
            description=symbol.description,
            outline=symbol.outline,
            picture=symbol.picture.name or "",
            weight=weights.get(symbol.pk, WEIGHT_DEALT),
        )
        for symbol in symbols
    ]


def knowledge_entries(questions: Iterable[KnowledgeQuestion]) -> list[engine.KnowledgeEntry]:
    return [
        engine.KnowledgeEntry(
            key=f"knowledge:{question.pk}",
            category=question.category,
            front=question.front,
            answer=question.answer if isinstance(question.answer, int) else tuple(question.answer),
            back=question.back,
        )
        for question in questions
    ]


def _labels(symbols: list[engine.SymbolEntry]) -> tuple[tuple[engine.Label, ...], tuple[engine.Label, ...]]:
    periods = tuple(
        engine.Label(p.slug, f"{p.name} ({p.years})") for p in Period.objects.order_by("position", "pk")
    )
    used_themes = {theme for entry in symbols for theme in entry.themes}
    themes = tuple(
        engine.Label(t.slug, t.name)
        for t in Theme.objects.filter(slug__in=used_themes).order_by("name", "pk")
    )
    return periods, themes


def pool_build(
    *,
    symbols: Iterable[Symbol] = (),
    weights: dict[int, float] | None = None,
    knowledge: Iterable[engine.KnowledgeEntry] = (),
    know: Iterable[engine.KnowEntry] = (),
) -> engine.Pool:
    entries = symbol_entries(symbols, weights)
    periods, themes = _labels(entries)
    return engine.Pool(
        symbols=tuple(entries), knowledge=tuple(knowledge), know=tuple(know), periods=periods, themes=themes
    )


def pool_from_symbols(*, user: Any, queryset: QuerySet[Symbol], with_knowledge: bool = False) -> engine.Pool:
    """The symbols of ``queryset`` that ``user`` may see (and, if asked, the published
    Knowledge? questions they may see)."""
    symbols = symbols_with_relations(content_visible_to(user, queryset))
    knowledge: list[engine.KnowledgeEntry] = []
    if with_knowledge:
        questions = content_visible_to(user, KnowledgeQuestion.objects.filter(status=Status.PUBLISHED))
        knowledge = knowledge_entries(questions.order_by("pk"))
    return pool_build(symbols=symbols, knowledge=knowledge)


def session_weights(session: GameSession, student: Any = None) -> dict[int, float]:
    """Per symbol pk: named wrongly in this game (by ``student``, or anyone) weighs most."""
    namings = NamingRecord.objects.filter(session=session, symbol__isnull=False)
    if student is not None:
        namings = namings.filter(user=student)
    weights: dict[int, float] = {}
    for symbol_id, correct in namings.values_list("symbol_id", "correct"):
        wanted = WEIGHT_SEEN if correct else WEIGHT_WRONG
        weights[symbol_id] = max(weights.get(symbol_id, WEIGHT_DEALT), wanted)
    return weights


def _knowledge_cards_drawn(session: GameSession) -> list[engine.KnowledgeEntry]:
    """The Knowledge? cards drawn in the game, linked to the library's questions by their front."""
    state = session.state or {}
    cards = {str(card.get("id")): card for card in state.get("cards", []) if isinstance(card, dict)}
    drawn = [
        cards[str(card_id)]
        for card_id in state.get("order", [])[: int(state.get("drawn", 0))]
        if str(card_id) in cards
    ]
    fronts = [str(card.get("front") or "") for card in drawn]
    known = {
        question.front: question
        for question in KnowledgeQuestion.objects.filter(front__in=[f for f in fronts if f]).order_by("-pk")
    }
    entries = []
    for card in drawn:
        question = known.get(str(card.get("front") or ""))
        answer = card.get("answer")
        entries.append(
            engine.KnowledgeEntry(
                # A card the library does not hold (any more) is asked all the same; progress
                # only follows the library's questions.
                key=f"knowledge:{question.pk}" if question else f"card:{session.pk}:{card.get('id')}",
                category=str(card.get("category") or ""),
                front=str(card.get("front") or ""),
                answer=answer if isinstance(answer, int) else tuple(answer or ()),
                back=str(card.get("back") or ""),
            )
        )
    return entries


def _know_questions_marked(session: GameSession) -> list[engine.KnowEntry]:
    """The Know questions of the game that were marked, with the answers marked best.

    Know rulebook, marking: the facilitator (or the question's team) names the best
    answers. Know has no question bank in the library yet, so these items are keyed by
    the game and question number and are not reported to progress.
    """
    if not session.state:
        return []
    state = engine_for("know").state_from_dict(session.state)
    entries = []
    for deck in state.rounds:
        answers = {answer.id: answer.text for answer in deck.answers if answer.id}
        for mark in deck.marks:
            question = state.questions[mark.question_number - 1]
            if not question.text:
                continue
            entries.append(
                engine.KnowEntry(
                    key=f"know-game:{session.pk}:{mark.question_number}",
                    question=question.text,
                    best_answers=tuple(answers[a] for a in mark.best_answers if a in answers),
                )
            )
    return entries


def pool_from_session(session: GameSession, *, student: Any = None) -> engine.Pool:
    """What was played: the symbols that came up (weighted), the cards drawn, the questions marked."""
    symbol_ids = [pk for pk in (session.assets or {}).get("symbols", {}).values() if isinstance(pk, int)]
    symbols = symbols_with_relations(Symbol.objects.filter(pk__in=symbol_ids)) if symbol_ids else []
    knowledge = _knowledge_cards_drawn(session) if session.game == "knowledge" else []
    know = _know_questions_marked(session) if session.game == "know" else []
    return pool_build(
        symbols=symbols, weights=session_weights(session, student), knowledge=knowledge, know=know
    )


# --- who sees what ------------------------------------------------------------------------------


def quizzes_of(user: Any) -> QuerySet[Quiz]:
    """The quizzes a teacher made; nobody else's."""
    if not getattr(user, "is_authenticated", False):
        return Quiz.objects.none()
    return Quiz.objects.filter(owner=user)


def quiz_items(quiz: Quiz) -> QuerySet[QuizItem]:
    return quiz.items.order_by("position")


def attempt_of(user: Any, pk: int) -> QuizAttempt | None:
    """The attempt if it is ``user``'s own."""
    if not getattr(user, "is_authenticated", False):
        return None
    return QuizAttempt.objects.select_related("quiz").filter(pk=pk, student=user).first()


def attempt_open_for(*, quiz: Quiz, student: Any) -> QuizAttempt | None:
    return QuizAttempt.objects.filter(
        quiz=quiz, student=student, status=QuizAttempt.Status.IN_PROGRESS
    ).first()


def attempt_responses(attempt: QuizAttempt) -> dict[int, QuizResponse]:
    return {response.item_id: response for response in attempt.responses.all()}


def responses_to_mark(quiz: Quiz) -> QuerySet[QuizResponse]:
    return (
        QuizResponse.objects.filter(attempt__quiz=quiz, needs_marking=True, teacher_mark__isnull=True)
        .select_related("attempt__student", "item")
        .order_by("item__position", "attempt__student__username")
    )


def progress_key(subject: str) -> bool:
    return bool(PROGRESS_KEY.fullmatch(subject))
