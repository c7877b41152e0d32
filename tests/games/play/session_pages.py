"""A game played by a test's clients through the endpoints every game's page polls."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client
from django.urls import reverse

from games.models import GameSession


class SessionPages:
    """Acting and reading one's view over HTTP, for a test's table of clients (a dataclass
    with the ``session`` they play)."""

    session: GameSession

    def act(self, client: Client, action: dict[str, Any]) -> Any:
        return client.post(
            reverse("games:session_actions", args=[self.session.pk]),
            data=json.dumps(action),
            content_type="application/json",
        )

    def view(self, client: Client) -> dict[str, Any]:
        response = client.get(reverse("games:session_view", args=[self.session.pk]))
        assert response.status_code == 200, response.content
        return response.json()
