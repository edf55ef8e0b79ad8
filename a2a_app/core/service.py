"""The A2A task operations, once, for every binding: SendMessage (from
:mod:`a2a_app.core.sending`), GetTask, ListTasks, CancelTask.

Each function takes a parsed request and the :class:`Caller`, runs in one transaction,
and returns the v1.0 wire result. Every binding's operation table calls these; nothing
here knows about HTTP.
"""

from __future__ import annotations

from typing import Any

from a2a_app.caller import Caller
from a2a_app.core import limits, store
from a2a_app.core.updates import TaskUpdate
from a2a_app.exceptions import TaskClosed
from a2a_app.protocol.errors import TaskNotCancelableError, UnsupportedOperationError
from a2a_app.protocol.params import GetTaskRequest, ListTasksRequest, TaskIdRequest
from a2a_app.protocol.types import TaskState

JSON = dict[str, Any]


# --- GetTask, ListTasks, CancelTask --------------------------------------------------------


def get_task(request: GetTaskRequest, caller: Caller) -> JSON:
    history_length = limits.history_length(request.history_length)
    return store.read_task_by_id(request.id, caller, history_length)


def list_tasks(request: ListTasksRequest, caller: Caller) -> JSON:
    request.history_length = limits.history_length(request.history_length)
    return store.list_tasks(request, caller)


def cancel_task(request: TaskIdRequest, caller: Caller) -> JSON:
    """CANCELED now; a worker still running the skill finds out and its result is dropped."""
    try:
        with TaskUpdate.locked(request.id, caller=caller) as update:
            update.task.lease_expires_at = None
            update.set_status(TaskState.CANCELED)
    except TaskClosed as closed:
        raise TaskNotCancelableError(
            f"Task {request.id} is already {closed.state}",
            metadata={"taskId": request.id, "state": closed.state},
        ) from None
    return store.read_task(update.task, limits.history_length(None))


# --- capabilities this agent does not declare -------------------------------------------


def extended_card_not_supported(*args: Any) -> JSON:
    raise UnsupportedOperationError(
        "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
    )
