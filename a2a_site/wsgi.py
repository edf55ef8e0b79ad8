"""WSGI entry point of the demo site (gunicorn a2a_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

application = get_wsgi_application()
