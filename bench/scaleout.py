"""Scale-out: two web processes and two Celery workers on one PostgreSQL and one Redis.

Two uvicorn processes (A and B) and two ``celery worker --concurrency 2`` share the
database, the broker and the Redis notifier, as two machines would (here they share the
two cores too: the point is that the parts work together, not more throughput). Three
phases, reusing the one-process cases' entry points (bench/webhooks.py, bench/streaming.py):

* webhooks: tasks with a push config are created through A and B alternately, then both
  workers deliver them (``webhooks.create_tasks``, ``webhooks.wait_and_check``);
* streams on both: half the streams open on A, half on B, at once; the workers write
  their events (``streaming.measure``);
* across processes: a stream opened on A (``SubscribeToTask`` of an input-required task
  made through B) receives the events that B writes when the task's follow-up is sent to
  B: the only way it hears of them is the notifier.

The report puts the results beside the one-process cases of the same run (``webhooks``,
``stream-redis``), when those ran.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

HEADERS = {"A2A-Version": "1.0"}


def _send(text_id: str, **message: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": text_id,
        "method": "SendMessage",
        "params": {
            "message": {"messageId": text_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}
            | message
        },
    }


async def _across_one(client: Any, a: str, b: str) -> tuple[str, list[tuple[float, dict]], str]:
    """An input-required task made through B, watched on A, answered through B."""
    created = await client.post(
        f"{b}/a2a/jsonrpc", json=_send(f"tck-input-required-{uuid.uuid4()}"), headers=HEADERS
    )
    task = created.json().get("result", {}).get("task")
    if not task:
        return "", [], f"creating the task on B failed: {created.text[:300]}"
    subscribe = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SubscribeToTask",
        "params": {"id": task["id"]},
    }
    received: list[tuple[float, dict]] = []
    follow_up = None
    headers = {**HEADERS, "Accept": "text/event-stream"}
    async with client.stream("POST", f"{a}/a2a/jsonrpc", json=subscribe, headers=headers) as r:
        if r.status_code != 200:
            return task["id"], received, f"SubscribeToTask on A: HTTP {r.status_code}"
        async for line in r.aiter_lines():
            if not line.startswith("data:"):
                continue
            at = time.time()
            frame = json.loads(line[5:])
            if "result" not in frame:
                return task["id"], received, f"error frame on A: {line[:300]}"
            received.append((at, frame["result"]))
            if follow_up is None:  # the snapshot: now B writes
                answer = _send(
                    f"tck-complete-task-{uuid.uuid4()}",
                    taskId=task["id"],
                    contextId=task["contextId"],
                )
                follow_up = asyncio.create_task(
                    client.post(f"{b}/a2a/jsonrpc", json=answer, headers=HEADERS)
                )
    if follow_up is not None:
        answered = await follow_up
        if answered.status_code != 200 or "error" in answered.json():
            return task["id"], received, f"follow-up on B failed: {answered.text[:300]}"
    return task["id"], received, ""


async def _across(a: str, b: str, count: int, timeout: float) -> list[Any]:
    import httpx

    limits = httpx.Limits(max_connections=2 * count + 4, max_keepalive_connections=2 * count + 4)
    async with httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False) as client:
        return await asyncio.gather(
            *(_across_one(client, a, b) for _ in range(count)), return_exceptions=True
        )


def measure_across(a: str, b: str, count: int, timeout: float) -> dict[str, Any]:
    """Delays of events written by B to streams on A (receive time − TaskEvent.created_at)."""
    from a2a_app.models import TaskEvent
    from bench.streaming import StreamResult

    result = StreamResult(streams=count)
    started = time.monotonic()
    outcomes = asyncio.run(_across(a, b, count, timeout))
    result.wall_s = time.monotonic() - started
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            result.failures.append(f"{type(outcome).__name__}: {outcome}")
            continue
        task_id, received, error = outcome
        if error:
            result.failures.append(error)
            continue
        events = list(TaskEvent.objects.filter(task_id=task_id).values_list("body", "created_at"))
        last = received[-1][1].get("statusUpdate", {}).get("status", {}).get("state")
        if last != "TASK_STATE_COMPLETED":
            result.failures.append(f"task {task_id}: the stream on A ended in {last}")
        for at, item in received[1:]:
            created = next((c for body, c in events if body == item), None)
            if created is None:
                result.failures.append(f"task {task_id}: an event not in its log")
                continue
            result.events += 1
            result.delays_ms.append((at - created.timestamp()) * 1000)
    return _summary(result)


def _summary(result: Any) -> dict[str, Any]:
    return {
        "streams": result.streams,
        "events": len(result.delays_ms),
        "median_ms": result.median,
        "p99_ms": result.percentile(99),
        "max_ms": max(result.delays_ms) if result.delays_ms else float("nan"),
        "failures": result.failures[:5],
    }


def streams_on_both(a: str, b: str, streams: int, sleep_s: float, timeout: float) -> dict:
    """Half the streams on A, half on B, at once (``streaming.measure`` in two threads)."""
    from django.db import connection

    from bench import streaming

    results: dict[str, Any] = {}

    def one(name: str, base: str, count: int) -> None:
        try:
            results[name] = streaming.measure(base, count, sleep_s, timeout=timeout)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=one, args=("a", a, streams - streams // 2)),
        threading.Thread(target=one, args=("b", b, streams // 2)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    merged = streaming.StreamResult(streams=streams)
    for part in results.values():
        merged.delays_ms += part.delays_ms
        merged.failures += part.failures
        merged.events += part.events
    if len(results) < 2:
        merged.failures.append("a stream thread died")
    return _summary(merged)


def run_case(run: Any, opts: argparse.Namespace, db_url: str, logdir: Path) -> None:
    """The suite's phase (bench/run.py)."""
    from a2a_app.models import Delivery
    from bench import procs, webhooks
    from bench.config import REDIS_URL, redis_client
    from bench.run import log, note_code_change, server_env

    log("\n== scale-out: 2 uvicorn processes + 2 Celery workers × 2, Redis notifier")
    note_code_change(run, "scale-out")
    redis_client().flushdb()
    env = server_env(db_url, A2A_NOTIFIER_REDIS_URL=REDIS_URL)
    receiver = webhooks.start_receiver()
    web = [
        procs.start_server(procs.DEPLOYMENTS["uvicorn"], env, logdir, f"scale-web-{n}")
        for n in "ab"
    ]
    workers: list[Any] = []
    found: dict[str, Any] = {}
    try:
        a, b = (server.base for server in web)
        half = opts.webhook_tasks // 2
        task_ids = webhooks.create_tasks(a, receiver.url, opts.webhook_tasks - half)
        task_ids += webhooks.create_tasks(b, receiver.url, half)
        expected = Delivery.objects.filter(task_id__in=task_ids).count()
        workers = procs.start_workers(env, logdir, ["scale-worker-1", "scale-worker-2"], 2)
        hooks = webhooks.wait_and_check(receiver, task_ids, expected, timeout=opts.timeout)
        # Both workers must have taken deliveries from the broker (Celery logs each job).
        jobs = [_received(w.tail(10_000_000), "a2a_app.tasks.deliver_webhooks[") for w in workers]
        if not all(jobs):
            hooks.failures.append(f"delivery jobs received per worker: {jobs}")
        found["webhooks"] = {
            "jobs_per_worker": jobs,
            "per_second": hooks.per_second,
            "delivered": hooks.delivered,
            "tasks": hooks.tasks,
            "drain_s": hooks.drain_s,
            "failures": hooks.failures,
        }
        log(
            f"  webhooks: {hooks.per_second:.1f} deliveries/s ({hooks.delivered} delivered; "
            f"delivery jobs per worker {jobs})"
        )
        found["streams"] = streams_on_both(a, b, opts.streams, opts.stream_sleep, opts.timeout)
        log(_line("streams on A and B", found["streams"]))
        found["across"] = measure_across(a, b, max(2, opts.streams // 2), opts.timeout)
        log(_line("written through B, streamed on A", found["across"]))
    finally:
        for process in [*workers, *web]:
            process.stop()
        receiver.close()
    run.worker_results["scale-out"] = found
    for name, part in found.items():
        if part.get("failures"):
            run.failures.append(f"scale-out {name}: " + "; ".join(part["failures"][:3]))
    for process in [*workers, *web]:
        if "Traceback" in process.tail(2_000_000):
            run.failures.append(f"scale-out: tracebacks in {process.log}")


def _received(log_text: str, task: str) -> int:
    """Jobs of ``task`` a worker's log says it received."""
    return sum(
        1 for line in log_text.splitlines() if task in line and line.rstrip().endswith("received")
    )


def _line(label: str, part: dict[str, Any]) -> str:
    status = "  FAILED: " + "; ".join(part["failures"][:3]) if part["failures"] else "  ok"
    return (
        f"  {label}: {part['events']} events, median {part['median_ms']:.1f} ms, "
        f"p99 {part['p99_ms']:.1f} ms{status}"
    )


def report_lines(run: Any, opts: Any) -> list[str]:
    """The report's section: each measurement beside its one-process case."""
    found = run.worker_results.get("scale-out")
    if not found:
        return []
    one_hooks = run.worker_results.get("webhooks")
    one_stream = run.worker_results.get("stream-redis")

    def delay(part: dict[str, Any] | None) -> str:
        if not part:
            return "– (not run)"
        return (
            f"median {part['median_ms']:.1f} ms, p99 {part['p99_ms']:.1f} ms "
            f"({part['events']} events)"
        )

    hooks = found["webhooks"]
    return [
        "## Scale-out (2 web processes, 2 workers)",
        "",
        "Two uvicorn processes (A, B) and two `celery worker --concurrency 2` on the same "
        "PostgreSQL, Redis broker and Redis notifier, against one uvicorn and one worker "
        "(the one-process cases above) in the same run. All share this machine's two cores: "
        "the numbers show that the parts work together across processes, not a speed-up.",
        "",
        "| measurement | one process | scale-out |",
        "|---|---|---|",
        "| Webhook deliveries/s (tasks created through A and B, delivered by both workers) | "
        + (f"{one_hooks['per_second']:.1f} (1 worker × 2)" if one_hooks else "– (not run)")
        + f" | **{hooks['per_second']:.1f}** ({hooks['delivered']:,} deliveries; delivery "
        f"jobs per worker: {' and '.join(str(n) for n in hooks.get('jobs_per_worker', []))}) |",
        f"| Streaming delay, worker event → SSE client ({opts.streams} streams, half on A, "
        f"half on B) | {delay(one_stream)} | **{delay(found['streams'])}** |",
        "| Streaming delay, event written by B → stream on A (SubscribeToTask on A, "
        "follow-up SendMessage on B) | – | "
        f"**{delay(found['across'])}** |",
        "",
    ]
