"""The static files' storage: whitenoise's compressed manifest, with the ES module imports
of our scripts (``import { el } from "./dom.js";``) rewritten to the hashed names too, so a
shared module is cached as long as the scripts that import it and changes with them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.staticfiles import finders
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True


class AppDirectoriesFinder(finders.AppDirectoriesFinder):
    """The apps' static files, without the ReDoc bundle of drf-spectacular-sidecar.

    The API's documentation is Swagger UI (``config/api_urls.py``); the sidecar ships ReDoc
    beside it, 15 MB that no page links to and that ``collectstatic`` would hash and
    compress on every fresh installation (half of ``make run``'s first minute).
    """

    unused = ("drf_spectacular_sidecar/redoc/*",)  # matched against each file's whole path

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterable[Any]:
        return super().list([*(ignore_patterns or []), *self.unused])
