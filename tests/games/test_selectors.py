"""What each participant sees of a session (games/selectors.py), and whose eyes they see through."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from games import selectors, services
from games.engines import znajznak
from games.engines.base import IllegalAction
from games.models import GameSession, Participant
from games.play.znajznak.duels import class_round_start
from games.play.znajznak.practice import practice_assignment_create, practice_start
from games.selectors import viewer_for
from tests.factories import UserFactory
from tests.games.test_sessions import create_session, state_of


def test_facilitator_sees_the_engines_facilitator_view_where_it_has_one():
    facilitator = Participant(role=Participant.Role.FACILITATOR, player_id="")
    assert viewer_for(SimpleNamespace(FACILITATOR="facilitator"), facilitator) == "facilitator"
    assert viewer_for(SimpleNamespace(), facilitator) is None


def test_player_sees_own_view_and_spectator_the_table():
    player = Participant(role=Participant.Role.PLAYER, player_id="p2")
    spectator = Participant(role=Participant.Role.SPECTATOR, player_id="")
    engine = SimpleNamespace(FACILITATOR="facilitator")
    assert viewer_for(engine, player) == "p2"
    assert viewer_for(engine, spectator) is None


# --- the payloads a change notice carries -------------------------------------------------------


@pytest.fixture
def duel_with_watchers(teacher: Any) -> GameSession:
    """A running duel (Ala p1, Olek p2) with the teacher and a spectator watching, one action in."""
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    session = create_session(teacher, seed=7)
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    services.session_start(session=session, by=teacher)
    services.session_join(session=session, user=UserFactory(first_name="Ewa"))  # watches
    state = state_of(session)
    services.session_apply_action(
        session_id=session.pk,
        player_id="p1",
        action={"type": "stop", "symbol": znajznak.common_symbol(state, "p1")},
    )
    session.refresh_from_db()
    return session


def test_a_notice_carries_each_participant_the_payload_a_fresh_read_gives(duel_with_watchers):
    session = duel_with_watchers
    participants = list(session.participants.order_by("joined_at", "id"))
    broadcast = selectors.session_broadcast(
        session=session, participants=participants, state=state_of(session)
    )
    assert broadcast is not None
    assert len(participants) == 4  # the teacher, Ala, Olek, Ewa
    for participant in participants:
        fresh = selectors.session_payload(session=session, participant=participant)
        assert selectors.payload_from_broadcast(broadcast, participant.pk) == fresh
    # One view per pair of eyes: each player's own, the table's for the teacher and Ewa.
    assert sorted(broadcast["views"]) == ["", "p1", "p2"]
    assert broadcast["views"]["p2"]["you"] == "p2" and broadcast["views"][""]["comparison"] is None
    # Someone the notice does not know (joined since) is read afresh by their socket.
    assert selectors.payload_from_broadcast(broadcast, 10**9) is None


def test_a_notice_for_some_viewers_carries_their_payloads_only_and_everyone_in_the_game(
    duel_with_watchers,
):
    """The fast path's notice that only its own process hears (``games.live``): the payloads
    of the sockets there; the list of people is the whole game's, as in a fresh read."""
    session = duel_with_watchers
    participants = list(session.participants.order_by("joined_at", "id"))
    ala = next(p for p in participants if p.player_id == "p1")
    broadcast = selectors.session_broadcast(
        session=session, participants=participants, state=state_of(session), viewers={ala.pk}
    )
    assert broadcast is not None
    assert list(broadcast["views"]) == ["p1"]  # nothing of Olek's hand, nor the table's view
    assert selectors.payload_from_broadcast(broadcast, ala.pk) == selectors.session_payload(
        session=session, participant=ala
    )
    for other in participants:
        if other != ala:
            assert selectors.payload_from_broadcast(broadcast, other.pk) is None  # read afresh


def test_an_action_publishes_every_viewer_s_payload_once_the_action_is_stored(
    duel_with_watchers, django_capture_on_commit_callbacks
):
    session = duel_with_watchers
    with (
        services.session_publish_deferred() as notices,
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.session_apply_action(session_id=session.pk, player_id="p1", action={"type": "dont_know"})
    ((group, notice),) = notices
    session.refresh_from_db()
    assert group == session.group_name
    assert notice["type"] == "session.changed" and notice["version"] == session.version == 2
    ala = session.participants.get(player_id="p1")
    assert selectors.payload_from_broadcast(notice["broadcast"], ala.pk) == selectors.session_payload(
        session=session, participant=ala
    )


def test_a_refused_action_publishes_nothing(duel_with_watchers, django_capture_on_commit_callbacks):
    with (
        services.session_publish_deferred() as notices,
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(IllegalAction),
    ):
        services.session_apply_action(
            session_id=duel_with_watchers.pk, player_id="p2", action={"type": "dont_know"}
        )
    assert notices == []


def test_a_plain_game_s_payload_reads_no_class_run_or_practice_rows(
    duel_with_watchers, django_assert_num_queries
):
    session = duel_with_watchers
    olek = session.participants.get(player_id="p2")
    assert session.kind == GameSession.Kind.GAME
    with django_assert_num_queries(1):  # its participants
        payload = selectors.session_payload(session=session, participant=olek)
    assert payload["class"] is None and payload["follow"] is None and payload["practice"] is None


def test_class_lobbies_class_duels_and_practice_games_are_known_by_their_kind(teacher):
    from tests.games.test_classroom import class_with
    from tests.games.test_practice import small_deck

    run, _students = class_with(teacher, 4)
    assert GameSession.objects.get(pk=run.lobby_id).kind == GameSession.Kind.CLASS_LOBBY
    class_round_start(run=run, by=teacher)
    kinds = {duel.session.kind for duel in run.duels.select_related("session")}
    assert kinds == {GameSession.Kind.CLASS_DUEL}
    assignment = practice_assignment_create(owner=teacher, title="Homework", deck=small_deck(teacher))
    practice = practice_start(assignment=assignment, student=UserFactory(), mode="bot")
    assert practice.session.kind == GameSession.Kind.PRACTICE
    # Their payloads carry no notice-built copies: each socket reads its own afresh.
    lobby = GameSession.objects.get(pk=run.lobby_id)
    assert (
        selectors.session_broadcast(session=lobby, participants=list(lobby.participants.all()), state=None)
        is None
    )
