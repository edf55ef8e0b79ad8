"""One worker run delivering many webhook configs (``delivery.deliver_due``).

The run claims the due configs in one statement, reads their pending deliveries in one
query and writes the attempts back together; these tests check that the guarantees of
the one-config run still hold: each config's events in order, never two workers on one
config, a failing receiver holding back only its own config, every attempt recorded.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from a2a_app import jobs
from a2a_app.models import Delivery, PushConfig, TaskEvent
from a2a_app.push import delivery
from a2a_app.push.senders import RequestsSender, WebhookRequest, WebhookResult
from tests.test_push_volume import dns, receiver, task_with_events  # noqa: F401 (fixtures)


class RecordingSender:
    """Answers 503 for hosts in ``failing``, else 200; records every request in order."""

    def __init__(self, failing: tuple[str, ...] = ()) -> None:
        self.failing = failing
        self.requests: list[WebhookRequest] = []

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        self.requests.append(request)
        failed = any(host in request.url for host in self.failing)
        return WebhookResult(503 if failed else 200)

    def sequences(self, config: PushConfig) -> list[int]:
        return [
            int(r.headers["X-A2A-Event-Id"].rsplit(":", 1)[1])
            for r in self.requests
            if r.headers["X-A2A-Config-Id"] == config.config_id
            and r.headers["X-A2A-Event-Id"].startswith(f"{config.task_id}:")
        ]


def configs(count: int, events: int, host: str = "hook.example") -> list[PushConfig]:
    return [task_with_events(f"http://{host}:8000/a2a", events) for _ in range(count)]


@pytest.mark.django_db
def test_one_run_delivers_many_configs_in_a_few_queries(
    dns,  # noqa: F811
    dispatched,
    django_assert_max_num_queries,
) -> None:
    many = configs(20, 2)
    sender = RecordingSender()
    # Claim, read, write the attempts, read again (nothing left), let go: not 6 per config.
    with django_assert_max_num_queries(8):
        outcome = delivery.deliver_due([many[0].pk], sender=sender)
    assert outcome == "20 done"
    assert all(sender.sequences(config) == [1, 2] for config in many)
    rows = Delivery.objects.all()
    assert set(rows.values_list("status", "attempts")) == {("delivered", 1)}
    assert not PushConfig.objects.filter(delivering_until__isnull=False).exists()
    assert delivery.deliver_due([many[0].pk], sender=sender) == "idle"  # a wake-up too many


@pytest.mark.django_db
def test_a_failing_receiver_holds_back_only_its_own_config(
    dns,  # noqa: F811
    dispatched,
    settings,
) -> None:
    dns["down.example"] = ["127.0.0.1"]
    backoff = {"WEBHOOK_BACKOFF_SECONDS": 60, "WEBHOOK_BACKOFF_MAX_SECONDS": 60}
    settings.A2A_APP = {**settings.A2A_APP, **backoff}
    [broken] = configs(1, 3, host="down.example")
    healthy = configs(2, 3)
    sender = RecordingSender(failing=("down.example",))

    assert delivery.deliver_due(sender=sender) == "2 done, 1 wait"

    assert all(sender.sequences(config) == [1, 2, 3] for config in healthy)
    assert sender.sequences(broken) == [1]  # its later events wait behind the retry
    first, *later = Delivery.objects.filter(config=broken).order_by("event_id")
    assert (first.status, first.attempts, first.last_status_code) == ("pending", 1, 503)
    assert first.next_attempt_at > timezone.now() + timedelta(seconds=20)
    assert [(d.status, d.attempts) for d in later] == [("pending", 0)] * 2
    [(ids, countdown)] = dispatched.deliveries
    assert ids == [broken.pk] and countdown > 0
    # While its retry waits, the config is not claimed again (its later events look due).
    assert delivery.deliver_due(sender=sender) == "idle"
    assert PushConfig.objects.get(pk=broken.pk).delivering_until is None
    # Its retry's own message, come early: scheduled again for the row's time, not posted.
    assert delivery.deliver_due([broken.pk], sender=sender) == "1 wait"
    assert sender.sequences(broken) == [1]
    [_, (ids, countdown)] = dispatched.deliveries
    assert ids == [broken.pk] and 20 < countdown <= 60
    assert PushConfig.objects.get(pk=broken.pk).delivering_until is None


@pytest.mark.django_db
def test_a_config_another_worker_holds_is_left_alone(dns, dispatched) -> None:  # noqa: F811
    held, free = configs(2, 2)
    until = timezone.now() + timedelta(seconds=60)
    PushConfig.objects.filter(pk=held.pk).update(delivering_until=until)
    sender = RecordingSender()
    assert delivery.deliver_due([held.pk, free.pk], sender=sender) == "1 done"
    assert sender.sequences(held) == [] and sender.sequences(free) == [1, 2]
    assert PushConfig.objects.get(pk=held.pk).delivering_until == until
    assert set(Delivery.objects.filter(config=held).values_list("status", flat=True)) == {"pending"}


@pytest.mark.django_db
def test_a_run_claims_at_most_its_limit_and_hands_on_the_rest(
    receiver,  # noqa: F811
    dns,  # noqa: F811
    dispatched,
) -> None:
    first, second, third = configs(3, 1)
    PushConfig.objects.update(url=f"http://hook.example:{receiver.port}/a2a")
    sender = RecordingSender()
    assert delivery.deliver_due([third.pk], limit=2, sender=sender) == "2 done"
    # The requested config comes first; one more due config fills the run.
    assert sender.sequences(third) == [1] and sender.sequences(first) == [1]
    assert dispatched.deliveries == [([first.pk, third.pk], 0)]  # wake another run
    assert dispatched.deliver_scheduled() == ["1 done"]
    assert len(receiver.event_ids) == 1  # the second config, by the next run
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


@pytest.mark.django_db
def test_a_delivery_committed_before_the_lease_is_let_go_gets_a_run(
    dns,  # noqa: F811
    dispatched,
    monkeypatch,
) -> None:
    [config] = configs(1, 1)
    sender = RecordingSender()
    read = delivery._pending_batches
    woken: list[str] = []

    def read_then_an_event_arrives(config_ids: list[int]) -> Any:
        batches, finished = read(config_ids)
        if config.pk in finished and not woken:
            # The run has read the config for the last time; its lease still holds.
            event = TaskEvent.objects.create(
                task=config.task, sequence=2, kind="status", body={"statusUpdate": {}}
            )
            Delivery.objects.create(task=config.task, config=config, event=event, url=config.url)
            # The event's own message wakes a run that finds the config leased.
            woken.append(delivery.deliver_due([config.pk], sender=sender))
        return batches, finished

    monkeypatch.setattr(delivery, "_pending_batches", read_then_an_event_arrives)
    assert delivery.deliver_due([config.pk], sender=sender) == "1 done"
    assert woken == ["idle"] and sender.sequences(config) == [1]
    # Once the lease is let go, the late delivery gets a run of its own, not the sweep.
    [(ids, countdown)] = dispatched.deliveries
    assert ids == [config.pk] and countdown == 0
    assert delivery.deliver_due(ids, sender=sender) == "1 done"
    assert sender.sequences(config) == [1, 2]


@pytest.mark.django_db
def test_the_job_takes_a_list_and_an_older_message_s_single_id(
    receiver,  # noqa: F811
    dns,  # noqa: F811
    dispatched,
) -> None:
    one, two = configs(2, 1)
    url = f"http://hook.example:{receiver.port}/a2a"
    PushConfig.objects.update(url=url)
    assert jobs.deliver_webhooks.run(one.pk) == "2 done"  # an int: queued by an older version
    assert jobs.deliver_webhooks.run([two.pk]) == "idle"
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


class OverlapSender:
    """Posts for real, slowly, and notes if two threads ever post for one config at once."""

    def __init__(self) -> None:
        self.inner = RequestsSender()
        self.active: dict[str, int] = {}
        self.overlaps: list[str] = []
        self.by_thread: dict[int, set[str]] = {}
        self.lock = threading.Lock()

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        config = request.headers["X-A2A-Event-Id"].rsplit(":", 1)[0]
        me = threading.get_ident()
        with self.lock:
            if self.active.get(config, me) != me:
                self.overlaps.append(config)
            self.active[config] = me
            self.by_thread.setdefault(me, set()).add(config)
        try:
            time.sleep(0.002)  # let the other worker try to step in
            return self.inner.send(request, timeout=timeout)
        finally:
            with self.lock:
                self.active.pop(config, None)


@pytest.mark.django_db(transaction=True)
def test_two_workers_never_deliver_one_config_at_once(
    receiver,  # noqa: F811
    dns,  # noqa: F811
    dispatched,
) -> None:
    """Two workers claim small runs over and over: each event arrives once, each task's in
    order, no config is posted to by both at the same time, and both did work."""
    configs(12, 5)
    PushConfig.objects.update(url=f"http://hook.example:{receiver.port}/a2a")
    sender = OverlapSender()

    def worker() -> None:
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                delivery.deliver_due(sender=sender, limit=3)
                if not Delivery.objects.filter(status=Delivery.Status.PENDING).exists():
                    return
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sender.overlaps == []
    assert len(receiver.event_ids) == len(set(receiver.event_ids)) == 12 * 5
    by_task: dict[str, list[int]] = {}
    for event_id in receiver.event_ids:
        task_id, _, sequence = event_id.rpartition(":")
        by_task.setdefault(task_id, []).append(int(sequence))
    assert all(sequences == [1, 2, 3, 4, 5] for sequences in by_task.values())
    assert set(Delivery.objects.values_list("status", "attempts")) == {("delivered", 1)}
    assert len(sender.by_thread) == 2  # both workers delivered some configs


@pytest.mark.django_db
def test_the_portable_claim_and_write_on_other_databases(
    dns,  # noqa: F811
    dispatched,
    monkeypatch,
) -> None:
    """A backend with neither UPDATE ... RETURNING nor UPDATE ... FROM: one conditional
    UPDATE per candidate config and one save per attempt, with the same outcome."""
    from django.db import connection

    held, first, second = configs(3, 2)
    until = timezone.now() + timedelta(seconds=60)
    PushConfig.objects.filter(pk=held.pk).update(delivering_until=until)
    monkeypatch.setattr(connection, "vendor", "elsewhere")
    sender = RecordingSender()
    assert delivery.deliver_due([second.pk], sender=sender) == "2 done"
    assert sender.sequences(first) == sender.sequences(second) == [1, 2]
    assert sender.sequences(held) == []
    statuses = dict(Delivery.objects.values_list("config_id", "status").distinct())
    assert statuses == {held.pk: "pending", first.pk: "delivered", second.pk: "delivered"}
