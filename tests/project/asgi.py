"""ASGI entry point of the test project (``uvicorn tests.project.asgi:application``).

Static files (the admin's, the agent page's script) are served by Django's handler for
``STATIC_URL``, as on the demo site; everything else goes to a2a_app's ASGI handler.
"""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from a2a_app.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.project.settings")

application = ASGIStaticFilesHandler(get_asgi_application())
