"""Reading one request header without Django's ``request.headers``.

``request.headers`` copies every header of the request into a new mapping on first use
(a Python call per header); the bindings read three or four headers of a request, so
they read ``request.META`` where the server put each one, as Django's own middleware do.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=64)
def meta_key(name: str) -> str:
    """``"A2A-Version"`` -> ``"HTTP_A2A_VERSION"``: where WSGI and ASGI put the header."""
    return "HTTP_" + name.upper().replace("-", "_")


def header(request: Any, name: str, default: str | None = None) -> str | None:
    """The value of request header ``name`` (any case), or ``default``; ``request`` is a
    Django or DRF request."""
    return request.META.get(meta_key(name), default)
