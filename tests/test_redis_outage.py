"""A hung Redis (SIGSTOP: connections are accepted, nothing is answered) must not stall
requests: the stream notifier and the Celery broker publish are bounded by their
timeouts, and after one failure a breaker skips them (issue #13).

Runs a redis-server of its own on a free port; skipped when there is none, except in CI.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from typing import Any

import pytest
from celery import Celery
from django.test import AsyncClient, Client

from a2a_app import api
from a2a_app.core import dispatch, notify
from a2a_app.models import Task
from a2a_app.testing import record_dispatch, sse_events
from tests.conftest import user_message
from tests.support import Later

pytestmark = pytest.mark.django_db(transaction=True)

#: What a write may take while Redis hangs.
BOUND = 1.5


@pytest.fixture
def hung_redis(redis_server: tuple[str, int]) -> str:
    """The URL of a redis-server that is stopped (SIGSTOP) for the test."""
    url, pid = redis_server
    os.kill(pid, signal.SIGSTOP)
    return url


def post_send(text: str, skill: str, **configuration: object) -> dict:
    payload = {
        "message": user_message(text),
        "configuration": configuration,
        "metadata": {"skillId": skill},
    }
    response = Client().post(
        "/a2a/jsonrpc",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": payload}),
        content_type="application/json",
    )
    return response.json()


def timed(fn, *args, **kwargs) -> tuple[object, float]:
    """``fn`` in a thread (a hung call must fail the test, not hang it): result, seconds."""
    started = time.monotonic()
    thread = Later(fn, *args, delay=0, **kwargs)
    thread.start()
    thread.join(BOUND + 1)
    assert not thread.is_alive(), f"{fn.__name__} still waits after {BOUND + 1} s"
    return thread.outcome(), time.monotonic() - started


def test_writes_and_sends_answer_promptly_while_redis_hangs(hung_redis, install, settings):
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": hung_redis}
    notify.reset()
    install(lambda ctx: ctx.complete("done"), key="inline")
    install(lambda ctx: ctx.complete("later"), key="bg", background=True)
    celery = Celery("outage", broker=hung_redis)
    with dispatch.dispatching_to(dispatch.CeleryDispatcher(celery)):
        for i in range(3):  # every write publishes to the notifier
            body, seconds = timed(post_send, f"inline {i}", "inline")
            assert body["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
            assert seconds < BOUND, f"write {i} took {seconds:.2f} s"
        for i in range(2):  # and a background task goes to the broker
            body, seconds = timed(post_send, f"bg {i}", "bg", returnImmediately=True)
            assert body["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
            assert seconds < BOUND, f"returnImmediately send {i} took {seconds:.2f} s"
    # The task waits, SUBMITTED, for the sweep to hand it to the broker again.
    assert Task.objects.filter(state="TASK_STATE_SUBMITTED").count() == 2


def test_streams_fall_back_to_polling_the_database_while_redis_hangs(hung_redis, install, settings):
    """The task is finished elsewhere (no wake-up in this process): only the database
    poller, running while Redis is out, can tell the stream."""
    settings.A2A_APP = {
        **settings.A2A_APP,
        "NOTIFIER_REDIS_URL": hung_redis,
        "STREAM_POLL_SECONDS": 0.05,
        "STREAM_KEEPALIVE_SECONDS": 60,
    }
    notify.reset()
    install(lambda ctx: ctx.keep_working("waiting"), key="manual")
    task = post_send("go", "manual")["result"]["task"]
    subscribe = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task["id"]}}
    )

    async def scenario() -> list[dict]:
        response = await AsyncClient().post(
            "/a2a/jsonrpc", subscribe, content_type="application/json"
        )
        events = sse_events(response)
        first = await anext(events)
        finisher = Later(finish_elsewhere, task["id"], delay=0.2)
        finisher.start()
        started = time.monotonic()
        later = await asyncio.wait_for(collect(events), 10)
        finisher.outcome()
        assert time.monotonic() - started < 3  # 2 × REDIS_TIMEOUT + 1, then a poll
        return [first, later[-1]]

    first, last = asyncio.run(scenario())
    assert first["result"]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    assert last["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def collect(events: Any) -> list[dict]:
    return [event async for event in events]


def finish_elsewhere(task_id: str) -> None:
    with record_dispatch(wake_streams=False):
        api.complete(task_id, "done")


def broker_clients(url: str) -> int:
    """Connections to the test's redis-server, this check's own left out."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        own = client.client_id()
        return sum(1 for c in client.client_list() if int(c["id"]) != own)
    finally:
        client.close()


def test_the_dispatcher_connects_to_the_broker_before_its_first_publish(redis_server):
    url, _ = redis_server
    app = Celery("connect-ahead", broker=url, set_as_current=False)
    dispatcher = dispatch.CeleryDispatcher(app=app)
    assert broker_clients(url) == 0
    dispatcher.connect()  # what ASGI start-up calls: it returns at once, the thread connects
    deadline = time.monotonic() + 5
    while broker_clients(url) == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert broker_clients(url) == 1  # before any publish
    # The first publish reuses the connected producer (kombu's Redis channel then adds
    # the connection it writes on: ~1 ms, against ~200 ms for the whole cold start).
    dispatcher.enqueue_run("a-task")
    import redis

    assert redis.Redis.from_url(url).llen("celery") == 1
    assert not dispatcher.breaker.is_open


def test_connecting_ahead_to_a_hung_broker_holds_nothing_up(hung_redis):
    app = Celery("connect-ahead", broker=hung_redis, set_as_current=False)
    dispatcher = dispatch.CeleryDispatcher(app=app)
    _, seconds = timed(dispatcher.connect)
    assert seconds < 0.5
