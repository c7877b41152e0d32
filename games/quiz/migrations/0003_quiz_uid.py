"""Every quiz gets a stable identifier (``uid``) that a package (``docs/packages.md``)
carries to another Talia. Added empty, filled for the quizzes made before, then made
required and unique in ``0004_quiz_uid_unique`` (see ``content.0012_content_uids``)."""

import uuid

from django.db import migrations, models


def fill(apps, schema_editor):
    Quiz = apps.get_model("quiz", "Quiz")
    rows = list(Quiz.objects.filter(uid__isnull=True).only("pk"))
    for row in rows:
        row.uid = uuid.uuid4()
    Quiz.objects.bulk_update(rows, ["uid"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("quiz", "0002_review_source"),
    ]

    operations = [
        migrations.AddField(
            model_name="quiz",
            name="uid",
            field=models.UUIDField(null=True, editable=False, verbose_name="stable identifier"),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
