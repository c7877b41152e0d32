"""The quizzes' stable identifiers, filled by ``0003_quiz_uid``, become required and unique."""

import uuid

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quiz", "0003_quiz_uid"),
    ]

    operations = [
        migrations.AlterField(
            model_name="quiz",
            name="uid",
            field=models.UUIDField(
                default=uuid.uuid4, editable=False, unique=True, verbose_name="stable identifier"
            ),
        ),
    ]
