"""A session's state is stored without the parts its setup holds too, and read whole.

``games.stored_state``: a ZnajZnak state carries the deck (cards and names) that the setup
holds as well, an Activity state its cards, a Knowledge? state its board and question pool, a live
quiz's state its items;
the row keeps the state without them, lists them under ``from_setup``, and
``session.state`` gives the whole state back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from content.models import KnowledgeBoard
from games import live, services
from games.engines import activity, knowledge, quiz_live, znajznak
from games.models import GameSession
from games.play.knowledge import services as knowledge_services
from games.play.knowledge.services import KnowledgeOptions
from games.stored_state import FROM_SETUP, state_restored, state_stored
from tests.factories import UserFactory
from tests.games.play.activity_helpers import two_teams
from tests.games.play.test_knowledge import make_pool
from tests.games.play.test_quiz_live_play import start_live
from tests.games.test_sessions import NAMES, create_session, znajznak_setup

pytestmark = pytest.mark.django_db

#: The names as the engine writes them (each with its alternatives), as decks' setups have them.
ENGINE_NAMES = {
    key: {"name": n["name"], "alternatives": n.get("alternatives", [])} for key, n in NAMES.items()
}


def stored_json(session: GameSession) -> dict[str, Any]:
    """The state as the row holds it, read past the model."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT state FROM games_gamesession WHERE id = %s", [session.pk])
        value = cursor.fetchone()[0]
    return json.loads(value) if isinstance(value, str) else value


def started(teacher: Any) -> GameSession:
    session = create_session(teacher, seed=7, setup=znajznak_setup(names=ENGINE_NAMES))
    services.session_join(session=session, user=UserFactory(first_name="Ala"))
    services.session_join(session=session, user=UserFactory(first_name="Olek"))
    services.session_start(session=session, by=teacher)
    return GameSession.objects.get(pk=session.pk)


def test_the_deck_the_setup_holds_is_left_out_of_the_stored_state_and_named():
    setup = znajznak_setup(
        names=ENGINE_NAMES, players=[{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}]
    )
    state = znajznak.new_game(setup, seed=1, variant="duel").to_dict()

    stored = state_stored("znajznak", state, setup)

    assert "cards" not in stored and "names" not in stored
    assert stored[FROM_SETUP] == ["cards", "names"]
    assert state_restored(stored, setup) == state


def test_a_part_that_differs_from_the_setup_is_stored_as_it_is():
    setup = znajznak_setup(
        names=ENGINE_NAMES, players=[{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}]
    )
    state = znajznak.new_game(setup, seed=1, variant="duel").to_dict()
    other = {**setup, "names": {**ENGINE_NAMES, "001": {"name": "Renamed", "alternatives": []}}}

    stored = state_stored("znajznak", state, other)

    assert stored["names"] == state["names"] and stored[FROM_SETUP] == ["cards"]
    assert state_restored(stored, other) == state


def test_other_games_and_empty_states_are_stored_as_they_are():
    state = {"cards": [["a"]], "names": {"a": {}}}
    assert state_stored("know", state, dict(state)) is state
    assert state_stored("znajznak", None, {}) is None
    assert state_restored({"phase": "x"}, {}) == {"phase": "x"}


def test_a_started_game_stores_the_short_form_and_reads_the_whole_state(teacher):
    session = started(teacher)

    row = stored_json(session)
    assert row[FROM_SETUP] == ["cards", "names"] and "cards" not in row
    assert session.state["cards"] == session.setup["cards"]
    assert znajznak.state_from_dict(session.state).names  # whole: the engine reads it


def test_the_whole_state_is_read_also_when_the_setup_was_deferred(teacher):
    session = started(teacher)

    deferred = GameSession.objects.defer("setup").get(pk=session.pk)

    assert deferred.state["names"] == session.setup["names"]


def test_an_action_on_the_locked_path_stores_the_short_form(teacher):
    session = started(teacher)
    state = znajznak.state_from_dict(session.state)

    services.session_apply_action(
        session_id=session.pk,
        player_id="p1",
        action={"type": "stop", "symbol": znajznak.common_symbol(state, "p1")},
    )

    session.refresh_from_db()
    assert session.version == 1 and session.state["phase"] == "naming"
    assert stored_json(session)[FROM_SETUP] == ["cards", "names"]


def test_a_row_stored_whole_before_is_read_as_it_is(teacher):
    session = started(teacher)
    whole = session.state
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_gamesession SET state = %s WHERE id = %s", [json.dumps(whole), session.pk]
        )

    assert GameSession.objects.get(pk=session.pk).state == whole


def test_the_live_tables_json_is_the_short_form_the_model_stores(teacher):
    session = started(teacher)
    state = znajznak.state_from_dict(session.state)
    table = live.LiveTable(session=session, engine=znajznak, state=state, participants=[])
    after = znajznak.apply_action(
        state, "p1", {"type": "stop", "symbol": znajznak.common_symbol(state, "p1")}
    )

    first, second = json.loads(table.state_json(state)), json.loads(table.state_json(after))

    assert first == state_stored("znajznak", state.to_dict(), session.setup)
    assert second == state_stored("znajznak", after.to_dict(), session.setup)
    assert second[FROM_SETUP] == ["cards", "names"] and "cards" not in second


def test_the_relay_baseline_reads_the_short_form(teacher):
    """``bench/relay_app.py`` reads the row past the model: it restores the state too."""
    session = started(teacher)
    restored = state_restored(stored_json(session), session.setup)
    assert znajznak.state_from_dict(restored) == znajznak.state_from_dict(session.state)


# --- the other games ---------------------------------------------------------------------------


def test_an_activity_game_leaves_its_cards_to_the_setup_before_and_after_a_turn(teacher):
    game = two_teams(teacher)
    session = GameSession.objects.get(pk=game.session.pk)

    row = stored_json(session)
    assert row[FROM_SETUP] == ["cards"] and "cards" not in row
    assert len(json.dumps(row)) < len(json.dumps(session.state)) / 2
    assert session.state["cards"] == session.setup["cards"]
    before = activity.state_from_dict(session.state)
    player, action = next(
        (p.player_id, legal[0])
        for p in session.participants.exclude(player_id="")
        if (legal := activity.legal_actions(before, p.player_id))
    )

    services.session_apply_action(session_id=session.pk, player_id=player, action=action)

    session.refresh_from_db()
    assert session.version == 1 and stored_json(session)[FROM_SETUP] == ["cards"]
    assert activity.state_from_dict(session.state).cards == before.cards


def test_a_knowledge_game_leaves_its_board_and_pool_to_the_setup(teacher):
    make_pool(teacher, 12)
    board = KnowledgeBoard.objects.get(name="Talia default board")
    session = knowledge_services.knowledge_session_create(
        facilitator=teacher, options=KnowledgeOptions(board_id=board.pk)
    )
    services.session_join(session=session, user=UserFactory())
    services.session_start(session=session, by=teacher)
    session = GameSession.objects.get(pk=session.pk)

    row = stored_json(session)
    assert row[FROM_SETUP] == ["board", "cards"] and "cards" not in row and "board" not in row
    state = knowledge.state_from_dict(session.state)
    assert [card.to_dict() for card in state.cards] == session.setup["cards"]
    assert state.board.to_dict() == session.setup["board"]


def test_a_live_quiz_leaves_its_items_to_the_setup_before_and_after_a_question_opens():
    live = start_live(students=2, team_count=0)
    session = GameSession.objects.get(pk=live.session.pk)
    items = quiz_live.state_from_dict(session.state).items

    row = stored_json(session)
    assert row[FROM_SETUP] == ["items"] and "items" not in row
    assert session.state["items"] == session.setup["items"]

    services.session_apply_action(
        session_id=session.pk, player_id=None, action={"type": "open_question", "at": 1.0}
    )

    session.refresh_from_db()
    assert session.version == 1 and stored_json(session)[FROM_SETUP] == ["items"]
    assert quiz_live.state_from_dict(session.state).items == items
