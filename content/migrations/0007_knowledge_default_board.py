"""Ship Talia's default Knowledge? board (games.engines.knowledge_board.DEFAULT_BOARD), published,
and let teachers author boards like the other content (content/permissions.py).

The spaces are written out here, so later changes to the engine's constant do not change
what this migration created.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

TEACHER_PERMISSIONS = ("view", "add", "change", "delete")

NAME = "Talia default board"
SPACES = [
    None,
    {"colour": "green", "letter": "B"},
    {"colour": "yellow", "letter": "C"},
    {"colour": "red", "letter": "E"},
    {"colour": "blue", "letter": "A"},
    {"colour": "white", "letter": "D"},
    {"colour": "yellow", "letter": "B"},
    {"colour": "green", "letter": "E"},
    {"colour": "white", "letter": "C"},
    {"colour": "red", "letter": "A"},
    {"colour": "blue", "letter": "D"},
    {"colour": "yellow", "letter": "E"},
    {"colour": "green", "letter": "B"},
    {"colour": "white", "letter": "C"},
    {"colour": "red", "letter": "A"},
    {"colour": "blue", "letter": "B"},
    {"colour": "yellow", "letter": "D"},
    {"colour": "green", "letter": "E"},
    {"colour": "blue", "letter": "C"},
    {"colour": "white", "letter": "A"},
    {"colour": "red", "letter": "B"},
    {"colour": "yellow", "letter": "A"},
    {"colour": "green", "letter": "D"},
    {"colour": "red", "letter": "E"},
    {"colour": "blue", "letter": "C"},
    {"colour": "white", "letter": "B"},
    {"colour": "red", "letter": "D"},
    {"colour": "yellow", "letter": "A"},
    {"colour": "green", "letter": "C"},
    {"colour": "blue", "letter": "E"},
    {"colour": "white", "letter": "D"},
    {"colour": "yellow", "letter": "B"},
    {"colour": "red", "letter": "C"},
    {"colour": "green", "letter": "A"},
    {"colour": "blue", "letter": "D"},
    {"colour": "white", "letter": "E"},
    {"colour": "green", "letter": "B"},
    {"colour": "yellow", "letter": "C"},
    {"colour": "red", "letter": "E"},
    {"colour": "blue", "letter": "A"},
    {"colour": "white", "letter": "D"},
]


def create_default_board(apps, schema_editor):
    KnowledgeBoard = apps.get_model("content", "KnowledgeBoard")
    if KnowledgeBoard.objects.filter(name=NAME, owner__isnull=True).exists():
        return
    KnowledgeBoard.objects.create(
        name=NAME,
        description=(
            "41 spaces; the finish shows neither colour nor letter; every colour and every letter "
            "occurs eight times, so a letter or colour move is at most 6 spaces (3.2 on average)."
        ),
        spaces=SPACES,
        finish=0,
        opponent_start=7,
        opponent_start_hard=17,
        status="published",
    )


def grant(apps, schema_editor):
    app_config = apps.get_app_config("content")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    teachers, _ = Group.objects.get_or_create(name="Teachers")
    codenames = [f"{action}_knowledgeboard" for action in TEACHER_PERMISSIONS]
    teachers.permissions.add(
        *Permission.objects.filter(content_type__app_label="content", codename__in=codenames)
    )


def remove_default_board(apps, schema_editor):
    apps.get_model("content", "KnowledgeBoard").objects.filter(name=NAME, owner__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("content", "0006_knowledge_board")]

    operations = [
        migrations.RunPython(grant, migrations.RunPython.noop),
        migrations.RunPython(create_default_board, remove_default_board),
    ]
