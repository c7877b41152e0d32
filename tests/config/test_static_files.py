"""Which static files ``collectstatic`` gathers (``config.storage``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from django.contrib.staticfiles import finders
from django.core.management import call_command


def _collected() -> set[str]:
    return {path for finder in finders.get_finders() for path, _storage in finder.list([])}


def test_the_unused_redoc_bundle_of_the_sidecar_is_not_collected():
    collected = _collected()
    assert not [path for path in collected if path.startswith("drf_spectacular_sidecar/redoc/")]


def test_swagger_ui_which_the_api_documentation_uses_is_collected():
    collected = _collected()
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in collected


def test_collectstatic_compresses_the_hashed_copies_and_keeps_the_plain_ones(settings, tmp_path):
    """Pages ask for the hashed names; the plain copies stay, uncompressed, for paths built
    at run time (the admin's scripts)."""
    source = tmp_path / "source"
    (source / "app").mkdir(parents=True)
    (source / "app" / "dom.js").write_text("export const el = (tag) => document.createElement(tag);\n" * 40)
    (source / "app" / "page.js").write_text('import { el } from "./dom.js";\nel("p");\n' * 40)
    (source / "app" / "page.css").write_text("body { margin: 0; }\n" * 80)
    settings.STATICFILES_DIRS = [source]
    settings.STATICFILES_FINDERS = ["django.contrib.staticfiles.finders.FileSystemFinder"]
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "config.storage.StaticFilesStorage"}}
    # What an earlier release left: the plain copy compressed too, now stale.
    (tmp_path / "static" / "app").mkdir(parents=True)
    (tmp_path / "static" / "app" / "page.css.gz").write_bytes(gzip.compress(b"body { color: red; }"))
    (tmp_path / "static" / "app" / "page.css.br").write_bytes(b"stale")
    call_command("collectstatic", "--noinput", verbosity=0)

    root = tmp_path / "static" / "app"
    manifest = json.loads((tmp_path / "static" / "staticfiles.json").read_text())["paths"]
    for plain in ("app/dom.js", "app/page.js", "app/page.css"):
        hashed = manifest[plain]
        assert hashed != plain
        assert (tmp_path / "static" / f"{hashed}.gz").is_file(), hashed
        assert (tmp_path / "static" / plain).is_file(), plain
        assert not (tmp_path / "static" / f"{plain}.gz").exists(), plain
        assert not (tmp_path / "static" / f"{plain}.br").exists(), plain
    # The hashed page imports the hashed module, compressed as it is served.
    page = (tmp_path / "static" / manifest["app/page.js"]).read_text()
    assert manifest["app/dom.js"].rsplit("/", 1)[1] in page
    assert (
        gzip.decompress((tmp_path / "static" / f"{manifest['app/page.js']}.gz").read_bytes()).decode() == page
    )
    assert sorted(p.name for p in root.iterdir() if p.suffix in (".gz", ".br")) == sorted(
        f"{Path(manifest[plain]).name}{suffix}"
        for plain in ("app/dom.js", "app/page.js", "app/page.css")
        for suffix in ((".gz", ".br") if _brotli() else (".gz",))
    )


def _brotli() -> bool:
    try:
        import brotli  # noqa: F401
    except ImportError:
        return False
    return True
