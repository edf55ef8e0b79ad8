"""Convert between the A2A v0.3 JSON-RPC dialect and v1.0 ProtoJSON (spec reference §6).

The service speaks only v1.0; these functions let it serve v0.3 clients (the pre-0.3
``tasks/send`` of old guides is in :mod:`a2a_app.protocol.legacy`): v0.3 requests up, v1.0
results and events down (the other direction, which only a client needs, is the tests'
``tests/v03_client.py``). All take and return plain JSON dicts. ``*_to_v03`` read v1.0
dicts our own code produced and trust them; every ``*_from_v03`` validates and raises
:class:`InvalidParamsError` naming the failing field by its path.
Paths of request parameters are relative to the JSON-RPC ``params`` object, as in the v1.0 parser
(``message.parts[1].file``, ``configuration.blocking``).

Fields present on one side are carried over, absent ones stay absent, so round trips are
exact for everything v0.3 can express. What it cannot express is dropped on the way down:
``mediaType``/``filename`` of text parts, ``mediaType`` of data parts (v0.3 data is JSON,
so up-converted data parts get ``application/json``), ``tenant``, all but the first of
several v0.3 authentication ``schemes`` (v1.0 has one ``scheme``), and v0.3 ``metadata``
of GetTask and list/get/delete push-config params (v1.0 has no such field).
"""

from __future__ import annotations

from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.v03 import common
from a2a_app.protocol.wire import JSON, join, normalize_base64
from a2a_app.protocol.wire import PLAIN_JSON as FIELDS

_STATES = {
    "TASK_STATE_UNSPECIFIED": "unknown",
    "TASK_STATE_SUBMITTED": "submitted",
    "TASK_STATE_WORKING": "working",
    "TASK_STATE_COMPLETED": "completed",
    "TASK_STATE_FAILED": "failed",
    "TASK_STATE_CANCELED": "canceled",
    "TASK_STATE_INPUT_REQUIRED": "input-required",
    "TASK_STATE_REJECTED": "rejected",
    "TASK_STATE_AUTH_REQUIRED": "auth-required",
}
_ROLES = {"ROLE_USER": "user", "ROLE_AGENT": "agent"}
_ROLES_FROM_V03 = {v: k for k, v in _ROLES.items()}


def check_kind(obj: JSON, expected: str, path: str) -> None:
    """``kind`` may be omitted, but when given it must name the expected object."""
    if obj.get("kind", expected) != expected:
        raise InvalidParamsError.for_field(join(path, "kind"), f"must be {expected!r}")


# --- states and roles ----------------------------------------------------------------


def state_to_v03(state: str) -> str:
    try:
        return _STATES[state]
    except KeyError:
        raise ValueError(f"unknown v1.0 task state {state!r}") from None


def role_to_v03(role: str) -> str:
    try:
        return _ROLES[role]
    except KeyError:
        raise ValueError(f"unknown v1.0 role {role!r}") from None


def role_from_v03(value: Any, path: str = "message.role") -> str:
    if isinstance(value, str) and value in _ROLES_FROM_V03:
        return _ROLES_FROM_V03[value]
    raise InvalidParamsError.for_field(path, "must be 'user' or 'agent'")


# --- parts -----------------------------------------------------------------------------


def part_from_v03(obj: Any, path: str = "part", kind_key: str = "kind") -> JSON:
    """A v0.3 part → v1.0. ``kind_key`` is ``type`` in the pre-0.3 shape."""
    obj = FIELDS.require_object(obj, path)
    kind = obj.get(kind_key)
    metadata = FIELDS.read_object(obj, "metadata", path)
    out: JSON = {}
    if kind == "text":
        text = obj.get("text")
        if not isinstance(text, str):
            raise InvalidParamsError.for_field(join(path, "text"), "must be a string")
        out["text"] = text
    elif kind == "file":
        file_path = join(path, "file")
        file = FIELDS.require_object(obj.get("file"), file_path)
        if ("bytes" in file) == ("uri" in file):
            raise InvalidParamsError.for_field(file_path, "exactly one of bytes or uri is required")
        if "bytes" in file:
            raw = file["bytes"]
            if not isinstance(raw, str):
                raise InvalidParamsError.for_field(join(file_path, "bytes"), "must be a string")
            # Checked only: the client's spelling of the bytes is passed on as sent.
            normalize_base64(raw, join(file_path, "bytes"))
            out["raw"] = raw
        else:
            out["url"] = FIELDS.read_str(file, "uri", file_path, required=True)
        FIELDS.put(out, "filename", FIELDS.read_str(file, "name", file_path))
        FIELDS.put(out, "mediaType", FIELDS.read_str(file, "mimeType", file_path))
    elif kind == "data":
        data_path = join(path, "data")
        data = FIELDS.require_object(obj.get("data"), data_path)
        out["data"], metadata = common.unwrap_data(data, metadata, data_path)
        out["mediaType"] = "application/json"
    else:
        raise InvalidParamsError.for_field(join(path, kind_key), "must be text, file or data")
    FIELDS.put(out, "metadata", metadata)
    return out


def part_to_v03(part: JSON, kind_key: str = "kind") -> JSON:
    """A v1.0 part → v0.3. ``kind_key`` is ``type`` in the pre-0.3 shape."""
    metadata = part.get("metadata")
    if "text" in part:
        out: JSON = {kind_key: "text", "text": part["text"]}
    elif "raw" in part or "url" in part:
        file: JSON = {"bytes": part["raw"]} if "raw" in part else {"uri": part["url"]}
        FIELDS.put(file, "name", part.get("filename"))
        FIELDS.put(file, "mimeType", part.get("mediaType"))
        out = {kind_key: "file", "file": file}
    elif "data" in part:
        data, metadata = common.wrap_data(part["data"], metadata)
        out = {kind_key: "data", "data": data}
    else:
        raise ValueError("a v1.0 part must have text, raw, url or data")
    FIELDS.put(out, "metadata", metadata)
    return out


def parts_from_v03(obj: JSON, path: str, kind_key: str = "kind") -> list[JSON]:
    """The required ``parts`` of a message or artifact; an empty list is left to the v1.0
    parser, which names the same field."""

    def read_part(part: Any, part_path: str) -> JSON:
        return part_from_v03(part, part_path, kind_key)

    return FIELDS.read_parts(obj, "parts", path, read_part, allow_empty=True)


# --- messages, artifacts, status, tasks --------------------------------------------------

_MESSAGE_OPTIONAL = ("contextId", "taskId", "metadata", "extensions", "referenceTaskIds")


def message_to_v03(message: JSON) -> JSON:
    out: JSON = {
        "kind": "message",
        "messageId": message["messageId"],
        "role": role_to_v03(message["role"]),
        "parts": [part_to_v03(p) for p in message.get("parts", [])],
    }
    FIELDS.copy(message, out, *_MESSAGE_OPTIONAL)
    return out


_SHAPES = common.Shapes(
    FIELDS, role_from_v03, parts_from_v03, part_to_v03, state_to_v03, message_to_v03
)
artifact_to_v03 = _SHAPES.artifact_to_v03
status_to_v03 = _SHAPES.status_to_v03


def message_from_v03(obj: Any, path: str = "message") -> JSON:
    obj = FIELDS.require_object(obj, path)
    check_kind(obj, "message", path)
    out = _SHAPES.message_from_v03(obj, path)
    FIELDS.put(out, "referenceTaskIds", FIELDS.read_str_list(obj, "referenceTaskIds", path))
    return out


def task_to_v03(task: JSON) -> JSON:
    out: JSON = {
        "kind": "task",
        "id": task["id"],
        "contextId": task.get("contextId", ""),
        "status": status_to_v03(task.get("status", {})),
    }
    if task.get("artifacts") is not None:
        out["artifacts"] = [artifact_to_v03(a) for a in task["artifacts"]]
    if task.get("history") is not None:
        out["history"] = [message_to_v03(m) for m in task["history"]]
    FIELDS.copy(task, out, "metadata")
    return out


# --- stream responses ------------------------------------------------------------------


def stream_response_to_v03(response: JSON, *, final: bool) -> JSON:
    """A v1.0 StreamResponse as the bare v0.3 event; ``final`` marks the last status update."""
    if "task" in response:
        return task_to_v03(response["task"])
    if "message" in response:
        return message_to_v03(response["message"])
    if "statusUpdate" in response:
        event = response["statusUpdate"]
        out: JSON = {
            "kind": "status-update",
            "taskId": event.get("taskId", ""),
            "contextId": event.get("contextId", ""),
            "status": status_to_v03(event.get("status", {})),
            "final": final,
        }
        FIELDS.copy(event, out, "metadata")
        return out
    if "artifactUpdate" in response:
        event = response["artifactUpdate"]
        out = {
            "kind": "artifact-update",
            "taskId": event.get("taskId", ""),
            "contextId": event.get("contextId", ""),
            "artifact": artifact_to_v03(event["artifact"]),
        }
        FIELDS.copy(event, out, "append", "lastChunk", "metadata")
        return out
    raise ValueError(
        "a v1.0 StreamResponse must have task, message, statusUpdate or artifactUpdate"
    )


# --- push notification configs --------------------------------------------------------


def push_config_to_v03(config: JSON) -> JSON:
    """A flat v1.0 TaskPushNotificationConfig as the v0.3 wrapper (``tenant`` is dropped)."""
    return {
        "taskId": config.get("taskId", ""),
        "pushNotificationConfig": common.push_inner_to_v03(FIELDS, config),
    }


def push_config_from_v03(obj: Any, path: str = "", task_id: str = "") -> JSON:
    """The flat v1.0 config for a v0.3 TaskPushNotificationConfig wrapper, or for a bare
    PushNotificationConfig whose task is ``task_id`` ("" inside send configurations)."""
    obj = FIELDS.require_object(obj, path)
    if "pushNotificationConfig" in obj:
        task_id = FIELDS.read_str(obj, "taskId", path, required=not task_id) or task_id
        path = join(path, "pushNotificationConfig")
        obj = obj["pushNotificationConfig"]
    config = common.push_inner_from_v03(FIELDS, obj, path)
    return {"taskId": task_id, **config} if task_id else config


# --- request params ------------------------------------------------------------------


def send_params_from_v03(params: Any) -> JSON:
    """MessageSendParams → SendMessageRequest."""
    params = FIELDS.require_object(params, "")
    if params.get("message") is None:
        raise InvalidParamsError.for_field("message", "is required")
    out: JSON = {"message": message_from_v03(params["message"], "message")}
    config = FIELDS.read_object(params, "configuration", "")
    if config is not None:
        out["configuration"] = common.configuration_from_v03(
            FIELDS,
            config,
            "configuration",
            push_field="pushNotificationConfig",
            read_push=push_config_from_v03,
        )
    FIELDS.put(out, "metadata", FIELDS.read_object(params, "metadata", ""))
    return out


def _task_id_params(params: Any) -> tuple[JSON, str]:
    params = FIELDS.require_object(params, "")
    FIELDS.read_object(params, "metadata", "")
    return params, FIELDS.read_str(params, "id", "", required=True)


def task_query_from_v03(params: Any) -> JSON:
    """TaskQueryParams → GetTask params."""
    params, task_id = _task_id_params(params)
    out: JSON = {"id": task_id}
    FIELDS.put(out, "historyLength", FIELDS.read_int(params, "historyLength", ""))
    return out


def task_id_params_from_v03(params: Any) -> JSON:
    """TaskIdParams → CancelTask / SubscribeToTask params."""
    params, task_id = _task_id_params(params)
    out: JSON = {"id": task_id}
    FIELDS.copy(params, out, "metadata")
    return out


def push_get_params_from_v03(params: Any) -> JSON:
    """``{id: taskId, pushNotificationConfigId?}`` → ``{taskId, id?}``. v0.3 lets the config
    id be omitted (one config per task); then ``id`` is absent and the caller decides."""
    params, task_id = _task_id_params(params)
    out: JSON = {"taskId": task_id}
    FIELDS.put(out, "id", FIELDS.read_str(params, "pushNotificationConfigId", ""))
    return out


def push_list_params_from_v03(params: Any) -> JSON:
    return {"taskId": _task_id_params(params)[1]}


def push_delete_params_from_v03(params: Any) -> JSON:
    params, task_id = _task_id_params(params)
    return {
        "taskId": task_id,
        "id": FIELDS.read_str(params, "pushNotificationConfigId", "", required=True),
    }
