"""The history items on the server: chronology, period, matching and teachers' own questions
in quizzes built from content, in follow-up quizzes, in homework grading, in reviews and on
paper; and nothing of their answers in what a student receives before handing in."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from content.models import QuizQuestion, QuizQuestionOption, Symbol
from games import signals
from games.models import GameSession
from games.quiz import selectors, services
from games.quiz.models import Quiz, QuizAttempt
from lms.progress.models import MemoryState
from lms.progress.selectors import items_describe
from tests.games.quiz.conftest import png, signed_in
from tests.games.quiz.test_printing import pdf_text
from tests.games.quiz.test_services import right_answer

pytestmark = pytest.mark.django_db

DATES = ["1918-11-11", "1920-08-15", "1926-05", "1939-09-01", "1944-08-01", "1956-06", "1970-12", "1980-08"]


@pytest.fixture
def dated(symbols) -> list[Any]:
    """The quiz fixtures' symbols, the first eight with dates far enough apart."""
    for symbol, date in zip(symbols, DATES, strict=False):
        Symbol.objects.filter(pk=symbol.pk).update(date=date)
    return list(Symbol.objects.filter(pk__in=[s.pk for s in symbols]).order_by("number"))


def question(
    owner, kind: str, text: str, options: list[dict], *, picture: str = "", status="published"
) -> QuizQuestion:
    row = QuizQuestion.objects.create(
        kind=kind, text=text, owner=owner, status=status, explanation="Dlatego."
    )
    if picture:
        row.picture.save(picture, ContentFile(png((1, 2, 3))), save=True)
    for position, values in enumerate(options):
        option = QuizQuestionOption(
            question=row, position=position, **{k: v for k, v in values.items() if k != "picture"}
        )
        if values.get("picture"):
            option.picture.save(values["picture"], ContentFile(png((position * 40, 9, 9))), save=False)
        option.save()
    return row


@pytest.fixture
def questions(teacher) -> list[QuizQuestion]:
    """A multiple choice with pictures (named as telling files would be), a chronology and a matching."""
    return [
        question(
            teacher,
            "choice",
            "Który znak namalowano na murach?",
            [
                {"text": "Kotwica", "correct": True, "picture": "kotwica-prawidlowa.png"},
                {"text": "Orzeł", "picture": "orzel.png"},
                {"text": "Lilijka"},
            ],
            picture="znak-polski-walczacej.png",
        ),
        question(
            teacher,
            "chronology",
            "Od najwcześniejszego",
            [
                {"text": "Niepodległość", "date": "1918-11-11"},
                {"text": "Bitwa Warszawska", "date": "1920-08-15"},
                {"text": "Wrzesień", "date": "1939-09-01"},
                {"text": "Powstanie", "date": "1944-08-01"},
            ],
        ),
        question(
            teacher,
            "matching",
            "Połącz",
            [
                {"text": "Piłsudski", "match": "Naczelnik Państwa"},
                {"text": "Narutowicz", "match": "Pierwszy prezydent"},
                {"text": "Mazowiecki", "match": "Premier 1989"},
            ],
        ),
    ]


def build_history(teacher, dated, questions, *, seed: int = 3) -> Quiz:
    pool = selectors.pool_from_symbols(
        user=teacher, queryset=Symbol.objects.filter(pk__in=[s.pk for s in dated]), questions=questions
    )
    counts = {"choice": 1, "chronology": 2, "matching": 2, "period": 1}
    quiz = services.quiz_create(
        owner=teacher, title="Historia", source=Quiz.Source.SELECTION, pool=pool, counts=counts, seed=seed
    )
    services.quiz_generate(quiz=quiz)
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    return quiz


@pytest.fixture
def history_quiz(teacher, dated, questions, django_capture_on_commit_callbacks) -> Quiz:
    with django_capture_on_commit_callbacks(execute=False):
        quiz = build_history(teacher, dated, questions)
    return services.quiz_publish(quiz=quiz, by=teacher)


@pytest.fixture
def reviews() -> Iterator[list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []

    def record(sender: Any, **kwargs: Any) -> None:
        calls.append({key: kwargs[key] for key in ("item_key", "correct")})

    signals.item_answered.connect(record, dispatch_uid="test.history.reviews")
    yield calls
    signals.item_answered.disconnect(dispatch_uid="test.history.reviews")


def item_of(quiz: Quiz, kind: str, *, teachers: bool):
    for item in quiz.items.filter(kind=kind):
        if any(s.startswith("question:") for s in item.key["subjects"]) == teachers:
            return item
    raise AssertionError(f"no {kind} item ({'teacher' if teachers else 'symbols'})")


# --- building ------------------------------------------------------------------------------------


def test_a_quiz_of_chosen_questions_asks_every_one_of_them(
    teacher, questions, django_capture_on_commit_callbacks
):
    client = signed_in(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("quiz:new"),
            {"source": "questions", "questions": [q.pk for q in questions], "total": "20", "title": ""},
        )
    quiz = Quiz.objects.get(owner=teacher)
    assert response.status_code == 302 and quiz.state == "done", quiz.message
    assert quiz.source == "questions"
    assert sorted(quiz.items.values_list("kind", flat=True)) == ["choice", "chronology", "matching"]
    asked = {s for item in quiz.items.all() for s in item.key["subjects"]}
    assert asked == {f"question:{q.pk}" for q in questions}


def test_the_new_quiz_page_offers_only_questions_the_teacher_may_use(teacher, other_teacher, questions):
    draft_of_another = question(
        other_teacher, "choice", "Cudze", [{"text": "a", "correct": True}, {"text": "b"}], status="draft"
    )
    shared = question(other_teacher, "choice", "Wspólne", [{"text": "a", "correct": True}, {"text": "b"}])
    page = signed_in(teacher).get(reverse("quiz:new")).content.decode()
    assert f'value="{shared.pk}"' in page and "Wspólne" in page
    assert "Cudze" not in page and f'name="questions" value="{draft_of_another.pk}"' not in page
    response = signed_in(teacher).post(
        reverse("quiz:new"), {"source": "questions", "questions": [draft_of_another.pk], "total": "5"}
    )
    assert response.status_code == 200 and not Quiz.objects.exists()


def test_the_follow_up_of_a_game_draws_chronology_period_and_matching_from_the_symbols_played(
    teacher, dated, django_capture_on_commit_callbacks
):
    from tests.games.test_sessions import create_session

    session = create_session(teacher, seed=7)
    GameSession.objects.filter(pk=session.pk).update(
        status=GameSession.Status.FINISHED, assets={"symbols": {f"{s.number:03d}": s.pk for s in dated}}
    )
    session.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create_from_session(session=session, by=teacher, total=12)
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    kinds = set(quiz.items.values_list("kind", flat=True))
    assert {"chronology", "period", "matching"} <= kinds
    played = {f"symbol:{s.pk}" for s in dated}
    for item in quiz.items.filter(kind__in=["chronology", "period", "matching"]):
        assert set(item.key["subjects"]) <= played


# --- grading on the server -----------------------------------------------------------------------


def test_the_server_grades_a_chronology_by_pairs_in_order_and_tells_progress_per_symbol(
    history_quiz, student, reviews
):
    item = item_of(history_quiz, "chronology", teachers=False)
    right = list(item.key["answer"])
    swapped = [right[1], right[0], *right[2:]]
    attempt = services.attempt_start(quiz=history_quiz, student=student)
    services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer={"order": swapped})
    services.attempt_submit(attempt=attempt)
    response = attempt.responses.get(item=item)
    pairs = len(right) * (len(right) - 1) // 2
    assert response.score == pytest.approx((pairs - 1) / pairs, abs=1e-3)
    told = {call["item_key"]: call["correct"] for call in reviews}
    by_event = item.key["event_subjects"]
    assert told[by_event[right[0]]] == told[by_event[right[1]]] == pytest.approx(1 - 1 / (len(right) - 1))
    assert all(told[by_event[e]] == 1.0 for e in right[2:])


def test_the_server_grades_a_matching_a_point_per_pair_and_a_teachers_question_as_one_item(
    history_quiz, student, reviews
):
    item = item_of(history_quiz, "matching", teachers=True)
    answer = dict(item.key["answer"])
    first, second, *_ = list(answer)
    crossed = {**answer, first: answer[second], second: answer[first]}
    choice = item_of(history_quiz, "choice", teachers=True)
    attempt = services.attempt_start(quiz=history_quiz, student=student)
    services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer={"pairs": crossed})
    services.attempt_answer_save(attempt=attempt, item_id=choice.pk, answer={"choice": choice.key["answer"]})
    graded = services.attempt_submit(attempt=attempt)
    assert attempt.responses.get(item=item).score == item.points - 2
    assert attempt.responses.get(item=choice).score == 1
    told = {call["item_key"]: call["correct"] for call in reviews}
    (subject,) = item.key["subjects"]
    assert told[subject] == pytest.approx((item.points - 2) / item.points)
    assert told[choice.key["subjects"][0]] == 1.0
    assert graded.status == "graded"
    # Progress keeps the teacher's question as an item of its own, with its words.
    assert MemoryState.objects.filter(user=student, item_key=subject).exists()
    assert items_describe([subject])[subject].label == "Połącz"


def test_a_chronology_answer_that_is_not_an_order_of_its_events_is_refused_with_a_message(
    history_quiz, student
):
    item = item_of(history_quiz, "chronology", teachers=True)
    attempt = QuizAttempt.objects.create(
        quiz=history_quiz, student=student, started_at=history_quiz.published_at, max_score=0
    )
    client = signed_in(student)
    response = client.post(
        reverse("quiz:answer", args=[attempt.pk]),
        json.dumps({"item": item.pk, "answer": {"order": ["e1", "e1", "e2", "e3"]}}),
        content_type="application/json",
    )
    assert response.status_code == 400 and "every event" in response.json()["error"]


def test_a_page_without_script_orders_a_chronology_by_the_places_chosen(history_quiz, student):
    item = item_of(history_quiz, "chronology", teachers=True)
    right = list(item.key["answer"])
    client = signed_in(student)
    client.post(reverse("quiz:take", args=[history_quiz.code]))
    attempt = QuizAttempt.objects.get(student=student)
    places = {f"item-{item.pk}-place-{event}": str(number) for number, event in enumerate(right, start=1)}
    client.post(reverse("quiz:submit", args=[attempt.pk]), places)
    assert attempt.responses.get(item=item).answer == {"order": right}
    assert attempt.responses.get(item=item).score == 1


def test_every_new_kind_answered_rightly_scores_full_marks(history_quiz, student):
    attempt = services.attempt_start(quiz=history_quiz, student=student)
    for item in history_quiz.items.all():
        services.attempt_answer_save(attempt=attempt, item_id=item.pk, answer=right_answer(item))
    graded = services.attempt_submit(attempt=attempt)
    assert graded.score == graded.max_score == history_quiz.max_score


def test_the_results_show_the_right_order_the_pairs_and_the_teachers_explanation(history_quiz, student):
    client = signed_in(student)
    client.post(reverse("quiz:take", args=[history_quiz.code]))
    attempt = QuizAttempt.objects.get(student=student)
    client.post(reverse("quiz:submit", args=[attempt.pk]), {})
    page = client.get(reverse("quiz:attempt", args=[attempt.pk])).content.decode()
    assert "Niepodległość (1918-11-11)" in page and "Piłsudski → " in page
    assert "Dlatego." in page


# --- reviews -------------------------------------------------------------------------------------


def test_a_review_asks_a_teachers_question_due_again_as_it_reads_now(student, questions):
    due = [f"question:{questions[1].pk}", f"question:{questions[2].pk}"]
    quiz = services.review_quiz_create(student=student, item_keys=due)
    kinds = sorted(quiz.items.values_list("kind", flat=True))
    assert kinds == ["chronology", "matching"]
    assert {s for item in quiz.items.all() for s in item.key["subjects"]} == set(due)


def test_a_review_of_symbols_asks_their_period_but_no_handful_of_other_symbols(student, dated):
    from content.models import Period

    prl = Period.objects.get(slug="prl")
    one_period = next(s for s in dated if list(s.periods.all()) == [prl])
    for _attempt in range(4):  # each review draws its own seed
        quiz = services.review_quiz_create(student=student, item_keys=[f"symbol:{one_period.pk}"])
        assert set(quiz.items.values_list("kind", flat=True)).isdisjoint(
            {"chronology", "matching", "connect"}
        )
        assert {s for item in quiz.items.all() for s in item.key["subjects"]} == {f"symbol:{one_period.pk}"}


# --- what the student receives, and paper -------------------------------------------------------


def test_nothing_a_student_receives_before_handing_in_tells_a_new_items_answer(history_quiz, student):
    """Extends the quiz leak test to the new kinds: no date, no right option, no pairing, no
    explanation, no stored picture name in the page or the pictures' headers."""
    client = signed_in(student)
    client.post(reverse("quiz:take", args=[history_quiz.code]))
    attempt = QuizAttempt.objects.get(student=student)
    page = client.get(reverse("quiz:attempt", args=[attempt.pk])).content.decode()
    assert set(history_quiz.items.values_list("kind", flat=True)) == {
        "choice",
        "chronology",
        "matching",
        "period",
    }
    for item in history_quiz.items.all():
        for date in item.key.get("dates", {}).values():
            assert date not in page, f"a chronology's date {date} is in the page"
        for stored in item.key.get("pictures", {}).values():
            assert stored not in page and stored.rsplit("/", 1)[-1] not in page
        for subject in item.key["subjects"]:
            assert f'"{subject}"' not in page and f">{subject}<" not in page
        assert item.key.get("explanation", "@@") not in page
        for token in item.key.get("pictures", {}):
            response = client.get(reverse("quiz:attempt_picture", args=[attempt.pk, item.pk, token]))
            assert response.status_code == 200
            assert "filename" not in response.get("Content-Disposition", "")
            assert not any(
                word in " ".join(response.headers.values()).lower()
                for word in ("kotwica", "orzel", "znak-polski")
            )
    for word in (
        "kotwica-prawidlowa",
        "znak-polski-walczacej",
        "correct",
        "data-answer=",
        "event_subjects",
        "pair_subjects",
    ):
        assert word not in page
    # A matching's right-hand sides are lettered in their shuffled order: l1 never simply pairs with A.
    matching = item_of(history_quiz, "matching", teachers=True)
    assert matching.key["answer"] != {f"l{n}": f"r{n}" for n in range(1, matching.points + 1)}
    # Options of a teacher's multiple choice carry no mark of the right one.
    choice = item_of(history_quiz, "choice", teachers=True)
    block = page.split(f'data-item="{choice.pk}"', 1)[1].split("</li>", 1)[0]
    assert block.count('type="radio"') == 3 and "checked" not in block


def test_the_worksheet_shows_the_new_items_and_only_the_key_their_answers(history_quiz, teacher):
    client = signed_in(teacher)
    sheet = pdf_text(client.get(reverse("quiz:print", args=[history_quiz.pk, "worksheet"])).content)
    key = pdf_text(client.get(reverse("quiz:print", args=[history_quiz.pk, "answer-key"])).content)
    for words in (
        "Number the events",
        "Bitwa Warszawska",
        "letter of its pair",
        "Naczelnik Państwa",
        "Kotwica",
    ):
        assert words in sheet, words
    assert "1920-08-15" not in sheet and "Dlatego." not in sheet
    assert "1920-08-15" in key and "Dlatego." in key and "Piłsudski →" in key


def test_the_teachers_preview_shows_each_new_item_with_its_answer(history_quiz, teacher):
    page = signed_in(teacher).get(reverse("quiz:detail", args=[history_quiz.pk])).content.decode()
    assert "Niepodległość (1918-11-11)" in page and "Shown in this order" in page
    assert "Dlatego." in page and "Multiple choice" in page and "Which period?" in page
