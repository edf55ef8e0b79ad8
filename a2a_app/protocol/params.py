"""A2A v1.0 request params: each operation's params, parsed and validated from ProtoJSON.

SendMessage (and its configuration), GetTask, ListTasks, CancelTask and SubscribeToTask,
and the push notification config operations; the objects they carry (messages, task
states, timestamps) come from :mod:`a2a_app.protocol.types`. As there, every validation
failure raises :class:`InvalidParamsError` naming the failing field by its path in the
params.

This module imports nothing from Django so the protocol can be used and tested alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.types import Message, Role, TaskState, parse_task_state
from a2a_app.protocol.wire import (
    INT32_MAX,
    JSON,
    MAX_AUTH_SCHEME_LENGTH,
    join,
    parse_timestamp,
)
from a2a_app.protocol.wire import PROTOJSON as FIELDS


def _read_task_state(obj: JSON, name: str, path: str) -> TaskState | None:
    """A task state field; ``TASK_STATE_UNSPECIFIED`` reads as absent."""
    value, where = FIELDS.field(obj, name, path)
    if value is None:
        return None
    return parse_task_state(value, where)


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
            id=FIELDS.read_id(params, "id", "", required=True),
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
            context_id=FIELDS.read_id(params, "contextId", "") or "",
            status=_read_task_state(params, "status", ""),
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
            id=FIELDS.read_id(params, "id", "", required=True),
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
            if len(scheme) > MAX_AUTH_SCHEME_LENGTH:
                raise InvalidParamsError.for_field(
                    join(auth_path, "scheme"),
                    f"must be at most {MAX_AUTH_SCHEME_LENGTH} characters long",
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
            task_id=FIELDS.read_id(obj, "taskId", path, required=task_id_required) or "",
            id=FIELDS.read_id(obj, "id", path) or "",
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
            task_id=FIELDS.read_id(params, "taskId", "", required=True),
            id=FIELDS.read_id(params, "id", "", required=True),
        )

    @classmethod
    def from_wire_optional_id(cls, params: JSON) -> PushConfigIdRequest:
        """v0.3's get may leave out the config id."""
        return cls(
            task_id=FIELDS.read_id(params, "taskId", "", required=True),
            id=FIELDS.read_id(params, "id", "") or "",
        )


@dataclass(slots=True)
class ListPushConfigsRequest:
    task_id: str
    page_size: int | None = None
    page_token: str = ""

    @classmethod
    def from_wire(cls, params: JSON) -> ListPushConfigsRequest:
        return cls(
            task_id=FIELDS.read_id(params, "taskId", "", required=True),
            page_size=FIELDS.read_int(params, "pageSize", "", minimum=1, maximum=MAX_PAGE_SIZE),
            page_token=FIELDS.read_str(params, "pageToken", "") or "",
        )
