"""WSGI entry point of the demo site (gunicorn a2a_site.wsgi).

Static files (the admin's CSS) are served by Django's handler for ``STATIC_URL`` only.
"""

import os

from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

application = StaticFilesHandler(get_wsgi_application())
