"""Talia's signing keys: the newest signs, rotated-out keys stay published for a grace period.

Platforms verify Talia's deep-linking responses and token requests with the public keys
at ``/lti/jwks/``. A key that was replaced is still published for
``LTI_KEY_GRACE_DAYS`` (a platform may have cached the old JWKS, and a JWT signed just
before the rotation is still in flight), then it drops out of the JWKS by itself.

Parsing a PEM private key costs milliseconds (the RSA key is checked on load), and the
JWK of a key is worked out from its PEM: both are kept per process, keyed by the key's
row *and* its PEM, so a rotation (a new row) or an edited key is picked up at once. The
newest active key is still read from the database on every use: every process signs
with the same key right after a rotation.
"""

from __future__ import annotations

import hashlib
import threading
from datetime import timedelta
from typing import Any

from cryptography.hazmat.primitives.serialization import load_pem_private_key
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone
from lti_tool.models import Key


def keys_published() -> list[Key]:
    """The keys in the JWKS: the newest, and every older one replaced less than the grace ago."""
    keys = list(Key.objects.active().order_by("-datetime_created", "-pk"))
    grace = timedelta(days=settings.LTI_KEY_GRACE_DAYS)
    now = timezone.now()
    published: list[Key] = []
    replaced_at = None
    for key in keys:
        if replaced_at is None or now - replaced_at < grace:
            published.append(key)
        replaced_at = key.datetime_created
    return published


def key_signing() -> Key:
    """The key that signs Talia's JWTs (made on first use)."""
    key = Key.objects.active().order_by("-datetime_created", "-pk").first()
    return key if key is not None else key_rotate()


def key_install(*, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """After ``migrate``: a signing key exists from the moment Talia is installed.

    An LMS fetches ``/lti/jwks/`` when it is registered and may keep the answer (Talia
    lets it cache five minutes, some LMSs keep it longer); an empty key set then would
    make the first deep-linking response or token request fail. Idempotent: an existing
    key is kept (``lti_rotate_keys`` replaces it). Skipped while the key table does not
    exist (``migrate lti_tool zero``) and for databases other than Talia's own.
    """
    if using != DEFAULT_DB_ALIAS or Key._meta.db_table not in connections[using].introspection.table_names():
        return
    key_signing()


@transaction.atomic
def key_rotate() -> Key:
    """Make a new signing key; older keys expire after the grace period.

    Keys replaced longer ago than the grace are deactivated now, so the admin sees them as
    retired.
    """
    list(Key.objects.active().select_for_update())  # one rotation at a time
    retired = {k.pk for k in Key.objects.active()} - {k.pk for k in keys_published()}
    Key.objects.filter(pk__in=retired).update(is_active=False)
    return Key.objects.generate()


_parsed: dict[tuple[str, int, str], Any] = {}
_parsed_lock = threading.Lock()
PARSED_MAX = 32  # keys kept per process (a rotation adds one; old entries are dropped)


def _memo(kind: str, key: Key, pem: str, make: Any) -> Any:
    entry = (kind, key.pk, hashlib.sha256(pem.encode()).hexdigest())
    found = _parsed.get(entry)
    if found is None:
        found = make()
        with _parsed_lock:
            if len(_parsed) >= PARSED_MAX:
                _parsed.clear()
            _parsed[entry] = found
    return found


def key_jwk(key: Key) -> dict[str, str]:
    """The public JWK of ``key`` (``Key.as_jwk``, worked out once per process)."""
    jwk = _memo("jwk", key, key.public_key, key.as_jwk)
    return dict(jwk)


def key_kid(key: Key) -> str:
    return str(key_jwk(key)["kid"])


def key_private(key: Key) -> Any:
    """The parsed private key of ``key``, for PyJWT (parsed once per process)."""
    return _memo(
        "private", key, key.private_key, lambda: load_pem_private_key(key.private_key.encode(), password=None)
    )


def signing_material() -> tuple[Any, str]:
    """The parsed private key that signs now, and its kid (one query: the newest active key)."""
    key = key_signing()
    return key_private(key), key_kid(key)


def jwks() -> dict[str, list[dict[str, str]]]:
    """The JSON Web Key Set platforms fetch."""
    return {"keys": [key_jwk(key) for key in keys_published()]}
