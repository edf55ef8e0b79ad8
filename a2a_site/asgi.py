"""ASGI entry point of the demo site (uvicorn a2a_site.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

application = get_asgi_application()
