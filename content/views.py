"""Thin views of the content app."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.static import serve


def media_serve(request: HttpRequest, path: str) -> HttpResponse:
    """Serve uploaded media in the embedded mode, sandboxed.

    Uploaded pictures are checked and SVGs cleaned on upload; the sandbox CSP and
    nosniff make sure a file that slipped through still cannot run script on
    Talia's origin.
    """
    response = serve(request, path, document_root=settings.MEDIA_ROOT)
    response["Content-Security-Policy"] = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response
