"""The Celery app.

With ``REDIS_URL`` set, tasks go to Redis and run in worker processes. Without it
(the embedded default) tasks run in-process, eagerly, so a laptop needs no broker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("talia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
