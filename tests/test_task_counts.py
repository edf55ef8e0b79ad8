"""ListTasks' totalSize from kept counts: equal to a plain COUNT for every filter, after
every way tasks are written, changed and deleted, also with concurrent writers
(PostgreSQL), and read in a fixed number of queries.

The counts are kept by database triggers (migration 0007): these tests write through the
service, the ORM (save, update, bulk_create, QuerySet.delete), raw SQL and the one-
statement PostgreSQL write path, and compare after each step.
"""

from __future__ import annotations

import io
import re
import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, connections
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app.caller import ANONYMOUS_SCOPE, Caller
from a2a_app.core import contexts, store, task_counts
from a2a_app.models import Task, TaskCount
from a2a_app.protocol.params import ListTasksRequest
from a2a_app.protocol.types import TaskState
from tests.conftest import user_message

STATES = [TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED, TaskState.CANCELED]


def basic(username: str, password: str) -> dict[str, str]:
    import base64

    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="alice-pw")


def make_task(owner: str, context_id: str, state: TaskState, age_minutes: int = 0) -> Task:
    when = timezone.now() - timedelta(minutes=age_minutes)
    return Task(
        id=uuid.uuid4(),
        context_id=context_id,
        owner=owner,
        state=state.value,
        status_timestamp=when,
        created_at=when,
    )


def plain_count(owner: str, context_id: str, status: TaskState | None, after: Any) -> int:
    tasks = Task.objects.filter(owner=owner)
    if context_id:
        tasks = tasks.filter(context_id=context_id)
    if status is not None:
        tasks = tasks.filter(state=status.value)
    if after is not None:
        tasks = tasks.filter(status_timestamp__gte=after)
    return tasks.count()


def assert_exact(callers: list[Caller], context_ids: list[str]) -> int:
    """totalSize == COUNT for every caller, context (or none), status (or none) and
    timestamp filter (or none); returns how many combinations were compared."""
    instants = [None, timezone.now() - timedelta(minutes=30)]
    compared = 0
    for caller in callers:
        for context_id in ["", *context_ids]:
            if not caller.is_authenticated and not context_id:
                continue  # anonymous callers list one (generated) context at a time
            for status in [None, *STATES]:
                for after in instants:
                    request = ListTasksRequest(
                        context_id=context_id, status=status, status_timestamp_after=after
                    )
                    total = store.list_tasks(request, caller)["totalSize"]
                    expected = plain_count(caller.scope, context_id, status, after)
                    assert total == expected, (caller.scope, context_id, status, after)
                    compared += 1
    assert task_counts.differences() == {}
    return compared


@pytest.mark.django_db
def test_total_size_is_exact_after_every_kind_of_write(rpc, conformance_mode, alice):
    owner = f"user:{alice.pk}"
    callers = [Caller(), Caller(user=alice)]
    mine, other, anon = contexts.new_context_id(), "ctx-other", contexts.new_context_id()
    context_ids = [mine, other, anon]

    # The service: SendMessage (completed and input-required tasks), then CancelTask.
    headers = basic("alice", "alice-pw")
    done = rpc("SendMessage", {"message": user_message("hello", contextId=mine)}, headers=headers)
    waiting = rpc(
        "SendMessage", {"message": user_message("input please", contextId=mine)}, headers=headers
    )["result"]["task"]
    rpc("SendMessage", {"message": user_message("hello", contextId=anon)})
    assert "task" in done["result"]
    # anonymous: 3 contexts; alice: all and 3 contexts; 5 statuses, 2 instants each
    assert assert_exact(callers, context_ids) == (3 + 4) * 5 * 2
    rpc("CancelTask", {"id": waiting["id"]}, headers=headers)
    assert Task.objects.get(pk=waiting["id"]).state == TaskState.CANCELED.value
    assert_exact(callers, context_ids)

    # The ORM: save, bulk_create (old tasks too: the timestamp filter splits them).
    make_task(owner, other, TaskState.WORKING).save(force_insert=True)
    Task.objects.bulk_create(
        [make_task(owner, other, STATES[i % 4], age_minutes=i * 10) for i in range(12)]
        + [make_task(ANONYMOUS_SCOPE, anon, TaskState.SUBMITTED, i * 10) for i in range(5)]
    )
    assert_exact(callers, context_ids)

    # State changes: one row, many rows, a no-op update, a move to another context/owner.
    task = Task.objects.filter(owner=owner, state=TaskState.WORKING.value).first()
    task.state = TaskState.COMPLETED.value
    task.save(update_fields=["state"])
    Task.objects.filter(owner=owner, state=TaskState.SUBMITTED.value).update(
        state=TaskState.WORKING.value
    )
    Task.objects.filter(owner=owner).update(state=F("state"))  # changes nothing
    moved = Task.objects.filter(owner=owner, context_id=other).values_list("pk", flat=True)[:3]
    Task.objects.filter(pk__in=list(moved)).update(context_id=mine)
    stolen = Task.objects.filter(owner=ANONYMOUS_SCOPE, context_id=anon).first()
    Task.objects.filter(pk=stolen.pk).update(owner=owner)
    assert_exact(callers, context_ids)

    # Deletions: QuerySet.delete() (with its cascade), raw SQL as a retention sweep would.
    Task.objects.filter(owner=owner, state=TaskState.CANCELED.value).delete()
    cutoff = timezone.now() - timedelta(minutes=45)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {Task._meta.db_table} WHERE status_timestamp < %s", [cutoff])
    assert_exact(callers, context_ids)
    Task.objects.all().delete()
    assert_exact(callers, context_ids)
    assert task_counts.kept_counts() == {}


@pytest.mark.django_db
def test_one_statement_write_path_is_counted(alice):
    """PostgreSQL's CTE write (core/rows.py) inserts and updates in one statement; on other
    databases the same call goes through the ORM. Either way the triggers count it."""
    from a2a_app.core import rows

    owner = f"user:{alice.pk}"
    task = make_task(owner, "ctx-rows", TaskState.SUBMITTED)
    rows.write(task, is_new=True, update_fields=[], tables=[])
    assert task_counts.count(owner, "ctx-rows", TaskState.SUBMITTED.value) == 1
    task.state = TaskState.COMPLETED.value
    rows.write(task, is_new=False, update_fields=["state", "status_timestamp"], tables=[])
    assert task_counts.count(owner, "ctx-rows", TaskState.SUBMITTED.value) == 0
    assert task_counts.count(owner, None, TaskState.COMPLETED.value) == 1
    assert_exact([Caller(user=alice)], ["ctx-rows"])


@pytest.mark.django_db
def test_anonymous_scope_is_counted_per_context_only():
    Task.objects.bulk_create([make_task(ANONYMOUS_SCOPE, "c", TaskState.SUBMITTED)])
    assert task_counts.count(ANONYMOUS_SCOPE, "c") == 1
    assert not TaskCount.objects.filter(per_context=False).exists()
    with pytest.raises(ValueError):
        task_counts.count(ANONYMOUS_SCOPE)


@pytest.mark.django_db
def test_rebuild_repairs_lost_counts_and_the_command_reports_them(alice):
    owner = f"user:{alice.pk}"
    Task.objects.bulk_create([make_task(owner, f"c{i % 3}", STATES[i % 4]) for i in range(20)])
    TaskCount.objects.filter(per_context=True).delete()  # as a restore without triggers
    TaskCount.objects.filter(per_context=False).update(tasks=99)
    assert task_counts.differences()
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("a2a_task_counts", stdout=out)
    assert exited.value.code == 1
    assert "differ" in out.getvalue()
    call_command("a2a_task_counts", "--rebuild", stdout=out)
    assert task_counts.differences() == {}
    assert_exact([Caller(user=alice)], ["c0", "c1", "c2"])
    out = io.StringIO()
    call_command("a2a_task_counts", stdout=out)
    assert "exact" in out.getvalue()


@pytest.mark.django_db
def test_compact_drops_zero_rows_only(alice):
    owner = f"user:{alice.pk}"
    Task.objects.bulk_create([make_task(owner, "c", TaskState.SUBMITTED) for _ in range(3)])
    Task.objects.filter(owner=owner).update(state=TaskState.COMPLETED.value)
    assert TaskCount.objects.filter(tasks=0).exists()
    assert task_counts.compact() >= 2
    assert not TaskCount.objects.filter(tasks=0).exists()
    assert task_counts.count(owner, "c", TaskState.COMPLETED.value) == 3
    assert task_counts.differences() == {}


@pytest.mark.django_db
def test_list_tasks_reads_no_count_of_tasks_but_for_the_timestamp_filter(
    rpc, conformance_mode, alice
):
    """A fixed number of queries at any size; only statusTimestampAfter counts the tasks."""
    owner = f"user:{alice.pk}"
    caller = Caller(user=alice)

    def queries(request: ListTasksRequest) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            store.list_tasks(request, caller)
        return [q["sql"] for q in captured.captured_queries]

    Task.objects.bulk_create([make_task(owner, "c", TaskState.COMPLETED, i) for i in range(10)])
    small = queries(ListTasksRequest(page_size=5))
    Task.objects.bulk_create(
        [make_task(owner, "c", TaskState.COMPLETED, 10 + i) for i in range(500)]
    )
    first = queries(ListTasksRequest(page_size=5))
    token = store.list_tasks(ListTasksRequest(page_size=5), caller)["nextPageToken"]
    deep = queries(ListTasksRequest(page_size=5, page_token=token, context_id="c"))
    assert len(small) == len(first) == len(deep)
    # A COUNT whose FROM is the task table itself (the statement also counts the page's
    # rows and each task's history messages, which cost the same at any size).
    counts_tasks = re.compile(
        rf'COUNT\(\*\)(?:\s+AS\s+"?\w+"?)?\s+FROM\s+"{Task._meta.db_table}"', re.IGNORECASE
    )
    for sql in first + deep:
        assert not counts_tasks.search(sql), sql
    after = timezone.now() - timedelta(minutes=5, seconds=30)
    timed = queries(ListTasksRequest(page_size=5, status_timestamp_after=after))
    assert len(timed) == len(first)
    assert any(counts_tasks.search(sql) for sql in timed)


@pytest.mark.django_db(transaction=True)
def test_counts_stay_exact_under_concurrent_writers(alice):
    """Threads (each its own PostgreSQL connection and transactions) insert, change and
    delete tasks of one caller in shared and own contexts at once; then every count is
    a COUNT. SQLite has one writer at a time: nothing to race there."""
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL (DATABASE_URL)")
    from django.db import transaction

    owner = f"user:{alice.pk}"
    writers, rounds = 6, 15
    start = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(number: int) -> None:
        try:
            start.wait(timeout=30)
            for i in range(rounds):
                with transaction.atomic():
                    batch = [
                        make_task(owner, "shared", TaskState.SUBMITTED),
                        make_task(owner, f"own-{number}", TaskState.SUBMITTED),
                        make_task(ANONYMOUS_SCOPE, "anon-shared", TaskState.SUBMITTED),
                    ]
                    Task.objects.bulk_create(batch)
                    Task.objects.filter(pk=batch[0].pk).update(state=TaskState.WORKING.value)
                with transaction.atomic():
                    Task.objects.filter(pk=batch[1].pk).update(state=TaskState.COMPLETED.value)
                    if i % 3 == 0:
                        Task.objects.filter(pk=batch[2].pk).delete()
                    if i % 5 == 0:
                        Task.objects.filter(pk=batch[0].pk).update(context_id=f"own-{number}")
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert Task.objects.count() == writers * rounds * 3 - writers * 5
    slots = set(TaskCount.objects.filter(per_context=False).values_list("slot", flat=True))
    assert len(slots) > 1  # the writers did spread over slots
    contexts_used = ["shared", "anon-shared", *(f"own-{n}" for n in range(writers))]
    assert_exact([Caller(user=alice)], contexts_used)
    for context_id in ("anon-shared",):
        assert task_counts.count(ANONYMOUS_SCOPE, context_id) == plain_count(
            ANONYMOUS_SCOPE, context_id, None, None
        )


@pytest.mark.django_db
def test_sqlite_flush_in_any_table_order_leaves_no_counts(alice):
    """Django's test flush on SQLite deletes each table in no set order: deleting tasks
    after their counts must not leave negative counts behind (decrements only update)."""
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL's flush truncates every table in one statement")
    owner = f"user:{alice.pk}"
    Task.objects.bulk_create([make_task(owner, "c", TaskState.SUBMITTED) for _ in range(3)])
    TaskCount.objects.all().delete()
    Task.objects.all().delete()
    assert not TaskCount.objects.exists()


@pytest.mark.django_db
def test_check_warns_when_a_counting_trigger_is_missing():
    from a2a_app.checks import check_task_count_triggers

    assert check_task_count_triggers(databases=["default"]) == []
    table = Task._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER a2a_task_count_delete")
        else:
            cursor.execute("DROP TRIGGER a2a_task_count_delete")
    problems = check_task_count_triggers(databases=["default"])
    assert [p.id for p in problems] == ["a2a_app.W140"]
    assert "a2a_task_count_delete" in problems[0].msg
