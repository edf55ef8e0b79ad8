"""One queued webhook run at a time (``a2a_app.core.queued_runs``).

Senders skip their message while a run is queued and has not started; the run clears
the mark before it claims. These tests check the three ways that could go wrong: two
senders both skipping (or both sending) at once, work committed while a run is queued
left without a run, and a lost message holding senders back for good.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from celery import Celery
from django.db import connection, connections, transaction
from django.utils import timezone

from a2a_app import jobs
from a2a_app.core import dispatch, queued_runs
from a2a_app.models import Delivery, PushConfig, QueuedRun
from a2a_app.push import delivery
from tests.test_push_volume import dns, receiver, task_with_events  # noqa: F401 (fixtures)

JOB = dispatch.DELIVER_WEBHOOKS


class RecordingApp:
    """A Celery app whose broker keeps the messages sent (``sent``), or refuses them."""

    conf = Celery("recording", set_as_current=False).conf

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.sent: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def send_task(self, name: str, args: tuple[Any, ...] = (), **options: Any) -> None:
        if self.refuse:
            raise ConnectionError("broker refused")
        self.sent.append((name, args, options))

    def deliveries(self) -> list[tuple[list[int], float]]:
        return [(args[0], options.get("countdown", 0)) for name, args, options in self.sent]


@pytest.fixture
def broker() -> Any:
    app = RecordingApp()
    with dispatch.dispatching_to(dispatch.CeleryDispatcher(app=app)):
        yield app


@pytest.mark.django_db(transaction=True)
def test_a_mark_lets_one_sender_through_until_the_run_starts() -> None:
    assert queued_runs.mark_queued(JOB) is True
    assert queued_runs.mark_queued(JOB) is False
    assert queued_runs.mark_queued(JOB) is False
    queued_runs.started(JOB)
    assert queued_runs.mark_queued(JOB) is True
    # Another job has its own mark.
    assert queued_runs.mark_queued("another.job") is True
    assert set(QueuedRun.objects.values_list("job", flat=True)) == {JOB, "another.job"}


@pytest.mark.django_db(transaction=True)
def test_a_mark_expires_so_a_lost_message_only_delays() -> None:
    assert queued_runs.mark_queued(JOB) is True
    # The message was lost (a broker restart): nobody removes the mark.
    QueuedRun.objects.filter(job=JOB).update(until=timezone.now() - timedelta(seconds=1))
    assert queued_runs.mark_queued(JOB) is True
    [mark] = QueuedRun.objects.all()
    assert mark.until > timezone.now() + queued_runs.TTL - timedelta(seconds=5)


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_every_sender_sends_and_marks_nothing() -> None:
    # A mark committed only later could outlive the run it stood for.
    with transaction.atomic():
        assert queued_runs.mark_queued(JOB) is True
        assert queued_runs.mark_queued(JOB) is True
    assert not QueuedRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_senders_send_one_message() -> None:
    senders = 8
    ready = threading.Barrier(senders)
    answers: list[bool] = []

    def mark() -> None:
        try:
            ready.wait(5)
            answers.append(queued_runs.mark_queued(JOB))
        finally:
            connections.close_all()

    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("threads share no in-memory SQLite database")
    threads = [threading.Thread(target=mark) for _ in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(answers) == [False] * (senders - 1) + [True]


@pytest.mark.django_db(transaction=True)
def test_the_dispatcher_sends_one_message_while_a_run_is_queued(broker) -> None:
    dispatcher = dispatch.get_dispatcher()
    dispatcher.schedule_deliveries([1])
    dispatcher.schedule_deliveries([2, 3])
    dispatcher.schedule_deliveries([])  # nothing to deliver: nothing sent, nothing marked
    # A retry's message is for later: sent whatever is queued.
    dispatcher.schedule_deliveries([4], countdown=2.5)
    assert broker.deliveries() == [([1], 0), ([4], 2.5)]
    # A long list still goes out in run-sized messages, so several workers share it.
    queued_runs.started(JOB)
    dispatcher.schedule_deliveries(range(dispatch.CONFIGS_PER_RUN + 1))
    assert [len(ids) for ids, _ in broker.deliveries()[2:]] == [dispatch.CONFIGS_PER_RUN, 1]


@pytest.mark.django_db(transaction=True)
def test_a_message_the_broker_refused_leaves_no_mark(settings) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "OUTAGE_RETRY_SECONDS": 0}
    app = RecordingApp(refuse=True)
    dispatcher = dispatch.CeleryDispatcher(app=app)
    dispatcher.schedule_deliveries([1])
    assert not QueuedRun.objects.exists()  # the next sender tries the broker again
    app.refuse = False
    dispatcher.breaker.succeeded()
    dispatcher.schedule_deliveries([2])
    assert app.deliveries() == [([2], 0)]


@pytest.mark.django_db(transaction=True)
def test_work_committed_while_a_run_is_queued_is_that_run_s(
    broker,
    dns,  # noqa: F811
    receiver,  # noqa: F811
) -> None:
    url = f"http://hook.example:{receiver.port}/a2a"
    first = task_with_events(url, 2)
    dispatch.get_dispatcher().schedule_deliveries([first.pk])  # sent: the run is queued
    second = task_with_events(url, 3)  # committed after: its sender finds the mark
    dispatch.get_dispatcher().schedule_deliveries([second.pk])
    [(ids, _)] = broker.deliveries()
    assert ids == [first.pk]

    # The worker takes the one message; its run claims both configs.
    assert jobs.deliver_webhooks(ids) == "2 done"
    assert len(receiver.event_ids) == 5
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}
    # The run removed the mark before it claimed: the next event gets a message of its own.
    assert not QueuedRun.objects.exists()
    third = task_with_events(url, 1)
    dispatch.get_dispatcher().schedule_deliveries([third.pk])
    assert [ids for ids, _ in broker.deliveries()] == [[first.pk], [third.pk]]


@pytest.mark.django_db(transaction=True)
def test_a_stuck_mark_holds_the_sweep_back_only_until_it_expires(
    broker,
    dns,  # noqa: F811
) -> None:
    config = task_with_events("http://hook.example:8000/a2a", 1)
    assert queued_runs.mark_queued(JOB)  # its message was lost on the way
    assert delivery.sweep() == {"webhook_configs": 1}
    assert broker.deliveries() == []  # the lost run is still counted on
    QueuedRun.objects.update(until=timezone.now() - timedelta(seconds=1))
    delivery.sweep()
    assert broker.deliveries() == [([config.pk], 0)]


@pytest.mark.django_db(transaction=True)
def test_a_full_run_wakes_the_next_before_it_delivers(
    broker,
    dns,  # noqa: F811
) -> None:
    many = [task_with_events("http://hook.example:8000/a2a", 1) for _ in range(3)]

    class WatchingSender:
        """Notes, at each POST, how many messages the broker has had."""

        def __init__(self) -> None:
            self.sent_before: list[int] = []

        def send(self, request: Any, *, timeout: float) -> Any:
            from a2a_app.push.senders import WebhookResult

            self.sent_before.append(len(broker.sent))
            return WebhookResult(200)

    sender = WatchingSender()
    assert delivery.deliver_due([], limit=2, sender=sender) == "2 done"
    # The next run was on its way before the first POST: another worker shares the work.
    assert sender.sent_before == [1, 1]
    [(ids, _)] = broker.deliveries()
    assert ids == [many[0].pk, many[1].pk]  # leased here: that run claims the third
    assert delivery.deliver_due(ids, limit=2, sender=sender) == "1 done"
    assert not PushConfig.objects.filter(delivering_until__isnull=False).exists()
