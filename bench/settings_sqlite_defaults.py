"""Talia's settings with Django's SQLite defaults, for ``bench/bench_sqlite.py`` only.

Everything is ``config.settings`` except the database: no ``init_command`` PRAGMAs (so the
rollback journal and ``synchronous=FULL``), Django's default (DEFERRED) transactions and a
new connection per request (``CONN_MAX_AGE=0``). Never use it to serve anyone.
"""

from config.settings import *  # noqa: F403
from config.settings import DATABASES

if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    raise RuntimeError("bench.settings_sqlite_defaults compares SQLite: unset DATABASE_URL.")

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATABASES["default"]["NAME"],
        "CONN_MAX_AGE": 0,
    }
}
