"""A student who signed in with a login card chooses their own password before anything else."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from .backends import CARD_BACKEND


class PasswordFirstMiddleware:
    """Every page but the password page (and signing out) leads to the password page while
    the session was signed in with a card's one-time password or QR link."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Only a request that carries a session cookie can be signed in; the others are not read.
        if (
            settings.SESSION_COOKIE_NAME in request.COOKIES
            and request.session.get(BACKEND_SESSION_KEY) == CARD_BACKEND
        ):
            static = "/" + settings.STATIC_URL.lstrip("/")
            allowed = (reverse("password_set"), reverse("logout"), static, "/i18n/", "/jsi18n/")
            if not request.path.startswith(allowed) and request.user.is_authenticated:
                return redirect("password_set")
        return self.get_response(request)
