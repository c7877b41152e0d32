"""Seed the three chronological markings of ZnajZnak and the Teachers group.

The period colours follow the chapters of "Od niepodległości do niepodległości" as
closely as the rulebook tells; curators may change them in the admin.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

PERIODS = [
    # slug, name, start, end, printed years, colour, position
    ("ii-rp", "II RP", 1918, 1939, "1918–1939", "#2e6db4", 1),
    ("ii-wojna-swiatowa", "II wojna światowa", 1939, 1945, "1939–1945", "#b3262d", 2),
    ("prl", "PRL", 1944, 1989, "1944/45–1989", "#3f8a3c", 3),
]

# What a teacher may do in the admin; the rows they may touch are narrowed per object
# in content/permissions.py.
TEACHER_PERMISSIONS = {
    # Reference data is shared by everyone: teachers add to it, admins change it.
    "period": ("view",),
    "theme": ("view", "add"),
    "tag": ("view", "add"),
    "collection": ("view", "add"),
    "symbol": ("view", "add", "change", "delete"),
    "symbolset": ("view", "add", "change", "delete"),
    "symbolsetmember": ("view", "add", "change", "delete"),
    "activitycard": ("view", "add", "change", "delete"),
    "activityterm": ("view", "add", "change", "delete"),
    "knowledgequestion": ("view", "add", "change", "delete"),
    "importjob": ("view",),
}


def seed(apps, schema_editor):
    Period = apps.get_model("content", "Period")
    for slug, name, start, end, label, colour, position in PERIODS:
        Period.objects.update_or_create(
            slug=slug,
            defaults={"name": name, "start_year": start, "end_year": end, "label": label,
                      "colour": colour, "position": position},
        )
    # Permissions are normally created after all migrations; the group needs them now.
    app_config = apps.get_app_config("content")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    teachers, _ = Group.objects.get_or_create(name="Teachers")
    codenames = [f"{action}_{model}" for model, actions in TEACHER_PERMISSIONS.items()
                 for action in actions]
    teachers.permissions.set(
        Permission.objects.filter(content_type__app_label="content", codename__in=codenames)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0002_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
