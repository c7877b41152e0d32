"""Fixtures of the content API tests: API clients logged in as each role."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def api() -> Callable[..., APIClient]:
    """``api(user)``: a client with ``user``'s session (``api()``: anonymous)."""

    def client_for(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return client_for


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # Users are made by the dozen here; their passwords are never checked.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
