"""Quiz services: generation (Celery), editing, publishing, attempts, grading, deadlines."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation

from games.models import GameSession, NamingRecord
from games.quiz import selectors, services
from games.quiz.models import Quiz, QuizAttempt, QuizItem, QuizResponse
from games.quiz.services import QuizError
from tests.factories import TeacherFactory, UserFactory

from .conftest import build


def right_answer(item: QuizItem) -> dict[str, Any]:
    key = item.key
    if item.kind in ("picture_name", "name_picture", "text_symbol", "period", "choice"):
        return {"choice": key["answer"]}
    if item.kind == "chronology":
        return {"order": key["answer"]}
    if item.kind == "matching":
        return {"pairs": key["answer"]}
    if item.kind == "picture_name_typed":
        return {"text": key["name"]}
    if item.kind == "periods":
        return {"choices": key["answer"]}
    if item.kind == "knowledge":
        return {"choice": key["answer"][0]}
    if item.kind == "know":
        return {"text": (key["best_answers"] or ["?"])[0]}
    return {"groups": key["answer"]}


# --- generation -----------------------------------------------------------------------------------


def test_generation_runs_in_the_task_enqueued_on_commit(teacher, symbols, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        quiz = build(teacher, symbols, total=10)
    assert quiz.state == "queued" and not quiz.items.exists()
    assert len(callbacks) == 1
    callbacks[0]()
    quiz.refresh_from_db()
    assert quiz.state == "done" and quiz.progress == 100
    assert quiz.items.count() == 10
    assert list(quiz.items.values_list("position", flat=True)) == list(range(1, 11))


def test_generation_is_the_same_for_the_same_seed(teacher, symbols, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        one = build(teacher, symbols, total=10, seed=5)
        two = build(teacher, symbols, total=10, seed=5)
    assert list(one.items.values_list("kind", "prompt", "key")) == list(
        two.items.values_list("kind", "prompt", "key")
    )


def test_a_pool_too_small_fails_the_quiz_with_the_reason(
    teacher, symbols, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        quiz = build(teacher, symbols[:2], total=5)
    quiz.refresh_from_db()
    assert quiz.state == "failed"
    assert "gives only 2 items, not 5" in quiz.message
    assert not quiz.items.exists()


def test_the_reason_is_in_the_language_the_teacher_asked_in_not_the_workers(
    teacher, symbols, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks, translation.override("pl"):
        quiz = build(teacher, symbols[:2], total=5)
    assert translation.get_language() == "en"
    for callback in callbacks:
        callback()  # as the worker runs it: no request, the default language
    quiz.refresh_from_db()
    assert quiz.state == "failed"
    assert "można utworzyć tylko 2 pytania, a nie 5" in quiz.message


def test_counts_per_kind_too_many_for_the_pool_name_the_kind(
    teacher, symbols, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        quiz = build(teacher, symbols, counts={"knowledge": 2})
    quiz.refresh_from_db()
    assert quiz.state == "failed" and "Knowledge? question" in quiz.message


def test_students_cannot_make_quizzes(student, symbols):
    with pytest.raises(QuizError) as raised:
        build(student, symbols)
    assert raised.value.code == "not_teacher"
    assert not Quiz.objects.exists()


def test_bad_totals_and_kinds_are_refused_and_nothing_is_written(teacher, symbols):
    for kwargs in ({"total": 0}, {"total": 500}, {"counts": {"essay": 2}}, {"counts": {"picture_name": 0}}):
        with pytest.raises(QuizError):
            build(teacher, symbols, **kwargs)
    assert not Quiz.objects.exists()


def finished_znajznak(teacher, symbols) -> GameSession:
    return GameSession.objects.create(
        game="znajznak",
        variant="duel",
        seed=3,
        join_code="QZQZQZ",
        facilitator=teacher,
        status=GameSession.Status.FINISHED,
        finished_at=timezone.now(),
        assets={"symbols": {f"{s.number:03d}": s.pk for s in symbols}},
    )


def test_follow_up_quiz_weights_the_symbols_named_wrongly(teacher, symbols):
    session = finished_znajznak(teacher, symbols)
    ala = UserFactory()
    for index, (symbol, correct) in enumerate([(symbols[0], False), (symbols[1], True)]):
        NamingRecord.objects.create(
            session=session,
            user=ala,
            action_index=index,
            symbol=symbol,
            symbol_key=f"{symbol.number:03d}",
            symbol_name=symbol.name,
            correct=correct,
            dont_know=False,
        )
    pool = selectors.pool_from_session(session)
    weights = {entry.key: entry.weight for entry in pool.symbols}
    assert weights[f"symbol:{symbols[0].pk}"] == selectors.WEIGHT_WRONG
    assert weights[f"symbol:{symbols[1].pk}"] == selectors.WEIGHT_SEEN
    assert weights[f"symbol:{symbols[2].pk}"] == selectors.WEIGHT_DEALT
    assert len(pool.symbols) == len(symbols)
    # Another student's own quiz weighs only their own namings.
    assert {e.weight for e in selectors.pool_from_session(session, student=UserFactory()).symbols} == {1.0}


def test_follow_up_quiz_only_by_the_games_teacher_and_only_after_it(teacher, other_teacher, symbols):
    session = finished_znajznak(teacher, symbols)
    with pytest.raises(QuizError, match="Only the teacher"):
        services.quiz_create_from_session(session=session, by=other_teacher)
    session.status = GameSession.Status.RUNNING
    session.save()
    with pytest.raises(QuizError) as raised:
        services.quiz_create_from_session(session=session, by=teacher)
    assert raised.value.code == "not_finished"


def test_follow_up_of_a_knowledge_game_asks_the_cards_drawn(
    teacher, knowledge_questions, django_capture_on_commit_callbacks
):
    cards = [
        {"id": "a", "category": q.category, "answer": q.answer, "front": q.front, "back": q.back}
        for q in knowledge_questions
    ] + [{"id": "x", "category": "number", "answer": 4, "front": "Not in the library", "back": ""}]
    session = GameSession.objects.create(
        game="knowledge",
        variant="standard",
        seed=1,
        join_code="KNKNKN",
        facilitator=teacher,
        status=GameSession.Status.FINISHED,
        state={
            "cards": [dict(c, id=f"c{i}") for i, c in enumerate(cards)],
            "order": ["c0", "c3", "c1"],
            "drawn": 2,
        },
    )
    pool = selectors.pool_from_session(session)
    assert [e.front for e in pool.knowledge] == [knowledge_questions[0].front, "Not in the library"]
    assert pool.knowledge[0].key == f"knowledge:{knowledge_questions[0].pk}"
    assert not selectors.progress_key(pool.knowledge[1].key)
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=session, by=teacher, total=2)
    quiz.refresh_from_db()
    assert quiz.state == "done" and sorted(quiz.items.values_list("kind", flat=True)) == [
        "knowledge",
        "knowledge",
    ]


def test_batch_generates_one_quiz_per_student_in_one_task(
    teacher, symbols, django_capture_on_commit_callbacks
):
    students = [UserFactory() for _ in range(3)]
    pool = selectors.pool_from_symbols(user=teacher, queryset=type(symbols[0]).objects.all())
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        quizzes = services.quizzes_create_for_students(
            owner=teacher, students=students, title="Review", source=Quiz.Source.SELECTION, pool=pool, total=8
        )
    assert len(callbacks) == 1
    for quiz, student in zip(quizzes, students, strict=True):
        quiz.refresh_from_db()
        assert quiz.state == "done" and quiz.items.count() == 8 and quiz.student == student
    assert len({q.seed for q in quizzes}) == 3


# --- editing and publishing -------------------------------------------------------------------------


def test_drop_renumbers_and_keeps_at_least_one_item(built_quiz, teacher):
    count = built_quiz.items.count()
    services.quiz_item_drop(item=built_quiz.items.get(position=2), by=teacher)
    assert list(built_quiz.items.values_list("position", flat=True)) == list(range(1, count))
    for item in list(built_quiz.items.all())[1:]:
        services.quiz_item_drop(item=item, by=teacher)
    with pytest.raises(QuizError) as raised:
        services.quiz_item_drop(item=built_quiz.items.get(), by=teacher)
    assert raised.value.code == "last_item"


def test_replace_asks_about_a_new_subject(built_quiz, teacher):
    item = built_quiz.items.exclude(kind__in=["connect", "knowledge"]).first()
    before = set(item.key["subjects"])
    asked = {s for other in built_quiz.items.all() for s in other.key["subjects"]}
    replaced = services.quiz_item_replace(item=item, by=teacher)
    assert replaced.kind == item.kind
    assert not set(replaced.key["subjects"]) & asked
    assert set(replaced.key["subjects"]) != before
    other_kind = services.quiz_item_replace(item=replaced, by=teacher, kind="picture_name_typed")
    assert other_kind.kind == "picture_name_typed"


def test_replace_explains_when_nothing_is_left(built_quiz, teacher):
    item = built_quiz.items.filter(kind="knowledge").first() or built_quiz.items.first()
    with pytest.raises(QuizError) as raised:
        for _ in range(5):
            item = services.quiz_item_replace(item=item, by=teacher, kind="knowledge")
    assert raised.value.code == "too_small"


def test_another_teacher_cannot_edit_or_publish(built_quiz, other_teacher):
    item = built_quiz.items.first()
    for call in (
        lambda: services.quiz_item_drop(item=item, by=other_teacher),
        lambda: services.quiz_item_replace(item=item, by=other_teacher),
        lambda: services.quiz_publish(quiz=built_quiz, by=other_teacher),
    ):
        with pytest.raises(QuizError) as raised:
            call()
        assert raised.value.code == "not_yours"
    built_quiz.refresh_from_db()
    assert built_quiz.status == "draft"


def test_published_quiz_no_longer_changes(published_quiz, teacher):
    assert published_quiz.status == "published" and published_quiz.published_at
    with pytest.raises(QuizError) as raised:
        services.quiz_item_drop(item=published_quiz.items.first(), by=teacher)
    assert raised.value.code == "published"


# --- attempts -----------------------------------------------------------------------------------------


def test_a_draft_quiz_cannot_be_started(built_quiz, student):
    with pytest.raises(QuizError) as raised:
        services.attempt_start(quiz=built_quiz, student=student)
    assert raised.value.code == "not_published"


def test_a_quiz_built_for_one_student_is_theirs_only(published_quiz, student):
    published_quiz.student = UserFactory()
    published_quiz.save()
    with pytest.raises(QuizError) as raised:
        services.attempt_start(quiz=published_quiz, student=student)
    assert raised.value.code == "not_yours"


def test_autosave_replaces_the_answer_and_resume_finds_the_attempt(published_quiz, student):
    attempt = services.attempt_resume_or_start(quiz=published_quiz, student=student)
    item = published_quiz.items.filter(kind="picture_name_typed").first() or published_quiz.items.first()
    first = right_answer(item)
    services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer=first)
    services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer=first)
    assert QuizResponse.objects.filter(attempt=attempt).count() == 1
    again = services.attempt_resume_or_start(quiz=published_quiz, student=student)
    assert again.pk == attempt.pk
    assert selectors.attempt_responses(again)[item.pk].answer == first


def test_the_first_answer_to_an_item_is_timed_once_and_a_cleared_one_is_not(published_quiz, student):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    item = published_quiz.items.exclude(kind__in=["picture_name_typed", "know"]).first()
    start = attempt.started_at
    services.attempt_answer_save(
        attempt=attempt, item_id=item.pk, answer={}, now=start + timedelta(seconds=5)
    )
    assert QuizResponse.objects.get(attempt=attempt, item=item).first_answered_at is None
    services.attempt_answer_save(
        attempt=attempt, item_id=item.pk, answer=right_answer(item), now=start + timedelta(seconds=30)
    )
    services.attempt_answer_save(
        attempt=attempt, item_id=item.pk, answer={}, now=start + timedelta(seconds=50)
    )
    response = QuizResponse.objects.get(attempt=attempt, item=item)
    assert response.first_answered_at == start + timedelta(seconds=30)
    assert response.saved_at == start + timedelta(seconds=50)


def test_a_bad_answer_is_refused_and_changes_nothing(published_quiz, student):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    item = published_quiz.items.exclude(kind__in=["picture_name_typed", "know"]).first()
    with pytest.raises(QuizError) as raised:
        services.attempt_answer_save(
            attempt=attempt,
            item_id=item.pk,
            answer={"choice": "zz", "choices": ["zz"], "groups": {"zz": "q"}},
        )
    assert raised.value.code == "bad_answer"
    other_quiz_item = QuizItem.objects.exclude(quiz=published_quiz).first()
    with pytest.raises(QuizError):
        services.attempt_answer_save(
            attempt=attempt, item_id=(other_quiz_item.pk if other_quiz_item else 10**6), answer={}
        )
    assert not QuizResponse.objects.exists()


def test_submitting_grades_every_item_and_reports_once(published_quiz, student, reviews, graded_reports):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    items = list(published_quiz.items.all())
    for item in items:
        services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer=right_answer(item))
    graded = services.attempt_submit(attempt=attempt)
    assert graded.status == "graded" and graded.graded_at and graded.submitted_at
    assert graded.score == graded.max_score == sum(item.points for item in items)
    assert graded_reports == [graded]
    keys = [call["item_key"] for call in reviews]
    assert len(keys) == len(set(keys)) == sum(len(item.key["subjects"]) for item in items)
    assert all(call["correct"] == 1.0 and call["user"] == student for call in reviews)
    # Submitting again changes nothing and reports nothing more.
    services.attempt_submit(attempt=graded)
    assert len(graded_reports) == 1 and len(reviews) == len(keys)


def test_unanswered_items_score_zero(published_quiz, student, reviews):
    graded = services.attempt_submit(attempt=services.attempt_start(quiz=published_quiz, student=student))
    assert graded.score == 0 and graded.status == "graded"
    assert graded.responses.count() == published_quiz.items.count()
    assert all(call["correct"] == 0 for call in reviews)


def test_answers_sent_with_the_submission_are_saved_first(published_quiz, student):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    item = published_quiz.items.first()
    graded = services.attempt_submit(attempt=attempt, answers={item.pk: right_answer(item)})
    assert graded.responses.get(item=item).score == item.points


def test_answers_after_submission_are_refused(published_quiz, student):
    attempt = services.attempt_submit(attempt=services.attempt_start(quiz=published_quiz, student=student))
    with pytest.raises(QuizError) as raised:
        services.attempt_answer_save(attempt=attempt, item_id=published_quiz.items.first().pk, answer={})
    assert raised.value.code == "submitted"


def test_time_limit_sets_a_server_deadline_after_which_answers_are_refused(published_quiz, student):
    now = timezone.now()
    attempt = services.attempt_start(
        quiz=published_quiz, student=student, time_limit=timedelta(minutes=10), now=now
    )
    assert attempt.deadline == now + timedelta(minutes=10)
    item = published_quiz.items.first()
    services.attempt_answer_save(
        attempt=attempt, item_id=item.pk, answer=right_answer(item), now=now + timedelta(minutes=9)
    )
    with pytest.raises(QuizError) as raised:
        services.attempt_answer_save(
            attempt=attempt, item_id=item.pk, answer={}, now=now + timedelta(minutes=11)
        )
    assert raised.value.code == "time_up"
    # A late submission grades what was saved in time, nothing sent with it.
    second = published_quiz.items.all()[1]
    graded = services.attempt_submit(
        attempt=attempt, answers={second.pk: right_answer(second)}, now=now + timedelta(minutes=12)
    )
    assert graded.score == item.points and graded.submitted_at == attempt.deadline


def test_the_earlier_of_deadline_and_time_limit_wins(published_quiz, student):
    now = timezone.now()
    attempt = services.attempt_start(
        quiz=published_quiz,
        student=student,
        deadline=now + timedelta(minutes=5),
        time_limit=timedelta(hours=1),
        now=now,
    )
    assert attempt.deadline == now + timedelta(minutes=5)
    with pytest.raises(QuizError) as raised:
        services.attempt_start(
            quiz=published_quiz, student=student, deadline=now - timedelta(seconds=1), now=now
        )
    assert raised.value.code == "deadline_passed"


def test_overdue_attempts_are_graded_as_they_stand(published_quiz, student, graded_reports):
    now = timezone.now()
    late = services.attempt_start(
        quiz=published_quiz, student=student, time_limit=timedelta(minutes=1), now=now
    )
    item = published_quiz.items.first()
    services.attempt_answer_save(attempt=late, item_id=item.pk, answer=right_answer(item), now=now)
    running = services.attempt_start(
        quiz=published_quiz, student=UserFactory(), time_limit=timedelta(hours=1), now=now
    )
    untimed = services.attempt_start(quiz=published_quiz, student=UserFactory(), now=now)
    assert services.attempts_grade_overdue(now + timedelta(minutes=2)) == 1
    late.refresh_from_db(), running.refresh_from_db(), untimed.refresh_from_db()
    assert late.status == "graded" and late.score == item.points and late.submitted_at == late.deadline
    assert running.status == untimed.status == "in_progress"
    assert graded_reports == [late]
    assert services.attempts_grade_overdue(now + timedelta(minutes=3)) == 0


def test_opening_an_overdue_attempt_grades_that_attempt_and_no_other(published_quiz, student, graded_reports):
    """A page a student opens closes their own attempt whose time is up, not the class's."""
    now = timezone.now()
    mine = services.attempt_start(
        quiz=published_quiz, student=student, time_limit=timedelta(minutes=1), now=now
    )
    theirs = services.attempt_start(
        quiz=published_quiz, student=UserFactory(), time_limit=timedelta(minutes=1), now=now
    )
    later = now + timedelta(minutes=2)

    assert services.attempt_close_if_overdue(mine, later).status == "graded"

    theirs.refresh_from_db()
    assert theirs.status == "in_progress"
    assert graded_reports == [mine]
    # In time, nothing is graded.
    running = services.attempt_start(
        quiz=published_quiz, student=UserFactory(), time_limit=timedelta(hours=1)
    )
    assert services.attempt_close_if_overdue(running, later).status == "in_progress"


# --- Know answers and the teacher's marks ----------------------------------------------------------


def test_know_answers_off_the_best_wait_for_the_teachers_mark(
    know_quiz, teacher, other_teacher, student, reviews, graded_reports
):
    attempt = services.attempt_start(quiz=know_quiz, student=student)
    by_text = {item.prompt["text"]: item for item in know_quiz.items.all()}
    services.attempt_answer_save(
        attempt=attempt, item_id=by_text["Kto dowodził?"].pk, answer={"text": "pilsudski"}
    )
    services.attempt_answer_save(
        attempt=attempt, item_id=by_text["Gdzie?"].pk, answer={"text": "W Warszawie"}
    )
    attempt = services.attempt_submit(attempt=attempt)
    assert attempt.status == "marking" and attempt.score == 1 and attempt.graded_at is None
    assert graded_reports == []  # not graded until the teacher marks
    assert [c["item_key"] for c in reviews] == ["know:7"]
    waiting = selectors.responses_to_mark(know_quiz).get()
    with pytest.raises(QuizError):
        services.attempt_mark(response=waiting, mark=1, by=other_teacher)
    with pytest.raises(QuizError):
        services.attempt_mark(response=waiting, mark=5, by=teacher)
    attempt = services.attempt_mark(response=waiting, mark=1, by=teacher)
    assert attempt.status == "graded" and attempt.score == 2 and attempt.graded_at
    assert graded_reports == [attempt]
    # The unlinked Know question is not reported to progress; know:7 was reported once.
    assert [c["item_key"] for c in reviews] == ["know:7"]
    assert not selectors.responses_to_mark(know_quiz).exists()


def test_a_student_sees_only_their_own_attempts(published_quiz, student):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    assert selectors.attempt_of(student, attempt.pk) == attempt
    assert selectors.attempt_of(UserFactory(), attempt.pk) is None
    assert selectors.quizzes_of(TeacherFactory()).count() == 0
    assert QuizAttempt.objects.count() == 1


# --- distractor quality ------------------------------------------------------------------------------


def test_distractors_with_similar_names_come_first(teacher, django_capture_on_commit_callbacks):
    """Issue rule "plausible distractors: … similar names": with period and theme alike for
    all, a symbol whose name is like the answer's is offered before one that is not."""
    from tests.factories import SymbolFactory

    orders = [
        "Order Orła Białego",
        "Order Orła Czarnego",
        "Order Odrodzenia Polski",
        "Order Krzyża Grunwaldu",
    ]
    others = ["Kotwica", "Syrenka warszawska", "Polonez", "Bursztyn", "Tarcza Warszawy", "Mały Powstaniec"]
    symbols = [
        SymbolFactory(name=name, picture=f"symbols/s{n}.png") for n, name in enumerate(orders + others)
    ]
    for seed in (1, 2, 3):
        with django_capture_on_commit_callbacks(execute=True):
            quiz = build(teacher, symbols, counts={"picture_name": len(symbols)}, seed=seed)
        quiz.refresh_from_db()
        assert quiz.state == "done", quiz.message
        asked_orders = 0
        for item in quiz.items.all():
            offered = {option["text"] for option in item.prompt["options"]}
            if item.key["name"] in orders:
                asked_orders += 1
                assert offered == set(orders), (item.key["name"], offered)
        assert asked_orders == len(orders)
