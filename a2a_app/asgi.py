"""A Django ASGI handler that serves sync views in one thread hop, on reused threads.

Django's own ASGI handler is built for async views. With the usual sync views and
middleware it costs far more CPU than the same request under WSGI (about 3 ms against
0.4 ms for a bare ``JsonResponse`` on our 2-core machines; see docs/performance.md),
for three reasons:

* every ``MiddlewareMixin`` middleware is "async-capable", so under ASGI each of its
  ``process_request`` and ``process_response`` calls is a separate ``sync_to_async``
  hop to a worker thread and back (a default project has seven of them: ~14 hops);
* the ``request_started`` and ``request_finished`` signals, whose receivers (Django's
  database connection handling) are sync, take a hop each;
* every request gets a new ``ThreadSensitiveContext``, hence a new worker thread.

:class:`ASGIHandler` makes one ``sync_to_async`` call per request, on a thread borrowed
from a pool of idle single-thread executors (asgiref's
``ThreadSensitiveContext(executor=...)``). In it, as under WSGI: ``request_started``,
the request object, the middleware chain and the view, and, for a response that is not
streamed, ``close()`` (hence ``request_finished``: the database connection goes back
before the bytes go out). Then the response is sent from the event loop. A streamed
response (SSE) is sent from its async iterator on the event loop while the handler
listens for the client going away, as Django does, and closed after. All of one
request's sync code runs on one thread, which is what Django's "thread-sensitive" mode
promises; an async view is called from that thread through ``async_to_sync``, as under
WSGI. The request class and error responses are Django's; the bodies of a2a_app's
endpoints are limited while they are read (:meth:`ASGIHandler.read_limited_body`).

Use it in a project's ``asgi.py`` instead of ``django.core.asgi.get_asgi_application``::

    from a2a_app.asgi import get_asgi_application
    application = get_asgi_application()

With ``DEBUG`` on and ``django.contrib.staticfiles`` installed, the application also
serves static files (the admin's CSS), as ``runserver`` does: an ASGI server such as
uvicorn serves none, and a developer trying the site should not find the admin unstyled.
With ``DEBUG`` off, serve them as for any Django site (``collectstatic`` and a web server,
or WhiteNoise).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core import signals
from django.core.handlers import asgi
from django.core.handlers.asgi import get_script_prefix
from django.http import FileResponse, HttpResponseBase
from django.urls import Resolver404, resolve, set_script_prefix

from a2a_app.conf import a2a_settings
from a2a_app.core import dispatch, notify

logger = logging.getLogger("a2a_app.streams")

#: The attribute that marks a view whose request bodies ``MAX_REQUEST_BYTES`` limits.
BODY_LIMIT = "a2a_app_body_limit"
#: The scope key set when such a body was over the limit (and left unread).
OVER_LIMIT = "a2a_app.body_over_limit"

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
        # request, from _respond below.
        super().load_middleware(is_async=False)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_limited_body(scope, receive)
        except asgi.RequestAborted:
            return
        try:
            set_script_prefix(get_script_prefix(scope))
            response = await sync_to_async(self._respond, thread_sensitive=True)(scope, body_file)
            if not response.streaming:
                await self.send_response(response, send)  # already closed: see _respond
                return
            await self._stream(response, receive, send)
        finally:
            body_file.close()

    async def read_limited_body(self, scope: dict[str, Any], receive: Any) -> Any:
        """The body, as Django reads it; for an a2a_app endpoint, no more of it than
        ``MAX_REQUEST_BYTES``.

        Django's own handler spools any body to a temporary file before the view can
        refuse it. Here a body declared too large is not read at all, one that grows too
        large is no longer read, and the view finds ``OVER_LIMIT`` in the scope and
        answers 413 in its binding's format.
        """
        limit = a2a_settings.MAX_REQUEST_BYTES
        declared = _content_length(scope)
        if limit is None or (declared is not None and declared <= limit):
            return await self.read_body(receive)  # the server delivers no more than declared
        if not _has_body_limit(scope):
            return await self.read_body(receive)
        # What is kept is at most the limit: memory will do.
        body_file = io.BytesIO()
        size = 0
        while declared is None:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise asgi.RequestAborted()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                break
            body_file.write(chunk)
            if not message.get("more_body", False):
                body_file.seek(0)
                return body_file
        scope[OVER_LIMIT] = True
        return io.BytesIO()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """On the request's thread: what a WSGI handler does, short of sending."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # the server chunks the bytes
        if not response.streaming:
            # The body is in memory: close (request_finished: the database connection
            # goes back to the pool) before the bytes go out, in this same hop.
            response.close()
        return response

    async def _stream(self, response: HttpResponseBase, receive: Any, send: Any) -> None:
        """Send a streamed response until it ends or the client goes away; then close it."""
        sending = asyncio.create_task(self.send_response(response, send))
        listening = asyncio.create_task(self.listen_for_disconnect(receive))
        try:
            await asyncio.wait([sending, listening], return_when=asyncio.FIRST_COMPLETED)
            for task in (listening, sending):  # the stream may handle its cancellation
                if not task.done():
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError, asgi.RequestAborted):
                    await task  # a stream that failed raises here
        finally:
            for task in (listening, sending):
                task.cancel()  # no-op when done; else this handler itself was cancelled
            await sync_to_async(response.close, thread_sensitive=True)()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.executors.borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.executors.give_back(executor)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        """Acknowledge the server's start-up and shutdown (a server told the protocol is
        unsupported says so in the log of every start), and start the streams' notifier
        at start-up (:meth:`_start_notifier`)."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._start_notifier()
                _connect_dispatcher()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _start_notifier(self) -> None:
        """Make the streams' notifier and have it listen before the first request.

        Both used to happen under the first burst of streams, on the event loop that
        served it: importing the Redis client stalled the loop ~0.2 s, and subscribing to
        Redis while 48 streams opened took 70-125 ms, which the first tasks' events waited
        for (they set the Redis p99 in docs/performance.md). Under ASGI the site streams,
        so the listening connection is made once per process here, whether or not a
        stream comes. A server that sends no lifespan events does both at the first stream.
        """
        try:
            notifier = await notify.aget_notifier()
            # Returns once listening, or once it gave up for now (Redis or the database
            # unreachable: streams poll meanwhile and the notifier keeps trying).
            await notifier.listen()
        except Exception:  # the first stream tries again; the site still starts
            logger.exception("could not start the stream notifier")


def _connect_dispatcher() -> None:
    """Have the dispatcher connect to the broker now, in the background (a dispatcher
    that can, such as Celery's): not with the first task or webhook to hand over."""
    connect = getattr(dispatch.get_dispatcher(), "connect", None)
    if connect is None:
        return
    try:
        connect()
    except Exception:  # the first publish connects instead; the site still starts
        logger.exception("could not connect the dispatcher to its broker")


def _content_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _has_body_limit(scope: dict[str, Any]) -> bool:
    """Is the request for a view marked with ``BODY_LIMIT`` (a2a_app's endpoints)?"""
    root = scope.get("root_path", "")
    path = scope["path"]
    path_info = path[len(root) :] if root and path.startswith(root) else path
    try:
        match = resolve(path_info)
    except Resolver404:
        return False
    return bool(getattr(match.func, BODY_LIMIT, False))


def warn_of_kept_connections(databases: dict[str, dict[str, Any]]) -> None:
    """Persistent connections (``CONN_MAX_AGE``) are for WSGI workers: under ASGI every
    request thread, up to ``MAX_IDLE_THREADS`` and a burst's more, would keep one of its
    own, and a burst's threads end with theirs still open. Django's connection pool is
    the ASGI way (docs/operations.md); a site that copied a WSGI setting is told so."""
    for alias, database in databases.items():
        max_age = database.get("CONN_MAX_AGE", 0)
        if max_age and database.get("ENGINE", "").endswith(("postgresql", "mysql", "oracle")):
            logging.getLogger(__name__).warning(
                "DATABASES[%r] keeps connections (CONN_MAX_AGE=%s) under ASGI: each "
                "request thread would hold one of its own. Use CONN_MAX_AGE = 0 and the "
                "connection pool (OPTIONS['pool']) instead.",
                alias,
                max_age,
            )


def get_asgi_application() -> ASGIHandler | ASGIStaticFilesHandler:
    """Like ``django.core.asgi.get_asgi_application``, returning :class:`ASGIHandler`;
    with ``DEBUG`` on and ``django.contrib.staticfiles`` installed, wrapped in Django's
    handler that serves ``STATIC_URL`` (as ``runserver`` does)."""
    django.setup(set_prefix=False)
    warn_of_kept_connections(settings.DATABASES)
    handler = ASGIHandler()
    if settings.DEBUG and apps.is_installed("django.contrib.staticfiles"):
        return ASGIStaticFilesHandler(handler)
    return handler
