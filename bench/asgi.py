"""ASGI entry point of the benchmarked site (uvicorn bench.asgi:application).

The site's own entry point (``a2a_site.asgi``), so the site is served exactly as deployed,
with ``bench.settings`` instead of its settings.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

from a2a_site.asgi import application  # noqa: E402

__all__ = ["application"]
