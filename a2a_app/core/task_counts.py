"""ListTasks' ``totalSize`` from counts kept by database triggers, not a COUNT per request.

The triggers (migration 0007) keep :class:`~a2a_app.models.TaskCount` rows exact under
every write to the task table, in the writing transaction: one row per (caller scope,
context, state) and, for authenticated callers, per (caller scope, state) spread over a
few slots (see the migration). A ListTasks filtered by caller, context and state then
sums a few rows (at most 16 per state) whatever the number of tasks.

``statusTimestampAfter`` cannot be counted ahead (any instant may be asked), so a
request with it counts the matching tasks: an index range scan of
``(owner[, context_id], -status_timestamp)`` over the tasks newer than the instant
(with a status as well, each of them is checked for its state). It costs in proportion
to the number of tasks changed since that instant, as every ListTasks did before.

Only PostgreSQL and SQLite have the triggers; other databases count with COUNT(*).
:func:`rebuild` recounts from the task table (after restoring a dump without triggers,
or to repair); ``manage.py a2a_task_counts`` runs it and :func:`differences`.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Count, QuerySet, Sum

from a2a_app.models import Task, TaskCount

#: The databases whose task table has the counting triggers (migration 0007).
VENDORS = frozenset({"postgresql", "sqlite"})


def kept(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Are task counts kept on this database (else count with COUNT(*))?"""
    return connections[using].vendor in VENDORS


def count(owner: str, context_id: str | None = None, state: str | None = None) -> int:
    """How many tasks ``owner`` has (in ``context_id``, in ``state``), from the counts.

    The caller-wide counts of the anonymous scope are not kept (an anonymous ListTasks
    must name a context): asking for them is a programming error.
    """
    if not context_id and not owner:
        raise ValueError("anonymous tasks are counted per context only")
    rows = TaskCount.objects.filter(
        per_context=bool(context_id), owner=owner, context_id=context_id or ""
    )
    if state is not None:
        rows = rows.filter(state=state)
    return rows.aggregate(total=Sum("tasks"))["total"] or 0


def _grouped(tasks: QuerySet[Task], per_context: bool) -> QuerySet:
    keys = ("owner", "context_id", "state") if per_context else ("owner", "state")
    return tasks.order_by().values(*keys).annotate(tasks=Count("pk"))


def counted_from_tasks(using: str = DEFAULT_DB_ALIAS) -> dict[tuple[bool, str, str, str], int]:
    """The counts as COUNT(*) over the task table finds them, by key."""
    tasks = Task.objects.using(using)
    found: dict[tuple[bool, str, str, str], int] = {}
    for row in _grouped(tasks, True):
        found[True, row["owner"], row["context_id"], row["state"]] = row["tasks"]
    for row in _grouped(tasks.exclude(owner=""), False):
        found[False, row["owner"], "", row["state"]] = row["tasks"]
    return found


def kept_counts(using: str = DEFAULT_DB_ALIAS) -> dict[tuple[bool, str, str, str], int]:
    """The counts as the kept rows say, summed over slots, zeros left out."""
    rows = (
        TaskCount.objects.using(using)
        .values("per_context", "owner", "context_id", "state")
        .annotate(total=Sum("tasks"))
        .order_by()
    )
    return {
        (row["per_context"], row["owner"], row["context_id"], row["state"]): row["total"]
        for row in rows
        if row["total"]
    }


def differences(using: str = DEFAULT_DB_ALIAS) -> dict[tuple[bool, str, str, str], tuple[int, int]]:
    """Keys whose kept count is not the task table's: ``{key: (kept, counted)}``.

    Run it while nothing writes tasks (or it may see a write half counted).
    """
    counted, have = counted_from_tasks(using), kept_counts(using)
    return {
        key: (have.get(key, 0), counted.get(key, 0))
        for key in counted.keys() | have.keys()
        if have.get(key, 0) != counted.get(key, 0)
    }


def rebuild(using: str = DEFAULT_DB_ALIAS) -> int:
    """Recount every task and replace the kept counts; returns the number of count rows.

    On PostgreSQL the task table is locked against writes (SHARE) while it is counted, so
    the counts are exact when the transaction commits; writers wait for it.
    """
    connection = connections[using]
    table, counts = Task._meta.db_table, TaskCount._meta.db_table
    with transaction.atomic(using=using), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")
            cursor.execute(f"LOCK TABLE {counts} IN EXCLUSIVE MODE")
        cursor.execute(f"DELETE FROM {counts}")
        cursor.execute(
            f"INSERT INTO {counts} (per_context, owner, context_id, state, slot, tasks) "
            f"SELECT %s, owner, context_id, state, 0, COUNT(*) FROM {table} "
            "GROUP BY owner, context_id, state "
            f"UNION ALL SELECT %s, owner, '', state, 0, COUNT(*) FROM {table} "
            "WHERE owner <> '' GROUP BY owner, state",
            [True, False],
        )
        return cursor.rowcount


def compact(using: str = DEFAULT_DB_ALIAS) -> int:
    """Delete the rows that count nothing (a context's former states); returns how many.

    Optional housekeeping: zero rows cost a little room and nothing else. Rows a writer
    holds right now are left for next time rather than waited for.
    """
    table = TaskCount._meta.db_table
    skip_locked = " FOR UPDATE SKIP LOCKED" if connections[using].vendor == "postgresql" else ""
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE id IN "
            f"(SELECT id FROM {table} WHERE tasks = %s{skip_locked})",
            [0],
        )
        return cursor.rowcount


#: The counting triggers migration 0007 installs, by database.
TRIGGERS = {
    "postgresql": (
        "a2a_task_count_delete",
        "a2a_task_count_insert",
        "a2a_task_count_truncate",
        "a2a_task_count_update",
    ),
    "sqlite": ("a2a_task_count_delete", "a2a_task_count_insert", "a2a_task_count_update"),
}


def missing_triggers(using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """The counting triggers that are absent (or disabled) on the task table."""
    connection = connections[using]
    expected = TRIGGERS.get(connection.vendor, ())
    if connection.vendor == "postgresql":
        sql = "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND tgenabled <> 'D'"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [Task._meta.db_table])
        present = {name for (name,) in cursor.fetchall()}
    return [name for name in expected if name not in present]
