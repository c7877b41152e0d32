"""The static files' storage: whitenoise's compressed manifest, with the ES module imports
of our scripts (``import { el } from "./dom.js";``) rewritten to the hashed names too, so a
shared module is cached as long as the scripts that import it and changes with them."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
