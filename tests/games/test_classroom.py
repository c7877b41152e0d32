"""Duels for a whole class: pairing, the tournament's lesson sets, the lobby and its rounds."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from content.building import deck_plan
from content.models import BuildState, Deck
from games import classroom, services
from games.engines import znajznak
from games.models import ClassDuel, ClassRun, GameSession, Participant
from games.play.znajznak.duels import class_round_start, class_run_create
from games.services import SessionError
from tests.factories import UserFactory
from tests.games.test_sessions import signed_in

# --- the pure helpers ------------------------------------------------------------------------------


def test_five_cards_each_four_when_the_class_has_more_than_26_players():
    assert [classroom.cards_per_player_for(n) for n in (2, 26, 27, 40)] == [5, 5, 4, 4]


def test_a_lesson_set_too_small_for_two_hands_deals_half_its_cards_each():
    assert classroom.hand_size(10, 5) == 5
    assert classroom.hand_size(9, 5) == 4


@pytest.mark.parametrize("count", [2, 3, 7, 26, 27])
def test_every_player_is_paired_once_or_sits_out(count):
    players = [f"s{i}" for i in range(count)]
    pairing = classroom.pairs_make(players, seed=5, round_number=1)

    seated = [p for pair in pairing.pairs for p in pair] + ([pairing.bye] if pairing.bye else [])
    assert sorted(seated) == sorted(players)
    assert len(pairing.pairs) == count // 2
    assert (pairing.bye is None) == (count % 2 == 0)


def test_pairing_is_drawn_from_the_seed():
    players = [f"s{i}" for i in range(10)]
    one = classroom.pairs_make(players, seed=1, round_number=1)
    assert classroom.pairs_make(players, seed=1, round_number=1) == one
    assert any(classroom.pairs_make(players, seed=s, round_number=1) != one for s in range(2, 6))


def test_byes_go_round_the_class():
    players = [f"s{i}" for i in range(5)]
    byes: Counter[str] = Counter()
    for round_number in range(1, 6):
        pairing = classroom.pairs_make(players, seed=3, round_number=round_number, byes=byes)
        assert byes[pairing.bye] == 0, f"{pairing.bye} sat out twice before everyone once"
        byes[pairing.bye] += 1
    assert set(byes) == set(players)


def test_later_rounds_pair_winners_with_winners_and_avoid_rematches():
    players = ["a", "b", "c", "d"]
    wins = {"a": 1, "c": 1}
    pairing = classroom.pairs_make(players, seed=2, round_number=2, wins=wins, met=[frozenset("ab")])
    assert {frozenset(pair) for pair in pairing.pairs} == {frozenset("ac"), frozenset("bd")}
    # With a rematch the only way, it is played.
    again = classroom.pairs_make(["a", "b"], seed=2, round_number=2, met=[frozenset("ab")])
    assert {frozenset(pair) for pair in again.pairs} == {frozenset("ab")}


def _tournament(players: list[str], sets: list[str], rounds: int, seed: int) -> int:
    """Play ``rounds`` rounds of pairing and set assignment; the number of repeats."""
    played: dict[str, set[str]] = {p: set() for p in players}
    met: list[frozenset[str]] = []
    repeats = 0
    for round_number in range(1, rounds + 1):
        pairing = classroom.pairs_make(players, seed=seed, round_number=round_number, met=met)
        chosen = classroom.card_sets_assign(pairing.pairs, sets, played, seed=seed, round_number=round_number)
        for pair, card_set in zip(pairing.pairs, chosen, strict=True):
            repeats += classroom.repeats_count(pair, card_set, played)
            for player in pair:
                played[player].add(card_set)
            met.append(frozenset(pair))
    return repeats


@pytest.mark.parametrize("seed", range(8))
def test_no_student_plays_a_lesson_set_twice_when_there_are_enough_sets(seed):
    """Teacher's notes: "try to ensure that players do not play twice with the same set".

    With 13 sets a pair has played at most 2 × (rounds − 1) of them, so up to 7 rounds a
    fresh set always exists; the assignment must find it.
    """
    players = [f"s{i}" for i in range(30)]
    sets = list("ABCDEFGHIJKLN")
    assert _tournament(players, sets, rounds=7, seed=seed) == 0


def test_with_too_few_sets_the_repeats_are_as_few_as_possible():
    sets = ["A", "B", "C"]
    played = {"a": {"A", "B"}, "b": {"B", "C"}, "c": {"A"}, "d": {"A", "B", "C"}}
    pairs = [("a", "b"), ("c", "d")]
    chosen = classroom.card_sets_assign(pairs, sets, played, seed=1, round_number=3)
    total = sum(classroom.repeats_count(p, s, played) for p, s in zip(pairs, chosen, strict=True))
    best = min(
        sum(classroom.repeats_count(p, s, played) for p, s in zip(pairs, choice, strict=True))
        for choice in itertools.product(sets, repeat=len(pairs))
    )
    assert total == best == 2


def test_sets_are_spread_over_the_pairs_of_a_round_when_nothing_was_played():
    pairs = [("a", "b"), ("c", "d"), ("e", "f")]
    chosen = classroom.card_sets_assign(pairs, ["A", "B", "C"], {}, seed=4, round_number=1)
    assert sorted(chosen) == ["A", "B", "C"]


# --- the lobby and its rounds ----------------------------------------------------------------------


def built_deck(owner: Any, *, sets: int = 1) -> Deck:
    """A deck of order 3 (13 cards of four symbols), split into ``sets`` lesson sets."""
    snapshot = {
        "symbols": [
            {"id": None, "number": n, "name": f"Nazwa symbolu {n}", "alternative_names": [], "picture": ""}
            for n in range(1, 14)
        ]
    }
    plan = deck_plan(snapshot=snapshot, options={"sets": sets}, seed=1)
    return Deck.objects.create(
        name="Talia 13", owner=owner, state=BuildState.DONE, snapshot=snapshot, plan=plan
    )


def class_with(teacher: Any, students: int, **options: Any) -> tuple[ClassRun, list[Any]]:
    run = class_run_create(facilitator=teacher, deck=built_deck(teacher), **options)
    users = [UserFactory(first_name=f"Uczeń{i}") for i in range(students)]
    for user in users:
        services.session_join(session=run.lobby, user=user)
    return run, users


def test_pair_and_start_gives_every_pair_its_own_duel(teacher):
    run, users = class_with(teacher, 5)

    duels = class_round_start(run=run, by=teacher)

    run.refresh_from_db()
    assert run.round == 1 and len(duels) == 2
    members = {p.pk: p for p in run.lobby.participants.filter(role=Participant.Role.PLAYER)}
    paired = [pk for duel in duels for pk in duel.players]
    assert len(set(paired)) == 4 and run.byes[0] in members and run.byes[0] not in paired
    for duel in duels:
        session = duel.session
        assert session.status == GameSession.Status.RUNNING and session.variant == "duel"
        assert session.setup["cards_per_player"] == 5
        seated = list(session.participants.filter(role=Participant.Role.PLAYER).order_by("player_id"))
        assert [p.user_id for p in seated] == [members[pk].user_id for pk in duel.players]
    run.lobby.refresh_from_db()
    assert run.lobby.status == GameSession.Status.RUNNING


def test_more_than_26_players_get_four_cards(teacher, monkeypatch):
    run, _ = class_with(teacher, 4)
    monkeypatch.setattr(classroom, "BIG_CLASS", 3)  # four students count as a big class here
    duels = class_round_start(run=run, by=teacher)
    assert {duel.session.setup["cards_per_player"] for duel in duels} == {4}


def test_only_the_teacher_pairs_and_two_students_are_needed(teacher, other_teacher):
    run, users = class_with(teacher, 1)
    with pytest.raises(SessionError) as few:
        class_round_start(run=run, by=teacher)
    assert few.value.code == "too_few_players"
    services.session_join(session=run.lobby, user=UserFactory())
    with pytest.raises(SessionError) as refused:
        class_round_start(run=run, by=other_teacher)
    assert refused.value.code == "not_allowed"
    with pytest.raises(SessionError) as student:
        class_round_start(run=run, by=users[0])
    assert student.value.code == "not_allowed"


def test_the_lobby_is_never_played_and_latecomers_play_from_the_next_round(teacher):
    run, _ = class_with(teacher, 2)
    with pytest.raises(SessionError) as refused:
        services.session_start(session=run.lobby, by=teacher)
    assert refused.value.code == "class_lobby"
    class_round_start(run=run, by=teacher)
    latecomer = services.session_join(session=run.lobby, user=UserFactory())
    assert latecomer.role == Participant.Role.PLAYER
    with pytest.raises(Exception, match="class lobby"):
        services.session_apply_action(session_id=run.lobby_id, player_id="p1", action={"type": "time_up"})

    duels = class_round_start(run=run, by=teacher)
    run.refresh_from_db()
    assert run.round == 2 and len(duels) == 1 and run.byes[1] is not None


def test_a_tournament_gives_each_duel_a_set_its_players_have_not_played(teacher):
    run, _ = class_with(teacher, 4, set_mode="rotate")
    # 13 cards in sets of 5, 4 and 4: each deals two hands of the rule's two cards or more.
    run.deck.plan = deck_plan(snapshot=run.deck.snapshot, options={"sets": 3}, seed=1)
    run.deck.save()
    played: dict[int, set[str]] = {}
    for _round in range(2):
        for duel in class_round_start(run=run, by=teacher):
            assert duel.card_set
            labels = run.deck.plan["card_labels"]
            assert len(duel.session.setup["cards"]) == labels.count(duel.card_set)
            for pk in duel.players:
                assert duel.card_set not in played.get(pk, set())
                played.setdefault(pk, set()).add(duel.card_set)
        run.refresh_from_db()


def test_a_tournament_rotates_only_sets_that_deal_two_hands_of_two_cards(teacher):
    run, _ = class_with(teacher, 4, set_mode="rotate")
    # 13 cards in sets of 4, 3, 3 and 3: only the first deals two hands of two.
    run.deck.plan = deck_plan(snapshot=run.deck.snapshot, options={"sets": 4}, seed=1)
    run.deck.save()
    labels = run.deck.plan["card_labels"]
    for duel in class_round_start(run=run, by=teacher):
        assert labels.count(duel.card_set) >= 2 * znajznak.MIN_CARDS_PER_PLAYER


def test_a_run_set_up_before_the_rule_on_small_sets_only_says_so_rather_than_failing(teacher):
    run, _ = class_with(teacher, 4, set_mode="rotate")
    # 13 cards in sets of 3, 3, 3, 2 and 2: none deals two hands of two.
    run.deck.plan = deck_plan(snapshot=run.deck.snapshot, options={"sets": 5}, seed=1)
    run.deck.save()

    with pytest.raises(SessionError, match="No lesson set of this deck deals a duel of two cards each"):
        class_round_start(run=run, by=teacher)
    run.refresh_from_db()
    assert run.round == 0 and not ClassDuel.objects.exists()


@pytest.mark.parametrize("sets", [4, 5])
def test_a_class_run_on_one_lesson_set_needs_two_hands_of_the_rules_two_cards(teacher, sets):
    deck = built_deck(teacher, sets=sets)
    labels = deck.plan["card_labels"]
    small = next(label for label in sorted(set(labels)) if labels.count(label) < 4)

    with pytest.raises(SessionError) as refused:
        class_run_create(facilitator=teacher, deck=deck, set_mode="one", card_set=small)

    count = labels.count(small)
    assert str(refused.value) == (
        f"Lesson set {small} has {count} cards: a duel deals at least 2 to each player. "
        "Choose a bigger set, or no set for the whole deck."
    )
    assert not ClassRun.objects.exists()
    big = next((label for label in sorted(set(labels)) if labels.count(label) >= 4), None)
    if big is not None:
        assert class_run_create(facilitator=teacher, deck=deck, set_mode="one", card_set=big).card_set == big


def test_the_next_round_closes_unfinished_duels_and_pairs_winners_together(teacher):
    run, _ = class_with(teacher, 4)
    first = class_round_start(run=run, by=teacher)
    # Finish the first duel: its p2 wins on the last card.
    done = first[0].session
    for _ in range(20):
        done.refresh_from_db()
        if done.status == GameSession.Status.FINISHED:
            break
        state = znajznak.state_from_dict(done.state)
        symbol = znajznak.common_symbol(state, "p2")
        services.session_apply_action(
            session_id=done.pk, player_id="p2", action={"type": "stop", "symbol": symbol}
        )
        done.refresh_from_db()
        if done.status != GameSession.Status.FINISHED:
            name = done.setup["names"][symbol]["name"]
            services.session_apply_action(
                session_id=done.pk, player_id="p2", action={"type": "name", "text": name}
            )
    assert done.state["outcome"]["winner"] == "p2"

    second = class_round_start(run=run, by=teacher)
    first[1].session.refresh_from_db()
    assert first[1].session.status == GameSession.Status.FINISHED
    assert first[1].session.state["outcome"] is None  # ended by the teacher, no winner
    winner = first[0].players[1]
    assert all(len(duel.players) == 2 for duel in second)
    # Nobody meets the same opponent again while another is free.
    assert not {frozenset(d.players) for d in second} & {frozenset(d.players) for d in first}
    assert ClassDuel.objects.filter(run=run).count() == 4
    assert any(winner in duel.players for duel in second)


# --- pages --------------------------------------------------------------------------------------------


def test_the_teacher_opens_a_class_lobby_and_students_follow_into_their_own_duel(teacher):
    deck = built_deck(teacher)
    projector = signed_in(teacher)
    assert projector.get(reverse("games:class_new")).status_code == 200
    response = projector.post(
        reverse("games:class_new"), {"deck": deck.pk, "set_mode": "deck", "allow_guests": "on"}
    )
    run = ClassRun.objects.get()
    assert response["Location"] == reverse("games:session", args=[run.lobby_id])
    lobby_page = projector.get(response["Location"]).content.decode()
    assert run.lobby.join_code in lobby_page and "Pair and start" in lobby_page

    ala = signed_in(UserFactory(first_name="Ala"))
    ala.post(reverse("games:join_code", args=[run.lobby.join_code]))
    kuba = Client()
    kuba.post(reverse("games:join_code", args=[run.lobby.join_code]), {"nickname": "Kuba"})
    view = reverse("games:session_view", args=[run.lobby_id])
    assert kuba.get(view).json()["follow"] is None

    assert projector.post(reverse("games:class_round", args=[run.pk])).status_code == 302
    duel = ClassDuel.objects.get()
    for client in (ala, kuba):
        payload = client.get(view).json()
        assert payload["follow"] == reverse("games:class_follow", args=[run.pk])
        followed = client.get(payload["follow"])
        assert followed["Location"] == reverse("games:session", args=[duel.session_id])
        mine = client.get(reverse("games:session_view", args=[duel.session_id])).json()
        assert mine["you"]["role"] == "player" and mine["view"]["you"] in ("p1", "p2")

    board = projector.get(view).json()["class"]
    assert board["round"] == 1 and len(board["duels"]) == 1
    assert {p["nickname"].split()[0] for p in board["duels"][0]["players"]} == {"Ala", "Kuba"}
    assert [p["cards_in_hand"] for p in board["duels"][0]["players"]] == [4, 4]
    # Neither the projector nor a student sees a name before it is revealed.
    for body in (
        json.dumps(board),
        kuba.get(view).content.decode(),
        projector.get(response["Location"]).content.decode(),
    ):
        assert "Nazwa symbolu" not in body
    # The duel page links back to the lobby, where a finished student waits for the next round.
    assert ala.get(reverse("games:class_follow", args=[run.pk]))["Location"].endswith(f"/{duel.session_id}/")


def test_a_student_on_an_old_duel_is_sent_on_to_the_next_round(teacher):
    run, users = class_with(teacher, 2)
    (first,) = class_round_start(run=run, by=teacher)
    client = signed_in(users[0])
    url = reverse("games:session_view", args=[first.session_id])
    assert client.get(url).json()["follow"] is None
    (second,) = class_round_start(run=run, by=teacher)
    follow = client.get(url).json()["follow"]
    assert client.get(follow)["Location"] == reverse("games:session", args=[second.session_id])


def test_strangers_and_students_do_not_pair_the_class(teacher):
    run, users = class_with(teacher, 2)
    assert signed_in(users[0]).post(reverse("games:class_round", args=[run.pk])).status_code == 403
    assert Client().post(reverse("games:class_round", args=[run.pk])).status_code == 403
    assert not ClassDuel.objects.exists()
