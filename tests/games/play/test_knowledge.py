"""Knowledge? play: setup from a board and a question pool, class/projector/homework/solo
sessions, per-player safety of the views, the move explanation, and guesses for progress."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from content.models import KnowledgeBoard, Status, Tag
from games import services as game_services
from games.engines import knowledge
from games.models import GameSession, Participant
from games.play.knowledge import services
from games.play.knowledge.services import KnowledgeOptions, SessionError
from games.replay import log_replay, session_log
from lms.progress.models import MemoryState, Review
from tests.factories import KnowledgeQuestionFactory, TeacherFactory, UserFactory
from tests.writes import get_writing

pytestmark = pytest.mark.django_db

LETTER_ANSWERS = ["A", "B", "C", "D", "E"]


@pytest.fixture
def board() -> KnowledgeBoard:
    return KnowledgeBoard.objects.get(name="Talia default board")


def make_pool(owner: Any, count: int = 12, *, status: str = Status.PUBLISHED, **extra: Any) -> list[Any]:
    questions = []
    for number in range(count):
        kind = number % 3
        if kind == 0:
            fields = {"category": "number", "answer": number % 6}
        elif kind == 1:
            fields = {"category": "letter", "answer": [LETTER_ANSWERS[number % 5]]}
        else:
            fields = {"category": "colour", "answer": ["blue"]}
        questions.append(
            KnowledgeQuestionFactory(
                owner=owner,
                status=status,
                front=f"Front {number}?",
                back=f"Back {number}.",
                **fields,
                **extra,
            )
        )
    return questions


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def options(board: KnowledgeBoard, **extra: Any) -> KnowledgeOptions:
    return KnowledgeOptions(board_id=board.pk, **extra)


# --- setup from the pool -----------------------------------------------------------------------


def test_the_setup_always_carries_the_cards_of_the_chosen_pool(teacher: Any, board: KnowledgeBoard) -> None:
    mine = make_pool(teacher, 9)
    make_pool(TeacherFactory(), 9)  # someone else's published questions
    session = services.knowledge_session_create(facilitator=teacher, options=options(board, owner="mine"))
    ids = {card["id"] for card in session.setup["cards"]}
    assert ids == {f"q{q.pk}" for q in mine}
    assert session.setup["board"] == board.as_setup()
    card = next(c for c in session.setup["cards"] if c["id"] == f"q{mine[1].pk}")
    assert card == {
        "id": f"q{mine[1].pk}", "category": "letter", "answer": mine[1].answer,
        "front": "Front 1?", "back": "Back 1.",
    }  # fmt: skip


def test_the_draw_order_comes_from_the_session_seed(teacher: Any, board: KnowledgeBoard) -> None:
    pool = make_pool(teacher, 30)
    from content.models import KnowledgeQuestion

    questions = KnowledgeQuestion.objects.filter(pk__in=[q.pk for q in pool])
    one = services.knowledge_setup(board=board, questions=questions, seed=1, harder_start=False)
    again = services.knowledge_setup(board=board, questions=questions, seed=1, harder_start=False)
    other = services.knowledge_setup(board=board, questions=questions, seed=2, harder_start=False)
    assert one == again and one["cards"] != other["cards"]
    assert sorted(c["id"] for c in one["cards"]) == sorted(c["id"] for c in other["cards"])


def test_the_pool_filters_by_tag_and_language(teacher: Any, board: KnowledgeBoard) -> None:
    history = Tag.objects.create(slug="history")
    tagged = make_pool(teacher, 7, language="en")
    for question in tagged:
        question.tags.add(history)
    make_pool(teacher, 7, language="pl")
    session = services.knowledge_session_create(
        facilitator=teacher, options=options(board, tags=(history.pk,), language="en")
    )
    assert {c["id"] for c in session.setup["cards"]} == {f"q{q.pk}" for q in tagged}


def test_a_pool_too_small_for_one_round_is_refused_and_nothing_is_written(
    teacher: Any, board: KnowledgeBoard
) -> None:
    make_pool(teacher, 5)
    before = GameSession.objects.count()
    with pytest.raises(SessionError, match="a round needs 6"):
        services.knowledge_session_create(facilitator=teacher, options=options(board, owner="mine"))
    assert GameSession.objects.count() == before


def test_another_teachers_draft_board_and_questions_are_not_usable(
    teacher: Any, board: KnowledgeBoard
) -> None:
    other = TeacherFactory()
    make_pool(other, 12, status=Status.DRAFT)
    with pytest.raises(SessionError, match="a round needs 6"):
        services.knowledge_session_create(facilitator=teacher, options=options(board))
    draft = KnowledgeBoard.objects.create(
        name="Draft", owner=other, status=Status.DRAFT, **{k: v for k, v in board.as_setup().items()}
    )
    make_pool(teacher, 6)
    with pytest.raises(SessionError, match="not available"):
        services.knowledge_session_create(facilitator=teacher, options=KnowledgeOptions(board_id=draft.pk))


# --- the setup page -------------------------------------------------------------------------------


def test_the_setup_page_creates_a_class_session_and_a_projector_game(
    teacher: Any, board: KnowledgeBoard
) -> None:
    make_pool(teacher, 12)
    client = client_for(teacher)
    page = client.get(reverse("games:knowledge_new"))
    assert page.status_code == 200 and "Talia default board" in page.content.decode()
    form = {"mode": "class", "board": board.pk, "variant": "strategic", "owner": "any", "language": ""}
    response = client.post(reverse("games:knowledge_new"), form)
    session = GameSession.objects.get(game="knowledge", status="lobby")
    assert response.status_code == 302 and response["Location"] == reverse("games:session", args=[session.pk])
    assert session.variant == "strategic"
    response = client.post(
        reverse("games:knowledge_new"), {**form, "mode": "projector", "harder_start": "on"}
    )
    started = GameSession.objects.get(game="knowledge", status="running")
    assert started.setup["harder_start"] is True and started.state["round"] == 1
    page = client.get(reverse("games:session", args=[started.pk])).content.decode()
    assert "games/knowledge.js" in page and "data-projector-toggle" in page


def test_students_may_not_open_the_teachers_setup_page(student: Any) -> None:
    assert client_for(student).get(reverse("games:knowledge_new")).status_code == 403


# --- homework and solo ------------------------------------------------------------------------------


def test_a_student_starts_a_solo_game_from_the_teachers_homework_link(
    teacher: Any, board: KnowledgeBoard
) -> None:
    make_pool(teacher, 12, status=Status.DRAFT)  # the teacher's own drafts: fine for their homework
    response = client_for(teacher).post(
        reverse("games:knowledge_new"),
        {"mode": "homework", "board": board.pk, "variant": "basic", "owner": "mine", "language": ""},
    )
    html = response.content.decode()
    assert response.status_code == 200 and "/games/knowledge/homework/" in html
    link = html[html.index("/games/knowledge/homework/") :].split('"')[0]
    student = UserFactory()
    client = client_for(student)
    assert "Start my game" in client.get(link).content.decode()
    started = client.post(link)
    session = GameSession.objects.get(game="knowledge", status="running")
    assert started["Location"] == reverse("games:session", args=[session.pk])
    assert session.facilitator == teacher
    me = session.participants.get(user=student)
    assert (me.role, me.player_id) == (Participant.Role.PLAYER, "p1")
    assert len(session.setup["cards"]) == 12
    # The game page works for the student; the view holds no unassigned card's back.
    view = client.get(reverse("games:session_view", args=[session.pk])).json()["view"]
    assert view["to_assign"] and all(set(card) == {"id", "category", "front"} for card in view["to_assign"])
    assert "Back " not in json.dumps(view)


def test_a_changed_homework_link_is_refused(student: Any) -> None:
    response = client_for(student).get(reverse("games:knowledge_homework", args=["not-a-token"]))
    assert response.status_code == 404 and "not valid" in response.content.decode()


def test_a_student_plays_alone_from_their_own_page_with_the_shared_library(board: KnowledgeBoard) -> None:
    make_pool(TeacherFactory(), 8)
    student = UserFactory()
    client = client_for(student)
    assert client.get(reverse("games:knowledge_solo")).status_code == 200
    response = client.post(
        reverse("games:knowledge_solo"), {"board": board.pk, "variant": "basic", "language": ""}
    )
    session = GameSession.objects.get(game="knowledge")
    assert response["Location"] == reverse("games:session", args=[session.pk])
    assert session.facilitator == student and session.status == "running"
    assert session.participants.get().player_id == "p1"


def test_a_guest_cannot_start_a_solo_game(board: KnowledgeBoard) -> None:
    with pytest.raises(SessionError, match="Sign in"):
        services.knowledge_solo_start(student=None, options=options(board))


# --- playing, explaining, progress -------------------------------------------------------------------


def play_to_the_end(client: Client, session: GameSession, *, guess: bool = True) -> dict[str, Any]:
    url = reverse("games:session_actions", args=[session.pk])
    view = client.get(reverse("games:session_view", args=[session.pk])).json()["view"]
    while not view["terminal"]:
        action = dict(view["legal_actions"][0])
        action.pop("player", None)
        card = view["to_assign"][0]
        if guess:
            action["guess"] = (
                3 if card["category"] == "number" else ("B" if card["category"] == "letter" else "blue")
            )
        response = client.post(url, json.dumps(action), content_type="application/json")
        assert response.status_code == 200, response.content
        view = response.json()["view"]
    return view


def test_a_solo_game_is_played_to_the_end_and_the_guesses_count_for_progress(board: KnowledgeBoard) -> None:
    pool = make_pool(TeacherFactory(), 12)
    student = UserFactory()
    session = services.knowledge_solo_start(student=student, options=options(board))
    client = client_for(student)
    view = play_to_the_end(client, session)
    assert view["outcome"] in ("won", "lost")
    last = view["history"][-1]
    assert {"matched", "on_marker", "skipped_team", "from_stack", "onto", "flag_turned"} <= set(last)
    session.refresh_from_db()
    assert session.status == "finished"
    guessed = [p for p in session.state["history"] if p["guess_correct"] is not None]
    page, writes = get_writing(client, reverse("games:knowledge_results", args=[session.pk]))
    assert page.status_code == 200 and "Front 0?" in page.content.decode()
    assert writes == []  # the end of the game kept the guesses: the page only reads
    assert Review.objects.filter(user=student).count() == len(guessed)
    right = sum(p["guess_correct"] for p in guessed)
    assert sum(state.correct for state in MemoryState.objects.filter(user=student)) == right
    assert {s.item_key for s in MemoryState.objects.filter(user=student)} <= {
        f"knowledge:{q.pk}" for q in pool
    }
    # Recording twice adds nothing.
    services.knowledge_progress_record(session=session)
    assert Review.objects.filter(user=student).count() == len(guessed)


def test_the_guesses_count_for_progress_when_the_game_ends_without_the_results_page(
    board: KnowledgeBoard,
) -> None:
    """A student who finishes and closes the tab keeps the guesses' reviews, each dated by its
    assign action (when the guess was made), not by whoever opens the results later."""
    make_pool(TeacherFactory(), 12)
    student = UserFactory()
    session = services.knowledge_solo_start(student=student, options=options(board))
    play_to_the_end(client_for(student), session)
    session.refresh_from_db()
    guessed = [n for n, p in enumerate(session.state["history"]) if p["guess_correct"] is not None]
    assert guessed and Review.objects.filter(user=student).count() == len(guessed)
    made = list(
        session.actions.filter(action__type="assign").order_by("index").values_list("created", flat=True)
    )
    assert sorted(r.reviewed_at for r in Review.objects.filter(user=student)) == sorted(
        made[n] for n in guessed
    )
    assert session.assets["knowledge"]["progress"] == len(session.state["history"])


def test_the_results_are_only_for_the_games_participants(board: KnowledgeBoard) -> None:
    make_pool(TeacherFactory(), 12)
    session = services.knowledge_solo_start(student=UserFactory(), options=options(board))
    stranger = client_for(UserFactory())
    assert stranger.get(reverse("games:knowledge_results", args=[session.pk])).status_code == 404


def test_a_small_team_plays_one_shared_game_from_several_devices(teacher: Any, board: KnowledgeBoard) -> None:
    make_pool(teacher, 12)
    session = services.knowledge_session_create(facilitator=teacher, options=options(board))
    ala, olek = UserFactory(), UserFactory()
    game_services.session_join(session=session, user=ala)
    game_services.session_join(session=session, user=olek)
    game_services.session_start(session=session, by=teacher)
    url = reverse("games:session_actions", args=[session.pk])
    for player, marker in ((ala, "team"), (olek, "white")):
        client = client_for(player)
        view = client.get(reverse("games:session_view", args=[session.pk])).json()["view"]
        card = view["to_assign"][0]["id"]
        response = client.post(
            url,
            json.dumps({"type": "assign", "card": card, "marker": marker}),
            content_type="application/json",
        )
        assert response.status_code == 200
    session.refresh_from_db()
    assert [p["player"] for p in session.state["history"]] == ["p1", "p2"]
    assert session.state["moved_this_round"] == ["team", "white"]
    # A spectator (joined after the start) watches only.
    late = UserFactory()
    game_services.session_join(session=session, user=late)
    view = client_for(late).get(reverse("games:session_view", args=[session.pk])).json()["view"]
    response = client_for(late).post(
        url, json.dumps({"type": "assign", "card": view["to_assign"][0]["id"], "marker": "green"}),
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 409


def test_the_engine_refuses_to_move_a_marker_twice_through_the_http_api(
    teacher: Any, board: KnowledgeBoard
) -> None:
    make_pool(teacher, 12)
    session = services.knowledge_session_create(facilitator=teacher, options=options(board))
    session = game_services.session_start(session=session, by=teacher)
    client = client_for(teacher)
    url = reverse("games:session_actions", args=[session.pk])
    first = session.state["round_cards"][0]
    assert (
        client.post(
            url,
            json.dumps({"type": "assign", "card": first, "marker": "team"}),
            content_type="application/json",
        ).status_code
        == 200
    )
    second = GameSession.objects.get(pk=session.pk).state["round_cards"][1]
    refused = client.post(
        url, json.dumps({"type": "assign", "card": second, "marker": "team"}), content_type="application/json"
    )
    assert refused.status_code == 409 and "has already moved this round" in refused.json()["reason"]
    assert GameSession.objects.get(pk=session.pk).version == 1


def test_the_session_log_replays_to_the_same_state(teacher: Any, board: KnowledgeBoard) -> None:
    make_pool(teacher, 12)
    student = UserFactory()
    session = services.knowledge_solo_start(student=student, options=options(board, variant="strategic"))
    play_to_the_end(client_for(student), session, guess=False)
    session.refresh_from_db()
    replay = log_replay(session_log(session))
    assert replay.error is None and replay.state == session.state
    assert knowledge.state_from_dict(session.state).history[-1].round == session.state["round"]
