"""Workshop pages: who may see what, the polling endpoints, and the forms end to end."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.workshop import selectors, services
from games.workshop.models import Group, Workshop, WorkshopParticipant
from tests.games.workshop.conftest import join_guest, signed_in


def view_json(client: Client, workshop: Workshop, **params) -> tuple[int, dict]:
    response = client.get(reverse("workshop:view", args=[workshop.pk]), params)
    return response.status_code, response.json()


# --- creating ------------------------------------------------------------------------------------------


def test_a_teacher_creates_a_workshop_dealt_by_a_key(teacher, symbols, themes):
    client = signed_in(teacher)
    assert client.get(reverse("workshop:new")).status_code == 200
    response = client.post(
        reverse("workshop:new"),
        {"title": "3b", "deal_mode": "by_key", "key_themes": [themes["ludzie"].pk], "allow_guests": "on"},
    )
    workshop = Workshop.objects.get(teacher=teacher)
    assert response.status_code == 302 and response.url == reverse("workshop:lead", args=[workshop.pk])
    assert list(workshop.key_themes.all()) == [themes["ludzie"]]
    page = client.get(response.url).content.decode()
    assert workshop.join_code in page
    assert "<svg" in page  # the QR code to the join page
    assert reverse("workshop:join_code", args=[workshop.join_code]) in page


def test_by_a_key_without_a_key_is_an_error_on_the_form(teacher, symbols):
    response = signed_in(teacher).post(reverse("workshop:new"), {"deal_mode": "by_key"})
    assert response.status_code == 400
    assert "choose at least one theme or period" in response.content.decode()
    assert not Workshop.objects.exists()


def test_a_student_creates_no_workshop(student_user):
    assert signed_in(student_user).get(reverse("workshop:new")).status_code == 403


# --- permissions ----------------------------------------------------------------------------------------


def test_another_teachers_workshop_is_404(workshop, players, other_teacher):
    client = signed_in(other_teacher)
    assert client.get(reverse("workshop:lead", args=[workshop.pk])).status_code == 404
    for name in ("deal", "grouping_start", "close", "suggest"):
        response = client.post(reverse(f"workshop:{name}", args=[workshop.pk]), {"text": "x"})
        assert response.status_code == 404, name
    workshop.refresh_from_db()
    assert workshop.status == Workshop.Status.LOBBY
    assert not workshop.suggestions.exists()


def test_a_non_participant_cannot_read_a_workshops_state(grouping, players, other_teacher, student_user):
    holder = players[0]
    for client in (Client(), signed_in(student_user), signed_in(other_teacher)):
        assert client.get(reverse("workshop:view", args=[grouping.pk])).status_code == 403
        assert client.get(reverse("workshop:panel", args=[grouping.pk])).status_code == 403
        picture = reverse("workshop:picture", args=[grouping.pk, holder.pk])
        assert client.get(picture).status_code == 404
        # The player's page sends them to the join page, which shows no state.
        response = client.get(reverse("workshop:play", args=[grouping.pk]))
        assert response.status_code == 302
        assert response.url == reverse("workshop:join_code", args=[grouping.join_code])
        response = client.post(reverse("workshop:group_create", args=[grouping.pk]))
        assert response.status_code == 403
    assert not Group.objects.exists()


def test_a_participant_of_one_workshop_reads_nothing_of_another(grouping, teacher, symbols):
    other = services.workshop_create(teacher=teacher, allow_guests=True)
    client, _ = join_guest(other, "Ala")
    assert view_json(client, other)[0] == 200
    assert client.get(reverse("workshop:view", args=[grouping.pk])).status_code == 403
    assert client.get(reverse("workshop:panel", args=[grouping.pk])).status_code == 403


def test_a_player_sees_only_their_own_cards_picture(grouping, teacher):
    ala_client, ala = join_guest(grouping, "Ala2")
    services.workshop_deal(workshop=grouping, by=teacher)
    ala.refresh_from_db()
    olek = grouping.participants.exclude(pk=ala.pk).first()
    own = ala_client.get(reverse("workshop:picture", args=[grouping.pk, ala.pk]))
    assert own.status_code == 200 and own["Content-Type"] == "image/svg+xml"
    assert ala_client.get(reverse("workshop:picture", args=[grouping.pk, olek.pk])).status_code == 404
    leader = signed_in(teacher)
    assert leader.get(reverse("workshop:picture", args=[grouping.pk, olek.pk])).status_code == 200


# --- polling ------------------------------------------------------------------------------------------------


def test_a_player_polls_their_own_card_and_what_the_groups_show(workshop, teacher, symbols):
    ala_client, ala = join_guest(workshop, "Ala")
    olek_client, olek = join_guest(workshop, "Olek")
    services.workshop_deal(workshop=workshop, by=teacher)
    services.workshop_grouping_start(workshop=workshop, by=teacher)
    ala.refresh_from_db()
    olek.refresh_from_db()

    status, payload = view_json(ala_client, workshop)
    assert status == 200
    card = payload["you"]["card"]
    assert card["name"] == ala.symbol.name
    assert card["description"] == ala.symbol.description
    assert card["outline"] == ala.symbol.outline
    assert [p["name"] for p in card["periods"]] == [p.name for p in ala.symbol.periods.all()]
    assert card["picture"] == reverse("workshop:picture", args=[workshop.pk, ala.pk])
    # Of Olek: the name on his card, nothing of its back.
    text = str(payload)
    assert olek.symbol.name in text
    assert olek.symbol.description not in text and olek.symbol.outline not in text
    assert "dealt_for" not in text and "token" not in text

    # Olek starts a group, Ala joins it and names its key; both see it.
    assert olek_client.post(reverse("workshop:group_create", args=[workshop.pk])).status_code == 302
    group = Group.objects.get(workshop=workshop)
    ala_client.post(reverse("workshop:group_join", args=[workshop.pk]), {"group": group.pk})
    ala_client.post(reverse("workshop:group_key", args=[workshop.pk]), {"key": "Ludzie i wojna"})
    _, seen = view_json(olek_client, workshop)
    assert seen["groups"] == [
        {
            "id": group.pk,
            "label": "Group 1",
            "key": "Ludzie i wojna",
            "yours": True,
            "suggestions": [],
            "members": [
                {"nickname": "Ala", "symbol": ala.symbol.name, "you": False},
                {"nickname": "Olek", "symbol": olek.symbol.name, "you": True},
            ],
        }
    ]
    assert seen["you"]["group"] == group.pk and seen["without_group"] == []

    # The panel the page swaps in shows the same.
    panel = olek_client.get(reverse("workshop:panel", args=[workshop.pk])).content.decode()
    assert "Ludzie i wojna" in panel and ala.symbol.name in panel and olek.symbol.description in panel


def test_polling_since_the_current_version_is_unchanged(workshop, teacher):
    client, _ = join_guest(workshop, "Ala")
    _, payload = view_json(client, workshop)
    assert view_json(client, workshop, since=payload["version"])[1] == {
        "unchanged": True,
        "version": payload["version"],
    }
    services.workshop_join(workshop=workshop, nickname="Olek")
    _, newer = view_json(client, workshop, since=payload["version"])
    assert newer["version"] == payload["version"] + 1
    assert [p["nickname"] for p in newer["without_group"]] == ["Ala", "Olek"]


def test_the_leader_polls_everything(grouping, players, teacher):
    services.group_create(participant=players[0])
    status, payload = view_json(signed_in(teacher), grouping)
    assert status == 200
    assert payload["counts"] == {"participants": 4, "waiting_for_card": 0, "in_groups": 1}
    assert [m["nickname"] for m in payload["groups"][0]["members"]] == ["Ala"]
    assert all(p["symbol"] for p in payload["participants"])


def test_the_leaders_suggestion_form_reaches_the_group(grouping, players, teacher):
    group = services.group_create(participant=players[0])
    client = signed_in(teacher)
    response = client.post(
        reverse("workshop:suggest", args=[grouping.pk]), {"text": "Both are from 1944.", "group": group.pk}
    )
    assert response.status_code == 302
    assert list(group.suggestions.values_list("text", flat=True)) == ["Both are from 1944."]
    page = client.get(reverse("workshop:lead", args=[grouping.pk])).content.decode()
    assert "Both are from 1944." in page


def test_a_refusal_is_shown_on_the_page(workshop, teacher):
    client, _ = join_guest(workshop, "Ala")
    response = client.post(reverse("workshop:group_create", args=[workshop.pk]), follow=True)
    assert "Groups open when your teacher says so." in response.content.decode()


@pytest.mark.parametrize("code", ["abc-def", "ZZZZZZ"])
def test_join_by_a_code_that_is_not_open(db, code):
    response = Client().get(reverse("workshop:join_code", args=[code]), follow=True)
    assert response.status_code == 404


def test_a_signed_in_student_joins_by_code(workshop, student_user):
    client = signed_in(student_user)
    response = client.post(reverse("workshop:join"), {"code": workshop.join_code.lower()}, follow=True)
    assert response.status_code == 200
    response = client.post(reverse("workshop:join_code", args=[workshop.join_code]))
    assert response.url == reverse("workshop:play", args=[workshop.pk])
    assert WorkshopParticipant.objects.filter(workshop=workshop, user=student_user).exists()
    assert client.get(response.url).status_code == 200


def test_the_games_join_page_leads_a_workshop_code_to_the_workshop(workshop):
    response = Client().get(reverse("games:join_code", args=[workshop.join_code]))
    assert response.status_code == 302
    assert response.url == reverse("workshop:join_code", args=[workshop.join_code])


@pytest.mark.parametrize("group_id", ["³", "99999999999999999999"])
def test_a_group_id_that_is_no_number_or_too_big_is_no_group(workshop, teacher, symbols, group_id):
    # '³'.isdigit() is true but int('³') fails; a huge id fits no database integer.
    ala_client, ala = join_guest(workshop, "Ala")
    services.workshop_deal(workshop=workshop, by=teacher)
    services.workshop_grouping_start(workshop=workshop, by=teacher)
    response = ala_client.post(reverse("workshop:group_join", args=[workshop.pk]), {"group": group_id})
    assert response.status_code in (200, 302)
    ala.refresh_from_db()
    assert ala.group_id is None


def test_a_co_teacher_leads_the_owners_workshop(workshop, players, teacher, other_teacher):
    from lms.classes import services as class_services
    from tests.lms.factories_classes import class_with_students

    school_class = class_with_students(teacher)
    class_services.class_member_add(school_class=school_class, user=other_teacher, role="teacher", by=teacher)
    client = signed_in(other_teacher)
    assert client.get(reverse("workshop:lead", args=[workshop.pk])).status_code == 200
    assert workshop in selectors.workshops_led_by(other_teacher)
    status, payload = view_json(client, workshop)
    assert status == 200 and payload["counts"]["participants"] == len(players)
    response = client.post(reverse("workshop:deal", args=[workshop.pk]))
    assert response.status_code == 302
    # Leading is not joining: the co-teacher is not one of the participants.
    with pytest.raises(services.WorkshopError):
        services.workshop_join(workshop=workshop, user=other_teacher)
