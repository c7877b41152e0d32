"""Fixtures of the workshop tests: a leader, symbols with themes and periods, players."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from content.models import Period
from games.workshop import services
from games.workshop.models import Workshop, WorkshopParticipant
from tests.factories import SymbolFactory, ThemeFactory, UserFactory


@pytest.fixture
def periods(db) -> dict[str, Period]:
    return {p.slug: p for p in Period.objects.all()}


@pytest.fixture
def themes(db) -> dict[str, Any]:
    return {
        slug: ThemeFactory(slug=slug, name=name)
        for slug, name in [
            ("ludzie", "Ludzie"),
            ("ii-wojna", "Symbole II wojny światowej"),
            ("wydarzenia-prl", "Wydarzenia w PRL"),
        ]
    }


@pytest.fixture
def symbols(periods, themes) -> list[Any]:
    """Twelve published symbols: 4 people (II RP), 4 of the war, 4 PRL events."""
    made = []
    for theme, period in (("ludzie", "ii-rp"), ("ii-wojna", "ii-wojna-swiatowa"), ("wydarzenia-prl", "prl")):
        for i in range(4):
            symbol = SymbolFactory(
                name=f"{themes[theme].name} {i}",
                periods=[periods[period]],
                description=f"Description of {theme} {i}.",
                outline=f"Outline of {theme} {i}.",
            )
            symbol.themes.set([themes[theme]])
            made.append(symbol)
    return made


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def join_guest(workshop: Workshop, nickname: str) -> tuple[Client, WorkshopParticipant]:
    """A guest joins through the join page, as a phone would; their client keeps the token."""
    client = Client()
    response = client.post(f"/games/workshops/join/{workshop.join_code}", {"nickname": nickname})
    assert response.status_code == 302, response.content
    return client, WorkshopParticipant.objects.get(workshop=workshop, nickname=nickname)


@pytest.fixture
def workshop(teacher, symbols) -> Workshop:
    return services.workshop_create(teacher=teacher, allow_guests=True, seed=7)


@pytest.fixture
def players(workshop) -> list[WorkshopParticipant]:
    return [
        services.workshop_join(workshop=workshop, nickname=name) for name in ("Ala", "Olek", "Ewa", "Jan")
    ]


@pytest.fixture
def grouping(workshop, players, teacher) -> Workshop:
    """The four players hold their cards and the groups are open."""
    services.workshop_deal(workshop=workshop, by=teacher)
    services.workshop_grouping_start(workshop=workshop, by=teacher)
    workshop.refresh_from_db()
    return workshop


@pytest.fixture
def student_user(db):
    return UserFactory()
