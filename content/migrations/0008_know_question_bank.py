"""The Know question bank (content.KnowQuestion); teachers keep, view, change and delete their
questions like the other content (content/permissions.py)."""

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models


def grant(apps, schema_editor):
    app_config = apps.get_app_config("content")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    teachers, _ = Group.objects.get_or_create(name="Teachers")
    codenames = [f"{action}_knowquestion" for action in ("view", "add", "change", "delete")]
    teachers.permissions.add(
        *Permission.objects.filter(content_type__app_label="content", codename__in=codenames)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0007_knowledge_default_board"),
        ("games", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="KnowQuestion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True, verbose_name="created")),
                ("updated", models.DateTimeField(auto_now=True, verbose_name="updated")),
                ("text", models.TextField(max_length=500, verbose_name="question")),
                (
                    "answers",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="The best-marked answers, one per line in the admin; any of them is right.",
                        verbose_name="accepted answers",
                    ),
                ),
                (
                    "source",
                    models.CharField(blank=True, max_length=300, verbose_name="agreed source of answers"),
                ),
                (
                    "language",
                    models.CharField(
                        choices=[("pl", "Polish"), ("en", "English"), ("cs", "Czech"), ("de", "German")],
                        default="pl",
                        max_length=5,
                        verbose_name="language",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("draft", "Draft"), ("published", "Published")],
                        default="draft",
                        max_length=12,
                        verbose_name="status",
                    ),
                ),
                (
                    "question_number",
                    models.PositiveSmallIntegerField(
                        blank=True, null=True, verbose_name="Question Number in that game"
                    ),
                ),
                (
                    "created_from",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="games.gamesession",
                        verbose_name="kept from game",
                    ),
                ),
                (
                    "editors",
                    models.ManyToManyField(
                        blank=True,
                        help_text="Teachers granted the right to edit this besides its owner.",
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="editors",
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        help_text="Who authored this. Leave empty for content of the shared library.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="owner",
                    ),
                ),
                (
                    "tags",
                    models.ManyToManyField(
                        blank=True, related_name="+", to="content.tag", verbose_name="tags"
                    ),
                ),
            ],
            options={
                "verbose_name": "Know question",
                "verbose_name_plural": "Know questions",
                "ordering": ["-created", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("created_from__isnull", False)),
                        fields=("created_from", "question_number"),
                        name="content_knowquestion_once_per_game",
                    )
                ],
            },
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
