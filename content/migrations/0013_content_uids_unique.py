"""The content's stable identifiers, filled by ``0012_content_uids``, become required and unique."""

import uuid

from django.db import migrations, models

MODELS = ("symbol", "symbolset", "activitycard", "knowledgequestion", "knowledgeboard", "knowquestion")


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0012_content_uids"),
    ]

    operations = [
        migrations.AlterField(
            model_name=name,
            name="uid",
            field=models.UUIDField(
                default=uuid.uuid4,
                editable=False,
                help_text="The same in every Talia this content is exported to.",
                unique=True,
                verbose_name="stable identifier",
            ),
        )
        for name in MODELS
    ]
