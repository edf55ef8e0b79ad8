"""The PostgreSQL notifier with real parts: uvicorn, a Celery worker, PostgreSQL.

The web processes poll the database only once an hour here (``A2A_STREAM_POLL_SECONDS``)
and send keep-alives rarely: a stream that gets its events at all got them through
LISTEN/NOTIFY (or the listener's wake-up after it reconnected). On SQLite there is no
LISTEN/NOTIFY: the tests skip there (``make test`` runs the suite on PostgreSQL too).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from django.db import connection

from a2a_app.core.notify_pg import APPLICATION_NAME
from a2a_app.models import TaskEvent
from tests.integration.test_streaming_live import kinds, message, send, stream
from tests.support import backend_pids

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's"),
]

#: No polling worth the name, no keep-alive wake-ups: only NOTIFY wakes streams.
NOTIFY_ONLY = {
    "A2A_STREAM_POLL_SECONDS": "3600",
    "A2A_STREAM_KEEPALIVE_SECONDS": "3600",
    "A2A_MAX_STREAMS_PER_CALLER": "100",
}


def listeners() -> list[int]:
    """Backend pids of the notifiers' listening connections on the test database."""
    return backend_pids(APPLICATION_NAME)


def wait_until(condition: Any, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)
    return value


def test_a_stream_gets_the_workers_events_through_notify(start_web, start_worker) -> None:
    start_worker()
    base = start_web(**NOTIFY_ONLY)

    async def scenario() -> list[dict[str, Any]]:
        async with httpx.AsyncClient() as client:
            return await asyncio.wait_for(
                stream(client, base, "SendStreamingMessage", {"message": message("sleep 1")}),
                60,
            )

    events = asyncio.run(scenario())
    assert kinds(events) == ["task:SUBMITTED", "WORKING", "artifactUpdate", "COMPLETED"]
    assert len(listeners()) == 1


def test_one_listening_connection_per_process_however_many_streams(start_web, start_worker) -> None:
    start_worker()
    first, second = start_web(**NOTIFY_ONLY), start_web(**NOTIFY_ONLY)
    task = send(first, "sleep 4", returnImmediately=True)

    async def scenario() -> tuple[list[int], list[list[dict[str, Any]]]]:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=100)) as client:
            streams = [
                asyncio.create_task(
                    stream(client, (first, second)[i % 2], "SubscribeToTask", {"id": task["id"]})
                )
                for i in range(40)
            ]
            # Forty streams open and waiting: two processes, two listening connections.
            await asyncio.to_thread(wait_until, lambda: len(listeners()) >= 2)
            await asyncio.sleep(1)
            during = await asyncio.to_thread(listeners)
            return during, await asyncio.wait_for(asyncio.gather(*streams), 60)

    during, results = asyncio.run(scenario())
    assert len(during) == 2
    assert all(kinds(events)[-1] == "COMPLETED" for events in results)


def terminate_listeners() -> list[int]:
    """pg_terminate_backend every notifier's listening backend, as a restart would."""
    pids = listeners()
    with connection.cursor() as cursor:
        for pid in pids:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    return pids


def test_a_terminated_listener_reconnects_and_the_stream_loses_nothing(
    start_web, start_worker
) -> None:
    start_worker()
    base = start_web(**NOTIFY_ONLY)
    task = send(base, "sleep 3", returnImmediately=True)

    async def scenario() -> tuple[list[int], list[int], list[dict[str, Any]]]:
        async with httpx.AsyncClient() as client:
            subscribed = asyncio.create_task(
                stream(client, base, "SubscribeToTask", {"id": task["id"]})
            )
            first = await asyncio.to_thread(wait_until, listeners)
            # Kill the listening backend again and again while the worker writes, as a
            # restarting database would: some events are committed while nobody listens.
            killed: list[int] = []
            while not subscribed.done():
                killed += await asyncio.to_thread(terminate_listeners)
                await asyncio.sleep(0.15)
            last = await asyncio.to_thread(wait_until, listeners)
            return first, killed, last, await subscribed

    first, killed, last, events = asyncio.run(scenario())
    assert first[0] in killed and len(killed) >= 3
    assert len(last) == 1 and last[0] not in killed  # it came back each time
    # After the snapshot, the stream carries the log's events exactly: none lost, none twice.
    log = list(
        TaskEvent.objects.filter(task_id=task["id"]).order_by("sequence").values_list("body")
    )
    tail = events[1:]
    assert tail == [body for (body,) in log][-len(tail) :]
    assert kinds(events)[-1] == "COMPLETED"
