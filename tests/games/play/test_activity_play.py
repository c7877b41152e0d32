"""Activity in class (games/play/activity): the setup page, teams in the lobby, the hourglass on the
server's clock, undo and pause through the endpoints, and who receives the term (only the
representative and the facilitator: Activity rulebook, Play: "so that teammates cannot see the terms")."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from content.models import ActivityCard, Tag
from games import services
from games.engines import activity
from games.models import GameSession
from games.play.activity import services as activity_services
from games.replay import log_replay
from tests.factories import UserFactory

from .activity_helpers import make_cards, signed_in, term_in_play, text, two_teams

pytestmark = pytest.mark.django_db


def post_json(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def act(game: Any, who: str, action: dict[str, Any]) -> Any:
    return post_json(game.clients[who], reverse("games:activity_act", args=[game.session.pk]), action)


# --- the setup page -------------------------------------------------------------------------------


def test_the_setup_page_is_for_teachers_only(client, teacher, student):
    url = reverse("games:activity_new")
    assert client.get(url).status_code == 302  # to the sign-in page
    assert signed_in(student).get(url).status_code == 403
    assert signed_in(teacher).get(url).status_code == 200


def test_the_setup_page_creates_a_team_game_in_the_lobby_from_the_chosen_cards(teacher):
    make_cards(teacher, 5, language="pl")
    english = make_cards(teacher, 3, language="en", prefix="secret")
    tag = Tag.objects.create(slug="history-7b")
    for card in english[:2]:
        card.tags.add(tag)
    response = signed_in(teacher).post(
        reverse("games:activity_new"),
        {
            "variant": "teams",
            "team_count": 3,
            "team_names": "Owls, Foxes, Bears",
            "language": "en",
            "tags": ["history-7b"],
            "timer": 45,
            "facilitator_sees_terms": "on",
            "allow_guests": "on",
        },
    )
    session = GameSession.objects.get(game="activity")
    assert response.status_code == 302 and response["Location"] == reverse("games:session", args=[session.pk])
    assert session.status == "lobby" and session.allow_guests
    assert session.setup["team_names"] == ["Owls", "Foxes", "Bears"] and session.setup["timer"] == 45
    assert sorted(c["id"] for c in session.setup["cards"]) == sorted(f"card-{c.pk}" for c in english[:2])


@pytest.mark.parametrize(
    ("count", "warned"), [(activity.cards_needed(2) - 1, True), (activity.cards_needed(2), False)]
)
def test_the_setup_warns_the_teacher_when_the_cards_run_out_before_a_final_task(teacher, count, warned):
    make_cards(teacher, count)
    client = signed_in(teacher)
    response = client.post(
        reverse("games:activity_new"), {"variant": "teams", "team_count": 2, "language": "pl", "timer": 60}
    )
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    warning = f"These cards give only {count} turns"
    assert (warning in page) is warned
    if warned:
        assert f"2 teams need at least {activity.cards_needed(2)} cards" in page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"variant": "teams", "team_count": 2, "team_names": "Owls", "language": "pl"}, "Give 2 names"),
        (
            {"variant": "teams", "team_count": 2, "team_names": "Owls, owls", "language": "pl"},
            "name of its own",
        ),
        ({"variant": "teams", "team_count": 5, "language": "pl"}, "less than or equal to 4"),
        ({"variant": "teams", "team_count": 2, "language": "de"}, "No Activity cards match"),
        (
            {"variant": "teams", "team_count": 2, "language": "pl", "reduce_points": "on"},
            "game for 3 players only",
        ),
        ({"variant": "three_players", "language": "pl", "timer": 5}, "greater than or equal to 15"),
    ],
)
def test_setup_mistakes_are_refused_with_a_reason_and_create_nothing(teacher, data, message):
    make_cards(teacher, 3)
    response = signed_in(teacher).post(reverse("games:activity_new"), {"timer": 60, **data})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not GameSession.objects.exists()


def test_a_teacher_deals_only_from_cards_they_may_see(teacher, other_teacher):
    mine = make_cards(teacher, 2)
    theirs = make_cards(other_teacher, 2, prefix="private")
    for card in theirs:
        card.status = "draft"
        card.save()
    signed_in(teacher).post(
        reverse("games:activity_new"), {"variant": "three_players", "language": "pl", "timer": 60}
    )
    session = GameSession.objects.get()
    assert sorted(c["id"] for c in session.setup["cards"]) == sorted(f"card-{c.pk}" for c in mine)
    assert "private" not in json.dumps(session.setup)


# --- teams in the lobby ------------------------------------------------------------------------------


def lobby(teacher: Any, players: int = 5) -> tuple[GameSession, dict[str, Any]]:
    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="teams",
        team_names=["Sowy", "Lisy"],
        timer=60,
    )
    clients = {"facilitator": signed_in(teacher)}
    for _k in range(players):
        student = UserFactory()
        participant = services.session_join(session=session, user=student)
        clients[participant.player_id] = signed_in(student)
    return session, clients


def test_a_player_chooses_their_own_team_in_the_lobby(teacher):
    session, clients = lobby(teacher)
    url = reverse("games:activity_seat", args=[session.pk])
    response = post_json(clients["p2"], url, {"team": "t2"})
    assert response.status_code == 200
    assert response.json()["your_team"] == "t2"
    assert [p["player"] for p in response.json()["teams"][1]["players"]] == ["p2"]
    session.refresh_from_db()
    assert session.setup["seating"] == {"p2": "t2"}


def test_a_player_cannot_seat_someone_else_and_nothing_changes(teacher):
    session, clients = lobby(teacher)
    response = post_json(
        clients["p2"], reverse("games:activity_seat", args=[session.pk]), {"player": "p3", "team": "t1"}
    )
    assert response.status_code == 403 and "own team" in response.json()["reason"]
    session.refresh_from_db()
    assert session.setup["seating"] == {}


def test_the_facilitator_seats_anyone_and_an_unknown_team_is_refused(teacher):
    session, clients = lobby(teacher)
    url = reverse("games:activity_seat", args=[session.pk])
    assert post_json(clients["facilitator"], url, {"player": "p3", "team": "t1"}).status_code == 200
    refused = post_json(clients["facilitator"], url, {"player": "p3", "team": "t9"})
    assert refused.status_code == 409 and "no such team" in refused.json()["reason"]
    session.refresh_from_db()
    assert session.setup["seating"] == {"p3": "t1"}


def test_the_start_makes_the_teams_players_chose_and_seats_the_others_in_the_smallest(teacher):
    session, clients = lobby(teacher, players=5)
    url = reverse("games:activity_seat", args=[session.pk])
    for player in ("p1", "p2", "p3"):
        post_json(clients[player], url, {"team": "t1"})
    session = services.session_start(session=session, by=teacher)
    state = activity.state_from_dict(session.state)
    members = {t.name: [p.id for p in t.players] for t in state.teams}
    assert members["Sowy"][:3] == ["p1", "p2", "p3"] and sorted(members["Lisy"]) == ["p4", "p5"]


def test_a_start_the_rules_refuse_says_why_and_leaves_the_lobby(teacher):
    session, clients = lobby(teacher, players=4)
    url = reverse("games:activity_seat", args=[session.pk])
    for player in ("p1", "p2", "p3", "p4"):
        post_json(clients[player], url, {"team": "t1"})
    with pytest.raises(services.SessionError, match="Every team has at least two players; team 'Lisy' has 0"):
        services.session_start(session=session, by=teacher)
    session.refresh_from_db()
    assert session.status == "lobby" and session.state is None


def test_the_lobby_tells_what_the_start_still_needs(teacher):
    session, clients = lobby(teacher, players=3)
    info = clients["p1"].get(reverse("games:activity_lobby", args=[session.pk])).json()
    assert "need 4 players; 3 have joined" in info["hint"]
    assert len(info["unseated"]) == 3 and info["you"] == "p1"


def test_teams_are_fixed_once_the_game_has_started(teacher):
    game = two_teams(teacher)
    response = post_json(
        game.clients["p1"], reverse("games:activity_seat", args=[game.session.pk]), {"team": "t2"}
    )
    assert response.status_code == 409 and "fixed" in response.json()["reason"]


def test_the_lobby_is_only_for_those_in_the_game(teacher, student):
    session, _clients = lobby(teacher)
    assert signed_in(student).get(reverse("games:activity_lobby", args=[session.pk])).status_code == 403


# --- the hourglass on the server's clock ---------------------------------------------------------------


def test_actions_are_stamped_with_the_servers_clock_not_the_browsers(teacher):
    game = two_teams(teacher)
    before = time.time()
    response = act(game, "p1", {"type": "draw", "at": 12345})
    assert response.status_code == 200
    state = game.refresh()
    assert before - 1 <= state.hourglass.memorise_from <= time.time() + 1
    assert game.session.actions.get().action["at"] == state.hourglass.memorise_from


def test_the_hourglass_turns_once_the_ten_seconds_of_memorising_are_over(teacher):
    game = two_teams(teacher)
    act(game, "p1", {"type": "draw"})
    state = game.refresh()
    url = reverse("games:activity_hourglass", args=[game.session.pk])
    too_early = post_json(game.clients["p1"], url, {"version": game.session.version})
    assert too_early.status_code == 409 and "memorise" in too_early.json()["reason"]
    assert game.refresh().phase == "memorise"
    later = state.hourglass.memorise_from + activity.MEMORISE_SECONDS + 1
    participant = game.participant("facilitator")
    assert activity_services.activity_hourglass_turn(participant=participant, version=1, now=later)
    state = game.refresh()
    assert state.phase == "presenting" and state.hourglass.started_at == round(later, 3)
    # The representative's phone asking too changes nothing: the version moved on.
    assert not activity_services.activity_hourglass_turn(
        participant=game.participant("p1"), version=1, now=later
    )
    assert game.refresh().version == 2


def test_pause_resume_and_undo_through_the_facilitators_screen(teacher):
    game = two_teams(teacher)
    act(game, "p1", {"type": "draw"})
    act(game, "p1", {"type": "start_timer"})
    assert act(game, "p1", {"type": "pause_timer"}).status_code == 409  # only the facilitator
    assert act(game, "facilitator", {"type": "pause_timer"}).status_code == 200
    assert game.refresh().hourglass.paused
    assert act(game, "facilitator", {"type": "resume_timer"}).status_code == 200
    assert act(game, "facilitator", {"type": "not_guessed"}).status_code == 200
    assert game.refresh().turn == 1
    answer = act(game, "facilitator", {"type": "undo"})
    assert answer.status_code == 200 and answer.json()["view"]["phase"] == "presenting"
    state = game.refresh()
    assert state.turn == 0 and state.hourglass.paused and state.history == ()
    assert act(game, "facilitator", {"type": "guessed", "team": "t1"}).status_code == 200
    assert game.refresh().positions == (4, 0)


def test_an_action_the_rules_refuse_is_answered_with_the_reason(teacher):
    game = two_teams(teacher)
    refused = act(game, "p3", {"type": "draw"})
    assert refused.status_code == 409 and "representative of Sowy" in refused.json()["reason"]
    assert act(game, "p1", {"type": "jump"}).status_code == 400
    assert game.refresh().version == 0


# --- nobody but the representative and the facilitator receives the term -------------------------------


def test_view_json_gives_the_term_to_the_representative_and_the_facilitator_only(teacher):
    game = two_teams(teacher)
    act(game, "p1", {"type": "draw"})
    term = term_in_play(game.refresh())
    view_url = reverse("games:session_view", args=[game.session.pk])
    for who, sees in [("p1", True), ("facilitator", True), ("p2", False), ("p3", False), ("p4", False)]:
        body = text(game.clients[who].get(view_url))
        assert (term in body) is sees, who
        page = text(game.clients[who].get(reverse("games:session", args=[game.session.pk])))
        assert (term in page) is sees, who
    # Nor any other term of the stack, to anyone.
    state = game.refresh()
    others = [t.text for c in state.cards if c.id != state.task.card for t in c.terms]
    for who in game.clients:
        body = text(game.clients[who].get(view_url))
        assert not any(other in body for other in others), who


def test_a_teammate_never_receives_the_term_while_guessing_nor_after(teacher):
    game = two_teams(teacher)
    act(game, "p1", {"type": "draw"})
    act(game, "p1", {"type": "start_timer"})
    term = term_in_play(game.refresh())
    view_url = reverse("games:session_view", args=[game.session.pk])
    assert term not in text(game.clients["p2"].get(view_url))
    responses = [act(game, "facilitator", {"type": "guessed", "team": "t1"})]
    responses += [game.clients[who].get(view_url) for who in game.clients]
    assert not any(term in text(r) for r in responses)


def test_a_guest_who_joins_late_watches_and_never_receives_the_term(teacher):
    game = two_teams(teacher)
    game.session.allow_guests = True
    game.session.save(update_fields=["allow_guests"])
    guest = Client()
    joined = guest.post(reverse("games:join_code", args=[game.session.join_code]), {"nickname": "Gość"})
    assert joined.status_code == 302
    act(game, "p1", {"type": "draw"})
    term = term_in_play(game.refresh())
    body = guest.get(reverse("games:session_view", args=[game.session.pk])).json()
    assert body["you"]["role"] == "spectator"
    assert term not in json.dumps(body, ensure_ascii=False)


def test_with_facilitator_sees_terms_off_only_the_representative_receives_it(teacher):
    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="three_players",
        team_names=[],
        timer=60,
        facilitator_sees_terms=False,
    )
    clients = {"facilitator": signed_in(teacher)}
    for _k in range(3):
        student = UserFactory()
        clients[services.session_join(session=session, user=student).player_id] = signed_in(student)
    session = services.session_start(session=session, by=teacher)
    state = activity.state_from_dict(session.state)
    presenter = state.teams[state.turn].players[0].id
    post_json(clients[presenter], reverse("games:activity_act", args=[session.pk]), {"type": "draw"})
    session.refresh_from_db()
    term = term_in_play(activity.state_from_dict(session.state))
    view_url = reverse("games:session_view", args=[session.pk])
    for who, client in clients.items():
        assert (term in text(client.get(view_url))) is (who == presenter), who


def test_final_task_part_two_the_card_goes_to_the_other_teams_and_never_to_the_finalists_guessers(teacher):
    """Final task: "That card is handed to the other teams, who choose from it the term that seems
    hardest to them. This time only the players of the team doing the final task guess.\""""
    game = two_teams(teacher)
    game.session.state = {**game.session.state, "positions": {"t1": activity.TARGET, "t2": 10}}
    game.session.save(update_fields=["state"])
    for action in ({"type": "choose_area", "area": "C"}, {"type": "draw"}, {"type": "start_timer"}):
        assert act(game, "p1", action).status_code == 200
    assert act(game, "facilitator", {"type": "guessed", "team": "t1"}).status_code == 200
    assert act(game, "p1", {"type": "draw"}).status_code == 200
    state = game.refresh()
    card = next(c for c in state.cards if c.id == state.task.card)
    view_url = reverse("games:session_view", args=[game.session.pk])
    assert all(t.text in text(game.clients["p3"].get(view_url)) for t in card.terms)
    for finalist in ("p1", "p2"):
        assert not any(t.text in text(game.clients[finalist].get(view_url)) for t in card.terms), finalist
    assert act(game, "p2", {"type": "choose_hardest", "slot": "E"}).status_code == 409
    assert act(game, "p4", {"type": "choose_hardest", "slot": "E"}).status_code == 200
    hardest = card.term("E").text
    assert hardest in text(game.clients["p1"].get(view_url))
    assert hardest not in text(game.clients["p2"].get(view_url))
    act(game, "p1", {"type": "start_timer"})
    assert act(game, "facilitator", {"type": "guessed", "team": "t1"}).status_code == 200
    game.session.refresh_from_db()
    assert game.session.status == "finished"
    assert game.refresh().result.winner == "t1"
    assert act(game, "facilitator", {"type": "undo"}).status_code == 409  # the game is over


def test_a_clock_sent_by_a_browser_is_replaced_by_the_servers(db: Any) -> None:
    """Any action path (socket, POST) stamps Activity's ``at`` itself; other games drop it."""
    import time as clock

    from games.actions import clock_stamp

    before = clock.time()
    stamped = clock_stamp("activity", {"type": "start_timer", "at": 1.0})
    assert stamped["at"] >= round(before, 3) - 0.001
    assert clock_stamp("znajznak", {"type": "stop", "at": 5}) == {"type": "stop"}


# --- the session log ----------------------------------------------------------------------------------


def test_the_downloaded_session_log_replays_to_the_sessions_state_through_an_undo(teacher):
    """Draw, the hourglass, guessed, undo, not guessed (then the cards played out, since a log is
    downloaded once the game is over): the log, with the server's clock stamps and the undone
    outcome, replays with the pure engine to exactly the stored state."""
    game = two_teams(teacher)
    assert act(game, "p1", {"type": "draw"}).status_code == 200
    assert act(game, "p1", {"type": "start_timer"}).status_code == 200
    assert act(game, "facilitator", {"type": "guessed", "team": "t1"}).status_code == 200
    assert game.refresh().positions == (4, 0)
    assert act(game, "facilitator", {"type": "undo"}).status_code == 200
    assert act(game, "facilitator", {"type": "not_guessed"}).status_code == 200
    state = game.refresh()
    assert state.positions == (0, 0) and [e.result for e in state.history] == ["not_guessed"]

    # The log is downloaded once the game is over: the other cards are played out unguessed.
    while not state.result:
        for action in ({"type": "draw"}, {"type": "start_timer"}, {"type": "not_guessed"}):
            assert act(game, "facilitator", action).status_code == 200, action
        state = game.refresh()
    assert game.session.status == GameSession.Status.FINISHED and state.positions == (0, 0)

    response = game.clients["facilitator"].get(reverse("games:session_log", args=[game.session.pk]))
    assert response.status_code == 200
    log = json.loads(response.content)
    types = [a["type"] for a in log["actions"]]
    assert types[:5] == ["draw", "start_timer", "guessed", "undo", "not_guessed"]
    assert log["actions"][0]["player"] == "p1" and "at" in log["actions"][1]
    replay = log_replay(log)
    assert replay.error is None
    assert replay.state == game.session.state
    # Without the undo the same log ends elsewhere: the replay really follows the actions.
    without_undo = {**log, "actions": [a for a in log["actions"] if a["type"] != "undo"]}
    assert log_replay(without_undo).error is not None


# --- a student who comes after the start -------------------------------------------------------------


def test_a_student_who_comes_after_the_start_joins_the_smallest_team_and_plays(teacher):
    """Setup: "Players split into 2, 3 or 4 teams of as equal a size as possible": a latecomer
    is no longer only a spectator; they join a team and take their turn as Representative."""
    game = two_teams(teacher, players=5, seating={"p1": "t1", "p2": "t1", "p3": "t1", "p4": "t2", "p5": "t2"})
    late_user = UserFactory(first_name="Spóźniony", last_name="")
    late = services.session_join(session=game.session, user=late_user)
    assert late.role == "spectator"
    client = signed_in(late_user)
    url = reverse("games:activity_join_team", args=[game.session.pk])
    response = client.post(url, json.dumps({"team": None}), content_type="application/json")
    assert response.status_code == 200, response.content
    late.refresh_from_db()
    assert late.role == "player" and late.player_id == "p6"
    assert response.json()["you"]["player"] == "p6"
    state = activity.state_from_dict(GameSession.objects.get(pk=game.session.pk).state)
    assert [p.id for p in state.teams[1].players] == ["p4", "p5", "p6"]  # Lisy were one short
    assert client.post(url, json.dumps({"team": "t1"}), content_type="application/json").status_code == 409
    # The log replays to the same state: the join is an action of the table.
    session = GameSession.objects.get(pk=game.session.pk)
    replayed = activity.new_game(session.setup, seed=session.seed, variant="teams")
    for record in session.actions.order_by("index"):
        replayed = activity.apply_action(replayed, record.player_id or None, record.action)
    assert replayed.to_dict() == state.to_dict()


def test_a_latecomer_in_the_game_for_3_players_is_told_why_they_watch(teacher):
    make_cards(teacher, 3)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="three_players",
        team_names=[],
        timer=60,
    )
    for _k in range(3):
        services.session_join(session=session, user=UserFactory())
    session = services.session_start(session=session, by=teacher)
    late_user = UserFactory()
    services.session_join(session=session, user=late_user)
    response = signed_in(late_user).post(
        reverse("games:activity_join_team", args=[session.pk]), "{}", content_type="application/json"
    )
    assert response.status_code == 409
    assert "exactly three players: you watch this game" in response.json()["reason"]
