"""Signing in goes through the real forms here; only the hashing is made cheap."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
