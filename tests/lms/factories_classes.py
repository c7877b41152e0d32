"""Factories and helpers for classes, homework and practice duels played to the end."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import factory
from django.utils import timezone

from games import services as game_services
from games.engines import znajznak
from games.models import GameSession, PracticeRun
from lms.classes import services
from lms.models import Assignment, ClassMember, SchoolClass, Submission
from tests.factories import TeacherFactory, UserFactory
from tests.games.test_practice import small_deck


class SchoolClassFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SchoolClass

    name = factory.Sequence(lambda n: f"Klasa {n}")
    teacher = factory.SubFactory(TeacherFactory)
    join_code = factory.Sequence(lambda n: f"C{n:05d}"[-6:])


def class_with_students(teacher: Any, *students: Any, name: str = "3b") -> SchoolClass:
    school_class = services.class_create(teacher=teacher, name=name)
    for student in students:
        services.class_join(code=school_class.join_code, student=student)
    return school_class


def practice_homework(school_class: SchoolClass, **fields: Any) -> Assignment:
    """A published ZnajZnak practice duel against the clock, 5 cards each, from a 13-card deck."""
    teacher = school_class.teacher
    options = {"deck": small_deck(teacher).pk, "mode": "clock", "cards_per_player": 5}
    options.update(fields.pop("game_options", {}))
    values: dict[str, Any] = {
        "title": "Ćwiczenie z symboli",
        "kind": Assignment.Kind.GAME,
        "game": Assignment.Game.ZNAJZNAK_PRACTICE,
        "game_options": options,
        "max_attempts": 3,
        "points_possible": 10,
        "publish": True,
    }
    values.update(fields)
    return services.assignment_create(school_class=school_class, by=teacher, **values)


def _state(session: GameSession) -> Any:
    session.refresh_from_db()
    return znajznak.state_from_dict(session.state)


def practice_play(submission: Submission, *, wrong: int = 0, finish: bool = True) -> PracticeRun:
    """Play the student's practice duel: ``wrong`` "I don't know"s first, then right names.

    With ``finish`` the student plays to the last card (the clock never plays); without,
    they stop after the first right name, leaving the game in progress.
    """
    run = submission.practice_run
    assert run is not None
    session = run.session
    wrong_left = wrong
    for _turn in range(60):
        state = _state(session)
        if session.status == GameSession.Status.FINISHED:
            break
        symbol = znajznak.common_symbol(state, "p1")
        game_services.session_apply_action(
            session_id=session.pk, player_id="p1", action={"type": "stop", "symbol": symbol}
        )
        session.refresh_from_db()
        if session.status == GameSession.Status.FINISHED:
            break
        if wrong_left:
            action = {"type": "dont_know"}
            wrong_left -= 1
        else:
            action = {"type": "name", "text": f"Symbol numer {int(symbol)}"}
        game_services.session_apply_action(session_id=session.pk, player_id="p1", action=action)
        if not finish and not wrong_left:
            break
    run.refresh_from_db()
    return run


def students(n: int) -> list[Any]:
    return [UserFactory(first_name=f"Uczeń{i}") for i in range(n)]


def member_roles(school_class: SchoolClass) -> dict[str, str]:
    return {
        m.user.username: m.role
        for m in ClassMember.objects.filter(school_class=school_class).select_related("user")
    }


def soon(minutes: int = 0, days: int = 0) -> Any:
    return timezone.now() + timedelta(minutes=minutes, days=days)


# --- quizzes ---------------------------------------------------------------------------------------

_quiz_codes = iter(range(10000, 99999))


def knowledge_quiz(owner: Any, answers: tuple[int, ...] = (3, 1, 4, 2), *, know: str | None = None) -> Any:
    """A published quiz of Knowledge? number questions (each worth 1), and a typed Know question if ``know``."""
    from games.quiz.models import Quiz, QuizItem

    quiz = Quiz.objects.create(
        title="Quiz o II RP",
        owner=owner,
        source=Quiz.Source.SELECTION,
        seed=1,
        status=Quiz.Status.PUBLISHED,
        state="done",
        code=f"Q{next(_quiz_codes)}",
        published_at=timezone.now(),
    )
    for position, answer in enumerate(answers, start=1):
        QuizItem.objects.create(
            quiz=quiz,
            position=position,
            kind="knowledge",
            prompt={
                "category": "number",
                "text": f"Ile? ({position})",
                "options": [str(n) for n in range(6)],
            },
            key={"subjects": [], "answer": [str(answer)], "back": ""},
        )
    if know is not None:
        QuizItem.objects.create(
            quiz=quiz,
            position=len(answers) + 1,
            kind="know",
            prompt={"text": "Kto?"},
            key={"subjects": [], "best_answers": [know]},
        )
    return quiz


def quiz_answer(submission: Submission, right: int, *, know_text: str | None = None) -> Any:
    """Hand in the submission's quiz attempt with the first ``right`` items right, the rest wrong."""
    from games.quiz import services as quiz_services

    attempt = submission.quiz_attempt
    answers: dict[int, Any] = {}
    for index, item in enumerate(attempt.quiz.items.order_by("position")):
        if item.kind == "know":
            answers[item.pk] = {"text": know_text or ""}
            continue
        good = item.key["answer"][0]
        answers[item.pk] = {"choice": good if index < right else str((int(good) + 1) % 6)}
    return quiz_services.attempt_submit(attempt=attempt, answers=answers)


def quiz_homework(school_class: SchoolClass, quiz: Any, **fields: Any) -> Assignment:
    values: dict[str, Any] = {
        "title": "Quiz po grze",
        "kind": Assignment.Kind.QUIZ,
        "quiz": quiz,
        "max_attempts": 2,
        "points_possible": 20,
        "publish": True,
    }
    values.update(fields)
    return services.assignment_create(school_class=school_class, by=school_class.teacher, **values)
