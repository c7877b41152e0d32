"""Each test worker's PostgreSQL database, cloned from one migrated template.

Django creates a test database and runs every migration into it: about 9 CPU seconds in
the test process (and PostgreSQL's share beside it), once per pytest-xdist worker. Here
the first worker to need a database migrates a template instead, and every worker then
gets its own database as a copy of it (``CREATE DATABASE … TEMPLATE``, under a second).
What a test finds in its database is what the migrations made, as before; the serialized
rows of the transactional tests' rollback are read from each worker's own copy.

- The template's name carries a fingerprint of the code the migrations run (every
  Python and data file of the apps and the settings), so a changed migration, model or
  data file makes a new template; the templates of other fingerprints are dropped then.
- The workers (and any other run against the same database server and name) take turns
  with a PostgreSQL advisory lock, so one migrates while the others wait, none copies a
  template another is still writing, and none drops a template another is copying.
- The migrations run into ``<template>_building``, renamed only when they have all run:
  a run stopped halfway leaves no template to copy, and the next run starts it again.
- ``--reuse-db`` (``keepdb``), a test database with migrations switched off, and every
  database but PostgreSQL take Django's own way.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: What the migrations may read: the apps' code and data, and the settings.
SOURCES = ("config", "content", "games", "lms")
SUFFIXES = frozenset({".py", ".json", ".csv", ".yaml", ".yml", ".txt"})
#: PostgreSQL's longest identifier.
NAME_LIMIT = 63


def fingerprint(root: Path = ROOT) -> str:
    """A hash of every file the migrations may read (``SOURCES``), names and contents."""
    digest = hashlib.sha256()
    for source in SOURCES:
        for path in sorted((root / source).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(b"\0")
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()[:12]


def template_name(database: str, stamp: str) -> str:
    """``test_<database>_tpl_<fingerprint>``, within PostgreSQL's 63 characters."""
    suffix = f"_tpl_{stamp}"
    return f"test_{database}"[: NAME_LIMIT - len(suffix) - len("_building")] + suffix


def _exists(cursor: Any, name: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return cursor.fetchone() is not None


@contextmanager
def _turn(creation: Any, key: str) -> Iterator[Any]:
    """A cursor on the server's maintenance database, holding the lock for ``key``."""
    with creation._nodb_cursor() as cursor:
        lock = zlib.crc32(key.encode())
        cursor.execute("SELECT pg_advisory_lock(%s)", [lock])
        try:
            yield cursor
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [lock])


def _let_go(connection: Any) -> None:
    """Close this process's connections to the database, the pool's too: PostgreSQL copies
    or renames a database only when no one is connected to it."""
    connection.close()
    close_pool = getattr(connection, "close_pool", None)
    if close_pool is not None:
        close_pool()


def _drop_others(cursor: Any, quote: Callable[[str], str], prefix: str, keep: str) -> None:
    """Templates of other fingerprints: dropped where no other run still copies them."""
    cursor.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
        [prefix.replace("_", r"\_") + "%", keep],
    )
    for (name,) in cursor.fetchall():
        try:
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(name)}")
        except Exception:  # in use by a run of other code: that run's own to keep
            continue


def create_test_db(
    original: Callable[..., str],
    creation: Any,
    verbosity: int = 1,
    autoclobber: bool = False,
    serialize: bool = True,
    keepdb: bool = False,
) -> str:
    """``BaseDatabaseCreation.create_test_db``, with the migrations run once per fingerprint."""
    from django.conf import settings
    from django.core.management import call_command

    connection = creation.connection
    test = connection.settings_dict["TEST"]
    if connection.vendor != "postgresql" or keepdb or test.get("MIGRATE") is False:
        return original(
            creation, verbosity=verbosity, autoclobber=autoclobber, serialize=serialize, keepdb=keepdb
        )

    quote = connection.ops.quote_name
    test_name = creation._get_test_db_name()
    stamp = fingerprint()
    template = template_name(connection.settings_dict["NAME"], stamp)
    building = f"{template}_building"
    templates = template[: -len(stamp)]  # every fingerprint's: one lock for them all
    with _turn(creation, templates) as cursor:
        if not _exists(cursor, template):
            _drop_others(cursor, quote, templates, keep=template)
            if verbosity >= 1:
                creation.log(f"Migrating the template test database {template}...")
            given = test.get("NAME")
            test["NAME"] = building
            try:
                original(creation, verbosity=verbosity, autoclobber=True, serialize=False, keepdb=False)
            finally:
                test["NAME"] = given
                _let_go(connection)
            cursor.execute(f"ALTER DATABASE {quote(building)} RENAME TO {quote(template)}")
        if verbosity >= 1:
            creation.log(f"Copying the template test database {template} to {test_name}...")
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(test_name)}")
        cursor.execute(f"CREATE DATABASE {quote(test_name)} TEMPLATE {quote(template)}")

    # As Django's create_test_db goes on after its migrations.
    _let_go(connection)
    settings.DATABASES[connection.alias]["NAME"] = test_name
    connection.settings_dict["NAME"] = test_name
    if serialize:
        connection._test_serialized_contents = creation.serialize_db_to_string()
    call_command("createcachetable", database=connection.alias)
    connection.ensure_connection()
    return test_name


def install() -> None:
    """Every test database Django creates goes through :func:`create_test_db`."""
    from django.db.backends.base.creation import BaseDatabaseCreation

    original = BaseDatabaseCreation.create_test_db

    def create(
        self: Any, verbosity: int = 1, autoclobber: bool = False, serialize: bool = True, keepdb: bool = False
    ) -> str:
        return create_test_db(original, self, verbosity, autoclobber, serialize, keepdb)

    BaseDatabaseCreation.create_test_db = create  # type: ignore[method-assign]
