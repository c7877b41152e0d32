"""Small helpers of the content API tests."""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse


def url(basename: str, pk=None, **query) -> str:
    """``url("symbol")`` is the list, ``url("symbol", 3)`` a row, under ``/api/v1/``."""
    name, args = (f"v1:{basename}-list", []) if pk is None else (f"v1:{basename}-detail", [pk])
    path = reverse(name, args=args)
    if query:
        path += "?" + urlencode(query)
    return path


def results(response) -> list[dict]:
    assert response.status_code == 200, response.content
    return response.json()["results"]


def ids(response) -> set:
    return {row["id"] for row in results(response)}
