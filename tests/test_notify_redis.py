"""The Redis notifier's messages carry the events, as LISTEN/NOTIFY's payloads do.

Runs a redis-server of its own (the ``redis_server`` fixture: skipped when there is none,
except in CI).
"""

from __future__ import annotations

import asyncio

import pytest

from a2a_app import api
from a2a_app.caller import ANONYMOUS
from a2a_app.core import notify, streams
from a2a_app.protocol.params import TaskIdRequest
from tests import test_streaming_reads
from tests.test_streaming import COMPLETED, log_bodies, run, summary

# That module's fixtures: n tasks left WORKING; the stream reads, counted.
working_tasks = test_streaming_reads.working_tasks
fetch = test_streaming_reads.fetch

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_streams"),
]


def test_with_redis_a_stream_sends_the_events_its_messages_carried(
    settings, redis_server, working_tasks, fetch
):
    """Redis messages carry the events as LISTEN/NOTIFY's payloads do; a stream whose
    wake-up was reserved while its process was subscribed reads nothing."""
    url, _ = redis_server
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": url}
    notify.reset()
    notifier = notify.get_notifier()
    assert isinstance(notifier, notify.RedisNotifier)
    (task_id,) = working_tasks(1)

    async def scenario():
        await notifier.listen()  # subscribed, as after an ASGI server's start-up
        assert notifier.carries_events
        start = await asyncio.to_thread(
            streams.start_subscription, TaskIdRequest(id=task_id), ANONYMOUS
        )
        assert start.wake is not None
        completing = asyncio.ensure_future(asyncio.to_thread(api.complete, task_id, "done"))
        items = [item async for item, _ in streams.events(start)]
        await completing
        start.close()
        return start, items

    start, items = run(scenario())
    assert summary(items[1:]) == [("artifact", "done"), ("status", COMPLETED)]
    assert items[1:] == log_bodies(task_id, after=start.after)
    assert fetch.calls == []
    assert not notify.waiters.watched()


def test_a_message_of_an_earlier_version_wakes_the_stream_to_read(redis_server):
    """An earlier version's writers publish "1" on the task's channel: the stream is
    woken with nothing carried (it reads its log)."""
    url, _ = redis_server
    import redis

    notifier = notify.RedisNotifier(url)
    task_id = "t-earlier"

    async def scenario():
        await notifier.listen()
        wake = notify.waiters.add(task_id)
        try:
            redis.Redis.from_url(url).publish(notify.CHANNEL_PREFIX + task_id, b"1")
            await asyncio.wait_for(wake.wait(), 5)
            return wake.take(0)
        finally:
            notify.waiters.remove(task_id, wake)
            for listening, _ in notifier._listeners.values():
                listening.cancel()
            await asyncio.sleep(0.05)

    assert run(scenario()) is None
    assert not notifier.carries_events  # no subscription any more: streams read first
