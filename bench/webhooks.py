"""Webhook deliveries per second: Celery workers POSTing task events to a loopback receiver.

Tasks with a push config each are created first (SendMessage "hello" with
``taskPushNotificationConfig``, through the web server); their deliveries wait in the
broker. Then the workers start, and the rate is taken from the receiver's clock, first
POST to last. Every ``Delivery`` row must end DELIVERED and every event arrive, each
task's events in order (the receiver checks the sequence in ``X-A2A-Event-Id``).
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Receiver:
    url: str = ""
    times: list[float] = field(default_factory=list)
    event_ids: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: Any = None

    def count(self) -> int:
        with self.lock:
            return len(self.times)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_receiver() -> Receiver:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the sender's session reuses it

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            with state.lock:
                state.times.append(time.monotonic())
                state.event_ids.append(self.headers.get("X-A2A-Event-Id", ""))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.server = server
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state


def create_tasks(base: str, receiver_url: str, count: int, threads: int = 8) -> list[str]:
    """``count`` completed tasks, each with its own push config; their ids."""
    import requests

    local = threading.local()

    def one(_: int) -> str:
        session = getattr(local, "session", None)
        if session is None:
            session = local.session = requests.Session()
            session.trust_env = False
        message_id = f"bench-hook-{uuid.uuid4()}"
        body = {
            "jsonrpc": "2.0",
            "id": message_id,
            "method": "SendMessage",
            "params": {
                "message": {
                    "messageId": message_id,
                    "role": "ROLE_USER",
                    "parts": [{"text": "hello"}],
                },
                "configuration": {
                    "taskPushNotificationConfig": {"url": receiver_url, "token": "bench"}
                },
            },
        }
        response = session.post(
            f"{base}/a2a/jsonrpc", json=body, headers={"A2A-Version": "1.0"}, timeout=60
        )
        data = response.json()
        task = data.get("result", {}).get("task")
        if response.status_code != 200 or not task:
            raise RuntimeError(f"creating a task with a push config failed: {data}")
        if task["status"]["state"] != "TASK_STATE_COMPLETED":
            raise RuntimeError(f"task not completed: {task['status']}")
        return task["id"]

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(count)))


@dataclass
class DeliveryResult:
    tasks: int = 0
    expected: int = 0
    delivered: int = 0
    per_second: float = 0.0
    drain_s: float = 0.0
    worker_cpu_ms: float = 0.0
    failures: list[str] = field(default_factory=list)


def wait_and_check(
    receiver: Receiver, task_ids: list[str], expected: int, timeout: float
) -> DeliveryResult:
    from a2a_app.models import Delivery

    result = DeliveryResult(tasks=len(task_ids), expected=expected)
    deadline = time.monotonic() + timeout
    while receiver.count() < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the last rows' commits, and anything arriving twice
    with receiver.lock:
        times = list(receiver.times)
        event_ids = list(receiver.event_ids)
    result.delivered = len(times)
    if len(times) >= 2:
        result.drain_s = times[-1] - times[0]
        result.per_second = (len(times) - 1) / result.drain_s if result.drain_s else 0.0
    statuses: dict[str, int] = {}
    for status in Delivery.objects.filter(task_id__in=task_ids).values_list("status", flat=True):
        statuses[status] = statuses.get(status, 0) + 1
    if statuses.get("delivered", 0) != expected:
        result.failures.append(f"Delivery rows by status: {statuses} (expected {expected})")
    if len(set(event_ids)) != expected:
        result.failures.append(f"{len(set(event_ids))} distinct events received of {expected}")
    if len(event_ids) != len(set(event_ids)):
        result.failures.append(f"{len(event_ids) - len(set(event_ids))} duplicate POSTs")
    out_of_order = tasks_out_of_order(event_ids)
    if out_of_order:
        result.failures.append(f"{len(out_of_order)} tasks' events arrived out of order")
    return result


def tasks_out_of_order(event_ids: list[str]) -> set[str]:
    """Tasks whose events (``"{task id}:{sequence}"``, in arrival order) came out of order."""
    last: dict[str, int] = {}
    late: set[str] = set()
    for event_id in event_ids:
        task_id, _, sequence = event_id.rpartition(":")
        if int(sequence) <= last.get(task_id, 0):
            late.add(task_id)
        last[task_id] = int(sequence)
    return late


#: The budget (issue #16): throughput and worker CPU of the webhooks case.
BUDGET_LABEL = (
    "Webhooks ≥ 400 deliveries/s with two worker processes to a loopback receiver, "
    "≤ 2 ms worker CPU per delivery, every delivery logged"
)
BUDGET_PER_SECOND = 400.0
BUDGET_CPU_MS = 2.0


def budget_verdict(result: dict[str, Any]) -> str:
    """The budget table's cell for a webhooks result (a ``DeliveryResult`` as a dict).

    "Every delivery logged" holds when the run has no failures: each Delivery row ended
    delivered and the receiver got each event once, in order (``wait_and_check``).
    """
    ok = (
        result["per_second"] >= BUDGET_PER_SECOND
        and result["worker_cpu_ms"] <= BUDGET_CPU_MS
        and not result["failures"]
        and result["delivered"] == result["expected"]
    )
    return (
        f"{result['per_second']:.0f} deliveries/s, {result['worker_cpu_ms']:.2f} ms CPU each, "
        f"{result['delivered']:,} of {result['expected']:,} logged and in order: "
        + ("**pass**" if ok else "**FAIL**")
    )
