"""Private media: stored names nobody can guess, and answers that send a stored file only
after a view has checked who asks.

No URL serves ``MEDIA_ROOT`` (or the bucket) as such. A view decides who may have a file
(the author through ``content.permissions``, the players of a game or the takers of a
quiz through their own selectors) and then answers with :func:`file_response` or
:func:`picture_response`, which pick how the bytes travel:

* ``PRIVATE_MEDIA_PREFIX`` set and files on local disk: an empty answer with
  ``X-Accel-Redirect: <prefix><stored name>``; the proxy sends the file from an
  ``internal`` location, so a web process is not tied up by a PDF download.
* files in an S3-compatible bucket: a redirect to a pre-signed URL (it expires), for
  downloads only; pictures for players are streamed, because a bucket key may be an old,
  telling file name.
* otherwise Django streams the file itself.

Names: a stored name is half of what could give a file away (``decks/12/deck.json``,
``symbols/ipn/jozef-pilsudski.png``), so new files get a random or keyed folder or name.
"""

from __future__ import annotations

import mimetypes
import secrets
from pathlib import PurePath
from urllib.parse import quote

from django.conf import settings
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from django.utils.crypto import salted_hmac
from django.utils.http import content_disposition_header

from .pictures import PictureError, raster_for_players, svg_for_players

__all__ = ["file_response", "picture_response", "private_folder", "random_name"]

# A picture that slipped through the upload checks still runs nothing on Talia's origin.
PICTURE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"


def random_name(folder: str, filename: str) -> str:
    """``folder/<random>.<ext>``: the uploaded file's name (often the symbol's) is dropped."""
    extension = PurePath(filename).suffix.lower()[:8]
    return f"{folder}/{secrets.token_urlsafe(18)}{extension}"


def private_folder(kind: str, pk: int) -> str:
    """A folder for one row's generated files (``decks/<keyed hash>``).

    Keyed by ``SECRET_KEY``, so a rebuild writes over the same names while nobody can
    derive the folder from the row's number. The full names are kept on the row, so
    changing ``SECRET_KEY`` later only moves where new files go.
    """
    digest = salted_hmac("talia.media.private_folder", f"{kind}:{pk}").hexdigest()[:32]
    return f"{kind}/{digest}"


def _local(name: str) -> bool:
    try:
        default_storage.path(name)
    except NotImplementedError:
        return False
    return True


def _protect(response: HttpResponseBase, *, download_name: str | None) -> HttpResponseBase:
    # FileResponse would name the stored file ("jozef-pilsudski.png"): say nothing of it.
    if download_name:
        response["Content-Disposition"] = content_disposition_header(True, download_name)
    else:
        response["Content-Disposition"] = "inline"
    response["Content-Security-Policy"] = PICTURE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response


def _accel(name: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content_type=content_type)
    response["X-Accel-Redirect"] = settings.PRIVATE_MEDIA_PREFIX + quote(name, safe="/")
    return response


def file_response(
    name: str, *, download_name: str | None = None, content_type: str | None = None
) -> HttpResponseBase:
    """Send stored file ``name`` to a requester the caller has already allowed.

    ``download_name`` makes it an attachment under that name; without it the file is
    shown inline and unnamed. Raises Http404 when the file is missing.
    """
    if not name or not default_storage.exists(name):
        raise Http404("No such file.")
    content_type = content_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
    if not _local(name):
        disposition = f"attachment; filename*=UTF-8''{quote(download_name)}" if download_name else "inline"
        url = default_storage.url(
            name,
            parameters={"ResponseContentDisposition": disposition, "ResponseContentType": content_type},
        )
        return _protect(HttpResponseRedirect(url), download_name=download_name)
    if settings.PRIVATE_MEDIA_PREFIX:
        return _protect(_accel(name, content_type), download_name=download_name)
    return _protect(
        FileResponse(default_storage.open(name, "rb"), content_type=content_type),
        download_name=download_name,
    )


def picture_response(name: str) -> HttpResponseBase:
    """A symbol's picture for a player or a quiz-taker: unnamed, an SVG stripped of anything
    that could say what it shows (``pictures.svg_for_players``) and a PNG, JPEG, WebP or GIF
    re-encoded without its metadata (``pictures.raster_for_players``).

    The caller has checked who asks. Every picture is read and cleaned here, at serve
    time, so pictures stored before these rules are covered too and the author's stored
    original stays as uploaded; that is why a player's picture never goes by the proxy.
    Raises Http404 when the file is missing or no longer passes the picture checks.
    """
    if not name or not default_storage.exists(name):
        raise Http404("No such picture.")
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    clean = svg_for_players if content_type == "image/svg+xml" else raster_for_players
    with default_storage.open(name, "rb") as stored:
        data = stored.read()
    try:
        body = clean(data)
    except PictureError as error:  # a stored file that no longer passes: show nothing
        raise Http404("No such picture.") from error
    return _protect(HttpResponse(body, content_type=content_type), download_name=None)
