"""What a login card says: its one-time password and the QR link that signs in once.

Both are derived from the card's random ``secret`` with the site's ``SECRET_KEY``
(``salted_hmac``), so a card printed again shows the same password and link while it is
open, and neither is stored: the database alone does not sign anyone in. Changing
``SECRET_KEY`` voids every printed card (print new ones).

The password uses the join codes' alphabet (no 0/O, 1/I/L) and is typed in any case,
with or without the dash.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.utils.crypto import constant_time_compare, salted_hmac

from games.lobby import JOIN_CODE_ALPHABET
from lms.models import LoginCard

PASSWORD_LENGTH = 8


def card_secret_new() -> str:
    return secrets.token_hex(32)


def card_password(card: LoginCard) -> str:
    """The card's one-time password: eight characters of the join codes' alphabet in two
    halves, such as ``K7M2-QX4P`` (which one depends on ``SECRET_KEY``)."""
    number = int.from_bytes(
        salted_hmac("talia.login-card.password", card.secret, algorithm="sha256").digest()
    )
    chars = []
    for _position in range(PASSWORD_LENGTH):
        number, index = divmod(number, len(JOIN_CODE_ALPHABET))
        chars.append(JOIN_CODE_ALPHABET[index])
    half = PASSWORD_LENGTH // 2
    return "".join(chars[:half]) + "-" + "".join(chars[half:])


def _normal(password: str) -> str:
    return "".join(ch for ch in password.upper() if ch.isalnum())


def card_password_matches(card: LoginCard, typed: str) -> bool:
    """Whether ``typed`` is the card's password (any case, dashes and spaces ignored)."""
    return constant_time_compare(_normal(typed), _normal(card_password(card)))


def card_token(card: LoginCard) -> str:
    """The QR link's token: the card's number and a MAC only the site can make."""
    mac = salted_hmac("talia.login-card.link", card.secret, algorithm="sha256").hexdigest()[:32]
    return f"{card.pk}-{mac}"


def card_for_token(token: str) -> LoginCard | None:
    """The card whose QR link this is (open or not), or None for a token the site never made."""
    number, _dash, mac = (token or "").partition("-")
    if not number.isascii() or not number.isdigit() or len(number) > 12 or not mac:
        return None
    card = LoginCard.objects.select_related("student", "school_class").filter(pk=int(number)).first()
    if card is None or not constant_time_compare(card_token(card), token):
        return None
    return card


@dataclass(frozen=True)
class PrintedCard:
    """One card as the page and the PDF print it."""

    card: LoginCard
    name: str
    username: str
    password: str
    link: str

    @property
    def expires_at(self) -> Any:
        return self.card.expires_at


def printed_cards(cards: list[LoginCard], *, link_for: Any) -> list[PrintedCard]:
    """The cards with what they print; ``link_for(token)`` makes the QR link's absolute URL."""
    return [
        PrintedCard(
            card=card,
            name=card.student.get_full_name() or card.student.get_username(),
            username=card.student.get_username(),
            password=card_password(card),
            link=link_for(card_token(card)),
        )
        for card in cards
    ]
