"""The school's library, in chromium, as two teachers use it: one publishes her symbol set
from the admin's list; a colleague, on a 360-px phone, finds it in the library by game
and theme, previews it (the pictures load), copies it with one click by keyboard, and
gets a set of her own that she edits and that says where it came from. Every page has 0
axe violations and nothing wider than the phone.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from content.models import LibraryEntry, SymbolSet, Visibility
from tests.content.packaging import SVG, picture_set, png_bytes
from tests.e2e.browsing import axe_violations, describe_violations, scroll_width, sign_in
from tests.factories import CollectionFactory, SymbolFactory, TeacherFactory, ThemeFactory, symbol_set_with

pytestmark = pytest.mark.e2e

PHONE = 360


def checked(page: Any, where: str, *, width: int | None = None) -> None:
    """0 axe violations, and on a phone nothing wider than it."""
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)
    if width:
        assert scroll_width(page) <= width, f"{where} scrolls sideways on a {width}-px phone"


def _symbol_set(owner: Any) -> SymbolSet:
    collection = CollectionFactory(slug="znaki-szkoly", name="Znaki naszej szkoły")
    ThemeFactory(slug="ludzie", name="Ludzie")
    places = ThemeFactory(slug="miejsca", name="Miejsca")
    symbols = []
    for number, name in ((1, "Kotwica"), (2, "Orzeł Biały"), (3, "Stocznia Gdańska")):
        symbol = SymbolFactory(owner=owner, collection=collection, number=number, name=name)
        symbol.themes.set([places])
        symbols.append(symbol)
    picture_set(symbols[0], png_bytes("red"))
    picture_set(symbols[1], SVG, "orzel.svg")
    return symbol_set_with(symbols, owner=owner, name="Znaki 1944", slug="znaki-1944")


def test_a_teacher_publishes_a_set_and_a_colleague_finds_previews_and_copies_it(
    browsing: Any, demo_users_site: Any
) -> None:
    site = demo_users_site
    original = _symbol_set(site.teacher_user)

    # She publishes her set from the admin's list of symbol sets.
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    page.goto(site.url + reverse("admin:content_symbolset_changelist"))
    page.locator(f"input[name=_selected_action][value='{original.pk}']").check()
    page.locator("select[name=action]").select_option(label="Publish to the library")
    with page.expect_navigation():
        page.get_by_role("button", name="Go").click()
    expect(page.get_by_role("heading", name="Publish to the library")).to_be_visible()
    checked(page, "the publish page")
    expect(page.get_by_label("Title")).to_have_value("Znaki 1944")
    expect(page.get_by_role("group", name="Themes").get_by_label("Miejsca")).to_be_checked()
    page.get_by_label("Title").fill("Znaki Polski Walczącej")
    page.get_by_label("Description").fill("Na lekcję o Powstaniu Warszawskim.")
    with page.expect_navigation():
        page.get_by_role("button", name="Publish").click()
    expect(page.get_by_text("every teacher can find and copy it")).to_be_visible()
    entry = LibraryEntry.objects.get()
    assert entry.symbol_set == original and entry.published

    # A colleague, on her phone, finds it from the home page by game and theme.
    colleague = TeacherFactory(username="kolezanka")
    phone = browsing.new_phone_page()
    sign_in(phone, site.url, colleague.username, "pass-word-123")
    phone.goto(site.url + "/")
    with phone.expect_navigation():
        phone.get_by_role("link", name="Library: content of other teachers").click()
    checked(phone, "the library", width=PHONE)
    phone.get_by_label("Game").select_option(label="ZnajZnak: a symbol set")
    phone.get_by_label("Theme").select_option(label="Ludzie")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Search").click()
    expect(phone.get_by_text("Nothing in the library matches.")).to_be_visible()
    phone.get_by_label("Theme").select_option(label="Miejsca")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Search").click()
    checked(phone, "the library's search results", width=PHONE)
    with phone.expect_navigation():
        phone.get_by_role("link", name="Znaki Polski Walczącej").click()

    # The preview: the symbols with their pictures, read-only.
    checked(phone, "the preview of an entry", width=PHONE)
    expect(phone.get_by_text("The symbol set “Znaki 1944”: 3 symbols")).to_be_visible()
    expect(phone.get_by_text("001 Kotwica")).to_be_visible()
    kotwica = phone.get_by_role("img", name="Kotwica")
    expect(kotwica).to_have_js_property("complete", True)
    assert kotwica.evaluate("img => img.naturalWidth") > 0
    expect(phone.get_by_role("button", name="Take out of the library")).to_have_count(0)

    # One click (here: by keyboard) copies it into her own content.
    copy_button = phone.get_by_role("button", name="Copy to my content")
    copy_button.focus()
    with phone.expect_navigation():
        phone.keyboard.press("Enter")
    expect(phone.get_by_text("is copied into your content, as your draft")).to_be_visible()
    copy = SymbolSet.objects.get(owner=colleague)
    assert copy.copied_from == entry and copy.visibility == Visibility.PRIVATE
    assert phone.url.endswith(reverse("admin:content_symbolset_change", args=[copy.pk]))
    checked(phone, "the copy's page", width=PHONE)
    origin = phone.locator(".field-copied_from_link")
    expect(origin).to_contain_text("Znaki Polski Walczącej")
    expect(origin.get_by_role("link", name="Znaki Polski Walczącej")).to_have_attribute(
        "href", reverse("content:library_entry", args=[entry.pk])
    )

    # The copy is hers: she renames it, and the original stays as it was.
    phone.get_by_label("Name").fill("Znaki 1944 – moja klasa")
    with phone.expect_navigation():
        phone.get_by_role("button", name="Save", exact=True).click()
    copy.refresh_from_db()
    original.refresh_from_db()
    assert (copy.name, original.name) == ("Znaki 1944 – moja klasa", "Znaki 1944")
    assert [m.symbol.name for m in copy.members.order_by("position")] == [
        "Kotwica",
        "Orzeł Biały",
        "Stocznia Gdańska",
    ]
    # The list of sets says where the copy came from, too.
    row = phone.locator("#result_list tr", has=phone.get_by_role("link", name="Znaki 1944 – moja klasa"))
    expect(row).to_contain_text("Znaki Polski Walczącej")
    checked(phone, "the list of symbol sets with a copy", width=PHONE)

    # On her phone she publishes her adapted copy in turn, by keyboard.
    phone.goto(site.url + f"{reverse('content:library_publish')}?model=symbolset&ids={copy.pk}")
    checked(phone, "the publish page on a phone", width=PHONE)
    title = phone.get_by_label("Title")
    expect(title).to_have_value("Znaki 1944 – moja klasa")
    title.focus()
    with phone.expect_navigation():
        phone.keyboard.press("Enter")
    mine = LibraryEntry.objects.get(owner=colleague)
    assert mine.symbol_set == copy and mine.published

    # The first teacher takes hers out of the library; the copy stays.
    page.goto(site.url + reverse("content:library_entry", args=[entry.pk]))
    with page.expect_navigation():
        page.get_by_role("button", name="Take out of the library").click()
    expect(page.get_by_text("is no longer in the library")).to_be_visible()
    checked(page, "the library after taking out")
    assert SymbolSet.objects.filter(pk=copy.pk, copied_from=entry).exists()
