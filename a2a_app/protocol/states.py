"""The task state machine of A2A v1.0 (spec §4.1.3): which states end a task, which
wait for the client, and which status update ends a stream.

A terminal task (completed, failed, canceled, rejected) takes no change and no message
(:meth:`a2a_app.core.updates.TaskUpdate.locked`, :func:`a2a_app.core.sending.check_follow_up`);
an interrupted one (input or auth required) takes the client's next message; the others
(submitted, working) take none until the agent moves them on.
"""

from __future__ import annotations

import enum
from typing import Any


class TaskState(enum.StrEnum):
    UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
    SUBMITTED = "TASK_STATE_SUBMITTED"
    WORKING = "TASK_STATE_WORKING"
    COMPLETED = "TASK_STATE_COMPLETED"
    FAILED = "TASK_STATE_FAILED"
    CANCELED = "TASK_STATE_CANCELED"
    INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    REJECTED = "TASK_STATE_REJECTED"
    AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES

    @property
    def is_interrupted(self) -> bool:
        return self in INTERRUPTED_STATES


TERMINAL_STATES = frozenset(
    {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED}
)
INTERRUPTED_STATES = frozenset({TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED})


def ends_stream(event: dict[str, Any], *, at_interrupted: bool = True) -> bool:
    """A status update to a terminal state, or (``at_interrupted``) to an interrupted one:
    the last event of a stream.

    A SendStreamingMessage stream ends at an interrupted state, because its sender must
    answer; a SubscribeToTask stream (``at_interrupted=False``) stays open through it,
    because someone else may answer.
    """
    update = event.get("statusUpdate")
    if update is None:
        return False
    state = TaskState(update["status"]["state"])
    return state.is_terminal or (at_interrupted and state.is_interrupted)
