"""Background skills and push notifications with real parts: uvicorn, a Celery worker
process, Redis as the broker, and a webhook receiver on loopback.

The conformance skill's ``sleep N`` runs in the worker; the fast settings (short lease,
one-second sweep, quick webhook backoff) are in ``conftest.FAST``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
import requests
from standardwebhooks.webhooks import Webhook

from a2a_app.models import Delivery, Task

pytestmark = pytest.mark.integration


def rpc(base: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = requests.post(
        f"{base}/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params},
        headers={"A2A-Version": "1.0"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def send(base: str, text: str, **configuration: Any) -> dict[str, Any]:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = rpc(base, "SendMessage", {"message": message, "configuration": configuration})
    assert "result" in body, body
    return body["result"]["task"]


def wait_for_state(base: str, task_id: str, states: set[str], timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        task = rpc(base, "GetTask", {"id": task_id})["result"]
        if task["status"]["state"] in states or time.monotonic() > deadline:
            return task
        time.sleep(0.1)


def test_return_immediately_then_the_worker_completes_it(start_web, start_worker) -> None:
    base = start_web()
    start_worker()
    task = send(base, "sleep 1", returnImmediately=True)
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    done = wait_for_state(base, task["id"], {"TASK_STATE_COMPLETED"})
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert done["artifacts"][0]["parts"][0]["text"] == "echo: sleep 1"


def test_blocking_send_waits_for_the_worker(start_web, start_worker) -> None:
    base = start_web()
    start_worker()
    started = time.monotonic()
    task = send(base, "sleep 1")
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert time.monotonic() - started >= 1


def test_cancel_while_running_drops_the_late_result(start_web, start_worker) -> None:
    base = start_web()
    start_worker()
    task = send(base, "sleep 3", returnImmediately=True)
    wait_for_state(base, task["id"], {"TASK_STATE_WORKING"})
    canceled = rpc(base, "CancelTask", {"id": task["id"]})["result"]
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    time.sleep(4)  # the worker finishes its sleep and tries to write the result
    after = rpc(base, "GetTask", {"id": task["id"]})["result"]
    assert after["status"]["state"] == "TASK_STATE_CANCELED"
    assert not after.get("artifacts")


def test_a_killed_worker_leaves_no_task_stuck(start_web, start_worker) -> None:
    base = start_web()
    worker = start_worker(A2A_MAX_RUN_ATTEMPTS="1")
    task = send(base, "sleep 30", returnImmediately=True)
    wait_for_state(base, task["id"], {"TASK_STATE_WORKING"})
    worker.kill()
    # A fresh worker's sweep finds the expired lease (3 s) and, with no attempts left,
    # fails the task with a reason instead of leaving it WORKING forever.
    start_worker(A2A_MAX_RUN_ATTEMPTS="1")
    failed = wait_for_state(base, task["id"], {"TASK_STATE_FAILED"}, timeout=40)
    assert failed["status"]["state"] == "TASK_STATE_FAILED"
    assert "stopped unexpectedly" in failed["status"]["message"]["parts"][0]["text"]


def test_a_killed_worker_task_is_retried_by_another(start_web, start_worker) -> None:
    base = start_web()
    worker = start_worker(A2A_MAX_RUN_ATTEMPTS="2")
    task = send(base, "sleep 4", returnImmediately=True)
    wait_for_state(base, task["id"], {"TASK_STATE_WORKING"})
    worker.kill()
    start_worker(A2A_MAX_RUN_ATTEMPTS="2")
    done = wait_for_state(base, task["id"], {"TASK_STATE_COMPLETED"}, timeout=40)
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert Task.objects.get(pk=task["id"]).run_attempts == 2


def test_a_live_worker_keeps_a_task_longer_than_its_lease(start_web, start_worker) -> None:
    base = start_web()
    start_worker()
    # One 6 s call that reports nothing, on a 3 s lease: the heartbeat (1 s) keeps it,
    # so the sweep (every second) never takes the task for a dead worker's.
    task = send(base, "block 6", returnImmediately=True)
    done = wait_for_state(base, task["id"], {"TASK_STATE_COMPLETED"}, timeout=40)
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert done["artifacts"][0]["parts"][0]["text"] == "echo: block 6"
    assert Task.objects.get(pk=task["id"]).run_attempts == 1


def test_a_task_of_a_worker_killed_mid_run_is_rerun_within_seconds(start_web, start_worker) -> None:
    base = start_web()
    worker = start_worker()
    task = send(base, "block 6", returnImmediately=True)
    wait_for_state(base, task["id"], {"TASK_STATE_WORKING"})
    time.sleep(2)
    worker.kill()  # SIGKILL, mid-run: no heartbeat any more
    killed = time.monotonic()
    start_worker()
    # The lease (3 s) runs out, the new worker's sweep sees it and, the conformance skill
    # being rerun_safe, runs it again from the start.
    deadline = killed + 20
    while Task.objects.get(pk=task["id"]).run_attempts < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Task.objects.get(pk=task["id"]).run_attempts == 2
    assert time.monotonic() - killed < 20
    done = wait_for_state(base, task["id"], {"TASK_STATE_COMPLETED"}, timeout=30)
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"


def test_broker_down_at_enqueue_then_the_sweep_resubmits(start_web, start_worker) -> None:
    # This web process cannot reach any broker; the worker (and its sweep) can.
    base = start_web(CELERY_BROKER_URL="redis://127.0.0.1:1/0")
    start_worker()
    task = send(base, "sleep 0", returnImmediately=True)
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    done = wait_for_state(base, task["id"], {"TASK_STATE_COMPLETED"}, timeout=40)
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"


def push_config(receiver: Any, **extra: Any) -> dict[str, Any]:
    return {
        "url": receiver.url,
        "authentication": {"scheme": "Bearer", "credentials": "secret-token"},
        "token": "notify-token",
        **extra,
    }


def first_delivery_settled(task_id: str, timeout: float = 40) -> Delivery | None:
    """The task's first delivery row once it is no longer pending (or as it is at the
    deadline). The worker writes a batch's rows after its POSTs, so the receiver can
    have the event a moment before the row says so."""
    deadline = time.monotonic() + timeout
    while True:
        first = Delivery.objects.filter(task_id=task_id).order_by("event_id").first()
        settled = first is not None and first.status != Delivery.Status.PENDING
        if settled or time.monotonic() > deadline:
            return first
        time.sleep(0.1)


def test_webhook_gets_every_event_in_order_with_auth(start_web, start_worker, receiver) -> None:
    base = start_web()
    start_worker()
    task = send(
        base, "sleep 1", returnImmediately=True, taskPushNotificationConfig=push_config(receiver)
    )
    received = receiver.wait_for(4)
    kinds = [
        ("status", r.body["statusUpdate"]["status"]["state"])
        if "statusUpdate" in r.body
        else ("artifact", r.body["artifactUpdate"]["artifact"]["parts"][0]["text"])
        for r in received
    ]
    assert kinds == [
        ("status", "TASK_STATE_SUBMITTED"),
        ("status", "TASK_STATE_WORKING"),
        ("artifact", "echo: sleep 1"),
        ("status", "TASK_STATE_COMPLETED"),
    ]
    for r in received:
        assert r.headers["Authorization"] == "Bearer secret-token"
        assert r.headers["X-A2A-Notification-Token"] == "notify-token"
        # Signed with the token, over the bytes that came (a receiver over real HTTP).
        Webhook(b"notify-token").verify(r.raw, r.headers)
        assert r.headers["Content-Type"] == "application/a2a+json"
        assert r.body[next(iter(r.body))]["taskId"] == task["id"]
    assert len({r.headers["X-A2A-Event-Id"] for r in received}) == 4


def test_webhook_answering_500_twice_gets_it_on_the_third_attempt(
    start_web, start_worker, receiver
) -> None:
    base = start_web()
    start_worker()
    receiver.script = [500, 500]
    task = send(base, "hello", taskPushNotificationConfig=push_config(receiver))
    received = receiver.wait_for(2)  # the artifact and the COMPLETED status
    assert [next(iter(r.body)) for r in received] == ["artifactUpdate", "statusUpdate"]
    first = first_delivery_settled(task["id"])
    assert first is not None
    assert (first.status, first.attempts, first.last_status_code) == ("delivered", 3, 200)


def test_webhook_that_never_answers_is_retried_then_failed(
    start_web, start_worker, receiver
) -> None:
    base = start_web()
    start_worker()
    receiver.script = ["hang", "hang", "hang"]
    task = send(base, "hello", taskPushNotificationConfig=push_config(receiver))
    first = first_delivery_settled(task["id"])
    assert first is not None and first.status == "failed"
    assert first.attempts == 3
    assert "no answer" in first.last_error
    # Deliveries after a given-up one still go out, in order.
    assert receiver.wait_for(1, timeout=20)[0].body["statusUpdate"]["status"]["state"] == (
        "TASK_STATE_COMPLETED"
    )


def test_webhook_wake_ups_are_one_message_while_one_is_queued(
    start_web, start_worker, receiver, redis_url
) -> None:
    """Twenty tasks' events pending and no worker yet: one message waits in the broker
    (core.queued_runs), not one per task; when a worker comes, its runs deliver them all,
    each task's in order."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    import redis

    from a2a_app.core.dispatch import DELIVER_WEBHOOKS

    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()  # messages earlier tests left for workers now gone
    base = start_web()
    with ThreadPoolExecutor(4) as pool:
        tasks = list(
            pool.map(
                lambda _: send(base, "hello", taskPushNotificationConfig=push_config(receiver)),
                range(20),
            )
        )
    queued = [json.loads(message) for message in broker.lrange("celery", 0, -1)]
    wake_ups = [m for m in queued if m["headers"]["task"] == DELIVER_WEBHOOKS]
    assert len(wake_ups) == 1, [m["headers"]["task"] for m in queued]

    start_worker()
    expected = Delivery.objects.filter(task_id__in=[t["id"] for t in tasks]).count()
    assert expected >= 40  # each task's artifact and COMPLETED status at least
    received = receiver.wait_for(expected)
    event_ids = [r.headers["X-A2A-Event-Id"] for r in received]
    assert sorted(event_ids) == sorted(set(event_ids)) and len(event_ids) == expected
    for task in tasks:
        sequences = [int(e.rsplit(":", 1)[1]) for e in event_ids if e.startswith(f"{task['id']}:")]
        assert sequences == sorted(sequences) and sequences, task["id"]


def test_a_lost_webhook_wake_up_only_delays_the_deliveries(
    start_web, start_worker, receiver, redis_url
) -> None:
    """The one queued message is lost (Redis restarted: it keeps nothing on disk). Its
    mark holds senders and the sweep back until it expires; then the sweep's message
    delivers every event."""
    import redis

    from a2a_app.core import queued_runs
    from a2a_app.models import QueuedRun

    base = start_web()
    tasks = [
        send(base, "hello", taskPushNotificationConfig=push_config(receiver)) for _ in range(3)
    ]
    assert QueuedRun.objects.exists()
    redis.Redis.from_url(redis_url).flushdb()  # the message is gone
    lost_at = time.monotonic()
    start_worker()  # with the sweep, every second
    expected = Delivery.objects.filter(task_id__in=[t["id"] for t in tasks]).count()
    ttl = queued_runs.TTL.total_seconds()
    received = receiver.wait_for(expected, timeout=ttl + 30)
    assert len(received) == expected
    # Not before the mark expired: until then the lost run was counted on.
    assert time.monotonic() - lost_at > ttl - 5
