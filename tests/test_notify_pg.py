"""The PostgreSQL notifier: NOTIFY in the writing transaction, one LISTEN per process.

These run on PostgreSQL only (``make test`` runs the suite on SQLite, then on
PostgreSQL); on SQLite the choice of notifier is what is tested.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.utils import timezone

from a2a_app.core import notify, rows
from a2a_app.core.notify import DatabaseNotifier, RedisNotifier, waiters
from a2a_app.core.notify_pg import APPLICATION_NAME
from a2a_app.core.updates import TaskUpdate
from a2a_app.models import Task, TaskEvent
from a2a_app.protocol.types import Artifact, Part, TaskState

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's"
)


@pytest.fixture
def fresh_notifier() -> Iterator[None]:
    notify.reset()
    yield
    notify.reset()


def test_the_notifier_is_redis_when_a_url_is_set(settings, fresh_notifier) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": "redis://127.0.0.1:1/0"}
    notify.reset()
    assert isinstance(notify.get_notifier(), RedisNotifier)
    assert notify.get_notifier().channel is None  # writers send no NOTIFY then


def test_without_redis_the_notifier_follows_the_database(settings, fresh_notifier) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    notifier = notify.get_notifier()
    if connection.vendor == "postgresql":
        from a2a_app.core.notify_pg import PostgresNotifier

        assert isinstance(notifier, PostgresNotifier)
        assert notifier.channel == "a2a_task"
    else:
        assert type(notifier) is DatabaseNotifier
        assert notifier.channel is None


# --- on PostgreSQL ------------------------------------------------------------------------


class Listener:
    """A LISTEN connection of the test's own, outside Django."""

    def __init__(self) -> None:
        import psycopg

        from a2a_app.core.notify_pg import connection_params

        self.conn = psycopg.connect(**connection_params(), autocommit=True)
        self.conn.execute("LISTEN a2a_task")

    def received(self, wait: float = 0.5) -> list[str]:
        return [n.payload for n in self.conn.notifies(timeout=wait)]

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    listening = Listener()
    yield listening
    listening.close()


def working_update(task_id: uuid.UUID | None = None) -> TaskUpdate:
    task = Task(id=task_id or uuid.uuid4(), context_id="ctx-notify", owner="user:1")
    update = TaskUpdate(task, is_new=True)
    update.set_status(TaskState.WORKING)
    return update


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_committed_write_of_events_notifies_at_commit_with_its_events(
    settings, fresh_notifier, listener
) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    update = working_update()
    update.save()
    with transaction.atomic():
        update2 = TaskUpdate(Task.objects.get(pk=update.task.pk))
        update2.add_artifact(Artifact(artifact_id="a-1", parts=[Part.text_part("Grüße")]))
        update2.save()
        update3 = TaskUpdate(update2.task)
        update3.set_status(TaskState.COMPLETED)
        update3.save()
        assert listener.received(0.2) == []  # not before the commit
    received = [notify.parse_notification(payload) for payload in listener.received()]
    task_id = str(update.task.pk)
    log = list(TaskEvent.objects.filter(task=update.task).order_by("sequence").values_list("body"))
    # One notification per write, in order, each carrying the events that write logged,
    # as a read of the log returns them.
    assert received == [
        (task_id, notify.EventBatch(2, [log[1][0]])),
        (task_id, notify.EventBatch(3, [log[2][0]])),
    ]
    assert log[1][0]["artifactUpdate"]["artifact"]["parts"] == [{"text": "Grüße"}]


def test_events_too_large_for_a_payload_travel_as_the_task_id() -> None:
    small = notify.notification("t-1", 4, [{"statusUpdate": {"taskId": "t-1"}}])
    assert notify.parse_notification(small) == (
        "t-1",
        notify.EventBatch(4, [{"statusUpdate": {"taskId": "t-1"}}]),
    )
    large = notify.notification("t-1", 4, [{"text": "é" * 1400}])  # 8,400 bytes escaped
    assert large == "t-1"
    assert notify.parse_notification(large) == ("t-1", None)
    fits = notify.notification("t-1", 4, [{"text": "x" * 7970}])
    assert len(fits.encode()) <= notify.MAX_NOTIFICATION_BYTES < 8000
    assert notify.parse_notification("[garbled") == ("", None)


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_write_notifies_nobody(settings, fresh_notifier, listener) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    update = working_update()
    update.save()
    with pytest.raises(RuntimeError), transaction.atomic():
        later = TaskUpdate(Task.objects.get(pk=update.task.pk))
        later.set_status(TaskState.COMPLETED)
        later.save()
        raise RuntimeError("roll back")
    assert listener.received() == []
    assert Task.objects.get(pk=update.task.pk).state == TaskState.WORKING.value


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_new_tasks_first_write_notifies_nobody(settings, fresh_notifier, listener) -> None:
    """Nobody can be watching a task that did not exist: SendMessage pays no NOTIFY."""
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    update = working_update()
    update.save()
    assert listener.received() == []
    later = TaskUpdate(Task.objects.get(pk=update.task.pk))
    later.set_status(TaskState.COMPLETED)
    later.save()
    assert [notify.parse_notification(p)[0] for p in listener.received()] == [str(update.task.pk)]


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_with_redis_writers_send_no_notify(settings, fresh_notifier, listener) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": "redis://127.0.0.1:1/0"}
    notify.reset()
    update = working_update()
    update.save()
    later = TaskUpdate(Task.objects.get(pk=update.task.pk))
    later.set_status(TaskState.COMPLETED)
    later.save()
    assert listener.received() == []


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_notify_rides_in_the_one_statement(listener) -> None:
    task = Task(
        id=uuid.uuid4(),
        context_id="c",
        owner="o",
        state="TASK_STATE_WORKING",
        status_timestamp=timezone.now(),
        event_count=1,
    )
    events = [{"task_id": task.pk, "sequence": 1, "kind": "status", "body": {}}]
    with transaction.atomic():
        rows.write(
            task,
            is_new=True,
            update_fields=[],
            tables=[(TaskEvent, events)],
            notify=("a2a_task", "payload-1"),
        )
    assert listener.received() == ["payload-1"]
    assert TaskEvent.objects.get(task=task).sequence == 1


def backends_listening() -> list[int]:
    """This database's backends that a notifier's listener opened."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = %s",
            [APPLICATION_NAME],
        )
        return [pid for (pid,) in cursor.fetchall()]


def wait_until(condition, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_one_listening_connection_wakes_streams_on_every_loop_and_survives_termination(
    settings, fresh_notifier
) -> None:
    """Streams on two event loops, one LISTEN connection; a NOTIFY from another
    connection wakes them; after pg_terminate_backend the listener is back, and every
    watched stream was woken (it re-reads its log)."""
    from a2a_app.core.notify_pg import PostgresNotifier

    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    notify.reset()
    notifier = notify.get_notifier()
    assert isinstance(notifier, PostgresNotifier)
    woken: list[tuple[int, str]] = []
    ready = threading.Barrier(3)
    stop = threading.Event()

    def a_loop(number: int, task_ids: list[str]) -> None:
        async def streams() -> None:
            async def one(task_id: str) -> None:
                event = waiters.add(task_id)
                await notifier.listen()
                try:
                    while not stop.is_set():
                        with contextlib_suppress_timeout():
                            await asyncio.wait_for(event.wait(), 0.1)
                        if event.is_set():
                            event.clear()
                            woken.append((number, task_id))
                finally:
                    waiters.remove(task_id, event)

            runners = [asyncio.create_task(one(t)) for t in task_ids]
            await asyncio.sleep(0.3)
            await asyncio.to_thread(ready.wait)
            await asyncio.gather(*runners)

        asyncio.run(streams())

    loops = [
        threading.Thread(target=a_loop, args=(n, [f"t{n}-{i}" for i in range(5)])) for n in range(2)
    ]
    for thread in loops:
        thread.start()
    try:
        ready.wait(10)
        assert notifier.listening.is_set()
        pids = backends_listening()
        assert pids == [notifier.backend_pid]  # one, for ten streams on two loops

        woken.clear()  # (the listener woke the streams that watched before it listened)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify('a2a_task', 't1-3')")
        assert wait_until(lambda: (1, "t1-3") in woken)
        assert all(task_id == "t1-3" for _, task_id in woken)

        woken.clear()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [notifier.backend_pid])
        assert wait_until(lambda: notifier.connections_made == 2 and notifier.listening.is_set())
        # On reconnecting, every watched stream was woken to re-read its log.
        assert wait_until(lambda: len(set(woken)) == 10)
        assert backends_listening() == [notifier.backend_pid] != pids
        woken.clear()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify('a2a_task', 't0-0')")
        assert wait_until(lambda: (0, "t0-0") in woken)
    finally:
        stop.set()
        for thread in loops:
            thread.join(10)
    notify.reset()  # stops the listener: its connection goes
    assert wait_until(lambda: backends_listening() == [])


def contextlib_suppress_timeout():
    import contextlib

    return contextlib.suppress(TimeoutError)


def test_with_psycopg2_streams_poll_and_a_check_says_so(settings, monkeypatch, fresh_notifier):
    from django.db.backends.postgresql import psycopg_any

    from a2a_app.checks import check_stream_notifier

    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": None}
    assert check_stream_notifier() == []  # psycopg 3 here, or not PostgreSQL at all
    monkeypatch.setattr(psycopg_any, "is_psycopg3", False)
    notify.reset()
    assert type(notify.get_notifier()) is DatabaseNotifier
    if connection.vendor == "postgresql":
        assert [w.id for w in check_stream_notifier()] == ["a2a_app.W150"]
    settings.A2A_APP = {**settings.A2A_APP, "NOTIFIER_REDIS_URL": "redis://127.0.0.1:1/0"}
    assert check_stream_notifier() == []  # Redis wakes the streams: nothing to say
