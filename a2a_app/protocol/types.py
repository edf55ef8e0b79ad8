"""A2A v1.0 wire objects: parse and validate ProtoJSON in, serialize ProtoJSON out.

Parsing accepts camelCase and snake_case field names, enum names or numbers, numeric
strings for integers and lenient timestamps; serializing emits camelCase, enum names
and UTC timestamps with ``Z`` (spec reference §1). Every validation failure raises
:class:`InvalidParamsError` naming the failing field by its wire path.

This module imports nothing from Django so the protocol can be used and tested alone.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.wire import INT32_MAX, JSON, join, normalize_base64
from a2a_app.protocol.wire import PROTOJSON as FIELDS


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


# Proto enum numbers, accepted on input as ProtoJSON allows.
_TASK_STATE_NUMBERS = dict(enumerate(TaskState))


class Role(enum.StrEnum):
    UNSPECIFIED = "ROLE_UNSPECIFIED"
    USER = "ROLE_USER"
    AGENT = "ROLE_AGENT"


_ROLE_NUMBERS = dict(enumerate(Role))


# --- readers the wire module cannot have: they know the enums --------------------------------


def read_task_state(obj: JSON, name: str, path: str) -> TaskState | None:
    value, where = FIELDS.field(obj, name, path)
    if value is None:
        return None
    return parse_task_state(value, where)


def parse_task_state(value: Any, path: str) -> TaskState | None:
    try:
        if isinstance(value, bool):
            raise ValueError(value)
        state = _TASK_STATE_NUMBERS[value] if isinstance(value, int) else TaskState(value)
    except (KeyError, ValueError):
        raise InvalidParamsError.for_field(path, f"unknown task state {value!r}") from None
    return None if state is TaskState.UNSPECIFIED else state


def parse_timestamp(value: Any, path: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(path, "must be an RFC 3339 timestamp string")
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):  # overflow: year 1 with a positive offset
        raise InvalidParamsError.for_field(path, "must be an RFC 3339 timestamp") from None


def format_timestamp(value: datetime) -> str:
    """UTC, millisecond precision, ``Z`` suffix (spec §5.6.1)."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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


@dataclass(slots=True)
class Message:
    message_id: str
    role: Role
    parts: list[Part]
    context_id: str = ""
    task_id: str = ""
    metadata: JSON = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)
    reference_task_ids: list[str] = field(default_factory=list)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "message") -> Message:
        obj = FIELDS.require_object(obj, path)
        role_value, role_path = FIELDS.field(obj, "role", path)
        try:
            if isinstance(role_value, bool):
                raise ValueError(role_value)
            role = _ROLE_NUMBERS[role_value] if isinstance(role_value, int) else Role(role_value)
        except (KeyError, ValueError):
            role = Role.UNSPECIFIED
        if role is Role.UNSPECIFIED:
            raise InvalidParamsError.for_field(role_path, "must be ROLE_USER or ROLE_AGENT")
        return cls(
            message_id=FIELDS.read_str(obj, "messageId", path, required=True),
            role=role,
            parts=FIELDS.read_parts(obj, "parts", path, Part.from_wire),
            context_id=FIELDS.read_str(obj, "contextId", path) or "",
            task_id=FIELDS.read_str(obj, "taskId", path) or "",
            metadata=FIELDS.read_object(obj, "metadata", path) or {},
            extensions=FIELDS.read_str_list(obj, "extensions", path) or [],
            reference_task_ids=FIELDS.read_str_list(obj, "referenceTaskIds", path) or [],
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
class Artifact:
    artifact_id: str
    parts: list[Part]
    name: str = ""
    description: str = ""
    metadata: JSON = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "artifact") -> Artifact:
        obj = FIELDS.require_object(obj, path)
        return cls(
            artifact_id=FIELDS.read_str(obj, "artifactId", path, required=True),
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


# --- requests ------------------------------------------------------------------------------


@dataclass(slots=True)
class SendMessageConfiguration:
    accepted_output_modes: list[str] = field(default_factory=list)
    history_length: int | None = None
    return_immediately: bool = False
    push_notification_config: PushNotificationConfig | None = None

    @classmethod
    def from_wire(cls, obj: Any, path: str = "configuration") -> SendMessageConfiguration:
        if obj is None:
            return cls()
        obj = FIELDS.require_object(obj, path)
        push, push_path = FIELDS.field(obj, "taskPushNotificationConfig", path)
        return cls(
            accepted_output_modes=FIELDS.read_str_list(obj, "acceptedOutputModes", path) or [],
            history_length=FIELDS.read_int(
                obj, "historyLength", path, minimum=0, maximum=INT32_MAX
            ),
            return_immediately=bool(FIELDS.read_bool(obj, "returnImmediately", path)),
            push_notification_config=None
            if push is None
            else PushNotificationConfig.from_wire(push, push_path, task_id_required=False),
        )


@dataclass(slots=True)
class SendMessageRequest:
    message: Message
    configuration: SendMessageConfiguration
    metadata: JSON = field(default_factory=dict)
    tenant: str = ""

    @classmethod
    def from_wire(cls, params: JSON) -> SendMessageRequest:
        message_obj = FIELDS.get(params, "message")
        if message_obj is None:
            raise InvalidParamsError.for_field("message", "is required")
        message = Message.from_wire(message_obj, "message")
        if message.role is not Role.USER:
            raise InvalidParamsError.for_field("message.role", "must be ROLE_USER")
        return cls(
            message=message,
            configuration=SendMessageConfiguration.from_wire(FIELDS.get(params, "configuration")),
            metadata=FIELDS.read_object(params, "metadata", "") or {},
            tenant=FIELDS.read_str(params, "tenant", "") or "",
        )


@dataclass(slots=True)
class GetTaskRequest:
    id: str
    history_length: int | None = None

    @classmethod
    def from_wire(cls, params: JSON) -> GetTaskRequest:
        return cls(
            id=FIELDS.read_str(params, "id", "", required=True),
            history_length=FIELDS.read_int(
                params, "historyLength", "", minimum=0, maximum=INT32_MAX
            ),
        )


DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


@dataclass(slots=True)
class ListTasksRequest:
    context_id: str = ""
    status: TaskState | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    page_token: str = ""
    history_length: int | None = None
    status_timestamp_after: datetime | None = None
    include_artifacts: bool = False

    @classmethod
    def from_wire(cls, params: JSON) -> ListTasksRequest:
        after = FIELDS.get(params, "statusTimestampAfter")
        page_size = FIELDS.read_int(params, "pageSize", "", minimum=1, maximum=MAX_PAGE_SIZE)
        return cls(
            context_id=FIELDS.read_str(params, "contextId", "") or "",
            status=read_task_state(params, "status", ""),
            page_size=DEFAULT_PAGE_SIZE if page_size is None else page_size,
            page_token=FIELDS.read_str(params, "pageToken", "") or "",
            history_length=FIELDS.read_int(
                params, "historyLength", "", minimum=0, maximum=INT32_MAX
            ),
            status_timestamp_after=(
                None if after is None else parse_timestamp(after, "statusTimestampAfter")
            ),
            include_artifacts=bool(FIELDS.read_bool(params, "includeArtifacts", "")),
        )


@dataclass(slots=True)
class TaskIdRequest:
    """CancelTask and SubscribeToTask: an id and free-form metadata."""

    id: str
    metadata: JSON = field(default_factory=dict)

    @classmethod
    def from_wire(cls, params: JSON) -> TaskIdRequest:
        return cls(
            id=FIELDS.read_str(params, "id", "", required=True),
            metadata=FIELDS.read_object(params, "metadata", "") or {},
        )


# --- push notification configs -----------------------------------------------------------


@dataclass(slots=True)
class PushNotificationConfig:
    """``TaskPushNotificationConfig``: a webhook for one task (flat in v1.0)."""

    url: str
    task_id: str = ""
    id: str = ""
    token: str = ""
    auth_scheme: str = ""
    credentials: str = ""

    @classmethod
    def from_wire(cls, obj: Any, path: str = "", *, task_id_required: bool = True) -> Any:
        obj = FIELDS.require_object(obj, path)
        auth = FIELDS.read_object(obj, "authentication", path)
        auth_path = join(path, "authentication")
        scheme = credentials = ""
        if auth is not None:
            scheme = FIELDS.read_str(auth, "scheme", auth_path, required=True)
            credentials = FIELDS.read_str(auth, "credentials", auth_path) or ""
            if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", scheme):
                raise InvalidParamsError.for_field(
                    join(auth_path, "scheme"), "must be an HTTP auth scheme such as Bearer"
                )
        if any(c in credentials for c in "\r\n"):
            raise InvalidParamsError.for_field(
                join(auth_path, "credentials"), "must not contain line breaks"
            )
        token = FIELDS.read_str(obj, "token", path) or ""
        if any(c in token for c in "\r\n"):
            raise InvalidParamsError.for_field(join(path, "token"), "must not contain line breaks")
        return cls(
            url=FIELDS.read_str(obj, "url", path, required=True),
            task_id=FIELDS.read_str(obj, "taskId", path, required=task_id_required) or "",
            id=FIELDS.read_str(obj, "id", path) or "",
            token=token,
            auth_scheme=scheme,
            credentials=credentials,
        )


@dataclass(slots=True)
class PushConfigIdRequest:
    """Get and Delete: a task id and a config id."""

    task_id: str
    id: str

    @classmethod
    def from_wire(cls, params: JSON) -> PushConfigIdRequest:
        return cls(
            task_id=FIELDS.read_str(params, "taskId", "", required=True),
            id=FIELDS.read_str(params, "id", "", required=True),
        )

    @classmethod
    def from_wire_optional_id(cls, params: JSON) -> PushConfigIdRequest:
        """v0.3's get may leave out the config id."""
        return cls(
            task_id=FIELDS.read_str(params, "taskId", "", required=True),
            id=FIELDS.read_str(params, "id", "") or "",
        )


@dataclass(slots=True)
class ListPushConfigsRequest:
    task_id: str
    page_size: int | None = None
    page_token: str = ""

    @classmethod
    def from_wire(cls, params: JSON) -> ListPushConfigsRequest:
        return cls(
            task_id=FIELDS.read_str(params, "taskId", "", required=True),
            page_size=FIELDS.read_int(params, "pageSize", "", minimum=1, maximum=MAX_PAGE_SIZE),
            page_token=FIELDS.read_str(params, "pageToken", "") or "",
        )
