"""Pages of the content API: ``?limit=&offset=`` are counts, and anything else is a 400."""

from __future__ import annotations

import pytest

from content.models import Theme
from tests.factories import ThemeFactory

from .helpers import results, url


@pytest.mark.parametrize(
    "query",
    [{"offset": "abc"}, {"offset": "-1"}, {"offset": "³"}, {"limit": "0"}, {"limit": "x"}, {"offset": 2**31}],
)
def test_a_page_parameter_that_is_not_a_count_is_a_400(api, teacher, query):
    response = api(teacher).get(url("theme", **query))
    assert response.status_code == 400
    assert set(response.json()) == set(query)


def test_limit_and_offset_choose_the_page_and_a_huge_limit_is_capped(api, teacher):
    for i in range(3):
        ThemeFactory(slug=f"t{i}", name=f"T{i}")
    client = api(teacher)
    slugs = list(Theme.objects.order_by("slug").values_list("slug", flat=True))
    assert [
        row["slug"] for row in results(client.get(url("theme", ordering="slug", limit=1, offset=1)))
    ] == slugs[1:2]
    assert len(results(client.get(url("theme", limit=10**30)))) == len(slugs)
