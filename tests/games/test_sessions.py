"""Game sessions: create, join, start, act; per-player views over HTTP; the log; concurrency."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import OperationalError, connection, connections
from django.test import Client
from django.urls import reverse

from content.building import deck_plan
from content.models import BuildState, Deck
from games import lobby, services
from games.engines import engine_for, znajznak
from games.engines.base import IllegalAction, InvalidAction
from games.models import ActionRecord, GameSession, Participant
from games.play.znajznak.services import znajznak_setup_from_deck
from games.replay import log_replay, session_log
from games.services import SessionError
from lms.services import TEACHERS_GROUP
from tests.factories import SymbolFactory, UserFactory, symbol_set_with

#: The plane of order 2: seven cards of three symbols, any two share exactly one.
CARDS = [
    ["001", "002", "003"], ["001", "004", "005"], ["001", "006", "007"], ["002", "004", "006"],
    ["002", "005", "007"], ["003", "004", "007"], ["003", "005", "006"],
]  # fmt: skip
NAMES = {
    "001": {"name": "Orzeł Biały"},
    "002": {"name": "Kotwica Polski Walczącej", "alternatives": ["Kotwica"]},
    "003": {"name": "Choinka bożonarodzeniowa"},
    "004": {"name": "Syrenka warszawska"},
    "005": {"name": "Biało-Czerwona"},
    "006": {"name": "Tramwaj konny"},
    "007": {"name": "Solidarność"},
}
ALL_NAMES = [entry["name"] for entry in NAMES.values()] + ["Kotwica"]


def znajznak_setup(**extra: Any) -> dict[str, Any]:
    return {"cards": CARDS, "names": NAMES, "cards_per_player": 2, **extra}


def create_session(facilitator: Any, *, variant: str = "duel", **kwargs: Any) -> GameSession:
    kwargs.setdefault("setup", znajznak_setup())
    return services.session_create(facilitator=facilitator, game="znajznak", variant=variant, **kwargs)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def state_of(session: GameSession) -> znajznak.State:
    session.refresh_from_db()
    return znajznak.state_from_dict(session.state)


@dataclass
class Duel:
    session: GameSession
    teacher: Any
    ala: Any
    olek: Any

    def client(self, user: Any) -> Client:
        return signed_in(user)

    def common(self, player: str = "p1") -> str:
        return znajznak.common_symbol(state_of(self.session), player)


@pytest.fixture
def duel(teacher: Any) -> Duel:
    """A running ZnajZnak duel: Ala is p1, Olek p2, two cards each, seed 7."""
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    session = create_session(teacher, seed=7)
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    services.session_start(session=session, by=teacher)
    session.refresh_from_db()
    return Duel(session, teacher, ala, olek)


def play_to_the_end(duel: Duel) -> None:
    """p1 names wrong, p2 names right, p2 wins by pointing on the last card (seed 7)."""
    apply = services.session_apply_action
    pk = duel.session.pk
    apply(session_id=pk, player_id="p1", action={"type": "stop", "symbol": duel.common("p1")})
    apply(session_id=pk, player_id="p1", action={"type": "name", "text": "Tram"})
    common = duel.common("p2")
    apply(session_id=pk, player_id="p2", action={"type": "stop", "symbol": common})
    apply(session_id=pk, player_id="p2", action={"type": "name", "text": NAMES[common]["name"].lower()})
    apply(session_id=pk, player_id="p2", action={"type": "stop", "symbol": duel.common("p2")})
    duel.session.refresh_from_db()


# --- creating ------------------------------------------------------------------------------------


def test_session_create_records_a_drawn_seed_a_join_code_and_the_facilitator(teacher):
    session = create_session(teacher)

    assert isinstance(session.seed, int) and 0 <= session.seed <= services.SEED_MAX
    assert len(session.join_code) == 6
    assert set(session.join_code) <= set(lobby.JOIN_CODE_ALPHABET)
    assert session.status == GameSession.Status.LOBBY and session.state is None and session.version == 0
    facilitator = session.participants.get()
    assert facilitator.user == teacher and facilitator.role == Participant.Role.FACILITATOR
    assert facilitator.engine_player is None


def test_a_given_seed_is_kept(teacher):
    assert create_session(teacher, seed=12345).seed == 12345


def test_students_do_not_start_sessions(student):
    with pytest.raises(SessionError) as refused:
        create_session(student)
    assert refused.value.code == "not_allowed"


@pytest.mark.parametrize(
    ("game", "variant", "code"),
    [("znajznak", "blitz", "unknown_variant"), ("chess", "basic", "unknown_game")],
)
def test_unknown_games_and_variants_are_refused(teacher, game, variant, code):
    with pytest.raises(SessionError) as refused:
        services.session_create(facilitator=teacher, game=game, variant=variant, setup={})
    assert refused.value.code == code


def test_join_codes_are_unique_among_open_sessions_and_reused_once_finished(teacher, monkeypatch):
    codes = iter(["AAAAAA", "AAAAAA", "BBBBBB", "AAAAAA"])
    monkeypatch.setattr(lobby, "code_draw", lambda: next(codes))

    first = create_session(teacher)
    second = create_session(teacher)  # drew AAAAAA, taken: drew again
    assert (first.join_code, second.join_code) == ("AAAAAA", "BBBBBB")

    GameSession.objects.filter(pk=first.pk).update(status=GameSession.Status.FINISHED)
    assert create_session(teacher).join_code == "AAAAAA"


# --- joining -----------------------------------------------------------------------------------------


def test_the_join_code_is_entered_in_any_case_with_spaces_or_dashes(teacher, student):
    session = create_session(teacher)
    code = session.join_code
    client = signed_in(student)

    typed = f" {code[:3].lower()}-{code[3:].lower()} "
    response = client.post(reverse("games:join"), {"code": typed})
    assert response.status_code == 302 and response["Location"] == reverse("games:join_code", args=[code])

    response = client.get(reverse("games:join_code", args=[code.lower()]))
    assert response.status_code == 302 and response["Location"] == reverse("games:join_code", args=[code])

    assert client.get(reverse("games:join_code", args=[code])).status_code == 200
    assert client.get(reverse("games:join_code", args=["ZZZZZ2"])).status_code == 404


def test_a_signed_in_student_joins_as_themselves_once(teacher):
    student = UserFactory(first_name="Zosia", last_name="Nowak")
    session = create_session(teacher)
    client = signed_in(student)

    response = client.post(reverse("games:join_code", args=[session.join_code]))
    assert response.status_code == 302 and response["Location"] == reverse("games:session", args=[session.pk])
    client.post(reverse("games:join_code", args=[session.join_code]))

    player = session.participants.get(user=student)
    assert (player.nickname, player.role, player.player_id) == ("Zosia Nowak", "player", "p1")
    assert session.participants.count() == 2


def test_guests_are_refused_unless_the_teacher_allows_them(teacher):
    session = create_session(teacher, allow_guests=False)

    response = Client().post(reverse("games:join_code", args=[session.join_code]), {"nickname": "Kuba"})
    assert "Sign in to join" in response.content.decode()
    with pytest.raises(SessionError) as refused:
        services.session_join(session=session, nickname="Kuba")
    assert refused.value.code == "guests_not_allowed"
    assert session.participants.count() == 1


def test_a_guest_joins_with_a_nickname_and_is_known_by_the_token_in_their_session(teacher):
    session = create_session(teacher, allow_guests=True)
    guest, stranger = Client(), Client()

    response = guest.post(reverse("games:join_code", args=[session.join_code]), {"nickname": "  Kuba  "})
    assert response.status_code == 302

    participant = session.participants.get(nickname="Kuba")
    assert participant.user is None and len(participant.token) >= 32
    view = guest.get(reverse("games:session_view", args=[session.pk])).json()
    assert view["you"] == {"nickname": "Kuba", "player": "p1", "role": "player"}
    assert participant.token not in json.dumps(view)
    assert stranger.get(reverse("games:session_view", args=[session.pk])).status_code == 403


@pytest.mark.parametrize(
    "nickname",
    ["", "   ", "x" * 25, "<b>Kuba</b>", "Ala & Ola", 'Ala "A"', "Ku\u200bba", "Ku\x07ba"],
)
def test_nicknames_are_1_to_24_characters_without_markup_or_invisible_characters(teacher, nickname):
    session = create_session(teacher, allow_guests=True)
    with pytest.raises(SessionError) as refused:
        services.session_join(session=session, nickname=nickname)
    assert refused.value.code == "nickname_invalid"


def test_nicknames_are_unique_in_a_session_whatever_the_case(teacher):
    session = create_session(teacher, allow_guests=True)
    services.session_join(session=session, nickname="Żaneta")
    with pytest.raises(SessionError) as refused:
        services.session_join(session=session, nickname="ŻANETA")
    assert refused.value.code == "nickname_taken"
    assert services.session_join(session=session, nickname="x" * 24).nickname == "x" * 24


def test_who_joins_a_running_game_watches_it(duel):
    latecomer = UserFactory()
    spectator = services.session_join(session=duel.session, user=latecomer)
    assert (spectator.role, spectator.player_id) == ("spectator", "")

    with pytest.raises(IllegalAction):
        services.session_act(participant=spectator, action={"type": "stop", "symbol": "001"})
    response = signed_in(latecomer).post(
        reverse("games:session_actions", args=[duel.session.pk]),
        {"type": "time_up"},
        content_type="application/json",
    )
    assert response.status_code == 409


# --- starting ------------------------------------------------------------------------------------------


def test_starting_seats_the_players_in_the_order_they_joined(duel):
    session = duel.session
    assert session.status == GameSession.Status.RUNNING
    assert session.setup["players"] == [
        {"id": "p1", "name": duel.ala.get_full_name()},
        {"id": "p2", "name": duel.olek.get_full_name()},
    ]
    # The stored state is the one setup + seed give.
    assert session.state == znajznak.new_game(session.setup, seed=7, variant="duel").to_dict()


def test_only_the_facilitator_starts_and_only_once(teacher, other_teacher):
    session = create_session(teacher)
    for user in (UserFactory(), UserFactory()):
        services.session_join(session=session, user=user)
    with pytest.raises(SessionError) as refused:
        services.session_start(session=session, by=other_teacher)
    assert refused.value.code == "not_allowed"

    services.session_start(session=session, by=teacher)
    with pytest.raises(SessionError) as again:
        services.session_start(session=session, by=teacher)
    assert again.value.code == "already_started"


def test_a_setup_the_engine_refuses_keeps_the_session_in_the_lobby(teacher):
    session = create_session(teacher)  # a duel needs two players; nobody joined
    with pytest.raises(SessionError) as refused:
        services.session_start(session=session, by=teacher)
    assert refused.value.code == "invalid_setup" and "2 players" in str(refused.value)
    session.refresh_from_db()
    assert session.status == GameSession.Status.LOBBY and session.state is None


def test_the_start_page_builds_a_znajznak_deck_from_a_symbol_set(teacher):
    symbols = [SymbolFactory(name=f"Symbol nazwa {i}", number=100 + i) for i in range(7)]
    symbol_set = symbol_set_with(symbols, owner=teacher)
    client = signed_in(teacher)

    assert client.get(reverse("games:session_new")).status_code == 200
    response = client.post(
        reverse("games:session_new"),
        {
            "game": "znajznak",
            "variant": "warm_up",
            "symbol_set": symbol_set.pk,
            "cards_per_player": 5,
            "allow_guests": "on",
        },
    )

    session = GameSession.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("games:session", args=[session.pk])
    assert session.allow_guests and session.variant == "warm_up"
    assert len(session.setup["cards"]) == 7 and session.setup["names"]["100"]["name"] == "Symbol nazwa 0"
    assert session.assets["symbols"]["100"] == symbols[0].pk
    assert "cards_per_player" not in session.setup


def test_a_session_can_deal_one_lesson_set_of_a_built_deck(teacher):
    snapshot = {
        "symbols": [
            {
                "id": None,
                "number": n,
                "name": f"Nazwa {n}",
                "alternative_names": [f"N{n}"],
                "picture": f"decks/1/pictures/{n:03d}.png",
            }
            for n in range(1, 8)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": 2}, seed=1)
    deck = Deck.objects.create(
        name="Mała talia", owner=teacher, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )
    client = signed_in(teacher)

    response = client.post(reverse("games:session_new"), {
        "game": "znajznak", "variant": "duel", "deck": deck.pk, "card_set": "b", "cards_per_player": 2,
    })  # fmt: skip

    session = GameSession.objects.get()
    assert response.status_code == 302
    in_b = [i for i, label in enumerate(plan["card_labels"]) if label == "B"]
    assert session.setup["cards"] == [[f"{n:03d}" for n in plan["cards"][i]] for i in in_b]
    on_cards = {key for card in session.setup["cards"] for key in card}
    assert set(session.setup["names"]) == on_cards
    assert all(
        session.setup["names"][key] == {"name": f"Nazwa {int(key)}", "alternatives": [f"N{int(key)}"]}
        for key in on_cards
    )
    assert session.assets["pictures"] == {key: f"decks/1/pictures/{key}.png" for key in on_cards}

    refused = client.post(
        reverse("games:session_new"), {"game": "znajznak", "variant": "duel", "cards_per_player": 5}
    )
    assert refused.status_code == 200 and "Choose a deck or a symbol set." in refused.content.decode()
    with pytest.raises(SessionError):
        znajznak_setup_from_deck(deck=deck, card_set="Z")


@pytest.mark.parametrize("cards", [1, znajznak.MAX_CARDS_PER_PLAYER + 1])
def test_the_start_page_deals_the_rules_two_cards_a_player_or_more(teacher, cards):
    deck = Deck.objects.create(
        name="Mała talia", owner=teacher, state=BuildState.DONE, snapshot={"symbols": []}, plan={}
    )
    page = signed_in(teacher).post(
        reverse("games:session_new"),
        {"game": "znajznak", "variant": "duel", "deck": deck.pk, "cards_per_player": cards},
    )
    assert page.status_code == 200
    assert "Cards per player must be a whole number from 2 to 66." in page.content.decode()
    assert not GameSession.objects.exists()


def test_students_do_not_reach_the_start_page(student):
    assert signed_in(student).get(reverse("games:session_new")).status_code == 403


# --- acting ---------------------------------------------------------------------------------------------


def test_an_action_is_stored_with_its_index_and_the_new_state(duel):
    symbol = duel.common("p1")
    version, view = services.session_apply_action(
        session_id=duel.session.pk, player_id="p1", action={"type": "stop", "symbol": symbol}
    )

    assert version == 1 and view["you"] == "p1" and view["phase"] == "naming"
    duel.session.refresh_from_db()
    assert duel.session.version == 1 and duel.session.state["phase"] == "naming"
    record = ActionRecord.objects.get(session=duel.session)
    assert (record.index, record.player_id, record.action) == (0, "p1", {"type": "stop", "symbol": symbol})


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ({"type": "name", "text": "Syrenka"}, IllegalAction),  # nobody said STOP
        ({"type": "time_up"}, IllegalAction),  # only the table's timer says it
        ({"type": "stop", "symbol": "999"}, InvalidAction),
        ({"type": "jump"}, InvalidAction),
        ({"symbol": "001"}, InvalidAction),
        (["stop"], InvalidAction),
    ],
)
def test_a_refused_action_changes_nothing_and_is_not_logged(duel, action, error):
    before = (duel.session.version, duel.session.state)
    with pytest.raises(error):
        services.session_apply_action(session_id=duel.session.pk, player_id="p1", action=action)
    duel.session.refresh_from_db()
    assert (duel.session.version, duel.session.state) == before
    assert not ActionRecord.objects.exists()


def test_the_acting_player_comes_from_the_participant_never_from_the_action(duel):
    ala = duel.session.participants.get(user=duel.ala)
    services.session_act(participant=ala, action={"type": "stop", "player": "p2", "symbol": duel.common()})
    record = ActionRecord.objects.get()
    assert record.player_id == "p1" and "player" not in record.action
    assert duel.session.__class__.objects.get().state["claim"]["player"] == "p1"


def test_no_action_before_the_start_or_after_the_end(teacher, duel):
    lobby = create_session(teacher)
    with pytest.raises(IllegalAction):
        services.session_apply_action(session_id=lobby.pk, player_id="p1", action={"type": "time_up"})
    play_to_the_end(duel)
    with pytest.raises(IllegalAction):
        services.session_apply_action(
            session_id=duel.session.pk, player_id="p1", action={"type": "dont_know"}
        )


def test_the_last_action_finishes_the_session(duel):
    play_to_the_end(duel)
    session = duel.session
    assert session.status == GameSession.Status.FINISHED and session.finished_at is not None
    assert session.version == 5 and session.state["outcome"]["winner"] == "p2"


# --- HTTP: the polling fallback ------------------------------------------------------------------------


def test_actions_over_http_answer_the_players_view_or_400_409_with_the_reason(duel):
    client = duel.client(duel.ala)
    url = reverse("games:session_actions", args=[duel.session.pk])

    bad = client.post(url, "not json", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_action"
    unknown = client.post(url, {"type": "jump"}, content_type="application/json")
    assert unknown.status_code == 400 and "jump" in unknown.json()["reason"]
    illegal = client.post(url, {"type": "dont_know"}, content_type="application/json")
    assert illegal.status_code == 409 and illegal.json() == {
        "error": "illegal_action",
        "reason": "Nobody is naming a symbol: say STOP and point at the common symbol first.",
    }

    ok = client.post(url, {"type": "stop", "symbol": duel.common()}, content_type="application/json")
    assert ok.status_code == 200
    assert ok.json()["version"] == 1 and ok.json()["view"]["you"] == "p1"
    assert "no-store" in ok["Cache-Control"]
    assert Client().post(url, {"type": "dont_know"}, content_type="application/json").status_code == 403


def test_actions_over_http_need_the_csrf_token(duel):
    client = Client(enforce_csrf_checks=True)
    client.force_login(duel.ala)
    url = reverse("games:session_actions", args=[duel.session.pk])
    response = client.post(url, {"type": "stop", "symbol": duel.common()}, content_type="application/json")
    assert response.status_code == 403
    assert duel.session.actions.count() == 0


def test_polling_answers_unchanged_while_the_version_is_the_same(duel):
    client = duel.client(duel.olek)
    url = reverse("games:session_view", args=[duel.session.pk])

    full = client.get(url)
    assert full.status_code == 200 and "no-store" in full["Cache-Control"]
    assert full.json()["version"] == 0 and full.json()["view"]["you"] == "p2"
    assert client.get(url, {"since": 0}).json() == {"unchanged": True, "version": 0}

    services.session_apply_action(
        session_id=duel.session.pk, player_id="p1", action={"type": "stop", "symbol": duel.common()}
    )
    changed = client.get(url, {"since": 0}).json()
    assert changed["version"] == 1 and changed["view"]["claim"]["player"] == "p1"


def test_no_response_to_a_player_holds_a_name_before_its_card_back_is_shown(duel):
    """Per-player views: the names are the challenge, so they appear only in a reveal."""
    session = duel.session
    clients = {"p1": duel.client(duel.ala), "p2": duel.client(duel.olek), None: duel.client(duel.teacher)}
    pages = {
        "view": reverse("games:session_view", args=[session.pk]),
        "page": reverse("games:session", args=[session.pk]),
    }

    def texts() -> dict[str, str]:
        return {
            f"{who}-{kind}": client.get(url).content.decode()
            for who, client in clients.items()
            for kind, url in pages.items()
        }

    def assert_no_names(bodies: dict[str, str]) -> None:
        for where, body in bodies.items():
            for name in ALL_NAMES:
                assert name not in body and json.dumps(name)[1:-1] not in body, (where, name)
            assert '"names"' not in body and '"stacks"' not in body, where

    assert_no_names(texts())
    common = duel.common()
    answer = clients["p1"].post(
        reverse("games:session_actions", args=[session.pk]),
        {"type": "stop", "symbol": common},
        content_type="application/json",
    )
    assert_no_names({"p1-answer": answer.content.decode(), **texts()})

    services.session_apply_action(session_id=session.pk, player_id="p1", action={"type": "dont_know"})
    shown = json.dumps(NAMES[common]["name"])[1:-1]
    for where, body in texts().items():
        if where.endswith("view"):
            assert shown in body, where  # the card back is turned over for everyone
        others = [n for key, n in ((k, v["name"]) for k, v in NAMES.items()) if key != common]
        assert not any(json.dumps(n)[1:-1] in body for n in others), where


def test_each_player_sees_their_own_cards_and_the_table_sees_no_one_s(duel):
    session = duel.session
    url = reverse("games:session_view", args=[session.pk])
    p1 = duel.client(duel.ala).get(url).json()["view"]
    p2 = duel.client(duel.olek).get(url).json()["view"]
    table = duel.client(duel.teacher).get(url).json()

    state = state_of(session)
    assert p1["comparison"]["own"] == list(state.cards[state.table[0]])
    assert p2["comparison"]["own"] == list(state.cards[state.table[1]])
    assert table["you"]["role"] == "facilitator" and table["view"]["comparison"] is None
    # Below the top card only the count is shown: the order of a stack is hidden.
    for seat in p1["players"]:
        assert set(seat) >= {"cards_in_hand", "top"} and "stack" not in seat


def test_the_facilitator_page_shows_the_join_code_and_a_qr_code(teacher):
    session = create_session(teacher)
    body = signed_in(teacher).get(reverse("games:session", args=[session.pk])).content.decode()
    assert session.join_code in body and "<svg" in body
    assert f"/games/join/{session.join_code}" in body


def test_a_visitor_who_is_not_in_the_game_is_sent_to_join(duel):
    response = Client().get(reverse("games:session", args=[duel.session.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:join_code", args=[duel.session.join_code])


def test_pictures_are_served_by_key_to_participants_only(duel):
    url = reverse("games:session_picture", args=[duel.session.pk, "003"])
    response = duel.client(duel.ala).get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert "sandbox" in response["Content-Security-Policy"]
    assert Client().get(url).status_code == 404


# --- the log --------------------------------------------------------------------------------------------


def test_the_downloaded_log_replays_to_the_stored_state(duel):
    url = reverse("games:session_log", args=[duel.session.pk])
    assert duel.client(duel.ala).get(url).status_code == 403  # not over yet
    play_to_the_end(duel)

    response = duel.client(duel.olek).get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    log = json.loads(response.content)
    assert set(log) == {"game", "variant", "seed", "setup", "actions"}
    assert log["actions"][0] == {"type": "stop", "player": "p1", "symbol": log["actions"][0]["symbol"]}
    replay = log_replay(log)
    assert replay.error is None and replay.state == duel.session.state
    assert signed_in(UserFactory()).get(url).status_code == 404


# --- concurrency ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CounterState:
    """A tiny game: players add numbers; the order of additions is kept."""

    added: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"added": [list(pair) for pair in self.added], "total": sum(n for _p, n in self.added)}


def _counter_apply(state: CounterState, player: str | None, action: dict[str, Any]) -> CounterState:
    if action.get("type") != "add" or not isinstance(action.get("n"), int):
        raise InvalidAction("add a whole number")
    if action["n"] == 0:
        raise IllegalAction("adding nothing is not a move")
    # Widen the window between reading and writing the state: without the row lock,
    # concurrent actions would overwrite each other here.
    time.sleep(0.002)
    return CounterState((*state.added, (player or "", action["n"])))


COUNTER = SimpleNamespace(
    GAME="counter",
    VARIANTS=("basic",),
    new_game=lambda setup, *, seed, variant: CounterState(),
    apply_action=_counter_apply,
    is_terminal=lambda state: False,
    outcome=lambda state: None,
    legal_actions=lambda state, player: [{"type": "add"}],
    player_view=lambda state, player: {"total": sum(n for _p, n in state.added)},
    state_from_dict=lambda data: CounterState(tuple((p, n) for p, n in data["added"])),
)


@pytest.fixture
def counter_engine(monkeypatch):
    def engine(game: str) -> Any:
        return COUNTER if game == "counter" else engine_for(game)

    monkeypatch.setattr(services, "engine_for", engine)
    monkeypatch.setattr("games.selectors.engine_for", engine)
    monkeypatch.setattr("games.replay.engine_for", engine)
    return COUNTER


def apply_when_sqlite_lets_in(**kwargs: Any) -> tuple[int, dict[str, Any]]:
    """``session_apply_action``, again when SQLite's in-memory test database says "locked".

    The test database is in memory with one cache shared by all connections; there a
    second ``BEGIN IMMEDIATE`` is refused at once ("database table is locked") instead of
    waiting ``busy_timeout`` as the file database Talia runs on does. Nothing has begun
    when it is refused, so trying again is what waiting would have done.
    """
    while True:
        try:
            return services.session_apply_action(**kwargs)
        except OperationalError as error:
            if connection.vendor != "sqlite" or "locked" not in str(error):
                raise
            time.sleep(0.001)


@pytest.fixture
def teachers_group(transactional_db: None) -> None:
    """What the migrations seed and the users need, for a transactional database.

    A transactional test starts from an empty database when an earlier one flushed
    it; a serialized rollback would bring the seed back but clashes with the content
    types the flush recreates, so the few rows needed are made here.
    """
    Group.objects.get_or_create(name=TEACHERS_GROUP)


@pytest.mark.django_db(transaction=True)
def test_concurrent_actions_on_one_session_never_lose_an_update(teachers_group, counter_engine, teacher):
    players = [UserFactory() for _ in range(8)]
    session = services.session_create(facilitator=teacher, game="counter", variant="basic", setup={})
    for user in players:
        services.session_join(session=session, user=user)
    services.session_start(session=session, by=teacher)

    rounds = 6
    barrier = threading.Barrier(len(players))
    done: list[int] = []
    refused: list[Exception] = []
    lock = threading.Lock()

    def play(seat: int) -> None:
        player = f"p{seat + 1}"
        try:
            barrier.wait()
            for turn in range(rounds):
                n = 0 if turn == 3 else seat * 10 + turn + 1  # every fourth move is illegal
                try:
                    apply_when_sqlite_lets_in(
                        session_id=session.pk, player_id=player, action={"type": "add", "n": n}
                    )
                except IllegalAction as error:
                    with lock:
                        refused.append(error)
                else:
                    with lock:
                        done.append(n)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=play, args=(seat,)) for seat in range(len(players))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    session.refresh_from_db()
    assert len(refused) == len(players) and len(done) == len(players) * (rounds - 1)
    assert session.version == len(done)
    indexes = list(session.actions.order_by("index").values_list("index", flat=True))
    assert indexes == list(range(len(done)))
    assert session.state["total"] == sum(done)
    # Each player's own moves are stored in the order that player made them.
    for seat in range(len(players)):
        mine = [n for p, n in session.state["added"] if p == f"p{seat + 1}"]
        assert mine == [seat * 10 + turn + 1 for turn in range(rounds) if turn != 3]
    replay = log_replay(session_log(session))
    assert replay.error is None and replay.state == session.state


def test_only_teachers_see_the_replay_command_beside_the_game_log(teacher, student):
    """Students download the log too, but a server command means nothing to them."""
    session = create_session(teacher, seed=7)
    services.session_join(session=session, user=student)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)
    url = reverse("games:session", args=[session.pk])
    log = reverse("games:session_log", args=[session.pk])
    page = signed_in(teacher).get(url).content.decode()
    assert log in page and "manage.py replay" in page
    page = signed_in(student).get(url).content.decode()
    assert log in page and "manage.py replay" not in page
