"""ASGI entry point of the demo site (uvicorn a2a_site.asgi:application).

Static files (the admin's CSS) are served by Django's handler for ``STATIC_URL`` only;
every other request goes straight to Django.
"""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

application = ASGIStaticFilesHandler(get_asgi_application())
