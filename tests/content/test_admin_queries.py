"""The admin's lists of authored content read each page in a fixed number of queries, however
many rows it shows: the owners come with the rows (``AuthoredAdmin.get_list_select_related``),
and a symbol set's members with their symbols."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import (
    ActivityCardFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    symbol_set_with,
)

pytestmark = pytest.mark.django_db


def queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured.captured_queries)


def _owned_by_many(factory: Callable[..., Any], count: int) -> None:
    for _ in range(count):
        factory(owner=TeacherFactory())


@pytest.mark.parametrize(
    ("factory", "changelist"),
    [
        (KnowledgeQuestionFactory, "admin:content_knowledgequestion_changelist"),
        (ActivityCardFactory, "admin:content_activitycard_changelist"),
        (SymbolFactory, "admin:content_symbol_changelist"),
    ],
    ids=["knowledge questions", "activity cards", "symbols"],
)
def test_a_list_of_rows_with_many_owners_costs_what_a_list_of_a_few_does(
    client, admin_user, factory, changelist
):
    client.force_login(admin_user)
    url = reverse(changelist)
    _owned_by_many(factory, 3)
    few = queries(client, url)
    _owned_by_many(factory, 12)
    assert queries(client, url) == few


def test_a_symbol_sets_page_reads_its_members_symbols_with_the_members(client, admin_user):
    """Each member's symbol comes with the member; what is left per member is the symbol
    picker's own lookup of its chosen symbol (Django's autocomplete widget)."""
    client.force_login(admin_user)
    small = symbol_set_with(SymbolFactory.create_batch(3))
    large = symbol_set_with(SymbolFactory.create_batch(15))
    few = queries(client, reverse("admin:content_symbolset_change", args=[small.pk]))
    many = queries(client, reverse("admin:content_symbolset_change", args=[large.pk]))
    assert many - few <= 12, (few, many)  # one a member (12 more members), not two
