"""The demo site's Celery app (``celery -A a2a_site worker``).

Configuration comes from Django settings with the ``CELERY_`` prefix. a2a_app itself only
uses ``@shared_task`` and never imports this module.
"""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

app = Celery("a2a_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_postrun.connect
def _release_database_connections(task: Any = None, **kwargs: Any) -> None:
    if task is None or getattr(task.request, "is_eager", False):
        return  # run inline, inside the caller's request and transaction
    # Back to the pool (or closed when unusable or older than CONN_MAX_AGE), as Django does
    # after a request; the pool itself stays open (see CELERY_DB_REUSE_MAX in settings).
    from django.db import close_old_connections

    close_old_connections()
