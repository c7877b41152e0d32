"""The periodic sweeps name tasks that exist, so `celery beat` never sends a task nobody runs."""

from django.conf import settings

from config.celery import app


def test_every_scheduled_sweep_is_a_registered_task() -> None:
    app.loader.import_default_modules()
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled == {
        "lms.classes.tasks.assignments_due_sweep_task",
        "lms.lti.tasks.scores_sweep",
        "lms.lti.tasks.progress_columns_sweep",
        "lms.progress.tasks.namings_absorb_sweep_task",
        "content.tasks.jobs_sweep_task",
        "games.quiz.tasks.quizzes_sweep_task",
        "games.tasks.knowledge_balance_sweep_task",
    }
    assert scheduled <= set(app.tasks)
