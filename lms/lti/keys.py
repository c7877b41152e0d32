"""Talia's signing keys: the newest signs, rotated-out keys stay published for a grace period.

Platforms verify Talia's deep-linking responses and token requests with the public keys
at ``/lti/jwks/``. A key that was replaced is still published for
``LTI_KEY_GRACE_DAYS`` (a platform may have cached the old JWKS, and a JWT signed just
before the rotation is still in flight), then it drops out of the JWKS by itself.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
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


def jwks() -> dict[str, list[dict[str, str]]]:
    """The JSON Web Key Set platforms fetch."""
    return {"keys": [key.as_jwk() for key in keys_published()]}
