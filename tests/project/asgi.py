"""ASGI entry point of the test project (``uvicorn tests.project.asgi:application``)."""

import os

from a2a_app.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.project.settings")

application = get_asgi_application()
