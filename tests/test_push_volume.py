"""Webhooks at volume: kept-alive connections, order under two concurrent workers, and the
SSRF guard on every attempt of a kept connection.

A real ``RequestsSender`` posts to a local HTTP/1.1 receiver that counts the TCP
connections it accepts. The webhook URLs name hosts under ``.example``, which the policy's
stub resolver maps to the receiver's loopback address (allowed by
``WEBHOOK_ALLOWED_NETWORKS``) or, to simulate a DNS change, to a private one.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone

from a2a_app.models import Delivery, PushConfig, Task, TaskEvent
from a2a_app.push import delivery, policy
from a2a_app.push.senders import RequestsSender, WebhookRequest, WebhookResult, shared_sender


@dataclasses.dataclass
class Receiver:
    port: int
    connections: int = 0
    hosts: list[str] = dataclasses.field(default_factory=list)
    event_ids: list[str] = dataclasses.field(default_factory=list)
    cookies: list[str] = dataclasses.field(default_factory=list)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A keep-alive receiver: one handler per TCP connection, so ``connections`` counts them."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with state.lock:
                state.connections += 1

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            self.rfile.read(int(self.headers["Content-Length"]))
            with state.lock:
                state.hosts.append(self.headers["Host"])
                state.event_ids.append(self.headers.get("X-A2A-Event-Id", ""))
                state.cookies.append(self.headers.get("Cookie", ""))
            self.send_response(204)
            self.send_header("Set-Cookie", "session=abc; Path=/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = Receiver(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def dns(settings, monkeypatch) -> dict[str, list[str]]:
    """Host name → addresses for the SSRF guard (edit it to change DNS); loopback allowed."""
    settings.A2A_APP = {
        **settings.A2A_APP,
        "WEBHOOK_ALLOW_HTTP": True,
        "WEBHOOK_ALLOWED_NETWORKS": ["127.0.0.0/8"],
        "WEBHOOK_BACKOFF_SECONDS": 0.01,
        "WEBHOOK_BACKOFF_MAX_SECONDS": 0.02,
    }
    table = {"hook.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]}

    def resolver(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"stub resolver does not know {host}")
        return list(table[host])

    real_policy = policy.url_policy
    monkeypatch.setattr(
        policy, "url_policy", lambda: dataclasses.replace(real_policy(), resolver=resolver)
    )
    return table


def request(url: str, event_id: str = "e") -> WebhookRequest:
    return WebhookRequest(
        url=url, body=b"{}", headers={"X-A2A-Event-Id": event_id}, addresses=("127.0.0.1",)
    )


# --- connections ------------------------------------------------------------------------------


def test_one_connection_carries_many_deliveries(receiver):
    sender = RequestsSender()
    url = f"http://hook.example:{receiver.port}/a2a"
    results = [sender.send(request(url, str(n)), timeout=5) for n in range(20)]
    assert {r.status for r in results} == {204}
    assert receiver.event_ids == [str(n) for n in range(20)]
    assert receiver.connections == 1


def test_a_connection_is_never_reused_for_another_host(receiver):
    """Two hosts on one address: each its own connection, each request its own Host."""
    sender = RequestsSender()
    for _ in range(3):
        for host in ("hook.example", "other.example"):
            assert sender.send(request(f"http://{host}:{receiver.port}/"), timeout=5).status == 204
    expected = [f"{h}:{receiver.port}" for h in ("hook.example", "other.example")] * 3
    assert receiver.hosts == expected
    assert receiver.connections == 2


def test_no_cookie_a_receiver_sets_is_sent_back(receiver):
    """The sender lives as long as the worker: nothing a receiver sets may ride along later."""
    sender = RequestsSender()
    for host in ("hook.example", "hook.example", "other.example"):
        assert sender.send(request(f"http://{host}:{receiver.port}/"), timeout=5).status == 204
    assert receiver.cookies == ["", "", ""]
    assert len(sender.session.cookies) == 0


def test_the_shared_sender_is_one_per_process_and_class():
    first = shared_sender(RequestsSender)
    assert shared_sender(RequestsSender) is first
    assert isinstance(first, RequestsSender)


# --- deliveries through the database --------------------------------------------------------------


def task_with_events(url: str, count: int) -> PushConfig:
    """A task with ``count`` events, each pending for one webhook config."""
    task = Task.objects.create(
        context_id="ctx-volume",
        skill_id="gone",
        state="TASK_STATE_WORKING",
        status_timestamp=timezone.now(),
    )
    config = PushConfig.objects.create(task=task, config_id="c", url=url)
    for sequence in range(1, count + 1):
        body = {"statusUpdate": {"taskId": str(task.pk), "status": {"state": "TASK_STATE_WORKING"}}}
        event = TaskEvent.objects.create(task=task, sequence=sequence, kind="status", body=body)
        Delivery.objects.create(task=task, config=config, event=event, url=url)
    return config


@pytest.mark.django_db
def test_deliveries_of_several_runs_share_one_connection(receiver, dns, settings, dispatched):
    """The site's sender (``WEBHOOK_SENDER``) is kept by the process between runs."""
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_SENDER": "a2a_app.push.senders.RequestsSender"}
    config = task_with_events(f"http://hook.example:{receiver.port}/a2a", 12)
    assert delivery.deliver(config.pk, max_deliveries=5) == "wait"
    assert delivery.deliver(config.pk) == "done"
    assert [e.rsplit(":", 1)[1] for e in receiver.event_ids] == [str(n) for n in range(1, 13)]
    assert receiver.connections == 1
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


@pytest.mark.django_db
def test_a_host_moved_to_a_private_address_is_refused_on_the_next_attempt(
    receiver, dns, dispatched
):
    """The kept connection to the old address is not used: the guard resolves again first."""
    config = task_with_events(f"http://hook.example:{receiver.port}/a2a", 2)
    sender = RequestsSender()
    first, second = Delivery.objects.order_by("event_id")
    Delivery.objects.filter(pk=second.pk).update(next_attempt_at=timezone.now() + _later())
    assert delivery.deliver(config.pk, sender=sender) == "wait"
    assert receiver.event_ids == [f"{config.task_id}:1"]

    dns["hook.example"] = ["10.0.0.5"]
    Delivery.objects.filter(pk=second.pk).update(next_attempt_at=timezone.now())
    assert delivery.deliver(config.pk, sender=sender) == "done"
    second.refresh_from_db()
    assert second.status == Delivery.Status.FAILED
    assert "refused" in second.last_error and "10.0.0.5" in second.last_error
    assert receiver.event_ids == [f"{config.task_id}:1"]  # nothing more arrived
    assert receiver.connections == 1


def _later() -> Any:
    from datetime import timedelta

    return timedelta(minutes=5)


class FlakySender:
    """Sends through a real sender; the first attempt of every third event answers 503."""

    def __init__(self) -> None:
        self.inner = RequestsSender()
        self.failed: set[str] = set()
        self.lock = threading.Lock()

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        event_id = request.headers["X-A2A-Event-Id"]
        with self.lock:
            fail = int(event_id.rsplit(":", 1)[1]) % 3 == 0 and event_id not in self.failed
            if fail:
                self.failed.add(event_id)
        if fail:
            return WebhookResult(503)
        time.sleep(0.002)  # give the other worker a chance to step in
        return self.inner.send(request, timeout=timeout)


@pytest.mark.django_db(transaction=True)
def test_two_workers_deliver_one_config_in_order_across_retries(receiver, dns, dispatched):
    """Two workers call deliver for the same config over and over (as the queue and the sweep
    would): each event arrives once, and never before an earlier one, retried or not."""
    count = 30
    config = task_with_events(f"http://hook.example:{receiver.port}/a2a", count)
    sender = FlakySender()
    outcomes: list[str] = []

    def worker() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            outcome = delivery.deliver(config.pk, sender=sender)
            outcomes.append(outcome)
            if not Delivery.objects.filter(status=Delivery.Status.PENDING).exists():
                return
            time.sleep(0.005)

    from django.db import connections

    def run() -> None:
        try:
            worker()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    sequences = [int(e.rsplit(":", 1)[1]) for e in receiver.event_ids]
    assert sequences == list(range(1, count + 1))
    assert len(sender.failed) == count // 3  # every third event was retried
    rows = Delivery.objects.filter(config=config)
    assert set(rows.values_list("status", flat=True)) == {"delivered"}
    assert sorted(rows.values_list("attempts", flat=True)) == [1] * 20 + [2] * 10
    assert "busy" in outcomes or "wait" in outcomes  # the workers did meet
