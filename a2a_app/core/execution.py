"""Running a skill handler and turning what it returns into task state.

Kept apart from the service so that the same code runs a skill inline (in the request)
and, later, in a worker: build a :class:`SkillContext`, call :func:`run_handler`, then
:func:`resolve_outcome` gives the new state, status message and artifacts.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from django.utils.translation import gettext, gettext_noop

from a2a_app import tracing
from a2a_app.core import contexts
from a2a_app.core.updates import TaskUpdate
from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState
from a2a_app.signals import handler_finished
from a2a_app.skills import context as outcomes
from a2a_app.skills import language
from a2a_app.skills.context import SkillContext, agent_message

if TYPE_CHECKING:
    from a2a_app.caller import Caller
    from a2a_app.models import Task
    from a2a_app.skills.catalogue import SkillInfo
    from a2a_app.skills.context import TaskSink
    from a2a_app.skills.registry import SkillSpec

logger = logging.getLogger("a2a_app.calls")

OUTCOME_TYPES = get_args(outcomes.Outcome)
#: Where a task that was handed over keeps from which skill to which (docs/skills.md).
HAND_OVER_STATE_KEY = "a2a_hand_over"
# Said to the guest (in its language, see _said); the traceback goes to the log.
SAFE_FAILURE_TEXT = gettext_noop("The skill failed unexpectedly. The site has logged the error.")
NO_HANDLER_TEXT = gettext_noop("This service is not available on this site right now.")


@dataclass(slots=True)
class Resolution:
    """What an outcome does to a task."""

    state: TaskState
    status_message: Message | None = None
    artifacts: list[Artifact] = field(default_factory=list)
    #: A direct Message answer; only a new task may be answered this way.
    reply: Message | None = None


def build_context(
    task: Task,
    skill: SkillInfo,
    message: Message,
    *,
    caller: Caller,
    history: list[Message],
    sink: TaskSink,
    metadata: dict[str, Any] | None = None,
    accepted_output_modes: list[str] | None = None,
) -> SkillContext:
    """The :class:`SkillContext` of one turn of ``task``: ``message`` is the turn's user
    message, ``history`` the earlier messages. A turn after an earlier user message is a
    follow-up (a re-run after a lost worker is not: it has no earlier user message)."""
    turn_language = conversation_language(task, message, caller, metadata)
    return SkillContext(
        message=message,
        skill=skill,
        caller=caller,
        task_id=str(task.pk),
        context_id=task.context_id,
        history=history,
        state=task.skill_state,
        metadata=metadata or {},
        accepted_output_modes=accepted_output_modes or [],
        is_follow_up=any(m.role is Role.USER for m in history),
        sink=sink,
        language=turn_language,
    )


def conversation_language(
    task: Task, message: Message, caller: Caller, metadata: dict[str, Any] | None
) -> str:
    """The language of this turn (:mod:`a2a_app.skills.language`): what the message and
    its hints say, else the language the task already speaks; kept in the task's state
    so that "2" or "19:30" on a later turn does not switch it. ``metadata`` None means a
    worker runs the turn: the language SendMessage stored for it is kept."""
    state = task.skill_state if isinstance(task.skill_state, dict) else {}
    previous = state.get(language.LANGUAGE_STATE_KEY, "")
    if metadata is None and previous and isinstance(previous, str):
        # A worker's turn: SendMessage decided the language with the request's hints
        # (metadata, Accept-Language), which the worker does not see.
        return previous
    found = language.message_language(
        message, metadata, caller, previous=previous if isinstance(previous, str) else ""
    )
    state[language.LANGUAGE_STATE_KEY] = found
    task.skill_state = state
    return found


@tracing.traced("a2a.skill", tracing.skill_attributes, result=tracing.skill_result)
def run_handler(ctx: SkillContext) -> outcomes.Outcome | None:
    """Call the skill's handler; an exception (or a bad return value) becomes outcomes.Failed.

    The outcomes.Failed of an exception has ``crashed`` set: inline, the caller then rolls back
    the whole operation (the handler's own writes included) and records the failure in a
    new transaction, so no savepoint is paid on every call. In a worker there is no
    surrounding transaction (progress must commit as it happens), so the handler owns its
    writes. ``None`` means the task was canceled while it ran.
    """
    spec = ctx.skill.spec
    started = time.perf_counter()
    if spec is None:
        outcome: outcomes.Outcome | None = outcomes.Failed(_said(NO_HANDLER_TEXT, ctx))
        logger.error("skill=%s handler=%s missing", ctx.skill.id, ctx.skill.handler_key)
    else:
        try:
            outcome = _coerce(call_with_hand_over(spec, ctx), ctx)
        except outcomes.TaskCanceled:
            outcome = None
        except Exception:
            logger.exception(
                "skill=%s task=%s context=%s raised", ctx.skill.id, ctx.task_id, ctx.context_id
            )
            outcome = outcomes.Failed(_said(SAFE_FAILURE_TEXT, ctx), crashed=True)
    # DEBUG: at INFO the task's transition (a2a_app.transitions) already says how the
    # turn ended, and a second line per request was a measurable part of its cost.
    logger.debug(
        "skill=%s task=%s context=%s outcome=%s ms=%.1f",
        ctx.skill.id,
        ctx.task_id,
        ctx.context_id,
        type(outcome).__name__ if outcome is not None else "Canceled",
        (time.perf_counter() - started) * 1000,
    )
    handler_finished.send(
        SkillContext,
        skill=ctx.skill.id,
        outcome=type(outcome).__name__ if outcome is not None else "Canceled",
        duration=time.perf_counter() - started,
    )
    return outcome


def _said(text: str, ctx: SkillContext) -> str:
    """``text`` translated into the turn's language."""
    with language.activate(ctx.language):
        return gettext(text)


def call_handler(spec: SkillSpec, ctx: SkillContext) -> Any:
    """What the skill's handler returns for ``ctx``; a skill declared with a form gets
    its fields collected and validated first (:mod:`a2a_app.forms.collect`). It runs in
    the turn's language (``ctx.language``), so gettext in the handler and its form answers
    in the guest's language."""
    with language.activate(ctx.language):
        if spec.form is None:
            return spec.handler(ctx)
        from a2a_app.forms.collect import run_form

        return run_form(
            ctx, spec, lambda: contexts.facts(ctx.caller, ctx.context_id, exclude=ctx.task_id)
        )


def call_with_hand_over(spec: SkillSpec, ctx: SkillContext) -> Any:
    """:func:`call_handler`, then, if the handler handed the task over
    (``ctx.hand_over``), the other skill's handler in the same turn."""
    result = call_handler(spec, ctx)
    if isinstance(result, outcomes.HandOver):
        return hand_over(ctx, result)
    return result


def hand_over(ctx: SkillContext, handing: outcomes.HandOver) -> Any:
    """Continue ``ctx``'s task with the skill ``handing`` names, in this turn.

    The task's skill changes together with a WORKING status that says so (the sink
    writes both at once: streams and webhooks see the hand-over); the new skill's form
    starts from the values collected so far under its field names, ``handing.values``
    over them, and does not read this turn's message again (the first skill did). The
    new skill's answer is the turn's, with the note ahead of what it says.
    """
    from a2a_app.skills.catalogue import get_catalogue

    target = get_catalogue().get(handing.skill_id)
    spec = target.spec if target is not None else None
    if target is None or spec is None or not target.enabled or not target.allows(ctx.caller):
        # ctx.hand_over checks this; an outcome built by hand may not have been checked.
        logger.error("skill=%s handed over to unusable %r", ctx.skill.id, handing.skill_id)
        return outcomes.Failed(_said(SAFE_FAILURE_TEXT, ctx))
    if ctx.handed_over_from:
        logger.error("skill=%s handed over twice in one turn", ctx.skill.id)
        return outcomes.Failed(_said(SAFE_FAILURE_TEXT, ctx))

    previous = ctx.skill
    saved = ctx.state.get(outcomes.FORM_STATE_KEY)
    collected = saved.get("values", {}) if isinstance(saved, dict) else {}
    fields = spec.form.base_fields if spec.form is not None else {}
    values = {k: v for k, v in collected.items() if k in fields}
    values.update(handing.values)
    ctx.state[outcomes.FORM_STATE_KEY] = {"values": values, "asked": [], "handed_over": True}
    ctx.state[HAND_OVER_STATE_KEY] = {"from": previous.id, "to": target.id}
    ctx.skill, ctx.handed_over_from = target, previous.id
    ctx.form, ctx.cleaned_data = None, {}

    parts = [Part.text_part(handing.note)] if handing.note else []
    parts.append(Part.data_part({"handOver": {"from": previous.id, "to": target.id}}))
    message = agent_message(parts, context_id=ctx.context_id, task_id=ctx.task_id)
    if ctx.sink is not None:
        move = getattr(ctx.sink, "hand_over", None)
        if move is not None:
            move(target.id, message)
        else:
            ctx.sink.status(TaskState.WORKING, message)
    logger.info("skill=%s task=%s handed over to %s", previous.id, ctx.task_id, target.id)

    result = call_handler(spec, ctx)
    if isinstance(result, outcomes.HandOver):
        logger.error("skill=%s handed over again in the same turn", target.id)
        return outcomes.Failed(_said(SAFE_FAILURE_TEXT, ctx))
    return _with_note(result, handing.note)


def _with_note(result: Any, note: str) -> Any:
    """The new skill's answer, with the hand-over's note ahead of its text."""
    if not note:
        return result
    if isinstance(result, outcomes.InputRequired):
        result.question = f"{note} {result.question}".strip()
    elif isinstance(result, outcomes.Working | outcomes.Completed | outcomes.Canceled):
        result.message = f"{note} {result.message}".strip()
    elif isinstance(result, outcomes.Rejected | outcomes.Failed):
        result.reason = f"{note} {result.reason}".strip()
    return result


def _coerce(result: object, ctx: SkillContext) -> outcomes.Outcome:
    if isinstance(result, OUTCOME_TYPES):
        return result
    if isinstance(result, str):
        return ctx.complete(result)
    raise TypeError(f"Skill handler returned {type(result).__name__}, not an outcome")


def resolve_outcome(outcome: outcomes.Outcome, *, task_id: str, context_id: str) -> Resolution:
    """The state, status message and artifacts an outcome leaves the task in."""

    def says(*parts: Part) -> Message:
        return agent_message(list(parts), context_id=context_id, task_id=task_id)

    if isinstance(outcome, outcomes.Completed):
        message = says(Part.text_part(outcome.message)) if outcome.message else None
        return Resolution(TaskState.COMPLETED, message, list(outcome.artifacts))
    if isinstance(outcome, outcomes.InputRequired):
        data = dict(outcome.data) if isinstance(outcome.data, dict) else {}
        if outcome.data is not None and not isinstance(outcome.data, dict):
            data["value"] = outcome.data
        data.setdefault("missing", list(outcome.missing))
        return Resolution(
            TaskState.INPUT_REQUIRED, says(Part.text_part(outcome.question), Part.data_part(data))
        )
    if isinstance(outcome, outcomes.Rejected):
        return Resolution(TaskState.REJECTED, says(Part.text_part(outcome.reason)))
    if isinstance(outcome, outcomes.Failed):
        return Resolution(TaskState.FAILED, says(Part.text_part(outcome.reason)))
    if isinstance(outcome, outcomes.Canceled):
        message = says(Part.text_part(outcome.message)) if outcome.message else None
        return Resolution(TaskState.CANCELED, message)
    if isinstance(outcome, outcomes.HandOver):
        # Only run_handler follows a hand-over; anywhere else it is a mistake.
        return Resolution(TaskState.FAILED, says(Part.text_part(SAFE_FAILURE_TEXT)))
    if isinstance(outcome, outcomes.Working):
        parts = [Part.text_part(outcome.message)] if outcome.message else []
        if outcome.data is not None:
            parts.append(Part.data_part(outcome.data))
        return Resolution(TaskState.WORKING, says(*parts) if parts else None)
    # outcomes.Reply: a direct Message. On an existing task it closes the exchange as its answer.
    message = says(*outcome.parts)
    return Resolution(TaskState.COMPLETED, message, reply=message)


def apply_resolution(update: TaskUpdate, resolution: Resolution) -> None:
    """Record a resolution on a task update: its artifacts, then its status."""
    for artifact in resolution.artifacts:
        update.add_artifact(artifact)
    unchanged = (
        resolution.state is TaskState.WORKING
        and resolution.status_message is None
        and update.task.task_state is TaskState.WORKING
    )
    if unchanged:
        return  # still working, nothing new to say
    update.set_status(resolution.state, resolution.status_message)
