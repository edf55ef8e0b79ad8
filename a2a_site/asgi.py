"""ASGI entry point of the demo site (uvicorn a2a_site.asgi:application).

Static files (the admin's CSS) are served by Django's handler for ``STATIC_URL`` only;
every other request goes to a2a_app's ASGI handler: Django's, with the sync middleware
chain and view entered in one thread hop on a reused thread (see ``a2a_app.asgi``).
"""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from a2a_app.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "a2a_site.settings")

application = ASGIStaticFilesHandler(get_asgi_application())
