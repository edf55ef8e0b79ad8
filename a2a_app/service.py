"""The A2A operations, once, for every transport.

Each function takes a parsed request and the :class:`Caller`, runs in one transaction,
and returns the v1.0 wire result. The JSON-RPC view calls these; so will the REST
views, the SSE streams and the Celery tasks. Nothing here knows about HTTP.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.utils import timezone

from . import store
from .auth import Caller
from .conf import a2a_settings
from .context import SkillContext, agent_message
from .execution import Resolution, resolve_outcome, run_handler
from .models import Task, TaskArtifact, TaskMessage
from .protocol.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from .protocol.types import (
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    SendMessageRequest,
    TaskIdRequest,
    TaskState,
)
from .protocol.versions import V1_0
from .signals import artifact_added, task_status_changed
from .skills import SkillInfo, get_catalogue

JSON = dict[str, Any]


# --- SendMessage ------------------------------------------------------------------------


def send_message(request: SendMessageRequest, caller: Caller) -> JSON:
    """Create or continue a task and run its skill; ``{"task": …}`` or ``{"message": …}``.

    Skills run inline and the answer is the task once it is terminal or interrupted.
    """
    if request.configuration.push_notification_config is not None:
        raise PushNotificationNotSupportedError(
            "configuration.taskPushNotificationConfig: this agent does not send push notifications"
        )
    message = request.message
    with transaction.atomic():
        if message.task_id:
            return _continue_task(request, caller)
        return _start_task(request, caller)


def _start_task(request: SendMessageRequest, caller: Caller) -> JSON:
    message = request.message
    context_id = message.context_id or str(uuid.uuid4())
    available = [s for s in get_catalogue().enabled if s.allows(caller)]
    skill = a2a_settings.ROUTER(message, request.metadata, available)
    if skill is None:
        return {"message": _skill_listing(available, context_id).to_wire()}
    _check_content_types(message, request.configuration.accepted_output_modes, skill)

    task_id = str(uuid.uuid4())
    message.task_id, message.context_id = task_id, context_id
    state: dict[str, Any] = {}
    ctx = SkillContext(
        message=message,
        skill=skill,
        caller=caller,
        task_id=task_id,
        context_id=context_id,
        history=[],
        state=state,
        metadata=request.metadata,
        accepted_output_modes=request.configuration.accepted_output_modes,
    )
    resolution = resolve_outcome(run_handler(ctx), task_id=task_id, context_id=context_id)
    if resolution.reply is not None:
        # A direct answer creates no task.
        resolution.reply.task_id = ""
        return {"message": resolution.reply.to_wire()}

    task = Task.objects.create(
        id=task_id,
        context_id=context_id,
        owner=caller.scope,
        skill_id=skill.id,
        state=resolution.state.value,
        status_message=_wire(resolution.status_message),
        status_timestamp=timezone.now(),
        skill_state=state,
        protocol_version=V1_0,
    )
    history = [message.to_wire()]
    if resolution.status_message is not None:
        history.append(resolution.status_message.to_wire())
    _append(task, history, resolution.artifacts, first_message=0, first_artifact=0)
    _announce(task, None, resolution)
    history = store.trim_history(history, request.configuration.history_length)
    artifacts = [a.to_wire() for a in resolution.artifacts]
    return {"task": store.task_to_wire(task, history, artifacts)}


def _continue_task(request: SendMessageRequest, caller: Caller) -> JSON:
    message = request.message
    task = store.get_task(message.task_id, caller, for_update=True)
    previous = task.task_state
    if previous.is_terminal:
        raise UnsupportedOperationError(
            f"Task {message.task_id} is {previous.value} and accepts no more messages; "
            "start a new task (same contextId) instead",
            metadata={"taskId": message.task_id, "state": previous.value},
        )
    if message.context_id and message.context_id != task.context_id:
        raise InvalidParamsError.for_field(
            "message.contextId", f"does not match the context of task {message.task_id}"
        )
    if not previous.is_interrupted:
        raise UnsupportedOperationError(
            f"Task {message.task_id} is {previous.value}; it takes new messages only when "
            "it asks for input",
            metadata={"taskId": message.task_id, "state": previous.value},
        )
    skill = get_catalogue().get(task.skill_id)
    if skill is None or not skill.enabled or not skill.allows(caller):
        raise UnsupportedOperationError(
            f"The skill of task {message.task_id} is no longer available",
            metadata={"taskId": message.task_id},
        )
    _check_content_types(message, request.configuration.accepted_output_modes, skill)

    message.context_id = task.context_id
    task_id = str(task.pk)
    earlier = store.load_history([task], None).get(task.pk, [])
    ctx = SkillContext(
        message=message,
        skill=skill,
        caller=caller,
        task_id=task_id,
        context_id=task.context_id,
        history=[Message.from_wire(m, "history") for m in earlier],
        state=task.skill_state,
        metadata=request.metadata,
        accepted_output_modes=request.configuration.accepted_output_modes,
        is_follow_up=True,
    )
    resolution = resolve_outcome(run_handler(ctx), task_id=task_id, context_id=task.context_id)

    task.state = resolution.state.value
    task.status_message = _wire(resolution.status_message)
    task.status_timestamp = timezone.now()
    task.save(update_fields=["state", "status_message", "status_timestamp", "skill_state"])
    new_messages = [message.to_wire()]
    if resolution.status_message is not None:
        new_messages.append(resolution.status_message.to_wire())
    existing_artifacts = store.load_artifacts([task]).get(task.pk, [])
    _append(
        task,
        new_messages,
        resolution.artifacts,
        first_message=len(earlier),
        first_artifact=len(existing_artifacts),
    )
    _announce(task, previous, resolution)
    history = store.trim_history(earlier + new_messages, request.configuration.history_length)
    artifacts = existing_artifacts + [a.to_wire() for a in resolution.artifacts]
    return {"task": store.task_to_wire(task, history, artifacts)}


def _wire(message: Message | None) -> JSON | None:
    return None if message is None else message.to_wire()


def _append(
    task: Task, messages: list[JSON], artifacts: list, *, first_message: int, first_artifact: int
) -> None:
    TaskMessage.objects.bulk_create(
        TaskMessage(
            task=task,
            position=first_message + i,
            message_id=body["messageId"],
            role=body["role"],
            body=body,
        )
        for i, body in enumerate(messages)
    )
    if artifacts:
        TaskArtifact.objects.bulk_create(
            TaskArtifact(
                task=task,
                position=first_artifact + i,
                artifact_id=artifact.artifact_id,
                name=artifact.name,
                body=artifact.to_wire(),
            )
            for i, artifact in enumerate(artifacts)
        )


def _announce(task: Task, previous: TaskState | None, resolution: Resolution) -> None:
    """Send the signals once the transaction has committed."""

    def send() -> None:
        task_status_changed.send(
            sender=Task, task=task, previous_state=previous, state=resolution.state
        )
        for artifact in resolution.artifacts:
            artifact_added.send(sender=Task, task=task, artifact=artifact)

    transaction.on_commit(send)


def _skill_listing(skills: list[SkillInfo], context_id: str) -> Message:
    if skills:
        lines = [f"- {s.name} ({s.id}): {s.description}" for s in skills]
        text = (
            "I could not tell which skill you meant. Name one in metadata.skillId, or "
            "ask about one of these:\n" + "\n".join(lines)
        )
    else:
        text = "This agent has no skills available to you right now."
    data = {"skills": [{"id": s.id, "name": s.name, "description": s.description} for s in skills]}
    return agent_message([Part.text_part(text), Part.data_part(data)], context_id=context_id)


def _mode_matches(offered: str, accepted: str) -> bool:
    # Media types are case-insensitive (RFC 9110 §8.3.1); parameters don't matter here.
    offered = offered.split(";")[0].strip().lower()
    accepted = accepted.split(";")[0].strip().lower()
    if accepted in ("*/*", "*") or offered == accepted:
        return True
    return accepted.endswith("/*") and offered.startswith(accepted[:-1])


def _check_content_types(message: Message, accepted_output: list[str], skill: SkillInfo) -> None:
    inputs = skill.input_modes or tuple(a2a_settings.DEFAULT_INPUT_MODES)
    for index, part in enumerate(message.parts):
        if part.media_type and not any(_mode_matches(part.media_type, m) for m in inputs):
            raise ContentTypeNotSupportedError(
                f"message.parts[{index}].mediaType {part.media_type!r} is not accepted by "
                f"skill {skill.id!r}; it accepts {', '.join(inputs)}",
                metadata={"field": f"message.parts[{index}].mediaType"},
            )
    outputs = skill.output_modes or tuple(a2a_settings.DEFAULT_OUTPUT_MODES)
    if accepted_output and not any(_mode_matches(o, a) for o in outputs for a in accepted_output):
        raise ContentTypeNotSupportedError(
            f"configuration.acceptedOutputModes: skill {skill.id!r} produces only "
            f"{', '.join(outputs)}",
            metadata={"field": "configuration.acceptedOutputModes"},
        )


# --- GetTask, ListTasks, CancelTask --------------------------------------------------------


def get_task(request: GetTaskRequest, caller: Caller) -> JSON:
    task = store.get_task(request.id, caller)
    return store.read_task(task, request.history_length)


def list_tasks(request: ListTasksRequest, caller: Caller) -> JSON:
    return store.list_tasks(request, caller)


def cancel_task(request: TaskIdRequest, caller: Caller) -> JSON:
    with transaction.atomic():
        task = store.get_task(request.id, caller, for_update=True)
        previous = task.task_state
        if previous.is_terminal:
            raise TaskNotCancelableError(
                f"Task {request.id} is already {previous.value}",
                metadata={"taskId": request.id, "state": previous.value},
            )
        task.state = TaskState.CANCELED.value
        task.status_message = None
        task.status_timestamp = timezone.now()
        task.save(update_fields=["state", "status_message", "status_timestamp"])
        _announce(task, previous, Resolution(TaskState.CANCELED))
        return store.read_task(task, None)


# --- capabilities this agent does not declare -------------------------------------------


def streaming_not_supported(*args: Any) -> JSON:
    raise UnsupportedOperationError(
        "Streaming is not supported by this agent (capabilities.streaming is false)"
    )


def push_not_supported(*args: Any) -> JSON:
    raise PushNotificationNotSupportedError()


def extended_card_not_supported(*args: Any) -> JSON:
    raise UnsupportedOperationError(
        "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
    )
