"""A2A v1.0 wire objects: parse and validate ProtoJSON in, serialize ProtoJSON out.

Task states, roles, parts, messages and artifacts; the request params of each operation
are in :mod:`a2a_app.protocol.params`, the field readers both use in
:mod:`a2a_app.protocol.wire`. Parsing accepts camelCase and snake_case field names, enum
names or numbers and numeric strings for integers; serializing emits camelCase and enum
names (spec reference §1). Every validation failure raises :class:`InvalidParamsError`
naming the failing field by its wire path.

This module imports nothing from Django so the protocol can be used and tested alone.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.states import (  # noqa: F401  (the state machine, re-exported)
    INTERRUPTED_STATES,
    TERMINAL_STATES,
    TaskState,
    ends_stream,
)
from a2a_app.protocol.wire import (
    JSON,
    MAX_ID_LENGTH,
    enum_name,
    join,
    normalize_base64,
    parse_enum,
)
from a2a_app.protocol.wire import PROTOJSON as FIELDS

#: The v1.0 operations (method names), as API-key scopes name them.
OPERATION_NAMES = frozenset(
    {
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard",
    }
)


# In proto enum number order: ProtoJSON accepts the numbers on input too.
_TASK_STATES = tuple(TaskState)


class Role(enum.StrEnum):
    UNSPECIFIED = "ROLE_UNSPECIFIED"
    USER = "ROLE_USER"
    AGENT = "ROLE_AGENT"


_ROLES = tuple(Role)


def parse_task_state(value: Any, path: str) -> TaskState | None:
    """A task state by name or number; ``TASK_STATE_UNSPECIFIED`` reads as None."""
    state = TaskState(parse_enum(value, _TASK_STATES, path, "task state"))
    return None if state is TaskState.UNSPECIFIED else state


def _put(out: JSON, name: str, value: Any) -> None:
    """ProtoJSON omits unset and default-valued implicit-presence fields."""
    if value:
        out[name] = value


# --- core objects ------------------------------------------------------------------------

PART_KINDS = ("text", "raw", "url", "data")


@dataclass(slots=True)
class Part:
    """One piece of content. ``kind`` says which member of the proto ``oneof`` is set."""

    kind: str
    content: Any
    media_type: str = ""
    filename: str = ""
    metadata: JSON = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any, path: str) -> Part:
        obj = FIELDS.require_object(obj, path)
        present = [kind for kind in PART_KINDS if kind in obj]
        if len(present) != 1:
            raise InvalidParamsError.for_field(
                path, "exactly one of text, raw, url or data must be set"
            )
        kind = present[0]
        content = obj[kind]
        if kind == "text" or kind == "url":
            if not isinstance(content, str):
                raise InvalidParamsError.for_field(join(path, kind), "must be a string")
        elif kind == "raw":
            content = normalize_base64(content, join(path, "raw"))
        return cls(
            kind=kind,
            content=content,
            media_type=FIELDS.read_str(obj, "mediaType", path) or "",
            filename=FIELDS.read_str(obj, "filename", path) or "",
            metadata=FIELDS.read_object(obj, "metadata", path) or {},
        )

    def to_wire(self) -> JSON:
        out: JSON = {self.kind: self.content}
        _put(out, "mediaType", self.media_type)
        _put(out, "filename", self.filename)
        _put(out, "metadata", self.metadata)
        return out

    @classmethod
    def text_part(cls, text: str) -> Part:
        return cls(kind="text", content=text)

    @classmethod
    def data_part(cls, data: Any) -> Part:
        return cls(kind="data", content=data, media_type="application/json")


@dataclass(slots=True, kw_only=True)
class _Extensible:
    """What messages and artifacts both carry beyond their content (keyword-only)."""

    metadata: JSON = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Message(_Extensible):
    message_id: str
    role: Role
    parts: list[Part]
    context_id: str = ""
    task_id: str = ""
    reference_task_ids: list[str] = field(default_factory=list)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "message") -> Message:
        obj = FIELDS.require_object(obj, path)
        role_value, role_path = FIELDS.field(obj, "role", path)
        # An unknown role gets the same error as an unspecified one.
        role = enum_name(role_value, _ROLES)
        if role is None or role == Role.UNSPECIFIED:
            raise InvalidParamsError.for_field(role_path, "must be ROLE_USER or ROLE_AGENT")
        return cls(
            message_id=FIELDS.read_id(obj, "messageId", path, required=True),
            role=Role(role),
            parts=FIELDS.read_parts(obj, "parts", path, Part.from_wire),
            context_id=FIELDS.read_id(obj, "contextId", path) or "",
            task_id=FIELDS.read_id(obj, "taskId", path) or "",
            metadata=FIELDS.read_object(obj, "metadata", path) or {},
            extensions=FIELDS.read_str_list(obj, "extensions", path) or [],
            reference_task_ids=FIELDS.read_str_list(
                obj, "referenceTaskIds", path, max_length=MAX_ID_LENGTH
            )
            or [],
        )

    def to_wire(self) -> JSON:
        out: JSON = {"messageId": self.message_id, "role": self.role.value}
        _put(out, "contextId", self.context_id)
        _put(out, "taskId", self.task_id)
        out["parts"] = [part.to_wire() for part in self.parts]
        _put(out, "metadata", self.metadata)
        _put(out, "extensions", self.extensions)
        _put(out, "referenceTaskIds", self.reference_task_ids)
        return out

    @property
    def text(self) -> str:
        """The text parts joined by newlines: what most skills want to read."""
        return "\n".join(p.content for p in self.parts if p.kind == "text")


@dataclass(slots=True)
class Artifact(_Extensible):
    artifact_id: str
    parts: list[Part]
    name: str = ""
    description: str = ""

    @classmethod
    def from_wire(cls, obj: Any, path: str = "artifact") -> Artifact:
        obj = FIELDS.require_object(obj, path)
        return cls(
            artifact_id=FIELDS.read_id(obj, "artifactId", path, required=True),
            parts=FIELDS.read_parts(obj, "parts", path, Part.from_wire),
            name=FIELDS.read_str(obj, "name", path) or "",
            description=FIELDS.read_str(obj, "description", path) or "",
            metadata=FIELDS.read_object(obj, "metadata", path) or {},
            extensions=FIELDS.read_str_list(obj, "extensions", path) or [],
        )

    def to_wire(self) -> JSON:
        out: JSON = {"artifactId": self.artifact_id}
        _put(out, "name", self.name)
        _put(out, "description", self.description)
        out["parts"] = [part.to_wire() for part in self.parts]
        _put(out, "metadata", self.metadata)
        _put(out, "extensions", self.extensions)
        return out
