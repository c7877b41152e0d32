"""Classes take their codes from the one code space (``games.JoinCode``).

The constraint "one code per active class" goes: the code space's constraint says it for
every kind at once. Every class not archived claims its code, after the games' claims
(games 0009). Where a class and something else (an open session, a practice, a quiz, a
workshop) hold the same code, the older of the two (by ``created``) keeps it and the
younger gets a fresh code, written to its own column: its pages show the new code, and
the old printed code opens the older one. Going back deletes the classes' claims.
"""

from django.db import migrations

from games.migrations._code_space import claims_make


def claim_existing(apps, schema_editor):
    school_class = apps.get_model("lms", "SchoolClass")
    claims_make(apps, [("class", c) for c in school_class.objects.filter(archived=False)])


def claims_forget(apps, schema_editor):
    apps.get_model("games", "JoinCode").objects.filter(kind="class").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("lms", "0006_student_accounts_login_cards_handover"),
        ("games", "0009_join_codes_claim_existing"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="schoolclass",
            name="lms_class_join_code_unique_while_active",
        ),
        migrations.RunPython(claim_existing, claims_forget),
    ]
