"""ZnajZnak sessions: the facilitator's age order ("the youngest player") and the card faces
of a built deck on the play page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import reverse

from games import services
from games.models import GameSession, Participant
from games.play.znajznak.duels import class_round_start
from games.play.znajznak.services import znajznak_setup_from_deck
from games.services import SessionError
from tests.factories import UserFactory
from tests.games.test_classroom import built_deck, class_with
from tests.games.test_sessions import create_session, signed_in, state_of, znajznak_setup

pytestmark = pytest.mark.django_db


def lobby(
    teacher: Any, players: int = 3, *, variant: str = "warm_up"
) -> tuple[GameSession, list[Participant]]:
    session = create_session(teacher, variant=variant, seed=2, setup=znajznak_setup())
    joined = [
        services.session_join(session=session, user=UserFactory(first_name=name))
        for name in ["Ala", "Olek", "Zosia"][:players]
    ]
    return session, joined


# --- the age order -----------------------------------------------------------------------------------


def test_the_youngest_by_the_facilitators_age_order_lays_the_first_card_of_a_warm_up(teacher):
    session, (ala, olek, zosia) = lobby(teacher)
    services.session_age_order_set(session=session, by=teacher, ranks={ala.pk: 2, olek.pk: 3, zosia.pk: 1})

    services.session_start(session=session, by=teacher)

    session.refresh_from_db()
    assert [p.get("age_rank") for p in session.setup["players"]] == [2, 3, 1]
    state = state_of(session)
    dealt_sizes = [len(stack) for stack in state.stacks]
    assert dealt_sizes == [2, 2, 1]  # Zosia (p3), the youngest, laid her top card
    assert all("birth_date" not in p for p in session.setup["players"])  # nobody was asked


def test_without_an_age_order_the_first_to_join_lays_the_first_card(teacher):
    session, _players = lobby(teacher)

    services.session_start(session=session, by=teacher)

    session.refresh_from_db()
    assert all("age_rank" not in p for p in session.setup["players"])
    assert [len(stack) for stack in state_of(session).stacks] == [1, 2, 2]


def test_the_age_order_gives_each_place_to_one_player_or_changes_nothing(teacher):
    session, (ala, olek, zosia) = lobby(teacher)
    services.session_age_order_set(session=session, by=teacher, ranks={ala.pk: 1, olek.pk: 2})

    with pytest.raises(SessionError, match="same place"):
        services.session_age_order_set(session=session, by=teacher, ranks={ala.pk: 1, olek.pk: 1})
    with pytest.raises(SessionError, match="1, 2, 3"):
        services.session_age_order_set(session=session, by=teacher, ranks={ala.pk: 0})

    assert sorted(
        Participant.objects.filter(session=session).values_list("age_rank", flat=True), key=str
    ) == [
        1,
        2,
        None,
        None,  # Zosia and the facilitator
    ]


def test_only_the_facilitator_sets_the_age_order_and_only_of_the_players(teacher, other_teacher):
    session, (ala, _olek, _zosia) = lobby(teacher)
    facilitator = session.participants.get(role=Participant.Role.FACILITATOR)

    with pytest.raises(SessionError, match="Only the teacher"):
        services.session_age_order_set(session=session, by=other_teacher, ranks={ala.pk: 1})
    with pytest.raises(SessionError, match="Only the players"):
        services.session_age_order_set(session=session, by=teacher, ranks={facilitator.pk: 1})


def test_the_age_order_is_set_before_the_game_starts(teacher):
    session, (ala, _olek, _zosia) = lobby(teacher)
    services.session_start(session=session, by=teacher)

    with pytest.raises(SessionError, match="before the game starts"):
        services.session_age_order_set(session=session, by=teacher, ranks={ala.pk: 1})


def test_class_duels_carry_the_lobbys_age_order_into_each_duel(teacher):
    run, users = class_with(teacher, 2)
    members = list(run.lobby.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at"))
    services.session_age_order_set(session=run.lobby, by=teacher, ranks={members[0].pk: 2, members[1].pk: 1})

    (duel,) = class_round_start(run=run, by=teacher)

    duel.session.refresh_from_db()
    ranks = {p["name"]: p.get("age_rank") for p in duel.session.setup["players"]}
    assert ranks == {members[0].nickname: 2, members[1].nickname: 1}


def test_the_age_order_page_lists_the_players_and_saves_their_places(teacher):
    session, (ala, olek, zosia) = lobby(teacher)
    client = signed_in(teacher)
    url = reverse("games:session_age_order", args=[session.pk])

    page = client.get(url)
    assert page.status_code == 200
    for player in (ala, olek, zosia):
        assert f'name="rank-{player.pk}"' in page.content.decode()
    assert 'href="' + url + '"' in client.get(reverse("games:session", args=[session.pk])).content.decode()

    response = client.post(url, {f"rank-{ala.pk}": "3", f"rank-{olek.pk}": "1", f"rank-{zosia.pk}": ""})
    assert response.status_code == 302
    ala.refresh_from_db(), olek.refresh_from_db(), zosia.refresh_from_db()
    assert (ala.age_rank, olek.age_rank, zosia.age_rank) == (3, 1, None)


def test_the_age_order_page_refuses_a_shared_place_with_the_reason_and_keeps_the_choices(teacher):
    session, (ala, olek, _zosia) = lobby(teacher)
    url = reverse("games:session_age_order", args=[session.pk])

    response = signed_in(teacher).post(url, {f"rank-{ala.pk}": "1", f"rank-{olek.pk}": "1"})

    assert response.status_code == 400
    body = response.content.decode()
    assert "same place" in body
    assert re.search(rf'id="rank-{ala.pk}".*?<option value="1" selected>', body, re.S)
    ala.refresh_from_db()
    assert ala.age_rank is None


def test_students_and_other_teachers_cannot_open_the_age_order(teacher, other_teacher):
    session, (ala, _olek, _zosia) = lobby(teacher)
    url = reverse("games:session_age_order", args=[session.pk])

    assert signed_in(ala.user).get(url).status_code == 403
    assert signed_in(other_teacher).post(url, {f"rank-{ala.pk}": "1"}).status_code == 403
    ala.refresh_from_db()
    assert ala.age_rank is None


# --- card faces of a built deck --------------------------------------------------------------------


def page_live(client: Any, session: GameSession) -> dict[str, Any]:
    body = client.get(reverse("games:session", args=[session.pk])).content.decode()
    match = re.search(r'<script id="game-live" type="application/json">(.*?)</script>', body, re.S)
    assert match
    return json.loads(match.group(1))


def test_a_session_from_a_built_deck_sends_each_cards_layout_without_names(teacher):
    deck = built_deck(teacher)
    setup, assets = znajznak_setup_from_deck(deck=deck)
    session = services.session_create(
        facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets
    )

    faces = page_live(signed_in(teacher), session)["faces"]

    assert faces["shape"] == "round"
    assert len(faces["cards"]) == len(setup["cards"])
    for card in setup["cards"]:
        placements = faces["cards"][",".join(sorted(card))]
        assert sorted(p[0] for p in placements) == sorted(card)
        for _key, x, y, size, rotation in placements:
            # Inside the round card, as content.decks.layout promises.
            assert ((x - 0.5) ** 2 + (y - 0.5) ** 2) ** 0.5 + size / 2 <= 0.5 + 1e-6
            assert 0 <= rotation < 360
    assert "Nazwa symbolu" not in json.dumps(faces)


def test_a_lesson_set_sends_the_layouts_of_its_own_cards_only(teacher):
    deck = built_deck(teacher, sets=2)
    label = deck.plan["card_labels"][0]
    setup, assets = znajznak_setup_from_deck(deck=deck, card_set=label)

    assert set(assets["faces"]["cards"]) == {",".join(sorted(card)) for card in setup["cards"]}


def test_a_session_from_a_symbol_set_has_no_layout_and_the_page_draws_a_grid(teacher):
    session = create_session(teacher)

    assert page_live(signed_in(teacher), session)["faces"] is None


def test_a_rank_that_is_no_ascii_number_is_no_rank(teacher):
    # '³'.isdigit() is true but int('³') fails: the field counts as left empty.
    session, (ala, olek, zosia) = lobby(teacher)
    response = signed_in(teacher).post(
        reverse("games:session_age_order", args=[session.pk]),
        {f"rank-{ala.pk}": "³", f"rank-{olek.pk}": "1", f"rank-{zosia.pk}": ""},
    )
    assert response.status_code in (200, 302)
    ranks = dict(session.participants.values_list("pk", "age_rank"))
    assert ranks[ala.pk] is None and ranks[olek.pk] == 1
