"""A new site, as its owner starts it: a2a_app installed, no Celery app, no skills.
Tests run ``manage.py`` commands against it in a subprocess (``settings`` below)."""
