"""Quiz pages: per-object permissions, no answer keys before submission, autosave, printing."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from content.models import Symbol
from games.models import GameSession
from games.quiz import services
from games.quiz.models import Quiz, QuizAttempt, QuizResponse

from .conftest import signed_in
from .test_services import right_answer


def secrets_of(quiz: Quiz) -> list[str]:
    """Strings only an answer key holds: typed names, picture paths, progress keys, best answers."""
    found = []
    for item in quiz.items.all():
        key = item.key
        found.extend(f'"{s}"' for s in key.get("subjects", []))
        found.extend(key.get("pictures", {}).values())
        if item.kind == "know":
            found.extend(key.get("best_answers", []))
        if item.kind == "knowledge" and key.get("back"):
            found.append(key["back"])
        # The history items: a chronology's dates, a teacher's explanation.
        found.extend(key.get("dates", {}).values())
        if key.get("explanation"):
            found.append(key["explanation"])
    return [s for s in found if s]


@pytest.fixture
def telling_quiz(teacher, symbols, knowledge_questions, django_capture_on_commit_callbacks) -> Quiz:
    """A published quiz of every kind, a Know question among them, whose pictures are stored
    under their symbols' names (``orzel-bialy.png``): a file name would give the answer away."""
    from django.core.files.base import ContentFile
    from django.utils.text import slugify

    from content.models import KnowQuestion, QuizQuestion, QuizQuestionOption
    from games.engines.quiz import KnowEntry
    from games.quiz import selectors

    from .conftest import png

    for symbol, date in zip(symbols, ("1918-11-11", "1920-08-15", "1939-09-01", "1944-08-01"), strict=False):
        symbol.date = date
        symbol.save(update_fields=["date"])
    for symbol in symbols:
        symbol.picture.save(f"{slugify(symbol.name)}.png", ContentFile(png((10, 20, 30))), save=True)
    # A teacher's multiple choice whose pictures are stored under telling names too.
    written = QuizQuestion.objects.create(
        kind="choice", text="Który znak?", owner=teacher, status="published", explanation="Bo kotwica."
    )
    written.picture.save("znak-polski-walczacej.png", ContentFile(png((1, 2, 3))), save=True)
    for position, (text, right) in enumerate((("Kotwica", True), ("Orzeł", False), ("Lilijka", False))):
        option = QuizQuestionOption(question=written, position=position, text=text, correct=right)
        option.picture.save(f"{slugify(text)}-{'dobra' if right else 'zla'}.png", ContentFile(png((9, 9, 9))))
    row = KnowQuestion.objects.create(
        text="W którym roku odsłonięto pomnik?",
        answers=["w tysiąc dziewięćset osiemdziesiątym"],
        owner=teacher,
    )
    pool = selectors.pool_from_symbols(
        user=teacher, queryset=Symbol.objects.filter(pk__in=[s.pk for s in symbols]), with_knowledge=True
    )
    pool = selectors.pool_build(
        symbols=selectors.symbols_with_relations(Symbol.objects.filter(pk__in=[s.pk for s in symbols])),
        knowledge=pool.knowledge,
        know=[KnowEntry(key=f"know:{row.pk}", question=row.text, best_answers=tuple(row.answers))],
        questions=selectors.question_entries(selectors.questions_with_options(QuizQuestion.objects.all())),
    )
    counts = {
        "picture_name": 2,
        "picture_name_typed": 2,
        "name_picture": 2,
        "periods": 1,
        "text_symbol": 1,
        "knowledge": 1,
        "know": 1,
        "connect": 1,
        "period": 1,
        "chronology": 1,
        "matching": 1,
        "choice": 1,
    }
    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create(
            owner=teacher, title="Leak", source=Quiz.Source.SELECTION, pool=pool, counts=counts, seed=5
        )
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    return services.quiz_publish(quiz=quiz, by=teacher)


def test_nothing_a_student_receives_before_submitting_holds_a_key(telling_quiz, student):
    """No body and no header (Content-Disposition above all) names an answer, a picture's
    file or a progress key, for every kind of item, a Know question included."""
    published_quiz = telling_quiz
    assert set(published_quiz.items.values_list("kind", flat=True)) >= {
        "know",
        "picture_name_typed",
        "chronology",
        "matching",
        "period",
        "choice",
    }
    client = signed_in(student)
    bodies: list[tuple[str, bytes]] = []
    headers: list[tuple[str, str, str]] = []

    def keep(url: str, response: Any) -> Any:
        assert response.status_code in (200, 302), (url, response.status_code)
        content = b"".join(response.streaming_content) if response.streaming else response.content
        bodies.append((url, content))
        headers.extend((url, name, value) for name, value in response.items())
        return response

    take = reverse("quiz:take", args=[published_quiz.code])
    keep(take, client.get(take))
    started = keep(take, client.post(take))
    page_url = started["Location"]
    first_page = keep(page_url, client.get(page_url)).content.decode()
    attempt = QuizAttempt.objects.get(student=student)
    answer_url = reverse("quiz:answer", args=[attempt.pk])
    served_pictures = 0
    for item in published_quiz.items.all():
        # The resumed page rightly shows what was typed: a Know answer that is not the best one.
        answer = {"text": "nie wiem"} if item.kind == "know" else right_answer(item)
        keep(
            answer_url,
            client.post(
                answer_url, json.dumps({"item": item.pk, "answer": answer}), content_type="application/json"
            ),
        )
        for token in item.key.get("pictures", {}):
            url = reverse("quiz:attempt_picture", args=[attempt.pk, item.pk, token])
            response = keep(url, client.get(url))
            served_pictures += response["Content-Type"] == "image/png"
    keep(page_url, client.get(page_url))  # resumed, with the saved answers
    assert served_pictures  # the stored files themselves, not placeholders

    html = [
        (url, body)
        for url, body in bodies
        if not url.startswith(reverse("quiz:attempt_picture", args=[attempt.pk, 0, "x"])[:-6])
    ]
    secrets = secrets_of(published_quiz)
    assert secrets
    for url, body in html:
        text = body.decode("utf-8", errors="replace")
        for secret in secrets:
            assert secret not in text, f"{secret!r} leaked in {url}"
        assert '"answer": "' not in text and "data-answer=" not in text and "best_answers" not in text
    # Headers: no stored file name (orzel-bialy), no symbol name, no progress key, no answer.
    named = set(secrets)
    for item in published_quiz.items.all():
        named.update(item.key.get("subjects", []))
        for stored in item.key.get("pictures", {}).values():
            named.add(stored.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    named.update(Symbol.objects.values_list("name", flat=True))
    named.update(("kotwica", "dobra", "znak-polski"))
    for url, name, value in headers:
        assert "filename" not in value.lower(), (url, name, value)
        for secret in named:
            assert secret.lower() not in value.lower(), f"{secret!r} leaked in the {name} header of {url}"
    # A typed item's own block never shows its name (other items may offer it as an option:
    # that pairs it with no picture).
    page_text = first_page  # later pages hold what the student typed, rightly
    blocks = {}
    for block in page_text.split('<li class="quiz-item"')[1:]:
        blocks[int(block.split('data-item="', 1)[1].split('"', 1)[0])] = block
    typed = list(published_quiz.items.filter(kind="picture_name_typed"))
    assert typed
    for item in typed:
        for name in (item.key["name"], *item.key.get("alternatives", [])):
            assert name not in blocks[item.pk]
    # The picture URLs name item-local tokens only.
    page = dict(bodies)[page_url].decode()
    assert "symbols/" not in page and "orzel-bialy" not in page


def test_after_submitting_the_student_sees_the_result_and_the_answers(published_quiz, student):
    client = signed_in(student)
    client.post(reverse("quiz:take", args=[published_quiz.code]))
    attempt = QuizAttempt.objects.get(student=student)
    data = {}
    for item in published_quiz.items.all():
        answer = right_answer(item)
        name = f"item-{item.pk}"
        if "choice" in answer:
            data[name] = answer["choice"]
        elif "text" in answer:
            data[name] = answer["text"]
        elif "choices" in answer:
            data[name] = answer["choices"]
            data[f"{name}-sent"] = "1"
        elif "order" in answer:
            data[f"{name}-order"] = ",".join(answer["order"])
        elif "pairs" in answer:
            data.update({f"{name}-{left}": right for left, right in answer["pairs"].items()})
        else:
            data.update({f"{name}-{s}": g for s, g in answer["groups"].items()})
    response = client.post(reverse("quiz:submit", args=[attempt.pk]), data)
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.status == "graded" and attempt.score == attempt.max_score
    page = client.get(reverse("quiz:attempt", args=[attempt.pk])).content.decode()
    assert f"{attempt.max_score} / {attempt.max_score}" in page
    typed = published_quiz.items.filter(kind="picture_name_typed").first()
    if typed:
        assert typed.key["name"] in page


def test_autosave_answers_json_and_refuses_bad_input_with_a_message(published_quiz, student):
    client = signed_in(student)
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    url = reverse("quiz:answer", args=[attempt.pk])
    item = published_quiz.items.first()
    ok = client.post(
        url, json.dumps({"item": item.pk, "answer": right_answer(item)}), content_type="application/json"
    )
    assert ok.status_code == 200 and ok.json()["saved"] is True
    bad = client.post(url, "not json", content_type="application/json")
    assert bad.status_code == 400 and "item" in bad.json()["error"]
    wrong_item = client.post(url, json.dumps({"item": 10**7, "answer": {}}), content_type="application/json")
    assert wrong_item.status_code == 400
    huge = client.post(
        url, json.dumps({"item": item.pk, "answer": {"text": "x" * 9000}}), content_type="application/json"
    )
    assert huge.status_code == 400
    assert QuizResponse.objects.get(attempt=attempt).answer == right_answer(item)


def test_autosave_after_the_deadline_is_refused_and_the_page_shows_the_result(published_quiz, student):
    client = signed_in(student)
    attempt = services.attempt_start(
        quiz=published_quiz,
        student=student,
        time_limit=timedelta(minutes=1),
        now=timezone.now() - timedelta(minutes=2),
    )
    item = published_quiz.items.first()
    response = client.post(
        reverse("quiz:answer", args=[attempt.pk]),
        json.dumps({"item": item.pk, "answer": {}}),
        content_type="application/json",
    )
    assert response.status_code == 409 and response.json()["code"] == "time_up"
    page = client.get(reverse("quiz:attempt", args=[attempt.pk]))
    attempt.refresh_from_db()
    assert attempt.status == "graded"
    assert b"quiz-score" in page.content


def test_a_timed_attempt_page_shows_the_server_countdown(published_quiz, student):
    client = signed_in(student)
    attempt = services.attempt_start(quiz=published_quiz, student=student, time_limit=timedelta(minutes=10))
    page = client.get(reverse("quiz:attempt", args=[attempt.pk])).content.decode()
    assert 'data-remaining="59' in page or 'data-remaining="600"' in page
    assert 'role="timer"' in page


def test_a_student_cannot_reach_another_students_attempt(published_quiz, student):
    attempt = services.attempt_start(quiz=published_quiz, student=student)
    other = signed_in(type(student).objects.create_user("mallory", password="x"))
    item = published_quiz.items.first()
    assert other.get(reverse("quiz:attempt", args=[attempt.pk])).status_code == 404
    assert (
        other.post(
            reverse("quiz:answer", args=[attempt.pk]),
            json.dumps({"item": item.pk, "answer": {}}),
            content_type="application/json",
        ).status_code
        == 404
    )
    assert other.post(reverse("quiz:submit", args=[attempt.pk])).status_code == 404
    token = next(iter(item.key.get("pictures", {"q": ""})))
    assert other.get(reverse("quiz:attempt_picture", args=[attempt.pk, item.pk, token])).status_code == 404


def test_teacher_pages_are_the_owners_only(built_quiz, other_teacher, student):
    for client in (signed_in(other_teacher), signed_in(student)):
        for url in (
            reverse("quiz:detail", args=[built_quiz.pk]),
            reverse("quiz:status", args=[built_quiz.pk]),
            reverse("quiz:print", args=[built_quiz.pk, "answer-key"]),
        ):
            assert client.get(url).status_code == 404
        item = built_quiz.items.first()
        assert client.post(reverse("quiz:item_drop", args=[built_quiz.pk, item.pk])).status_code == 404
        assert client.post(reverse("quiz:publish", args=[built_quiz.pk])).status_code == 404
    assert built_quiz.items.count() == 14


def test_a_draft_quiz_cannot_be_taken(built_quiz, student):
    assert signed_in(student).get(reverse("quiz:take", args=[built_quiz.code])).status_code == 404


def test_the_teacher_previews_with_answers_edits_and_publishes(built_quiz, teacher):
    client = signed_in(teacher)
    page = client.get(reverse("quiz:detail", args=[built_quiz.pk])).content.decode()
    typed = built_quiz.items.filter(kind="picture_name_typed").first()
    if typed:
        assert typed.key["name"] in page
    assert "Answer" in page
    first = built_quiz.items.get(position=1)
    response = client.post(reverse("quiz:item_drop", args=[built_quiz.pk, first.pk]))
    assert response.status_code == 302 and built_quiz.items.count() == 13
    second = built_quiz.items.get(position=1)
    client.post(reverse("quiz:item_replace", args=[built_quiz.pk, second.pk]), {"kind": "picture_name_typed"})
    second.refresh_from_db()
    assert second.kind == "picture_name_typed"
    response = client.post(reverse("quiz:publish", args=[built_quiz.pk]), {"time_limit": "15"})
    built_quiz.refresh_from_db()
    assert built_quiz.status == "published" and built_quiz.options["time_limit_minutes"] == 15
    assert built_quiz.code in client.get(reverse("quiz:detail", args=[built_quiz.pk])).content.decode()


def test_publish_refuses_a_bad_time_limit_with_a_message(built_quiz, teacher):
    client = signed_in(teacher)
    response = client.post(reverse("quiz:publish", args=[built_quiz.pk]), {"time_limit": "-3"}, follow=True)
    built_quiz.refresh_from_db()
    assert built_quiz.status == "draft"
    assert b"errors" in response.content or b"greater than or equal" in response.content


def test_the_new_quiz_page_builds_from_a_symbol_set(teacher, symbol_set, django_capture_on_commit_callbacks):
    client = signed_in(teacher)
    assert client.get(reverse("quiz:new")).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("quiz:new"), {"source": "symbol_set", "symbol_set": symbol_set.pk, "total": 10}
        )
    assert response.status_code == 302
    quiz = Quiz.objects.get()
    assert quiz.items.count() == 10 and quiz.source_description == symbol_set.name
    status = client.get(reverse("quiz:status", args=[quiz.pk])).json()
    assert status == {"state": "done", "state_label": "Done", "progress": 100, "working": False}


def test_the_new_quiz_page_builds_from_a_theme_asking_only_about_its_symbols(
    teacher, symbols, django_capture_on_commit_callbacks
):
    from content.models import Theme

    theme = Theme.objects.get(slug="miejsca")
    in_theme = {f"symbol:{s.pk}" for s in symbols if theme in s.themes.all()}
    client = signed_in(teacher)
    assert "Miejsca" in client.get(reverse("quiz:new")).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("quiz:new"), {"source": "theme", "theme": theme.pk, "total": 6})
    quiz = Quiz.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("quiz:detail", args=[quiz.pk])
    assert (quiz.source, quiz.source_description, quiz.title) == ("theme", "Miejsca", "Quiz: Miejsca")
    assert quiz.state == "done" and quiz.items.count() == 6
    asked = {s for item in quiz.items.all() for s in item.key["subjects"]}
    assert asked and asked <= in_theme
    assert {e["key"] for e in quiz.pool["symbols"]} == in_theme


def test_the_new_quiz_page_builds_from_a_period_and_leaves_out_unpublished_symbols(
    teacher, symbols, periods, django_capture_on_commit_callbacks
):
    period = symbols[0].periods.get()
    members = [s for s in symbols if period in s.periods.all()]
    draft = members[0]
    Symbol.objects.filter(pk=draft.pk).update(status="draft")
    client = signed_in(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("quiz:new"), {"source": "period", "period": period.pk, "total": 3, "title": "Okres"}
        )
    assert response.status_code == 302
    quiz = Quiz.objects.get()
    assert (quiz.source, quiz.source_description, quiz.title) == ("period", period.name, "Okres")
    assert {e["key"] for e in quiz.pool["symbols"]} == {f"symbol:{s.pk}" for s in members[1:]}
    assert quiz.state == "done" and quiz.items.count() == 3


def test_a_quiz_from_a_theme_too_small_fails_with_the_reason_on_its_page(
    teacher, symbols, django_capture_on_commit_callbacks
):
    from tests.factories import ThemeFactory

    lonely = ThemeFactory(slug="pusty", name="Pusty")
    symbols[0].themes.add(lonely)
    client = signed_in(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("quiz:new"), {"source": "theme", "theme": lonely.pk, "total": 30})
    quiz = Quiz.objects.get()
    assert response["Location"] == reverse("quiz:detail", args=[quiz.pk])
    assert quiz.state == "failed" and not quiz.items.exists()
    assert "gives only" in quiz.message
    assert quiz.message in client.get(response["Location"]).content.decode()


def test_the_new_quiz_page_asks_for_what_to_build_from(teacher, symbols):
    client = signed_in(teacher)
    response = client.post(reverse("quiz:new"), {"source": "theme", "total": 10})
    assert response.status_code == 200 and b"Choose what to build the quiz from" in response.content
    assert not Quiz.objects.exists()


def test_a_selection_of_symbols_only_counts_symbols_the_teacher_may_see(
    teacher, other_teacher, symbols, django_capture_on_commit_callbacks
):
    hidden = symbols[0]
    Symbol.objects.filter(pk=hidden.pk).update(status="draft", owner=other_teacher)
    client = signed_in(teacher)
    response = client.post(reverse("quiz:new"), {"source": "selection", "symbols": [hidden.pk], "total": 1})
    assert response.status_code == 200  # the hidden symbol is not a valid choice
    assert not Quiz.objects.exists()


def test_the_follow_up_button_shows_on_the_finished_game_and_builds_the_quiz(
    teacher, symbols, django_capture_on_commit_callbacks
):
    session = GameSession.objects.create(
        game="znajznak",
        variant="duel",
        seed=3,
        join_code="FUFUFU",
        facilitator=teacher,
        status=GameSession.Status.FINISHED,
        setup={"cards": [], "names": {}},
        assets={"symbols": {f"{s.number:03d}": s.pk for s in symbols}},
    )
    client = signed_in(teacher)
    followup = reverse("quiz:followup", args=[session.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(followup)
    assert response.status_code == 302
    quiz = Quiz.objects.get(session=session)
    assert quiz.state == "done" and quiz.items.count() == services.DEFAULT_ITEMS


def test_followup_of_another_teachers_game_is_404(teacher, other_teacher, symbols):
    session = GameSession.objects.create(
        game="znajznak", variant="duel", seed=3, join_code="FUFUFV", facilitator=teacher, status="finished"
    )
    assert signed_in(other_teacher).post(reverse("quiz:followup", args=[session.pk])).status_code == 404


def test_worksheet_and_answer_key_are_pdfs_and_only_the_key_holds_the_answers(built_quiz, teacher):
    import io

    from pypdf import PdfReader

    client = signed_in(teacher)
    texts = {}
    for which in ("worksheet", "answer-key"):
        response = client.get(reverse("quiz:print", args=[built_quiz.pk, which]))
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        assert response.content.startswith(b"%PDF")
        reader = PdfReader(io.BytesIO(response.content))
        texts[which] = " ".join(page.extract_text() for page in reader.pages)
    assert "answer key" in texts["answer-key"] and "answer key" not in texts["worksheet"]
    count = built_quiz.items.count()
    assert texts["answer-key"].count("Answer:") == count
    assert texts["worksheet"].count("Answer:") == 0
    knowledge = built_quiz.items.filter(kind="knowledge").first()
    assert knowledge is None or knowledge.prompt["text"][:10] in texts["worksheet"]


def know_answer_submitted(teacher, student, capture_on_commit):
    """A published one-item Know quiz and the student's submitted attempt answering
    "Marszałek" where "Piłsudski" is expected: the answer waits for the teacher's mark."""
    from games.engines.quiz import KnowEntry, Pool

    with capture_on_commit(execute=True):
        quiz = services.quiz_create(
            owner=teacher,
            title="Know",
            source="session",
            pool=Pool(know=(KnowEntry("know:3", "Kto?", ("Piłsudski",)),)),
            total=1,
        )
    quiz.refresh_from_db()
    quiz = services.quiz_publish(quiz=quiz, by=teacher)
    attempt = services.attempt_start(quiz=quiz, student=student)
    services.attempt_answer_save(attempt=attempt, item_id=quiz.items.get().pk, answer={"text": "Marszałek"})
    services.attempt_submit(attempt=attempt)
    return quiz, attempt


def test_marking_a_know_answer_from_the_page(teacher, student, django_capture_on_commit_callbacks):
    quiz, attempt = know_answer_submitted(teacher, student, django_capture_on_commit_callbacks)
    client = signed_in(teacher)
    page = client.get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    assert "Marszałek" in page
    response = QuizResponse.objects.get()
    client.post(reverse("quiz:mark", args=[quiz.pk, response.pk]), {"mark": "1"})
    attempt.refresh_from_db()
    assert attempt.status == "graded" and attempt.score == 1


def test_a_know_answer_waiting_for_the_teachers_mark_is_not_shown_as_wrong(
    teacher, student, django_capture_on_commit_callbacks
):
    quiz, attempt = know_answer_submitted(teacher, student, django_capture_on_commit_callbacks)
    client = signed_in(student)
    url = reverse("quiz:attempt", args=[attempt.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Waiting for your teacher’s mark" in page and "Not right" not in page
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Niepoprawnie" not in page and "Czeka na ocenę nauczyciela" in page
    services.attempt_mark(response=QuizResponse.objects.get(), mark=0, by=teacher)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Not right" in page and "Waiting for your teacher’s mark" not in page


@pytest.mark.parametrize("name", ["quiz:list", "quiz:new"])
def test_teacher_pages_need_a_teacher(name, student, client):
    assert client.get(reverse(name)).status_code == 302  # to sign in
    assert signed_in(student).get(reverse(name)).status_code == 404


def test_the_finished_games_page_offers_the_follow_up_quiz_to_its_teacher_only(teacher, student):
    from games import services as game_services
    from tests.games.test_sessions import create_session

    session = create_session(teacher, seed=7)
    game_services.session_join(session=session, user=student)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)
    followup = reverse("quiz:followup", args=[session.pk])
    page = signed_in(teacher).get(reverse("games:session", args=[session.pk])).content.decode()
    assert followup in page and "Follow-up quiz" in page
    page = signed_in(student).get(reverse("games:session", args=[session.pk])).content.decode()
    assert followup not in page


def test_an_activity_game_offers_no_follow_up_quiz_button_but_says_why(teacher, student):
    from content.models import ActivityCard
    from games import services as game_services
    from games.play.activity import services as activity_services
    from tests.games.play.activity_helpers import make_cards

    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="teams",
        team_names=["Sowy", "Lisy"],
        timer=60,
    )
    game_services.session_join(session=session, user=student)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)
    followup = reverse("quiz:followup", args=[session.pk])
    client = signed_in(teacher)
    page = client.get(reverse("games:session", args=[session.pk])).content.decode()
    assert followup not in page and "Follow-up quiz" not in page
    assert "Activity makes no follow-up quiz" in page
    # The follow-up page says the same, and a post (an old page's button) builds nothing.
    page = client.get(followup).content.decode()
    assert "Activity makes no follow-up quiz" in page and "Build one quiz for the class" not in page
    response = client.post(followup, {"from": "session"}, follow=True)
    assert "Activity makes no follow-up quiz" in response.content.decode()
    assert not Quiz.objects.exists()
    with pytest.raises(services.QuizError) as refused:
        services.quiz_create_from_session(session=session, by=teacher)
    assert refused.value.code == "no_followup"


@pytest.mark.parametrize("game", ["znajznak", "knowledge", "know"])
def test_games_that_leave_something_to_ask_about_keep_their_follow_up_button(game, teacher):
    from games.quiz.templatetags.quiz_followup import followup_unavailable

    session = GameSession(game=game, facilitator=teacher)
    assert followup_unavailable(session) == ""


def test_the_teachers_preview_letters_the_options_and_never_shows_their_keys(built_quiz, teacher):
    from .test_printing import keyed_options

    keyed = keyed_options(built_quiz)
    assert keyed
    page = signed_in(teacher).get(reverse("quiz:detail", args=[built_quiz.pk])).content.decode()
    for option_id, label in keyed:
        assert f"{option_id})" not in page
        if label:
            assert f") {label}" in page
    assert "A) " in page


def test_a_one_point_quiz_says_1_point_in_the_preview(teacher, django_capture_on_commit_callbacks):
    from games.engines.quiz import KnowEntry, Pool

    with django_capture_on_commit_callbacks(execute=True):
        quiz = services.quiz_create(
            owner=teacher,
            title="Know",
            source="session",
            pool=Pool(know=(KnowEntry("know:3", "Kto?", ("Piłsudski",)),)),
            total=1,
        )
    quiz.refresh_from_db()
    assert quiz.max_score == 1
    page = signed_in(teacher).get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    assert "1 item · 1 point<" in page and "1 points" not in page
