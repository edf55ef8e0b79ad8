"""A2A v1.0 wire objects: parse and validate ProtoJSON in, serialize ProtoJSON out.

Parsing accepts camelCase and snake_case field names, enum names or numbers, numeric
strings for integers and lenient timestamps; serializing emits camelCase, enum names
and UTC timestamps with ``Z`` (spec reference §1). Every validation failure raises
:class:`InvalidParamsError` naming the failing field by its wire path.

This module imports nothing from Django so the protocol can be used and tested alone.
"""

from __future__ import annotations

import base64
import binascii
import enum
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError

JSON = dict[str, Any]

_CAMEL_RE = re.compile(r"(?<!^)(?=[A-Z])")


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


# --- low-level readers -----------------------------------------------------------------


def _snake(name: str) -> str:
    return _CAMEL_RE.sub("_", name).lower()


def get_field(obj: JSON, name: str) -> Any:
    """Read a field by its camelCase name, falling back to the snake_case spelling."""
    if name in obj:
        return obj[name]
    return obj.get(_snake(name))


def require_object(value: Any, path: str) -> JSON:
    if not isinstance(value, dict):
        raise InvalidParamsError.for_field(path, "must be a JSON object")
    return value


def read_object(obj: JSON, name: str, path: str, *, required: bool = False) -> JSON | None:
    value = get_field(obj, name)
    if value is None:
        if required:
            raise InvalidParamsError.for_field(f"{path}{name}", "is required")
        return None
    return require_object(value, f"{path}{name}")


def read_str(obj: JSON, name: str, path: str, *, required: bool = False) -> str | None:
    value = get_field(obj, name)
    if value is None or (required and value == ""):
        if required:
            raise InvalidParamsError.for_field(f"{path}{name}", "is required")
        return None
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(f"{path}{name}", "must be a string")
    return value


def read_bool(obj: JSON, name: str, path: str) -> bool | None:
    value = get_field(obj, name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise InvalidParamsError.for_field(f"{path}{name}", "must be true or false")
    return value


INT32_MAX = 2**31 - 1


def read_int(
    obj: JSON, name: str, path: str, *, minimum: int | None = None, maximum: int = INT32_MAX
) -> int | None:
    """An int32 (ProtoJSON also allows numeric strings); out of range is invalid."""
    value = get_field(obj, name)
    if value is None:
        return None
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParamsError.for_field(f"{path}{name}", "must be an integer")
    if minimum is not None and value < minimum:
        raise InvalidParamsError.for_field(f"{path}{name}", f"must be at least {minimum}")
    if value > maximum:
        raise InvalidParamsError.for_field(f"{path}{name}", f"must be at most {maximum}")
    return value


def read_str_list(obj: JSON, name: str, path: str) -> list[str]:
    value = get_field(obj, name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidParamsError.for_field(f"{path}{name}", "must be a list of strings")
    return value


def read_task_state(obj: JSON, name: str, path: str) -> TaskState | None:
    value = get_field(obj, name)
    if value is None:
        return None
    return parse_task_state(value, f"{path}{name}")


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


def _normalize_base64(value: Any, path: str) -> str:
    """Accept standard or URL-safe, padded or not; return standard padded base64."""
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(path, "must be a base64 string")
    text = value.strip().replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode("ascii")
    except (binascii.Error, ValueError):
        raise InvalidParamsError.for_field(path, "is not valid base64") from None


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
        obj = require_object(obj, path)
        present = [kind for kind in PART_KINDS if kind in obj]
        if len(present) != 1:
            raise InvalidParamsError.for_field(
                path, "exactly one of text, raw, url or data must be set"
            )
        kind = present[0]
        content = obj[kind]
        if kind == "text" or kind == "url":
            if not isinstance(content, str):
                raise InvalidParamsError.for_field(f"{path}.{kind}", "must be a string")
        elif kind == "raw":
            content = _normalize_base64(content, f"{path}.raw")
        return cls(
            kind=kind,
            content=content,
            media_type=read_str(obj, "mediaType", f"{path}.") or "",
            filename=read_str(obj, "filename", f"{path}.") or "",
            metadata=read_object(obj, "metadata", f"{path}.") or {},
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


def _parse_parts(obj: JSON, path: str) -> list[Part]:
    parts = get_field(obj, "parts")
    if parts is None:
        raise InvalidParamsError.for_field(f"{path}parts", "is required")
    if not isinstance(parts, list):
        raise InvalidParamsError.for_field(f"{path}parts", "must be a list")
    if not parts:
        raise InvalidParamsError.for_field(f"{path}parts", "at least one part is required")
    return [Part.from_wire(part, f"{path}parts[{i}]") for i, part in enumerate(parts)]


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
        obj = require_object(obj, path)
        prefix = f"{path}."
        role_value = get_field(obj, "role")
        try:
            if isinstance(role_value, bool):
                raise ValueError(role_value)
            role = _ROLE_NUMBERS[role_value] if isinstance(role_value, int) else Role(role_value)
        except (KeyError, ValueError):
            role = Role.UNSPECIFIED
        if role is Role.UNSPECIFIED:
            raise InvalidParamsError.for_field(f"{prefix}role", "must be ROLE_USER or ROLE_AGENT")
        return cls(
            message_id=read_str(obj, "messageId", prefix, required=True),
            role=role,
            parts=_parse_parts(obj, prefix),
            context_id=read_str(obj, "contextId", prefix) or "",
            task_id=read_str(obj, "taskId", prefix) or "",
            metadata=read_object(obj, "metadata", prefix) or {},
            extensions=read_str_list(obj, "extensions", prefix),
            reference_task_ids=read_str_list(obj, "referenceTaskIds", prefix),
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
        obj = require_object(obj, path)
        prefix = f"{path}."
        return cls(
            artifact_id=read_str(obj, "artifactId", prefix, required=True),
            parts=_parse_parts(obj, prefix),
            name=read_str(obj, "name", prefix) or "",
            description=read_str(obj, "description", prefix) or "",
            metadata=read_object(obj, "metadata", prefix) or {},
            extensions=read_str_list(obj, "extensions", prefix),
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
        obj = require_object(obj, path)
        prefix = f"{path}."
        push = get_field(obj, "taskPushNotificationConfig")
        return cls(
            accepted_output_modes=read_str_list(obj, "acceptedOutputModes", prefix),
            history_length=read_int(obj, "historyLength", prefix, minimum=0),
            return_immediately=bool(read_bool(obj, "returnImmediately", prefix)),
            push_notification_config=None
            if push is None
            else PushNotificationConfig.from_wire(
                push, f"{prefix}taskPushNotificationConfig", task_id_required=False
            ),
        )


@dataclass(slots=True)
class SendMessageRequest:
    message: Message
    configuration: SendMessageConfiguration
    metadata: JSON = field(default_factory=dict)
    tenant: str = ""

    @classmethod
    def from_wire(cls, params: JSON) -> SendMessageRequest:
        message_obj = get_field(params, "message")
        if message_obj is None:
            raise InvalidParamsError.for_field("message", "is required")
        message = Message.from_wire(message_obj, "message")
        if message.role is not Role.USER:
            raise InvalidParamsError.for_field("message.role", "must be ROLE_USER")
        return cls(
            message=message,
            configuration=SendMessageConfiguration.from_wire(get_field(params, "configuration")),
            metadata=read_object(params, "metadata", "") or {},
            tenant=read_str(params, "tenant", "") or "",
        )


@dataclass(slots=True)
class GetTaskRequest:
    id: str
    history_length: int | None = None

    @classmethod
    def from_wire(cls, params: JSON) -> GetTaskRequest:
        return cls(
            id=read_str(params, "id", "", required=True),
            history_length=read_int(params, "historyLength", "", minimum=0),
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
        after = get_field(params, "statusTimestampAfter")
        page_size = read_int(params, "pageSize", "", minimum=1, maximum=MAX_PAGE_SIZE)
        return cls(
            context_id=read_str(params, "contextId", "") or "",
            status=read_task_state(params, "status", ""),
            page_size=DEFAULT_PAGE_SIZE if page_size is None else page_size,
            page_token=read_str(params, "pageToken", "") or "",
            history_length=read_int(params, "historyLength", "", minimum=0),
            status_timestamp_after=(
                None if after is None else parse_timestamp(after, "statusTimestampAfter")
            ),
            include_artifacts=bool(read_bool(params, "includeArtifacts", "")),
        )


@dataclass(slots=True)
class TaskIdRequest:
    """CancelTask and SubscribeToTask: an id and free-form metadata."""

    id: str
    metadata: JSON = field(default_factory=dict)

    @classmethod
    def from_wire(cls, params: JSON) -> TaskIdRequest:
        return cls(
            id=read_str(params, "id", "", required=True),
            metadata=read_object(params, "metadata", "") or {},
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
        obj = require_object(obj, path or "params")
        prefix = f"{path}." if path else ""
        auth = read_object(obj, "authentication", prefix)
        scheme = credentials = ""
        if auth is not None:
            scheme = read_str(auth, "scheme", f"{prefix}authentication.", required=True)
            credentials = read_str(auth, "credentials", f"{prefix}authentication.") or ""
            if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", scheme):
                raise InvalidParamsError.for_field(
                    f"{prefix}authentication.scheme", "must be an HTTP auth scheme such as Bearer"
                )
        if any(c in credentials for c in "\r\n"):
            raise InvalidParamsError.for_field(
                f"{prefix}authentication.credentials", "must not contain line breaks"
            )
        token = read_str(obj, "token", prefix) or ""
        if any(c in token for c in "\r\n"):
            raise InvalidParamsError.for_field(f"{prefix}token", "must not contain line breaks")
        return cls(
            url=read_str(obj, "url", prefix, required=True),
            task_id=read_str(obj, "taskId", prefix, required=task_id_required) or "",
            id=read_str(obj, "id", prefix) or "",
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
            task_id=read_str(params, "taskId", "", required=True),
            id=read_str(params, "id", "", required=True),
        )

    @classmethod
    def from_wire_optional_id(cls, params: JSON) -> PushConfigIdRequest:
        """v0.3's get may leave out the config id."""
        return cls(
            task_id=read_str(params, "taskId", "", required=True),
            id=read_str(params, "id", "") or "",
        )


@dataclass(slots=True)
class ListPushConfigsRequest:
    task_id: str
    page_size: int | None = None
    page_token: str = ""

    @classmethod
    def from_wire(cls, params: JSON) -> ListPushConfigsRequest:
        return cls(
            task_id=read_str(params, "taskId", "", required=True),
            page_size=read_int(params, "pageSize", "", minimum=1, maximum=MAX_PAGE_SIZE),
            page_token=read_str(params, "pageToken", "") or "",
        )
