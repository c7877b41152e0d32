"""The workshop's rules, named after the Teacher's Notes ("Połącz symbole")."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from content.models import SymbolSetMember, Visibility
from games.workshop import selectors, services
from games.workshop.models import Group, Suggestion, Workshop, WorkshopParticipant
from games.workshop.services import WorkshopError
from tests.factories import SymbolSetFactory, TeacherFactory, symbol_set_with


def cards(workshop: Workshop) -> dict[str, int | None]:
    return dict(workshop.participants.values_list("nickname", "symbol_id"))


# --- "Each player receives one auxiliary card from the leader" -----------------------------------------


def test_each_player_receives_one_auxiliary_card(workshop, players, teacher):
    assert services.workshop_deal(workshop=workshop, by=teacher) == 4
    dealt = cards(workshop)
    assert all(dealt.values())
    # One box of auxiliary cards: no symbol twice.
    assert len(set(dealt.values())) == 4
    workshop.refresh_from_db()
    assert workshop.status == Workshop.Status.DEALING


def test_a_player_never_receives_a_second_card(workshop, players, teacher):
    services.workshop_deal(workshop=workshop, by=teacher)
    before = cards(workshop)
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_deal(workshop=workshop, by=teacher)
    assert refusal.value.code == "nobody_waiting"
    late = services.workshop_join(workshop=workshop, nickname="Spóźniony")
    assert services.workshop_deal(workshop=workshop, by=teacher) == 1
    after = cards(workshop)
    assert {name: after[name] for name in before} == before
    late.refresh_from_db()
    assert late.symbol_id is not None and late.symbol_id not in before.values()


def test_random_dealing_comes_from_the_seed(teacher, symbols):
    def deal(seed: int) -> list[int]:
        workshop = services.workshop_create(teacher=teacher, allow_guests=True, seed=seed)
        for name in ("A", "B", "C"):
            services.workshop_join(workshop=workshop, nickname=name)
        services.workshop_deal(workshop=workshop, by=teacher)
        return list(workshop.participants.order_by("joined_at", "id").values_list("symbol_id", flat=True))

    assert deal(11) == deal(11)
    assert len({tuple(deal(seed)) for seed in range(6)}) > 1


def test_by_key_dealing_deals_only_symbols_with_the_key(teacher, symbols, themes):
    workshop = services.workshop_create(
        teacher=teacher, allow_guests=True, deal_mode="by_key", themes=[themes["ii-wojna"]]
    )
    for name in ("A", "B", "C", "D"):
        services.workshop_join(workshop=workshop, nickname=name)
    services.workshop_deal(workshop=workshop, by=teacher)
    for participant in workshop.participants.select_related("symbol"):
        assert themes["ii-wojna"] in participant.symbol.themes.all()
        assert participant.dealt_for == "Symbole II wojny światowej"


def test_by_key_dealing_by_a_period(teacher, symbols, periods):
    workshop = services.workshop_create(
        teacher=teacher, allow_guests=True, deal_mode="by_key", periods=[periods["prl"]]
    )
    for name in ("A", "B", "C"):
        services.workshop_join(workshop=workshop, nickname=name)
    services.workshop_deal(workshop=workshop, by=teacher)
    for participant in workshop.participants.select_related("symbol"):
        assert periods["prl"] in participant.symbol.periods.all()


def test_by_several_keys_the_keys_take_turns(teacher, symbols, themes):
    keys = [themes["ludzie"], themes["wydarzenia-prl"]]
    workshop = services.workshop_create(teacher=teacher, allow_guests=True, deal_mode="by_key", themes=keys)
    for name in ("A", "B", "C", "D", "E", "F"):
        services.workshop_join(workshop=workshop, nickname=name)
    services.workshop_deal(workshop=workshop, by=teacher)
    dealt_for = list(workshop.participants.values_list("dealt_for", flat=True))
    assert sorted(dealt_for) == ["Ludzie"] * 3 + ["Wydarzenia w PRL"] * 3
    for participant in workshop.participants.select_related("symbol"):
        assert set(participant.symbol.themes.all()) & set(keys)


def test_dealing_by_a_key_needs_a_key(teacher, symbols):
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_create(teacher=teacher, deal_mode="by_key")
    assert refusal.value.code == "invalid_deal"


def test_too_few_cards_for_the_players_is_refused_and_changes_nothing(teacher, symbols, themes):
    workshop = services.workshop_create(
        teacher=teacher, allow_guests=True, deal_mode="by_key", themes=[themes["ludzie"]]
    )
    for name in ("A", "B", "C", "D", "E"):  # four people symbols for five players
        services.workshop_join(workshop=workshop, nickname=name)
    version = Workshop.objects.get(pk=workshop.pk).version
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_deal(workshop=workshop, by=teacher)
    assert refusal.value.code == "not_enough_cards"
    assert not any(cards(workshop).values())
    workshop.refresh_from_db()
    assert workshop.status == Workshop.Status.LOBBY and workshop.version == version


def test_cards_come_from_the_chosen_symbol_set(teacher, symbols):
    chosen = symbols[2:5]
    workshop = services.workshop_create(
        teacher=teacher, allow_guests=True, symbol_set=symbol_set_with(chosen, owner=teacher)
    )
    for name in ("A", "B", "C"):
        services.workshop_join(workshop=workshop, nickname=name)
    services.workshop_deal(workshop=workshop, by=teacher)
    assert set(cards(workshop).values()) == {s.pk for s in chosen}


def test_another_teachers_private_symbol_set_cannot_be_used(teacher, symbols):
    private = SymbolSetFactory(owner=TeacherFactory(), visibility=Visibility.PRIVATE)
    SymbolSetMember.objects.create(symbol_set=private, symbol=symbols[0])
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_create(teacher=teacher, symbol_set=private)
    assert refusal.value.code == "not_allowed"


def test_only_the_leader_deals(workshop, players, other_teacher):
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_deal(workshop=workshop, by=other_teacher)
    assert refusal.value.code == "not_allowed"


def test_only_teachers_lead_workshops(student_user):
    with pytest.raises(WorkshopError):
        services.workshop_create(teacher=student_user)


# --- joining -----------------------------------------------------------------------------------------------


def test_guests_join_only_where_allowed(teacher, symbols):
    closed_to_guests = services.workshop_create(teacher=teacher)
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_join(workshop=closed_to_guests, nickname="Ala")
    assert refusal.value.code == "guests_not_allowed"


def test_joining_twice_is_one_participant_and_the_leader_does_not_join(workshop, student_user, teacher):
    first = services.workshop_join(workshop=workshop, user=student_user)
    assert services.workshop_join(workshop=workshop, user=student_user) == first
    with pytest.raises(WorkshopError):
        services.workshop_join(workshop=workshop, user=teacher)


def test_a_nickname_is_taken_once(workshop):
    services.workshop_join(workshop=workshop, nickname="Ala")
    with pytest.raises(WorkshopError) as refusal:
        services.workshop_join(workshop=workshop, nickname="ala")
    assert refusal.value.code == "nickname_taken"


# --- "then form groups of related symbols" -------------------------------------------------------------


def test_groups_open_only_after_the_cards_are_read(workshop, players, teacher):
    services.workshop_deal(workshop=workshop, by=teacher)
    with pytest.raises(WorkshopError) as refusal:
        services.group_create(participant=players[0])
    assert refusal.value.code == "wrong_phase"


def test_a_player_without_a_card_forms_no_group(grouping, teacher):
    late = services.workshop_join(workshop=grouping, nickname="Spóźniony")
    with pytest.raises(WorkshopError) as refusal:
        services.group_create(participant=late)
    assert refusal.value.code == "no_card"


def test_a_student_can_be_in_one_group_at_a_time(grouping, players):
    ala, olek, ewa, _ = players
    first = services.group_create(participant=ala)
    second = services.group_create(participant=olek)
    services.group_join(participant=ewa, group=first)
    services.group_join(participant=ewa, group=second)
    ewa.refresh_from_db()
    assert ewa.group_id == second.pk
    assert list(first.members.values_list("nickname", flat=True)) == ["Ala"]
    assert sorted(second.members.values_list("nickname", flat=True)) == ["Ewa", "Olek"]


def test_a_group_nobody_is_left_in_is_gone_with_its_suggestions(grouping, players, teacher):
    ala, olek = players[:2]
    group = services.group_create(participant=ala)
    services.suggestion_add(workshop=grouping, by=teacher, text="Look at the dates.", group=group)
    services.group_join(participant=ala, group=services.group_create(participant=olek))
    assert not Group.objects.filter(pk=group.pk).exists()
    assert not Suggestion.objects.filter(group_id=group.pk).exists()


def test_a_group_of_another_workshop_cannot_be_joined(grouping, players, teacher, symbols):
    other = services.workshop_create(teacher=teacher, allow_guests=True)
    outsider = services.workshop_join(workshop=other, nickname="Obcy")
    services.workshop_deal(workshop=other, by=teacher)
    services.workshop_grouping_start(workshop=other, by=teacher)
    group = services.group_create(participant=players[0])
    with pytest.raises(WorkshopError) as refusal:
        services.group_join(participant=outsider, group=group)
    assert refusal.value.code == "no_group"


# --- "by what key they formed the group" -----------------------------------------------------------------


def test_naming_the_key_of_the_group(grouping, players):
    ala, olek = players[:2]
    group = services.group_create(participant=ala)
    services.group_join(participant=olek, group=group)
    services.group_key_name(participant=olek, key="  Symbole   II wojny ")
    group.refresh_from_db()
    assert group.key == "Symbole II wojny"
    # Any member renames it; the leader does not interfere with unusual keys.
    services.group_key_name(participant=ala, key="Wyglądają podobnie")
    group.refresh_from_db()
    assert group.key == "Wyglądają podobnie"


def test_only_a_member_names_a_key_and_a_key_is_not_empty(grouping, players):
    services.group_create(participant=players[0])
    with pytest.raises(WorkshopError) as refusal:
        services.group_key_name(participant=players[1], key="Ludzie")
    assert refusal.value.code == "no_group"
    with pytest.raises(WorkshopError) as refusal:
        services.group_key_name(participant=players[0], key="   ")
    assert refusal.value.code == "empty"


# --- "The leader may only show the players other possible connections" -----------------------------------


def test_suggestions_are_visible_to_the_group(grouping, players, teacher):
    ala, olek, ewa, _ = players
    ours = services.group_create(participant=ala)
    services.group_join(participant=olek, group=ours)
    services.group_create(participant=ewa)
    services.suggestion_add(workshop=grouping, by=teacher, text="Both are from 1944.", group=ours)
    services.suggestion_add(workshop=grouping, by=teacher, text="Look for people.")

    def seen_by(participant: WorkshopParticipant) -> tuple[list[str], list[str]]:
        payload = selectors.student_payload(workshop=grouping, participant=participant)
        to_groups = [text for group in payload["groups"] for text in group["suggestions"]]
        return to_groups, payload["suggestions"]

    assert seen_by(olek) == (["Both are from 1944."], ["Look for people."])
    assert seen_by(ewa) == ([], ["Look for people."])
    teacher_groups = selectors.teacher_payload(workshop=grouping)["groups"]
    assert [g["suggestions"] for g in teacher_groups] == [["Both are from 1944."], []]


def test_only_the_leader_suggests(grouping, other_teacher):
    with pytest.raises(WorkshopError):
        services.suggestion_add(workshop=grouping, by=other_teacher, text="Hm.")


def test_a_closed_workshop_changes_no_more(grouping, players, teacher):
    services.workshop_close(workshop=grouping, by=teacher)
    with pytest.raises(WorkshopError) as refusal:
        services.group_create(participant=players[0])
    assert refusal.value.code == "closed"
    with pytest.raises(WorkshopError):
        services.suggestion_add(workshop=grouping, by=teacher, text="Late.")
    with pytest.raises(WorkshopError):
        services.workshop_join(workshop=grouping, nickname="Nowy")


# --- live updates --------------------------------------------------------------------------------------------


def test_every_change_bumps_the_version_and_tells_the_channel_group(
    teacher, symbols, django_capture_on_commit_callbacks, settings
):
    # The message the service sends, read on the in-memory layer: Redis's pub/sub layer
    # binds its subscriptions to one event loop, and each async_to_sync call here runs its
    # own (the Redis layer itself is tested in tests/games/test_live.py).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    workshop = services.workshop_create(teacher=teacher, allow_guests=True)
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(workshop.group_name, channel)
    with django_capture_on_commit_callbacks(execute=True):
        services.workshop_join(workshop=workshop, nickname="Ala")
    message = async_to_sync(layer.receive)(channel)
    assert message == {"type": "workshop.changed", "version": 1}
    workshop.refresh_from_db()
    assert workshop.version == 1
