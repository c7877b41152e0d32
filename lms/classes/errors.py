"""The refusal every class and homework service raises."""

from __future__ import annotations


class ClassError(Exception):
    """A request about a class or homework was refused; ``code`` for programs, ``str()`` for people.

    ``not_found`` means the person may not know the object exists: views answer 404.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
