"""SSE streams: SendStreamingMessage and SubscribeToTask (ASGI only).

A stream is a Task snapshot followed by the task's events from its log (``TaskEvent``),
in order, from wherever the task runs: this request's thread (inline skills), a Celery
worker, or site code in another process. :mod:`a2a_app.notify` wakes the stream; the log
is the truth. With LISTEN/NOTIFY the wake-up carries the events it is about, and a stream
that has everything before them sends them without reading the log.

A SendStreamingMessage stream closes after a terminal state or after input-required or
auth-required: its sender must answer, and our skills never resume on their own from
those. A SubscribeToTask stream closes only after a terminal state: whoever
subscribed watches the task through the turns that others answer. A client that goes away
only stops reading: the task goes on.

The synchronous part (validation, creating or continuing the task) runs in the view and
raises ordinary errors before any byte is streamed; the asynchronous part only reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import operator
import threading
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, connections, router, transaction
from django.db.models import Q

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import dispatch, limits, retries, runner, sending, store
from a2a_app.core.execution import build_context, resolve_outcome, run_handler
from a2a_app.core.notify import Wake, aget_notifier, get_notifier, waiters
from a2a_app.core.updates import TaskUpdate
from a2a_app.db import ensure_live_connection
from a2a_app.models import Task, TaskEvent
from a2a_app.protocol.errors import UnsupportedOperationError
from a2a_app.protocol.params import SendMessageRequest, TaskIdRequest
from a2a_app.protocol.types import (
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    Artifact,
    Message,
    TaskState,
    ends_stream,
)
from a2a_app.protocol.versions import V1_0

logger = logging.getLogger("a2a_app.streams")

JSON = dict[str, Any]
CLOSING_STATES = frozenset(s.value for s in TERMINAL_STATES | INTERRUPTED_STATES)
TERMINAL_STATE_VALUES = frozenset(s.value for s in TERMINAL_STATES)

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                a2a_settings.STREAM_INLINE_THREADS, thread_name_prefix="a2a-inline"
            )
    return _executor


@dataclass
class StreamStart:
    """What the synchronous part decided; the stream takes it from there."""

    #: A direct Message: the whole stream.
    message: JSON | None = None
    #: The first event, and the event sequence it reflects.
    snapshot: JSON | None = None
    task_id: str = ""
    after: int = 0
    #: Work to start in a thread once the stream runs (an inline skill).
    run: Callable[[], Any] | None = None
    #: Set by a lazily created task (see InlineStart) before the stream reads.
    first: Future = field(default_factory=Future)
    #: A subscription: stay open through interrupted states, close after a terminal one.
    until_terminal: bool = False
    #: Called once the stream is over (the caller's stream slot goes back).
    on_close: Callable[[], None] | None = None
    #: Its wake-up, reserved before the snapshot's transaction committed: whatever is
    #: written after the snapshot reaches it, so the stream need not read the log first.
    wake: Wake | None = None

    def close(self) -> None:
        if self.wake is not None:  # a stream that never ran, or ended: nothing to wake
            waiters.remove(self.task_id, self.wake)
        if self.on_close is not None:
            self.on_close()


# --- the synchronous part -------------------------------------------------------------------


def start_send(request: SendMessageRequest, caller: Caller, version: str = V1_0) -> StreamStart:
    """Validate and start a streaming send; errors raise before anything is streamed.

    A retried message (a messageId the caller already sent) streams its task as it is now
    and then its events, as SubscribeToTask would, without running anything again.
    """
    return retries.once(
        request,
        caller,
        send=lambda: _start_send(request, caller, version),
        replay=lambda task: _retried(str(task.pk), caller),
    )


def _start_send(request: SendMessageRequest, caller: Caller, version: str) -> StreamStart:
    with _snapshot_transaction() as reserve_wake:
        plan = sending.plan(request, caller, version, streaming=True)
        if plan.retry_of is not None:
            return reserve_wake(_snapshot(plan.retry_of, until_terminal=False))
        if plan.listing is not None:
            return StreamStart(message={"message": plan.listing.to_wire()})
        if plan.is_new and not plan.background:
            # Run first, create the task on the skill's first sign of life: a direct reply
            # must stream as one Message, with no task.
            return InlineStart(plan).start
        return reserve_wake(_submitted(plan, inline=not plan.background))


@contextlib.contextmanager
def _snapshot_transaction() -> Iterator[Callable[[StreamStart], StreamStart]]:
    """The transaction in which a stream's snapshot is taken, and ``reserve_wake(start)``,
    which reserves the stream's wake-up in it, before the commit, when notifications carry
    events: every event written after the snapshot then reaches the wake-up (the writers
    wait for this transaction's row lock or commit), so the stream sends them without a
    first read of the log. Under a burst of 48 opening streams, that read was the longest
    part of the way of an event written meanwhile (35-60 ms). If the transaction fails,
    the reservation goes."""
    reserved: list[StreamStart] = []

    def reserve_wake(start: StreamStart) -> StreamStart:
        if getattr(get_notifier(), "carries_events", False):
            start.wake = waiters.reserve(start.task_id)
            reserved.append(start)
        return start

    try:
        with transaction.atomic():
            yield reserve_wake
    except BaseException:
        for start in reserved:
            start.close()
        raise


def _submitted(plan: sending.SendPlan, *, inline: bool) -> StreamStart:
    """Store the task SUBMITTED; a worker runs it, or this process does (inline)."""
    update, task = plan.update, plan.task
    assert update is not None
    sending.prepare_submission(update)
    update.save()
    if not inline:
        dispatch.enqueue_run_on_commit(str(task.pk))
    history_length = plan.request.configuration.history_length
    if update.is_new:
        # Its whole history is the message just written, and it has no artifacts yet:
        # nothing to read back (a burst of streams opening costs two queries less each).
        snapshot = store.task_to_wire(
            task, store.trim_history(update.new_messages, history_length), []
        )
    else:
        history = store.load_history([task], history_length)
        artifacts = store.load_artifacts([task])
        snapshot = store.task_to_wire(
            task, history.get(str(task.pk), []), artifacts.get(str(task.pk), [])
        )
    task_id = str(task.pk)
    start = StreamStart(snapshot={"task": snapshot}, task_id=task_id, after=task.event_count)
    if inline:
        start.run = lambda: runner.execute(task_id)
    return start


def start_subscription(request: TaskIdRequest, caller: Caller) -> StreamStart:
    with _snapshot_transaction() as reserve_wake:
        # The row lock keeps writers out while the snapshot is read: the snapshot and
        # the event sequence it ends at agree.
        task = store.get_task(request.id, caller, for_update=True)
        if task.is_terminal:
            raise UnsupportedOperationError(
                f"Task {request.id} is already {task.state}; there is nothing to subscribe to",
                metadata={"taskId": request.id, "state": task.state},
            )
        return reserve_wake(_snapshot(task, until_terminal=True))


def _retried(task_id: str, caller: Caller) -> StreamStart:
    with _snapshot_transaction() as reserve_wake:
        task = store.get_task(task_id, caller, for_update=True)
        return reserve_wake(_snapshot(task, until_terminal=False))


def _snapshot(task: Task, *, until_terminal: bool) -> StreamStart:
    """The task as it is and the events after it (call it holding the task's row lock)."""
    return StreamStart(
        snapshot={"task": store.read_task(task, limits.history_length(None))},
        task_id=str(task.pk),
        after=task.event_count,
        until_terminal=until_terminal,
    )


class InlineStart:
    """An inline skill for a streaming send, run in a thread with lazy task creation."""

    def __init__(self, plan: sending.SendPlan) -> None:
        self.plan = plan
        self.task = plan.task
        self.start = StreamStart(task_id=str(self.task.pk), run=self.run)
        self.created = False

    def create(self) -> None:
        """Store the task (SUBMITTED, then WORKING) and release the stream."""
        if self.created:
            return
        task, update = self.task, self.plan.update
        assert update is not None
        with transaction.atomic():
            update.set_status(TaskState.SUBMITTED)
            update.save()
            history_length = self.plan.request.configuration.history_length
            snapshot = store.task_to_wire(
                task, store.trim_history(update.new_messages, history_length), []
            )
            after = task.event_count
            task.lease_expires_at = runner._lease()
            task.run_attempts = 1
            working = TaskUpdate(task)
            working.set_status(TaskState.WORKING)
            working.save()
        self.created = True
        _resolve(self.start.first, ("task", {"task": snapshot}, after))

    def run(self) -> None:
        start, plan = self.start, self.plan
        assert plan.skill is not None
        try:
            ctx = build_context(
                self.task,
                plan.skill,
                plan.request.message,
                caller=plan.caller,
                history=[],
                sink=_LazySink(self),
                metadata=plan.request.metadata,
                accepted_output_modes=plan.request.configuration.accepted_output_modes,
            )
            with runner.heartbeat(str(self.task.pk)):
                outcome = run_handler(ctx)
            if outcome is None:
                return
            resolution = resolve_outcome(
                outcome, task_id=str(self.task.pk), context_id=self.task.context_id
            )
            if not self.created and resolution.reply is not None:
                resolution.reply.task_id = ""
                _resolve(start.first, ("message", {"message": resolution.reply.to_wire()}, 0))
                return
            self.create()
            runner.record_result(str(self.task.pk), ctx.state, resolution)
        except Exception as exc:  # the stream reports it; the task (if any) is failed
            logger.exception("inline streaming run of task %s failed", self.task.pk)
            if not start.first.done():
                with contextlib.suppress(InvalidStateError):
                    start.first.set_exception(exc)
        finally:
            connection.close()


def _resolve(future: Future, value: Any) -> None:
    """Hand the stream its first event, unless nobody waits any more (client gone)."""
    with contextlib.suppress(InvalidStateError):
        future.set_result(value)


class _LazySink:
    def __init__(self, owner: InlineStart) -> None:
        self.owner = owner

    def status(self, state: TaskState, message: Message | None) -> None:
        self.owner.create()
        runner.LiveSink(str(self.owner.task.pk)).status(state, message)

    def artifact(self, artifact: Artifact, *, append: bool, last_chunk: bool) -> None:
        self.owner.create()
        runner.LiveSink(str(self.owner.task.pk)).artifact(
            artifact, append=append, last_chunk=last_chunk
        )

    def hand_over(self, skill_id: str, message: Message) -> None:
        self.owner.create()
        runner.LiveSink(str(self.owner.task.pk)).hand_over(skill_id, message)

    def is_canceled(self) -> bool:
        return self.owner.created and runner.LiveSink(str(self.owner.task.pk)).is_canceled()


# --- the asynchronous part ------------------------------------------------------------------


class LogReader:
    """Reads the logs of one event loop's streams: one query for every stream that waits
    for a read, on a thread of :func:`_read_threads`.

    A read per stream on the loop's default executor (``min(32, cpus + 4)`` threads,
    shared with everything else in the process that uses it) queued: when 48 streams
    opened at once, their first reads, and the wait of each for the notifier, filled those
    threads, and a live stream's next event waited behind them. Here the reads asked for
    while a query runs go together into the next query: a burst of streams costs two
    queries' time and one database connection, whatever its size.

    That connection is kept while the process has open streams (and closed when the
    last one ends: :func:`release_read_connection`); with Django's pool it is one of its
    own, outside the pool (:func:`_reads_connection`). Taken from the pool for each read,
    it queued behind the requests of a burst whenever they held every pooled connection:
    48 streams opening on a pool of 20 made the first events wait 110-190 ms.
    """

    #: Tasks per query (SQLite limits the depth of an expression: a long OR chain).
    CHUNK = 100

    def __init__(self) -> None:
        self._wanted: dict[str, list[tuple[int, asyncio.Future]]] = {}
        self._draining: asyncio.Task | None = None
        #: Queries made (tests).
        self.queries = 0

    async def read(self, task_id: str, after: int) -> list[tuple[int, JSON]]:
        """The task's events after sequence ``after``, in order."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        self._wanted.setdefault(task_id, []).append((after, future))
        if self._draining is None:
            self._draining = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._wanted:
                batch, self._wanted = self._wanted, {}
                since = {task_id: min(a for a, _ in readers) for task_id, readers in batch.items()}
                chunks = _chunks(since, self.CHUNK)
                self.queries += len(chunks)
                try:
                    logs = await loop.run_in_executor(_read_threads(), _fetch_logs, chunks)
                except Exception as exc:
                    for readers in batch.values():
                        for _, future in readers:
                            if not future.done():
                                future.set_exception(exc)
                    continue
                for task_id, readers in batch.items():
                    log = logs.get(task_id, [])
                    for after, future in readers:
                        if not future.done():  # else its stream was cancelled meanwhile
                            future.set_result([(s, body) for s, body in log if s > after])
        finally:
            self._draining = None  # no reference to the loop is kept while idle


_readers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LogReader] = (
    weakref.WeakKeyDictionary()
)
_read_executor: ThreadPoolExecutor | None = None


def log_reader() -> LogReader:
    """The running event loop's reader."""
    loop = asyncio.get_running_loop()
    reader = _readers.get(loop)
    if reader is None:
        reader = _readers[loop] = LogReader()
    return reader


def _read_threads() -> ThreadPoolExecutor:
    # One thread: its database connection is the one the process's stream reads keep (a
    # server has one event loop, whose reads go one at a time anyway; tests make many).
    global _read_executor
    with _executor_lock:
        if _read_executor is None:
            _read_executor = ThreadPoolExecutor(1, thread_name_prefix="a2a-stream-read")
    return _read_executor


def _chunks(since: dict[str, int], size: int) -> list[dict[str, int]]:
    items = list(since.items())
    return [dict(items[i : i + size]) for i in range(0, len(items), size)]


def _fetch_logs(chunks: list[dict[str, int]]) -> dict[str, list[tuple[int, JSON]]]:
    """Each task's events after its sequence number, in order: a query per chunk (on the
    read thread, whose connection stays open while streams are: see LogReader)."""
    logs: dict[str, list[tuple[int, JSON]]] = defaultdict(list)
    reads = _reads_connection()
    ensure_live_connection(reads)  # kept open, it may have outlived a restart
    try:
        for since in chunks:
            wanted = functools.reduce(
                operator.or_, (Q(task_id=t, sequence__gt=after) for t, after in since.items())
            )
            rows = (
                TaskEvent.objects.using(reads.alias)
                .filter(wanted)
                .order_by("sequence")
                .values_list("task_id", "sequence", "body")
            )
            for task_id, sequence, body in rows:
                logs[str(task_id)].append((sequence, body))
    except Exception:
        reads.close()  # the next read starts from a fresh one
        raise
    if not waiters.watched():
        reads.close()
    return logs


#: The stream reads' connection, in the read thread's locals.
_read_local = threading.local()

#: What PostgreSQL shows for that connection in ``pg_stat_activity``.
READS_APPLICATION_NAME = "a2a_app stream reads"


def _reads_connection() -> Any:
    """The read thread's connection to the database the event log is read from.

    With Django's connection pool it is a connection of its own, outside the pool (as the
    LISTEN connection is): taken from the pool, the first read of a burst queued behind
    the burst's requests while they held every pooled connection (56-121 ms for the
    first events of 48 opening streams); opened directly, it costs a connect.
    """
    reads = getattr(_read_local, "connection", None)
    if reads is None:
        alias = router.db_for_read(TaskEvent)
        reads = connections[alias]
        options = reads.settings_dict.get("OPTIONS", {})
        if options.get("pool"):
            unpooled = {k: v for k, v in options.items() if k != "pool"}
            unpooled.setdefault("application_name", READS_APPLICATION_NAME)
            reads = type(reads)({**reads.settings_dict, "OPTIONS": unpooled}, alias)
            # This thread's queries on the alias (the ORM's among them) use it.
            connections[alias] = reads
        _read_local.connection = reads
    return reads


def release_read_connection() -> None:
    """Close the stream reads' connection once no stream of the process is open."""
    if not waiters.watched():
        _read_threads().submit(_close_if_unwatched)


def _close_if_unwatched() -> None:
    if not waiters.watched():  # a stream may have opened meanwhile: it keeps it
        _reads_connection().close()


def launch(start: StreamStart) -> StreamStart:
    """Start the inline work now, whether or not the client reads the stream.

    Also hand back the view's database connection: Django would only release it when the
    response closes, i.e. when the stream ends, and an open stream must hold none.
    """
    connections.close_all()
    if start.run is not None:
        _threads().submit(start.run)
    return start


async def events(start: StreamStart) -> AsyncIterator[tuple[JSON, bool]]:
    """The StreamResponse objects of one stream, in order, each with "is it the last"."""
    if start.message is not None:
        yield start.message, True
        return
    if start.snapshot is None:
        # Shielded: a client that hangs up must not cancel the run's hand-over.
        kind, payload, after = await asyncio.shield(asyncio.wrap_future(start.first))
        if kind == "message":
            yield payload, True
            return
        start.snapshot, start.after = payload, after
    closing_states = TERMINAL_STATE_VALUES if start.until_terminal else CLOSING_STATES
    closed = start.snapshot["task"]["status"]["state"] in closing_states
    yield start.snapshot, closed
    if closed:
        return
    task_id, after = start.task_id, start.after
    if start.wake is not None:
        # Reserved before the snapshot committed: it has had every event since, carried
        # or not (None: read the log).
        wake = waiters.attach(start.wake)
        news = wake.take(after)
    else:
        wake = waiters.add(task_id)
        news = None  # read the log first: events committed before the wake-up was set
    await (await aget_notifier()).listen()
    reader = log_reader()
    try:
        while True:
            if news is None:
                wake.clear()  # what the read covers; a wake-up during it is kept
                news = await reader.read(task_id, after)
            for sequence, body in news:
                after = sequence
                last = ends_stream(body, at_interrupted=not start.until_terminal)
                yield body, last
                if last:
                    return
            try:
                await asyncio.wait_for(wake.wait(), a2a_settings.STREAM_KEEPALIVE_SECONDS)
            except TimeoutError:
                yield {}, False  # keep-alive
                news = None  # a lost wake-up costs a keep-alive's wait, not an event
                continue
            # The events the notifications carried, or None: read them from the log.
            news = wake.take(after)
    finally:
        waiters.remove(task_id, wake)
        release_read_connection()
