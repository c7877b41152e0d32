"""The game sockets this process holds, by session, and whether other processes hold some too.

An action stored on the live fast path (``games.live``) reaches the other sockets of its
game in this process directly, from the actor's consumer: no trip through Redis and back,
which costs more than the action itself on a busy machine (``bench/README.md``). It is
published on the channel layer only when another process may hold a socket of the game:

* a socket that opens joins the session's group, then adds this process (:data:`PROCESS`)
  to the session's set of processes in Redis (:func:`opened`), and only then reads the
  state;
* after storing an action, the writer reads that set (:func:`elsewhere`): with another
  process in it, the notice is published (and from then on always, for that session).

Either the other process's socket was in the set when the writer looked, and gets the
notice; or it joined the set later, and its read of the state, later still, holds the
action. Redis answers each command in one order for every client, so no action falls
between the two. A process never leaves a session's set:
a stale member only makes a writer publish what nobody needs (the set expires a week after
a socket last opened). With the in-memory channel
layer (the embedded mode, one process) nothing is published or kept in Redis.

Everything not on the fast path (the locked service, HTTP requests, Celery) publishes to
the group as before, and each socket takes it from the layer.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections import OrderedDict
from typing import Any

import redis.asyncio
import redis.exceptions
from django.conf import settings

logger = logging.getLogger(__name__)

#: This process, in the sessions' sets and in the notices it stores on the fast path.
PROCESS = uuid.uuid4().hex
#: How long a session's set of processes is kept after its last socket opened.
SET_SECONDS = 7 * 24 * 3600

#: The sockets (consumers) of each session in this process, in the order they opened.
_sockets: dict[int, dict[Any, None]] = {}
#: Sessions known to be held by another process too: most recently asked last.
_elsewhere: OrderedDict[int, None] = OrderedDict()
ELSEWHERE_MAX = 50_000
#: The Redis client of each event loop (a client belongs to the loop that made it).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
    weakref.WeakKeyDictionary()
)


def _client() -> redis.asyncio.Redis | None:
    """This loop's Redis client; ``None`` when the channel layer does not cross processes."""
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    url = getattr(settings, "REDIS_URL", "")
    if not url or not backend.startswith("channels_redis."):
        return None
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = redis.asyncio.Redis.from_url(url)
    return client


def _key(session_id: int) -> str:
    return f"talia-live:processes:{session_id}"


async def opened(session_id: int, socket: Any) -> None:
    """``socket`` of ``session_id`` opened: it is in the session's group already, and reads
    the state after this."""
    _sockets.setdefault(session_id, {})[socket] = None
    client = _client()
    if client is not None:
        try:
            async with client.pipeline(transaction=False) as pipe:
                pipe.sadd(_key(session_id), PROCESS)
                pipe.expire(_key(session_id), SET_SECONDS)
                await pipe.execute()
        except redis.exceptions.RedisError:
            # Not in the set: then this process's writers publish every action of the
            # session (``elsewhere`` says yes when it cannot read the set either).
            logger.exception("Could not add this process to session %s's set.", session_id)
            _note_elsewhere(session_id)


def closed(session_id: int, socket: Any) -> None:
    held = _sockets.get(session_id)
    if held is not None:
        held.pop(socket, None)
        if not held:
            del _sockets[session_id]


def here(session_id: int) -> list[Any]:
    """The sockets of ``session_id`` in this process, the first opened first."""
    return list(_sockets.get(session_id, ()))


async def elsewhere(session_id: int) -> bool:
    """Whether another process may hold a socket of ``session_id`` (asked after the action
    is stored; when in doubt, yes)."""
    if session_id in _elsewhere:
        _elsewhere.move_to_end(session_id)
        return True
    client = _client()
    if client is None:
        return False
    try:
        members = await client.smembers(_key(session_id))
    except redis.exceptions.RedisError:
        return True  # the layer is down too, most likely: publishing costs nothing more
    if members <= {PROCESS.encode()}:
        return False
    _note_elsewhere(session_id)
    return True


def _note_elsewhere(session_id: int) -> None:
    _elsewhere[session_id] = None
    while len(_elsewhere) > ELSEWHERE_MAX:
        _elsewhere.popitem(last=False)


def forget() -> None:
    """Forget every socket and session (tests)."""
    _sockets.clear()
    _elsewhere.clear()
