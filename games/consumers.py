"""Live updates of a game session over a WebSocket (``ws/sessions/<id>/``).

The socket belongs to one participant, found from the Django session exactly as the
pages find it (signed-in user, or the guest token kept in the guest's session): the user
with Django's own ``auth.get_user``, in the same database call as the participant, so an
opening socket takes one trip to a database thread (``config.asgi`` mounts the sockets
behind Channels' session middleware only, not its ``AuthMiddleware``, which would take
another). The
group ``session-<id>`` carries "version N exists" notices between the server's
processes; a notice of an action also carries every viewer's payload, built once by
the writer (``selectors.session_broadcast``), so a watcher does not read the session
again. Each consumer sends its socket only its own participant's payload: nothing
another player may not see ever reaches a browser. Without a payload for it (a class
run, a practice, someone who joined since), the consumer reads the session afresh.

The acting socket's own action is applied in one database call that also gives its
new payload; the consumer then sends the notices itself (``session_publish_deferred``),
so the database thread never waits on the channel layer, and skips the echo of a
payload it has already sent. Notices older than what the socket shows are dropped.

Messages from the browser:

- ``{"type": "resume", "version": N}``: after a reconnect; the current state is sent
  back whatever N was (it only says what the browser had).
- ``{"type": "action", "action": {...}}``: play; a refusal is answered to this socket
  only, with ``{"type": "error", "error": code, "reason": message}``.

Messages to the browser: ``{"type": "state", ...}`` with the fields of
``games.selectors.session_payload``, and the errors above.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib import auth

from games.engines.base import ActionError

from . import database_threads, live, selectors, services, sockets
from .database_threads import in_database_thread
from .models import GameSession, Participant

logger = logging.getLogger(__name__)


def database_threads_close() -> None:
    """Close every database connection the live path holds: the database threads' and the
    fast path's (tests: before the test database is dropped)."""
    database_threads.database_threads_close()
    live.connections_close()


#: Close codes in the private range: the page stops reconnecting on these.
CLOSE_NOT_A_PARTICIPANT = 4403
CLOSE_NO_SESSION = 4404
#: Closed by the server for a passing reason (``1013``, "try again later"): the page reconnects.
CLOSE_TRY_AGAIN = 1013


class SessionConsumer(AsyncJsonWebsocketConsumer):
    participant: Participant | None = None
    group: str | None = None
    #: (version, status, participants) of the last payload sent: an equal one is not sent again.
    shown: tuple[int, str, int] | None = None

    async def connect(self) -> None:
        session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        self.participant = await in_database_thread(self._participant, session_id)
        if self.participant is None:
            # Before accept: the handshake is refused, nothing is sent.
            await self.close(code=CLOSE_NOT_A_PARTICIPANT)
            return
        session_id = self.participant.session_id
        self.group = GameSession.group_name_of(session_id)
        # In this order (``games.sockets``): in the group, in the session row's processes,
        # then the state read.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if not await live.present(session_id):
            await self.close(code=CLOSE_TRY_AGAIN)  # the page opens it again
            return
        sockets.opened(session_id, self)
        await self.send_state()

    def _participant(self, session_id: int) -> Participant | None:
        session = self.scope.get("session")
        if session is None:
            return None
        user = auth.get_user(_SessionOnly(session))
        self.scope["user"] = user
        return selectors.participant_for(
            session_id=session_id,
            user=user,
            guest_tokens=session.get(selectors.GUEST_TOKENS_KEY),
            with_session=False,
        )

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes stale database connections before every message, a trip to a
        # thread each time; this consumer's database work runs in database threads that
        # do it themselves (``database_threads.in_database_thread``), the fast path on its
        # own connections.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        if self.participant is not None:
            sockets.closed(self.participant.session_id, self)
            live.table_forget(self.participant.session_id)
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def send_json(self, content: Any, close: bool = False) -> None:
        # The browser closed the socket while this answer was made (a student who saw the end
        # moves on while the last STOP is refused): nobody is left to tell.
        with contextlib.suppress(Disconnected):
            await super().send_json(content, close)

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
            assert self.participant is not None
            try:
                done = await live.act(self.participant, content.get("action"))
                if done is None:  # not for the fast path: the one service, locked
                    done = await in_database_thread(self._act, content.get("action"))
                payload, notices = done
            except ActionError as error:
                await self.send_json({"type": "error", "error": error.code, "reason": str(error)})
                return
            # The opponent first, then this socket, which the notice does not reach.
            for group, notice in notices:
                if notice.get("origin") == sockets.PROCESS:  # the fast path's (``games.sockets``)
                    await self._tell_sockets_here(notice)
                    if notice.pop("local", False):
                        continue  # no other process holds this game
                await self.channel_layer.group_send(group, notice)
            await self.send_payload(payload)
        else:
            await self.send_json(
                {
                    "type": "error",
                    "error": "invalid_message",
                    "reason": 'Send {"type": "action", "action": {...}} or {"type": "resume"}.',
                }
            )

    def _act(self, action: Any) -> tuple[dict[str, Any] | None, list[tuple[str, dict[str, Any]]]]:
        """Apply the action; this participant's new payload and the notices to send."""
        assert self.participant is not None
        with services.session_publish_deferred() as notices:
            services.session_act(participant=self.participant, action=action)
        for group, notice in notices:
            broadcast = notice.get("broadcast")
            if group == self.group and broadcast is not None:
                payload = selectors.payload_from_broadcast(broadcast, self.participant.pk)
                if payload is not None:
                    return payload, notices
        return self._payload(), notices

    async def _tell_sockets_here(self, notice: dict[str, Any]) -> None:
        """Bring the other sockets of this session in this process a fast-path notice."""
        assert self.participant is not None
        for socket in sockets.here(self.participant.session_id):
            if socket is not self:
                try:
                    await socket.notice_changed(notice)
                except Exception:  # that socket's trouble, not this action's
                    logger.exception("A notice missed a socket of session %s.", self.participant.session_id)

    async def session_changed(self, event: dict[str, Any]) -> None:
        if event.get("origin") == sockets.PROCESS:
            return  # stored by this process, whose sockets had it directly (``games.sockets``)
        await self.notice_changed(event)

    async def notice_changed(self, event: dict[str, Any]) -> None:
        """A change notice of this session, from the channel layer or from another socket
        of this process (``games.sockets``)."""
        broadcast = event.get("broadcast")
        if self.participant is not None:
            # Every notice, also one this socket will not show (an older version): a join
            # published just before an action still changes who is in the game.
            live.table_heard(
                self.participant.session_id,
                version=event.get("version", 0),
                has_payloads=broadcast is not None,
                applied=event.get("applied"),
            )
        if self.shown is not None and event.get("version", 0) < self.shown[0]:
            return  # this socket already shows a later version
        payload = None
        if broadcast is not None and self.participant is not None:
            payload = selectors.payload_from_broadcast(broadcast, self.participant.pk)
        if payload is None:
            await self.send_state()
        elif _shown(payload) != self.shown:
            await self.send_payload(payload)

    async def send_state(self) -> None:
        assert self.participant is not None
        payload = await live.payload(self.participant)
        if payload is None:
            payload = await in_database_thread(self._payload)
        await self.send_payload(payload)

    async def send_payload(self, payload: dict[str, Any] | None) -> None:
        if payload is None:
            await self.close(code=CLOSE_NO_SESSION)
            return
        if self.shown is not None and payload["version"] < self.shown[0]:
            return  # a read that a newer notice overtook (versions only grow)
        self.shown = _shown(payload)
        await self.send_json({"type": "state", **payload})

    def _payload(self) -> dict[str, Any] | None:
        assert self.participant is not None
        session = GameSession.objects.filter(pk=self.participant.session_id).first()
        if session is None:
            return None
        return selectors.session_payload(session=session, participant=self.participant)


class _SessionOnly:
    """What ``django.contrib.auth.get_user`` reads of a request: its session."""

    def __init__(self, session: Any) -> None:
        self.session = session


def _shown(payload: dict[str, Any]) -> tuple[int, str, int]:
    return payload["version"], payload["status"], len(payload["participants"])
