"""Waking streams when a task has new events, across threads and processes.

Events live in the database (``TaskEvent``); a notifier only says "task X has news", and
the stream then reads the log. So a lost or duplicated wake-up costs a query, never an
event. Three backends, chosen by :func:`get_notifier`:

* ``RedisNotifier`` when ``NOTIFIER_REDIS_URL`` is set (an explicit choice wins);
* else, on PostgreSQL, ``PostgresNotifier`` (:mod:`a2a_app.core.notify_pg`): writers
  NOTIFY in the transaction that records the events, one LISTEN connection per process;
* else ``DatabaseNotifier`` (SQLite, no extra service): one poller per
  process asks every ``STREAM_POLL_SECONDS`` which watched tasks' ``event_count`` moved
  (one query for all streams of the process, none when nobody watches).

``RedisNotifier``: writers publish on ``a2a:task:<id>`` after commit; each process
holds one pattern subscription and wakes its own streams. Idle streams cost no query
and no database connection. Every Redis call is bounded by ``REDIS_TIMEOUT``; when
Redis fails or hangs, it is skipped for ``OUTAGE_RETRY_SECONDS`` and streams poll the
database meanwhile, so a hung Redis slows no write.

Writers in the same process also wake local streams directly (``publish``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connection

from a2a_app.conf import a2a_settings
from a2a_app.core.breaker import Breaker

logger = logging.getLogger("a2a_app.streams")

CHANNEL_PREFIX = "a2a:task:"

JSON = dict[str, Any]


@dataclass(frozen=True)
class EventBatch:
    """The events one write appended to a task's log, as its notification carried them:
    a stream that has read up to ``first - 1`` takes them without reading the log."""

    #: The sequence number of the first of them.
    first: int
    bodies: list[JSON]


#: The largest notification that carries its events: PostgreSQL refuses a NOTIFY payload
#: of 8000 bytes or more (Redis has no such limit; the same one keeps its messages small).
MAX_NOTIFICATION_BYTES = 7999


def notification(task_id: str, first: int, bodies: list[JSON]) -> str:
    """What a write that appended ``bodies`` to the task's log from sequence ``first``
    notifies: ``["<task id>", first, [body, ...]]``, or the bare task id when that would
    not fit. The bodies are encoded as the write encodes them
    (:func:`a2a_app.core.rows.encode_json`), so a stream sends what a read of the log
    would return."""
    from a2a_app.core.rows import encode_json

    text = encode_json([task_id, first, bodies])
    # ASCII (non-ASCII characters are escaped): its length is its size in bytes.
    return text if len(text) <= MAX_NOTIFICATION_BYTES else task_id


def parse_notification(text: str) -> tuple[str, EventBatch | None]:
    """The task id a notification is about, and the events it carried (if any)."""
    if not text.startswith("["):
        return text, None
    try:
        task_id, first, bodies = json.loads(text)
        return str(task_id), EventBatch(int(first), list(bodies))
    except (ValueError, TypeError):  # not ours, or garbled: nobody to wake
        logger.warning("ignored a notification that is not a task's: %.80s", text)
        return "", None


class Wake(asyncio.Event):
    """One stream's wake-up: set when its task has news, with the event batches the
    notifications carried (None for a wake-up that carried none).

    A wake-up can be reserved before its stream runs (:meth:`Waiters.reserve`, by the
    request that takes the stream's snapshot, before it commits); until the stream
    attaches it to its event loop, what is delivered is kept (``early``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__()
        #: The event loop of its stream; None while reserved.
        self.loop = loop
        self.batches: list[EventBatch | None] = []
        #: Delivered while reserved (under the waiters' lock).
        self.early: list[EventBatch | None] = []

    def deliver(self, batch: EventBatch | None) -> None:
        self.batches.append(batch)
        self.set()

    def clear(self) -> None:
        """Forget what was delivered (a read of the log that follows covers it)."""
        super().clear()
        self.batches = []

    def take(self, after: int) -> list[tuple[int, JSON]] | None:
        """The carried events after sequence ``after``, in order, and clear; None when
        a wake-up carried nothing or the batches leave a gap (then read the log)."""
        batches, following = self.batches, after + 1
        self.clear()
        events: list[tuple[int, JSON]] = []
        for batch in batches:
            if batch is None:
                return None
            for sequence, body in enumerate(batch.bodies, batch.first):
                if sequence < following:
                    continue  # read already (a wake-up that came during a read)
                if sequence > following:
                    return None  # some events were not carried: the log has them
                events.append((sequence, body))
                following += 1
        return events


class Waiters:
    """Wake-ups per task id, settable from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wakes: dict[str, set[Wake]] = defaultdict(set)

    def add(self, task_id: str) -> Wake:
        """A wake-up for a stream on the running event loop."""
        wake = Wake(asyncio.get_running_loop())
        with self._lock:
            self._wakes[task_id].add(wake)
        return wake

    def reserve(self, task_id: str) -> Wake:
        """A wake-up for a stream that has not started yet (any thread); see attach."""
        wake = Wake()
        with self._lock:
            self._wakes[task_id].add(wake)
        return wake

    def attach(self, wake: Wake) -> Wake:
        """Hand a reserved wake-up to the running event loop, with what it was given
        meanwhile (wake-ups after this come through the loop, behind these)."""
        with self._lock:
            wake.loop = asyncio.get_running_loop()
            early, wake.early = wake.early, []
        for batch in early:
            wake.deliver(batch)
        return wake

    def remove(self, task_id: str, wake: Wake) -> None:
        with self._lock:
            wakes = self._wakes.get(task_id, set())
            wakes.discard(wake)
            if not wakes:
                self._wakes.pop(task_id, None)

    def watched(self) -> list[str]:
        with self._lock:
            return list(self._wakes)

    def watching(self, task_id: str) -> bool:
        with self._lock:
            return task_id in self._wakes

    def wake(self, task_id: str, batch: EventBatch | None = None) -> None:
        with self._lock:
            wakes = list(self._wakes.get(task_id, ()))
            for wake in wakes:
                if wake.loop is None:
                    wake.early.append(batch)
        for wake in wakes:
            if wake.loop is not None:
                with contextlib.suppress(RuntimeError):  # that loop is closed
                    wake.loop.call_soon_threadsafe(wake.deliver, batch)


waiters = Waiters()


class DatabaseNotifier:
    #: Writers NOTIFY on no channel (see PostgresNotifier).
    channel: str | None = None
    #: Do its wake-ups carry the events (:func:`notification`)?
    carries = False
    #: ... and will they, for whatever commits from now on (a stream's wake-up reserved
    #: now needs no first read of the log)?
    carries_events = False

    def __init__(self, only_while: Callable[[], bool] | None = None) -> None:
        #: Poll only while this says so (the Redis notifier's fallback: while Redis is out).
        self.only_while = only_while
        self._pollers: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
        self._counts: dict[str, int] = {}

    def publish(self, task_id: str, note: str | None = None) -> None:
        waiters.wake(task_id)

    async def listen(self) -> None:
        """Make sure this event loop's poller runs."""
        loop = asyncio.get_running_loop()
        poller = self._pollers.get(loop)
        if poller is None or poller.done():
            self._pollers[loop] = loop.create_task(self._poll())

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(a2a_settings.STREAM_POLL_SECONDS)
            watched = waiters.watched()
            if not watched or (self.only_while is not None and not self.only_while()):
                continue
            try:
                counts = await sync_to_async(_event_counts, thread_sensitive=False)(watched)
            except Exception:
                logger.exception("polling for task events failed")
                continue
            for task_id, count in counts.items():
                if self._counts.get(task_id) != count:
                    self._counts[task_id] = count
                    waiters.wake(task_id)
            for task_id in set(self._counts) - set(watched):
                del self._counts[task_id]


def _event_counts(task_ids: list[str]) -> dict[str, int]:
    from a2a_app.models import Task

    try:
        rows = Task.objects.filter(pk__in=task_ids).values_list("pk", "event_count")
        return {str(pk): count for pk, count in rows}
    finally:
        connection.close()  # hand the connection back: the poller is idle most of the time


def redis_options(for_asyncio: bool = False) -> dict[str, Any]:
    """Every Redis call is bounded by ``REDIS_TIMEOUT`` and tried once: a hung Redis must
    cost a write at most that, and the breaker then skips it. ``for_asyncio``: the
    options of a ``redis.asyncio`` client, whose retry policy is a class of its own (given
    the other, redis-py 6 and later warn at every connection)."""
    from redis.backoff import NoBackoff

    if for_asyncio:
        from redis.asyncio.retry import Retry
    else:
        from redis.retry import Retry

    timeout = a2a_settings.REDIS_TIMEOUT
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
    }


class RedisNotifier:
    """Redis pub/sub; while Redis is out (the breaker open), streams poll the database.

    A message carries the events of the write (:func:`notification`), as LISTEN/NOTIFY's
    payload does."""

    channel: str | None = None
    carries = True
    #: A subscription idle this long pings Redis: a hung server sends no error.
    HEALTH_CHECK_SECONDS = 5.0

    def __init__(self, url: str) -> None:
        import redis

        self.url = url
        self._client = redis.Redis.from_url(url, **redis_options())
        self.breaker = Breaker(f"Redis at {url}")
        self._fallback = DatabaseNotifier(only_while=lambda: self.breaker.is_open)
        self._listeners: dict[asyncio.AbstractEventLoop, tuple[asyncio.Task, asyncio.Event]] = {}
        #: The event loops whose subscription is in place now.
        self._subscribed: set[asyncio.AbstractEventLoop] = set()

    @property
    def carries_events(self) -> bool:
        """Subscribed and Redis not skipped: every publish from now on reaches this
        process's wake-ups, with its events."""
        return bool(self._subscribed) and not self.breaker.is_open

    def publish(self, task_id: str, note: str | None = None) -> None:
        if waiters.watching(task_id):  # a stream of this process (workers have none)
            waiters.wake(*parse_notification(note) if note else (task_id, None))
        if self.breaker.is_open:
            return
        try:
            self._client.publish(CHANNEL_PREFIX + task_id, note or task_id)
        except Exception:
            # Streams elsewhere fall back to polling the database; never fail a write.
            logger.warning("could not publish the event of task %s to Redis", task_id)
            self.breaker.failed()

    def connect(self) -> None:
        """Open the connection :meth:`publish` uses, now rather than at the first event.

        A pool process's first publish made the client's connection (connect, the client's
        handshake): 6-30 ms that the first event of each process waited for. A Redis that
        cannot be reached is left to that first publish (and its breaker) to find out.
        """
        try:
            self._client.ping()
        except Exception:
            logger.info("Redis at %s is not reachable yet; the first event will try", self.url)

    async def listen(self) -> None:
        """Make sure this event loop is subscribed; returns once it is (or gave up for now).

        A stream reads the log only after this, so nothing published in between is missed.
        """
        loop = asyncio.get_running_loop()
        await self._fallback.listen()  # idle unless Redis is out
        entry = self._listeners.get(loop)
        if entry is None or entry[0].done():
            subscribed = asyncio.Event()
            entry = (loop.create_task(self._listen(subscribed)), subscribed)
            self._listeners[loop] = entry
        if self.breaker.is_open:
            return  # the database poller wakes the stream meanwhile
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(entry[1].wait(), 2 * a2a_settings.REDIS_TIMEOUT + 1)

    async def _listen(self, subscribed: asyncio.Event) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(self.url, **redis_options(for_asyncio=True))
            loop = asyncio.get_running_loop()
            try:
                pubsub = client.pubsub()
                await pubsub.psubscribe(CHANNEL_PREFIX + "*")
                self.breaker.succeeded()
                self._subscribed.add(loop)
                subscribed.set()
                # Streams may have missed something while we were not subscribed.
                for task_id in waiters.watched():
                    waiters.wake(task_id)
                while True:
                    message = await pubsub.get_message(timeout=self.HEALTH_CHECK_SECONDS)
                    if message is None:
                        await client.ping()  # raises on a hung Redis (socket timeout)
                    elif message.get("type") == "pmessage":
                        channel, data = (
                            v.decode() if isinstance(v, bytes) else str(v)
                            for v in (message["channel"], message["data"])
                        )
                        # The channel names the task (an earlier version's message
                        # carries no events: "1").
                        batch = parse_notification(data)[1] if data.startswith("[") else None
                        waiters.wake(channel.removeprefix(CHANNEL_PREFIX), batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("Redis subscription lost; reconnecting", exc_info=True)
                self.breaker.failed()  # streams poll the database until it is back
                subscribed.set()  # don't hold new streams
                await asyncio.sleep(1)
            finally:
                self._subscribed.discard(loop)
                await client.aclose()


_notifier: Any = None
_notifier_lock = threading.Lock()


def get_notifier() -> Any:
    """The process's notifier: Redis if ``NOTIFIER_REDIS_URL`` is set, else LISTEN/NOTIFY
    on PostgreSQL, else polling."""
    global _notifier
    if _notifier is None:
        with _notifier_lock:
            if _notifier is None:
                _notifier = _make_notifier()
    return _notifier


async def aget_notifier() -> Any:
    """:func:`get_notifier` for an event loop: the first call makes the notifier in a
    thread. Making the Redis one imports the Redis client, ~0.2 s of CPU on a busy
    machine: on the loop, that stalled every stream of the process (the first stream of a
    burst used to pay it, and the events of the first tasks waited)."""
    if _notifier is not None:
        return _notifier
    return await sync_to_async(get_notifier, thread_sensitive=False)()


def prepare_publisher() -> None:
    """Make this process's notifier and the connection it publishes on (Redis), before
    the process has events to publish: Celery pool processes call it as they start
    (:mod:`a2a_app.jobs`), so that their first event is not the one that waits for it."""
    connect = getattr(get_notifier(), "connect", None)
    if connect is not None:
        connect()


def _make_notifier() -> Any:
    url = a2a_settings.NOTIFIER_REDIS_URL
    if url:
        return RedisNotifier(url)
    if listen_notify_available():
        from a2a_app.core.notify_pg import PostgresNotifier

        return PostgresNotifier()
    return DatabaseNotifier()


def listen_notify_available() -> bool:
    """PostgreSQL through psycopg 3, whose listening connection the PostgreSQL notifier
    uses (with psycopg2 streams poll: check a2a_app.W150 says so)."""
    if connection.vendor != "postgresql":
        return False
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    return is_psycopg3


def reset() -> None:
    """Forget the notifier (settings changed, tests); a listening one stops."""
    global _notifier
    notifier, _notifier = _notifier, None
    stop = getattr(notifier, "stop", None)
    if stop is not None:
        stop()


def publish(task_id: str, note: str | None = None) -> None:
    """Called after a transaction that recorded events for ``task_id`` commits; ``note``
    is that write's :func:`notification`, if the notifier carries events."""
    get_notifier().publish(task_id, note)
