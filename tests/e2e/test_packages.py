"""A package between schools, in chromium: a teacher downloads her symbol set as a package,
and a teacher of another, empty Talia imports it on her phone (360 px): a real Celery
worker checks it while the page shows the progress, the preview lists every item with a
choice, and the import writes what she chose. Every page has 0 axe violations.

"Another installation" is this live server after ``installation_empty``: once the file
is downloaded, every row and picture the package carries is deleted (symbols, set,
collection, themes, their files), leaving what a fresh Talia holds (the migrations'
periods and default board), and the import is done by a second teacher who owns nothing.
pytest-django offers one live server and one database per test; deleting, rather than
starting a second server, still leaves the import nothing but the file to go on: every
identifier, key, name and picture it writes must come from the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from playwright.sync_api import expect

from content.models import Collection, PackageImport, Status, Symbol, SymbolSet, Theme, Visibility
from tests.content.packaging import SVG, installation_empty, picture_set, png_bytes
from tests.e2e.browsing import axe_violations, describe_violations, scroll_width, sign_in
from tests.factories import CollectionFactory, SymbolFactory, TeacherFactory, ThemeFactory, symbol_set_with

pytestmark = pytest.mark.e2e

#: A worker checks and writes a package of a few pictures in seconds; a busy machine is slower.
WORKED_MS = 90_000
PHONE = 360


def checked(page: Any, where: str) -> None:
    """0 axe violations, and nothing wider than the phone."""
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    assert scroll_width(page) <= PHONE, f"{where} scrolls sideways on a {PHONE}-px phone"


def _symbol_set(owner: Any) -> SymbolSet:
    collection = CollectionFactory(slug="znaki-szkoly", name="Znaki naszej szkoły")
    theme = ThemeFactory(slug="miejsca", name="Miejsca")
    symbols = []
    for number, name in ((1, "Kotwica"), (2, "Orzeł Biały"), (3, "Stocznia Gdańska")):
        symbol = SymbolFactory(owner=owner, collection=collection, number=number, name=name)
        symbol.themes.set([theme])
        symbols.append(symbol)
    picture_set(symbols[0], png_bytes("red"))
    picture_set(symbols[1], SVG, "orzel.svg")
    return symbol_set_with(symbols, owner=owner, name="Znaki 1944", slug="znaki-1944")


def _choose(page: Any, item: str, choice: str) -> None:
    page.get_by_role("group", name=item).get_by_label(choice).check()


def _upload(page: Any, package: Path) -> None:
    with page.expect_navigation():
        page.get_by_role("link", name="Import a package").click()
    checked(page, "the package upload page")
    page.get_by_label("Package (ZIP)").set_input_files(str(package))
    with page.expect_navigation():
        page.get_by_role("button", name="Check the package").click()
    # The worker checks it; the page follows the progress and shows the preview by itself.
    expect(page.get_by_role("heading", name="Choose what to import")).to_be_visible(timeout=WORKED_MS)


def _import(page: Any) -> None:
    with page.expect_navigation():
        page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_role("heading", name="Imported", exact=True)).to_be_visible(timeout=WORKED_MS)


@pytest.mark.celery
def test_a_package_exported_here_is_imported_into_a_second_empty_installation(
    browsing: Any, demo_users_site: Any, celery_worker_real: Any, tmp_path: Path
) -> None:
    site = demo_users_site
    original = _symbol_set(site.teacher_user)

    # Here: the teacher downloads her set as a package from its page.
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    page.goto(site.url + reverse("admin:content_symbolset_change", args=[original.pk]))
    with page.expect_download() as download:
        page.get_by_role("link", name="Export as a package").click()
    package = tmp_path / download.value.suggested_filename
    download.value.save_as(package)
    assert package.name == "talia-symbol-set-znaki-1944.zip"

    # There: the same content is nowhere, and a teacher with nothing imports the file.
    installation_empty()
    assert not Symbol.objects.exists() and not Collection.objects.exists()
    newcomer = TeacherFactory(username="nowa-nauczycielka")
    phone = browsing.new_phone_page()
    sign_in(phone, site.url, newcomer.username, "pass-word-123")
    phone.goto(site.url + "/")
    _upload(phone, package)
    checked(phone, "the preview of the package")
    expect(phone.get_by_text("New here: 4. Already here: 0. Different from what is here: 0.")).to_be_visible()
    expect(
        phone.get_by_text('The collection "Znaki naszej szkoły" (key znaki-szkoly) is added.')
    ).to_be_visible()
    kotwica = phone.get_by_role("group", name="001 Kotwica (znaki-szkoly)")
    expect(kotwica).to_contain_text("New")
    expect(kotwica.get_by_label("Import", exact=True)).to_be_checked()
    _import(phone)
    checked(phone, "the imported package")
    expect(
        phone.get_by_text("Imported: 4. Imported as copies: 0. Using what was here: 0. Skipped: 0.")
    ).to_be_visible()

    imported = SymbolSet.objects.get()
    assert imported.owner == newcomer and imported.visibility == Visibility.PRIVATE
    assert [m.symbol.name for m in imported.members.order_by("position")] == [
        "Kotwica",
        "Orzeł Biały",
        "Stocznia Gdańska",
    ]
    assert set(Symbol.objects.values_list("owner", "status").distinct()) == {(newcomer.pk, Status.DRAFT)}
    assert Theme.objects.get().name == "Miejsca"
    kotwica_here = Symbol.objects.get(name="Kotwica")
    assert default_storage.open(kotwica_here.picture.name).read() == png_bytes("red")
    # The imported symbol opens in the admin, its picture with it.
    with phone.expect_navigation():
        phone.get_by_role("link", name="001 Kotwica").click()
    expect(phone.locator(".field-picture_preview img")).to_have_js_property("complete", True)
    assert phone.locator(".field-picture_preview img").evaluate("img => img.naturalWidth") > 0

    # The same package again: everything is already here. She copies the set, and by
    # keyboard chooses to skip one of its symbols, which the set cannot do without.
    phone.goto(site.url + "/")
    _upload(phone, package)
    expect(phone.get_by_text("New here: 0. Already here: 4. Different from what is here: 0.")).to_be_visible()
    the_set = phone.get_by_role("group", name="Znaki 1944")
    expect(the_set).to_contain_text("Already here")
    expect(the_set).to_contain_text("matched by its identifier")
    _choose(phone, "Znaki 1944", "Import as a copy")
    skip = phone.get_by_role("group", name="003 Stocznia Gdańska (znaki-szkoly)").get_by_label("Skip")
    skip.focus()
    phone.keyboard.press("Space")
    expect(skip).to_be_checked()
    with phone.expect_navigation():
        phone.get_by_role("button", name="Import", exact=True).click()
    alert = phone.get_by_role("alert")
    expect(alert).to_contain_text(
        '"Znaki 1944" holds "003 Stocznia Gdańska (znaki-szkoly)": import that too, use the existing one, '
        'or skip "Znaki 1944" as well.'
    )
    expect(skip).to_be_checked()  # the choices made are kept
    checked(phone, "the preview with refused choices")
    # The preview follows the system's dark theme as the admin does.
    dark = browsing.new_phone_page(color_scheme="dark")
    sign_in(dark, site.url, newcomer.username, "pass-word-123")
    second = PackageImport.objects.filter(user=newcomer).latest("created")
    dark.goto(site.url + reverse("content:package_import_detail", args=[second.pk]))
    expect(dark.get_by_role("heading", name="Choose what to import")).to_be_visible()
    checked(dark, "the preview in the dark theme")
    _choose(phone, "003 Stocznia Gdańska (znaki-szkoly)", "Use the existing one")
    _import(phone)
    expect(
        phone.get_by_text("Imported: 0. Imported as copies: 1. Using what was here: 3. Skipped: 0.")
    ).to_be_visible()

    copy = SymbolSet.objects.exclude(pk=imported.pk).get()
    assert copy.slug == "znaki-1944-2" and copy.uid != imported.uid
    assert list(copy.members.order_by("position").values_list("symbol_id", flat=True)) == list(
        imported.members.order_by("position").values_list("symbol_id", flat=True)
    )
    assert Symbol.objects.count() == 3
    assert PackageImport.objects.filter(user=newcomer, state=PackageImport.State.DONE).count() == 2
