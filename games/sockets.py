"""The game sockets this process holds, by session, and the sessions other processes hold too.

An action stored on the live fast path (``games.live``) reaches the other sockets of its
game in this process directly, from the actor's consumer: no trip through Redis and back,
which costs more than the action itself on a busy machine (``bench/README.md``). It is
published on the channel layer only when another process may hold a socket of the game:

* a socket that opens joins the session's group, then (its process's first socket of the
  game) adds :data:`PROCESS` to the session row's ``live_processes`` (``live.present``),
  and only then reads the state;
* the one statement that stores an action also tells whether the row names another
  process (a process never leaves it); if so, the notice is published.

Both statements write the session row, so PostgreSQL runs them one after the other: either
the other process was in the row when the action was stored, and gets the notice; or it
added itself after, and its read of the state, later still, holds the action. A socket
whose process could not add itself is closed (the page opens it again). With the
in-memory channel layer (one process) the row is not written and nothing of the fast
path is published.

Everything not on the fast path (the locked service, HTTP requests, Celery) publishes to
the group as before, and each socket takes it from the layer.
"""

from __future__ import annotations

import uuid
from typing import Any

#: This process, in the sessions' rows and in the notices it stores on the fast path.
PROCESS = uuid.uuid4().hex

#: The sockets (consumers) of each session in this process, in the order they opened.
_sockets: dict[int, dict[Any, None]] = {}


def opened(session_id: int, socket: Any) -> None:
    _sockets.setdefault(session_id, {})[socket] = None


def closed(session_id: int, socket: Any) -> None:
    held = _sockets.get(session_id)
    if held is not None:
        held.pop(socket, None)
        if not held:
            del _sockets[session_id]


def here(session_id: int) -> list[Any]:
    """The sockets of ``session_id`` in this process, the first opened first."""
    return list(_sockets.get(session_id, ()))


def forget() -> None:
    """Forget every socket (tests)."""
    _sockets.clear()
