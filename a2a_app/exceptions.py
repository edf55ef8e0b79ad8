"""Exceptions that site code may catch: the ones ``a2a_app.api`` raises.

Protocol errors that callers of the A2A endpoints see (with their JSON-RPC codes and
HTTP statuses) are in :mod:`a2a_app.protocol.errors`; these are for Python callers.
"""

from __future__ import annotations


class A2AAppError(Exception):
    """Base class of the exceptions site code gets from a2a_app."""


class TaskNotFound(A2AAppError, LookupError):
    """No task has that id."""

    def __init__(self, task_id: object) -> None:
        super().__init__(f"no task {task_id}")
        self.task_id = str(task_id)


class TaskClosed(A2AAppError, ValueError):
    """The task is already terminal (completed, failed, canceled or rejected): a late
    answer must not rewrite it."""

    def __init__(self, task_id: object, state: str) -> None:
        super().__init__(f"task {task_id} is already {state}")
        self.task_id = str(task_id)
        self.state = state
