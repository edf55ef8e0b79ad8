"""a2a_app.asgi: Django's request handling, in one thread hop, on reused threads.

The handler is driven in-process through the ASGI interface (as uvicorn calls it); the
live-server integration tests serve the whole site through it too.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from a2a_app.asgi import (
    ASGIHandler,
    ExecutorPool,
    get_asgi_application,
    warn_of_kept_connections,
)
from tests.support import start_up

# --- views of this module's URLconf -------------------------------------------------------

#: Thread ids that the views and middleware of the current test saw.
seen: dict[str, list[int]] = {}


def _see(name: str) -> None:
    seen.setdefault(name, []).append(threading.get_ident())


def thread_view(request: HttpRequest) -> HttpResponse:
    _see("view")

    async def back_on_the_loop() -> None:
        # Thread-sensitive sync code called from async code called from this view must
        # come back to this very thread (what Django's ORM relies on).
        await sync_to_async(_see, thread_sensitive=True)("nested")

    async_to_sync(back_on_the_loop)()
    return JsonResponse({"thread": threading.get_ident()})


gate = threading.Event()


def waits_view(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"released": gate.wait(timeout=5)})


def releases_view(request: HttpRequest) -> HttpResponse:
    gate.set()
    return JsonResponse({"released": True})


async def async_view(request: HttpRequest) -> HttpResponse:
    await asyncio.sleep(0)
    return JsonResponse({"async": True})


def stream_view(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        for i in range(3):
            await asyncio.sleep(0)
            yield f"data: {i}\n\n".encode()

    return StreamingHttpResponse(events(), content_type="text/event-stream")


#: What the endless stream saw: whether it was closed.
endless: dict[str, bool] = {}


def endless_view(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        try:
            while True:
                yield b": keep-alive\n\n"
                await asyncio.sleep(0.01)
        finally:
            endless["closed"] = True

    return StreamingHttpResponse(events(), content_type="text/event-stream")


def failing_stream_view(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: 0\n\n"
        raise RuntimeError("the stream broke")

    return StreamingHttpResponse(events(), content_type="text/event-stream")


urlpatterns = [
    path("thread", thread_view),
    path("endless", endless_view),
    path("failing", failing_stream_view),
    path("waits", waits_view),
    path("releases", releases_view),
    path("async", async_view),
    path("stream", stream_view),
]


class SeeingMiddleware:
    """An old-style (MiddlewareMixin-like) sync middleware recording its thread."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        _see("middleware")
        response = self.get_response(request)
        response["X-Seen"] = "yes"
        return response


# --- driving the handler --------------------------------------------------------------------


async def call(app: Any, path_: str, method: str = "GET", body: bytes = b"") -> dict[str, Any]:
    """One HTTP request through the ASGI app; the status, headers and whole body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path_,
        "raw_path": path_.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent_body = False
    done = asyncio.Event()
    response: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            response["status"] = message["status"]
            response["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            response["body"] += message.get("body", b"")
            if not message.get("more_body"):
                done.set()

    await asyncio.wait_for(app(scope, receive, send), 10)
    return response


MIDDLEWARE = ["tests.test_asgi.SeeingMiddleware"]


@pytest.fixture
def app() -> ASGIHandler:
    seen.clear()
    gate.clear()
    with override_settings(ROOT_URLCONF="tests.test_asgi", MIDDLEWARE=MIDDLEWARE):
        yield ASGIHandler()


def test_a_request_runs_its_middleware_and_view_on_one_thread(app):
    response = asyncio.run(call(app, "/thread"))
    assert response["status"] == 200
    assert response["headers"]["x-seen"] == "yes"
    thread = json.loads(response["body"])["thread"]
    assert seen["middleware"] == seen["view"] == seen["nested"] == [thread]
    assert thread != threading.get_ident()  # not the event loop's thread


@pytest.fixture
def signal_threads() -> Any:
    """(event, thread id) of each request_started / request_finished, in order."""
    from django.core import signals

    events: list[tuple[str, int]] = []

    def started(**kwargs: Any) -> None:
        events.append(("started", threading.get_ident()))

    def finished(**kwargs: Any) -> None:
        events.append(("finished", threading.get_ident()))

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    yield events
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)


def test_the_signals_run_in_the_same_hop_as_the_view(app, signal_threads, monkeypatch):
    from a2a_app import asgi

    hops: list[str] = []

    def counting_sync_to_async(func: Any, **kwargs: Any) -> Any:
        hops.append(func.__name__)
        return sync_to_async(func, **kwargs)

    monkeypatch.setattr(asgi, "sync_to_async", counting_sync_to_async)
    response = asyncio.run(call(app, "/thread"))
    thread = json.loads(response["body"])["thread"]
    # request_finished too: a plain response is closed on the request's thread, before
    # its bytes are sent, so that the database connection goes back at once.
    assert signal_threads == [("started", thread), ("finished", thread)]
    assert hops == ["_respond"]


def test_a_stream_is_closed_when_the_client_goes_away(app, signal_threads):
    endless.clear()
    chunks: list[bytes] = []
    got_one = asyncio.Event()

    async def go_away() -> None:
        scope = {"type": "http", "method": "GET", "path": "/endless", "headers": [],
                 "query_string": b"", "root_path": "", "scheme": "http",
                 "server": ("127.0.0.1", 8000)}  # fmt: skip
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"", "more_body": False}
            await got_one.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message.get("body"):
                chunks.append(message["body"])
                got_one.set()

        await asyncio.wait_for(app(scope, receive, send), 5)

    asyncio.run(go_away())
    assert chunks and chunks[0] == b": keep-alive\n\n"
    assert endless == {"closed": True}
    assert [event for event, _ in signal_threads] == ["started", "finished"]


def test_a_stream_that_fails_is_still_closed(app, signal_threads):
    # The error reaches the server (which logs it and drops the connection), after
    # request_finished: the request's database connection is not left behind.
    with pytest.raises(RuntimeError, match="the stream broke"):
        asyncio.run(call(app, "/failing"))
    assert [event for event, _ in signal_threads] == ["started", "finished"]


def test_threads_are_reused_across_requests(app):
    async def three_in_a_row() -> list[int]:
        return [json.loads((await call(app, "/thread"))["body"])["thread"] for _ in range(3)]

    threads = asyncio.run(three_in_a_row())
    assert len(set(threads)) == 1
    assert app.executors.idle == 1


def test_concurrent_requests_get_threads_of_their_own(app):
    # The first view blocks its thread until the second one runs: on a shared thread
    # this would time out.
    async def both() -> list[dict[str, Any]]:
        first = asyncio.create_task(call(app, "/waits"))
        await asyncio.sleep(0.05)
        return [await call(app, "/releases"), await first]

    released, waited = asyncio.run(both())
    assert json.loads(waited["body"]) == {"released": True}
    assert released["status"] == 200
    assert app.executors.idle == 2


def test_async_views_and_async_streams_work(app):
    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        return await call(app, "/async"), await call(app, "/stream")

    plain, stream = asyncio.run(both())
    assert json.loads(plain["body"]) == {"async": True}
    assert plain["headers"]["x-seen"] == "yes"
    assert stream["body"] == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"


def test_errors_are_django_responses(app):
    response = asyncio.run(call(app, "/nowhere"))
    assert response["status"] == 404


def test_the_pool_keeps_a_bounded_number_of_idle_threads():
    pool = ExecutorPool(max_idle=2)
    borrowed = [pool.borrow() for _ in range(4)]
    assert len({id(e) for e in borrowed}) == 4
    for executor in borrowed:
        pool.give_back(executor)
    assert pool.idle == 2
    assert borrowed[2]._shutdown and borrowed[3]._shutdown
    assert pool.borrow() is borrowed[1]  # the warmest first


@pytest.mark.django_db(transaction=True)
def test_the_site_answers_a2a_through_it(settings):
    from tests.project.asgi import application

    async def card_and_send() -> tuple[dict[str, Any], dict[str, Any]]:
        card = await call(application, "/.well-known/agent-card.json")
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {
                    "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
                },
            }
        ).encode()
        return card, await call(application, "/a2a/jsonrpc", "POST", body)

    card, sent = asyncio.run(card_and_send())
    assert card["status"] == 200
    assert json.loads(card["body"])["capabilities"]["streaming"] is True
    assert card["headers"]["x-frame-options"] == "DENY"  # the site's middleware ran
    result = json.loads(sent["body"])
    assert "result" in result, result


def test_with_debug_on_it_serves_static_files_as_runserver_does(settings):
    # uvicorn serves no static files: without this a developer's admin has no CSS.
    settings.DEBUG = True
    response = asyncio.run(call(get_asgi_application(), "/static/admin/css/base.css"))
    assert response["status"] == 200
    assert response["headers"]["content-type"].startswith("text/css")
    assert b"body" in response["body"]


def test_with_debug_off_static_files_are_the_web_servers_job(settings):
    settings.DEBUG = False
    application = get_asgi_application()
    assert type(application) is ASGIHandler
    response = asyncio.run(call(application, "/static/admin/css/base.css"))
    assert response["status"] == 404


def start_and_stop(app: ASGIHandler) -> list[dict[str, Any]]:
    """What the app sends for a server's lifespan start-up and shutdown."""
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asyncio.wait_for(app({"type": "lifespan"}, receive, send), 5))
    return sent


def test_it_speaks_the_lifespan_protocol(app):
    # Else uvicorn logs "ASGI 'lifespan' protocol appears unsupported." at every start.
    assert start_and_stop(app) == [
        {"type": "lifespan.startup.complete"},
        {"type": "lifespan.shutdown.complete"},
    ]


def test_start_up_has_the_dispatcher_connect_to_its_broker(app):
    """Not the first task or webhook handed over: a cold publish outlasted
    BROKER_PUBLISH_TIMEOUT on a busy machine and opened the breaker."""
    from a2a_app.core import dispatch
    from a2a_app.testing import RecordingDispatcher

    class ConnectingDispatcher(RecordingDispatcher):
        connects = 0

        def connect(self) -> None:
            self.connects += 1

    with dispatch.dispatching_to(ConnectingDispatcher()) as dispatcher:
        sent = start_and_stop(app)
    assert dispatcher.connects == 1
    assert sent[0] == {"type": "lifespan.startup.complete"}


@pytest.mark.django_db(transaction=True)
def test_start_up_has_the_stream_notifier_listen_before_the_first_request(app, settings):
    """A burst of streams neither makes the notifier nor waits for its connection (it
    delayed the first tasks' events: docs/performance.md): on PostgreSQL the LISTEN
    connection is up when the server starts taking requests, on SQLite the poller runs."""
    from a2a_app.core import notify
    from a2a_app.core.notify_pg import PostgresNotifier

    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()

    def listening() -> bool:
        notifier = notify.get_notifier()
        if isinstance(notifier, PostgresNotifier):
            return notifier.listening.is_set() and notifier.connections_made == 1
        return asyncio.get_running_loop() in notifier._pollers

    try:
        assert start_up(app, listening) is True
    finally:
        notify.reset()


def test_a_notifier_that_cannot_start_does_not_stop_the_site(app, monkeypatch, caplog):
    from a2a_app.core import notify

    async def broken() -> None:
        raise RuntimeError("no notifier today")

    monkeypatch.setattr(notify, "aget_notifier", broken)
    with caplog.at_level("ERROR", logger="a2a_app.streams"):
        assert start_up(app, lambda: "started") == "started"
    assert "could not start the stream notifier" in caplog.text


def test_persistent_connections_under_asgi_are_warned_of(caplog, settings):
    """CONN_MAX_AGE is a WSGI worker's setting (the demo's DB_CONN_MAX_AGE): under ASGI
    each request thread would keep a connection of its own."""
    settings.DEBUG = False
    with caplog.at_level("WARNING", logger="a2a_app.asgi"):
        get_asgi_application()  # the test project pools its PostgreSQL connections
        assert caplog.records == []
        kept = {"ENGINE": "django.db.backends.postgresql", "CONN_MAX_AGE": 600}
        warn_of_kept_connections(
            {
                "default": {"ENGINE": "django.db.backends.postgresql", "CONN_MAX_AGE": 0},
                "files": {"ENGINE": "django.db.backends.sqlite3", "CONN_MAX_AGE": 600},
                "reports": kept,
            }
        )
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "DATABASES['reports']" in caplog.text
    assert "CONN_MAX_AGE=600" in caplog.text
