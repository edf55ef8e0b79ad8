"""A Django ASGI handler that serves sync views in one thread hop, on reused threads.

Django's own ASGI handler is built for async views. With the usual sync views and
middleware it costs far more CPU than the same request under WSGI (about 3 ms against
0.4 ms for a bare ``JsonResponse`` on our 2-core machines; see docs/performance.md),
for two reasons:

* every ``MiddlewareMixin`` middleware is "async-capable", so under ASGI each of its
  ``process_request`` and ``process_response`` calls is a separate ``sync_to_async``
  hop to a worker thread and back (a default project has seven of them: ~14 hops);
* every request gets a new ``ThreadSensitiveContext``, hence a new worker thread.

:class:`ASGIHandler` runs the middleware chain and the view the way WSGI does, in one
``sync_to_async`` call, on a thread borrowed from a pool of idle single-thread executors
(asgiref's ``ThreadSensitiveContext(executor=...)``). Everything else is Django's: the
request object, the body limits, the signals, the disconnect handling, and responses that
stream (SSE) from async iterators on the event loop. All of one request's sync code still
runs on one thread, which is what Django's "thread-sensitive" mode promises; an async
view is called from that thread through ``async_to_sync``, as under WSGI.

Use it in a project's ``asgi.py`` instead of ``django.core.asgi.get_asgi_application``::

    from a2a_app.asgi import get_asgi_application
    application = get_asgi_application()
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers import asgi
from django.http import HttpRequest, HttpResponseBase

#: Idle threads kept for the next requests; a burst beyond this gets fresh threads,
#: which are shut down when their request ends.
MAX_IDLE_THREADS = 32


class ExecutorPool:
    """Single-thread executors that requests borrow one at a time and give back."""

    def __init__(self, max_idle: int = MAX_IDLE_THREADS) -> None:
        self.max_idle = max_idle
        self._idle: deque[ThreadPoolExecutor] = deque()

    def borrow(self) -> ThreadPoolExecutor:
        try:
            return self._idle.pop()  # the most recently used: its thread is warm
        except IndexError:
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="a2a-request")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        if len(self._idle) < self.max_idle:
            self._idle.append(executor)
        else:
            executor.shutdown(wait=False)

    @property
    def idle(self) -> int:
        return len(self._idle)


class ASGIHandler(asgi.ASGIHandler):
    """Django's ASGI handler with a sync middleware chain and pooled request threads."""

    def __init__(self) -> None:
        super().__init__()
        self.executors = ExecutorPool()

    def load_middleware(self, is_async: bool = False) -> None:
        # The chain is built for sync calls (as under WSGI) and entered once per
        # request from get_response_async below.
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.executors.borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.executors.give_back(executor)


def get_asgi_application() -> ASGIHandler:
    """Like ``django.core.asgi.get_asgi_application``, returning :class:`ASGIHandler`."""
    django.setup(set_prefix=False)
    return ASGIHandler()
