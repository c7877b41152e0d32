"""The Know question bank (content.KnowQuestion): a finished Know game's questions with their
best-marked answers are kept by the facilitator, edited in the admin like other content
(content/permissions.py) and read by quizzes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from content.models import KnowQuestion, Status
from games import services
from games.engines import know
from games.models import GameSession
from games.play.know.services import know_questions_keep
from tests.factories import TeacherFactory
from tests.games.play.test_know_play import ANSWERS, QUESTIONS, finish, make_game, play_one_round, signed_in

pytestmark = pytest.mark.django_db


def change_url(obj: KnowQuestion) -> str:
    return reverse("admin:content_knowquestion_change", args=[obj.pk])


def test_keep_the_questions_with_their_best_marked_answers_and_nothing_about_teams() -> None:
    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    response = game.teacher.post(reverse("games:know_keep", args=[game.session.pk]), follow=True)
    assert response.status_code == 200
    assert "3 questions were kept in your question bank." in response.content.decode()
    kept = {q.text: q for q in KnowQuestion.objects.all()}
    assert set(kept) == set(QUESTIONS.values())
    state = know.state_from_dict(game.session.state)
    for card in state.questions:
        question = kept[card.text]
        # Team p(i) answered team p(i+1)'s question; every answer was marked best.
        answerer = {"p2": "p1", "p3": "p2", "p1": "p3"}[card.team]
        assert question.answers == [ANSWERS[answerer]]
        assert (question.owner, question.created_from, question.question_number) == (
            teacher,
            game.session,
            card.number,
        )
        assert (question.source, question.language, question.status) == (
            "History textbook, class 7",
            "en",
            Status.DRAFT,
        )
    for question in kept.values():
        fields = {f.name: getattr(question, f.name) for f in KnowQuestion._meta.concrete_fields}
        assert not any(
            str(value) in {"p1", "p2", "p3", "Kestrel", "Lantern", "Moss"} for value in fields.values()
        )


def test_keeping_twice_adds_nothing_and_says_so() -> None:
    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    assert know_questions_keep(session=game.session, by=teacher) == (3, 0)
    KnowQuestion.objects.filter(question_number=1).update(text="Edited by the teacher")
    assert know_questions_keep(session=game.session, by=teacher) == (0, 3)
    assert KnowQuestion.objects.count() == 3
    assert KnowQuestion.objects.filter(text="Edited by the teacher").exists()


def test_a_question_nobody_won_is_kept_with_no_answers_for_the_teacher_to_fill_in() -> None:
    game = make_game()
    play_one_round(game, check=False)
    state = know.state_from_dict(GameSession.objects.get(pk=game.session.pk).state)
    for number in state.rounds[0].answered:
        game.act(game.teacher, {"type": "mark", "question_number": number, "best_answers": []})
    game.act(game.teacher, {"type": "close_round"})
    know_questions_keep(session=game.session, by=game.session.facilitator)
    assert [q.answers for q in KnowQuestion.objects.all()] == [[], [], []]


def test_only_the_facilitator_keeps_and_only_a_finished_know_game() -> None:
    game = make_game()
    play_one_round(game, check=False)
    url = reverse("games:know_keep", args=[game.session.pk])
    response = game.teacher.post(url, follow=True)
    assert "Questions are kept once the game is over." in response.content.decode()
    finish_state = GameSession.objects.get(pk=game.session.pk)
    assert finish_state.status == GameSession.Status.RUNNING
    other = signed_in(TeacherFactory())
    assert other.post(url).status_code == 403
    assert game.teams["p1"].post(url).status_code == 403
    assert game.teams["p1"].get(url).status_code == 405
    assert not KnowQuestion.objects.exists()
    with pytest.raises(services.SessionError, match="Only the teacher who ran this game"):
        know_questions_keep(session=game.session, by=TeacherFactory())


def test_admin_the_teacher_edits_kept_questions_answers_one_per_line(client) -> None:
    game = make_game()
    finish(game)
    teacher = game.session.facilitator
    know_questions_keep(session=game.session, by=teacher)
    question = KnowQuestion.objects.order_by("question_number").first()
    client.force_login(teacher)
    listing = client.get(reverse("admin:content_knowquestion_changelist"))
    assert listing.status_code == 200 and question.text in listing.content.decode()
    page = client.get(change_url(question))
    assert page.status_code == 200 and question.answers[0] in page.content.decode()
    response = client.post(
        change_url(question),
        {
            "text": "Which sea borders Poland to the north?",
            "answers": "Baltic Sea\n\n  the   Baltic \n",
            "source": question.source,
            "language": "en",
            "status": Status.PUBLISHED,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    question.refresh_from_db()
    assert question.answers == ["Baltic Sea", "the Baltic"]
    assert question.status == Status.PUBLISHED
    assert question.created_from == game.session  # read-only in the admin


def test_admin_another_teacher_sees_published_questions_read_only_and_never_drafts(client) -> None:
    owner, other = TeacherFactory(), TeacherFactory()
    draft = KnowQuestion.objects.create(owner=owner, text="Draft question?", answers=["a"])
    shared = KnowQuestion.objects.create(
        owner=owner, text="Shared question?", answers=["b"], status=Status.PUBLISHED
    )
    client.force_login(other)
    listing = client.get(reverse("admin:content_knowquestion_changelist")).content.decode()
    assert "Shared question?" in listing and "Draft question?" not in listing
    assert client.get(change_url(draft)).status_code == 302
    assert client.get(change_url(shared)).status_code == 200
    response = client.post(
        change_url(shared), {"text": "Hacked", "answers": "x", "language": "en", "status": "draft"}
    )
    assert response.status_code == 403
    shared.refresh_from_db()
    assert shared.text == "Shared question?"
    delete_url = reverse("admin:content_knowquestion_delete", args=[shared.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == 403


def test_the_model_refuses_answers_that_are_not_a_list_of_texts() -> None:
    question = KnowQuestion(owner=TeacherFactory(), text="Q?", answers="Baltic")
    with pytest.raises(Exception, match="list of texts"):
        question.full_clean()
