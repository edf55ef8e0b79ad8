"""The project a2a_app's own tests run against: a2a_app and what it needs, nothing of the
demo restaurant. Deployment settings come from the environment as on a real site
(``DATABASE_URL``, ``CELERY_BROKER_URL``, the ``A2A_*`` knobs the integration tests set).
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
