"""Files stored before private media keep names anyone could guess; ``manage.py
media_rename_old`` moves them (``games.media_rename``, docs/deploy.md).

This migration moved them once, inside the migration's transaction: an old file was
deleted before its row's new name was committed, and a deck's picture copies (named in
its snapshot) were left behind while the game sessions' copies of their names were
rewritten. It does nothing now; the command does the work a batch at a time, deletes an
old file only once its rows name the new one, and repairs what this migration left.
"""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0010_import_job_started"),
        ("games", "0005_session_live_processes"),
        ("quiz", "0002_review_source"),
    ]

    operations = [migrations.RunPython(migrations.RunPython.noop, migrations.RunPython.noop, elidable=True)]
