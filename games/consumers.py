"""Live updates of a game session over a WebSocket (``ws/sessions/<id>/``).

The socket belongs to one participant, found from the Django session exactly as the
pages find it (signed-in user, or the guest token kept in the guest's session). The
group ``session-<id>`` carries only "version N exists" notices; on each one this
consumer loads the session and sends its own participant's view, so no message ever
holds what another player may not see.

Messages from the browser:

- ``{"type": "resume", "version": N}``: after a reconnect; the current state is sent
  back whatever N was (it only says what the browser had).
- ``{"type": "action", "action": {...}}``: play; a refusal is answered to this socket
  only, with ``{"type": "error", "error": code, "reason": message}``.

Messages to the browser: ``{"type": "state", ...}`` with the fields of
``games.selectors.session_payload``, and the errors above.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games.engines.base import ActionError

from . import selectors, services
from .models import GameSession, Participant

#: Close codes in the private range: the page stops reconnecting on these.
CLOSE_NOT_A_PARTICIPANT = 4403
CLOSE_NO_SESSION = 4404


class SessionConsumer(AsyncJsonWebsocketConsumer):
    participant: Participant | None = None
    group: str | None = None

    async def connect(self) -> None:
        session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        self.participant = await database_sync_to_async(self._participant)(session_id)
        if self.participant is None:
            # Before accept: the handshake is refused, nothing is sent.
            await self.close(code=CLOSE_NOT_A_PARTICIPANT)
            return
        self.group = self.participant.session.group_name
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_state()

    def _participant(self, session_id: int) -> Participant | None:
        session = self.scope.get("session")
        tokens = session.get(selectors.GUEST_TOKENS_KEY) if session is not None else None
        return selectors.participant_for(
            session_id=session_id, user=self.scope.get("user"), guest_tokens=tokens
        )

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        # A frame that is not JSON is answered like any other unknown message.
        try:
            return json.loads(text_data)
        except ValueError:
            return None

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "resume":
            await self.send_state()
        elif kind == "action":
            try:
                await database_sync_to_async(services.session_act)(
                    participant=self.participant, action=content.get("action")
                )
            except ActionError as error:
                await self.send_json({"type": "error", "error": error.code, "reason": str(error)})
                return
            # Everyone, this socket included, hears "session.changed" and gets a fresh
            # view; answering here as well means the player never waits on the layer.
            await self.send_state()
        else:
            await self.send_json(
                {
                    "type": "error",
                    "error": "invalid_message",
                    "reason": 'Send {"type": "action", "action": {...}} or {"type": "resume"}.',
                }
            )

    async def session_changed(self, event: dict[str, Any]) -> None:
        await self.send_state()

    async def send_state(self) -> None:
        payload = await database_sync_to_async(self._payload)()
        if payload is None:
            await self.close(code=CLOSE_NO_SESSION)
            return
        await self.send_json({"type": "state", **payload})

    def _payload(self) -> dict[str, Any] | None:
        assert self.participant is not None
        session = GameSession.objects.filter(pk=self.participant.session_id).first()
        if session is None:
            return None
        return selectors.session_payload(session=session, participant=self.participant)
