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

from django.db.models import Prefetch, Q, QuerySet

from content.models import (
    KnowledgeQuestion,
    KnowQuestion,
    Period,
    QuizQuestion,
    QuizQuestionOption,
    Status,
    Symbol,
    Theme,
)
from content.permissions import content_visible_to, teaching_rows
from games.engines import know as know_engine
from games.engines import quiz as engine
from games.engines.base import rng_for
from games.models import GameSession, NamingRecord, Participant

from .models import Quiz, QuizAttempt, QuizItem, QuizResponse

#: The keys progress knows (``lms.progress``): only these are reported to it.
PROGRESS_KEY = re.compile(r"^(symbol|knowledge|know|question):\d+$")

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
        questions=tuple(
            engine.QuestionEntry(
                **{
                    **e,
                    "options": tuple(engine.OptionEntry(**option) for option in e.get("options", [])),
                }
            )
            for e in data.get("questions", [])
        ),
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
            date=symbol.date,
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


def know_entries(questions: Iterable[KnowQuestion]) -> list[engine.KnowEntry]:
    """Know questions of the question bank, keyed ``know:<pk>`` for progress, with their
    accepted answers (none: every typed answer waits for the teacher's mark)."""
    return [
        engine.KnowEntry(
            key=f"know:{question.pk}",
            question=question.text,
            best_answers=tuple(str(a) for a in (question.answers or []) if str(a).strip()),
        )
        for question in questions
    ]


def questions_with_options(queryset: QuerySet[QuizQuestion]) -> QuerySet[QuizQuestion]:
    return queryset.prefetch_related(
        Prefetch("options", queryset=QuizQuestionOption.objects.order_by("position", "pk"))
    ).order_by("pk")


def question_entries(
    questions: Iterable[QuizQuestion], weights: dict[int, float] | None = None
) -> list[engine.QuestionEntry]:
    """Teacher-written questions, keyed ``question:<pk>`` for progress; their pictures by
    stored name (only the answer key holds them)."""
    weights = weights or {}
    return [
        engine.QuestionEntry(
            key=f"question:{question.pk}",
            kind=question.kind,
            text=question.text,
            options=tuple(
                engine.OptionEntry(
                    text=option.text,
                    picture=option.picture.name or "",
                    correct=option.correct,
                    date=option.date,
                    match=option.match,
                )
                for option in question.options.all()
            ),
            picture=question.picture.name or "",
            explanation=question.explanation,
            weight=weights.get(question.pk, 1.0),
        )
        for question in questions
    ]


def questions_usable_by(user: Any) -> QuerySet[QuizQuestion]:
    """The quiz questions a teacher may put in a quiz: their own and the published ones
    they may see (``content_visible_to``)."""
    visible = content_visible_to(user, QuizQuestion.objects.all())
    return visible.filter(Q(owner=user) | Q(status=Status.PUBLISHED)).order_by("-created", "pk")


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
    questions: Iterable[engine.QuestionEntry] = (),
) -> engine.Pool:
    entries = symbol_entries(symbols, weights)
    periods, themes = _labels(entries)
    return engine.Pool(
        symbols=tuple(entries),
        knowledge=tuple(knowledge),
        know=tuple(know),
        periods=periods,
        themes=themes,
        questions=tuple(questions),
    )


def pool_from_symbols(
    *,
    user: Any,
    queryset: QuerySet[Symbol],
    with_knowledge: bool = False,
    questions: Iterable[QuizQuestion] = (),
) -> engine.Pool:
    """The symbols of ``queryset`` that ``user`` may see (and, if asked, the published
    Knowledge? questions they may see, and the chosen quiz questions among those they may
    use: every one of those is asked)."""
    symbols = symbols_with_relations(content_visible_to(user, queryset))
    knowledge: list[engine.KnowledgeEntry] = []
    if with_knowledge:
        library = content_visible_to(user, KnowledgeQuestion.objects.filter(status=Status.PUBLISHED))
        knowledge = knowledge_entries(library.order_by("pk"))
    chosen = [question.pk for question in questions]
    written = questions_with_options(questions_usable_by(user).filter(pk__in=chosen)) if chosen else []
    return pool_build(symbols=symbols, knowledge=knowledge, questions=question_entries(written))


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


#: A card of a session built from the library (``games.play.knowledge.services``) has the
#: id ``q<KnowledgeQuestion pk>``.
LIBRARY_CARD_ID = re.compile(r"^q(\d+)$")


def _knowledge_cards_drawn(session: GameSession) -> list[engine.KnowledgeEntry]:
    """The Knowledge? cards drawn in the game, each tied to its library question.

    A card of a game built from the library carries the question's pk in its id
    (``q<pk>``); a card without one (a game set up by hand) is tied to the library
    question whose front is exactly the card's front, if there is one. A card the
    library does not hold (any more) is asked all the same; progress only follows the
    library's questions.
    """
    state = session.state or {}
    cards = {str(card.get("id")): card for card in state.get("cards", []) if isinstance(card, dict)}
    drawn = [
        cards[str(card_id)]
        for card_id in state.get("order", [])[: int(state.get("drawn", 0))]
        if str(card_id) in cards
    ]
    by_id = {
        int(match.group(1)): card
        for card in drawn
        if (match := LIBRARY_CARD_ID.fullmatch(str(card.get("id") or "")))
    }
    library = set(KnowledgeQuestion.objects.filter(pk__in=list(by_id)).values_list("pk", flat=True))
    linked = {id(card): pk for pk, card in by_id.items() if pk in library}
    fronts = [str(card.get("front") or "") for card in drawn if id(card) not in linked]
    by_front: dict[str, int] = {}
    # The oldest question with that very front wins (ties are rare: fronts are the question).
    for pk, front in (
        KnowledgeQuestion.objects.filter(front__in=[f for f in fronts if f])
        .order_by("-pk")
        .values_list("pk", "front")
    ):
        by_front[front] = pk
    entries = []
    for card in drawn:
        front = str(card.get("front") or "")
        library_pk = linked.get(id(card)) or (by_front.get(front) if front else None)
        answer = card.get("answer")
        entries.append(
            engine.KnowledgeEntry(
                key=f"knowledge:{library_pk}" if library_pk else f"card:{session.pk}:{card.get('id')}",
                category=str(card.get("category") or ""),
                front=front,
                answer=answer if isinstance(answer, int) else tuple(answer or ()),
                back=str(card.get("back") or ""),
            )
        )
    return entries


def know_best_answers(session: GameSession) -> dict[int, list[str]]:
    """Per Question Number: the answers marked best, from the closed rounds only.

    Know rulebook, Resolution: the facilitator (or the question's team) names the best
    answers; with re-marking (``games.engines.know``) a round's marks count only once the
    facilitator closes the round (``RESOLVED``), so a round still being marked gives nothing.
    """
    if not session.state:
        return {}
    state = know_engine.state_from_dict(session.state)
    best: dict[int, list[str]] = {}
    for deck in state.rounds:
        if deck.status != know_engine.RESOLVED:
            continue
        texts = {answer.id: answer.text for answer in deck.answers if answer.id}
        for mark in deck.marks:
            answers = [texts[a] for a in mark.best_answers if a in texts]
            best[mark.question_number] = list(dict.fromkeys(answers))
    return best


def _know_questions_marked(session: GameSession) -> list[engine.KnowEntry]:
    """The Know questions marked in the game's closed rounds, each tied to its question-bank
    row (``content.KnowQuestion``, kept from this game) and keyed ``know:<pk>`` for progress.

    The bank row's text and accepted answers win (the teacher may have edited them); a
    question not kept yet (``services.quiz_create_from_session`` keeps them first) is asked
    from the game and keyed by the game, so progress leaves it out.
    """
    best = know_best_answers(session)
    if not best:
        return []
    state = know_engine.state_from_dict(session.state or {})
    texts = {card.number: card.text for card in state.questions}
    kept = {
        row.question_number: row
        for row in KnowQuestion.objects.filter(created_from=session, question_number__in=list(best))
    }
    entries = []
    for number in sorted(best):
        row = kept.get(number)
        if row is not None:
            answers = [str(a) for a in (row.answers or []) if str(a).strip()] or best[number]
            entries.append(
                engine.KnowEntry(key=f"know:{row.pk}", question=row.text, best_answers=tuple(answers))
            )
        elif text := texts.get(number):
            entries.append(
                engine.KnowEntry(
                    key=f"know-game:{session.pk}:{number}",
                    question=text,
                    best_answers=tuple(best[number]),
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


#: The games whose play leaves something a quiz can ask about (``pool_from_session``): the
#: symbols of ZnajZnak, the cards of Knowledge?, the marked questions of Know.
FOLLOWUP_GAMES = ("znajznak", "knowledge", "know")


def followup_unavailable(session: GameSession) -> str:
    """Why no follow-up quiz can be built from ``session``'s game; empty when one can.

    Activity's cards hold terms to explain, draw or mime: nothing of them is a symbol, a
    card with an answer or a question with marked answers, so its pool would be empty.
    """
    from django.utils.translation import gettext as _

    if session.game in FOLLOWUP_GAMES:
        return ""
    return _(
        "%(game)s makes no follow-up quiz: its cards hold terms to explain, not the symbols, "
        "cards or questions a quiz asks about. Build a quiz from a symbol set, a theme or a period instead."
    ) % {"game": session.get_game_display()}


# --- a game's quizzes per student ----------------------------------------------------------------


def session_students(session: GameSession) -> QuerySet[Any]:
    """The signed-in students who played ``session`` (players, not guests or spectators)."""
    from django.contrib.auth import get_user_model

    player_ids = Participant.objects.filter(
        session=session, role=Participant.Role.PLAYER, user__isnull=False
    ).values_list("user_id", flat=True)
    return (
        get_user_model()
        .objects.filter(pk__in=player_ids)
        .exclude(pk=session.facilitator_id)
        .order_by("last_name", "first_name", "username")
    )


def session_quizzes(session: GameSession, user: Any) -> QuerySet[Quiz]:
    """The follow-up quizzes made of ``session`` that ``user`` sees (``quizzes_of``): one for
    the class first, then the per-student ones by student."""
    return (
        quizzes_of(user)
        .filter(session=session)
        .select_related("student")
        .order_by("student__last_name", "student__first_name", "student__username", "-created")
    )


def batch_progress(quizzes: Iterable[Quiz]) -> dict[str, Any]:
    """How far the building of a set of quizzes is: done, failed, still working, and the
    mean progress in percent (a queued quiz counts 0, a built or failed one 100)."""
    rows = list(quizzes)
    working = [q for q in rows if q.state in ("queued", "running")]
    return {
        "total": len(rows),
        "done": sum(1 for q in rows if q.state == "done"),
        "failed": sum(1 for q in rows if q.state == "failed"),
        "working": len(working),
        "progress": round(sum(100 if q.state in ("done", "failed") else q.progress for q in rows) / len(rows))
        if rows
        else 100,
    }


def replace_kinds(quiz: Quiz) -> list[tuple[str, bool, bool]]:
    """Per item kind: (kind, a replacement of that kind can be made now, the pool makes
    that kind at all).

    A replacement asks about a subject no item of the quiz asks about and the teacher has
    not set aside (``services.quiz_item_replace``), whichever item is replaced, so one dry
    run per kind, with the very generator the replacement would use, answers for every item.
    """
    pool = pool_from_dict(quiz.pool)
    used = set((quiz.options or {}).get("set_aside", []))
    for item in quiz.items.all():
        used |= set(item.as_engine_item().subjects)
    replacements = (quiz.options or {}).get("replacements", 0) + 1
    kinds = []
    for kind in engine.KINDS:
        possible = engine.item_new(pool, kind, rng_for(quiz.seed, "replace", replacements), set(used))
        made_at_all = possible is not None or (
            engine.item_new(pool, kind, rng_for(quiz.seed, "replace", replacements), set()) is not None
        )
        kinds.append((kind, possible is not None, made_at_all))
    return kinds


# --- who sees what ------------------------------------------------------------------------------


def quizzes_of(user: Any) -> QuerySet[Quiz]:
    """The quizzes a teacher made, and those of the owners of the classes they co-teach;
    nobody else's."""
    if not getattr(user, "is_authenticated", False):
        return Quiz.objects.none()
    return teaching_rows(user, Quiz.objects.all())


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
