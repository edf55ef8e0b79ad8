"""Streaming delay: from a worker's event to the SSE client that watches the task.

``streams`` clients each send ``SendStreamingMessage`` "sleep <s>" (the conformance
skill's background behaviour) at once; a Celery worker runs the tasks and writes their
events (WORKING, the artifact, COMPLETED). For every event a client receives, the delay is
its receive time minus the event's ``TaskEvent.created_at`` (the worker's clock, which is
this machine's): commit, notifier wake-up, log read and SSE write included. Events
written before their client had the stream's first frame were not waited for but read
at the stream's start: they are counted apart (``backlog_ms``).

The figures (and the budget) take every other event. They are also split by when the
event was written: while streams were still opening (before the last client had its
first frame: the web process still takes requests, the worker starts its first tasks)
and once all were open (``opening_ms``, ``steady_ms``), so that the start-up burst is
neither hidden nor mistaken for the steady state.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StreamResult:
    delays_ms: list[float] = field(default_factory=list)
    #: The delays by event: "working", "artifact", "completed"
    by_event: dict[str, list[float]] = field(default_factory=dict)
    #: Events written before their client got the stream's first frame (the snapshot).
    backlog_ms: list[float] = field(default_factory=list)
    #: The delays of events written while other streams were still opening, and after.
    opening_ms: list[float] = field(default_factory=list)
    steady_ms: list[float] = field(default_factory=list)
    streams: int = 0
    events: int = 0
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    def percentile(self, q: float, delays: list[float] | None = None) -> float:
        ordered = sorted(self.delays_ms if delays is None else delays)
        if not ordered:
            return float("nan")
        index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
        return ordered[index]

    @property
    def median(self) -> float:
        return statistics.median(self.delays_ms) if self.delays_ms else float("nan")


async def _one_stream(client: Any, base: str, text: str) -> tuple[list[tuple[float, dict]], str]:
    """Receive times and StreamResponse objects of one streaming send; an error text."""
    message_id = f"bench-stream-{uuid.uuid4()}"
    payload = {
        "jsonrpc": "2.0",
        "id": message_id,
        "method": "SendStreamingMessage",
        "params": {
            "message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
        },
    }
    headers = {"A2A-Version": "1.0", "Accept": "text/event-stream"}
    received: list[tuple[float, dict]] = []
    async with client.stream("POST", f"{base}/a2a/jsonrpc", json=payload, headers=headers) as r:
        if r.status_code != 200:
            return received, f"HTTP {r.status_code}"
        async for line in r.aiter_lines():
            if not line.startswith("data:"):
                continue
            at = time.time()
            frame = json.loads(line[5:])
            if "error" in frame or "result" not in frame:
                return received, f"error frame: {line[:300]}"
            received.append((at, frame["result"]))
    return received, ""


async def _run_streams(base: str, streams: int, text: str, timeout: float) -> list[Any]:
    import httpx

    limits = httpx.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    async with httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False) as client:
        jobs = [_one_stream(client, base, text) for _ in range(streams)]
        return await asyncio.gather(*jobs, return_exceptions=True)


def _kind(item: dict) -> str:
    if "statusUpdate" in item:
        return item["statusUpdate"]["status"]["state"].removeprefix("TASK_STATE_").lower()
    return "artifact" if "artifactUpdate" in item else "other"


def measure(base: str, streams: int, sleep_s: float, timeout: float = 120) -> StreamResult:
    """Run the streams, then match every received event with its TaskEvent row."""
    from a2a_app.models import TaskEvent

    result = StreamResult(streams=streams)
    started = time.monotonic()
    outcomes = asyncio.run(_run_streams(base, streams, f"sleep {sleep_s:g}", timeout))
    result.wall_s = time.monotonic() - started
    started_at = [o[0][0][0] for o in outcomes if not isinstance(o, BaseException) and o[0]]
    all_open_at = max(started_at, default=0.0)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            result.failures.append(f"stream failed: {type(outcome).__name__}: {outcome}")
            continue
        received, error = outcome
        if error:
            result.failures.append(error)
            continue
        if not received or "task" not in received[0][1]:
            result.failures.append(f"stream did not start with a Task: {received[:1]}")
            continue
        task_id = received[0][1]["task"]["id"]
        events = list(TaskEvent.objects.filter(task_id=task_id).values_list("body", "created_at"))
        last = received[-1][1].get("statusUpdate", {}).get("status", {}).get("state")
        if last != "TASK_STATE_COMPLETED":
            result.failures.append(f"task {task_id}: stream ended in {last}, not COMPLETED")
        subscribed_at = received[0][0]
        for at, item in received[1:]:
            created = next((c for body, c in events if body == item), None)
            if created is None:
                result.failures.append(f"task {task_id}: received an event not in its log")
                continue
            delay = (at - created.timestamp()) * 1000
            result.events += 1
            if created.timestamp() < subscribed_at:
                # Written before the client had its first frame: read from the log when
                # the stream started, not woken by the notifier. Counted apart.
                result.backlog_ms.append(delay)
                continue
            result.delays_ms.append(delay)
            opening = created.timestamp() < all_open_at
            (result.opening_ms if opening else result.steady_ms).append(delay)
            result.by_event.setdefault(_kind(item), []).append(delay)
    return result


#: (label, case, p50 limit or None, p99 limit), in ms; judged over ≥ MIN_STREAMS streams.
BUDGETS = [
    (
        "Streaming delay on PostgreSQL without Redis: p50 ≤ 10 ms, p99 ≤ 50 ms over ≥ 48 "
        "concurrent streams",
        "stream-db",
        10.0,
        50.0,
    ),
    (
        "Streaming delay with Redis: p99 ≤ 50 ms over ≥ 48 concurrent streams",
        "stream-redis",
        None,
        50.0,
    ),
]
MIN_STREAMS = 48


def budget_lines(results: dict[str, Any], on_postgresql: bool) -> list[str]:
    """Rows of the report's budget table for the streaming cases that ran (the verdict in
    the first column after the label; the streams are served by uvicorn)."""
    lines = []
    for label, case, p50_limit, p99_limit in BUDGETS:
        st = results.get(case)
        if not st:
            continue
        measured = (
            f"p50 {st['median_ms']:.1f} ms, p99 {st['p99_ms']:.1f} ms ({st['streams']} streams)"
        )
        if not on_postgresql:
            verdict = "not on PostgreSQL: no verdict"
        elif st["streams"] < MIN_STREAMS or st.get("failures"):
            verdict = "**FAIL** (too few streams or failures)"
        else:
            ok = st["p99_ms"] <= p99_limit and (p50_limit is None or st["median_ms"] <= p50_limit)
            verdict = "**pass**" if ok else "**FAIL**"
        lines.append(f"| {label} | {measured}: {verdict} |")
    return lines
