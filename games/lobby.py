"""The lobby: one code space for everything a student opens with a code, and who joins.

**One code space.** Game sessions, practice, quizzes, workshops and classes draw their
codes from one table, ``JoinCode``: a claim says what a code opens (a kind and an object
id) until it is released. The database allows one live claim per code and one per object,
so a code never opens two things, and two teachers drawing the same code at the same
moment cannot both keep it: the second insert fails and draws again (:func:`code_claim`).
A code is released when what it opens ends (a session finishes, a workshop closes, a
class is archived); practice and quizzes keep theirs, since their links are printed.
A claim whose object has ended without releasing it (a guest game finished on the live
fast path, a deleted quiz) is released when its code is drawn again.

Each kind is registered once (:func:`code_kind_register`, in its app's ``ready``) with
its model, the column that keeps the object's copy of its code (for pages, links and QR
codes), which of its objects are still open, and where the join entry leads. ``lms``
registers classes, so this module never imports it.

**Joining.** Sessions and workshops take a signed-in user by name and a guest by a
nickname (:func:`newcomer_name`): the nickname rules (:func:`nickname_clean`), a
signed-in name made unique with " 2", " 3", ... (:func:`unique_name`) and the guest's
token, kept in the guest's own Django session (:func:`guest_remember`). The lobbies
raise their own refusals (``SessionError``, ``WorkshopError``: lobby errors) in their own
words (:class:`Refusals`).
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import JoinCode

#: No 0/O, 1/I/L: a code read off a projector from the back row is typed right.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 6
#: Draws before giving up; with 31⁶ codes a draw is taken only in a very full installation.
CODE_DRAWS = 20
NICKNAME_MAX_LENGTH = 24
#: Characters that mean something in HTML. Nicknames are escaped wherever they are shown;
#: refusing these as well keeps a nickname from even looking like markup.
NICKNAME_FORBIDDEN = frozenset('<>&"')


class LobbyError(Exception):
    """A join or a claim was refused; ``code`` for programs, ``str(error)`` for people.

    The services' own refusals (``SessionError``, ``WorkshopError``) are lobby errors, so
    a lobby function raises the caller's kind.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- the code space -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeKind:
    """What one kind of object needs from the code space."""

    model: type[models.Model]
    #: The object's copy of its code.
    field: str
    #: The objects whose code stays claimed; a claim of any other is stale.
    open: models.Q
    #: Where the join entry sends a code of this kind, or ``None`` when it opens nothing now.
    page: Callable[[Any], str | None]


CODE_KINDS: dict[str, CodeKind] = {}


def code_kind_register(
    kind: str, *, model: type[models.Model], field: str, page: Callable[[Any], str | None], open: models.Q
) -> None:
    """Register a kind of object that opens with a code (in its app's ``ready``)."""
    CODE_KINDS[kind] = CodeKind(model=model, field=field, open=open, page=page)


@dataclass(frozen=True)
class Claim:
    """A live claim: ``obj`` (of ``kind``) opens with ``code``."""

    code: str
    kind: str
    obj: Any

    @property
    def page(self) -> str | None:
        return CODE_KINDS[self.kind].page(self.obj)


def join_code_normalise(text: str) -> str:
    """The join code as stored: upper case, without the spaces or dashes people type."""
    return "".join(char for char in text.upper() if char.isalnum())


def code_draw() -> str:
    """A code from the unambiguous alphabet, at random; :func:`code_claim` makes it unique."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def code_claim(*, kind: str, obj: Any, error: type[LobbyError] = LobbyError, prefer: str = "") -> str:
    """A fresh code for ``obj`` (a saved object of a registered ``kind``), written to its column.

    The code is drawn, then inserted; the database's one-live-claim-per-code constraint
    decides, so two claims of one code at the same moment (PostgreSQL serialises the
    inserts on the unique index) leave one winner and the other draws again. A code held
    by an object that has ended (see the module's docstring) is released and drawn
    again. An object holds one code: claiming again for it releases its old one (a class's
    renewed code). ``prefer`` is tried first (a class brought back keeps its code if it is
    free). Refused with ``error("no_join_code")`` after ``CODE_DRAWS`` taken draws.
    """
    spec = CODE_KINDS[kind]
    with transaction.atomic():
        _release(JoinCode.objects.filter(kind=kind, object_id=obj.pk))
        code = prefer or code_draw()
        for _attempt in range(CODE_DRAWS):
            try:
                with transaction.atomic():
                    JoinCode.objects.create(code=code, kind=kind, object_id=obj.pk)
            except IntegrityError:
                # Taken: by something that has ended (then it is free now) or not (draw again).
                code = code if _stale_release(code) else code_draw()
                continue
            spec.model._default_manager.filter(pk=obj.pk).update(**{spec.field: code})
            setattr(obj, spec.field, code)
            return code
    raise error("no_join_code", _("No free join code was found; try again."))


def code_release(*, kind: str, obj: Any) -> None:
    """``obj``'s code opens nothing from now on; it may be claimed again."""
    _release(JoinCode.objects.filter(kind=kind, object_id=obj.pk))


def code_resolve(code: str, *, kind: str | None = None) -> Claim | None:
    """What ``code`` (normalised) opens now, if anything (only of ``kind``, if given)."""
    claim = JoinCode.objects.filter(code=code, released=None).first()
    if claim is None or claim.kind not in CODE_KINDS or kind not in (None, claim.kind):
        return None
    spec = CODE_KINDS[claim.kind]
    obj = spec.model._default_manager.filter(spec.open, pk=claim.object_id).first()
    return Claim(code=code, kind=claim.kind, obj=obj) if obj is not None else None


def _release(claims: models.QuerySet[JoinCode]) -> None:
    claims.filter(released=None).update(released=timezone.now())


def _stale_release(code: str) -> bool:
    """Release ``code`` if what holds it has ended; whether it is free now."""
    holder = JoinCode.objects.filter(code=code, released=None).first()
    if holder is None:
        return True
    spec = CODE_KINDS.get(holder.kind)
    if spec is None or not spec.model._default_manager.filter(spec.open, pk=holder.object_id).exists():
        _release(JoinCode.objects.filter(pk=holder.pk))
        return True
    return False


# --- who joins ----------------------------------------------------------------------------------


def display_name(user: Any) -> str:
    """How a signed-in person is shown to the class: full name, else username."""
    return str(user.get_full_name() or user.get_username()).strip()


def unique_name(name: str, taken: set[str]) -> str:
    """``name`` cut to fit, with " 2", " 3", ... added when someone has it already."""
    base = name[:NICKNAME_MAX_LENGTH] or "?"
    candidate, number = base, 1
    while candidate.casefold() in taken:
        number += 1
        suffix = f" {number}"
        candidate = base[: NICKNAME_MAX_LENGTH - len(suffix)] + suffix
    return candidate


def nickname_clean(nickname: str, *, error: type[LobbyError] = LobbyError) -> str:
    """The nickname as shown: NFC, single spaces, 1-24 characters, no markup or controls."""
    text = " ".join(unicodedata.normalize("NFC", nickname or "").split())
    if not text:
        raise error("nickname_invalid", _("Choose a nickname."))
    if len(text) > NICKNAME_MAX_LENGTH:
        raise error(
            "nickname_invalid",
            _("A nickname has at most %(n)d characters.") % {"n": NICKNAME_MAX_LENGTH},
        )
    if any(char in NICKNAME_FORBIDDEN or unicodedata.category(char)[0] == "C" for char in text):
        raise error("nickname_invalid", _('A nickname cannot contain < > & " or invisible characters.'))
    return text


def is_signed_in(user: Any) -> bool:
    return user is not None and getattr(user, "is_authenticated", False)


@dataclass(frozen=True)
class Refusals:
    """How one lobby says no to a newcomer, in its own words."""

    error: type[LobbyError]
    guests_not_allowed: Any  # lazily translated sentences
    nickname_taken: Any


def newcomer_name(
    *, user: Any, nickname: str | None, taken: Iterable[str], allow_guests: bool, refusals: Refusals
) -> tuple[str, str]:
    """The name and guest token of who joins a lobby whose members are called ``taken``.

    A signed-in user comes by their name, made unique (no token); a guest needs a lobby
    that takes guests and a clean nickname nobody there has, and gets a token to keep.
    """
    names = {name.casefold() for name in taken}
    if is_signed_in(user):
        return unique_name(display_name(user), names), ""
    if not allow_guests:
        raise refusals.error("guests_not_allowed", str(refusals.guests_not_allowed))
    name = nickname_clean(nickname or "", error=refusals.error)
    if name.casefold() in names:
        raise refusals.error("nickname_taken", str(refusals.nickname_taken))
    return name, secrets.token_urlsafe(32)


def guest_remember(session: MutableMapping[str, Any], *, tokens_key: str, lobby_id: int, token: str) -> None:
    """Keep a guest's ``token`` for lobby ``lobby_id`` in their own Django ``session``, under
    ``tokens_key`` (``{lobby id: token}``; sessions and workshops keep one each)."""
    if token:
        tokens = dict(session.get(tokens_key) or {})
        tokens[str(lobby_id)] = token
        session[tokens_key] = tokens
