"""The static files' storage: whitenoise's compressed manifest, with the ES module imports
of our scripts (``import { el } from "./dom.js";``) rewritten to the hashed names too, so a
shared module is cached as long as the scripts that import it and changes with them.

Only the hashed copies are compressed. Every page names its files through ``{% static %}``,
so browsers ask for the hashed names; the plain copies stay for what builds a path at run
time (the admin's scripts ask for ``admin/img/…`` that way) and are served uncompressed.
Whitenoise compresses both by default, which doubled the Brotli and gzip work of every
``collectstatic`` (``make run``'s first setup, each deployment)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import suppress
from typing import Any

from django.contrib.staticfiles import finders
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True

    def compress_files(self, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
        """Compress the hashed copies among ``paths`` (all of them if nothing was hashed).

        A plain copy's compressed files from a release that compressed them too are removed:
        WhiteNoise would serve them, stale, in place of the new plain file."""
        hashed = set(self.hashed_files.values())
        if not hashed:
            return super().compress_files(paths)
        paths = list(paths)
        for path in paths:
            if path not in hashed:
                for suffix in (".gz", ".br"):
                    with suppress(FileNotFoundError):
                        os.remove(self.path(path + suffix))
        return super().compress_files([path for path in paths if path in hashed])


class AppDirectoriesFinder(finders.AppDirectoriesFinder):
    """The apps' static files, without the ReDoc bundle of drf-spectacular-sidecar.

    The API's documentation is Swagger UI (``config/api_urls.py``); the sidecar ships ReDoc
    beside it, 15 MB that no page links to and that ``collectstatic`` would hash and
    compress on every fresh installation (half of ``make run``'s first minute).
    """

    unused = ("drf_spectacular_sidecar/redoc/*",)  # matched against each file's whole path

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterable[Any]:
        return super().list([*(ignore_patterns or []), *self.unused])
