"""Convert between the A2A v0.3 HTTP+JSON dialect and v1.0 ProtoJSON (spec reference §6.2).

v0.3 HTTP+JSON is not the v0.3 JSON-RPC dialect of :mod:`.jsonrpc`: it is the
ProtoJSON of the v0.3 proto (``specification/grpc/a2a.proto`` at A2A tag v0.3.0, package
``a2a.v1``), as a2a-sdk 0.3.x serves it. Its differences from v1.0:

* ``TASK_STATE_CANCELLED`` (double L); ``Message.content`` instead of ``parts``;
* parts ``{"text"}``, ``{"file": {"fileWithUri"|"fileWithBytes", "mimeType", "name"}}`` and
  ``{"data": {"data": {…}}}`` (a Struct: non-objects travel as ``{"value": x}`` with the
  :data:`~a2a_app.protocol.v03.common.DATA_WRAP_FLAG` metadata flag); ``Part.metadata`` and
  ``FilePart.name`` exist from the a2a-sdk 0.3.x revision of the proto on;
* ``SendMessageRequest.request``, ``TaskStatus.update`` and the ``msg`` of
  ``SendMessageResponse``/``StreamResponse`` carry ``json_name = "message"``: ProtoJSON
  writes ``message`` and reads either spelling (and snake_case for every field);
* ``SendMessageConfiguration {acceptedOutputModes, pushNotification, historyLength,
  blocking}``; ``TaskStatusUpdateEvent.final``;
* ``TaskPushNotificationConfig {name: "tasks/{id}/pushNotificationConfigs/{cfg}",
  pushNotificationConfig: {id, url, token, authentication: {schemes[], credentials}}}``
  and ``ListTaskPushNotificationConfigResponse {configs, nextPageToken}``.

``*_from_v03`` validate and raise :class:`InvalidParamsError` naming the failing field by
its path in the request body (the spelling the client used); unknown fields are ignored,
as a2a-sdk's parser does. ``*_to_v03`` trust the v1.0 dicts our own code produced. What
v0.3 cannot express is dropped on the way down: ``referenceTaskIds``, ``mediaType`` and
``filename`` of text and data parts, ``tenant``, all but the first authentication scheme.
"""

from __future__ import annotations

import re
from typing import Any

from a2a_app.protocol.errors import FieldViolation, InvalidParamsError
from a2a_app.protocol.v03 import common
from a2a_app.protocol.wire import JSON, join, normalize_base64, parse_enum
from a2a_app.protocol.wire import PROTOJSON_V03 as FIELDS

#: The one state name v0.3 spells differently (it is the only change from v1.0's names).
_STATES_TO_V03 = {"TASK_STATE_CANCELED": "TASK_STATE_CANCELLED"}
#: In proto enum number order: ProtoJSON also accepts the numbers.
_ROLES = ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT")
_CONFIG_NAME = re.compile(r"tasks/([^/]+)/pushNotificationConfigs/([^/]+)")


# --- states and roles --------------------------------------------------------------------


def state_to_v03(state: str) -> str:
    return _STATES_TO_V03.get(state, state)


def role_from_v03(value: Any, path: str = "message.role") -> str:
    role = parse_enum(value, _ROLES, path, "role")
    if role == "ROLE_UNSPECIFIED":
        raise InvalidParamsError.for_field(path, "must be ROLE_USER or ROLE_AGENT")
    return role


# --- parts -------------------------------------------------------------------------------


def part_from_v03(obj: Any, path: str = "part") -> JSON:
    obj = FIELDS.require_object(obj, path)
    present = [k for k in ("text", "file", "data") if obj.get(k) is not None]
    if len(present) != 1:
        raise InvalidParamsError.for_field(path, "exactly one of text, file or data must be set")
    kind = present[0]
    metadata = FIELDS.read_object(obj, "metadata", path)
    out: JSON = {}
    if kind == "text":
        if not isinstance(obj["text"], str):
            raise InvalidParamsError.for_field(join(path, "text"), "must be a string")
        out["text"] = obj["text"]
    elif kind == "file":
        file_path = join(path, "file")
        file = FIELDS.require_object(obj["file"], file_path)
        uri, uri_path = FIELDS.field(file, "fileWithUri", file_path)
        raw, raw_path = FIELDS.field(file, "fileWithBytes", file_path)
        if (uri is None) == (raw is None):
            raise InvalidParamsError.for_field(
                file_path, "exactly one of fileWithUri or fileWithBytes must be set"
            )
        if raw is not None:
            # Checked only: the client's spelling of the bytes is passed on as sent.
            normalize_base64(raw, raw_path)
            out["raw"] = raw
        else:
            if not isinstance(uri, str) or not uri:
                raise InvalidParamsError.for_field(uri_path, "must be a non-empty string")
            out["url"] = uri
        FIELDS.put(out, "filename", FIELDS.read_str(file, "name", file_path))
        FIELDS.put(out, "mediaType", FIELDS.read_str(file, "mimeType", file_path))
    else:
        data_path = join(path, "data")
        data = FIELDS.read_object(FIELDS.require_object(obj["data"], data_path), "data", data_path)
        out["data"], metadata = common.unwrap_data(data or {}, metadata, join(data_path, "data"))
        out["mediaType"] = "application/json"
    FIELDS.put(out, "metadata", metadata or None)
    return out


def part_to_v03(part: JSON) -> JSON:
    metadata = part.get("metadata")
    if "text" in part:
        out: JSON = {"text": part["text"]}
    elif "raw" in part or "url" in part:
        if "raw" in part:
            file: JSON = {"fileWithBytes": part["raw"]}
        else:
            file = {"fileWithUri": part["url"]}
        FIELDS.put(file, "mimeType", part.get("mediaType"))
        FIELDS.put(file, "name", part.get("filename"))
        out = {"file": file}
    elif "data" in part:
        data, metadata = common.wrap_data(part["data"], metadata)
        out = {"data": {"data": data}}
    else:
        raise ValueError("a v1.0 part must have text, raw, url or data")
    FIELDS.put(out, "metadata", metadata or None)
    return out


# --- messages, artifacts, status, tasks ------------------------------------------------------


def _content_from_v03(obj: JSON, path: str) -> list[JSON]:
    """A message's parts: ``content`` in the v0.3 proto."""
    return FIELDS.read_parts(obj, "content", path, part_from_v03)


def message_to_v03(message: JSON) -> JSON:
    out: JSON = {"messageId": message["messageId"]}
    FIELDS.copy(message, out, "contextId", "taskId")
    out["role"] = message["role"]
    out["content"] = [part_to_v03(p) for p in message.get("parts", [])]
    FIELDS.copy(message, out, "metadata", "extensions")
    return out


_SHAPES = common.Shapes(
    FIELDS, role_from_v03, _content_from_v03, part_to_v03, state_to_v03, message_to_v03
)


def message_from_v03(obj: Any, path: str = "message") -> JSON:
    return _SHAPES.message_from_v03(FIELDS.require_object(obj, path), path)


def task_to_v03(task: JSON) -> JSON:
    out: JSON = {"id": task["id"]}
    FIELDS.copy(task, out, "contextId")
    out["status"] = _SHAPES.status_to_v03(task.get("status", {}))
    if task.get("artifacts"):
        out["artifacts"] = [_SHAPES.artifact_to_v03(a) for a in task["artifacts"]]
    if task.get("history"):
        out["history"] = [message_to_v03(m) for m in task["history"]]
    FIELDS.copy(task, out, "metadata")
    return out


# --- responses -----------------------------------------------------------------------------


def send_response_to_v03(result: JSON) -> JSON:
    """v1.0 SendMessageResponse → v0.3 ``{"task"}`` or ``{"message"}`` (json_name of msg)."""
    if "task" in result:
        return {"task": task_to_v03(result["task"])}
    return {"message": message_to_v03(result["message"])}


def stream_response_to_v03(response: JSON, *, final: bool) -> JSON:
    """A v1.0 StreamResponse as the v0.3 one; ``final`` marks the last status update."""
    if "task" in response:
        return {"task": task_to_v03(response["task"])}
    if "message" in response:
        return {"message": message_to_v03(response["message"])}
    if "statusUpdate" in response:
        event = response["statusUpdate"]
        out: JSON = {}
        FIELDS.copy(event, out, "taskId", "contextId")
        out["status"] = _SHAPES.status_to_v03(event.get("status", {}))
        out["final"] = final
        FIELDS.copy(event, out, "metadata")
        return {"statusUpdate": out}
    if "artifactUpdate" in response:
        event = response["artifactUpdate"]
        out = {}
        FIELDS.copy(event, out, "taskId", "contextId")
        out["artifact"] = _SHAPES.artifact_to_v03(event["artifact"])
        FIELDS.copy(event, out, "append", "lastChunk", "metadata")
        return {"artifactUpdate": out}
    raise ValueError(
        "a v1.0 StreamResponse must be a task, message, statusUpdate or artifactUpdate"
    )


# --- push notification configs -------------------------------------------------------------


def config_name(task_id: str, config_id: str) -> str:
    return f"tasks/{task_id}/pushNotificationConfigs/{config_id}"


def parse_config_name(name: str, path: str = "name") -> tuple[str, str]:
    """``tasks/{id}/pushNotificationConfigs/{cfg}`` → (task id, config id)."""
    match = _CONFIG_NAME.fullmatch(name)
    if match is None:
        raise InvalidParamsError.for_field(
            path, "must be tasks/{taskId}/pushNotificationConfigs/{configId}"
        )
    return match.group(1), match.group(2)


def push_config_to_v03(config: JSON) -> JSON:
    """A flat v1.0 TaskPushNotificationConfig as the v0.3 resource."""
    return {
        "name": config_name(config.get("taskId", ""), config.get("id", "")),
        "pushNotificationConfig": common.push_inner_to_v03(FIELDS, config),
    }


def push_config_from_v03(obj: Any, path: str = "", task_id: str = "") -> JSON:
    """A v0.3 TaskPushNotificationConfig → the flat v1.0 config.

    ``task_id`` (the request path's) wins over the task of ``name``; without it, ``name``
    is required. The config id is ``pushNotificationConfig.id``, else that of ``name``.
    """
    obj = FIELDS.require_object(obj, path)
    name = FIELDS.read_str(obj, "name", path, required=not task_id)
    name_task = name_config = ""
    if name is not None:
        name_task, name_config = parse_config_name(name, FIELDS.field(obj, "name", path)[1])
    inner, inner_path = FIELDS.field(obj, "pushNotificationConfig", path)
    if inner is None:
        raise InvalidParamsError.for_field(inner_path, "is required")
    out = {"taskId": task_id or name_task, **common.push_inner_from_v03(FIELDS, inner, inner_path)}
    if "id" not in out and name_config:
        out["id"] = name_config
    return out


def push_create_from_v03(body: Any, task_id: str) -> tuple[JSON, str]:
    """The body of ``POST /v1/tasks/{id}/pushNotificationConfigs`` → (the flat v1.0 config,
    the body path of its PushNotificationConfig, for :func:`push_fields`).

    The proto's HTTP rule makes the body the TaskPushNotificationConfig (``body: "config"``);
    a2a-sdk 0.3 clients send the whole CreateTaskPushNotificationConfigRequest (``parent``,
    ``configId``, ``config``) instead. Both are read; a bare PushNotificationConfig too.
    """
    body = FIELDS.require_object(body, "")
    config, config_path = FIELDS.field(body, "config", "")
    if config is not None:
        out = push_config_from_v03(config, config_path, task_id)
        config_id = FIELDS.read_str(body, "configId", "")
        if config_id and "id" not in out:
            out["id"] = config_id
        config = FIELDS.require_object(config, config_path)
        return out, FIELDS.field(config, "pushNotificationConfig", config_path)[1]
    inner, inner_path = FIELDS.field(body, "pushNotificationConfig", "")
    if inner is not None:
        return push_config_from_v03(body, "", task_id), inner_path
    return {"taskId": task_id, **common.push_inner_from_v03(FIELDS, body, "")}, ""


def push_list_to_v03(result: JSON) -> JSON:
    """v1.0 ListTaskPushNotificationConfigsResponse → the v0.3 response (``configs``)."""
    out: JSON = {"configs": [push_config_to_v03(c) for c in result.get("configs", [])]}
    FIELDS.copy(result, out, "nextPageToken")
    return out


# --- requests --------------------------------------------------------------------------------


def send_request_from_v03(body: Any) -> JSON:
    """v0.3 SendMessageRequest → v1.0 SendMessageRequest params.

    ``blocking`` absent stays absent (the server's default: wait), as over v0.3 JSON-RPC;
    ``blocking: false`` asks to return at once.
    """
    body = FIELDS.require_object(body, "")
    message, message_path = FIELDS.field(body, "message", "", "request")
    if message is None:
        raise InvalidParamsError.for_field("message", "is required")
    out: JSON = {"message": message_from_v03(message, message_path)}
    config, config_path = FIELDS.field(body, "configuration", "")
    if config is not None:
        config = FIELDS.require_object(config, config_path)
        out["configuration"] = common.configuration_from_v03(
            FIELDS,
            config,
            config_path,
            push_field="pushNotification",
            read_push=_read_push,
            history_minimum=0,
        )
    FIELDS.put(out, "metadata", FIELDS.read_object(body, "metadata", ""))
    return out


def _read_push(obj: Any, path: str) -> JSON:
    return common.push_inner_from_v03(FIELDS, obj, path)


def query_from_v03(query: dict[str, str], *names: str) -> JSON:
    """Query parameters (camelCase or snake_case) → v1.0 request fields, by camelCase name."""
    out: JSON = {}
    for name in names:
        FIELDS.put(out, name, FIELDS.get(query, name))
    return out


# --- errors the v1.0 parser names in v1.0 terms -------------------------------------------------

Renames = tuple[tuple[str, str], ...]


def send_fields(body: JSON) -> Renames:
    """(v1.0 field path prefix, v0.3 prefix) pairs, for errors the v1.0 parser or the service
    raise after :func:`send_request_from_v03` (a webhook URL's SSRF check, the role)."""
    message_path = FIELDS.field(body, "message", "", "request")[1]
    config, config_path = FIELDS.field(body, "configuration", "")
    if isinstance(config, dict):
        push = FIELDS.field(config, "pushNotification", config_path)[1]
    else:
        push = join(config_path, "pushNotification")
    return (
        (
            "configuration.taskPushNotificationConfig.authentication.scheme",
            f"{push}.authentication.schemes",
        ),
        ("configuration.taskPushNotificationConfig", push),
        ("configuration.returnImmediately", f"{config_path}.blocking"),
        ("configuration", config_path),
        ("message.parts", f"{message_path}.content"),
        ("message", message_path),
    )


def push_fields(prefix: str) -> Renames:
    """The same for a push config whose PushNotificationConfig is at ``prefix`` in the body."""
    return (
        ("authentication.scheme", join(prefix, "authentication.schemes")),
        ("", prefix),
    )


def _rename(field: str, renames: Renames) -> str:
    for old, new in renames:
        if not old:
            return join(new, field)
        if field == old or field.startswith((old + ".", old + "[")):
            return new + field[len(old) :]
    return field


def rename_fields(error: InvalidParamsError, renames: Renames) -> InvalidParamsError:
    """The same error with its field paths in v0.3 terms."""
    if not error.violations:
        return error
    violations = [
        FieldViolation(_rename(v.field, renames), v.description) for v in error.violations
    ]
    message = error.message
    first = error.violations[0].field
    if message.startswith(f"{first}: "):
        message = violations[0].field + message[len(first) :]
    return type(error)(message, metadata=error.metadata, violations=violations)
