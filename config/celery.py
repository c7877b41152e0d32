"""The Celery app.

With ``REDIS_URL`` set, tasks go to Redis and run in worker processes. ``make run`` (the
embedded mode) sets ``CELERY_BROKER_URL=filesystem://`` and runs one worker beside the web
server (``config.embedded``). With no broker at all (a bare ``manage.py runserver``) tasks
run in-process, eagerly.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("talia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
