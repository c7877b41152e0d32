"""``/api/v1/symbols/``: ZnajZnak symbols, their filters and their pictures."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from content.models import Period, Status, Symbol, Theme
from content.views import symbol_picture_url
from tests.factories import (
    CollectionFactory,
    SymbolFactory,
    ThemeFactory,
    symbol_set_with,
)

from .helpers import ids, results, url

EVIL_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
    b"<script>alert(document.cookie)</script>"
    b'<rect width="80" height="80" fill="red" onclick="alert(1)"/>'
    b'<a href="javascript:alert(2)"><circle r="10"/></a>'
    b"</svg>"
)
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"  # noqa: E501


def png(size: int = 96) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), "navy").save(buffer, "PNG")
    return buffer.getvalue()


def new_symbol(**overrides) -> dict:
    CollectionFactory()
    return {
        "collection": "test-collection",
        "number": 2,
        "name": "Kotwica",
        "alternative_names": ["Znak Polski Walczącej", "PW"],
        "description": "Znak Polski Walczącej.",
        "periods": ["ii-wojna-swiatowa"],
        **overrides,
    }


# --- CRUD ------------------------------------------------------------------------------------


def test_teacher_creates_reads_updates_and_deletes_a_symbol(api, teacher):
    client = api(teacher)
    theme = ThemeFactory(slug="wwii", name="WWII")
    response = client.post(url("symbol"), new_symbol(themes=["wwii"]), format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["code"] == "002"
    assert created["periods"] == ["ii-wojna-swiatowa"]
    assert created["themes"] == ["wwii"]
    assert created["alternative_names"] == ["Znak Polski Walczącej", "PW"]
    assert created["status"] == Status.DRAFT
    assert created["owner"] == teacher.pk
    assert created["picture"] is None
    symbol = Symbol.objects.get(pk=created["id"])
    assert symbol.alternative_names == "Znak Polski Walczącej\nPW"
    assert list(symbol.themes.all()) == [theme]

    assert client.get(url("symbol", symbol.pk)).json() == created

    response = client.patch(
        url("symbol", symbol.pk),
        {"periods": ["ii-rp", "prl"], "alternative_names": [], "status": "published"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["periods"] == ["ii-rp", "prl"]
    assert response.json()["alternative_names"] == []

    response = client.put(url("symbol", symbol.pk), new_symbol(number=12), format="json")
    assert response.status_code == 200, response.content
    assert response.json()["code"] == "012"

    assert client.delete(url("symbol", symbol.pk)).status_code == 204
    assert not Symbol.objects.filter(pk=symbol.pk).exists()


def test_symbol_needs_a_period_and_a_known_collection(api, teacher):
    response = api(teacher).post(url("symbol"), new_symbol(periods=[], collection="nope"), format="json")
    assert response.status_code == 400
    errors = response.json()
    assert set(errors) == {"periods", "collection"}


def test_symbol_number_is_unique_in_its_collection(api, teacher):
    SymbolFactory(number=2)
    response = api(teacher).post(url("symbol"), new_symbol(number=2), format="json")
    assert response.status_code == 400
    assert Symbol.objects.filter(number=2).count() == 1


def test_alternative_names_are_one_per_item(api, teacher):
    response = api(teacher).post(url("symbol"), new_symbol(alternative_names=["a\nb"]), format="json")
    assert response.status_code == 400
    assert "alternative_names" in response.json()


def test_symbol_in_a_set_cannot_be_deleted(api, teacher):
    symbol = SymbolFactory(owner=teacher)
    symbol_set_with([symbol], owner=teacher)
    response = api(teacher).delete(url("symbol", symbol.pk))
    assert response.status_code == 409
    assert "remove it from them first" in response.json()["detail"]
    assert Symbol.objects.filter(pk=symbol.pk).exists()


# --- Filters and ordering ----------------------------------------------------------------------


def test_symbols_filter_by_period_theme_status_collection_set_and_search(api, teacher):
    people = ThemeFactory(slug="people", name="People")
    eagle = SymbolFactory(name="Orzeł", owner=teacher, number=7)
    anchor = SymbolFactory(name="Kotwica", alternative_names="Znak PW", owner=teacher, number=8)
    anchor.periods.set([Period.objects.get(slug="ii-wojna-swiatowa")])
    anchor.themes.add(people)
    draft = SymbolFactory(name="Szkic", status=Status.DRAFT, owner=teacher, number=9)
    other = SymbolFactory(
        name="Inny", collection=CollectionFactory(slug="other", name="Other"), owner=teacher, number=10
    )
    chosen = symbol_set_with([draft, eagle], owner=teacher)
    client = api(teacher)

    assert ids(client.get(url("symbol", period="ii-wojna-swiatowa"))) == {anchor.pk}
    assert ids(client.get(url("symbol", theme="people"))) == {anchor.pk}
    assert ids(client.get(url("symbol", status="draft"))) == {draft.pk}
    assert ids(client.get(url("symbol", collection="other"))) == {other.pk}
    assert ids(client.get(url("symbol", set=chosen.pk))) == {draft.pk, eagle.pk}
    assert ids(client.get(url("symbol", search="kotw"))) == {anchor.pk}
    assert ids(client.get(url("symbol", search="pw"))) == {anchor.pk}
    assert ids(client.get(url("symbol", search="7"))) == {eagle.pk}
    assert ids(client.get(url("symbol", search="orzeł", status="published"))) == {eagle.pk}
    assert ids(client.get(url("symbol", period="no-such-period"))) == set()


def test_symbol_filters_refuse_bad_values(api, teacher):
    client = api(teacher)
    response = client.get(url("symbol", status="secret"))
    assert response.status_code == 400
    assert "status" in response.json()
    assert client.get(url("symbol", set="abc")).status_code == 400


def test_symbols_are_ordered_by_request(api, teacher):
    b = SymbolFactory(name="B", number=1, owner=teacher)
    a = SymbolFactory(name="A", number=2, owner=teacher)
    client = api(teacher)
    assert [r["id"] for r in results(client.get(url("symbol")))] == [b.pk, a.pk]
    assert [r["id"] for r in results(client.get(url("symbol", ordering="name")))] == [a.pk, b.pk]
    assert [r["id"] for r in results(client.get(url("symbol", ordering="-number")))] == [a.pk, b.pk]


def test_symbols_are_paginated_with_limit_and_offset(api, teacher):
    for _ in range(3):
        SymbolFactory(owner=teacher)
    body = api(teacher).get(url("symbol", limit=2, offset=1)).json()
    assert body["count"] == 3
    assert len(body["results"]) == 2
    assert body["previous"] is not None


def test_list_has_no_duplicate_rows_for_an_editor_of_many(api, teacher, other_teacher, admin_user):
    symbol = SymbolFactory(owner=other_teacher)
    symbol.editors.add(teacher, admin_user)
    assert [r["id"] for r in results(api(teacher).get(url("symbol")))] == [symbol.pk]


# --- Pictures ----------------------------------------------------------------------------------


def test_svg_upload_with_script_is_cleaned(api, teacher):
    data = new_symbol()
    data["picture"] = SimpleUploadedFile("kotwica.svg", EVIL_SVG, content_type="image/svg+xml")
    response = api(teacher).post(url("symbol"), data, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    # The author's picture view, not a file name: media has no public URL.
    assert body["picture"].startswith(f"http://testserver/content/symbols/{body['id']}/picture?v=")
    assert "kotwica" not in body["picture"]
    assert Symbol.objects.get(pk=body["id"]).picture.name.endswith(".svg")
    assert body["alternative_names"] == ["Znak Polski Walczącej", "PW"]
    stored = Symbol.objects.get(pk=body["id"]).picture.read()
    assert b"<rect" in stored
    for bad in (b"script", b"alert", b"onclick", b"javascript"):
        assert bad not in stored


def test_gif_upload_gives_400_with_the_message(api, teacher):
    symbol = SymbolFactory(owner=teacher)
    upload = SimpleUploadedFile("eagle.gif", GIF, content_type="image/gif")
    response = api(teacher).patch(url("symbol", symbol.pk), {"picture": upload}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {
        "picture": [
            'The file "eagle.gif" is a GIF picture, which is not accepted; upload a PNG, '
            "JPEG, WebP or SVG picture."
        ]
    }
    symbol.refresh_from_db()
    assert not symbol.picture


def test_picture_named_png_but_holding_html_is_refused(api, teacher):
    symbol = SymbolFactory(owner=teacher)
    upload = SimpleUploadedFile("x.png", b"<html><script>alert(1)</script></html>")
    response = api(teacher).patch(url("symbol", symbol.pk), {"picture": upload}, format="multipart")
    assert response.status_code == 400
    assert "HTML page" in response.json()["picture"][0]


def test_png_upload_is_stored_and_its_url_returned(api, teacher):
    symbol = SymbolFactory(owner=teacher)
    client = api(teacher)
    upload = SimpleUploadedFile("Orzeł Biały.png", png())
    response = client.patch(url("symbol", symbol.pk), {"picture": upload}, format="multipart")
    assert response.status_code == 200, response.content
    symbol.refresh_from_db()
    assert symbol.picture.read() == png()
    assert response.json()["picture"] == f"http://testserver{symbol_picture_url(symbol)}"
    # What was read may be written back: the URL keeps the picture.
    read = client.get(url("symbol", symbol.pk)).json()
    response = client.put(url("symbol", symbol.pk), {**read, "name": "Orzeł"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["picture"] == read["picture"]
    response = client.patch(
        url("symbol", symbol.pk), {"picture": "http://elsewhere.example/x.png"}, format="json"
    )
    assert response.status_code == 400
    # And a JSON null clears it.
    response = client.patch(url("symbol", symbol.pk), {"picture": None}, format="json")
    assert response.status_code == 200
    assert response.json()["picture"] is None


def test_picture_over_the_size_limit_is_refused_unread(api, teacher, monkeypatch):
    symbol = SymbolFactory(owner=teacher)
    monkeypatch.setattr("content.api.serializers.MAX_BYTES", 100)
    upload = SimpleUploadedFile("big.png", png())
    response = api(teacher).patch(url("symbol", symbol.pk), {"picture": upload}, format="multipart")
    assert response.status_code == 400
    assert "the limit is" in response.json()["picture"][0]


def test_set_filter_with_an_unknown_set_gives_nothing(api, teacher):
    SymbolFactory(owner=teacher)
    assert ids(api(teacher).get(url("symbol", set=999999))) == set()


def test_symbol_search_for_a_superscript_digit_is_text_not_a_number(api, teacher):
    # '³'.isdigit() is true but int('³') fails; the word is searched as text.
    three = SymbolFactory(name="Trzy", owner=teacher, number=3)
    cubed = SymbolFactory(name="Metr³", owner=teacher, number=4)
    client = api(teacher)
    assert ids(client.get(url("symbol", search="³"))) == {cubed.pk}
    assert ids(client.get(url("symbol", search="3"))) == {three.pk}


def test_an_empty_filter_filters_nothing(api, teacher):
    eagle = SymbolFactory(name="Orzeł", owner=teacher, number=7)
    client = api(teacher)
    assert eagle.pk in ids(
        client.get(url("symbol", period="", theme="", status="", collection="", search=""))
    )


def test_text_fields_take_text_not_numbers(api, teacher):
    client = api(teacher)
    response = client.post(url("theme"), {"slug": "t", "name": 12}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    assert client.post(url("theme"), {"slug": "t", "name": "12"}, format="json").status_code == 201


@pytest.mark.parametrize(
    ("portal_url", "message"), [("symbol:", "Enter a valid URL."), (7, "Give text here, in quotes.")]
)
def test_a_bad_url_is_refused_with_the_url_message_and_a_number_with_the_text_one(
    api, teacher, portal_url, message
):
    response = api(teacher).post(url("symbol"), new_symbol(portal_url=portal_url), format="json")
    assert response.status_code == 400
    assert response.json() == {"portal_url": [message]}


def test_a_bad_slug_is_refused_with_the_slug_message(api, teacher):
    response = api(teacher).post(url("theme"), {"slug": "a b", "name": "Ludzie"}, format="json")
    assert response.status_code == 400
    assert "letters, numbers, underscores or hyphens" in response.json()["slug"][0]


def test_text_longer_than_allowed_is_refused_even_if_trimmed_it_would_fit(api, teacher):
    client = api(teacher)
    longest = "x" * Theme._meta.get_field("name").max_length
    assert client.post(url("theme"), {"slug": "a", "name": longest}, format="json").status_code == 201
    response = client.post(url("theme"), {"slug": "b", "name": "\t" + longest}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
