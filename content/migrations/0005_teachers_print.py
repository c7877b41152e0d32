"""Teachers build ZnajZnak decks and print cards."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

TEACHER_PERMISSIONS = {"deck": ("view", "add", "delete"), "printjob": ("view", "add", "delete")}


def grant(apps, schema_editor):
    app_config = apps.get_app_config("content")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    teachers, _ = Group.objects.get_or_create(name="Teachers")
    codenames = [f"{a}_{m}" for m, actions in TEACHER_PERMISSIONS.items() for a in actions]
    teachers.permissions.add(
        *Permission.objects.filter(content_type__app_label="content", codename__in=codenames)
    )


class Migration(migrations.Migration):
    dependencies = [("content", "0004_decks_and_prints")]

    operations = [migrations.RunPython(grant, migrations.RunPython.noop)]
