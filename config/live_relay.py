"""Live updates from the embedded mode's worker to the web process, without Redis.

``make run`` runs a Celery worker in a process of its own beside ``manage.py runserver``,
and the embedded mode has no Redis: the web process keeps its sockets' groups in
Channels' in-memory layer, which no other process can reach. What the worker does (a
duel ended by its timer, a follow-up quiz built, a workshop changed) still has to reach
the open pages, as Redis carries it between processes in production.

So the worker's channel layer is :class:`RelayChannelLayer`: its ``group_send`` posts
the message, signed with the installation's ``SECRET_KEY`` (which both processes read
from ``var/secret_key``), to :func:`live_relay_receive` in the web process, which puts
it on its own in-memory layer. Only ``group_send`` travels: the worker holds no
sockets, so it never joins a group or receives.

``config.embedded`` sets ``LIVE_RELAY_URL`` for the worker it starts (the web process
it starts beside it); ``config.settings`` picks this layer only then, and only without
``REDIS_URL``. Deployments with Redis never use it, and the endpoint refuses to work
for them (404).

A notice that cannot be delivered (the web process is restarting) is logged and
dropped, as Redis publish/subscribe drops a message nobody listens to: a page that
opens or reconnects reads the current state anyway.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.request
from typing import Any

from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from django.core import signing
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, HttpResponseNotFound
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

logger = logging.getLogger(__name__)

#: Keeps these signatures apart from every other use of ``SECRET_KEY``.
SALT = "talia.live-relay"
#: A relayed message older than this is refused (a captured request replayed later).
MAX_AGE_SECONDS = 60


def relay_message_sign(*, group: str, message: dict[str, Any]) -> bytes:
    """The body of one relay request: the group and the message, signed and timestamped."""
    return signing.dumps({"group": group, "message": message}, salt=SALT, compress=True).encode()


def relay_message_read(body: bytes) -> tuple[str, dict[str, Any]]:
    """The group and message of a relay body; ``signing.BadSignature`` when it is not ours.

    ``SignatureExpired`` (a subclass) when it is older than :data:`MAX_AGE_SECONDS`.
    """
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError as error:
        raise signing.BadSignature("not a signed value") from error
    data = signing.loads(text, salt=SALT, max_age=MAX_AGE_SECONDS)
    return data["group"], data["message"]


class RelayChannelLayer(BaseChannelLayer):
    """A channel layer that can only ``group_send``, forwarding to the web process's layer."""

    extensions = ["groups"]

    def __init__(self, url: str, timeout: float = 2.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url = url
        self.timeout = timeout

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.require_valid_group_name(group)
        body = relay_message_sign(group=group, message=message)
        # In a thread: the caller's event loop (a consumer's, or async_to_sync's) keeps running.
        await asyncio.to_thread(self._post, body)

    def _post(self, body: bytes) -> None:
        request = urllib.request.Request(
            self.url, data=body, method="POST", headers={"Content-Type": "application/octet-stream"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()
        except OSError as error:  # urllib's errors included (a refused relay: HTTPError)
            logger.warning("A live update was not relayed to the web process (%s): %s", self.url, error)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        raise NotImplementedError("The relay layer only sends to groups (the web process holds the sockets).")

    async def receive(self, channel: str) -> dict[str, Any]:
        raise NotImplementedError("The relay layer cannot receive: no socket lives in this process.")

    async def new_channel(self, prefix: str = "specific.") -> str:
        raise NotImplementedError("The relay layer cannot receive: no socket lives in this process.")

    async def group_add(self, group: str, channel: str) -> None:
        raise NotImplementedError("The relay layer cannot receive: no socket lives in this process.")

    async def group_discard(self, group: str, channel: str) -> None:
        raise NotImplementedError("The relay layer cannot receive: no socket lives in this process.")

    async def flush(self) -> None:
        return None


@csrf_exempt  # not a browser's form: the signature is the proof of origin
@require_POST
async def live_relay_receive(request: HttpRequest) -> HttpResponse:
    """Put a message the worker relayed on this process's in-memory channel layer.

    Async, so the message is sent from the event loop that runs the sockets' consumers.
    """
    layer = get_channel_layer()
    if not isinstance(layer, InMemoryChannelLayer):
        return HttpResponseNotFound()
    try:
        group, message = relay_message_read(request.body)
    except signing.BadSignature:
        return HttpResponseForbidden()
    await layer.group_send(group, message)
    return HttpResponse(status=204)
