"""The OpenAPI schema and the Swagger UI page, whose assets Talia serves itself."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
import yaml
from django.core.management import call_command
from drf_spectacular.validation import validate_schema


def test_schema_command_validates_without_warnings(tmp_path):
    # --fail-on-warn turns every drf-spectacular warning and error into a failure.
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    assert "/api/v1/symbols/" in schema["paths"]


@pytest.mark.parametrize("accept", ["application/vnd.oai.openapi+json", "application/vnd.oai.openapi"])
def test_schema_endpoint_returns_valid_openapi(api, teacher, accept):
    response = api(teacher).get("/api/schema/", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    content = response.content.decode()
    schema = json.loads(content) if "json" in accept else yaml.safe_load(content)
    validate_schema(schema)  # raises on an invalid OpenAPI 3 document
    assert schema["info"]["title"] == "Talia API"
    paths = schema["paths"]
    for path in (
        "symbols",
        "symbol-sets",
        "activity-cards",
        "knowledge-questions",
        "periods",
        "themes",
        "collections",
        "tags",
    ):
        assert f"/api/v1/{path}/" in paths
    upload = paths["/api/v1/symbols/{id}/"]["patch"]["requestBody"]["content"]
    assert "multipart/form-data" in upload
    list_parameters = {p["name"] for p in paths["/api/v1/symbols/"]["get"]["parameters"]}
    assert {
        "period",
        "theme",
        "status",
        "collection",
        "set",
        "search",
        "ordering",
        "limit",
        "offset",
    } <= list_parameters


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append(value)


@pytest.fixture
def collected_static(settings, tmp_path):
    """Static files as in production: collected, hashed, served by WhiteNoise."""
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", "--noinput", verbosity=0)


def test_docs_page_uses_only_assets_served_by_talia(api, teacher, collected_static):
    client = api(teacher)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    parser = _Assets()
    parser.feed(page)
    assert parser.urls, "the page loads its assets"
    start_up = ""
    for asset in parser.urls:
        parts = urlsplit(asset)
        assert not parts.scheme and not parts.netloc, f"{asset} is not served by Talia"
        served = client.get(asset)
        assert served.status_code == 200, asset
        body = b"".join(served.streaming_content if served.streaming else [served.content])
        if asset.startswith("/api/docs/?"):
            # Swagger UI's start-up script, a file of the docs view itself (no inline script).
            assert served["Content-Type"].startswith("application/javascript")
            start_up = body.decode()
        else:
            assert asset.startswith("/static/"), asset
    assert "<script>" not in page
    # No script or stylesheet is loaded from elsewhere by the start-up code either.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page + start_up)
    assert "/api/schema/" in start_up


def test_every_operation_documents_its_refusals(api, teacher):
    paths = api(teacher).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    operations = [
        (path, method, operation)
        for path, methods in paths.items()
        if path.startswith("/api/v1/")
        for method, operation in methods.items()
    ]
    assert len(operations) > 40
    for path, method, operation in operations:
        codes = set(operation["responses"])
        assert {"400", "403"} <= codes, (method, path)
        if "{" in path:
            assert "404" in codes, (method, path)
        if method == "delete":
            assert "409" in codes, (method, path)
        error = operation["responses"]["403"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/Error"}


def test_page_parameters_are_documented_as_counts(api, teacher):
    paths = api(teacher).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    parameters = {p["name"]: p["schema"] for p in paths["/api/v1/themes/"]["get"]["parameters"]}
    assert parameters["limit"]["minimum"] == 1
    assert parameters["offset"]["minimum"] == 0


def test_list_fields_say_how_many_items_the_api_takes(api, teacher):
    """A symbol needs a period and a card six terms: the request schemas say so, so a
    client (and the fuzzer) never sends as valid what the API refuses."""
    schemas = api(teacher).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    schemas = schemas["components"]["schemas"]
    for name in ("SymbolInputRequest", "PatchedSymbolInputRequest"):
        assert schemas[name]["properties"]["periods"]["minItems"] == 1
    for name in ("ActivityCardInputRequest", "PatchedActivityCardInputRequest"):
        terms = schemas[name]["properties"]["terms"]
        assert (terms["minItems"], terms["maxItems"]) == (6, 6)
    # Lists that may be empty stay unbounded, and answers carry no request constraints.
    assert "minItems" not in schemas["SymbolInputRequest"]["properties"]["themes"]
    assert "minItems" not in schemas["SymbolOutput"]["properties"]["periods"]


def request_schemas(client) -> dict:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return schema["components"]["schemas"]


def test_required_text_of_spaces_alone_is_invalid_in_the_schema_as_in_the_api(api, teacher):
    client = api(teacher)
    schemas = request_schemas(client)
    name = schemas["ThemeInputRequest"]["properties"]["name"]
    pattern = re.compile(name["pattern"])
    for i, (text, accepted) in enumerate(((" \t\u3000\x1c", False), (" a ", True), ("\ufeff", True))):
        assert bool(pattern.search(text)) is accepted
        response = client.post("/api/v1/themes/", {"slug": f"t{i}", "name": text}, format="json")
        assert (response.status_code == 201) is accepted, response.content
    # Text that may be empty, and slugs with their own pattern, keep theirs.
    assert "pattern" not in schemas["ThemeInputRequest"]["properties"]["description"]
    assert schemas["ThemeInputRequest"]["properties"]["slug"]["pattern"] == "^[-a-zA-Z0-9_]+$"
    assert schemas["PeriodInputRequest"]["properties"]["colour"]["pattern"] == "^#[0-9a-fA-F]{6}$"


def test_a_sets_members_are_each_once_in_the_schema(api, teacher):
    schemas = request_schemas(api(teacher))
    assert schemas["SymbolSetInputRequest"]["properties"]["members"]["uniqueItems"] is True
    assert "uniqueItems" not in schemas["SymbolInputRequest"]["properties"]["alternative_names"]


def test_a_term_has_points_and_a_chain_or_a_rhyme_none_in_the_schema(api, teacher):
    term = request_schemas(api(teacher))["ActivityTermInputRequest"]
    branches = term["anyOf"]
    assert branches[0]["required"] == ["points"] and branches[0]["properties"]["points"] == {
        "type": "integer"
    }
    assert re.fullmatch(branches[1]["properties"]["kind"]["pattern"], "rhyme")
    assert branches[1]["properties"]["points"] == {"not": {"type": "integer"}}


def test_each_write_takes_its_input_serializer_and_answers_with_its_output_serializer(api, teacher):
    """One operation per write: the request body is the resource's input serializer (for a
    symbol, in both media types), the answer its output serializer, as for the reads."""
    schema = api(teacher).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    writes = 0
    for path, methods in schema["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, operation in methods.items():
            answers = operation["responses"]
            if method in ("post", "put", "patch"):
                writes += 1
                for media, body in operation["requestBody"]["content"].items():
                    assert re.fullmatch(
                        r"#/components/schemas/(Patched)?\w+InputRequest", body["schema"]["$ref"]
                    ), (method, path, media)
                answer = answers["201" if method == "post" else "200"]
                assert answer["content"]["application/json"]["schema"]["$ref"].endswith("Output"), (
                    method,
                    path,
                )
            elif method == "get" and "200" in answers:
                answer = answers["200"]["content"]["application/json"]["schema"]["$ref"]
                assert re.search(r"Output(List)?$", answer), (method, path)
    assert writes == 8 * 3  # create, update and partial update of each of the eight resources
    outputs = {name: s for name, s in schema["components"]["schemas"].items() if name.endswith("Output")}
    assert len(outputs) == 9  # the eight resources and a card's term
    for name, output in outputs.items():
        for field, rule in output["properties"].items():
            assert rule.get("readOnly") is True, (name, field)
