"""The production path: Talia behind nginx over https, as ``.ci/production-up`` starts it.

The topology is the one ``docs/deploy.md`` describes and ``deploy/`` holds: nginx with TLS
in front of two daphne processes, a Celery worker and beat, PostgreSQL and Redis. The
tests reach it only as a school would, through ``https://talia.example.org`` (trusting the
CA the up script made), and prepare what they need (people, content, an LMS) with
``manage.py`` commands under the production environment file.

Without ``TALIA_PRODUCTION_URL`` the suite is skipped on a laptop; under CI=true it fails,
and so does an address that does not answer anywhere.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import sync_playwright

from tests.e2e.browsing import PageWatch
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHECKOUT = Path(__file__).resolve().parents[2]
HOST = "talia.example.org"


def env_file_read(path: Path) -> dict[str, str]:
    """A systemd ``EnvironmentFile`` of ``KEY=value`` lines (no quoting is used in ours)."""
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


@dataclass
class Production:
    """The running installation: its address, its CA, its environment and its logs."""

    url: str
    ca: str
    env: dict[str, str]
    admin_password: str
    access_log: Path
    logs: Path
    _people: dict[str, tuple[str, str]] = field(default_factory=dict)

    def session(self) -> requests.Session:
        """A client that trusts only the installation's CA."""
        client = requests.Session()
        client.verify = self.ca
        # Otherwise REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE), where set, wins over ``verify``.
        client.trust_env = False
        return client

    def manage(self, *args: str) -> str:
        """``manage.py ARGS`` against the production database, as an operator runs it."""
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", **self.env}
        environment["HOME"] = os.environ.get("HOME", "/root")
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=CHECKOUT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"manage.py {args[0]}: {done.stderr[-3000:]}"
        return done.stdout

    def shell(self, code: str) -> Any:
        """Run ``code`` in ``manage.py shell``; it prints one JSON line last, returned here."""
        out = self.manage("shell", "--no-imports", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def access_log_lines(self, pattern: str, *, at_least: int = 1, wait: float = 15.0) -> list[str]:
        """nginx's access-log lines that match ``pattern``, waiting for ``at_least`` of them
        (nginx logs a WebSocket when it closes)."""
        deadline = time.monotonic() + wait
        while True:
            lines = [x for x in self.access_log.read_text().splitlines() if re.search(pattern, x)]
            if len(lines) >= at_least or time.monotonic() > deadline:
                return lines
            time.sleep(0.5)


@pytest.fixture(scope="session")
def production() -> Production:
    url = os.environ.get("TALIA_PRODUCTION_URL", "").rstrip("/")
    if not url:
        reason = (
            "TALIA_PRODUCTION_URL is not set: start the production topology with .ci/production-up "
            "and load its exports (. /run/talia/exports.sh)."
        )
        if IN_CI:
            pytest.fail(f"{reason} Under CI=true the production suite never skips.", pytrace=False)
        pytest.skip(reason)
    site = Production(
        url=url,
        ca=os.environ["TALIA_PRODUCTION_CA"],
        env=env_file_read(Path(os.environ["TALIA_PRODUCTION_ENV"])),
        admin_password=os.environ.get("TALIA_PRODUCTION_ADMIN_PASSWORD", ""),
        access_log=Path(os.environ.get("TALIA_PRODUCTION_ACCESS_LOG", "/var/log/nginx/talia.access.log")),
        logs=Path(os.environ.get("TALIA_PRODUCTION_LOGS", "/var/log/talia")),
    )
    try:
        answer = site.session().get(f"{url}/healthz", timeout=15)
    except requests.RequestException as exc:
        pytest.fail(f"{url}/healthz is unreachable: {exc}", pytrace=False)
    if answer.status_code != 200:
        pytest.fail(f"{url}/healthz answered {answer.status_code}", pytrace=False)
    return site


# People and the demo content (the shared 57-symbol set), made once per run with the
# services an operator's scripts would call. Names are new each run: the database outlives it.
PEOPLE = """
import json, secrets
from content.demo.loader import demo_content
from lms.services import user_create
tag = secrets.token_hex(3)
made = {}
for key, role in (("teacher", "teacher"), ("ala", "student"), ("kuba", "student")):
    username, password = f"prod-{key}-{tag}", secrets.token_urlsafe(12)
    user = user_create(username=username, password=password, role=role)
    made[key] = [username, password]
    if role == "teacher":
        teacher = user
demo_content(owner=teacher)
print(json.dumps(made))
"""


@dataclass(frozen=True)
class Login:
    username: str
    password: str


@pytest.fixture(scope="session")
def people(production: Production) -> dict[str, Login]:
    return {key: Login(*value) for key, value in production.shell(PEOPLE).items()}


def signed_in(production: Production, login: Login) -> requests.Session:
    """A client signed in through the login form, over https, with the CSRF token as a browser."""
    client = production.session()
    form = client.get(f"{production.url}/accounts/login/", timeout=30)
    assert form.status_code == 200, form.status_code
    answer = client.post(
        f"{production.url}/accounts/login/",
        data={
            "username": login.username,
            "password": login.password,
            "csrfmiddlewaretoken": csrf_of(form.text),
        },
        headers={"Referer": f"{production.url}/accounts/login/", "Origin": production.url},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 302, (answer.status_code, answer.text[:500])
    return client


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page[:500]
    return found.group(1)


# --- Chromium, reaching talia.example.org at 127.0.0.1 ----------------------------------------


class Browsing:
    """Fresh contexts of one chromium on the production address, each page watched for problems."""

    def __init__(self, browser: Any, url: str) -> None:
        self.browser = browser
        self.url = url
        self._contexts: list[Any] = []
        self._watches: dict[int, PageWatch] = {}

    def new_page(self, **options: Any) -> Any:
        settings = {"locale": "en-GB", "viewport": {"width": 1280, "height": 800}, **options}
        context = self.browser.new_context(base_url=self.url, **settings)
        context.set_default_timeout(TIMEOUT_MS)
        self._contexts.append(context)
        page = context.new_page()
        watch = PageWatch(origin=self.url)
        watch.attach(page)
        self._watches[id(page)] = watch
        return page

    def problems(self, page: Any) -> list[str]:
        return self._watches[id(page)].take()

    def close(self) -> list[str]:
        left = [p for watch in self._watches.values() for p in watch.take()]
        for context in self._contexts:
            context.close()
        self._contexts = []
        return left


@pytest.fixture(scope="module")
def chromium(production: Production) -> Iterator[Any]:
    """Chromium resolving the site's name to this machine. The certificate is checked by the
    ``requests`` tests against the CA; chromium, which keeps its own trust store, is told
    to accept it."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        message = f"No chromium at {CHROMIUM}: apt-get install chromium."
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                *CHROMIUM_ARGS,
                f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
                "--ignore-certificate-errors",
            ],
        )
        yield browser
        browser.close()
    finally:
        playwright.stop()


@pytest.fixture
def browsing(chromium: Any, production: Production) -> Iterator[Browsing]:
    session = Browsing(chromium, production.url)
    yield session
    left = session.close()
    if left:
        pytest.fail("The pages reported problems:\n" + "\n".join(left), pytrace=False)
