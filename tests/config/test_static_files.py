"""Which static files ``collectstatic`` gathers (``config.storage``)."""

from __future__ import annotations

from django.contrib.staticfiles import finders


def _collected() -> set[str]:
    return {path for finder in finders.get_finders() for path, _storage in finder.list([])}


def test_the_unused_redoc_bundle_of_the_sidecar_is_not_collected():
    collected = _collected()
    assert not [path for path in collected if path.startswith("drf_spectacular_sidecar/redoc/")]


def test_swagger_ui_which_the_api_documentation_uses_is_collected():
    collected = _collected()
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in collected
