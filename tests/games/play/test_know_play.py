"""Know in class through the pages and the polling endpoint: setup, a full round, the projector,
the log download, and anonymity read from every message a non-member gets (issue: Know in class).

Anonymity: no response available to a player links a Team ID or an answer to a player or
device, except that player's own team; the facilitator sees the mapping only if set up so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.engines import know
from games.models import GameSession, Participant
from games.play.know.services import know_session_create
from tests.factories import TeacherFactory, UserFactory
from tests.games.play.session_pages import SessionPages

TEAM_IDS = {"p1": "Kestrel", "p2": "Lantern", "p3": "Moss"}
ANSWERS = {"p1": "Vistula river", "p2": "Year nineteen eighteen", "p3": "Baltic coast"}
QUESTIONS = {"p1": "Which sea borders Poland?", "p2": "Which river flows through Warsaw?", "p3": "When?"}


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@dataclass
class Game(SessionPages):
    session: GameSession
    teacher: Client
    teams: dict[str, Client]  # player id -> the team device
    guest: Client
    outsider: Client
    log: list[str] = field(default_factory=list)

    def state(self) -> know.State:
        self.session.refresh_from_db()
        return know.state_from_dict(self.session.state)

    def projector(self) -> dict[str, Any]:
        response = self.teacher.get(reverse("games:know_projector_view", args=[self.session.pk]))
        assert response.status_code == 200
        return response.json()


def make_game(*, mapping: bool = False, variant: str = "facilitator_marks", immediately: bool = True) -> Game:
    teacher_user = TeacherFactory()
    session = know_session_create(
        facilitator=teacher_user,
        variant=variant,
        cards_per_team=1,
        source="History textbook, class 7",
        resolve_immediately=immediately,
        facilitator_sees_mapping=mapping,
        allow_guests=True,
        language="en",
    )
    teams = {}
    for name in ("Ala", "Bartek", "Celina"):
        user = UserFactory(first_name=name, last_name="Nowak")
        services.session_join(session=session, user=user)
        teams[Participant.objects.get(session=session, user=user).player_id] = signed_in(user)
    assert sorted(teams) == ["p1", "p2", "p3"]
    teacher = signed_in(teacher_user)
    response = teacher.post(reverse("games:session_start", args=[session.pk]))
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    # A latecomer watches (a spectator), and someone who never joined is no one.
    guest = Client()
    guest.post(reverse("games:join_code", args=[session.join_code]), {"nickname": "Latecomer"})
    return Game(session, teacher, teams, guest, Client())


def public_removed(payload: dict[str, Any]) -> str:
    """The payload without the score record, the outcome and the list of who joined: the
    only places Team IDs or player ids are public (and there, never linked to each other)."""
    view = dict(payload.get("view") or {})
    view.pop("score_record", None)
    view.pop("outcome", None)
    rest = {key: value for key, value in payload.items() if key not in ("view", "participants")}
    rest["view"] = view
    return json.dumps(rest, ensure_ascii=False)


def mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def assert_no_link(
    game: Game, payload: dict[str, Any], *, viewer: str | None, mapping_allowed: bool = False
) -> None:
    """``viewer`` (a player id, "facilitator", or None for a spectator / the projector) sees no
    other team's Team ID outside the public score record, no other team's player id outside
    the list of who joined, and every answer without an owner."""
    rest = public_removed(payload)
    for player, team_id in TEAM_IDS.items():
        if player == viewer or (viewer == "facilitator" and mapping_allowed):
            continue
        assert not mentions(rest, team_id), (viewer, team_id)
        if viewer not in ("facilitator",):
            assert not mentions(rest, player), (
                viewer,
                player,
                re.findall(rf".{{80}}(?<!\w){player}(?!\w).{{20}}", rest),
            )
    view = payload.get("view") or {}
    for resolution in view.get("resolutions", []):
        for question in resolution["questions"]:
            for answer in question["answers"]:
                assert set(answer) <= {"id", "text", "yours"}, answer
                if viewer in TEAM_IDS:
                    assert answer.get("yours") == (answer["text"] == ANSWERS[viewer]), (viewer, answer)
                else:
                    assert "yours" not in answer
    # Before resolution, another team's answer appears nowhere (but in earlier rounds' decks,
    # revealed without Team IDs).
    if view.get("phase") in ("questions", "answers"):
        unrevealed = {**payload, "view": {k: v for k, v in view.items() if k != "resolutions"}}
        for player, text in ANSWERS.items():
            if player != viewer:
                assert text not in json.dumps(unrevealed, ensure_ascii=False), (viewer, text)
    # A spectator (the projector) carries no one's controls.
    if viewer is None and view:
        assert view["legal_actions"] == []


def read_everything(game: Game, *, mapping: bool = False) -> list[dict[str, Any]]:
    """Every screen's payload now, checked; returns them for more checks."""
    seen = []
    for player, client in game.teams.items():
        payload = game.view(client)
        assert payload["you"]["player"] == player
        assert_no_link(game, payload, viewer=player)
        seen.append(payload)
    payload = game.view(game.teacher)
    assert_no_link(game, payload, viewer="facilitator", mapping_allowed=mapping)
    seen.append(payload)
    for payload in (game.view(game.guest), game.projector()):
        assert_no_link(game, payload, viewer=None)
        seen.append(payload)
    projector = game.projector()
    assert projector["participants"] == [] and projector["you"]["role"] == "projector"
    text = json.dumps(projector, ensure_ascii=False)
    for name in ("Ala", "Bartek", "Celina", "Latecomer", "Nowak"):
        assert name not in text
    return seen


def play_one_round(game: Game, *, mapping: bool = False, check: bool = True) -> None:
    """Team IDs, questions, one Question Round, resolution (immediately) and marking."""

    def checked() -> None:
        if check:
            read_everything(game, mapping=mapping)

    checked()
    state = game.state()
    for player, client in game.teams.items():
        assert game.act(client, {"type": "choose_team_id", "team_id": TEAM_IDS[player]}).status_code == 200
        checked()
        card = next(c.number for c in state.questions if c.team == player)
        response = game.act(client, {"type": "write_question", "card": card, "text": QUESTIONS[player]})
        assert response.status_code == 200
        checked()
    assert game.act(game.teacher, {"type": "start_round"}).status_code == 200
    checked()
    for player, client in game.teams.items():
        card = next(c.number for c in game.state().questions if c.team == player)
        assert game.act(client, {"type": "submit_question", "card": card}).status_code == 200
        checked()
    owner = {c.number: c.team for c in game.state().questions}
    order = ["p1", "p2", "p3"]
    for index, player in enumerate(order):
        target = next(n for n, team in owner.items() if team == order[(index + 1) % 3])
        action = {
            "type": "submit_answer",
            "question_number": target,
            "text": ANSWERS[player],
            "team_id": TEAM_IDS[player],
        }
        assert game.act(game.teams[player], action).status_code == 200
        checked()
    assert game.act(game.teacher, {"type": "close_submissions"}).status_code == 200
    checked()


@pytest.mark.django_db
def test_new_know_game_page_creates_a_session_with_the_facilitator_s_setup() -> None:
    teacher = TeacherFactory()
    client = signed_in(teacher)
    page = client.get(reverse("games:know_new"))
    assert page.status_code == 200 and "Agreed source of answers" in page.content.decode()
    response = client.post(
        reverse("games:know_new"),
        {
            "source": "  Atlas   of the World ",
            "cards_per_team": 3,
            "variant": "team_marks",
            "resolution": "later",
            "language": "pl",
            "facilitator_sees_mapping": "on",
            "allow_guests": "on",
        },
    )
    session = GameSession.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("games:session", args=[session.pk])
    assert (session.game, session.variant, session.allow_guests) == ("know", "team_marks", True)
    assert session.setup == {
        "cards_per_team": 3,
        "source": "Atlas of the World",
        "facilitator_sees_mapping": True,
        "resolve_immediately": False,
    }
    assert session.assets == {"language": "pl"}
    again = client.get(reverse("games:know_new")).content.decode()
    assert "Your recent Know games" in again and session.join_code in again


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [({"source": " "}, "source"), ({"cards_per_team": 0}, "cards_per_team"), ({"variant": "open"}, "variant"),
     ({"resolution": "never"}, "resolution"), ({"cards_per_team": 11}, "cards_per_team")],
)  # fmt: skip
def test_new_know_game_bad_input_is_refused_with_the_field_named_and_nothing_created(change, field) -> None:
    client = signed_in(TeacherFactory())
    data = {"source": "Atlas", "cards_per_team": 2, "variant": "facilitator_marks", "resolution": "later"}
    data["language"] = "en"
    data.update(change)
    response = client.post(reverse("games:know_new"), data)
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert not GameSession.objects.exists()


@pytest.mark.django_db
def test_new_know_game_is_for_teachers_only() -> None:
    assert signed_in(UserFactory()).get(reverse("games:know_new")).status_code == 403
    assert Client().get(reverse("games:know_new")).status_code == 302  # to the login


@pytest.mark.django_db
def test_know_needs_two_team_devices_to_start_and_says_so() -> None:
    teacher = TeacherFactory()
    session = know_session_create(
        facilitator=teacher,
        variant="facilitator_marks",
        cards_per_team=1,
        source="Atlas",
        resolve_immediately=True,
        facilitator_sees_mapping=False,
        allow_guests=False,
    )
    services.session_join(session=session, user=UserFactory())
    with pytest.raises(services.SessionError, match="at least two teams: 1 team device joined"):
        services.session_start(session=session, by=teacher)
    session.refresh_from_db()
    assert session.status == GameSession.Status.LOBBY and session.state is None


@pytest.mark.django_db
def test_every_joined_device_is_one_team_and_names_never_reach_the_state() -> None:
    game = make_game()
    state = game.state()
    assert [(t.id, t.players) for t in state.teams] == [("p1", ("p1",)), ("p2", ("p2",)), ("p3", ("p3",))]
    assert "Ala" not in json.dumps(game.session.state)


@pytest.mark.django_db
@pytest.mark.parametrize("mapping", [False, True])
def test_anonymity_every_polled_view_of_a_full_round_links_no_team_id_or_answer_to_another_team(
    mapping,
) -> None:
    game = make_game(mapping=mapping)
    play_one_round(game, mapping=mapping)
    state = game.state()
    assert know.phase(state) == "resolution"  # resolved immediately
    deck = state.rounds[0]
    for answer in deck.answers:
        assert game.act(game.teacher, {"type": "mark", "question_number": answer.question_number,
                                       "best_answers": [answer.id]}).status_code == 200  # fmt: skip
        read_everything(game, mapping=mapping)
    assert game.act(game.teacher, {"type": "close_round"}).status_code == 200
    seen = read_everything(game, mapping=mapping)
    assert all(p["view"]["score_record"] == {"Kestrel": 2, "Lantern": 2, "Moss": 2} for p in seen)
    facilitator = game.view(game.teacher)["view"]["facilitator"]
    assert all(("team_id" in team) == mapping for team in facilitator["teams"])


@pytest.mark.django_db
def test_an_invalid_answer_card_is_refused_with_the_reason_and_changes_nothing() -> None:
    game = make_game()
    play_one_round(game, check=False)  # closes the round; a new one is needed for answers
    version = GameSession.objects.get(pk=game.session.pk).version
    response = game.act(game.teams["p1"], {"type": "submit_answer", "question_number": 1, "text": "x"})
    assert response.status_code == 400
    assert "Team ID" in response.json()["reason"]
    assert GameSession.objects.get(pk=game.session.pk).version == version


@pytest.mark.django_db
def test_a_team_id_clash_is_refused_without_revealing_whose_it_was() -> None:
    game = make_game()
    assert game.act(game.teams["p1"], {"type": "choose_team_id", "team_id": "Kestrel"}).status_code == 200
    response = game.act(game.teams["p2"], {"type": "choose_team_id", "team_id": "  kestrel "})
    assert response.status_code == 409
    reason = response.json()["reason"]
    assert reason == "That Team ID is taken; choose another."
    for name in ("p1", "Ala", "Nowak"):
        assert name not in reason


@pytest.mark.django_db
def test_the_projector_is_the_facilitator_s_and_shows_the_public_view_only() -> None:
    game = make_game(mapping=True)
    play_one_round(game, mapping=True, check=False)
    page = game.teacher.get(reverse("games:know_projector", args=[game.session.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    embedded = page.context["payload"]
    assert embedded["view"] == know.player_view(game.state(), None)
    for name in ("Ala", "Bartek", "Celina", "Latecomer"):
        assert name not in html
    for team_id in TEAM_IDS.values():
        assert team_id not in json.dumps(embedded["view"]["resolutions"])
    for client in (*game.teams.values(), game.guest, game.outsider):
        assert client.get(reverse("games:know_projector", args=[game.session.pk])).status_code in (302, 404)
        response = client.get(reverse("games:know_projector_view", args=[game.session.pk]))
        assert response.status_code == 403 and "view" not in response.json()


@pytest.mark.django_db
def test_the_projector_polling_answers_unchanged_while_nothing_happened() -> None:
    game = make_game()
    version = game.projector()["version"]
    url = reverse("games:know_projector_view", args=[game.session.pk])
    assert game.teacher.get(url, {"since": version}).json() == {"unchanged": True, "version": version}
    game.act(game.teams["p1"], {"type": "choose_team_id", "team_id": "Kestrel"})
    assert game.teacher.get(url, {"since": version}).json()["version"] == version + 1


def finish(game: Game) -> None:
    play_one_round(game, check=False)
    state = game.state()
    for answer in state.rounds[0].answers:
        game.act(
            game.teacher,
            {"type": "mark", "question_number": answer.question_number, "best_answers": [answer.id]},
        )
    assert game.act(game.teacher, {"type": "close_round"}).status_code == 200
    game.session.refresh_from_db()
    assert game.session.status == GameSession.Status.FINISHED  # the questions ran out


@pytest.mark.django_db
@pytest.mark.parametrize("mapping", [False, True])
def test_the_know_log_is_the_facilitator_s_and_only_when_the_mapping_was_allowed(mapping) -> None:
    game = make_game(mapping=mapping)
    finish(game)
    url = reverse("games:session_log", args=[game.session.pk])
    for client in (*game.teams.values(), game.guest):
        response = client.get(url)
        assert response.status_code == 403
        assert not any(team_id.encode() in response.content for team_id in TEAM_IDS.values())
    assert game.outsider.get(url).status_code == 404
    response = game.teacher.get(url)
    assert response.status_code == (200 if mapping else 403)
    if mapping:
        assert json.loads(response.content)["game"] == "know"
    page = game.teacher.get(reverse("games:session", args=[game.session.pk])).content.decode()
    assert (url in page) == mapping
    assert url not in game.teams["p1"].get(reverse("games:session", args=[game.session.pk])).content.decode()


@pytest.mark.django_db
def test_the_session_page_of_a_team_device_embeds_its_own_view_only() -> None:
    game = make_game()
    play_one_round(game, check=False)
    for player, client in game.teams.items():
        page = client.get(reverse("games:session", args=[game.session.pk]))
        payload = page.context["payload"]
        assert_no_link(game, payload, viewer=player)
        assert "games/know.js" in page.content.decode()


@pytest.mark.django_db
def test_the_new_know_game_page_is_linked_from_home_and_from_start_a_game() -> None:
    client = signed_in(TeacherFactory())
    url = reverse("games:know_new")
    assert f'href="{url}"' in client.get(reverse("home")).content.decode()
    assert f'href="{url}"' in client.get(reverse("games:session_new")).content.decode()


# --- set-aside questions and ending the game, through the session's actions ---------------------

VIEWERS: dict[str, str | None] = {"p1": "p1", "p2": "p2", "p3": "p3", "teacher": "facilitator", "guest": None}


def acted(game: Game, who: str, action: dict[str, Any], *, check: bool = True) -> dict[str, Any]:
    """``who`` (a player id or "teacher") acts through the actions endpoint; the response it gets
    (its own payload) is read for links too, and, with ``check``, every screen afterwards."""
    client = game.teacher if who == "teacher" else game.teams[who]
    response = game.act(client, action)
    assert response.status_code == 200, response.content
    payload = response.json()
    if check:
        assert_no_link(game, payload, viewer=VIEWERS[who])
        read_everything(game)
    return payload


def play_to_a_set_aside_round_put_aside(game: Game, *, check: bool = True) -> int:
    """Resolution later: round 1, in which nobody answers p3's question, is resolved, marked and
    closed (Kestrel 2, Lantern 1, Moss 1); p3's question, set aside, is played again in round 2,
    answered by p1, and round 2 waits, put to one side. Returns p3's question number."""
    state = game.state()
    card = {player: next(c.number for c in state.questions if c.team == player) for player in game.teams}
    for player in game.teams:
        acted(game, player, {"type": "choose_team_id", "team_id": TEAM_IDS[player]}, check=check)
        acted(game, player, {"type": "write_question", "card": card[player], "text": QUESTIONS[player]},
              check=check)  # fmt: skip
    acted(game, "teacher", {"type": "start_round"}, check=check)
    for player in game.teams:
        acted(game, player, {"type": "submit_question", "card": card[player]}, check=check)
    # One answer card each (3 teams): nobody answers p3's question.
    for player, target in (("p1", "p2"), ("p2", "p1"), ("p3", "p1")):
        action = {"type": "submit_answer", "question_number": card[target], "text": ANSWERS[player],
                  "team_id": TEAM_IDS[player]}  # fmt: skip
        acted(game, player, action, check=check)
    acted(game, "teacher", {"type": "close_submissions"}, check=check)
    for payload in (game.view(game.guest), game.projector(), game.view(game.teams["p1"])):
        assert payload["view"]["set_aside"] == [card["p3"]]  # public, by number only
        assert payload["view"]["put_aside_rounds"] == [1]
    acted(game, "teacher", {"type": "resolve", "round": 1}, check=check)
    deck = game.state().rounds[0]
    for number in (card["p1"], card["p2"]):
        best = [a.id for a in deck.answers if a.question_number == number]
        acted(game, "teacher", {"type": "mark", "question_number": number, "best_answers": best}, check=check)
    acted(game, "teacher", {"type": "close_round"}, check=check)
    assert game.view(game.guest)["view"]["score_record"] == {"Kestrel": 2, "Lantern": 1, "Moss": 1}
    assert game.view(game.guest)["view"]["set_aside"] == [card["p3"]]
    # The set-aside question comes back: a round of set-aside questions.
    payload = acted(game, "teacher", {"type": "start_round"}, check=check)
    assert payload["view"]["round"]["kind"] == "set_aside"
    assert game.view(game.teams["p1"])["view"]["legal_actions"] == []  # p1 has nothing set aside
    assert game.view(game.teams["p3"])["view"]["legal_actions"] == [
        {"type": "submit_question", "card": card["p3"]}
    ]
    acted(game, "p3", {"type": "submit_question", "card": card["p3"]}, check=check)
    questions = game.projector()["view"]["round"]["questions"]
    assert questions == [{"number": card["p3"], "text": QUESTIONS["p3"]}]  # no team named
    action = {"type": "submit_answer", "question_number": card["p3"], "text": ANSWERS["p1"],
              "team_id": TEAM_IDS["p1"]}  # fmt: skip
    acted(game, "p1", action, check=check)
    acted(game, "teacher", {"type": "close_submissions"}, check=check)
    assert game.projector()["view"]["put_aside_rounds"] == [2]
    return card["p3"]


@pytest.mark.django_db
def test_a_question_nobody_answered_is_set_aside_publicly_and_played_again_without_linking_anyone() -> None:
    game = make_game(immediately=False)
    number = play_to_a_set_aside_round_put_aside(game)
    state = game.state()
    assert [deck.kind for deck in state.rounds] == ["fresh", "set_aside"]
    assert state.rounds[1].questions == (number,) and state.questions[number - 1].status == "in_round"
    assert game.view(game.guest)["view"]["set_aside"] == []
    # Round 2 is resolved like any other: p1's answer wins the Point Pool.
    acted(game, "teacher", {"type": "resolve"})
    (answer,) = game.state().rounds[1].answers
    acted(game, "teacher", {"type": "mark", "question_number": number, "best_answers": [answer.id]})
    acted(game, "teacher", {"type": "close_round"})
    game.session.refresh_from_db()
    assert game.session.status == GameSession.Status.FINISHED  # every question is marked
    final = game.projector()["view"]["outcome"]
    assert final["reason"] == "questions_ran_out"
    assert final["score_record"] == {"Kestrel": 4, "Lantern": 1, "Moss": 1}


@pytest.mark.django_db
def test_ending_the_game_with_a_round_waiting_to_be_marked_finishes_with_one_final_score_record() -> None:
    game = make_game(immediately=False)
    play_to_a_set_aside_round_put_aside(game, check=False)
    # The facilitator is told, before confirming, what ending now leaves unmarked.
    leaves = game.view(game.teacher)["view"]["facilitator"]["if_ended_now"]
    assert leaves["put_aside_rounds"] == [2] and leaves["put_aside_questions"] == 1
    assert (leaves["resolving_round"], leaves["open_round"], leaves["unplayed_questions"]) == (None, None, 0)
    for client in (*game.teams.values(), game.guest):
        assert "facilitator" not in game.view(client)["view"]
    response = game.act(game.teams["p1"], {"type": "end_game"})
    assert response.status_code == 409 and response.json()["reason"] == "Only the facilitator ends the game."
    acted(game, "teacher", {"type": "end_game"})
    game.session.refresh_from_db()
    assert game.session.status == GameSession.Status.FINISHED
    assert game.state().rounds[1].status == "put_aside"  # never marked: p1's answer earns nothing
    final = {"Kestrel": 2, "Lantern": 1, "Moss": 1}
    screens = {
        "facilitator": game.view(game.teacher),
        **{player: game.view(client) for player, client in game.teams.items()},
        "spectator": game.view(game.guest),
        "projector": game.projector(),
    }
    page = game.teacher.get(reverse("games:know_projector", args=[game.session.pk]))
    screens["projector page"] = page.context["payload"]
    for name, payload in screens.items():
        view = payload["view"]
        assert payload["status"] == "finished", name
        assert view["phase"] == "over" and view["terminal"], name
        assert view["score_record"] == final, name
        assert view["outcome"] == {
            "reason": "ended_by_facilitator",
            "score_record": final,
            "ranking": ["Kestrel", "Lantern", "Moss"],
            "winners": ["Kestrel"],
        }, name
        assert view["legal_actions"] == [], name
    response = game.act(game.teacher, {"type": "end_game"})
    assert response.status_code == 409
