from django.db import migrations, models


def kinds_fill(apps, schema_editor):
    """Sessions made before the field: their kind from the rows that point at them."""
    GameSession = apps.get_model("games", "GameSession")
    GameSession.objects.filter(class_run__isnull=False).update(kind="class_lobby")
    GameSession.objects.filter(class_duel__isnull=False).update(kind="class_duel")
    GameSession.objects.filter(practice__isnull=False).update(kind="practice")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_session_time_up_at_participant_age_rank"),
    ]

    operations = [
        migrations.AddField(
            model_name="gamesession",
            name="kind",
            field=models.CharField(
                choices=[
                    ("game", "A game of its own"),
                    ("class_lobby", "The lobby of class duels"),
                    ("class_duel", "A duel of class duels"),
                    ("practice", "Practice alone"),
                ],
                default="game",
                editable=False,
                max_length=12,
                verbose_name="kind",
            ),
        ),
        migrations.RunPython(kinds_fill, migrations.RunPython.noop),
    ]
