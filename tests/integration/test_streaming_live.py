"""Streams across processes: two uvicorn web processes, a Celery worker, Redis.

A stream opened on one web process must see the events that a worker (another process)
writes, through the Redis notifier; the database notifier must do the same on one
process. Many subscribers get identical sequences; a reconnecting client gets the
current snapshot and the rest.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.integration


def envelope(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def message(text: str, **fields: Any) -> dict[str, Any]:
    return {
        "messageId": str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        **fields,
    }


async def stream(
    client: httpx.AsyncClient,
    base: str,
    method: str,
    params: dict[str, Any],
    *,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The StreamResponse objects of one SSE stream (stop after ``limit`` of them)."""
    results: list[dict[str, Any]] = []
    async with client.stream(
        "POST", f"{base}/a2a/jsonrpc", json=envelope(method, params), timeout=60
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            payload = json.loads(line.removeprefix("data: "))
            assert "result" in payload, payload
            results.append(payload["result"])
            if limit is not None and len(results) >= limit:
                break
    return results


def kinds(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for event in events:
        ((kind, body),) = event.items()
        if kind == "statusUpdate":
            out.append(body["status"]["state"].removeprefix("TASK_STATE_"))
        elif kind == "task":
            out.append("task:" + body["status"]["state"].removeprefix("TASK_STATE_"))
        else:
            out.append(kind)
    return out


def send(base: str, text: str, **configuration: Any) -> dict[str, Any]:
    body = httpx.post(
        f"{base}/a2a/jsonrpc",
        json=envelope("SendMessage", {"message": message(text), "configuration": configuration}),
        timeout=60,
    ).json()
    return body["result"]["task"]


@pytest.fixture(params=["redis", "database"])
def two_web_processes(request, start_web, start_worker, redis_url) -> tuple[str, str]:
    """Two web processes woken through Redis; or, for the database notifier, one process
    serving both roles (its poller is per process, so one process is the fair test)."""
    if request.param == "redis":
        env = {"A2A_NOTIFIER_REDIS_URL": redis_url}
        start_worker(**env)
        return start_web(**env), start_web(**env)
    start_worker()
    base = start_web()
    return base, base


def test_stream_on_one_process_sees_a_workers_events(two_web_processes) -> None:
    first, second = two_web_processes

    async def scenario() -> list[dict[str, Any]]:
        async with httpx.AsyncClient() as client:
            return await stream(
                client, first, "SendStreamingMessage", {"message": message("sleep 1")}
            )

    events = asyncio.run(scenario())
    assert kinds(events) == ["task:SUBMITTED", "WORKING", "artifactUpdate", "COMPLETED"]
    assert events[2]["artifactUpdate"]["artifact"]["parts"][0]["text"] == "echo: sleep 1"
    # The other process serves the same task.
    task_id = events[0]["task"]["id"]
    got = httpx.post(f"{second}/a2a/jsonrpc", json=envelope("GetTask", {"id": task_id})).json()
    assert got["result"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_fifty_subscribers_on_two_processes_get_identical_sequences(two_web_processes) -> None:
    first, second = two_web_processes
    task = send(first, "sleep 3", returnImmediately=True)

    async def scenario() -> list[list[dict[str, Any]]]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(limits=limits) as client:
            return await asyncio.gather(
                *(
                    stream(client, (first, second)[i % 2], "SubscribeToTask", {"id": task["id"]})
                    for i in range(50)
                )
            )

    started = time.monotonic()
    sequences = asyncio.run(scenario())
    assert time.monotonic() - started < 30
    # Each starts with a snapshot (taken whenever it connected), then live events; what
    # follows the snapshot must be the same tail for everybody and end COMPLETED.
    tails = []
    for events in sequences:
        assert "task" in events[0]
        tail = [json.dumps(e, sort_keys=True) for e in events[1:]]
        tails.append(tail)
        assert kinds(events)[-1] == "COMPLETED"
    longest = max(tails, key=len)
    for tail in tails:
        assert tail == longest[len(longest) - len(tail) :]


def test_reconnecting_gets_the_snapshot_and_the_rest(two_web_processes) -> None:
    first, second = two_web_processes
    task = send(first, "sleep 3", returnImmediately=True)

    async def scenario() -> tuple[list, list]:
        async with httpx.AsyncClient() as client:
            # Read the snapshot, then hang up.
            early = await stream(client, first, "SubscribeToTask", {"id": task["id"]}, limit=1)
            later = await stream(client, second, "SubscribeToTask", {"id": task["id"]})
            return early, later

    early, later = asyncio.run(scenario())
    assert kinds(early) in (["task:SUBMITTED"], ["task:WORKING"])
    # The task went on without the first client; the second gets a fresh snapshot and the
    # rest of the events, ending COMPLETED, with the artifact exactly once.
    assert kinds(later)[0] in ("task:SUBMITTED", "task:WORKING")
    assert kinds(later)[-1] == "COMPLETED"
    artifacts = later[0]["task"].get("artifacts", []) + [
        e["artifactUpdate"]["artifact"] for e in later if "artifactUpdate" in e
    ]
    assert [a["parts"][0]["text"] for a in artifacts] == ["echo: sleep 3"]


def test_database_notifier_on_one_process(start_web, start_worker) -> None:
    start_worker()
    base = start_web()  # no NOTIFIER_REDIS_URL: the database poller wakes streams

    async def scenario() -> tuple[list, list]:
        async with httpx.AsyncClient() as client:
            sent = stream(client, base, "SendStreamingMessage", {"message": message("sleep 1")})
            return await sent, []

    events, _ = asyncio.run(scenario())
    assert kinds(events) == ["task:SUBMITTED", "WORKING", "artifactUpdate", "COMPLETED"]


def test_idle_streams_hold_no_database_connection(start_web, start_worker, redis_url) -> None:
    """Thirty open, idle streams on a server whose pool has four connections: a plain
    request still gets a connection at once. (On SQLite there is no pool to exhaust, but
    the same code path runs.)"""
    start_worker()
    base = start_web(DB_POOL_MIN="1", DB_POOL_MAX="4", A2A_NOTIFIER_REDIS_URL=redis_url)
    task = send(base, "sleep 8", returnImmediately=True)

    async def scenario() -> float:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=100)) as client:
            streams = [
                asyncio.create_task(stream(client, base, "SubscribeToTask", {"id": task["id"]}))
                for _ in range(30)
            ]
            await asyncio.sleep(2)  # all open, all waiting for the worker
            started = time.monotonic()
            response = await client.post(
                f"{base}/a2a/jsonrpc", json=envelope("GetTask", {"id": task["id"]}), timeout=30
            )
            elapsed = time.monotonic() - started
            assert response.json()["result"]["status"]["state"] == "TASK_STATE_WORKING"
            results = await asyncio.gather(*streams)
            assert all(kinds(events)[-1] == "COMPLETED" for events in results)
            return elapsed

    # A pool exhausted by streams would make the request wait its 10 s timeout and fail.
    assert asyncio.run(scenario()) < 5
