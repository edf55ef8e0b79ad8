"""Convert between the A2A v0.3 HTTP+JSON dialect and v1.0 ProtoJSON (spec reference §6.2).

v0.3 HTTP+JSON is not the v0.3 JSON-RPC dialect of :mod:`a2a_app.protocol.v03`: it is the
ProtoJSON of the v0.3 proto (``specification/grpc/a2a.proto`` at A2A tag v0.3.0, package
``a2a.v1``), as a2a-sdk 0.3.x serves it. Its differences from v1.0:

* ``TASK_STATE_CANCELLED`` (double L); ``Message.content`` instead of ``parts``;
* parts ``{"text"}``, ``{"file": {"fileWithUri"|"fileWithBytes", "mimeType", "name"}}`` and
  ``{"data": {"data": {…}}}`` (a Struct: non-objects travel as ``{"value": x}`` with the
  :data:`~a2a_app.protocol.v03.DATA_WRAP_FLAG` metadata flag); ``Part.metadata`` and
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

import base64
import binascii
import re
from typing import Any

from a2a_app.protocol.errors import FieldViolation, InvalidParamsError
from a2a_app.protocol.v03 import DATA_WRAP_FLAG

JSON = dict[str, Any]

_STATES_TO_V03 = {"TASK_STATE_CANCELED": "TASK_STATE_CANCELLED"}
#: v0.3 state names (in proto enum number order: ProtoJSON also accepts the numbers) → v1.0.
_STATES_FROM_V03 = {
    name: name.replace("CANCELLED", "CANCELED")
    for name in (
        "TASK_STATE_UNSPECIFIED",
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELLED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_AUTH_REQUIRED",
    )
}
_ROLES = ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT")
_CONFIG_NAME = re.compile(r"tasks/([^/]+)/pushNotificationConfigs/([^/]+)")
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


# --- readers -----------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _get(obj: JSON, name: str, *aliases: str) -> tuple[Any, str]:
    """A field by its ProtoJSON name, its snake_case proto name or an alias; with the key
    the client used (``name`` when absent)."""
    for key in (name, _CAMEL.sub("_", name).lower(), *aliases):
        if obj.get(key) is not None:
            return obj[key], key
    return None, name


def _object(value: Any, path: str) -> JSON:
    if not isinstance(value, dict):
        raise InvalidParamsError.for_field(path or "body", "must be a JSON object")
    return value


def _str(obj: JSON, name: str, path: str, *, required: bool = False) -> str | None:
    value, key = _get(obj, name)
    if value is None or value == "":
        if required:
            raise InvalidParamsError.for_field(_join(path, key), "is required")
        return None
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(_join(path, key), "must be a string")
    return value


def _bool(obj: JSON, name: str, path: str) -> bool | None:
    value, key = _get(obj, name)
    if value is not None and not isinstance(value, bool):
        raise InvalidParamsError.for_field(_join(path, key), "must be true or false")
    return value


def _int(obj: JSON, name: str, path: str) -> int | None:
    """An int32: a JSON number or a decimal string (ProtoJSON accepts both)."""
    value, key = _get(obj, name)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        value = int(value)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidParamsError.for_field(_join(path, key), "must be an integer")
    return value


def _opt_object(obj: JSON, name: str, path: str) -> JSON | None:
    value, key = _get(obj, name)
    return None if value is None else _object(value, _join(path, key))


def _str_list(obj: JSON, name: str, path: str) -> list[str] | None:
    value, key = _get(obj, name)
    if value is not None and (
        not isinstance(value, list) or not all(isinstance(v, str) for v in value)
    ):
        raise InvalidParamsError.for_field(_join(path, key), "must be a list of strings")
    return value or None


def _list(obj: JSON, name: str, path: str, *, required: bool = False) -> tuple[list, str]:
    value, key = _get(obj, name)
    if value is None:
        if required:
            raise InvalidParamsError.for_field(_join(path, key), "is required")
        return [], key
    if not isinstance(value, list):
        raise InvalidParamsError.for_field(_join(path, key), "must be a list")
    return value, key


def _enum(value: Any, names: tuple[str, ...] | dict, path: str, what: str) -> str:
    ordered = tuple(names)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ordered):
        return ordered[value]
    if isinstance(value, str) and value in ordered:
        return value
    raise InvalidParamsError.for_field(path, f"unknown {what} {value!r}")


def _check_base64(value: Any, path: str) -> str:
    """ProtoJSON ``bytes``: standard or URL-safe base64, padded or not."""
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(path, "must be a base64 string")
    text = value.strip().replace("-", "+").replace("_", "/")
    try:
        base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidParamsError.for_field(path, "is not valid base64") from None
    return value


def _set(out: JSON, name: str, value: Any) -> None:
    if value is not None and value != "":
        out[name] = value


def _copy(src: JSON, dst: JSON, *names: str) -> None:
    for name in names:
        _set(dst, name, src.get(name))


# --- states and roles --------------------------------------------------------------------


def state_to_v03(state: str) -> str:
    return _STATES_TO_V03.get(state, state)


def state_from_v03(value: Any, path: str = "status.state") -> str:
    return _STATES_FROM_V03[_enum(value, _STATES_FROM_V03, path, "task state")]


def role_from_v03(value: Any, path: str = "message.role") -> str:
    role = _enum(value, _ROLES, path, "role")
    if role == "ROLE_UNSPECIFIED":
        raise InvalidParamsError.for_field(path, "must be ROLE_USER or ROLE_AGENT")
    return role


# --- parts -------------------------------------------------------------------------------


def part_from_v03(obj: Any, path: str = "part") -> JSON:
    obj = _object(obj, path)
    present = [k for k in ("text", "file", "data") if obj.get(k) is not None]
    if len(present) != 1:
        raise InvalidParamsError.for_field(path, "exactly one of text, file or data must be set")
    kind = present[0]
    metadata = _opt_object(obj, "metadata", path)
    out: JSON = {}
    if kind == "text":
        if not isinstance(obj["text"], str):
            raise InvalidParamsError.for_field(_join(path, "text"), "must be a string")
        out["text"] = obj["text"]
    elif kind == "file":
        file_path = _join(path, "file")
        file = _object(obj["file"], file_path)
        uri, uri_key = _get(file, "fileWithUri")
        raw, raw_key = _get(file, "fileWithBytes")
        if (uri is None) == (raw is None):
            raise InvalidParamsError.for_field(
                file_path, "exactly one of fileWithUri or fileWithBytes must be set"
            )
        if raw is not None:
            out["raw"] = _check_base64(raw, _join(file_path, raw_key))
        else:
            if not isinstance(uri, str) or not uri:
                raise InvalidParamsError.for_field(
                    _join(file_path, uri_key), "must be a non-empty string"
                )
            out["url"] = uri
        _set(out, "filename", _str(file, "name", file_path))
        _set(out, "mediaType", _str(file, "mimeType", file_path))
    else:
        data_path = _join(path, "data")
        data = _opt_object(_object(obj["data"], data_path), "data", data_path) or {}
        if metadata is not None and metadata.get(DATA_WRAP_FLAG) is True:
            if "value" not in data:
                raise InvalidParamsError.for_field(_join(data_path, "data.value"), "is required")
            data = data["value"]
            metadata = {k: v for k, v in metadata.items() if k != DATA_WRAP_FLAG}
        out["data"] = data
        out["mediaType"] = "application/json"
    _set(out, "metadata", metadata or None)
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
        _set(file, "mimeType", part.get("mediaType"))
        _set(file, "name", part.get("filename"))
        out = {"file": file}
    elif "data" in part:
        data = part["data"]
        if not isinstance(data, dict):
            data = {"value": data}
            metadata = {**(metadata or {}), DATA_WRAP_FLAG: True}
        out = {"data": {"data": data}}
    else:
        raise ValueError("a v1.0 part must have text, raw, url or data")
    _set(out, "metadata", metadata or None)
    return out


def _parts_from(obj: JSON, name: str, path: str) -> list[JSON]:
    items, key = _list(obj, name, path, required=True)
    base = _join(path, key)
    if not items:
        raise InvalidParamsError.for_field(base, "at least one part is required")
    return [part_from_v03(p, f"{base}[{i}]") for i, p in enumerate(items)]


# --- messages, artifacts, status, tasks ------------------------------------------------------


def message_from_v03(obj: Any, path: str = "message") -> JSON:
    obj = _object(obj, path)
    role, role_key = _get(obj, "role")
    out: JSON = {
        "messageId": _str(obj, "messageId", path, required=True),
        "role": role_from_v03(role, _join(path, role_key)),
        "parts": _parts_from(obj, "content", path),
    }
    _set(out, "contextId", _str(obj, "contextId", path))
    _set(out, "taskId", _str(obj, "taskId", path))
    _set(out, "metadata", _opt_object(obj, "metadata", path))
    _set(out, "extensions", _str_list(obj, "extensions", path))
    return out


def message_to_v03(message: JSON) -> JSON:
    out: JSON = {"messageId": message["messageId"]}
    _copy(message, out, "contextId", "taskId")
    out["role"] = message["role"]
    out["content"] = [part_to_v03(p) for p in message.get("parts", [])]
    _copy(message, out, "metadata", "extensions")
    return out


def artifact_from_v03(obj: Any, path: str = "artifact") -> JSON:
    obj = _object(obj, path)
    out: JSON = {"artifactId": _str(obj, "artifactId", path, required=True)}
    _set(out, "name", _str(obj, "name", path))
    _set(out, "description", _str(obj, "description", path))
    out["parts"] = _parts_from(obj, "parts", path)
    _set(out, "metadata", _opt_object(obj, "metadata", path))
    _set(out, "extensions", _str_list(obj, "extensions", path))
    return out


def artifact_to_v03(artifact: JSON) -> JSON:
    out: JSON = {"artifactId": artifact["artifactId"]}
    _copy(artifact, out, "name", "description")
    out["parts"] = [part_to_v03(p) for p in artifact.get("parts", [])]
    _copy(artifact, out, "metadata", "extensions")
    return out


def status_from_v03(obj: Any, path: str = "status") -> JSON:
    obj = _object(obj, path)
    state, state_key = _get(obj, "state")
    out: JSON = {"state": state_from_v03(state or 0, _join(path, state_key))}
    message, message_key = _get(obj, "message", "update")
    if message is not None:
        out["message"] = message_from_v03(message, _join(path, message_key))
    _set(out, "timestamp", _str(obj, "timestamp", path))
    return out


def status_to_v03(status: JSON) -> JSON:
    out: JSON = {"state": state_to_v03(status.get("state", "TASK_STATE_UNSPECIFIED"))}
    if status.get("message") is not None:
        out["message"] = message_to_v03(status["message"])
    _copy(status, out, "timestamp")
    return out


def task_from_v03(obj: Any, path: str = "task") -> JSON:
    obj = _object(obj, path)
    out: JSON = {"id": _str(obj, "id", path, required=True)}
    _set(out, "contextId", _str(obj, "contextId", path))
    status, status_key = _get(obj, "status")
    out["status"] = status_from_v03(status if status is not None else {}, _join(path, status_key))
    for name, convert in (("artifacts", artifact_from_v03), ("history", message_from_v03)):
        items, key = _list(obj, name, path)
        if items:
            out[name] = [convert(item, f"{_join(path, key)}[{i}]") for i, item in enumerate(items)]
    _set(out, "metadata", _opt_object(obj, "metadata", path))
    return out


def task_to_v03(task: JSON) -> JSON:
    out: JSON = {"id": task["id"]}
    _copy(task, out, "contextId")
    out["status"] = status_to_v03(task.get("status", {}))
    if task.get("artifacts"):
        out["artifacts"] = [artifact_to_v03(a) for a in task["artifacts"]]
    if task.get("history"):
        out["history"] = [message_to_v03(m) for m in task["history"]]
    _copy(task, out, "metadata")
    return out


# --- responses -----------------------------------------------------------------------------


def send_response_to_v03(result: JSON) -> JSON:
    """v1.0 SendMessageResponse → v0.3 ``{"task"}`` or ``{"message"}`` (json_name of msg)."""
    if "task" in result:
        return {"task": task_to_v03(result["task"])}
    return {"message": message_to_v03(result["message"])}


def send_response_from_v03(obj: Any, path: str = "") -> JSON:
    obj = _object(obj, path)
    task, task_key = _get(obj, "task")
    message, message_key = _get(obj, "message", "msg")
    if (task is None) == (message is None):
        raise InvalidParamsError.for_field(path or "body", "exactly one of task or message")
    if task is not None:
        return {"task": task_from_v03(task, _join(path, task_key))}
    return {"message": message_from_v03(message, _join(path, message_key))}


def stream_response_to_v03(response: JSON, *, final: bool) -> JSON:
    """A v1.0 StreamResponse as the v0.3 one; ``final`` marks the last status update."""
    if "task" in response:
        return {"task": task_to_v03(response["task"])}
    if "message" in response:
        return {"message": message_to_v03(response["message"])}
    if "statusUpdate" in response:
        event = response["statusUpdate"]
        out: JSON = {}
        _copy(event, out, "taskId", "contextId")
        out["status"] = status_to_v03(event.get("status", {}))
        out["final"] = final
        _copy(event, out, "metadata")
        return {"statusUpdate": out}
    if "artifactUpdate" in response:
        event = response["artifactUpdate"]
        out = {}
        _copy(event, out, "taskId", "contextId")
        out["artifact"] = artifact_to_v03(event["artifact"])
        _copy(event, out, "append", "lastChunk", "metadata")
        return {"artifactUpdate": out}
    raise ValueError(
        "a v1.0 StreamResponse must be a task, message, statusUpdate or artifactUpdate"
    )


def stream_response_from_v03(obj: Any, path: str = "") -> JSON:
    """The v1.0 StreamResponse for a v0.3 one (``final`` is dropped: v1.0 closes the stream)."""
    obj = _object(obj, path)
    found = {
        kind: _get(obj, *names)
        for kind, names in (
            ("task", ("task",)),
            ("message", ("message", "msg")),
            ("statusUpdate", ("statusUpdate",)),
            ("artifactUpdate", ("artifactUpdate",)),
        )
    }
    present = [(kind, value, key) for kind, (value, key) in found.items() if value is not None]
    if len(present) != 1:
        raise InvalidParamsError.for_field(
            path or "body", "exactly one of task, message, statusUpdate or artifactUpdate"
        )
    [(kind, value, key)] = present
    event_path = _join(path, key)
    if kind == "task":
        return {"task": task_from_v03(value, event_path)}
    if kind == "message":
        return {"message": message_from_v03(value, event_path)}
    value = _object(value, event_path)
    event: JSON = {}
    _set(event, "taskId", _str(value, "taskId", event_path))
    _set(event, "contextId", _str(value, "contextId", event_path))
    if kind == "statusUpdate":
        _bool(value, "final", event_path)
        status, status_key = _get(value, "status")
        event["status"] = status_from_v03(status or {}, _join(event_path, status_key))
    else:
        artifact, artifact_key = _get(value, "artifact")
        if artifact is None:
            raise InvalidParamsError.for_field(_join(event_path, artifact_key), "is required")
        event["artifact"] = artifact_from_v03(artifact, _join(event_path, artifact_key))
        _set(event, "append", _bool(value, "append", event_path) or None)
        _set(event, "lastChunk", _bool(value, "lastChunk", event_path) or None)
    _set(event, "metadata", _opt_object(value, "metadata", event_path))
    return {kind: event}


# --- push notification configs -------------------------------------------------------------


def _push_inner_from_v03(obj: Any, path: str) -> JSON:
    """A v0.3 PushNotificationConfig → the flat v1.0 fields (no ``taskId``)."""
    obj = _object(obj, path)
    out: JSON = {}
    _set(out, "id", _str(obj, "id", path))
    out["url"] = _str(obj, "url", path, required=True)
    _set(out, "token", _str(obj, "token", path))
    auth = _opt_object(obj, "authentication", path)
    if auth is not None:
        auth_path = _join(path, _get(obj, "authentication")[1])
        schemes = _str_list(auth, "schemes", auth_path)
        if not schemes:
            raise InvalidParamsError.for_field(
                _join(auth_path, "schemes"), "at least one scheme is required"
            )
        out["authentication"] = {"scheme": schemes[0]}
        _set(out["authentication"], "credentials", _str(auth, "credentials", auth_path))
    return out


def _push_inner_to_v03(config: JSON) -> JSON:
    out: JSON = {}
    _copy(config, out, "id", "url", "token")
    auth = config.get("authentication")
    if auth is not None:
        out["authentication"] = {"schemes": [auth["scheme"]] if auth.get("scheme") else []}
        _copy(auth, out["authentication"], "credentials")
    return out


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
        "pushNotificationConfig": _push_inner_to_v03(config),
    }


def push_config_from_v03(obj: Any, path: str = "", task_id: str = "") -> JSON:
    """A v0.3 TaskPushNotificationConfig → the flat v1.0 config.

    ``task_id`` (the request path's) wins over the task of ``name``; without it, ``name``
    is required. The config id is ``pushNotificationConfig.id``, else that of ``name``.
    """
    obj = _object(obj, path)
    name = _str(obj, "name", path, required=not task_id)
    name_task = name_config = ""
    if name is not None:
        name_task, name_config = parse_config_name(name, _join(path, _get(obj, "name")[1]))
    inner, inner_key = _get(obj, "pushNotificationConfig")
    if inner is None:
        raise InvalidParamsError.for_field(_join(path, inner_key), "is required")
    out = {"taskId": task_id or name_task, **_push_inner_from_v03(inner, _join(path, inner_key))}
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
    body = _object(body, "")
    config, config_key = _get(body, "config")
    if config is not None:
        out = push_config_from_v03(config, config_key, task_id)
        config_id = _str(body, "configId", "")
        if config_id and "id" not in out:
            out["id"] = config_id
        inner_key = _get(_object(config, config_key), "pushNotificationConfig")[1]
        return out, _join(config_key, inner_key)
    inner, inner_key = _get(body, "pushNotificationConfig")
    if inner is not None:
        return push_config_from_v03(body, "", task_id), inner_key
    return {"taskId": task_id, **_push_inner_from_v03(body, "")}, ""


def push_list_to_v03(result: JSON) -> JSON:
    """v1.0 ListTaskPushNotificationConfigsResponse → the v0.3 response (``configs``)."""
    out: JSON = {"configs": [push_config_to_v03(c) for c in result.get("configs", [])]}
    _copy(result, out, "nextPageToken")
    return out


# --- requests --------------------------------------------------------------------------------


def send_request_from_v03(body: Any) -> JSON:
    """v0.3 SendMessageRequest → v1.0 SendMessageRequest params.

    ``blocking`` absent stays absent (the server's default: wait), as over v0.3 JSON-RPC;
    ``blocking: false`` asks to return at once.
    """
    body = _object(body, "")
    message, message_key = _get(body, "message", "request")
    if message is None:
        raise InvalidParamsError.for_field("message", "is required")
    out: JSON = {"message": message_from_v03(message, message_key)}
    config, config_key = _get(body, "configuration")
    if config is not None:
        config = _object(config, config_key)
        converted: JSON = {}
        _set(converted, "acceptedOutputModes", _str_list(config, "acceptedOutputModes", config_key))
        history = _int(config, "historyLength", config_key)
        if history is not None and history < 0:
            field = _join(config_key, _get(config, "historyLength")[1])
            raise InvalidParamsError.for_field(field, "must be at least 0")
        _set(converted, "historyLength", history)
        blocking = _bool(config, "blocking", config_key)
        if blocking is not None:
            converted["returnImmediately"] = not blocking
        push, push_key = _get(config, "pushNotification")
        if push is not None:
            converted["taskPushNotificationConfig"] = _push_inner_from_v03(
                push, _join(config_key, push_key)
            )
        out["configuration"] = converted
    _set(out, "metadata", _opt_object(body, "metadata", ""))
    return out


def send_request_to_v03(params: JSON) -> JSON:
    """v1.0 SendMessageRequest params → v0.3 SendMessageRequest (``message``: its json_name)."""
    out: JSON = {"message": message_to_v03(params["message"])}
    config = params.get("configuration")
    if config is not None:
        converted: JSON = {}
        _copy(config, converted, "acceptedOutputModes")
        if config.get("taskPushNotificationConfig") is not None:
            converted["pushNotification"] = _push_inner_to_v03(config["taskPushNotificationConfig"])
        _copy(config, converted, "historyLength")
        if config.get("returnImmediately") is not None:
            converted["blocking"] = not config["returnImmediately"]
        out["configuration"] = converted
    _copy(params, out, "metadata")
    return out


def query_from_v03(query: dict[str, str], *names: str) -> JSON:
    """Query parameters (camelCase or snake_case) → v1.0 request fields, by camelCase name."""
    out: JSON = {}
    for name in names:
        value, _key = _get(query, name)
        _set(out, name, value)
    return out


# --- errors the v1.0 parser names in v1.0 terms -------------------------------------------------

Renames = tuple[tuple[str, str], ...]


def send_fields(body: JSON) -> Renames:
    """(v1.0 field path prefix, v0.3 prefix) pairs, for errors the v1.0 parser or the service
    raise after :func:`send_request_from_v03` (a webhook URL's SSRF check, the role)."""
    message_key = _get(body, "message", "request")[1]
    config, config_key = _get(body, "configuration")
    push_key = _get(config, "pushNotification")[1] if isinstance(config, dict) else ""
    push = _join(config_key, push_key or "pushNotification")
    return (
        (
            "configuration.taskPushNotificationConfig.authentication.scheme",
            f"{push}.authentication.schemes",
        ),
        ("configuration.taskPushNotificationConfig", push),
        ("configuration.returnImmediately", f"{config_key}.blocking"),
        ("configuration", config_key),
        ("message.parts", f"{message_key}.content"),
        ("message", message_key),
    )


def push_fields(prefix: str) -> Renames:
    """The same for a push config whose PushNotificationConfig is at ``prefix`` in the body."""
    return (
        ("authentication.scheme", _join(prefix, "authentication.schemes")),
        ("", prefix),
    )


def _rename(field: str, renames: Renames) -> str:
    for old, new in renames:
        if not old:
            return _join(new, field)
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
