"""The only way the renderer reads anything: local files it was told about.

WeasyPrint fetches every ``src``/``url()`` through a URL fetcher.  Talia's fetcher
serves ``file:`` URLs under a few roots (this package's fonts and CSS, the media
root, the prepared pictures) or naming one of the given picture files, and the
``data:`` URIs the renderer generated itself (QR codes), which it recognises by
their digest.  Everything else (http, https, ftp, ``file:`` anywhere else, a
``data:`` URI that came from authored content) raises :class:`FetchRefused`; the
picture is left out and nothing is fetched.  Authored text never becomes markup
(templates autoescape), so this is the second line of defence.

Free of Django: the rendering workers build it from a pickled :class:`FetchPolicy`.
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import unquote, unquote_to_bytes, urlsplit
from urllib.request import url2pathname

from weasyprint.urls import URLFetcher, URLFetcherResponse

__all__ = ["FetchPolicy", "FetchRefused", "SafeFetcher", "data_uri", "digest"]


class FetchRefused(ValueError):
    """The renderer refused to fetch a URL (not a local file it was given)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def data_uri(content: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(content).decode('ascii')}"


def _real(path: str) -> str:
    return os.path.realpath(path)


@dataclass(frozen=True)
class FetchPolicy:
    """What may be fetched: directory ``roots``, single ``files``, ``data`` URI digests."""

    roots: tuple[str, ...] = ()
    files: frozenset[str] = frozenset()
    data: frozenset[str] = frozenset()

    @classmethod
    def build(
        cls,
        *,
        roots: Iterable[str | os.PathLike[str]] = (),
        files: Iterable[str] = (),
        data: Iterable[str] = (),
    ) -> FetchPolicy:
        return cls(
            roots=tuple(sorted({_real(os.fspath(r)) for r in roots if os.fspath(r)})),
            files=frozenset(_real(f) for f in files if f),
            data=frozenset(digest(d) for d in data),
        )

    def allows_path(self, path: str) -> bool:
        real = _real(path)
        if real in self.files:
            return True
        return any(real == root or real.startswith(root + os.sep) for root in self.roots)


class SafeFetcher(URLFetcher):  # type: ignore[misc]  # WeasyPrint ships no types
    """A WeasyPrint URL fetcher that serves only what its :class:`FetchPolicy` allows.

    ``on_fetch`` (optional) is called with every URL asked for, before the decision;
    tests use it to prove what was and was not requested.
    """

    def __init__(self, policy: FetchPolicy, on_fetch: Callable[[str], None] | None = None) -> None:
        # No handlers are used: fetch() below never reaches urllib's openers.
        super().__init__(timeout=1, allowed_protocols=("file", "data"), allow_redirects=False)
        self.policy = policy
        self.on_fetch = on_fetch
        self.refused: list[str] = []

    def fetch(self, url: str, headers: object = None) -> URLFetcherResponse:
        if self.on_fetch is not None:
            self.on_fetch(url)
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            if digest(url) not in self.policy.data:
                return self._refuse(url, "a data: URI the renderer did not make")
            return self._data(url)
        if scheme == "file":
            parts = urlsplit(url)
            if parts.netloc not in ("", "localhost"):
                return self._refuse(url, "a file on another host")
            path = url2pathname(unquote(parts.path))
            if not self.policy.allows_path(path):
                return self._refuse(url, "a file outside the print folders")
            try:
                with open(path, "rb") as handle:
                    body = handle.read()
            except OSError as error:
                raise FetchRefused(f"cannot read {path}: {error.strerror}") from error
            mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
            return URLFetcherResponse(url, body, {"Content-Type": mime})
        return self._refuse(url, f"the {scheme or 'relative'} protocol")

    def _refuse(self, url: str, why: str) -> URLFetcherResponse:
        self.refused.append(url)
        raise FetchRefused(f"Refused to fetch {url[:80]!r}: the renderer does not fetch {why}.")

    @staticmethod
    def _data(url: str) -> URLFetcherResponse:
        header, _, payload = url[5:].partition(",")
        mime, *params = header.split(";")
        if params and params[-1].lower() == "base64":
            body = base64.b64decode(payload)
        else:
            body = unquote_to_bytes(payload)
        return URLFetcherResponse(url, body, {"Content-Type": mime or "text/plain"})
