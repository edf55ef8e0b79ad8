"""Stream log reads: an event loop's streams share one reader, and a burst of opening
streams neither holds a thread each nor queues a live stream's reads behind its own.

Counted, not timed: queries, the threads they ran on, how many ran at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection
from django.test import AsyncClient
from django.test.utils import CaptureQueriesContext

from a2a_app import api
from a2a_app.asgi import ASGIHandler
from a2a_app.caller import ANONYMOUS
from a2a_app.core import notify, notify_pg, streams
from a2a_app.protocol.params import TaskIdRequest
from tests.conftest import user_message
from tests.test_notify_pg import wait_until
from tests.test_streaming import COMPLETED, log_bodies, open_stream, run, summary

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_streams", "no_dns"),
]


@pytest.fixture
def working_tasks(rpc, install) -> Callable[[int], list[str]]:
    """``working_tasks(n)``: n tasks their handler left WORKING, each with a few events."""
    install(lambda ctx: ctx.keep_working("waiting for staff"), key="manual")

    def make(count: int) -> list[str]:
        params = {"message": user_message("cater"), "metadata": {"skillId": "manual"}}
        return [rpc("SendMessage", params)["result"]["task"]["id"] for _ in range(count)]

    return make


@dataclass
class Read:
    thread: str
    tasks: set[str]
    statements: int = 0


@dataclass
class CountedFetch:
    """Wraps the reader's fetch: what each call asked for, where it ran, its SQL."""

    real: Callable[..., Any]
    calls: list[Read] = field(default_factory=list)
    #: While set, calls wait for ``release`` (a slow query, deterministically).
    hold: bool = False
    entered: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, chunks: list[dict[str, int]]) -> Any:
        read = Read(threading.current_thread().name, {t for chunk in chunks for t in chunk})
        with self.lock:
            self.calls.append(read)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            self.entered.set()
            if self.hold:
                assert self.release.wait(5), "the test never released the read"
            with CaptureQueriesContext(streams._reads_connection()) as queries:
                logs = self.real(chunks)
            read.statements = len(queries)
            return logs
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture
def fetch(monkeypatch) -> CountedFetch:
    counted = CountedFetch(streams._fetch_logs)
    monkeypatch.setattr(streams, "_fetch_logs", counted)
    return counted


def test_reads_asked_for_together_are_one_query(working_tasks, fetch):
    tasks = working_tasks(6)

    async def scenario():
        reader = streams.log_reader()
        return await asyncio.gather(
            *(reader.read(task_id, 0) for task_id in tasks), reader.read(tasks[0], 1)
        )

    *logs, after_first = run(scenario())
    assert len(fetch.calls) == 1
    assert fetch.calls[0].statements == 1
    assert fetch.calls[0].tasks == set(tasks)
    assert fetch.calls[0].thread.startswith("a2a-stream-read")
    for task_id, log in zip(tasks, logs, strict=True):
        assert [body for _, body in log] == log_bodies(task_id)
        assert [s for s, _ in log] == sorted(s for s, _ in log)
    assert [body for _, body in after_first] == log_bodies(tasks[0], after=1)


def test_reads_asked_for_during_a_query_go_together_into_the_next(working_tasks, fetch):
    """No read waits on a thread of its own: while one query runs, the reads asked for
    meanwhile wait on the event loop, then share one query."""
    tasks = working_tasks(8)
    fetch.hold = True

    async def scenario():
        reader = streams.log_reader()
        first = asyncio.ensure_future(reader.read(tasks[0], 0))
        assert await asyncio.to_thread(fetch.entered.wait, 5)
        rest = [asyncio.ensure_future(reader.read(task_id, 0)) for task_id in tasks[1:]]
        for _ in range(10):
            await asyncio.sleep(0)
        calls_while_held = len(fetch.calls)
        fetch.release.set()
        return calls_while_held, await first, await asyncio.gather(*rest)

    calls_while_held, first, rest = run(scenario())
    assert calls_while_held == 1
    assert [call.tasks for call in fetch.calls] == [{tasks[0]}, set(tasks[1:])]
    assert fetch.most_in_flight == 1
    assert [body for _, body in first] == log_bodies(tasks[0])
    for task_id, log in zip(tasks[1:], rest, strict=True):
        assert [body for _, body in log] == log_bodies(task_id)


def test_streams_opened_at_once_leave_a_live_stream_its_reads(
    settings, working_tasks, fetch, later
):
    """20 streams open while one is live: their reads run one query at a time on the
    reader's thread (one database connection), and the live stream gets its events."""
    settings.A2A_APP = {**settings.A2A_APP, "MAX_STREAMS_PER_CALLER": 50}
    live_task, *others = working_tasks(21)

    async def scenario():
        live = await open_stream(AsyncClient(), "SubscribeToTask", {"id": live_task})
        await live.event()  # the snapshot
        opened = await asyncio.gather(
            *(open_stream(AsyncClient(), "SubscribeToTask", {"id": t}) for t in others)
        )
        finisher = later(api.complete, live_task, "done", delay=0.05)
        snapshots = await asyncio.gather(*(stream.event() for stream in opened))
        rest = await live.rest()
        finishers = [later(api.complete, t, "later", delay=0) for t in others]
        others_rest = await asyncio.gather(*(stream.rest() for stream in opened))
        return snapshots, rest, others_rest, [finisher, *finishers]

    snapshots, rest, others_rest, finishers = run(scenario())
    for finisher in finishers:
        finisher.outcome()
    assert all(s is not None and "task" in s for s in snapshots)
    assert summary(rest) == [("artifact", "done"), ("status", COMPLETED)]
    assert all(summary(r) == [("artifact", "later"), ("status", COMPLETED)] for r in others_rest)
    asked = set().union(*(call.tasks for call in fetch.calls))
    assert {live_task, *others} <= asked
    assert {call.thread.split("_")[0] for call in fetch.calls} == {"a2a-stream-read"}
    assert all(call.statements == 1 for call in fetch.calls)
    assert fetch.most_in_flight == 1
    # Batched: fewer queries than reads asked for (every stream read at least once).
    assert len(fetch.calls) < sum(len(call.tasks) for call in fetch.calls) or len(fetch.calls) == 1


def reader_connection() -> Any:
    """The database connection the stream reads' thread holds (None: it holds none)."""
    return streams._read_threads().submit(lambda: connection.connection).result(5)


def test_reads_keep_one_connection_while_a_stream_is_open(working_tasks):
    """Taken from the pool for each read, the reads' connection queued behind a burst's
    requests whenever they held every pooled connection (the first events of 48 opening
    streams waited 110-190 ms); kept while streams are open, it is there for them."""
    tasks = working_tasks(2)

    async def scenario():
        reader = streams.log_reader()
        await reader.read(tasks[0], 0)
        unwatched = await asyncio.to_thread(reader_connection)
        wake = notify.waiters.add(tasks[0])  # a stream of this process is open
        try:
            await reader.read(tasks[0], 0)
            first = await asyncio.to_thread(reader_connection)
            await reader.read(tasks[1], 0)
            second = await asyncio.to_thread(reader_connection)
        finally:
            notify.waiters.remove(tasks[0], wake)
        streams.release_read_connection()
        released = await asyncio.to_thread(reader_connection)
        return unwatched, first, second, released

    unwatched, first, second, released = run(scenario())
    assert unwatched is None  # no stream open: handed back at once, as before
    assert first is not None
    assert second is first
    assert released is None


def test_the_last_stream_to_end_hands_the_reads_connection_back(working_tasks, later):
    (task_id,) = working_tasks(1)

    async def scenario():
        stream = await open_stream(AsyncClient(), "SubscribeToTask", {"id": task_id})
        await stream.event()
        finisher = later(api.complete, task_id, "done", delay=0.05)
        return await stream.rest(), finisher

    rest, finisher = run(scenario())
    finisher.outcome()
    assert summary(rest) == [("artifact", "done"), ("status", COMPLETED)]
    assert not notify.waiters.watched()
    assert reader_connection() is None


def test_reads_do_not_wait_for_the_pool(working_tasks):
    """With every pooled connection held (a burst's requests), a stream read still runs:
    taken from the pool, the first read of 48 opening streams waited 56-121 ms for one
    (here it would wait for the pool's timeout and fail)."""
    if connection.vendor != "postgresql" or not connection.pool:
        pytest.skip("Django's connection pool is PostgreSQL's")
    (task_id,) = working_tasks(1)
    connection.close()  # this thread's back in the pool: the test takes them all
    from psycopg_pool import PoolTimeout

    pool, held = connection.pool, []
    try:
        # Every connection the pool can give (threads of earlier tests may hold some).
        with contextlib.suppress(PoolTimeout):
            while len(held) < pool.max_size:
                held.append(pool.getconn(timeout=0.5))

        async def scenario():
            wake = notify.waiters.add(task_id)  # open stream: the reads keep their connection
            try:
                return await asyncio.wait_for(streams.log_reader().read(task_id, 0), 3)
            finally:
                notify.waiters.remove(task_id, wake)
                streams.release_read_connection()

        events = run(scenario())
        name = streams._read_threads().submit(reads_application_name).result(5)
    finally:
        for pooled in held:
            pool.putconn(pooled)
    assert [body for _, body in events] == log_bodies(task_id)
    assert name == "a2a_app stream reads"  # what pg_stat_activity shows for it


def reads_application_name() -> str:
    """The application name of the reads' connection, asked on the read thread."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW application_name")
        (name,) = cursor.fetchone()
    connection.close()
    return name


class CountingEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


def test_streams_opening_before_the_listener_is_up_share_one_waiting_thread(monkeypatch):
    """A burst of streams opening while the LISTEN connection is being made waits for it
    on one thread, not one each (they used to fill the loop's default executor)."""
    notifier = notify_pg.PostgresNotifier()
    notifier.listening = CountingEvent()
    monkeypatch.setattr(notifier, "_start", lambda: None)  # the test says when it listens
    monkeypatch.setattr(notifier._fallback, "listen", _nothing)

    async def scenario():
        opening = [asyncio.ensure_future(notifier.listen()) for _ in range(20)]
        for _ in range(10):
            await asyncio.sleep(0)
        pending = sum(not task.done() for task in opening)
        notifier.listening.set()
        await asyncio.gather(*opening)
        return pending

    assert run(scenario()) == 20
    assert notifier.listening.waits == 1


async def _nothing() -> None:
    return None


def test_the_notifier_is_made_at_start_up_off_the_event_loop(monkeypatch):
    """Making the Redis notifier imports its client (~0.2 s of a busy CPU): the ASGI
    start-up does it in a thread, before the first stream; so would a first stream."""
    made_on: list[threading.Thread] = []
    real = notify._make_notifier

    def make() -> Any:
        made_on.append(threading.current_thread())
        return real()

    monkeypatch.setattr(notify, "_make_notifier", make)
    notify.reset()
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append({**message, "notifier made": notify._notifier is not None})

    async def start_up() -> threading.Thread:
        await ASGIHandler()({"type": "lifespan"}, receive, send)
        return threading.current_thread()

    loop_thread = run(start_up())
    assert sent[0] == {"type": "lifespan.startup.complete", "notifier made": True}
    assert len(made_on) == 1 and made_on[0] is not loop_thread

    notify.reset()

    async def first_stream() -> tuple[Any, threading.Thread]:
        return await notify.aget_notifier(), threading.current_thread()

    notifier, loop_thread = run(first_stream())
    assert notifier is notify.get_notifier()
    assert len(made_on) == 2 and made_on[1] is not loop_thread


def test_streams_are_told_before_the_signals_receivers_run(dispatched, working_tasks):
    """A stream's wake-up does not wait for task_status_changed's receivers."""
    from a2a_app.signals import task_status_changed

    [task_id] = working_tasks(1)
    # Its first write (created WORKING) woke nobody: nobody could watch it yet.
    assert dispatched.published.count(task_id) == 0
    published_when_signalled: list[bool] = []

    def receiver(sender: Any, task: Any, **kwargs: Any) -> None:
        published_when_signalled.append(dispatched.published.count(str(task.pk)) == 1)

    task_status_changed.connect(receiver)
    try:
        api.complete(task_id, "done")
    finally:
        task_status_changed.disconnect(receiver)
    assert published_when_signalled == [True]


on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's"
)


def _stream_to_its_end(task_id: str, later: Callable[..., Any], text: str) -> list[Any]:
    async def scenario():
        stream = await open_stream(AsyncClient(), "SubscribeToTask", {"id": task_id})
        await stream.event()  # the snapshot, then the read of what came after it
        finisher = later(api.complete, task_id, text, delay=0.05)
        return await stream.rest(), finisher

    rest, finisher = run(scenario())
    finisher.outcome()
    return rest


@on_postgresql
def test_a_stream_sends_the_events_its_notification_carried_without_a_read(
    settings, working_tasks, fetch, later
):
    """With LISTEN/NOTIFY the notification carries the events: a stream that has read
    everything before them sends them on, with no query (under a burst of opening
    streams, that read was up to ~35 ms of an event's way)."""
    listening_notifier(settings)
    (task_id,) = working_tasks(1)
    before = len(log_bodies(task_id))
    rest = _stream_to_its_end(task_id, later, "done")
    assert summary(rest) == [("artifact", "done"), ("status", COMPLETED)]
    # What a read of the log returns, exactly.
    assert rest == log_bodies(task_id, after=before)
    # Not even a first read: the wake-up was reserved before the snapshot committed.
    assert fetch.calls == []
    assert not notify.waiters.watched()


def listening_notifier(settings) -> notify_pg.PostgresNotifier:
    """The PostgreSQL notifier, listening (as after an ASGI server's start-up)."""
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    notifier = notify.get_notifier()
    assert isinstance(notifier, notify_pg.PostgresNotifier)
    notifier._start()
    assert notifier.listening.wait(5)
    return notifier


@on_postgresql
def test_events_written_before_the_stream_runs_reach_its_reserved_wake_up(
    settings, working_tasks, fetch
):
    """Between the snapshot's commit and the stream's first step (the response on its
    way), the task goes on: its events are kept for the wake-up, and sent in order."""
    listening_notifier(settings)
    (task_id,) = working_tasks(1)
    start = streams.start_subscription(TaskIdRequest(id=task_id), ANONYMOUS)
    assert start.wake is not None and task_id in notify.waiters.watched()
    api.complete(task_id, "done")  # commits; the listener hands its events to the wake-up
    assert wait_until(lambda: len(start.wake.early) == 1)

    async def scenario():
        return [item async for item, _ in streams.events(start)]

    items = run(scenario())
    start.close()
    assert summary(items[1:]) == [("artifact", "done"), ("status", COMPLETED)]
    assert items[1:] == log_bodies(task_id, after=start.after)
    assert fetch.calls == []
    assert not notify.waiters.watched()


@on_postgresql
def test_a_reserved_wake_up_goes_when_its_transaction_fails(settings):
    listening_notifier(settings)
    with pytest.raises(RuntimeError), streams._snapshot_transaction() as reserve_wake:
        start = reserve_wake(streams.StreamStart(task_id="t-failed"))
        assert "t-failed" in notify.waiters.watched()
        raise RuntimeError("the snapshot's transaction fails")
    assert start.wake is not None
    assert "t-failed" not in notify.waiters.watched()


def test_without_carried_events_a_stream_reserves_nothing_and_reads_first(
    working_tasks, fetch, later, monkeypatch
):
    """Polling (SQLite, or PostgreSQL while its listener is down): wake-ups carry no
    events, so the stream reads its log at its start and at each wake-up, as before."""
    monkeypatch.setattr(notify, "_notifier", notify.DatabaseNotifier())
    (task_id,) = working_tasks(1)
    before = len(log_bodies(task_id))
    rest = _stream_to_its_end(task_id, later, "done")
    assert rest == log_bodies(task_id, after=before)
    assert len(fetch.calls) >= 2 and {frozenset(c.tasks) for c in fetch.calls} == {
        frozenset({task_id})
    }


@on_postgresql
def test_events_too_large_to_be_carried_are_read_from_the_log(
    settings, working_tasks, fetch, later
):
    listening_notifier(settings)
    (task_id,) = working_tasks(1)
    before = len(log_bodies(task_id))
    text = "Menü " * 2_000  # past PostgreSQL's 8,000 bytes: the payload is the task id
    rest = _stream_to_its_end(task_id, later, text)
    assert summary(rest) == [("artifact", text), ("status", COMPLETED)]
    assert rest == log_bodies(task_id, after=before)
    assert [call.tasks for call in fetch.calls] == [{task_id}]  # for the bare task id


def test_a_wake_up_gives_the_carried_events_only_when_they_follow_what_was_read():
    def wake_with(*batches: notify.EventBatch | None) -> notify.Wake:
        wake = notify.Wake()
        for batch in batches:
            wake.deliver(batch)
        return wake

    a, b, c = {"n": "a"}, {"n": "b"}, {"n": "c"}
    # In order after sequence 1, across batches.
    wake = wake_with(notify.EventBatch(2, [a, b]), notify.EventBatch(4, [c]))
    assert wake.take(1) == [(2, a), (3, b), (4, c)]
    assert not wake.is_set() and wake.batches == []
    # Already read (a wake-up that came during a read): skipped, nothing to send.
    assert wake_with(notify.EventBatch(2, [a, b])).take(3) == []
    assert wake_with(notify.EventBatch(2, [a, b])).take(2) == [(3, b)]
    # A gap (an event that no notification carried) or a wake-up that carried nothing:
    # read the log.
    assert wake_with(notify.EventBatch(3, [b])).take(1) is None
    assert wake_with(notify.EventBatch(2, [a]), None).take(1) is None
    wake = wake_with(notify.EventBatch(2, [a]))
    wake.clear()  # a read that follows covers what was delivered
    assert wake.take(1) == [] and not wake.is_set()
