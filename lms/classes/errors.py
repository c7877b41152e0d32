"""The refusal every class and homework service raises."""

from __future__ import annotations

from games.lobby import LobbyError


class ClassError(LobbyError):
    """A request about a class or homework was refused; ``code`` for programs, ``str()`` for people.

    ``not_found`` means the person may not know the object exists: views answer 404. A lobby
    error (``games.lobby``), so a class's code is claimed in the class's refusals.
    """
