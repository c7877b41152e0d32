"""The settings' promises: tuned SQLite, a deploy check that passes (and can fail), cookies
that work in an LMS frame over HTTPS, Celery without a broker, and the embedded secret key.

Settings are read once, at import, from the environment, so most of these start a fresh
Python in a subprocess with exactly the environment they describe: they run the same on a
laptop (SQLite, no Redis) and in CI (PostgreSQL and Redis in the environment).
"""

from __future__ import annotations

import json
import re
import secrets
import stat
import subprocess
import sys
from pathlib import Path

from config.environment import SETTINGS_VARIABLES, environment_without_settings
from tests.config.embedded_run import migrate

ROOT = Path(__file__).resolve().parents[2]


def _env(var_dir: Path, **variables: str) -> dict[str, str]:
    env = environment_without_settings()
    env.update(DJANGO_SETTINGS_MODULE="config.settings", TALIA_VAR_DIR=str(var_dir))
    env.update(variables)
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )


def _python(code: str, env: dict[str, str]) -> dict:
    """Run ``code`` after ``django.setup()``; it prints one JSON line starting with ``OUT ``."""
    done = _run(["-c", "import django\ndjango.setup()\n" + code], env)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("OUT "))
    return json.loads(line.removeprefix("OUT "))


def _production(var_dir: Path, **variables: str) -> dict[str, str]:
    """The environment of .ci/run's deploy check."""
    production = {
        "DEBUG": "false",
        "HTTPS": "true",
        "SECRET_KEY": secrets.token_urlsafe(48),  # 64 characters
        "ALLOWED_HOSTS": "talia.example.org",
    }
    return _env(var_dir, **{**production, **variables})


# --- SQLite tuned for a web server --------------------------------------------------------

SQLITE_PRAGMAS = """
import json, sqlite3
from django.conf import settings
from django.db import connection, transaction

with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    journal_mode = cursor.fetchone()[0]
    cursor.execute("PRAGMA synchronous")
    synchronous = cursor.fetchone()[0]

# IMMEDIATE: entering a transaction takes the write lock before anything is written, so
# another connection cannot start writing (timeout=0: answer at once, do not wait).
with transaction.atomic():
    other = sqlite3.connect(settings.DATABASES["default"]["NAME"], timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.rollback()
        write_locked = False
    except sqlite3.OperationalError as error:
        write_locked = "locked" in str(error)
    other.close()

print("OUT " + json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "name": str(settings.DATABASES["default"]["NAME"]),
    "journal_mode": journal_mode,
    "synchronous": synchronous,
    "transaction_mode": connection.transaction_mode,
    "conn_max_age": settings.DATABASES["default"]["CONN_MAX_AGE"],
    "write_locked": write_locked,
}))
"""


def test_default_database_is_sqlite_tuned_for_a_web_server(tmp_path):
    """No DATABASE_URL: a fresh SQLite file in TALIA_VAR_DIR, in WAL with NORMAL sync,
    IMMEDIATE transactions and persistent connections. Runs everywhere, CI included."""
    var_dir = tmp_path / "var"
    out = _python(SQLITE_PRAGMAS, _env(var_dir))

    assert out["engine"] == "django.db.backends.sqlite3"
    assert Path(out["name"]) == var_dir / "talia.sqlite3"
    assert out["journal_mode"] == "wal"
    assert out["synchronous"] == 1  # NORMAL
    assert out["transaction_mode"] == "IMMEDIATE"
    assert out["write_locked"] is True
    assert out["conn_max_age"] is None


# --- manage.py check --deploy ---------------------------------------------------------------


def test_deploy_check_passes_with_production_settings(tmp_path):
    done = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        _production(tmp_path / "var"),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_deploy_check_fails_with_debug_on(tmp_path):
    """The same check exits non-zero when something is wrong: it can fail."""
    done = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        _production(tmp_path / "var", DEBUG="true"),
    )
    assert done.returncode != 0
    assert "security.W018" in done.stdout + done.stderr  # "DEBUG set to True"


# --- HTTPS ----------------------------------------------------------------------------------

HTTPS_RESPONSES = """
import json
from django.conf import settings
from django.core.management import call_command
from django.test import Client

call_command("migrate", verbosity=0)
from lms.models import User
User.objects.create_user("reader", password="a-long-pass-phrase")

https = Client(headers={"X-Forwarded-Proto": "https"})
login_page = https.get("/accounts/login/")
signed_in = https.post(
    "/accounts/login/", {"username": "reader", "password": "a-long-pass-phrase"}
)
plain = Client().get("/accounts/login/")


def cookie(response, name):
    morsel = response.cookies[name]
    return {"secure": bool(morsel["secure"]), "samesite": morsel["samesite"]}


print("OUT " + json.dumps({
    "settings": {
        "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
        "SESSION_COOKIE_SAMESITE": settings.SESSION_COOKIE_SAMESITE,
        "CSRF_COOKIE_SECURE": settings.CSRF_COOKIE_SECURE,
        "CSRF_COOKIE_SAMESITE": settings.CSRF_COOKIE_SAMESITE,
    },
    "login_page": login_page.status_code,
    "signed_in": signed_in.status_code,
    "csrf_cookie": cookie(login_page, settings.CSRF_COOKIE_NAME),
    "session_cookie": cookie(signed_in, settings.SESSION_COOKIE_NAME),
    "hsts": login_page.headers.get("Strict-Transport-Security"),
    "plain_http": [plain.status_code, plain.headers.get("Location")],
}))
"""


def test_https_makes_cookies_secure_and_same_site_none(tmp_path):
    """Behind a TLS proxy (HTTPS=true) the session and CSRF cookies are Secure and
    SameSite=None, so the browser sends them when Talia runs inside an LMS's frame."""
    migrate(tmp_path / "var")  # the run's migrated SQLite database; its migrate finds nothing to do
    env = _production(
        tmp_path / "var",
        ALLOWED_HOSTS="testserver",
        # The pages need static URLs, not collectstatic's manifest, which is not tested here.
        STATICFILES_STORAGE="django.contrib.staticfiles.storage.StaticFilesStorage",
    )
    out = _python(HTTPS_RESPONSES, env)

    assert out["settings"] == {
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_SAMESITE": "None",
        "CSRF_COOKIE_SECURE": True,
        "CSRF_COOKIE_SAMESITE": "None",
    }
    assert out["login_page"] == 200
    assert out["signed_in"] == 302
    assert out["csrf_cookie"] == {"secure": True, "samesite": "None"}
    assert out["session_cookie"] == {"secure": True, "samesite": "None"}
    assert out["hsts"].startswith("max-age=31536000; includeSubDomains")
    assert out["plain_http"] == [301, "https://testserver/accounts/login/"]


# --- Celery -----------------------------------------------------------------------------------

CELERY_MODE = """
import json
from config.celery import app

@app.task
def add(x, y):
    return x + y

out = {"eager": app.conf.task_always_eager, "broker": app.conf.broker_url}
if app.conf.task_always_eager:
    out["result"] = add.delay(2, 3).get(timeout=5)
print("OUT " + json.dumps(out))
"""


def test_without_redis_celery_runs_tasks_in_process(tmp_path):
    out = _python(CELERY_MODE, _env(tmp_path / "var"))
    assert out == {"eager": True, "broker": "memory://", "result": 5}


def test_with_redis_celery_sends_tasks_to_the_broker(tmp_path):
    """Only reads the configuration: nothing connects to this address."""
    out = _python(CELERY_MODE, _env(tmp_path / "var", REDIS_URL="redis://127.0.0.1:1/0"))
    assert out == {"eager": False, "broker": "redis://127.0.0.1:1/0"}


# --- The embedded secret key ------------------------------------------------------------------

SECRET_KEY = """
import json
from django.conf import settings
print("OUT " + json.dumps({"key": settings.SECRET_KEY}))
"""


def test_embedded_secret_key_is_private_and_kept(tmp_path):
    var_dir = tmp_path / "var"
    key_file = var_dir / "secret_key"
    assert not key_file.exists()

    first = _python(SECRET_KEY, _env(var_dir))["key"]

    assert key_file.read_text().strip() == first
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(first) >= 50
    second = _python(SECRET_KEY, _env(var_dir))["key"]
    assert second == first
    assert _python(SECRET_KEY, _env(tmp_path / "other"))["key"] != first


def test_secret_key_from_the_environment_wins(tmp_path):
    var_dir = tmp_path / "var"
    key = secrets.token_urlsafe(48)
    assert _python(SECRET_KEY, _env(var_dir, SECRET_KEY=key))["key"] == key
    assert not (var_dir / "secret_key").exists()


def test_every_variable_the_settings_read_is_listed_for_stripping():
    source = (ROOT / "config" / "settings.py").read_text()
    read = set(re.findall(r'env\.\w+\(\s*"([A-Z_]+)"', source))
    assert read, "the pattern no longer finds the settings' reads"
    assert read <= set(SETTINGS_VARIABLES), read - set(SETTINGS_VARIABLES)
