"""ZnajZnak note c on the server: the timer's deadline, the time-up applied once, everywhere.

"Before the game, a timer may be set for 10 minutes. If nobody has got rid of all their
cards when the time runs out, the winner is the player with the fewest cards in hand."
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from games import selectors, services, tasks, timers
from games.engines import znajznak
from games.models import ActionRecord, GameSession
from games.play.znajznak.duels import class_round_start
from games.play.znajznak.practice import practice_assignment_create, practice_start
from tests.factories import UserFactory
from tests.games.test_classroom import built_deck, class_with
from tests.games.test_sessions import create_session, signed_in, state_of, znajznak_setup

pytestmark = pytest.mark.django_db


def timed_duel(teacher: Any, *, timer: int | float = 600) -> tuple[GameSession, Any, Any]:
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    session = create_session(teacher, seed=7, setup=znajznak_setup(timer=timer))
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    services.session_start(session=session, by=teacher)
    session.refresh_from_db()
    return session, ala, olek


def run_out(session: GameSession) -> None:
    """Move the deadline into the past, as if the timer's minutes had gone by."""
    GameSession.objects.filter(pk=session.pk).update(time_up_at=timezone.now() - timedelta(seconds=1))
    session.refresh_from_db()


def time_ups(session: GameSession) -> list[ActionRecord]:
    return [r for r in ActionRecord.objects.filter(session=session) if r.action == {"type": "time_up"}]


# --- the deadline ---------------------------------------------------------------------------------


def test_note_c_a_timed_game_stores_when_its_time_is_up_as_it_starts(teacher):
    before = timezone.now()
    session, _ala, _olek = timed_duel(teacher, timer=600)
    after = timezone.now()

    assert before + timedelta(seconds=600) <= session.time_up_at <= after + timedelta(seconds=600)


def test_note_c_a_game_without_a_timer_has_no_deadline(teacher):
    session = create_session(teacher, seed=7)
    services.session_join(session=session, user=UserFactory())
    services.session_join(session=session, user=UserFactory())
    services.session_start(session=session, by=teacher)
    session.refresh_from_db()

    assert session.time_up_at is None
    assert timers.session_timer_info(session) is None


def test_note_c_the_lobby_has_no_deadline_yet(teacher):
    session = create_session(teacher, setup=znajznak_setup(timer=600))
    assert session.time_up_at is None


def test_the_pages_get_the_seconds_left_by_the_servers_clock(teacher):
    session, ala, _olek = timed_duel(teacher, timer=600)
    ends = timezone.now() + timedelta(seconds=90)
    GameSession.objects.filter(pk=session.pk).update(time_up_at=ends)
    client = signed_in(ala)

    before = timezone.now()
    payload = client.get(reverse("games:session_view", args=[session.pk])).json()
    after = timezone.now()

    assert payload["timer"]["seconds"] == 600
    # The server's reckoning at the moment it answered, to the tenth of a second.
    assert (ends - after).total_seconds() - 0.1 <= payload["timer"]["remaining"]
    assert payload["timer"]["remaining"] <= (ends - before).total_seconds() + 0.1
    assert payload["timer"]["running"] is True


# --- the time-up, applied once ---------------------------------------------------------------------


def test_before_the_deadline_the_time_up_changes_nothing(teacher):
    session, _ala, _olek = timed_duel(teacher)

    assert timers.session_time_up(session_id=session.pk) is False
    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    assert session.version == 0


def test_note_c_after_the_deadline_the_fewest_cards_win_through_the_one_service(teacher):
    session, _ala, _olek = timed_duel(teacher)
    run_out(session)

    assert timers.session_time_up(session_id=session.pk) is True

    session.refresh_from_db()
    state = state_of(session)
    assert session.status == GameSession.Status.FINISHED
    assert state.result is not None and state.result.reason == "time_up"
    (record,) = time_ups(session)
    assert record.player_id == ""  # the table, not a player
    assert record.index == 0


def test_the_time_up_is_never_applied_twice(teacher):
    session, _ala, _olek = timed_duel(teacher)
    run_out(session)

    results = [timers.session_time_up(session_id=session.pk) for _ in range(3)]
    tasks.session_time_up_task(session.pk)

    assert results == [True, False, False]
    assert len(time_ups(session)) == 1
    session.refresh_from_db()
    assert session.version == 1


def test_the_facilitator_ending_the_game_first_leaves_the_timer_nothing_to_do(teacher):
    session, _ala, _olek = timed_duel(teacher)
    services.session_apply_action(session_id=session.pk, player_id=None, action={"type": "time_up"})
    run_out(session)
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)

    assert timers.session_time_up(session_id=session.pk) is False
    assert len(time_ups(session)) == 1


def test_reading_the_game_after_the_deadline_ends_it_without_a_worker(teacher):
    session, ala, _olek = timed_duel(teacher)
    run_out(session)

    payload = signed_in(ala).get(reverse("games:session_view", args=[session.pk]), {"since": "0"}).json()

    assert payload["status"] == "finished"
    assert payload["view"]["outcome"]["reason"] == "time_up"
    assert payload["timer"]["remaining"] == 0
    assert payload["timer"]["running"] is False


def test_opening_the_game_page_after_the_deadline_ends_it(teacher):
    session, _ala, olek = timed_duel(teacher)
    run_out(session)

    response = signed_in(olek).get(reverse("games:session", args=[session.pk]))

    assert response.status_code == 200
    session.refresh_from_db()
    assert session.status == GameSession.Status.FINISHED
    assert len(time_ups(session)) == 1


def test_note_c_an_action_that_arrives_after_the_deadline_ends_the_game_by_time_instead(teacher):
    session, ala, _olek = timed_duel(teacher)
    symbol = znajznak.common_symbol(state_of(session), "p1")
    run_out(session)

    response = signed_in(ala).post(
        reverse("games:session_actions", args=[session.pk]),
        {"type": "stop", "symbol": symbol},
        content_type="application/json",
    )

    assert response.status_code == 200
    assert response.json()["view"]["outcome"]["reason"] == "time_up"
    assert [r.action["type"] for r in ActionRecord.objects.filter(session=session)] == ["time_up"]


def test_before_the_deadline_actions_are_played_as_usual(teacher):
    session, ala, _olek = timed_duel(teacher)
    symbol = znajznak.common_symbol(state_of(session), "p1")

    signed_in(ala).post(
        reverse("games:session_actions", args=[session.pk]),
        {"type": "stop", "symbol": symbol},
        content_type="application/json",
    )

    assert [r.action["type"] for r in ActionRecord.objects.filter(session=session)] == ["stop"]


# --- the task -------------------------------------------------------------------------------------


def test_starting_a_timed_game_schedules_the_task_for_the_deadline_once_committed(
    teacher, monkeypatch, django_capture_on_commit_callbacks
):
    scheduled: list[tuple[Any, Any]] = []
    # As with a broker (tests/conftest.py's _celery_mode puts the setting back afterwards).
    tasks.session_time_up_task.app.conf.task_always_eager = False
    monkeypatch.setattr(
        tasks.session_time_up_task,
        "apply_async",
        lambda args, eta: scheduled.append((args, eta)),
    )
    ala, olek = UserFactory(), UserFactory()
    session = create_session(teacher, setup=znajznak_setup(timer=600))
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.session_start(session=session, by=teacher)
    assert scheduled == []  # nothing before the commit
    for callback in callbacks:
        callback()

    session.refresh_from_db()
    assert scheduled == [([session.pk], session.time_up_at)]


def test_a_long_timer_is_reached_in_hops_shorter_than_the_visibility_timeout(
    teacher, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """A task waiting for its ETA past Redis's visibility timeout would be handed out twice."""
    scheduled: list[Any] = []
    tasks.session_time_up_task.app.conf.task_always_eager = False
    monkeypatch.setattr(tasks.session_time_up_task, "apply_async", lambda args, eta: scheduled.append(eta))
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        session, _, _ = timed_duel(teacher, timer=3 * 3600)

    (eta,) = scheduled
    assert eta < session.time_up_at
    hop = timedelta(seconds=settings.TASK_ETA_MAX_SECONDS)
    assert before + hop <= eta <= timezone.now() + hop
    assert settings.TASK_ETA_MAX_SECONDS < settings.CELERY_VISIBILITY_TIMEOUT


def test_the_embedded_mode_schedules_nothing_and_relies_on_the_lazy_checks(
    teacher, monkeypatch, django_capture_on_commit_callbacks
):
    calls: list[Any] = []
    monkeypatch.setattr(tasks.session_time_up_task, "apply_async", lambda **kw: calls.append(kw))
    with django_capture_on_commit_callbacks(execute=True):
        timed_duel(teacher)
    assert calls == []


def test_the_task_ends_the_game_when_due(teacher):
    session, _ala, _olek = timed_duel(teacher)
    run_out(session)

    tasks.session_time_up_task(session.pk)

    session.refresh_from_db()
    assert session.status == GameSession.Status.FINISHED


def test_a_task_delivered_early_schedules_itself_again_for_the_deadline(teacher, monkeypatch):
    session, _ala, _olek = timed_duel(teacher)
    again: list[Any] = []
    monkeypatch.setattr(timers, "session_time_up_schedule", lambda **kw: again.append(kw))

    tasks.session_time_up_task(session.pk)

    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    assert again == [{"session_id": session.pk, "at": session.time_up_at}]


def test_a_task_for_a_session_that_is_gone_does_nothing(teacher):
    tasks.session_time_up_task(987654)


# --- class duels and practice use the same timer -----------------------------------------------------


def test_class_duels_with_a_timer_each_get_the_deadline(teacher):
    run, _users = class_with(teacher, 4, timer=300)
    before = timezone.now()
    duels = class_round_start(run=run, by=teacher)
    after = timezone.now()

    assert len(duels) == 2
    for duel in duels:
        duel.session.refresh_from_db()
        assert before + timedelta(seconds=300) <= duel.session.time_up_at <= after + timedelta(seconds=300)
    run.lobby.refresh_from_db()
    assert run.lobby.time_up_at is None  # the lobby is never played


def test_a_class_duel_past_its_deadline_ends_by_time_when_a_student_looks(teacher):
    run, users = class_with(teacher, 2, timer=300)
    (duel,) = class_round_start(run=run, by=teacher)
    run_out(duel.session)

    signed_in(users[0]).get(reverse("games:session_view", args=[duel.session_id]))

    assert state_of(duel.session).result.reason == "time_up"


def test_practice_with_a_time_limit_ends_by_the_same_deadline(teacher, student):
    assignment = practice_assignment_create(
        owner=teacher, title="Na czas", deck=built_deck(teacher), mode="clock", timer=120
    )
    before = timezone.now()
    run = practice_start(assignment=assignment, student=student)
    session = run.session
    session.refresh_from_db()
    assert before + timedelta(seconds=120) <= session.time_up_at <= timezone.now() + timedelta(seconds=120)

    now = timezone.now()
    due = selectors.practice_due(run=run, session=session, now=now)
    assert due == ("time_up", (session.time_up_at - now).total_seconds())
    run_out(session)
    signed_in(student).get(reverse("games:session_view", args=[session.pk]))

    run.refresh_from_db()
    assert run.finished is not None and run.reason == "time_up"


# --- a real worker ----------------------------------------------------------------------------------


@pytest.mark.celery
def test_a_real_worker_ends_the_game_at_the_deadline_with_nobody_looking(celery_worker_real, teacher):
    session, _ala, _olek = timed_duel(teacher, timer=1)

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        session.refresh_from_db()
        if session.status == GameSession.Status.FINISHED:
            break
        time.sleep(0.2)

    assert session.status == GameSession.Status.FINISHED
    assert state_of(session).result.reason == "time_up"
    assert len(time_ups(session)) == 1


def test_a_timer_that_times_one_turn_is_not_a_deadline_of_the_game(teacher):
    # Activity's "timer" is the hourglass of a turn, run by the facilitator.
    session = GameSession(game="activity", status=GameSession.Status.RUNNING, setup={"timer": 60}, state={})

    assert timers.session_deadline_set(session=session) is None
    assert session.time_up_at is None
