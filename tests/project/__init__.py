"""A minimal Django project with a2a_app and nothing of the demo: no Celery app, no demo
skills. Tests run commands against it in a subprocess (``settings`` below)."""
