"""A NUL character anywhere a view could pass it to the database is a 400 before any view runs.

PostgreSQL refuses NUL in text (a DataError, so a 500); these tests pass on SQLite too,
because the refusal happens before the database is asked.
"""

from __future__ import annotations

import io
import json

import pytest
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from PIL import Image

from config.middleware import MESSAGE
from content.models import Period, Symbol, Theme
from tests.factories import SymbolFactory, ThemeFactory


def test_nul_in_an_api_path_parameter_is_a_json_400(client, teacher):
    ThemeFactory(slug="people")
    client.force_login(teacher)
    assert client.get("/api/v1/themes/people/").status_code == 200
    response = client.get("/api/v1/themes/people%00/")
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]


@pytest.mark.parametrize("query", ["search=a%00b", "ordering=%00", "SEARCH=%00", "x%00=1"])
def test_nul_in_the_query_string_is_a_400(client, teacher, query):
    client.force_login(teacher)
    response = client.get(f"/api/v1/themes/?{query}")
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]


def test_nul_in_a_page_path_is_a_400_page(client, teacher):
    client.force_login(teacher)
    response = client.get("/games/%00/")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


def test_nul_in_a_form_field_is_a_400(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        "/admin/content/period/add/",
        {"slug": "x\x00", "name": "Period", "start_year": 1900, "end_year": 1901},
    )
    assert response.status_code == 400
    assert not Period.objects.filter(name="Period").exists()


def test_nul_in_a_multipart_field_is_a_400_but_nul_in_the_file_is_not_refused_here(client, teacher):
    client.force_login(teacher)
    refused = client.post(
        "/api/v1/symbols/", {"name": "a\x00b", "picture": SimpleUploadedFile("p.png", b"\x89PNG\x00\x00")}
    )
    assert refused.status_code == 400
    assert "NUL" in refused.json()["detail"]
    # The same upload without NUL in a text field reaches the API, which judges the file itself.
    reached = client.post(
        "/api/v1/symbols/", {"name": "ab", "picture": SimpleUploadedFile("p.png", b"\x89PNG\x00")}
    )
    assert reached.status_code == 400
    assert "NUL" not in reached.content.decode()


def png(size: int = 64) -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((size, size), 64).convert("RGB").save(buffer, "PNG")
    return buffer.getvalue()


def multipart(data: dict) -> bytes:
    return encode_multipart(BOUNDARY, data)


@pytest.mark.parametrize("method", ["put", "patch"])
def test_nul_in_a_multipart_put_or_patch_field_is_a_400_and_changes_nothing(client, teacher, method):
    symbol = SymbolFactory(owner=teacher, name="Kotwica")
    client.force_login(teacher)
    body = multipart({"name": "a\x00b", "picture": SimpleUploadedFile("p.png", png())})
    response = getattr(client, method)(f"/api/v1/symbols/{symbol.pk}/", body, content_type=MULTIPART_CONTENT)
    assert response.status_code == 400
    assert response.json() == {"detail": MESSAGE}
    symbol.refresh_from_db()
    assert symbol.name == "Kotwica" and not symbol.picture


@pytest.mark.parametrize("method", ["put", "patch"])
def test_nul_in_a_url_encoded_put_or_patch_field_is_a_400(client, teacher, method):
    symbol = SymbolFactory(owner=teacher, name="Kotwica")
    client.force_login(teacher)
    response = getattr(client, method)(
        f"/api/v1/symbols/{symbol.pk}/", "name=a%00b", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]


def test_a_multipart_patch_without_nul_reaches_the_api_with_its_file(client, teacher):
    symbol = SymbolFactory(owner=teacher, name="Kotwica")
    client.force_login(teacher)
    body = multipart({"name": "Orzeł", "picture": SimpleUploadedFile("p.png", png())})
    assert b"\x00" in body  # the PNG's bytes hold NUL; a file may
    response = client.patch(f"/api/v1/symbols/{symbol.pk}/", body, content_type=MULTIPART_CONTENT)
    assert response.status_code == 200, response.content
    symbol.refresh_from_db()
    assert symbol.name == "Orzeł" and symbol.picture


def test_a_large_multipart_patch_is_checked_as_it_streams_and_still_reaches_the_api(
    client, teacher, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024  # the picture alone is larger
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    symbol = SymbolFactory(owner=teacher, name="Kotwica")
    client.force_login(teacher)
    picture = png(256)
    assert len(picture) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    refused = client.patch(
        f"/api/v1/symbols/{symbol.pk}/",
        multipart({"name": "a\x00b", "picture": SimpleUploadedFile("p.png", picture)}),
        content_type=MULTIPART_CONTENT,
    )
    assert refused.status_code == 400 and "NUL" in refused.json()["detail"]
    reached = client.patch(
        f"/api/v1/symbols/{symbol.pk}/",
        multipart({"name": "Orzeł", "picture": SimpleUploadedFile("p.png", picture)}),
        content_type=MULTIPART_CONTENT,
    )
    assert reached.status_code == 200, reached.content
    symbol = Symbol.objects.get(pk=symbol.pk)
    assert symbol.name == "Orzeł" and symbol.picture.read() == picture


@pytest.mark.parametrize("text", ["a\x00b", "\x00"])
def test_nul_in_a_json_string_is_a_400(client, teacher, text):
    client.force_login(teacher)
    response = client.post(
        "/api/v1/themes/", json.dumps({"slug": "t", "name": text}), content_type="application/json"
    )
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]
    assert not Theme.objects.filter(slug="t").exists()


def test_an_escaped_backslash_before_u0000_is_text_not_nul(client, teacher):
    client.force_login(teacher)
    name = "C:\\u0000"  # a backslash, then the letters u0000
    body = json.dumps({"slug": "t", "name": name})
    assert "\\\\u0000" in body
    response = client.post("/api/v1/themes/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    assert Theme.objects.get(slug="t").name == name


def test_nul_in_the_session_cookie_is_a_400(client):
    client.cookies["sessionid"] = "abcdefgh\x00"
    assert client.get("/").status_code == 400


def test_every_admin_add_form_refuses_nul(client, admin_user, rf):
    request = rf.get("/admin/")
    request.user = admin_user
    add_urls = [
        model["add_url"]
        for app in admin.site.get_app_list(request)
        for model in app["models"]
        if model.get("add_url")
    ]
    assert len(add_urls) > 5
    client.force_login(admin_user)
    for add in add_urls:
        response = client.post(add, {"name": "x\x00", "slug": "x\x00", "title": "\x00"})
        assert response.status_code == 400, add
