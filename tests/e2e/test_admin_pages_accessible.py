"""The admin as an administrator reaches it, and the curator's own pages beside the admin
(the deck form, the imports, the packages, the export), pass axe-core (WCAG 2.2 AA) with no
page problem, on a desktop and on a 360×740 phone; their breadcrumbs keep off the screen's
edge and the deck form's button is styled as the site's buttons are (issue 18, item 6).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.geometry import PHONE, box
from tests.e2e.test_pages_accessible import _admin_links, assert_no_failures, check_page

pytestmark = pytest.mark.e2e


def test_every_admin_page_the_administrator_reaches(browsing, demo_site):
    from lms.models import User

    User.objects.create_superuser(username="admin", password="pass-word-123", email="")
    page = browsing.new_page()
    sign_in(page, demo_site.url, "admin", "pass-word-123")
    failures = check_page(browsing, page, demo_site.url + "/admin/")
    links = _admin_links(page)
    assert "/admin/lms/user/" in links, "the administrator manages people"
    visited = []
    for href in links:
        failures += check_page(browsing, page, demo_site.url + href)
        visited.append(href)
        if not href.endswith("/add/"):
            first_row = page.locator("#result_list tbody tr a[href*='/change/']").first
            if first_row.count():
                change_url = first_row.get_attribute("href")
                failures += check_page(browsing, page, demo_site.url + change_url)
                visited.append(change_url)
    assert len(visited) >= 30, visited
    assert_no_failures(failures)


def custom_pages(site: Any) -> list[str]:
    """The curator's pages outside the admin's model pages, each with something to show."""
    from content.models import ImportJob, PackageImport, SymbolSet

    demo_set = SymbolSet.objects.get(slug="znajznak-demo-57")
    job = ImportJob.objects.create(
        kind=ImportJob.Kind.SYMBOLS,
        user=site.teacher_user,
        data_file="imports/demo.csv",
        state=ImportJob.State.DONE,
        progress=100,
        total_rows=3,
    )
    package = PackageImport.objects.create(
        user=site.teacher_user,
        package="packages/demo.zip",
        state=PackageImport.State.FAILED,
        error="Broken ZIP.",
    )
    return [
        reverse("decks:deck_new"),
        reverse("decks:deck_new") + f"?symbol_set={demo_set.pk}",
        reverse("decks:print_new"),
        reverse("content:import_start"),
        reverse("content:import_detail", args=[job.pk]),
        reverse("content:package_import_start"),
        reverse("content:package_import_detail", args=[package.pk]),
    ]


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_curators_own_pages_beside_the_admin(browsing, demo_site, screen):
    urls = custom_pages(demo_site)
    page = browsing.new_page(**(PHONE if screen == "phone" else {}))
    sign_in(page, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    failures = []
    for url in urls:
        failures += check_page(browsing, page, demo_site.url + url)
        crumbs = page.locator(".breadcrumbs")
        if crumbs.count():
            text = page.evaluate(
                "() => { const r = document.createRange();"
                " r.selectNodeContents(document.querySelector('.breadcrumbs'));"
                " return r.getBoundingClientRect().x; }"
            )
            if text < 8:
                failures.append(f"{url}: the breadcrumbs' text starts {text:.0f} px from the edge")
    assert_no_failures(failures)

    # The deck form's button is one of the site's buttons, not the browser's grey default.
    open_page(page, demo_site.url + urls[1])
    button = page.locator("main form button[type=submit], main form input[type=submit]").first
    background = button.evaluate("(e) => getComputedStyle(e).backgroundColor")
    assert background not in ("rgb(239, 239, 239)", "rgba(0, 0, 0, 0)"), (
        f"The deck form's button has the browser's default look ({background})"
    )
    assert box(page, "main form [type=submit]").height >= 44
