"""The demo users (a teacher and two students); safe to run again (nothing is duplicated).

Their passwords are random, kept in ``var/demo-logins.json`` so they stay the same from run
to run. The demo content they use is :mod:`content.demo.loader`'s.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from lms.models import Role, User
from lms.services import user_create

USERS = [
    ("nauczyciel", Role.TEACHER, "Anna", "Nowak"),
    ("uczen1", Role.STUDENT, "Jan", "Kowalski"),
    ("uczen2", Role.STUDENT, "Maria", "Wiśniewska"),
]


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


def _demo_password(username: str) -> str:
    """A random password per demo user, kept in var/ so it is the same every run."""
    path = Path(settings.VAR_DIR) / "demo-logins.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    if username not in known:
        known[username] = secrets.token_urlsafe(8)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(known, indent=2))
        path.chmod(0o600)
    return known[username]


def demo_users() -> list[DemoLogin]:
    logins = []
    for username, role, first, last in USERS:
        password = _demo_password(username)
        user = User.objects.filter(username=username).first()
        if user is None:
            user_create(username=username, password=password, role=role, first_name=first, last_name=last)
        elif not user.check_password(password):
            user.set_password(password)
            user.save(update_fields=["password"])
        logins.append(DemoLogin(username, password, role))
    return logins
