"""Signing in with a login card's one-time password, on the same sign-in page as everyone.

After django-axes's backend (which refuses a locked-out client first) and Django's own
(real passwords): a student whose card is open has no password of their own yet
(``lms.accounts.services``), so only this backend can let them in. A session signed in
here must choose a password before anything else (``PasswordFirstMiddleware``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from lms.models import User

from . import services
from .cards import card_password_matches

#: The dotted path Django stores in a session signed in with a card.
CARD_BACKEND = "lms.accounts.backends.LoginCardBackend"


class LoginCardBackend(ModelBackend):
    """Username and the card's one-time password, while the card is open."""

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if not username or not password:
            return None
        student = User.objects.filter(username=username).first()
        if student is None or not self.user_can_authenticate(student):
            return None
        card = services.login_card_open(student)
        if card is None or not card_password_matches(card, password):
            return None
        return student

    def get_user(self, user_id: int) -> User | None:  # type: ignore[override]
        # A session signed in with a card ends when the card closes (a new card, a password chosen).
        user = super().get_user(user_id)
        if user is None or services.login_card_open(user) is None:
            return None
        return user  # type: ignore[return-value]
