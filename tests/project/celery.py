"""The test project's Celery app (``celery -A tests.project worker``), as a site makes one."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.project.settings")

app = Celery("tests.project")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
