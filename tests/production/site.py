"""The running production topology as the tests and benches reach it: its https address,
the CA that signed its certificate, its environment file (for ``manage.py`` commands
against its database) and its logs; and an LMS registered in it.

``.ci/production-up`` writes the variables read here to ``/run/talia/exports.sh``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

CHECKOUT = Path(__file__).resolve().parents[2]


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

    def access_log_mark(self) -> int:
        """Where nginx's access log ends now: ``access_log_lines(since=...)`` reads only what
        comes after (the log outlives a run, and a new database numbers its games from 1 again)."""
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def access_log_lines(
        self, pattern: str, *, at_least: int = 1, wait: float = 15.0, since: int = 0
    ) -> list[str]:
        """nginx's access-log lines after byte ``since`` that match ``pattern``, waiting for
        ``at_least`` of them (nginx logs a WebSocket when it closes)."""
        deadline = time.monotonic() + wait
        while True:
            with self.access_log.open("rb") as log:
                log.seek(since)
                text = log.read().decode("utf-8", errors="replace")
            lines = [x for x in text.splitlines() if re.search(pattern, x)]
            if len(lines) >= at_least or time.monotonic() > deadline:
                return lines
            time.sleep(0.5)


def production_from_environment() -> Production | None:
    """The installation the exports of ``.ci/production-up`` name; None without them."""
    url = os.environ.get("TALIA_PRODUCTION_URL", "").rstrip("/")
    if not url:
        return None
    return Production(
        url=url,
        ca=os.environ["TALIA_PRODUCTION_CA"],
        env=env_file_read(Path(os.environ["TALIA_PRODUCTION_ENV"])),
        admin_password=os.environ.get("TALIA_PRODUCTION_ADMIN_PASSWORD", ""),
        access_log=Path(os.environ.get("TALIA_PRODUCTION_ACCESS_LOG", "/var/log/nginx/talia.access.log")),
        logs=Path(os.environ.get("TALIA_PRODUCTION_LOGS", "/var/log/talia")),
    )


# What an admin enters in the admin's LTI pages for a platform (manual registration).
LMS_REGISTER = """
import json
from lti_tool.models import LtiDeployment, LtiRegistration
from lms.lti.keys import key_signing
given = json.loads({given!r})
registration = LtiRegistration.objects.create(name="Test LMS " + given["client_id"], **given["tool"])
LtiDeployment.objects.create(registration=registration, deployment_id=given["deployment"], is_active=True)
key_signing()
print(json.dumps(registration.pk))
"""


def lms_register(production: Production, platform: Any) -> int:
    """Register the test platform in the production database; give it Talia's JWKS (as an
    LMS admin pastes the tool's key set URL). Returns the registration's id."""
    given = {
        "client_id": platform.client_id,
        "tool": platform.tool_settings,
        "deployment": platform.deployment_id,
    }
    registration = int(production.shell(LMS_REGISTER.format(given=json.dumps(given))))
    jwks = production.session().get(f"{production.url}/lti/jwks/", timeout=30)
    jwks.raise_for_status()
    platform.tool_jwks = jwks.json()
    return registration
