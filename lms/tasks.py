"""Celery tasks of the lms app, found by Celery's autodiscovery (``<app>.tasks``)."""

from lms.classes.tasks import assignment_due_grade_task, assignments_due_sweep_task

__all__ = ["assignment_due_grade_task", "assignments_due_sweep_task"]
