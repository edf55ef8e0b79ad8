"""What a skill handler receives (:class:`SkillContext`) and what it returns (outcomes).

A handler is a plain function ``handler(ctx) -> Outcome``::

    @skill("view-menu", tags=["menu"], examples=["What's on the menu?"])
    def view_menu(ctx: SkillContext):
        dishes = Dish.objects.filter(available=True)
        return ctx.complete(text=render(dishes), data=[d.as_dict() for d in dishes])

It may return ``ctx.complete(...)``, ``ctx.ask(...)`` (input-required),
``ctx.reject(...)``, ``ctx.fail(...)``, ``ctx.cancel(...)`` (the guest called it off),
``ctx.reply(...)`` (a direct Message, no task),
``ctx.keep_working(...)`` (the task stays WORKING until site code finishes it through
``a2a_app.api``), ``ctx.hand_over(...)`` (the same task continues with another skill,
whose handler runs at once), or a plain string (completed with one text artifact). An exception
becomes a FAILED task with a safe message; the traceback goes to the ``a2a_app.calls``
logger.

While it runs, a handler may report progress (``ctx.progress``), add artifacts
(``ctx.add_artifact``), stream one in chunks (``ctx.artifact_writer``) and ask whether
the task was canceled (``ctx.is_canceled``). In a worker each of these is committed at
once, so streams and webhooks see it; inline, they are saved with the outcome.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState

if TYPE_CHECKING:
    from a2a_app.caller import Caller
    from a2a_app.skills.catalogue import SkillInfo

#: Keys a2a_app keeps in a task's ``skill_state`` (documented in docs/skills.md):
#: a form skill's collected raw values and the fields it asked for last,
FORM_STATE_KEY = "a2a_form"
#: the values a later task of the same context (and caller) may reuse,
FACTS_STATE_KEY = "a2a_facts"
#: and the object the task is about (``ctx.attach``): ``a2a_app.models.ATTACHED_KEY``;
#: and the language the task speaks: ``a2a_app.skills.language.LANGUAGE_STATE_KEY``.


# --- outcomes ----------------------------------------------------------------------------


@dataclass(slots=True)
class Completed:
    artifacts: list[Artifact] = field(default_factory=list)
    message: str = ""


@dataclass(slots=True)
class InputRequired:
    question: str
    missing: list[str] = field(default_factory=list)
    data: dict[str, Any] | None = None


@dataclass(slots=True)
class Rejected:
    reason: str


@dataclass(slots=True)
class Failed:
    reason: str
    #: The handler raised (rather than chose to fail): its writes must be rolled back.
    crashed: bool = False


@dataclass(slots=True)
class Canceled:
    """The guest called the request off in the conversation ("never mind"): the task
    ends CANCELED, ``message`` its status message."""

    message: str = ""


@dataclass(slots=True)
class Reply:
    parts: list[Part]


@dataclass(slots=True)
class Working:
    """The handler is done for now; site code will finish the task later."""

    message: str = ""
    data: Any = None


@dataclass(slots=True)
class HandOver:
    """The task continues with skill ``skill_id`` (``ctx.hand_over``): its form starts
    from ``values``, and ``note`` says why (a status message, and ahead of the new
    skill's answer)."""

    skill_id: str
    values: dict[str, Any] = field(default_factory=dict)
    note: str = ""


Outcome = Completed | InputRequired | Rejected | Failed | Canceled | Reply | Working | HandOver


class HandOverError(Exception):
    """``ctx.hand_over`` cannot hand the task over: the skill is unknown, disabled, not
    for this caller, the current one, or the turn was already handed over once."""


class TaskCanceled(Exception):
    """Raised into a running handler when its task was canceled (or otherwise ended)."""


class TaskSink(Protocol):
    """Where a running handler's progress goes: the request's update, or the database."""

    def status(self, state: TaskState, message: Message | None) -> None: ...

    def artifact(self, artifact: Artifact, *, append: bool, last_chunk: bool) -> None: ...

    def is_canceled(self) -> bool: ...

    def hand_over(self, skill_id: str, message: Message) -> None:
        """The task's skill becomes ``skill_id``, with a WORKING status saying
        ``message``, written together (``ctx.hand_over``)."""
        ...


# --- artifact helpers ----------------------------------------------------------------------


def _artifact_id() -> str:
    return str(uuid.uuid4())


def text_artifact(text: str, *, name: str = "", description: str = "") -> Artifact:
    return Artifact(_artifact_id(), [Part.text_part(text)], name=name, description=description)


def data_artifact(data: Any, *, name: str = "", description: str = "") -> Artifact:
    return Artifact(_artifact_id(), [Part.data_part(data)], name=name, description=description)


def file_artifact(
    *,
    content: bytes | None = None,
    url: str = "",
    filename: str = "",
    media_type: str = "application/octet-stream",
    name: str = "",
    description: str = "",
) -> Artifact:
    """A file, inline (``content``) or by reference (``url``)."""
    if (content is None) == (not url):
        raise ValueError("file_artifact needs exactly one of content or url")
    if content is not None:
        part = Part("raw", base64.b64encode(content).decode("ascii"), media_type, filename)
    else:
        part = Part("url", url, media_type, filename)
    return Artifact(_artifact_id(), [part], name=name, description=description)


def completed(
    text: str | None = None,
    *,
    data: Any = None,
    artifacts: list[Artifact] | tuple[Artifact, ...] = (),
    message: str = "",
    name: str,
) -> Completed:
    """The outcome of ``ctx.complete`` and ``api.complete``: ``text``/``data`` become one
    artifact named ``name``, ahead of ``artifacts``."""
    parts = message_parts(text, data)
    result = list(artifacts)
    if parts:
        result.insert(0, Artifact(_artifact_id(), parts, name=name))
    return Completed(artifacts=result, message=message)


def message_parts(text: str | None, data: Any) -> list[Part]:
    parts = [Part.text_part(text)] if text is not None else []
    if data is not None:
        parts.append(Part.data_part(data))
    return parts


# --- the context ----------------------------------------------------------------------------


@dataclass(slots=True)
class SkillContext:
    """Everything a handler may look at, and shortcuts to build its outcome."""

    message: Message
    skill: SkillInfo
    caller: Caller
    task_id: str
    context_id: str
    history: list[Message]
    #: Per-task scratch space the handler may read and update across turns; persisted.
    state: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    accepted_output_modes: list[str] = field(default_factory=list)
    is_follow_up: bool = False
    sink: TaskSink | None = None
    #: A form skill's bound, valid form and its cleaned_data (``@skill(form=...)``).
    form: Any = None
    cleaned_data: dict[str, Any] = field(default_factory=dict)
    #: The guest's language for this turn ("de", "en"...), as a2a_app.skills.language
    #: decided it; the handler runs inside ``translation.override`` of it.
    language: str = ""
    #: The skill this turn was handed over from (``ctx.hand_over``), else "".
    handed_over_from: str = ""

    @property
    def text(self) -> str:
        """The text parts of the incoming message, joined by newlines."""
        return self.message.text

    @property
    def data(self) -> dict[str, Any]:
        """The object-valued data parts of the incoming message, merged in order."""
        merged: dict[str, Any] = {}
        for part in self.message.parts:
            if part.kind == "data" and isinstance(part.content, dict):
                merged.update(part.content)
        return merged

    @property
    def user(self) -> Any:
        """The Django user, or an ``AnonymousUser`` for an anonymous caller (as
        ``request.user`` is in a view)."""
        if self.caller.user is not None:
            return self.caller.user
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()

    def complete(
        self,
        text: str | None = None,
        *,
        data: Any = None,
        artifacts: list[Artifact] | tuple[Artifact, ...] = (),
        message: str = "",
        name: str = "",
    ) -> Completed:
        """Finish the task. ``text``/``data`` become one artifact named ``name`` (by
        default the skill's id); ``message`` is the status message."""
        return completed(
            text, data=data, artifacts=artifacts, message=message, name=name or self.skill.id
        )

    def ask(
        self, question: str, *, missing: list[str] | tuple[str, ...] = (), data: Any = None
    ) -> InputRequired:
        """Pause the task as input-required; ``missing`` names the fields still needed."""
        return InputRequired(question=question, missing=list(missing), data=data)

    def invalid(self, field_name: str, message: str) -> InputRequired:
        """Send one field of a form skill back: its value is dropped and asked again,
        with ``message`` saying why (INPUT_REQUIRED; data ``{"missing": [field],
        "errors": {field: [message]}}``)."""
        form_state = self.state.get(FORM_STATE_KEY)
        if isinstance(form_state, dict):
            form_state.get("values", {}).pop(field_name, None)
            form_state["asked"] = [field_name]
        facts = self.state.get(FACTS_STATE_KEY)
        if isinstance(facts, dict):  # nor may a later task of the context reuse it
            facts.pop(field_name, None)
            last = facts.get("_last_values")
            if isinstance(last, dict):
                last.pop(field_name, None)
        from django.forms.utils import pretty_name
        from django.utils.translation import gettext

        label = pretty_name(field_name)
        if self.form is not None and field_name in self.form.fields:
            label = str(self.form.fields[field_name].label or label)

        question = gettext("%(label)s: %(message)s Please give another one.") % {
            "label": label,
            "message": str(message),
        }
        errors = {field_name: [str(message)]}
        return InputRequired(question, [field_name], {"missing": [field_name], "errors": errors})

    def attach(self, obj: Any) -> None:
        """Record the model instance the task created or is about (a booking), so the
        admin's task page links to it (``Task.attached_object()`` returns it)."""
        from a2a_app.models import attach

        attach(self.state, obj)

    def reject(self, reason: str) -> Rejected:
        return Rejected(reason)

    def fail(self, reason: str) -> Failed:
        return Failed(reason)

    def cancel(self, message: str = "") -> Canceled:
        """End the task CANCELED because the guest called it off ("forget it"), with
        ``message`` as its status message. (CancelTask is the client's way to do so.)"""
        return Canceled(message)

    def keep_working(self, message: str = "", *, data: Any = None) -> Working:
        """Leave the task WORKING; finish it later with ``a2a_app.api`` (e.g. from the admin).

        ``message`` (and ``data``) become the status message: what the task waits for.
        """
        return Working(message, data)

    def hand_over(
        self, skill_id: str, *, values: dict[str, Any] | None = None, note: str = ""
    ) -> HandOver:
        """Continue this task with skill ``skill_id``, in this turn: return what this
        gives. The task's skill changes (a WORKING status saying ``note`` is written), the
        other skill's form starts from ``values`` (raw, as in a data part) plus the values
        collected here under the same field names, and its handler answers this turn.

        Raises :class:`HandOverError` (for the handler to catch) when the caller may not
        use that skill, it is unknown or disabled, it is this skill, or this turn was
        already handed over (one hand-over per turn: no loops).
        """
        from a2a_app.skills.catalogue import get_catalogue

        if self.handed_over_from:
            raise HandOverError(f"this turn was already handed over from {self.handed_over_from!r}")
        if skill_id == self.skill.id:
            raise HandOverError(f"the task is already with skill {skill_id!r}")
        target = get_catalogue().get(skill_id)
        if target is None or not target.enabled or target.spec is None:
            raise HandOverError(f"no skill {skill_id!r} is offered")
        if not target.allows(self.caller):
            raise HandOverError(f"the caller may not use skill {skill_id!r}")
        if values is not None and not isinstance(values, dict):
            raise HandOverError("values must be a dict (a data part's shape)")
        return HandOver(skill_id, dict(values or {}), str(note))

    # --- while running ---------------------------------------------------------------

    def progress(self, text: str, *, data: Any = None) -> None:
        """Report progress: a WORKING status whose message says what is going on."""
        parts = message_parts(text, data)
        message = agent_message(parts, context_id=self.context_id, task_id=self.task_id)
        self._sink().status(TaskState.WORKING, message)

    def add_artifact(
        self, artifact: Artifact, *, append: bool = False, last_chunk: bool = False
    ) -> None:
        """Publish an artifact now (``append``: add parts to the artifact with its id)."""
        self._sink().artifact(artifact, append=append, last_chunk=last_chunk)

    def artifact_writer(self, *, name: str = "", description: str = "") -> ArtifactWriter:
        """Stream one artifact in chunks: ``w.write("part 1")``, ``w.write("end", last=True)``."""
        return ArtifactWriter(self, name=name, description=description)

    def is_canceled(self) -> bool:
        """True once the task was canceled: stop working, the result would be dropped."""
        return self.sink is not None and self.sink.is_canceled()

    def _sink(self) -> TaskSink:
        if self.sink is None:
            raise RuntimeError("this SkillContext is not attached to a task")
        return self.sink

    def reply(self, text: str | None = None, *, data: Any = None) -> Reply:
        """Answer with a direct Message instead of a task (for quick, stateless answers)."""
        parts = message_parts(text, data)
        if not parts:
            raise ValueError("reply needs text or data")
        return Reply(parts)


class ArtifactWriter:
    """One artifact written in chunks; every chunk after the first is appended."""

    def __init__(self, ctx: SkillContext, *, name: str = "", description: str = "") -> None:
        self.ctx = ctx
        self.artifact_id = _artifact_id()
        self.name = name
        self.description = description
        self._started = False

    def write(self, text: str | None = None, *, data: Any = None, last: bool = False) -> None:
        parts = message_parts(text, data)
        if not parts:
            raise ValueError("write needs text or data")
        artifact = Artifact(self.artifact_id, parts, self.name, self.description)
        self.ctx.add_artifact(artifact, append=self._started, last_chunk=last)
        self._started = True


def agent_message(parts: list[Part], *, context_id: str, task_id: str = "") -> Message:
    """A server-authored message (server-generated id, ROLE_AGENT)."""
    return Message(
        message_id=str(uuid.uuid4()),
        role=Role.AGENT,
        parts=parts,
        context_id=context_id,
        task_id=task_id,
    )
