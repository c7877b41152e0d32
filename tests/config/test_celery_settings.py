"""Celery settings that keep background work from being lost or run twice (config/settings.py)."""

from __future__ import annotations

from django.conf import settings

from config.celery import app
from lms.lti import scores


def test_every_task_has_time_limits():
    app.loader.import_default_modules()
    assert app.conf.task_soft_time_limit and app.conf.task_time_limit
    assert app.conf.task_soft_time_limit < app.conf.task_time_limit
    for name, task in app.tasks.items():
        if name.startswith("celery."):
            continue
        soft = task.soft_time_limit or app.conf.task_soft_time_limit
        hard = task.time_limit or app.conf.task_time_limit
        assert soft < hard, name


def test_the_visibility_timeout_outlasts_every_eta_and_countdown():
    """A task waiting longer than the timeout is handed out again while it waits (runs twice)."""
    timeout = settings.CELERY_VISIBILITY_TIMEOUT
    longest_score_retry = scores.MAX_DELAY * 1.2  # retry_delay's jitter
    assert timeout > longest_score_retry
    assert timeout > settings.TASK_ETA_MAX_SECONDS
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert app.conf.broker_transport_options["visibility_timeout"] == timeout


def test_the_sweeps_are_scheduled_and_exist():
    app.loader.import_default_modules()
    schedule = settings.CELERY_BEAT_SCHEDULE
    for name in ("jobs-sweep", "quizzes-sweep", "knowledge-balance-sweep"):
        assert schedule[name]["task"] in app.tasks
        # Often enough that a lost job is reported within a few minutes of going stale.
        assert schedule[name]["schedule"] <= settings.JOBS_STALE_SECONDS / 2


def test_a_job_goes_stale_only_after_many_missed_heartbeats():
    assert settings.JOBS_STALE_SECONDS >= 5 * settings.JOBS_HEARTBEAT_SECONDS


def test_heavy_work_is_not_handed_out_again_when_its_worker_dies():
    """A deck that ran a worker out of memory would kill the next one too."""
    app.loader.import_default_modules()
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is False
    for name in (
        "content.tasks_print.deck_build_task",
        "content.tasks_print.print_job_run_task",
        "content.tasks.import_job_apply_task",
        "games.quiz.tasks.quiz_generate_task",
    ):
        assert not app.tasks[name].reject_on_worker_lost, name
    assert app.tasks["games.tasks.session_time_up_task"].reject_on_worker_lost
