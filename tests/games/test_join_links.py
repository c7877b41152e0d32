"""Join links and QR codes name the address the teacher's browser used.

With ``make run HOST=0.0.0.0`` the teacher opens Talia at the machine's network address
(``config.embedded`` prints it); the projector's QR code must send phones there, not to
the loopback address the server also answers on.
"""

from __future__ import annotations

import re

import pytest
import segno
from django.urls import reverse

from tests.games.test_classroom import class_with
from tests.games.test_sessions import create_session, signed_in

pytestmark = pytest.mark.django_db

LAN_HOST = "192.168.1.23:8000"


def qr_modules(svg: str) -> str:
    """The drawn modules of an inline QR code (its path), whatever its title says."""
    match = re.search(r'<path[^>]* d="([^"]+)"', svg)
    assert match, svg[:200]
    return match.group(1)


@pytest.fixture
def lan_allowed(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "192.168.1.23"]


@pytest.mark.parametrize("host", [LAN_HOST, "127.0.0.1:8000"])
def test_a_lobbys_join_link_and_qr_code_follow_the_host_the_teacher_opened(teacher, lan_allowed, host):
    session = create_session(teacher)

    response = signed_in(teacher).get(reverse("games:session", args=[session.pk]), HTTP_HOST=host)

    expected = f"http://{host}{reverse('games:join_code', args=[session.join_code])}"
    assert response.status_code == 200
    assert response.context["join_url"] == expected
    assert expected in response.content.decode()
    assert qr_modules(response.context["join_qr"]) == qr_modules(
        segno.make(expected, error="m").svg_inline(scale=8, border=2)
    )


def test_a_class_lobbys_qr_code_follows_the_host_too(teacher, lan_allowed):
    run, _students = class_with(teacher, 2)

    response = signed_in(teacher).get(reverse("games:session", args=[run.lobby_id]), HTTP_HOST=LAN_HOST)

    assert response.context["join_url"].startswith(f"http://{LAN_HOST}/")
    assert qr_modules(response.context["join_qr"]) == qr_modules(
        segno.make(response.context["join_url"], error="m").svg_inline(scale=8, border=2)
    )


def test_a_host_the_server_was_not_told_about_is_refused(teacher):
    session = create_session(teacher)

    response = signed_in(teacher).get(reverse("games:session", args=[session.pk]), HTTP_HOST=LAN_HOST)

    assert response.status_code == 400  # loopback only unless make run was asked to serve the network
