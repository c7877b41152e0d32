"""The live quiz through the pages: who may run it, teams dealt from who joined, answers
from phones (twice, late, after a reconnect), and what every screen receives while a
question is open (issue 21, a live team quiz; Bad input)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import consumers, services
from games.engines import quiz_live
from games.models import GameSession, Participant
from games.play.quiz_live.services import quiz_live_attempts_record, quiz_live_session_create
from games.quiz.models import Quiz, QuizAttempt, QuizItem
from games.signals import quiz_attempt_graded
from lms.services import TEACHERS_GROUP
from tests.factories import TeacherFactory, UserFactory
from tests.games.play.session_pages import SessionPages
from tests.games.test_live import TIMEOUT, socket

pytestmark = pytest.mark.django_db

#: Words only the keys hold: none may reach a phone or the projector while a question is open.
SECRET = "Kosynier-secret-key"

OPTIONS = [{"id": "a", "label": "1918"}, {"id": "b", "label": "1945"}, {"id": "c", "label": "1989"}]


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    # A transactional test empties the tables, the teachers' group too.
    Group.objects.get_or_create(name=TEACHERS_GROUP)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def published_quiz(owner: Any, *, status: str = Quiz.Status.PUBLISHED) -> Quiz:
    quiz = Quiz.objects.create(
        owner=owner,
        title="Dates of Poland",
        source=Quiz.Source.QUESTIONS,
        seed=3,
        code=f"L{owner.pk:05d}"[:6],
        state="done",
        status=status,
    )
    for position, (text, right) in enumerate((("Independence", "a"), ("Round Table", "c")), start=1):
        QuizItem.objects.create(
            quiz=quiz,
            position=position,
            kind="choice",
            prompt={"text": text, "options": OPTIONS},
            key={"answer": right, "subjects": [f"question:{SECRET}-{position}"], "names": {"x": SECRET}},
            points=1,
        )
    return quiz


@dataclass
class Live(SessionPages):
    session: GameSession
    teacher: Client
    phones: dict[str, Client]  # player id -> the student's phone
    users: dict[str, Any]

    def state(self) -> quiz_live.State:
        self.session.refresh_from_db()
        return quiz_live.state_from_dict(self.session.state)


def start_live(*, students: int = 6, team_count: int = 3, time: str = "off") -> Live:
    teacher_user = TeacherFactory()
    quiz = published_quiz(teacher_user)
    teacher = signed_in(teacher_user)
    response = teacher.post(
        reverse("games:quiz_live_new", args=[quiz.pk]),
        {"team_count": team_count, "time": time, "seconds": "", "allow_guests": ""},
    )
    assert response.status_code == 302, response.content
    session = GameSession.objects.get(game="quiz_live", facilitator=teacher_user)
    phones, users = {}, {}
    for n in range(students):
        user = UserFactory(first_name=f"Student{n}")
        participant = services.session_join(session=session, user=user)
        phones[participant.player_id], users[participant.player_id] = signed_in(user), user
    assert teacher.post(reverse("games:session_start", args=[session.pk])).status_code == 302
    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    return Live(session, teacher, phones, users)


def test_the_quizs_teacher_runs_it_live_another_teacher_does_not_and_a_draft_is_refused() -> None:
    owner, stranger = TeacherFactory(), TeacherFactory()
    quiz = published_quiz(owner)
    session = quiz_live_session_create(facilitator=owner, quiz=quiz, team_count=3)
    assert session.game == "quiz_live" and session.assets == {
        "quiz": quiz.pk,
        "items": list(quiz.items.order_by("position").values_list("pk", flat=True)),
    }
    with pytest.raises(services.SessionError, match="Only the quiz's teacher"):
        quiz_live_session_create(facilitator=stranger, quiz=quiz)
    assert signed_in(stranger).get(reverse("games:quiz_live_new", args=[quiz.pk])).status_code == 404
    page = signed_in(owner).get(reverse("games:quiz_live_new", args=[quiz.pk])).content.decode()
    assert "Your recent live quizzes" in page and session.join_code in page
    draft = published_quiz(TeacherFactory(), status=Quiz.Status.DRAFT)
    with pytest.raises(services.SessionError, match="Publish the quiz"):
        quiz_live_session_create(facilitator=draft.owner, quiz=draft)


def test_the_form_refuses_one_team_and_a_time_out_of_range_with_a_message() -> None:
    teacher = TeacherFactory()
    quiz = published_quiz(teacher)
    response = signed_in(teacher).post(
        reverse("games:quiz_live_new", args=[quiz.pk]), {"team_count": 1, "time": "off", "seconds": 2}
    )
    assert response.status_code == 200
    assert "choose 0 or at least 2" in response.content.decode()
    assert not GameSession.objects.filter(game="quiz_live").exists()


def test_the_students_who_joined_are_dealt_into_the_teams_and_each_team_chooses_a_team_id() -> None:
    live = start_live(students=6, team_count=3)
    state = live.state()
    assert sorted(len(team.players) for team in state.teams) == [2, 2, 2]
    assert sorted(p for team in state.teams for p in team.players) == sorted(live.phones)
    for team, name in zip(state.teams, ("Otter", "Heron", "Newt"), strict=True):
        response = live.act(live.phones[team.players[0]], {"type": "choose_team_id", "team_id": name})
        assert response.status_code == 200, response.content
    mate = state.teams[0].players[1]
    assert live.view(live.phones[mate])["view"]["your_team"]["team_id"] == "Otter"


def test_a_phone_that_answers_twice_reconnects_or_answers_late_counts_once_with_a_clear_reason() -> None:
    live = start_live(students=6, team_count=3)
    team = live.state().teams[0]
    phone, mate = live.phones[team.players[0]], live.phones[team.players[1]]
    assert live.act(live.teacher, {"type": "open_question"}).status_code == 200
    assert live.act(phone, {"type": "answer", "question": 1, "answer": {"choice": "b"}}).status_code == 200
    # The teammate changes the team's answer; the same phone sends it again after a reconnect.
    assert live.act(mate, {"type": "answer", "question": 1, "answer": {"choice": "a"}}).status_code == 200
    assert live.act(mate, {"type": "answer", "question": 1, "answer": {"choice": "a"}}).status_code == 200
    asked = live.state().asked[0]
    assert [(a.team, dict(a.answer)) for a in asked.answers] == [(team.id, {"choice": "a"})]
    # The server's clock, never the phone's.
    assert asked.answers[0].at > 1_000_000_000
    assert live.act(live.teacher, {"type": "close_question"}).status_code == 200
    late = live.act(phone, {"type": "answer", "question": 1, "answer": {"choice": "c"}})
    assert late.status_code == 409
    assert late.json()["reason"] == "Question 1 is closed; answers to it are no longer taken."
    bad = live.act(phone, {"type": "answer", "question": 1, "answer": {"choice": "z"}})
    assert bad.status_code in (400, 409)
    view = live.view(phone)["view"]
    assert view["your_team"]["result"]["score"] == 1.0
    assert view["reveal"]["answer"] == "a"


@pytest.fixture
def _sockets_closed() -> Any:
    yield
    consumers.database_threads_close()


@pytest.mark.django_db(transaction=True)
def test_no_phone_nor_the_projector_receives_the_key_while_a_question_is_open(
    settings: Any, _sockets_closed: None
) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    live = start_live(students=4, team_count=2)
    live.act(live.teacher, {"type": "open_question"})
    first = live.state().teams[0].players[0]
    live.act(live.phones[first], {"type": "answer", "question": 1, "answer": {"choice": "a"}})
    texts: dict[str, str] = {}
    for player, client in [*live.phones.items(), ("teacher", live.teacher)]:
        for url in (
            reverse("games:session", args=[live.session.pk]),
            reverse("games:session_view", args=[live.session.pk]),
        ):
            response = client.get(url)
            assert response.status_code == 200
            texts[f"{player} {url}"] = response.content.decode()

        async def first_socket_message(client: Client = client) -> str:
            communicator = socket(live.session, client)
            accepted, _ = await communicator.connect(timeout=TIMEOUT)
            assert accepted
            message = await communicator.receive_from(timeout=TIMEOUT)
            await communicator.disconnect()
            return message

        texts[f"{player} websocket"] = async_to_sync(first_socket_message)()
    for where, text in texts.items():
        assert SECRET not in text, where
        assert '"reveal": {' not in text and '"reveal":{' not in text, where
        assert '"result"' not in text, where
    # Who answered is not written anywhere a player reads: the other team's view says only "1 answered".
    other = live.state().teams[1].players[0]
    view = live.view(live.phones[other])["view"]
    assert view["question"]["answered"] == 1 and view["your_team"]["answer"] is None


def test_a_question_is_pictured_only_once_it_has_been_asked_and_only_to_the_people_in_the_game() -> None:
    live = start_live(students=2, team_count=0)
    phone = next(iter(live.phones.values()))
    url = reverse("games:quiz_live_picture", args=[live.session.pk, 1, "q"])
    assert phone.get(url).status_code == 404  # not asked yet (and the item has no picture)
    live.act(live.teacher, {"type": "open_question"})
    assert Client().get(url).status_code == 404


def with_a_picture(quiz: Quiz, *, token: str = "p1") -> Quiz:
    """The quiz's first item shows a picture (the library's file is missing: a placeholder)."""
    item = QuizItem.objects.get(quiz=quiz, position=1)
    item.prompt = {**item.prompt, "picture": token}
    item.key = {**item.key, "pictures": {token: "pictures/missing.png"}}
    item.save(update_fields=["prompt", "key"])
    return quiz


def test_the_session_page_gives_its_script_the_url_of_a_questions_pictures() -> None:
    teacher_user, student = TeacherFactory(), UserFactory()
    session = quiz_live_session_create(
        facilitator=teacher_user, quiz=with_a_picture(published_quiz(teacher_user))
    )
    services.session_join(session=session, user=student)
    services.session_start(session=session, by=teacher_user)
    teacher, phone = signed_in(teacher_user), signed_in(student)
    page = reverse("games:session", args=[session.pk])
    template = phone.get(page).context["live"]["question_pictures"]
    assert teacher.get(page).context["live"]["question_pictures"] == template
    # static/games/quiz_live.js fills in the question's number and the picture's token.
    url = template.replace("NUMBER", "1").replace("KEY", "p1")
    assert url == reverse("games:quiz_live_picture", args=[session.pk, 1, "p1"])
    assert phone.get(url).status_code == 404  # question 1 is not asked yet
    Live(session, teacher, {}, {}).act(teacher, {"type": "open_question"})
    response = phone.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    other = services.session_create(
        facilitator=teacher_user, game="know", variant="facilitator_marks", setup={}
    )
    services.session_join(session=other, user=student)
    assert phone.get(reverse("games:session", args=[other.pk])).context["live"]["question_pictures"] is None


def test_a_team_quizs_log_is_not_downloaded_since_it_says_who_in_a_team_answered() -> None:
    live = start_live(students=4, team_count=2)
    live.act(live.teacher, {"type": "end_game"})
    log = reverse("games:session_log", args=[live.session.pk])
    assert live.teacher.get(log).status_code == 403
    assert next(iter(live.phones.values())).get(log).status_code == 403
    assert Participant.objects.filter(session=live.session, role=Participant.Role.PLAYER).count() == 4


def play_to_the_end(live: Live) -> dict[str, str]:
    """Team 1 right twice, team 2 right once (after changing its mind), team 3 silent."""
    teams = live.state().teams
    live.act(live.teacher, {"type": "open_question"})
    live.act(live.phones[teams[0].players[0]], {"type": "answer", "question": 1, "answer": {"choice": "a"}})
    live.act(live.phones[teams[1].players[1]], {"type": "answer", "question": 1, "answer": {"choice": "c"}})
    live.act(live.phones[teams[1].players[0]], {"type": "answer", "question": 1, "answer": {"choice": "a"}})
    live.act(live.teacher, {"type": "close_question"})
    live.act(live.teacher, {"type": "open_question"})
    live.act(live.phones[teams[0].players[1]], {"type": "answer", "question": 2, "answer": {"choice": "c"}})
    live.act(live.phones[teams[1].players[1]], {"type": "answer", "question": 2, "answer": {"choice": "b"}})
    live.act(live.teacher, {"type": "close_question"})
    response = live.act(live.teacher, {"type": "end_game"})
    assert response.status_code == 200, response.content
    return {player: team.id for team in teams for player in team.players}


def test_each_student_gets_one_graded_attempt_with_the_teams_answers_when_the_quiz_ends() -> None:
    live = start_live(students=6, team_count=3)
    # A phone that reconnects joins again: the same participant, counted once.
    for player, user in live.users.items():
        assert services.session_join(session=live.session, user=user).player_id == player
    team_of = play_to_the_end(live)
    live.session.refresh_from_db()
    assert live.session.status == GameSession.Status.FINISHED
    attempts = QuizAttempt.objects.filter(quiz_id=live.session.assets["quiz"])
    assert attempts.count() == 6
    scores = {team_of[player]: set() for player in team_of}
    for player, user in live.users.items():
        attempt = attempts.get(student=user)
        assert attempt.status == QuizAttempt.Status.GRADED and attempt.max_score == 2
        scores[team_of[player]].add(attempt.score)
    teams = live.state().teams
    assert [scores[team.id] for team in teams] == [{2.0}, {1.0}, {0.0}]
    # Recording again (a second end, a retried task) adds nothing.
    quiz_live_attempts_record(session=live.session)
    assert attempts.count() == 6


def test_a_guest_plays_the_live_quiz_but_gets_no_attempt() -> None:
    teacher_user = TeacherFactory()
    quiz = published_quiz(teacher_user)
    session = quiz_live_session_create(facilitator=teacher_user, quiz=quiz, allow_guests=True)
    services.session_join(session=session, nickname="Guest")
    student = UserFactory()
    services.session_join(session=session, user=student)
    services.session_start(session=session, by=teacher_user)
    services.session_apply_action(
        session_id=session.pk, player_id=None, action={"type": "end_game", "at": 1.0}
    )
    assert list(QuizAttempt.objects.filter(quiz=quiz).values_list("student", flat=True)) == [student.pk]


def test_the_attempts_are_announced_as_graded_so_homework_grades_and_the_lms_follow() -> None:
    graded: list[int] = []

    def on_graded(sender: Any, *, attempt: QuizAttempt, **kwargs: Any) -> None:
        graded.append(attempt.student_id)

    quiz_attempt_graded.connect(on_graded, dispatch_uid="test-quiz-live-graded")
    try:
        live = start_live(students=4, team_count=2)
        play_to_the_end(live)
    finally:
        quiz_attempt_graded.disconnect(dispatch_uid="test-quiz-live-graded")
    assert sorted(graded) == sorted(user.pk for user in live.users.values())


def statements_to_end(students: int) -> int:
    live = start_live(students=students, team_count=2)
    teams = live.state().teams
    live.act(live.teacher, {"type": "open_question"})
    live.act(live.phones[teams[0].players[0]], {"type": "answer", "question": 1, "answer": {"choice": "a"}})
    live.act(live.phones[teams[1].players[0]], {"type": "answer", "question": 1, "answer": {"choice": "b"}})
    live.act(live.teacher, {"type": "close_question"})
    with CaptureQueriesContext(connection) as queries:
        response = live.act(live.teacher, {"type": "end_game"})
    assert response.status_code == 200, response.content
    assert QuizAttempt.objects.filter(quiz_id=live.session.assets["quiz"]).count() == students
    return len(queries)


def test_ending_the_quiz_costs_statements_that_grow_by_a_few_a_student_and_none_an_answer() -> None:
    two, six = statements_to_end(2), statements_to_end(6)
    # The homework gradebook looks each attempt up (3 statements with its savepoint); the
    # answers, responses and memories are written in bulk, whatever their number.
    assert six - two <= 3 * 4, (two, six)
    assert six < 80, six
