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
    client.get(reverse("admin:index"))  # what the first page of a session reads once
    _owned_by_many(factory, 3)
    few = queries(client, url)
    _owned_by_many(factory, 12)
    assert queries(client, url) == few


def test_a_symbol_sets_page_reads_its_members_and_their_symbols_once(client, admin_user):
    """The members come with their symbols, and each row's symbol picker is told its
    symbol's label (``KnownSymbolsAutocomplete``) instead of looking it up."""
    client.force_login(admin_user)
    small = symbol_set_with(SymbolFactory.create_batch(3))
    large = symbol_set_with(SymbolFactory.create_batch(15))
    queries(client, reverse("admin:content_symbolset_change", args=[small.pk]))  # content types cached
    few = queries(client, reverse("admin:content_symbolset_change", args=[small.pk]))
    assert queries(client, reverse("admin:content_symbolset_change", args=[large.pk])) == few


def test_a_member_row_shows_its_symbol_chosen_and_a_symbol_sent_back_is_looked_up(client, admin_user):
    """The rows show each member's symbol as the chosen option, as Django's widget does; a
    form sent back with a symbol from outside the set still shows that symbol, looked up."""
    client.force_login(admin_user)
    members = SymbolFactory.create_batch(2)
    outsider = SymbolFactory()
    symbol_set = symbol_set_with(members)
    url = reverse("admin:content_symbolset_change", args=[symbol_set.pk])
    page = client.get(url).content.decode()
    for symbol in members:
        assert f'<option value="{symbol.pk}" selected>{symbol}</option>' in page
    form = {
        "name": symbol_set.name,
        "slug": symbol_set.slug,
        "visibility": symbol_set.visibility,
        "members-TOTAL_FORMS": "2",
        "members-INITIAL_FORMS": "2",
        "members-0-id": str(symbol_set.members.get(symbol=members[0]).pk),
        "members-0-symbol": str(outsider.pk),
        "members-0-position": "1",
        "members-1-id": str(symbol_set.members.get(symbol=members[1]).pk),
        "members-1-symbol": "",
        "members-1-position": "2",
    }
    sent_back = client.post(url, form)
    assert sent_back.status_code == 200  # the empty second row is refused: the page again
    assert f'<option value="{outsider.pk}" selected>{outsider}</option>' in sent_back.content.decode()
