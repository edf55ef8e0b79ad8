"""The Python API for site code: finish or advance a task later.

For skills that hand work to people or other systems: the handler returns
``ctx.keep_working(...)``, and a view, a signal receiver or an admin action calls one of
these when the answer is in. Each call is one transaction under the task's row lock;
streams and webhooks see the change. A task that already ended raises
:class:`TaskClosed` (a late answer must not rewrite it).

    from a2a_app import api
    api.complete_task(request.task_id, text="Your catering order is confirmed.",
                      data={"order": order.pk})
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from a2a_app.core.updates import TaskUpdate
from a2a_app.models import Task
from a2a_app.protocol.types import Artifact, Part, TaskState
from a2a_app.skills.context import agent_message, data_artifact, text_artifact


class TaskClosed(ValueError):
    """The task is already terminal (completed, failed, canceled or rejected)."""


def _change(task_id: str | uuid.UUID, change: Any, *, ends_run: bool = True) -> Task:
    with transaction.atomic():
        task = Task.objects.select_for_update().filter(pk=task_id).first()
        if task is None:
            raise Task.DoesNotExist(f"no task {task_id}")
        if task.is_terminal:
            raise TaskClosed(f"task {task_id} is already {task.state}")
        if ends_run:
            # The task no longer waits on a worker; progress reports leave a worker's lease.
            task.lease_expires_at = None
        update = TaskUpdate(task)
        change(update)
        update.save()
    return task


def _say(task: Task, text: str, data: Any = None) -> Any:
    parts = [Part.text_part(text)] if text else []
    if data is not None:
        parts.append(Part.data_part(data))
    if not parts:
        return None
    return agent_message(parts, context_id=task.context_id, task_id=str(task.pk))


def complete_task(
    task_id: str | uuid.UUID,
    *,
    text: str | None = None,
    data: Any = None,
    artifacts: Sequence[Artifact] = (),
    message: str = "",
    name: str = "result",
) -> Task:
    """COMPLETED; ``text``/``data`` become an artifact named ``name``."""

    def change(update: TaskUpdate) -> None:
        if text is not None:
            update.add_artifact(text_artifact(text, name=name))
        if data is not None:
            update.add_artifact(data_artifact(data, name=name))
        for artifact in artifacts:
            update.add_artifact(artifact)
        update.set_status(TaskState.COMPLETED, _say(update.task, message))

    return _change(task_id, change)


def fail_task(task_id: str | uuid.UUID, reason: str) -> Task:
    return _change(task_id, lambda u: u.set_status(TaskState.FAILED, _say(u.task, reason)))


def reject_task(task_id: str | uuid.UUID, reason: str) -> Task:
    return _change(task_id, lambda u: u.set_status(TaskState.REJECTED, _say(u.task, reason)))


def request_input(task_id: str | uuid.UUID, question: str, *, missing: Sequence[str] = ()) -> Task:
    """INPUT_REQUIRED: the caller's next message on the task goes to the skill again."""
    return _change(
        task_id,
        lambda u: u.set_status(
            TaskState.INPUT_REQUIRED, _say(u.task, question, {"missing": list(missing)})
        ),
    )


def update_progress(task_id: str | uuid.UUID, text: str) -> Task:
    """A WORKING status with a message saying how far along it is."""
    return _change(
        task_id, lambda u: u.set_status(TaskState.WORKING, _say(u.task, text)), ends_run=False
    )


def add_artifact(task_id: str | uuid.UUID, artifact: Artifact) -> Task:
    return _change(task_id, lambda u: u.add_artifact(artifact), ends_run=False)
