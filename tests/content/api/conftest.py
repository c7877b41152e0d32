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
