"""Data the read cases need, written straight with the ORM (bulk_create).

* a task with 1,000 history messages (GetTask at historyLength 10);
* 100,000 tasks in one context (ListTasks first page and a deep page).

Rows look like what a2a_app writes for the conformance skill's "hello": the message
bodies are v1.0 wire JSON, the task is COMPLETED, owned by the anonymous scope.
"""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from a2a_app.caller import ANONYMOUS_SCOPE
from a2a_app.models import Task, TaskArtifact, TaskMessage

COMPLETED = "TASK_STATE_COMPLETED"
LONG_CONTEXT = "bench-long-history"
BIG_CONTEXT_NAME = "bench-100k"
BATCH = 5000


def big_context_id() -> str:
    """The big context's id: one this agent could have generated (an anonymous caller may
    list only those), the same for every process that shares the run's SECRET_KEY."""
    from django.conf import settings

    from a2a_app.core import contexts

    head = uuid.uuid5(uuid.NAMESPACE_URL, BIG_CONTEXT_NAME).hex[:-8]
    return str(uuid.UUID(hex=head + contexts._tag(head, settings.SECRET_KEY)))


def _message(task: Task, position: int, text: str) -> TaskMessage:
    role = "ROLE_USER" if position % 2 == 0 else "ROLE_AGENT"
    message_id = f"bench-{task.pk}-{position}"
    body = {
        "messageId": message_id,
        "role": role,
        "contextId": task.context_id,
        "taskId": str(task.pk),
        "parts": [{"text": text}],
    }
    return TaskMessage(
        task=task,
        position=position,
        message_id=message_id,
        role=role,
        body=body,
        created_at=task.created_at,
    )


def _artifact(task: Task, text: str) -> TaskArtifact:
    artifact_id = str(uuid.uuid4())
    body = {"artifactId": artifact_id, "name": "echo", "parts": [{"text": text}]}
    return TaskArtifact(
        task=task,
        position=0,
        artifact_id=artifact_id,
        name="echo",
        body=body,
        created_at=task.created_at,
    )


def _task(context_id: str, when, messages: int) -> Task:
    return Task(
        id=uuid.uuid4(),
        context_id=context_id,
        owner=ANONYMOUS_SCOPE,
        skill_id="conformance",
        state=COMPLETED,
        status_timestamp=when,
        created_at=when,
        message_count=messages,
        artifact_count=1,
    )


def long_history_task(messages: int = 1000) -> str:
    """A task with ``messages`` history messages (newest text: "bench history <n-1>")."""
    task = _task(LONG_CONTEXT, timezone.now(), messages)
    with transaction.atomic():
        task.save(force_insert=True)
        TaskMessage.objects.bulk_create(
            [_message(task, i, f"bench history {i}") for i in range(messages)], batch_size=BATCH
        )
        TaskArtifact.objects.bulk_create([_artifact(task, "echo: hello")])
    return str(task.pk)


def big_context(tasks: int = 100_000, log=print) -> None:
    """``tasks`` tasks in the big context, one message each, 1 ms apart (newest: the last)."""
    started = time.monotonic()
    base = timezone.now() - timedelta(days=1)
    context_id = big_context_id()
    for start in range(0, tasks, BATCH):
        rows = [
            _task(context_id, base + timedelta(milliseconds=i), 1)
            for i in range(start, min(start + BATCH, tasks))
        ]
        with transaction.atomic():
            Task.objects.bulk_create(rows, batch_size=BATCH)
            TaskMessage.objects.bulk_create(
                [_message(t, 0, "hello") for t in rows], batch_size=BATCH
            )
    log(f"  seeded {tasks:,} tasks in one context in {time.monotonic() - started:.0f} s")


def deep_page_token(offset: int) -> str:
    """The ListTasks pageToken whose page starts at ``offset`` in the big context's order."""
    from a2a_app.core import store

    before = Task.objects.filter(owner=ANONYMOUS_SCOPE, context_id=big_context_id()).order_by(
        "-status_timestamp", "-pk"
    )[offset - 1]
    return store.encode_page_token(before)


def big_context_size() -> int:
    return Task.objects.filter(owner=ANONYMOUS_SCOPE, context_id=big_context_id()).count()


def analyze() -> None:
    """Fresh planner statistics, so that plans don't change in the middle of a run."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
