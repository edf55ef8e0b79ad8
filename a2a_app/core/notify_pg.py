"""Waking streams through PostgreSQL's LISTEN/NOTIFY (the default notifier on PostgreSQL).

Writers send ``NOTIFY a2a_task`` inside the transaction that records the task's events
(:func:`a2a_app.core.rows.write` puts the ``pg_notify`` in the write's own statement), so
PostgreSQL delivers it at commit, and never for a write that was rolled back; a new
task's first write sends none (nobody can watch a task before it exists). The payload
carries the events themselves (:func:`a2a_app.core.notify.notification`): a stream that
has read everything before them sends them on without reading the log, which saves a
query per event and its wait on a busy process (up to ~35 ms of an event written while
48 streams opened). Events too large for a payload (PostgreSQL's limit is 8000 bytes)
travel as the bare task id, and the stream reads its log; so does a stream that sees a
gap: the log is the truth.

Each web process holds ONE listening connection, whatever the number of its streams: a
daemon thread opened on first use (:mod:`a2a_app.asgi`'s start-up), with a psycopg
connection of its own (outside Django's connections and pool, in autocommit: a LISTEN
inside a transaction would wait for its commit). The thread wakes the process's streams
through :data:`~a2a_app.core.notify.waiters` (``call_soon_threadsafe`` into each stream's
event loop), so it serves every event loop of the process and no request blocks it. A
thread rather than a task on the event loop: uvicorn's loop is busy writing SSE frames,
and a notification read in a thread is handed over in one wake-up of that loop, which it
needs anyway.

When the connection is lost (the database restarted, the backend was terminated), the
thread reconnects with a growing delay; meanwhile the streams poll the database (as with
the polling notifier). Once it listens again it wakes every watched stream, which then
re-reads its log from where it was: nothing written in between is lost.

The listening connection needs a session of its own: behind PgBouncer in transaction
mode LISTEN does not work; point the site at PostgreSQL directly or use Redis.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from a2a_app.core.notify import DatabaseNotifier, parse_notification, waiters

logger = logging.getLogger("a2a_app.streams")

#: The NOTIFY channel; the payload is :func:`a2a_app.core.notify.notification`'s.
CHANNEL = "a2a_task"

#: The listening connection's name in ``pg_stat_activity`` (one per web process).
APPLICATION_NAME = "a2a_app notifier"

#: Seconds a first stream waits for the listener to start (connecting included) before it
#: reads its log anyway (polling wakes it until the listener is up).
START_TIMEOUT = 5.0


class PostgresNotifier:
    """One LISTEN connection per process, in a thread; polling while it is down."""

    #: The channel writers NOTIFY in the transaction that records events.
    channel = CHANNEL
    #: Notifications carry the events (:func:`a2a_app.core.notify.notification`).
    carries = True
    #: A listening connection idle this long is checked with a query (a dead one raises).
    HEALTH_CHECK_SECONDS = 5.0
    #: How long one wait for notifications lasts: a stopped notifier ends within it.
    WAIT_SECONDS = 1.0
    #: Delays between reconnection attempts: the first is short (a terminated backend),
    #: then they grow to the last (a database that is down for a while).
    RECONNECT_DELAYS = (0.05, 0.25, 1.0, 2.0)

    def __init__(self, alias: str = DEFAULT_DB_ALIAS) -> None:
        self.alias = alias
        #: Set while the LISTEN is in place.
        self.listening = threading.Event()
        #: How many times the listener has connected and listened (tests, logs).
        self.connections_made = 0
        #: The listening backend's process id (tests: pg_terminate_backend).
        self.backend_pid: int | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        #: Failed attempts since the last LISTEN (the next delay grows with them).
        self._failures = 0
        self._fallback = DatabaseNotifier(only_while=lambda: not self.listening.is_set())
        #: Per event loop, the wait for the listener that its opening streams share.
        self._waiting: dict[asyncio.AbstractEventLoop, asyncio.Future] = {}

    @property
    def carries_events(self) -> bool:
        """Do notifications carry the events of the writes that commit from now on? (While
        it listens; should it stop, its return wakes every stream with nothing carried.)"""
        return self.listening.is_set()

    def publish(self, task_id: str, note: str | None = None) -> None:
        # The NOTIFY went out with the commit, with the events: while this process
        # listens, it wakes this process's streams too, and they need not read the log.
        if not self.listening.is_set():
            waiters.wake(task_id)

    async def listen(self) -> None:
        """Make sure this process listens; returns once it does (or gave up for now).

        A stream reads the log only after this, so nothing committed in between is missed.
        """
        await self._fallback.listen()  # idle unless the listener is down
        self._start()
        if self.listening.is_set():
            return
        # One thread waits for the listener, however many streams open meanwhile: a thread
        # each would fill the loop's default executor when a burst of streams opens.
        loop = asyncio.get_running_loop()
        waiting = self._waiting.get(loop)
        if waiting is None or waiting.done():
            waiting = self._waiting[loop] = loop.run_in_executor(
                None, self.listening.wait, START_TIMEOUT
            )
            waiting.add_done_callback(lambda _: self._waiting.pop(loop, None))
        await asyncio.shield(waiting)  # a stream that goes away leaves the others waiting

    def stop(self, timeout: float = 5.0) -> None:
        """Stop listening and close the connection (tests, settings changes)."""
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)

    def _start(self) -> None:
        with self._lock:
            # After a fork the thread is the parent's: the child needs its own.
            if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
                return
            self.listening.clear()
            self._stopping.clear()
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="a2a-notify-listen", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._listen_once()
            except Exception as exc:
                if self._stopping.is_set():
                    break
                if self._failures == 0:
                    logger.warning("LISTEN connection lost (%s); reconnecting", exc)
                self._failures += 1
                delays = self.RECONNECT_DELAYS
                self._stopping.wait(delays[min(self._failures, len(delays)) - 1])

    def _listen_once(self) -> None:
        import psycopg

        conn = psycopg.connect(**connection_params(self.alias), autocommit=True)
        try:
            conn.execute(f"LISTEN {CHANNEL}")
            self.backend_pid = conn.info.backend_pid
            self.connections_made += 1
            self._failures = 0
            self.listening.set()
            # Streams may have missed a NOTIFY while nobody listened: they re-read the log.
            for task_id in waiters.watched():
                waiters.wake(task_id)
            idle = 0.0
            while not self._stopping.is_set():
                woken = False
                for notify in conn.notifies(timeout=self.WAIT_SECONDS):
                    waiters.wake(*parse_notification(notify.payload))
                    woken = True
                idle = 0.0 if woken else idle + self.WAIT_SECONDS
                if idle >= self.HEALTH_CHECK_SECONDS:
                    conn.execute("SELECT 1")  # a connection that died quietly raises here
                    idle = 0.0
        finally:
            self.listening.clear()
            conn.close()


def connection_params(alias: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """psycopg's connection arguments for ``alias``, as Django would connect, without the
    parts that only Django's own connections use (its cursor class, its adapters)."""
    params = connections[alias].get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    params["application_name"] = APPLICATION_NAME
    # A dead peer must be noticed even when nothing is written (a hung network).
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 10)
    params.setdefault("keepalives_interval", 5)
    params.setdefault("keepalives_count", 3)
    return params
