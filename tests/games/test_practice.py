"""Every naming recorded per student; practice alone against the clock or a simulated opponent.

(The naming records are tested here because practice results are read from them; they
belong to every ZnajZnak session, class and practice alike.)
"""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from content.building import deck_plan
from content.models import BuildState, Deck
from games import selectors, services
from games.engines import znajznak
from games.engines.base import IllegalAction
from games.models import GameSession, NamingRecord, Participant, PracticeAssignment, PracticeRun
from games.play.znajznak.practice import practice_assignment_create, practice_bot_act, practice_start
from games.services import SessionError
from tests.factories import SymbolFactory, UserFactory
from tests.games.test_sessions import NAMES, create_session, signed_in, state_of

# --- naming records ------------------------------------------------------------------------------


@pytest.fixture
def duel(teacher: Any) -> GameSession:
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    symbol = SymbolFactory(number=3, name="Choinka bożonarodzeniowa")
    session = create_session(teacher, seed=7, assets={"symbols": {"003": symbol.pk, "001": 999999}})
    services.session_join(session=session, user=ala)
    services.session_join(session=session, nickname=None, user=olek)
    services.session_start(session=session, by=teacher)
    session.refresh_from_db()
    return session


def common(session: GameSession, player: str = "p1") -> str:
    return znajznak.common_symbol(state_of(session), player)


def act(session: GameSession, player: str, **action: Any) -> None:
    services.session_apply_action(session_id=session.pk, player_id=player, action=action)


def test_a_wrong_naming_is_recorded_for_the_student_with_a_snapshot_of_the_symbol(duel):
    symbol = common(duel)
    act(duel, "p1", type="stop", symbol=symbol)
    assert not NamingRecord.objects.exists()  # STOP alone names nothing

    act(duel, "p1", type="name", text="Tramwaj")

    record = NamingRecord.objects.get()
    ala = duel.participants.get(player_id="p1")
    assert (record.session, record.participant, record.user) == (duel, ala, ala.user)
    assert (record.symbol_key, record.symbol_number, record.symbol_name) == (
        symbol,
        int(symbol),
        NAMES[symbol]["name"],
    )
    assert (record.text, record.correct, record.dont_know, record.action_index) == (
        "Tramwaj",
        False,
        False,
        1,
    )


def test_right_names_and_dont_know_are_recorded_and_the_symbol_row_linked_where_it_exists(duel):
    first = common(duel)
    act(duel, "p1", type="stop", symbol=first)
    act(duel, "p1", type="dont_know")
    second = common(duel, "p2")
    act(duel, "p2", type="stop", symbol=second)
    act(duel, "p2", type="name", text=NAMES[second]["name"].upper())

    records = list(NamingRecord.objects.order_by("action_index"))
    assert [(r.participant.player_id, r.correct, r.dont_know, r.text) for r in records] == [
        ("p1", False, True, ""),
        ("p2", True, False, NAMES[second]["name"].upper()),
    ]
    for record in records:
        # "003" is linked to its library row; a symbol id that no longer exists is not.
        expected = duel.assets["symbols"]["003"] if record.symbol_key == "003" else None
        assert record.symbol_id == expected


def test_a_refused_action_records_no_naming(duel):
    with pytest.raises(IllegalAction):
        act(duel, "p1", type="name", text="Orzeł Biały")  # nobody said STOP
    act(duel, "p1", type="stop", symbol=common(duel))
    with pytest.raises(IllegalAction):
        act(duel, "p2", type="name", text="Orzeł Biały")  # p1 is naming
    assert not NamingRecord.objects.exists()


def test_the_winning_point_on_the_last_card_is_not_a_naming(duel):
    act(duel, "p2", type="stop", symbol=common(duel, "p2"))
    act(duel, "p2", type="name", text=NAMES[common(duel, "p2")]["name"])
    act(duel, "p2", type="stop", symbol=common(duel, "p2"))  # p2's hand is empty: wins
    duel.refresh_from_db()
    assert duel.status == GameSession.Status.FINISHED
    assert NamingRecord.objects.count() == 1


# --- practice ----------------------------------------------------------------------------------


def small_deck(owner: Any, *, sets: int = 1) -> Deck:
    """A built deck of order 3: 13 cards of 4 symbols."""
    snapshot = {
        "symbols": [
            {"id": None, "number": n, "name": f"Symbol numer {n}", "alternative_names": [], "picture": ""}
            for n in range(1, 14)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": sets}, seed=1)
    return Deck.objects.create(
        name="Talia 13", owner=owner, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )


@pytest.fixture
def assignment(teacher: Any) -> PracticeAssignment:
    return practice_assignment_create(
        owner=teacher, title="Ćwiczenie", deck=small_deck(teacher), bot_seconds=5, bot_accuracy=100
    )


def test_a_practice_game_is_a_duel_against_a_bot_participant(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")

    session = run.session
    assert session.status == GameSession.Status.RUNNING and session.variant == "duel"
    assert session.setup["cards_per_player"] == 5
    roles = {p.player_id: p.role for p in session.participants.exclude(player_id="")}
    assert roles == {"p1": Participant.Role.PLAYER, "p2": Participant.Role.BOT}
    assert session.participants.get(player_id="p1").user == student
    assert (run.mode, run.bot_seconds, run.bot_accuracy) == ("bot", Decimal("5.0"), 100)


def test_students_do_not_set_practice_and_guests_do_not_practise(assignment, student):
    with pytest.raises(SessionError):
        practice_assignment_create(owner=student, title="x", deck=assignment.deck)
    with pytest.raises(SessionError):
        practice_start(assignment=assignment, student=None, mode="bot")


def test_the_bot_moves_only_when_its_time_has_come_and_the_version_still_matches(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")
    session = run.session
    soon = session.updated + timedelta(seconds=2)

    early = practice_bot_act(session_id=session.pk, version=0, now=soon)
    assert (early.acted, early.reason) == (False, "not_yet") and early.wait == pytest.approx(3)
    stale = practice_bot_act(session_id=session.pk, version=3, now=soon + timedelta(seconds=9))
    assert (stale.acted, stale.reason) == (False, "stale")
    session.refresh_from_db()
    assert session.version == 0

    symbol = common(session, "p2")
    turn = practice_bot_act(session_id=session.pk, version=0, now=soon + timedelta(seconds=3))
    assert turn.acted
    session.refresh_from_db()
    # STOP and a right name (accuracy 100 %), in one go.
    assert [a.action for a in session.actions.order_by("index")] == [
        {"type": "stop", "symbol": symbol},
        {"type": "name", "text": f"Symbol numer {int(symbol)}"},
    ]
    assert session.state["reveal"]["result"] == "right"
    # The bot's namings are not a student's.
    assert not NamingRecord.objects.exists()


def test_the_bot_waits_while_the_student_names(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")
    session = run.session
    act(session, "p1", type="stop", symbol=common(session))
    later = timezone.now() + timedelta(minutes=5)
    assert practice_bot_act(session_id=session.pk, version=1, now=later).reason == "waiting"


def test_a_bot_that_never_knows_the_name_says_i_dont_know(teacher, student):
    assignment = practice_assignment_create(
        owner=teacher, title="", deck=small_deck(teacher), mode="bot", bot_seconds=1, bot_accuracy=0
    )
    run = practice_start(assignment=assignment, student=student, mode="clock")
    assert run.mode == "bot"  # the teacher's mode wins over the student's choice
    practice_bot_act(session_id=run.session.pk, version=0, now=timezone.now() + timedelta(seconds=2))
    run.session.refresh_from_db()
    assert run.session.state["reveal"]["result"] == "dont_know"


def test_the_result_is_stored_for_the_student_when_the_bot_wins(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")
    session = run.session
    act(session, "p1", type="stop", symbol=common(session))
    act(session, "p1", type="name", text="nie wiem")
    session.refresh_from_db()
    clock = timezone.now()
    while session.status != GameSession.Status.FINISHED:
        clock += timedelta(seconds=10)
        assert practice_bot_act(session_id=session.pk, version=session.version, now=clock).acted
        session.refresh_from_db()

    run.refresh_from_db()
    assert run.finished is not None and run.won is False and run.reason == "last_card"
    assert (run.named_right, run.named_wrong) == (0, 1)
    assert run.seconds is not None
    assert NamingRecord.objects.filter(user=student).count() == 1


def test_against_the_clock_the_student_plays_through_their_cards_and_the_time_is_kept(teacher, student):
    assignment = practice_assignment_create(
        owner=teacher, title="", deck=small_deck(teacher), cards_per_player=3, timer=300
    )
    run = practice_start(assignment=assignment, student=student, mode="clock")
    session = run.session
    # Nothing for the clock to do while the student looks.
    assert selectors.practice_due(run=run, session=session)[0] == "time_up"

    # A wrong STOP: the clock lifts the penalty (note a) after a few seconds.
    state = state_of(session)
    own, other = znajznak.compared_cards(state, "p1")
    wrong = next(s for s in state.cards[own] if s not in state.cards[other])
    act(session, "p1", type="stop", symbol=wrong)
    session.refresh_from_db()
    assert selectors.practice_due(run=run, session=session)[0] == "lift_penalty"
    later = session.updated + timedelta(seconds=selectors.CLOCK_PENALTY_SECONDS)
    assert practice_bot_act(session_id=session.pk, version=1, now=later).acted
    assert state_of(session).penalised == ("p2",)

    while session.status != GameSession.Status.FINISHED:
        symbol = common(session)
        act(session, "p1", type="stop", symbol=symbol)
        session.refresh_from_db()
        if session.status != GameSession.Status.FINISHED:
            act(session, "p1", type="name", text=f"Symbol numer {int(symbol)}")
            session.refresh_from_db()

    run.refresh_from_db()
    assert run.won is True and run.reason == "last_card" and run.named_right == 2
    assert run.seconds is not None and run.seconds >= 0


def test_the_clock_ends_the_game_when_the_time_is_up(teacher, student):
    assignment = practice_assignment_create(
        owner=teacher, title="", deck=small_deck(teacher), mode="clock", timer=60
    )
    run = practice_start(assignment=assignment, student=student)
    session = run.session
    assert not practice_bot_act(session_id=session.pk, version=0).acted
    turn = practice_bot_act(session_id=session.pk, version=0, now=run.started + timedelta(seconds=61))
    assert turn.acted
    run.refresh_from_db()
    assert run.reason == "time_up" and run.finished is not None


def test_nobody_joins_a_practice_game(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")
    with pytest.raises(SessionError) as refused:
        services.session_join(session=run.session, user=UserFactory())
    assert refused.value.code == "practice"


# --- practice pages ------------------------------------------------------------------------------


def test_the_teacher_sets_practice_and_students_start_it_by_code(teacher, student):
    deck = small_deck(teacher)
    client = signed_in(teacher)
    assert client.get(reverse("games:practice_new")).status_code == 200
    response = client.post(
        reverse("games:practice_new"),
        {
            "title": "Szybki przeciwnik",
            "deck": deck.pk,
            "mode": "either",
            "cards_per_player": 5,
            "bot_seconds": "4.5",
            "bot_accuracy": 70,
        },
    )
    assignment = PracticeAssignment.objects.get()
    assert response.status_code == 302
    assert (assignment.bot_seconds, assignment.bot_accuracy) == (Decimal("4.5"), 70)

    pupil = signed_in(student)
    # The join form takes a practice code too.
    joined = pupil.post(reverse("games:join"), {"code": assignment.code.lower()})
    follow = pupil.get(joined["Location"])
    assert follow.status_code == 302 and follow["Location"] == reverse(
        "games:practice", args=[assignment.code]
    )
    page = pupil.get(reverse("games:practice", args=[assignment.code]))
    assert page.status_code == 200 and "Szybki przeciwnik" in page.content.decode()
    started = pupil.post(reverse("games:practice", args=[assignment.code]), {"mode": "bot"})
    run = PracticeRun.objects.get()
    assert started["Location"] == reverse("games:session", args=[run.session_id])
    assert run.student == student

    payload = pupil.get(reverse("games:session_view", args=[run.session_id])).json()
    assert payload["practice"]["mode"] == "bot"
    assert payload["practice"]["next"] == "find" and 0 < payload["practice"]["wait"] <= 4.5
    assert "Symbol numer" not in json.dumps(payload)

    results = client.get(reverse("games:practice_results", args=[assignment.code]))
    assert results.status_code == 200 and student.get_username() in results.content.decode()
    assert pupil.get(reverse("games:practice_results", args=[assignment.code])).status_code == 403


def test_the_bot_endpoint_answers_the_wait_or_the_new_view(assignment, student):
    run = practice_start(assignment=assignment, student=student, mode="bot")
    url = reverse("games:session_bot", args=[run.session_id])
    pupil = signed_in(student)

    early = pupil.post(url, {"version": 0}, content_type="application/json")
    assert early.status_code == 409 and early.json()["error"] == "not_yet" and early.json()["wait"] > 0
    GameSession.objects.filter(pk=run.session_id).update(updated=timezone.now() - timedelta(seconds=6))
    moved = pupil.post(url, {"version": 0}, content_type="application/json")
    assert moved.status_code == 200 and moved.json()["version"] == 2
    assert Client().post(url, {"version": 2}, content_type="application/json").status_code == 403


def test_a_new_game_never_takes_a_practices_code(assignment, teacher, monkeypatch):
    """The join form looks a code up among the open sessions first: a session holding a
    practice's code would take that practice's students into the wrong game."""
    drawn = iter(assignment.code + "BBBBBB")
    with monkeypatch.context() as patched:
        patched.setattr(services.secrets, "choice", lambda alphabet: next(drawn))
        session = create_session(teacher)

    assert session.join_code == "BBBBBB"
    response = signed_in(UserFactory()).get(reverse("games:join_code", args=[assignment.code]))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:practice", kwargs={"code": assignment.code})


# --- cards per player: a whole number from 2 to 66 (games.engines.znajznak) ----------------------

#: The rule as a teacher reads it, wherever it refuses (page, service, field, engine).
RULE = (
    "Cards per player must be a whole number from 2 to 66. The rulebook deals 5, or 4 when the "
    "group has more than 26; with one card the first STOP ends the game before anyone names a symbol."
)


def practice_form(deck: Deck, cards_per_player: Any) -> dict[str, Any]:
    return {
        "title": "Karty",
        "deck": deck.pk,
        "mode": "either",
        "cards_per_player": cards_per_player,
        "bot_seconds": "8",
        "bot_accuracy": 80,
    }


@pytest.mark.parametrize("cards_per_player", [1, 67])
def test_the_practice_page_deals_two_to_sixty_six_cards_a_player(teacher, cards_per_player):
    response = signed_in(teacher).post(
        reverse("games:practice_new"), practice_form(small_deck(teacher), cards_per_player)
    )

    assert response.status_code == 200
    assert response.context["form"].errors["cards_per_player"] == [RULE]
    assert not PracticeAssignment.objects.exists()


def test_the_practice_page_takes_66_cards_a_player_and_a_small_deck_deals_what_it_has(teacher, student):
    response = signed_in(teacher).post(reverse("games:practice_new"), practice_form(small_deck(teacher), 66))

    assert response.status_code == 302
    assignment = PracticeAssignment.objects.get()
    assert assignment.cards_per_player == 66
    run = practice_start(assignment=assignment, student=student, mode="clock")
    assert run.session.setup["cards_per_player"] == 6  # the deck's 13 cards, half each


@pytest.mark.parametrize("cards_per_player", [1, 67])
def test_practice_set_through_the_service_deals_two_to_sixty_six_cards_a_player(teacher, cards_per_player):
    """The service refuses too: homework and the LMS's activity picker set practice through it."""
    with pytest.raises(SessionError) as refused:
        practice_assignment_create(
            owner=teacher, title="", deck=small_deck(teacher), cards_per_player=cards_per_player
        )
    assert (refused.value.code, str(refused.value)) == ("invalid_setup", RULE)
    assert not PracticeAssignment.objects.exists()


@pytest.mark.parametrize(("cards_per_player", "valid"), [(1, False), (2, True), (66, True), (67, False)])
def test_a_practices_cards_per_player_field_takes_two_to_sixty_six(teacher, cards_per_player, valid):
    practice = PracticeAssignment(
        owner=teacher,
        title="Karty",
        code="ABC123",
        deck=small_deck(teacher),
        cards_per_player=cards_per_player,
    )
    if valid:
        practice.full_clean()
        return
    with pytest.raises(ValidationError) as refused:
        practice.full_clean()
    assert refused.value.message_dict == {"cards_per_player": [RULE]}


def test_the_migration_gives_practices_saved_with_one_card_the_rules_two(assignment):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("games.migrations.0011_practice_cards_per_player_rule")
    PracticeAssignment.objects.filter(pk=assignment.pk).update(cards_per_player=1)
    kept = practice_assignment_create(
        owner=assignment.owner, title="", deck=assignment.deck, cards_per_player=4
    )

    migration.at_least_two(apps, None)

    assert PracticeAssignment.objects.get(pk=assignment.pk).cards_per_player == 2
    assert PracticeAssignment.objects.get(pk=kept.pk).cards_per_player == 4


def test_a_practice_refuses_a_lesson_set_too_small_for_two_hands_of_two_cards(teacher):
    deck = small_deck(teacher, sets=5)  # 13 cards: sets of 3, 3, 3, 2 and 2
    labels = deck.plan["card_labels"]
    small = next(label for label in sorted(set(labels)) if labels.count(label) == 3)

    with pytest.raises(SessionError) as refused:
        practice_assignment_create(owner=teacher, title="", deck=deck, card_set=small)

    assert f"Lesson set {small} has 3 cards" in str(refused.value)
    assert not PracticeAssignment.objects.exists()
