"""SendMessage, once, for every way a message is sent.

:func:`plan` does what every send does: for a follow-up, lock the task and check that it
takes the message; for a new message, route it to a skill; then check the content types,
vet a push config and build the task's change, unsaved. Then the task runs one way:

* inline, in the request's transaction (:func:`send_message`, an inline skill);
* in a worker: :func:`prepare_submission` stores it SUBMITTED and it is handed to the
  dispatcher after commit; a blocking send waits for it;
* streamed (:mod:`a2a_app.core.streams`): inline in a thread, or in a worker.

A signed-in caller's ``messageId`` is idempotent: a client that sends the same message again
(it retries after a timeout) gets the task its first send made, as it is now, and no
skill runs again (:mod:`a2a_app.core.retries`).

Nothing here knows about HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import contexts, dispatch, limits, push_configs, retries, rows, runner, store
from a2a_app.core.execution import (
    Resolution,
    apply_resolution,
    build_context,
    conversation_language,
    resolve_outcome,
    run_handler,
)
from a2a_app.core.updates import TaskUpdate
from a2a_app.ids import uuid7
from a2a_app.models import PushConfig, Task, summary_of
from a2a_app.protocol.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    PermissionDeniedError,
    UnsupportedOperationError,
)
from a2a_app.protocol.params import SendMessageRequest
from a2a_app.protocol.types import Artifact, Message, TaskState
from a2a_app.protocol.versions import V1_0
from a2a_app.skills.catalogue import Catalogue, SkillInfo, get_catalogue
from a2a_app.skills.context import Failed
from a2a_app.skills.routing import fallback_message, requested_skill

JSON = dict[str, Any]


# --- the plan -------------------------------------------------------------------------------


@dataclass(slots=True)
class SendPlan:
    """What a send will do, decided inside its transaction and not yet saved."""

    request: SendMessageRequest
    caller: Caller
    version: str
    #: No skill fits a new message: this listing is the answer, and there is no task.
    listing: Message | None = None
    #: The task's change: the message (and push config) added, a new task or a follow-up.
    update: TaskUpdate | None = None
    skill: SkillInfo | None = None
    push_config: PushConfig | None = None
    #: Runs in a worker (a background skill, or a new task sent with returnImmediately).
    background: bool = False
    #: The message is a retry of one this task already has: answer with the task as it is.
    retry_of: Task | None = None

    @property
    def task(self) -> Task:
        assert self.update is not None
        return self.update.task

    @property
    def is_new(self) -> bool:
        return self.update is not None and self.update.is_new


def plan(
    request: SendMessageRequest, caller: Caller, version: str = V1_0, *, streaming: bool = False
) -> SendPlan:
    """Route or check the message and build its task's change; raises protocol errors.

    Call it in a transaction: a follow-up's task stays locked until the change is saved.
    The limits are checked here, before anything is written: the message's size, anonymous
    task creation, the push configs of the task, the skill's rate limit (a new task).
    A streaming send ignores ``returnImmediately`` (the stream is its own answer), and so
    does a site without a worker to hand the task to.
    """
    message, configuration = request.message, request.configuration
    limits.check_message(message)
    if configuration.history_length is not None:
        # Absent stays absent: the answer then carries the handler's window (see
        # handler_history_length), which is no larger than the cap.
        configuration.history_length = limits.history_length(configuration.history_length)
    if message.task_id:
        task = store.get_task(message.task_id, caller, for_update=True)
        # Under the row lock: of two identical follow-ups, the second sees the first's.
        if retries.deduplicates(caller) and retries.is_retry_in(task, message):
            return SendPlan(request, caller, version, retry_of=task)
        skill = check_follow_up(task, message, caller)
        check_message_limit(task)
        check_content_types(message, configuration.accepted_output_modes, skill)
        push_config = push_config_for(request, version)
        if push_config is not None:
            limits.check_push_config_count(task.push_config_count)
        message.context_id = task.context_id
        artifacts = None
        if not streaming and not task.background:  # answered here, with its artifacts
            artifacts = store.load_artifacts([task]).get(str(task.pk), [])
        update = TaskUpdate(task, artifacts=artifacts)
        return _planned(request, caller, version, update, skill, push_config, task.background)

    limits.check_anonymous_task_creation(caller)
    catalogue = get_catalogue()
    check_named_skill(catalogue, message, request.metadata, caller)
    available = [s for s in catalogue.enabled if s.allows(caller)]
    context_id = message.context_id or contexts.new_context_id()
    skill = a2a_settings.ROUTER(message, request.metadata, available)
    if skill is None:
        listing = fallback_message(available, message, request.metadata, caller, context_id)
        return SendPlan(request, caller, version, listing=listing)
    check_content_types(message, configuration.accepted_output_modes, skill)
    push_config = push_config_for(request, version)
    # Last of the checks: a request refused for its content costs no skill allowance.
    limits.check_rate(f"skill:{skill.id}", caller)
    message.task_id, message.context_id = str(uuid7()), context_id
    # returnImmediately hands an inline skill to a worker, when there is one to run it;
    # without, the skill runs here and the answer is the task as it ended.
    background = skill.runs_in_background(message) or (
        configuration.return_immediately
        and not streaming
        and dispatch.get_dispatcher().can_run_in_background
    )
    task = Task.new(
        id=message.task_id,
        context_id=context_id,
        owner=caller.scope,
        skill_id=skill.id,
        state=TaskState.SUBMITTED.value,
        status_timestamp=timezone.now(),
        protocol_version=version,
        background=background,
        first_message_id=message.message_id if retries.deduplicates(caller) else "",
        summary=summary_of(message),
    )
    update = TaskUpdate(task, is_new=True)
    return _planned(request, caller, version, update, skill, push_config, background)


def _planned(
    request: SendMessageRequest,
    caller: Caller,
    version: str,
    update: TaskUpdate,
    skill: SkillInfo,
    push_config: PushConfig | None,
    background: bool,
) -> SendPlan:
    if background:
        # Decided here, where the request's hints are known; the worker keeps it.
        conversation_language(update.task, request.message, caller, request.metadata)
    update.add_message(request.message)
    if push_config is not None:
        update.add_push_config(push_config)
    return SendPlan(request, caller, version, None, update, skill, push_config, background)


def check_named_skill(
    catalogue: Catalogue, message: Message, metadata: JSON, caller: Caller
) -> None:
    """A signed-in caller naming a skill it may not use is told so (PermissionDenied).

    An anonymous caller is not: to it such a skill is as unknown as a missing one (the
    router answers that), so that private skills stay unseen by the public.
    """
    requested, field = requested_skill(message, metadata)
    if requested is None or not caller.is_authenticated or not isinstance(requested, str):
        return
    named = catalogue.get(requested)
    if named is not None and named.enabled and not named.allows(caller):
        raise PermissionDeniedError(
            f"{field}: {named.refusal(caller)}", metadata={"skillId": requested}
        )


def check_follow_up(task: Task, message: Message, caller: Caller) -> SkillInfo:
    """May this message continue this task? Returns the task's skill."""
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
    if skill is not None and skill.enabled and not skill.allows(caller) and caller.is_authenticated:
        # The caller's own task, so its skill is no secret to it: say why.
        raise PermissionDeniedError(
            f"Task {message.task_id} takes no more messages from this caller: "
            f"{skill.refusal(caller)}",
            metadata={"taskId": message.task_id, "skillId": skill.id},
        )
    if skill is None or not skill.enabled or not skill.allows(caller):
        # Anonymous callers learn no more of a skill that turned private than of a
        # disabled one.
        raise UnsupportedOperationError(
            f"The skill of task {message.task_id} is no longer available",
            metadata={"taskId": message.task_id},
        )
    return skill


def check_message_limit(task: Task) -> None:
    """A task's history is bounded: past ``MAX_TASK_MESSAGES`` it takes no more turns."""
    limit = a2a_settings.MAX_TASK_MESSAGES
    if limit is not None and task.message_count >= limit:
        raise UnsupportedOperationError(
            f"Task {task.pk} has {task.message_count} messages, the most a task may have "
            f"({limit}); start a new task (same contextId) instead",
            metadata={"taskId": str(task.pk), "messages": task.message_count, "limit": limit},
        )


def handler_history_length(history_length: int | None) -> int:
    """How many earlier messages a follow-up loads: what its handler sees
    (``HANDLER_HISTORY_MESSAGES``), or more if the client asked for more in the answer."""
    return max(a2a_settings.HANDLER_HISTORY_MESSAGES, history_length or 0)


def _mode_matches(offered: str, accepted: str) -> bool:
    # Media types are case-insensitive (RFC 9110 §8.3.1); parameters don't matter here.
    offered = offered.split(";")[0].strip().lower()
    accepted = accepted.split(";")[0].strip().lower()
    if accepted in ("*/*", "*") or offered == accepted:
        return True
    return accepted.endswith("/*") and offered.startswith(accepted[:-1])


def check_content_types(message: Message, accepted_output: list[str], skill: SkillInfo) -> None:
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


def push_config_for(request: SendMessageRequest, version: str) -> PushConfig | None:
    requested = request.configuration.push_notification_config
    if requested is None:
        return None
    return push_configs.new_config(requested, "configuration.taskPushNotificationConfig.", version)


def prepare_submission(update: TaskUpdate) -> None:
    """Make the task SUBMITTED, to be handed to a worker once saved."""
    task = update.task
    task.enqueued_at = timezone.now()
    task.run_attempts = 0  # attempts count per turn: a new message is a fresh start
    update.set_status(TaskState.SUBMITTED)


# --- SendMessage, blocking or returnImmediately ------------------------------------------


class InlineSink:
    """Progress of a handler running in the request: saved with its outcome."""

    def __init__(self, update: TaskUpdate) -> None:
        self.update = update

    def status(self, state: TaskState, message: Message | None) -> None:
        self.update.set_status(state, message)

    def artifact(self, artifact: Artifact, *, append: bool, last_chunk: bool) -> None:
        self.update.add_artifact(artifact, append=append, last_chunk=last_chunk)

    def is_canceled(self) -> bool:
        return False  # nobody can cancel it before this transaction commits

    def hand_over(self, skill_id: str, message: Message) -> None:
        self.update.set_skill(skill_id)
        self.update.set_status(TaskState.WORKING, message)


class _HandlerCrashed(Exception):
    """Raised out of the operation's transaction so that it rolls back."""

    def __init__(self, plan: SendPlan, resolution: Resolution) -> None:
        self.plan, self.resolution = plan, resolution


@dataclass(slots=True)
class _Sent:
    """What the transaction of a SendMessage produced."""

    result: JSON | None = None
    #: A background task to wait for (blocking send) before answering.
    background_task_id: str = ""
    #: The background task as just submitted, when that is its whole story (a new task):
    #: the answer to a ``returnImmediately`` send, with no need to read it back.
    submitted: JSON | None = None
    #: A new task, not saved yet: :func:`_save_new_task` saves it and fills in the above.
    new_task: TaskUpdate | None = None
    #: A retried follow-up: the task to answer with.
    retry_of: Task | None = None


def send_message(request: SendMessageRequest, caller: Caller, version: str = V1_0) -> JSON:
    """Create or continue a task and run its skill; ``{"task": …}`` or ``{"message": …}``.

    Inline skills run in this transaction. Background skills (and any skill when the
    client asks for ``returnImmediately``) are stored SUBMITTED and run by a worker; a
    blocking send then waits for the task to be terminal or interrupted, at most
    ``BLOCKING_TIMEOUT`` seconds, and answers with the task as it is.
    """
    return retries.once(
        request,
        caller,
        send=lambda: _send(request, caller, version),
        replay=lambda task: retries.answer(task, request),
    )


def _send(request: SendMessageRequest, caller: Caller, version: str) -> JSON:
    configuration = request.configuration
    try:
        with transaction.atomic():
            sent = _run(plan(request, caller, version))
            if sent.new_task is not None and not (
                sent.new_task.writes_one_statement and rows.transaction_is_empty()
            ):
                _save_new_task(sent, configuration.history_length)
    except _HandlerCrashed as crash:
        # Everything the operation wrote, the handler's writes included, is rolled back;
        # the failure itself is recorded now, in a transaction of its own.
        with transaction.atomic():
            sent = _record_crash(crash)
    if sent.retry_of is not None:
        return retries.answer(sent.retry_of, request)
    if sent.new_task is not None:
        # Nothing was written before the new task (the handler touched no table) and it
        # is written in one statement: that statement is the operation's transaction,
        # without the BEGIN and COMMIT round trips of an atomic block around it.
        _save_new_task(sent, configuration.history_length)
    if sent.result is not None:
        return sent.result
    if configuration.return_immediately and sent.submitted is not None:
        return {"task": sent.submitted}
    if not configuration.return_immediately:
        runner.wait_until_settled(sent.background_task_id, a2a_settings.BLOCKING_TIMEOUT)
    task = Task.objects.get(pk=sent.background_task_id)
    return {"task": store.read_task(task, configuration.history_length)}


def _run(plan: SendPlan) -> _Sent:
    """Carry out a plan in the operation's transaction: answer, submit, or run inline."""
    if plan.listing is not None:
        return _Sent({"message": plan.listing.to_wire()})
    if plan.retry_of is not None:
        # Answered after this transaction, which holds the task's row lock: a blocking
        # retry may wait for the worker, and the worker needs that lock.
        return _Sent(retry_of=plan.retry_of)
    assert plan.update is not None and plan.skill is not None
    update, task, request = plan.update, plan.task, plan.request
    if plan.background:
        prepare_submission(update)
        if plan.is_new:
            return _Sent(background_task_id=str(task.pk), new_task=update)
        update.save()
        dispatch.enqueue_run_on_commit(str(task.pk))
        return _Sent(background_task_id=str(task.pk))

    history_length = request.configuration.history_length
    if plan.is_new:
        earlier = []
    else:
        # The latest messages only: a long task costs a follow-up no more than a short one.
        window = handler_history_length(history_length)
        earlier = store.load_history([task], window).get(str(task.pk), [])
    limit = a2a_settings.HANDLER_HISTORY_MESSAGES
    ctx = build_context(
        task,
        plan.skill,
        request.message,
        caller=plan.caller,
        history=[Message.from_wire(body, "history") for body in earlier[-limit:] if limit],
        sink=InlineSink(update),
        metadata=request.metadata,
        accepted_output_modes=request.configuration.accepted_output_modes,
    )
    task.started_at = timezone.now()
    outcome = run_handler(ctx)
    task.finished_at = timezone.now()
    resolution = resolve_outcome(outcome, task_id=ctx.task_id, context_id=ctx.context_id)
    if isinstance(outcome, Failed) and outcome.crashed:
        raise _HandlerCrashed(plan, resolution)
    if plan.is_new and resolution.reply is not None:
        # A direct answer creates no task (and whatever the handler reported goes with it).
        resolution.reply.task_id = ""
        return _Sent({"message": resolution.reply.to_wire()})
    apply_resolution(update, resolution)
    if plan.is_new:
        return _Sent(new_task=update)
    update.save()
    # Without a historyLength the answer carries the window loaded (the spec lets the
    # server choose); GetTask returns the whole history.
    history = store.trim_history(earlier + update.new_messages, history_length)
    return _Sent({"task": store.task_to_wire(task, history, update.artifact_list())})


def _record_crash(crash: _HandlerCrashed) -> _Sent:
    plan = crash.plan
    message, caller = plan.request.message, plan.caller
    if plan.is_new:
        task = plan.task
        update = TaskUpdate(task, is_new=True)
    else:
        task = store.get_task(str(plan.task.pk), caller, for_update=True)
        check_follow_up(task, message, caller)  # it may have changed meanwhile
        task.started_at, task.finished_at = plan.task.started_at, plan.task.finished_at
        update = TaskUpdate(task, artifacts=store.load_artifacts([task]).get(str(task.pk), []))
    update.add_message(message)
    if plan.push_config is not None:
        update.add_push_config(plan.push_config)
    apply_resolution(update, crash.resolution)
    update.save()
    history = store.load_history([task], plan.request.configuration.history_length)
    wire = store.task_to_wire(task, history.get(str(task.pk), []), update.artifact_list())
    return _Sent({"task": wire})


def _save_new_task(sent: _Sent, history_length: int | None) -> None:
    """Save the new task of ``sent`` and answer from what was written."""
    update, sent.new_task = sent.new_task, None
    assert update is not None
    update.save()
    task = update.task
    history = store.trim_history(update.new_messages, history_length)
    if sent.background_task_id:
        dispatch.enqueue_run_on_commit(sent.background_task_id)
        sent.submitted = store.task_to_wire(task, history, [])
    else:
        sent.result = {"task": store.task_to_wire(task, history, update.artifact_list())}
