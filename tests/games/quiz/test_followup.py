"""Follow-up quizzes of finished games: Know questions tied to the question bank, Knowledge?
cards tied to the library, one quiz per student, and which replacements are offered."""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.urls import reverse

from content.models import KnowQuestion
from games import services as game_services
from games.engines import knowledge as knowledge_engine
from games.models import GameSession
from games.quiz import selectors, services
from games.quiz.models import Quiz
from lms.progress.models import Review
from tests.factories import KnowledgeQuestionFactory, UserFactory
from tests.games.play.test_know_play import ANSWERS, QUESTIONS, finish, make_game, play_one_round
from tests.games.quiz.conftest import build, signed_in

pytestmark = pytest.mark.django_db


# --- Know: closed rounds only, every question tied to a question-bank row -------------------------


def test_know_marks_count_only_once_the_facilitator_closes_the_round() -> None:
    game = make_game()
    play_one_round(game, check=False)
    state = game.state()
    for answer in state.rounds[0].answers:
        game.act(
            game.teacher,
            {"type": "mark", "question_number": answer.question_number, "best_answers": [answer.id]},
        )
    game.session.refresh_from_db()
    # Marked, but the round is still being marked (re-marking may change it): nothing yet.
    assert selectors.know_best_answers(game.session) == {}
    assert selectors.pool_from_session(game.session).know == ()
    assert game.act(game.teacher, {"type": "close_round"}).status_code == 200
    game.session.refresh_from_db()
    best = selectors.know_best_answers(game.session)
    assert sorted(answer for answers in best.values() for answer in answers) == sorted(ANSWERS.values())


def test_know_follow_up_keeps_the_questions_first_and_keys_them_by_the_bank_row(
    django_capture_on_commit_callbacks,
) -> None:
    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    assert not KnowQuestion.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=game.session, by=teacher, total=3)
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    kept = {row.pk: row for row in KnowQuestion.objects.all()}
    assert len(kept) == 3 and {row.owner for row in kept.values()} == {teacher}
    assert {row.created_from for row in kept.values()} == {game.session}
    items = list(quiz.items.all())
    assert [item.kind for item in items] == ["know"] * 3
    for item in items:
        (subject,) = item.key["subjects"]
        assert re.fullmatch(r"know:\d+", subject) and selectors.progress_key(subject)
        row = kept[int(subject.split(":")[1])]
        assert item.prompt["text"] == row.text and item.key["best_answers"] == row.answers
    assert {item.prompt["text"] for item in items} == set(QUESTIONS.values())


def test_know_follow_up_from_its_button_is_made_from_the_fewer_questions_played_and_says_so(
    django_capture_on_commit_callbacks,
) -> None:
    game = make_game()
    finish(game)  # 3 questions asked: fewer than a quiz's default number of items
    teacher = signed_in(game.session.facilitator)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = teacher.post(
            reverse("quiz:followup", args=[game.session.pk]),
            {"from": "session"},
            HTTP_ACCEPT_LANGUAGE="pl",
        )
    assert response.status_code == 302, response.content
    for callback in callbacks:
        callback()  # as the worker runs it: no request, the default language
    quiz = Quiz.objects.get(session=game.session)
    assert quiz.state == "done", quiz.message
    assert [item.kind for item in quiz.items.all()] == ["know"] * 3
    assert quiz.message.startswith("Gra dała tylko 3 pytania")
    assert f"a nie {services.DEFAULT_ITEMS}" in quiz.message
    page = teacher.get(reverse("quiz:detail", args=[quiz.pk]), HTTP_ACCEPT_LANGUAGE="pl")
    assert quiz.message in page.content.decode()


def test_a_follow_up_is_not_made_shorter_than_the_minimum(
    django_capture_on_commit_callbacks, monkeypatch
) -> None:
    game = make_game()
    finish(game)  # 3 questions asked
    monkeypatch.setattr(services, "FOLLOWUP_MIN_ITEMS", 4)
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=game.session, by=game.session.facilitator)
    quiz.refresh_from_db()
    assert quiz.state == "failed" and "gives only 3 items, not 20" in quiz.message
    assert not quiz.items.exists()


def test_know_follow_up_uses_the_questions_the_teacher_kept_and_edited(
    django_capture_on_commit_callbacks,
) -> None:
    from games.play.know.services import know_questions_keep

    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    know_questions_keep(session=game.session, by=teacher)
    edited = KnowQuestion.objects.order_by("question_number").first()
    edited.text = "Which sea borders Poland to the north?"
    edited.answers = ["Baltic Sea", "the Baltic"]
    edited.save()
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=game.session, by=teacher, total=3)
    quiz.refresh_from_db()
    assert KnowQuestion.objects.count() == 3  # nothing kept twice
    item = next(i for i in quiz.items.all() if i.key["subjects"] == [f"know:{edited.pk}"])
    assert item.prompt["text"] == "Which sea borders Poland to the north?"
    assert item.key["best_answers"] == ["Baltic Sea", "the Baltic"]


def test_know_follow_up_end_to_end_reports_each_answer_to_progress_as_know_pk(
    django_capture_on_commit_callbacks,
) -> None:
    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    with django_capture_on_commit_callbacks(execute=True):
        response = game.teacher.post(reverse("quiz:followup", args=[game.session.pk]), {"total": "3"})
    quiz = Quiz.objects.get(session=game.session)
    assert response.status_code == 302 and response["Location"] == reverse("quiz:detail", args=[quiz.pk])
    services.quiz_publish(quiz=quiz, by=teacher)
    student = UserFactory()
    client = signed_in(student)
    assert client.post(reverse("quiz:take", args=[quiz.code])).status_code == 302
    attempt = quiz.attempts.get(student=student)
    items = list(quiz.items.order_by("position"))
    right, wrong, odd = items
    client.post(
        reverse("quiz:submit", args=[attempt.pk]),
        {
            f"item-{right.pk}": right.key["best_answers"][0].upper(),
            f"item-{wrong.pk}": "Something else entirely",
            f"item-{odd.pk}": "Close to it, the teacher decides",
        },
    )
    attempt.refresh_from_db()
    assert attempt.status == "marking"
    # The matching answer is graded (and reported) at once; the others wait for the teacher.
    assert list(Review.objects.filter(user=student).values_list("item_key", "correct")) == [
        (right.key["subjects"][0], 1.0)
    ]
    for item, mark in ((wrong, "0"), (odd, "1")):
        answer = attempt.responses.get(item=item)
        game.teacher.post(reverse("quiz:mark", args=[quiz.pk, answer.pk]), {"mark": mark})
    attempt.refresh_from_db()
    assert attempt.status == "graded" and attempt.score == 2
    reviews = dict(Review.objects.filter(user=student).values_list("item_key", "correct"))
    assert reviews == {
        right.key["subjects"][0]: 1.0,
        wrong.key["subjects"][0]: 0.0,
        odd.key["subjects"][0]: 1.0,
    }
    assert all(KnowQuestion.objects.filter(pk=int(key.split(":")[1])).exists() for key in reviews)


def test_know_follow_up_of_another_teachers_game_keeps_nothing() -> None:
    from tests.factories import TeacherFactory

    game = make_game()
    finish(game)
    with pytest.raises(services.QuizError):
        services.quiz_create_from_session(session=game.session, by=TeacherFactory())
    assert not KnowQuestion.objects.exists() and not Quiz.objects.exists()


# --- Knowledge?: the library question of each card drawn ------------------------------------------


def knowledge_session(teacher, cards, drawn: int) -> GameSession:
    """A finished Knowledge? game whose state the engine made from ``cards``."""
    state = knowledge_engine.new_game({"cards": cards}, seed=5, variant="basic").to_dict()
    state["drawn"] = drawn
    return GameSession.objects.create(
        game="knowledge",
        variant="basic",
        seed=5,
        join_code="KQKQKQ",
        facilitator=teacher,
        status=GameSession.Status.FINISHED,
        state=state,
    )


def card(question, card_id: str, **changes):
    data = {
        "id": card_id,
        "category": question.category,
        "answer": question.answer,
        "front": question.front,
        "back": question.back,
    }
    return {**data, **changes}


def test_knowledge_cards_built_from_the_library_are_tied_by_their_id_not_their_front(teacher):
    questions = [KnowledgeQuestionFactory(category="number", answer=n, front=f"Ile? {n}") for n in range(6)]
    # The library question was edited after the game: the card still names it by its id.
    cards = [card(q, f"q{q.pk}") for q in questions]
    cards[0]["front"] = "Ile? (as it was during the game)"
    session = knowledge_session(teacher, cards, drawn=6)
    order = session.state["order"]
    pool = selectors.pool_from_session(session)
    keys = [entry.key for entry in pool.knowledge]
    assert keys == [f"knowledge:{card_id[1:]}" for card_id in order]
    assert pool.knowledge[order.index(f"q{questions[0].pk}")].front == "Ile? (as it was during the game)"


def test_knowledge_cards_without_a_library_id_match_the_front_exactly_or_stay_out_of_progress(teacher):
    exact = KnowledgeQuestionFactory(category="number", answer=2, front="Ile lat?")
    KnowledgeQuestionFactory(category="number", answer=3, front="Ile razy?")
    gone = KnowledgeQuestionFactory(category="number", answer=1, front="Usunięte?")
    gone_pk = gone.pk
    gone.delete()
    cards = [
        card(exact, "c1"),  # exactly the library's front
        {"id": "c2", "category": "number", "answer": 3, "front": "ile razy?", "back": ""},  # case differs
        {"id": "c3", "category": "number", "answer": 3, "front": "Ile razy? ", "back": ""},  # space differs
        {"id": f"q{gone_pk}", "category": "number", "answer": 1, "front": "Usunięte?", "back": ""},
        {"id": "c5", "category": "number", "answer": 4, "front": "Not in the library", "back": ""},
        {"id": "c6", "category": "number", "answer": 5, "front": "Nor this", "back": ""},
    ]
    session = knowledge_session(teacher, cards, drawn=6)
    by_id = {
        str(c["id"]): entry
        for c, entry in zip(
            [next(c for c in cards if c["id"] == card_id) for card_id in session.state["order"]],
            selectors.pool_from_session(session).knowledge,
            strict=True,
        )
    }
    assert by_id["c1"].key == f"knowledge:{exact.pk}"
    for card_id in ("c2", "c3", f"q{gone_pk}", "c5", "c6"):
        assert not selectors.progress_key(by_id[card_id].key), card_id
        assert by_id[card_id].key == f"card:{session.pk}:{card_id}"


def test_knowledge_follow_up_grades_report_the_library_question_and_not_the_others(
    teacher, student, django_capture_on_commit_callbacks
):
    questions = [KnowledgeQuestionFactory(category="number", answer=n, front=f"Ile? {n}") for n in range(5)]
    cards = [card(q, f"q{q.pk}") for q in questions] + [
        {"id": "x1", "category": "number", "answer": 4, "front": "Only on a card", "back": ""}
    ]
    session = knowledge_session(teacher, cards, drawn=6)
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=session, by=teacher, total=6)
    quiz.refresh_from_db()
    quiz = services.quiz_publish(quiz=quiz, by=teacher)
    attempt = services.attempt_start(quiz=quiz, student=student)
    answers = {}
    for item in quiz.items.all():
        answers[item.pk] = {"choice": item.key["answer"][0]}
    services.attempt_submit(attempt=attempt, answers=answers)
    keys = set(Review.objects.filter(user=student).values_list("item_key", flat=True))
    assert keys == {f"knowledge:{q.pk}" for q in questions}


# --- one quiz per student -------------------------------------------------------------------------


@pytest.fixture
def played(teacher, symbols):
    """A finished ZnajZnak game two signed-in students and a guest played."""
    from tests.games.test_sessions import create_session

    session = create_session(teacher, seed=7, allow_guests=True)
    ala, bartek = UserFactory(first_name="Ala"), UserFactory(first_name="Bartek")
    for user in (ala, bartek):
        game_services.session_join(session=session, user=user)
    game_services.session_join(session=session, nickname="Gość")
    GameSession.objects.filter(pk=session.pk).update(
        status=GameSession.Status.FINISHED, assets={"symbols": {f"{s.number:03d}": s.pk for s in symbols}}
    )
    session.refresh_from_db()
    return session, ala, bartek


def test_the_follow_up_page_offers_one_quiz_per_student_who_played_signed_in(played, teacher):
    session, ala, bartek = played
    page = signed_in(teacher).get(reverse("quiz:followup", args=[session.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "One quiz per student" in html
    boxes = re.findall(r'name="students" value="(\d+)"', html)
    assert sorted(int(pk) for pk in boxes) == sorted([ala.pk, bartek.pk])
    assert "Gość" not in html  # a guest gets no quiz of their own


def test_building_quizzes_per_student_shows_progress_then_lists_each_with_its_state(
    played, teacher, django_capture_on_commit_callbacks
):
    session, ala, bartek = played
    client = signed_in(teacher)
    url = reverse("quiz:followup", args=[session.pk])
    # Not built yet (the task waits for the commit): the page shows the batch's progress.
    response = client.post(url, {"build": "students", "students": [ala.pk, bartek.pk], "total": "6"})
    assert response.status_code == 302
    quizzes = list(Quiz.objects.filter(session=session).order_by("pk"))
    assert [q.student for q in quizzes] == [ala, bartek] and {q.state for q in quizzes} == {"queued"}
    page = client.get(url).content.decode()
    assert 'id="job-progress"' in page and "0 of 2 built" in page
    status = client.get(reverse("quiz:followup_status", args=[session.pk])).json()
    assert status["working"] is True and (status["done"], status["total"]) == (0, 2)
    for quiz in quizzes:
        services.quiz_generate(quiz=quiz)
    status = client.get(reverse("quiz:followup_status", args=[session.pk])).json()
    assert status["working"] is False and status["progress"] == 100 and status["done"] == 2
    page = client.get(url).content.decode()
    assert 'id="job-progress"' not in page and "2 of 2 built" in page
    for quiz in quizzes:
        assert reverse("quiz:detail", args=[quiz.pk]) in page
    assert page.count("Draft") >= 2
    client.post(reverse("quiz:followup_publish", args=[session.pk]))
    assert set(Quiz.objects.filter(session=session).values_list("status", flat=True)) == {"published"}
    page = client.get(url).content.decode()
    for quiz in quizzes:
        assert quiz.code in page


def test_each_student_sees_only_their_own_quiz(played, teacher, django_capture_on_commit_callbacks):
    session, ala, bartek = played
    with django_capture_on_commit_callbacks(execute=True):
        quizzes = services.quizzes_create_from_session_for_students(
            session=session, by=teacher, students=[ala, bartek], total=6
        )
    for quiz in quizzes:
        services.quiz_publish(quiz=Quiz.objects.get(pk=quiz.pk), by=teacher)
    of = {quiz.student: Quiz.objects.get(pk=quiz.pk) for quiz in quizzes}
    for me, other in ((ala, bartek), (bartek, ala)):
        client = signed_in(me)
        mine = client.get(reverse("quiz:mine")).content.decode()
        assert of[me].code in mine and of[other].code not in mine
        assert client.get(reverse("quiz:take", args=[of[me].code])).status_code == 200
        assert client.get(reverse("quiz:take", args=[of[other].code])).status_code == 404
        assert client.post(reverse("quiz:take", args=[of[other].code])).status_code == 404
        assert not of[other].attempts.filter(student=me).exists()
    outsider = signed_in(UserFactory())
    assert outsider.get(reverse("quiz:take", args=[of[ala].code])).status_code == 404


def test_quizzes_per_student_are_refused_for_someone_who_did_not_play_and_nothing_is_written(played, teacher):
    session, ala, _bartek = played
    stranger = UserFactory()
    client = signed_in(teacher)
    url = reverse("quiz:followup", args=[session.pk])
    response = client.post(url, {"build": "students", "students": [ala.pk, stranger.pk]})
    assert response.status_code == 400
    response = client.post(url, {"build": "students"})
    assert response.status_code == 400 and "Choose at least one student" in response.content.decode()
    with pytest.raises(services.QuizError) as raised:
        services.quizzes_create_from_session_for_students(session=session, by=teacher, students=[stranger])
    assert raised.value.code == "not_a_player"
    assert not Quiz.objects.exists()


def test_the_follow_up_page_is_the_games_teachers_only(played, other_teacher, student):
    session, ala, _bartek = played
    url = reverse("quiz:followup", args=[session.pk])
    assert signed_in(other_teacher).get(url).status_code == 404
    assert signed_in(ala).get(url).status_code == 404
    assert signed_in(other_teacher).get(reverse("quiz:followup_status", args=[session.pk])).status_code == 404
    assert (
        signed_in(other_teacher).post(reverse("quiz:followup_publish", args=[session.pk])).status_code == 404
    )


# --- replacements: only kinds the pool can still fill --------------------------------------------


def test_replace_offers_only_the_kinds_the_pool_can_still_fill_with_the_reason_for_the_others(
    teacher, symbols, django_capture_on_commit_callbacks
):
    few = symbols[:5]
    with django_capture_on_commit_callbacks(execute=True):
        quiz = build(teacher, few, counts={"picture_name_typed": 5}, total=5)
    quiz.refresh_from_db()
    assert quiz.state == "done"
    kinds = {kind: (possible, made) for kind, possible, made in selectors.replace_kinds(quiz)}
    # Every symbol is asked already: no symbol kind is left; Knowledge?/Know never were there.
    assert not any(possible for possible, _made in kinds.values())
    assert kinds["picture_name"][1] and not kinds["know"][1] and not kinds["knowledge"][1]
    page = signed_in(teacher).get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    assert 'name="kind"' not in page
    assert "No replacement can be made" in page
    assert "Know question: it needs Know questions" in page
    assert "already asked, dropped or replaced" in page


def test_every_kind_offered_for_replacement_can_be_made(
    teacher, symbols, knowledge_questions, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        quiz = build(teacher, symbols, total=8, with_knowledge=True)
    quiz.refresh_from_db()
    page = signed_in(teacher).get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    item = quiz.items.first()
    select = re.search(rf'<select name="kind" id="kind-{item.pk}"[^>]*>(.*?)</select>', page, re.S).group(1)
    offered = re.findall(r'<option value="([a-z_]+)"', select)
    assert "know" not in offered and "Know question: it needs Know questions" in page
    assert set(offered) == {kind for kind, possible, _m in selectors.replace_kinds(quiz) if possible}
    assert offered
    for kind in offered:
        # Each from the quiz as offered: one replacement sets its item's subjects aside, and a
        # matching or a connect item uses up a handful of symbols.
        item = quiz.items.order_by("position").first()
        with transaction.atomic():
            replaced = services.quiz_item_replace(item=item, by=teacher, kind=kind)
            assert replaced.kind == kind
            transaction.set_rollback(True)


def test_each_students_quiz_weighs_their_own_wrongly_named_symbols(played, teacher, symbols):
    from games.models import NamingRecord

    session, ala, bartek = played
    wrong = symbols[0]
    NamingRecord.objects.create(
        session=session,
        user=ala,
        action_index=0,
        symbol=wrong,
        symbol_key=f"{wrong.number:03d}",
        symbol_name=wrong.name,
        correct=False,
        dont_know=False,
    )
    quizzes = services.quizzes_create_from_session_for_students(
        session=session, by=teacher, students=[ala, bartek], total=6
    )
    weight = {
        quiz.student: {e["key"]: e["weight"] for e in quiz.pool["symbols"]}[f"symbol:{wrong.pk}"]
        for quiz in quizzes
    }
    assert weight == {ala: selectors.WEIGHT_WRONG, bartek: selectors.WEIGHT_DEALT}


def test_a_bad_number_of_items_is_refused_on_the_page_and_nothing_is_built(played, teacher):
    session, ala, _bartek = played
    client = signed_in(teacher)
    url = reverse("quiz:followup", args=[session.pk])
    for data in (
        {"build": "class", "total": "0"},
        {"build": "students", "students": [ala.pk], "total": "500"},
    ):
        response = client.post(url, data)
        assert response.status_code == 400 and "Ensure this value is" in response.content.decode()
    assert not Quiz.objects.exists()


def test_the_follow_up_page_of_a_game_still_running_offers_nothing_to_build(played, teacher):
    session, ala, _bartek = played
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.RUNNING)
    client = signed_in(teacher)
    url = reverse("quiz:followup", args=[session.pk])
    page = client.get(url).content.decode()
    assert "The game is not over yet" in page and 'name="students"' not in page
    response = client.post(url, {"build": "students", "students": [ala.pk]})
    assert response.status_code == 400 and not Quiz.objects.exists()
