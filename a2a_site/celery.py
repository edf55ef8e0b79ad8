"""The demo site's Celery app (``celery -A a2a_site worker``).

Configuration comes from Django settings with the ``CELERY_`` prefix. a2a_app itself only
uses ``@shared_task`` and never imports this module.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

app = Celery("a2a_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
