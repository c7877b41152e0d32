"""Helpers of the Activity play tests: cards, a game with two teams, who sees what."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.test import Client

from content.models import ActivityCard, ActivityTerm, Status
from games import services
from games.engines import activity
from games.models import GameSession, Participant
from games.play.activity import services as activity_services
from tests.factories import UserFactory


def make_cards(
    owner: Any, count: int = 8, *, language: str = "pl", prefix: str = "sekret"
) -> list[ActivityCard]:
    """Published cards whose every term is unique and easy to find in a response."""
    cards = []
    for k in range(count):
        card = ActivityCard.objects.create(owner=owner, language=language, status=Status.PUBLISHED)
        for slot in "ABCDEF":
            ActivityTerm.objects.create(card=card, slot=slot, text=f"{prefix}-{k}-{slot}", points=4)
        cards.append(card)
    return cards


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@dataclass
class Game:
    session: GameSession
    teacher: Any
    clients: dict[str, Client] = field(default_factory=dict)  # by player id, and "facilitator"

    def refresh(self) -> activity.State:
        self.session.refresh_from_db()
        return activity.state_from_dict(self.session.state)

    def participant(self, player: str) -> Participant:
        if player == "facilitator":
            return self.session.participants.get(role=Participant.Role.FACILITATOR)
        return self.session.participants.get(player_id=player)


def two_teams(
    teacher: Any, *, players: int = 4, seating: dict[str, str] | None = None, timer: int = 60
) -> Game:
    """A running team game: students p1..pN joined and seated (by default p1, p2 in t1)."""
    make_cards(teacher)
    session = activity_services.activity_session_create(
        facilitator=teacher,
        cards=ActivityCard.objects.all(),
        variant="teams",
        team_names=["Sowy", "Lisy"],
        timer=timer,
    )
    game = Game(session=session, teacher=teacher, clients={"facilitator": signed_in(teacher)})
    for k in range(1, players + 1):
        student = UserFactory(first_name=f"Uczeń{k}", last_name="")
        participant = services.session_join(session=session, user=student)
        game.clients[participant.player_id] = signed_in(student)
    facilitator = game.participant("facilitator")
    for player, team in (seating or {"p1": "t1", "p2": "t1", "p3": "t2", "p4": "t2"}).items():
        activity_services.activity_seat(session=session, by=facilitator, player_id=player, team=team)
    session.refresh_from_db()
    session.setup = {**session.setup, "first_team": "t1"}
    session.save(update_fields=["setup"])
    game.session = services.session_start(session=session, by=teacher)
    return game


def term_in_play(state: activity.State) -> str:
    assert state.task is not None and state.task.slot is not None
    card = next(c for c in state.cards if c.id == state.task.card)
    return card.term(state.task.slot).text


def text(response_or_message: Any) -> str:
    if hasattr(response_or_message, "content"):
        return response_or_message.content.decode()
    return json.dumps(response_or_message, ensure_ascii=False)
