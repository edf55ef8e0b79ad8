"""ASGI entry point of the benchmarked site (uvicorn bench.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

application = get_asgi_application()
