"""What a skill handler receives (:class:`SkillContext`) and what it returns (outcomes).

A handler is a plain function ``handler(ctx) -> Outcome``::

    @skill("view-menu", tags=["menu"], examples=["What's on the menu?"])
    def view_menu(ctx: SkillContext):
        dishes = Dish.objects.filter(available=True)
        return ctx.complete(text=render(dishes), data=[d.as_dict() for d in dishes])

It may return ``ctx.complete(...)``, ``ctx.ask(...)`` (input-required),
``ctx.reject(...)``, ``ctx.fail(...)``, ``ctx.reply(...)`` (a direct Message, no task),
or a plain string (completed with one text artifact). An exception becomes a FAILED
task with a safe message; the traceback goes to the ``a2a_app.calls`` logger.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .protocol.types import Artifact, Message, Part, Role

if TYPE_CHECKING:
    from .auth import Caller
    from .skills import SkillInfo


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


@dataclass(slots=True)
class Reply:
    parts: list[Part]


Outcome = Completed | InputRequired | Rejected | Failed | Reply


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
        """The Django user, or ``None`` for an anonymous caller."""
        return self.caller.user

    def complete(
        self,
        text: str | None = None,
        *,
        data: Any = None,
        artifacts: list[Artifact] | tuple[Artifact, ...] = (),
        message: str = "",
        name: str = "",
    ) -> Completed:
        """Finish the task. ``text``/``data`` become one artifact named ``name``."""
        parts: list[Part] = []
        if text is not None:
            parts.append(Part.text_part(text))
        if data is not None:
            parts.append(Part.data_part(data))
        result = list(artifacts)
        if parts:
            result.insert(0, Artifact(_artifact_id(), parts, name=name or self.skill.id))
        return Completed(artifacts=result, message=message)

    def ask(
        self, question: str, *, missing: list[str] | tuple[str, ...] = (), data: Any = None
    ) -> InputRequired:
        """Pause the task as input-required; ``missing`` names the fields still needed."""
        return InputRequired(question=question, missing=list(missing), data=data)

    def reject(self, reason: str) -> Rejected:
        return Rejected(reason)

    def fail(self, reason: str) -> Failed:
        return Failed(reason)

    def reply(self, text: str | None = None, *, data: Any = None) -> Reply:
        """Answer with a direct Message instead of a task (for quick, stateless answers)."""
        parts = []
        if text is not None:
            parts.append(Part.text_part(text))
        if data is not None:
            parts.append(Part.data_part(data))
        if not parts:
            raise ValueError("reply needs text or data")
        return Reply(parts)


def agent_message(parts: list[Part], *, context_id: str, task_id: str = "") -> Message:
    """A server-authored message (server-generated id, ROLE_AGENT)."""
    return Message(
        message_id=str(uuid.uuid4()),
        role=Role.AGENT,
        parts=parts,
        context_id=context_id,
        task_id=task_id,
    )
