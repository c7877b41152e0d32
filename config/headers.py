"""Headers on every response: Content-Security-Policy, Permissions-Policy, private caching.

The policy is one header. A view that sets its own (the sandboxed pictures) keeps it;
every other response gets the site's, and ``lms.lti.middleware.FrameAncestorsMiddleware``,
outside this one, appends its ``frame-ancestors`` to whichever it is. Talia's pages run
only scripts from its own origin (no inline scripts or handlers); styles may be inline,
since period colours are data drawn as ``style`` attributes and the admin's, DRF's and
Swagger UI's widgets write style attributes too, and a style runs nothing.

Written here rather than with django-csp: the policy is a constant with no nonces,
and the one per-page part, frame-ancestors, already has its middleware.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        # data: for the inline icon; https: for pictures in an S3-compatible bucket.
        "img-src 'self' data: blob: https:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
    ]
)

# Nothing Talia does needs these; a page framed by an LMS cannot ask for them either.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
)

PRIVATE = "private, no-store"
API_PREFIX = "/api/"


def _private(request: HttpRequest) -> bool:
    """A response to a signed-in person, or from the API: no cache may keep it."""
    if request.path.startswith(API_PREFIX):
        return True
    # Only a request that carries a session can be signed in: without one the user is not
    # looked up, so public pages keep their caching and gain no Vary: Cookie.
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response.headers:
            response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if _private(request):
            existing = response.headers.get("Cache-Control", "")
            # A view's own private caching stays (a game's pictures, kept an hour in
            # this browser only); anything else a person or the API sees is not stored.
            if "private" not in existing and "no-store" not in existing:
                response.headers["Cache-Control"] = PRIVATE
        return response
