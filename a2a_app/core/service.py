"""The A2A task operations, once, for every binding: SendMessage (from
:mod:`a2a_app.core.sending`), GetTask, ListTasks, CancelTask, and who gets which
extended agent card (the card itself is drawn by :mod:`a2a_app.bindings.card`, which
knows the URLs).

Each function takes a parsed request and the :class:`Caller`, runs in one transaction,
and returns the v1.0 wire result. Every binding's operation table calls these; nothing
here knows about HTTP.
"""

from __future__ import annotations

from typing import Any

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import limits, store
from a2a_app.core.updates import TaskUpdate
from a2a_app.exceptions import TaskClosed
from a2a_app.protocol.errors import (
    AuthenticationRequiredError,
    ExtendedAgentCardNotConfiguredError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from a2a_app.protocol.params import GetTaskRequest, ListTasksRequest, TaskIdRequest
from a2a_app.protocol.types import TaskState
from a2a_app.skills.catalogue import Catalogue, SkillInfo, get_catalogue

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


# --- GetExtendedAgentCard ---------------------------------------------------------------


def extended_card_declared(catalogue: Catalogue) -> bool:
    """The card's ``capabilities.extendedAgentCard``: ``EXTENDED_CARD``, or when that is
    None, whether some enabled skill is not public and callers have a way to sign in."""
    setting = a2a_settings.EXTENDED_CARD
    if setting is None:
        return catalogue.has_restricted and bool(a2a_settings.AUTHENTICATION_CLASSES)
    return bool(setting)


def extended_card_skills(caller: Caller) -> list[SkillInfo]:
    """The skills of ``caller``'s extended card: every enabled one it may use.

    The checks come in the spec's order: a card that declares no extended card answers
    UnsupportedOperation, one that declares it without any way to sign in
    ExtendedAgentCardNotConfigured, and then an anonymous caller is asked to sign in.
    """
    catalogue = get_catalogue()
    if not extended_card_declared(catalogue):
        raise UnsupportedOperationError(
            "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
        )
    if not a2a_settings.AUTHENTICATION_CLASSES:
        raise ExtendedAgentCardNotConfiguredError(
            "The extended agent card is declared, but no authentication is configured "
            "to sign in for it"
        )
    if not caller.is_authenticated:
        raise AuthenticationRequiredError(
            "The extended agent card is for authenticated callers: send credentials"
        )
    return [skill for skill in catalogue.enabled if skill.allows(caller)]
