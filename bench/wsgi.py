"""WSGI entry point of the benchmarked site (gunicorn bench.wsgi:application).

The site's own entry point (``a2a_site.wsgi``), so the site is served exactly as deployed,
with ``bench.settings`` instead of its settings.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

from a2a_site.wsgi import application  # noqa: E402

__all__ = ["application"]
