"""Who may show Talia in a frame: the registered LMSs on LTI pages, nobody elsewhere.

An LMS shows the launch pages, and the pages a person opened from a launch, inside an
iframe. Those responses get ``Content-Security-Policy: frame-ancestors 'self' <LMS
origins>`` and no X-Frame-Options; every other page keeps ``X-Frame-Options: DENY`` and
``frame-ancestors 'none'``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from .selectors import platform_origins

SESSION_ORIGINS = "lti_frame_origins"
LTI_PREFIX = "/lti/"


def _with_frame_ancestors(response: HttpResponse, sources: str) -> None:
    existing = response.headers.get("Content-Security-Policy", "")
    if "frame-ancestors" in existing:
        return
    directive = f"frame-ancestors {sources}"
    response.headers["Content-Security-Policy"] = f"{existing}; {directive}" if existing else directive


class FrameAncestorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        origins: list[str] = []
        if request.path.startswith(LTI_PREFIX):
            origins = platform_origins()
        elif settings.SESSION_COOKIE_NAME in request.COOKIES and hasattr(request, "session"):
            origins = list(request.session.get(SESSION_ORIGINS) or [])
        if origins or request.path.startswith(LTI_PREFIX):
            _with_frame_ancestors(response, " ".join(["'self'", *origins]))
            response.xframe_options_exempt = True  # type: ignore[attr-defined]
        else:
            _with_frame_ancestors(response, "'none'")
        return response
