"""The Python API for site code: finish or advance a task later, with a handler's verbs.

For skills that hand work to people or other systems: the handler returns
``ctx.keep_working(...)``, and a view, a signal receiver or an admin action calls one of
these when the answer is in. Each verb is the one a handler has on its context and
writes exactly what the handler's outcome would (``api.complete`` and ``ctx.complete``
leave the same artifacts). Each call is one transaction under the task's row lock;
streams and webhooks see the change.

    from a2a_app import api

    api.complete(request.task_id, "Your catering order is confirmed.",
                 data={"order": order.pk}, name="order")

A task that already ended raises :class:`~a2a_app.exceptions.TaskClosed` (a late answer
must not rewrite it); an unknown id raises :class:`~a2a_app.exceptions.TaskNotFound`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from a2a_app.core.execution import apply_resolution, resolve_outcome
from a2a_app.core.updates import TaskUpdate
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import Task
from a2a_app.protocol.types import Artifact, TaskState
from a2a_app.skills.context import (
    Failed,
    InputRequired,
    Outcome,
    Rejected,
    agent_message,
    completed,
    message_parts,
)

__all__ = [
    "TaskClosed",
    "TaskNotFound",
    "add_artifact",
    "ask",
    "complete",
    "fail",
    "progress",
    "reject",
]

TaskId = str | uuid.UUID


def _change(task_id: TaskId, change: Callable[[TaskUpdate], None], *, ends_run: bool) -> Task:
    with TaskUpdate.locked(str(task_id)) as update:
        if ends_run:
            # The task no longer waits on a worker; progress reports leave a worker's lease.
            update.task.lease_expires_at = None
        change(update)
    return update.task


def _finish(task_id: TaskId, outcome: Callable[[Task], Outcome]) -> Task:
    """Apply the outcome a handler would have returned, as the worker would."""

    def change(update: TaskUpdate) -> None:
        task = update.task
        resolution = resolve_outcome(
            outcome(task), task_id=str(task.pk), context_id=task.context_id
        )
        apply_resolution(update, resolution)

    return _change(task_id, change, ends_run=True)


def complete(
    task_id: TaskId,
    text: str | None = None,
    *,
    data: Any = None,
    artifacts: Sequence[Artifact] = (),
    message: str = "",
    name: str = "",
) -> Task:
    """COMPLETED, as ``ctx.complete``: ``text``/``data`` become one artifact named
    ``name`` (by default the skill's id); ``message`` is the status message."""
    return _finish(
        task_id,
        lambda task: completed(
            text, data=data, artifacts=artifacts, message=message, name=name or task.skill_id
        ),
    )


def ask(task_id: TaskId, question: str, *, missing: Sequence[str] = (), data: Any = None) -> Task:
    """INPUT_REQUIRED, as ``ctx.ask``: the caller's next message goes to the skill again."""
    return _finish(task_id, lambda task: InputRequired(question, list(missing), data))


def reject(task_id: TaskId, reason: str) -> Task:
    """REJECTED, as ``ctx.reject``."""
    return _finish(task_id, lambda task: Rejected(reason))


def fail(task_id: TaskId, reason: str) -> Task:
    """FAILED, as ``ctx.fail``."""
    return _finish(task_id, lambda task: Failed(reason))


def progress(task_id: TaskId, text: str, *, data: Any = None) -> Task:
    """A WORKING status whose message says how far along it is, as ``ctx.progress``."""

    def change(update: TaskUpdate) -> None:
        task = update.task
        message = agent_message(
            message_parts(text, data), context_id=task.context_id, task_id=str(task.pk)
        )
        update.set_status(TaskState.WORKING, message)

    return _change(task_id, change, ends_run=False)


def add_artifact(
    task_id: TaskId, artifact: Artifact, *, append: bool = False, last_chunk: bool = False
) -> Task:
    """Publish an artifact now, as ``ctx.add_artifact``."""
    return _change(
        task_id,
        lambda update: update.add_artifact(artifact, append=append, last_chunk=last_chunk),
        ends_run=False,
    )
