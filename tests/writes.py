"""What a request wrote: the statements that change rows, or lock them to change them."""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

WRITE = re.compile(
    r"^\s*(INSERT|UPDATE|DELETE)\b|\bFOR (NO KEY )?UPDATE\b|^\s*WITH\b.*\b(INSERT|UPDATE|DELETE)\b",
    re.I | re.S,
)


def get_writing(client: Client, url: str) -> tuple[Any, list[str]]:
    """GET ``url``: the response, and the statements that wrote (an ``UPDATE`` that matches
    no row counts too)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return response, [query["sql"] for query in queries.captured_queries if WRITE.search(query["sql"])]
