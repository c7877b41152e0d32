"""Claim the codes of what is open today in the one code space (``games.JoinCode``).

Every open game session (not finished), every practice and every quiz (their links are
handed out for good) and every workshop not closed claims its code; the classes follow in
``lms`` 0007. Codes were unique within each kind but not between kinds (a workshop could
hold an open session's code). Where two objects hold the same code, the oldest object
(by ``created``) keeps it and each later one gets a fresh code, written to its own column
(``join_code`` or ``code``): its new code shows on its pages, and the old printed code
opens the oldest object. Going back deletes the claims.
"""

from django.db import migrations

from ._code_space import claims_make


def claim_existing(apps, schema_editor):
    game_session = apps.get_model("games", "GameSession")
    practice = apps.get_model("games", "PracticeAssignment")
    quiz = apps.get_model("quiz", "Quiz")
    workshop = apps.get_model("workshop", "Workshop")
    rows = [("session", s) for s in game_session.objects.exclude(status="finished")]
    rows += [("practice", p) for p in practice.objects.all()]
    rows += [("quiz", q) for q in quiz.objects.all()]
    rows += [("workshop", w) for w in workshop.objects.exclude(status="closed")]
    claims_make(apps, rows)


def claims_forget(apps, schema_editor):
    apps.get_model("games", "JoinCode").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_join_code_space"),
        ("quiz", "0007_quiz_code_from_code_space"),
        ("workshop", "0002_workshop_code_from_code_space"),
    ]

    operations = [migrations.RunPython(claim_existing, claims_forget)]
