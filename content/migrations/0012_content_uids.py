"""Every piece of authored content gets a stable identifier (``uid``) that a package
(``docs/packages.md``) carries to another Talia, where an import matches it first.

Three steps, so that rows made before keep working: the column is added empty, each
existing row is given a random UUID here, and ``0013_content_uids_unique`` then makes it
required and unique (a separate migration: PostgreSQL refuses to alter a table in the
transaction that updated its rows when triggers are pending).
"""

import uuid

from django.db import migrations, models

MODELS = ("symbol", "symbolset", "activitycard", "knowledgequestion", "knowledgeboard", "knowquestion")


def fill(apps, schema_editor):
    for name in MODELS:
        model = apps.get_model("content", name)
        rows = list(model.objects.filter(uid__isnull=True).only("pk"))
        for row in rows:
            row.uid = uuid.uuid4()
        model.objects.bulk_update(rows, ["uid"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0011_opaque_media_names"),
    ]

    operations = [
        *(
            migrations.AddField(
                model_name=name,
                name="uid",
                field=models.UUIDField(null=True, editable=False, verbose_name="stable identifier"),
            )
            for name in MODELS
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
