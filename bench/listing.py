"""ListTasks of one caller across its contexts, at 1,000 and at 1,000,000 tasks.

Two authenticated callers (each with an API key) own ``SMALL`` and ``LARGE`` tasks,
spread over contexts of ``PER_CONTEXT`` tasks, one history message each (in its row, and
on the task row as ``short_history``, as a2a_app writes them), 1 ms apart.
PostgreSQL writes them with ``INSERT ... SELECT generate_series`` (a million tasks and
their messages in about a minute); the counting triggers count each statement once.
Then :func:`a2a_app.core.task_counts.rebuild` recounts (the path a bulk load that
bypassed the triggers takes) and the run ANALYZEs. The cases ask for the first page and
for a deep one (the page after 90 % of the tasks): each must cost what it costs at
1,000 tasks, ``totalSize`` included.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from a2a_app.core import store, task_counts
from a2a_app.models import ApiKey, Task, TaskMessage
from bench.seed import COMPLETED, _message, _task

SMALL = 1_000
LARGE = 1_000_000
PER_CONTEXT = 1_000
DEEP_SHARE = 0.9

#: What the cases need, filled by :func:`seed`: size → (API key, deep page token, the id
#: of one of the caller's tasks: what the signed-in GetTask reference reads).
SEEDED: dict[int, tuple[str, str, str]] = {}


def _caller(size: int) -> tuple[str, str]:
    """The owner scope and a fresh API key of the caller that owns ``size`` tasks."""
    user, _ = get_user_model().objects.get_or_create(username=f"bench-lister-{size}")
    _, raw = ApiKey.issue(user, f"bench {size}")
    return f"user:{user.pk}", raw


def _insert_postgresql(owner: str, tasks: int) -> None:
    table, messages = Task._meta.db_table, TaskMessage._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (id, context_id, owner, skill_id, state, status_timestamp,
                metadata, skill_state, protocol_version, created_at, summary,
                first_message_id, message_count, short_history, artifact_count, event_count,
                push_config_count, background, run_attempts)
            SELECT md5(%(owner)s || i)::uuid, %(owner)s || '-ctx-' || (i / %(per)s),
                %(owner)s, 'conformance', %(state)s,
                %(base)s::timestamptz + i * interval '1 millisecond', '{{}}', '{{}}', '1.0',
                %(base)s::timestamptz + i * interval '1 millisecond', 'hello', '', 1,
                jsonb_build_array(jsonb_build_object(
                    'messageId', 'bench-' || md5(%(owner)s || i)::uuid, 'role', 'ROLE_USER',
                    'contextId', %(owner)s || '-ctx-' || (i / %(per)s),
                    'taskId', md5(%(owner)s || i)::uuid::text,
                    'parts', jsonb_build_array(jsonb_build_object('text', 'hello')))),
                0, 0, 0, false, 0
            FROM generate_series(0, %(n)s - 1) AS i
            """,
            {"owner": owner, "per": PER_CONTEXT, "state": COMPLETED, "n": tasks, "base": _base()},
        )
        cursor.execute(
            f"""
            INSERT INTO {messages} (task_id, position, message_id, role, body, created_at)
            SELECT id, 0, 'bench-' || id, 'ROLE_USER', jsonb_build_object(
                'messageId', 'bench-' || id, 'role', 'ROLE_USER', 'contextId', context_id,
                'taskId', id::text,
                'parts', jsonb_build_array(jsonb_build_object('text', 'hello'))),
                created_at
            FROM {table} WHERE owner = %s
            """,
            [owner],
        )


def _insert_orm(owner: str, tasks: int) -> None:
    from datetime import timedelta

    base = _base()
    for start in range(0, tasks, 5000):
        rows = []
        for i in range(start, min(start + 5000, tasks)):
            task = _task(f"{owner}-ctx-{i // PER_CONTEXT}", base + timedelta(milliseconds=i), 1)
            task.owner = owner
            rows.append(task)
        messages = [_message(t, 0, "hello") for t in rows]
        for task, message in zip(rows, messages, strict=True):
            task.short_history = [message.body]
        with transaction.atomic():
            Task.objects.bulk_create(rows)
            TaskMessage.objects.bulk_create(messages)


def _base():
    from datetime import timedelta

    return timezone.now() - timedelta(days=30)


def _deep_token(owner: str, tasks: int) -> str:
    offset = int(tasks * DEEP_SHARE)
    before = Task.objects.filter(owner=owner).order_by("-status_timestamp", "-pk")[offset - 1]
    return store.encode_page_token(before)


def seed(log: Callable[[str], None] = print) -> None:
    """Both callers' tasks, recounted, with keys and deep page tokens in ``SEEDED``."""
    insert = _insert_postgresql if connection.vendor == "postgresql" else _insert_orm
    for size in (SMALL, LARGE):
        started = time.monotonic()
        owner, key = _caller(size)
        if not Task.objects.filter(owner=owner).exists():
            insert(owner, size)
        newest = Task.objects.filter(owner=owner).order_by("-status_timestamp", "-pk").first()
        SEEDED[size] = (key, _deep_token(owner, size), str(newest.pk))
        log(f"  seeded {size:,} tasks of one caller in {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    rows = task_counts.rebuild()
    log(f"  recounted every task ({rows:,} count rows) in {time.monotonic() - started:.1f} s")


def case_args(size: int, deep: bool, page_size: int) -> list[str]:
    key, token, _ = SEEDED[size]
    return [f'"totalSize":{size}', key, str(page_size), token if deep else ""]


def get_case_args(size: int) -> list[str]:
    """GetTask of one of the caller's tasks, signed in with the same key as its listing:
    the reference that pays the same authentication as ListTasks does."""
    key, _, task_id = SEEDED[size]
    return ["TASK_STATE_COMPLETED", key, task_id]
