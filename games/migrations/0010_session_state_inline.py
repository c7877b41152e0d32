"""PostgreSQL keeps a running game's state in the session's own row, compressed with lz4.

The live fast path (``games/live.py``) writes the session's ``state`` once per action:
about 9 KB of JSON for a 57-symbol ZnajZnak deck, 4 KB once compressed. With the column's
default storage (``EXTENDED``, pglz) that value went out of the row, to the table's TOAST
relation, so each action also inserted three TOAST rows, deleted the three of the version
before and looked them up to do so (``bench/bench_live_apply.py``). ``MAIN`` keeps it in the
row as long as the row fits a page (a larger state still goes out of it), and lz4
compresses several times faster than pglz. Nothing that reads the column changes.

Only the storage of the column: nothing on SQLite, and where the server has no lz4
(PostgreSQL before 14, or built without it) the column keeps pglz. Values already stored
keep their form until they are written again.
"""

from django.db import DatabaseError, migrations, transaction

TABLE = "games_gamesession"


def _alter(schema_editor, clause):
    schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(TABLE)} ALTER COLUMN state {clause}")


def state_inline(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    _alter(schema_editor, "SET STORAGE MAIN")
    if schema_editor.connection.pg_version < 140000:
        return
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            _alter(schema_editor, "SET COMPRESSION lz4")
    except DatabaseError:  # "compression method lz4 not supported": pglz stays
        pass


def state_toasted(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    _alter(schema_editor, "SET STORAGE EXTENDED")
    if schema_editor.connection.pg_version >= 140000:
        _alter(schema_editor, "SET COMPRESSION DEFAULT")


class Migration(migrations.Migration):
    dependencies = [("games", "0009_join_codes_claim_existing")]

    operations = [migrations.RunPython(state_inline, state_toasted, elidable=False)]
