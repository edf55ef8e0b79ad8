"""Convert between the A2A v0.3 JSON-RPC dialect and v1.0 ProtoJSON (spec reference §6).

The service speaks only v1.0; these functions let it serve v0.3 clients (the pre-0.3
``tasks/send`` of old guides is in :mod:`.legacy`). All take and return plain JSON dicts.
``*_to_v03`` read v1.0 dicts our own code produced and trust them; every ``*_from_v03``
validates and raises :class:`InvalidParamsError` naming the failing field by its path.
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

import base64
import binascii
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError

JSON = dict[str, Any]

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
_STATES_FROM_V03 = {v: k for k, v in _STATES.items()}
_ROLES = {"ROLE_USER": "user", "ROLE_AGENT": "agent"}
_ROLES_FROM_V03 = {v: k for k, v in _ROLES.items()}

# v0.3 data parts hold only objects: other values travel as {"value": x} with this
# metadata flag (the key the reference SDK uses, so its clients unwrap them too).
DATA_WRAP_FLAG = "data_part_compat"
_PARAMS = "params"


# --- readers ---------------------------------------------------------------------------


def _join(path: str, name: str) -> str:
    return name if path in ("", _PARAMS) else f"{path}.{name}"


def _object(value: Any, path: str) -> JSON:
    if not isinstance(value, dict):
        raise InvalidParamsError.for_field(path or _PARAMS, "must be a JSON object")
    return value


def _str(obj: JSON, name: str, path: str, *, required: bool = False) -> str | None:
    value = obj.get(name)
    if value is None or (required and value == ""):
        if required:
            raise InvalidParamsError.for_field(_join(path, name), "is required")
        return None
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(_join(path, name), "must be a string")
    return value


def _bool(obj: JSON, name: str, path: str) -> bool | None:
    value = obj.get(name)
    if value is not None and not isinstance(value, bool):
        raise InvalidParamsError.for_field(_join(path, name), "must be true or false")
    return value


def _int(obj: JSON, name: str, path: str) -> int | None:
    value = obj.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidParamsError.for_field(_join(path, name), "must be an integer")
    return value


def _opt_object(obj: JSON, name: str, path: str) -> JSON | None:
    value = obj.get(name)
    return None if value is None else _object(value, _join(path, name))


def _str_list(obj: JSON, name: str, path: str) -> list[str] | None:
    value = obj.get(name)
    if value is not None and (
        not isinstance(value, list) or not all(isinstance(v, str) for v in value)
    ):
        raise InvalidParamsError.for_field(_join(path, name), "must be a list of strings")
    return value


def _list(obj: JSON, name: str, path: str, *, required: bool = False) -> list[Any] | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise InvalidParamsError.for_field(_join(path, name), "is required")
        return None
    if not isinstance(value, list):
        raise InvalidParamsError.for_field(_join(path, name), "must be a list")
    return value


def _base64(value: str, path: str) -> None:
    """Accept what the v1.0 parser accepts: standard or URL-safe, padded or not."""
    text = value.strip().replace("-", "+").replace("_", "/")
    try:
        base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidParamsError.for_field(path, "is not valid base64") from None


def _set(out: JSON, name: str, value: Any) -> None:
    if value is not None:
        out[name] = value


def _copy(src: JSON, dst: JSON, *names: str) -> None:
    for name in names:
        if src.get(name) is not None:
            dst[name] = src[name]


def _kind(obj: JSON, expected: str, path: str) -> None:
    """``kind`` may be omitted, but when given it must name the expected object."""
    if obj.get("kind", expected) != expected:
        raise InvalidParamsError.for_field(_join(path, "kind"), f"must be {expected!r}")


# --- states and roles ----------------------------------------------------------------


def state_to_v03(state: str) -> str:
    try:
        return _STATES[state]
    except KeyError:
        raise ValueError(f"unknown v1.0 task state {state!r}") from None


def state_from_v03(value: Any, path: str = "status.state") -> str:
    if isinstance(value, str) and value in _STATES_FROM_V03:
        return _STATES_FROM_V03[value]
    raise InvalidParamsError.for_field(path, f"unknown task state {value!r}")


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


def _part_from(obj: Any, path: str, kind_key: str) -> JSON:
    obj = _object(obj, path)
    kind = obj.get(kind_key)
    metadata = _opt_object(obj, "metadata", path)
    out: JSON = {}
    if kind == "text":
        text = obj.get("text")
        if not isinstance(text, str):
            raise InvalidParamsError.for_field(_join(path, "text"), "must be a string")
        out["text"] = text
    elif kind == "file":
        file = _object(obj.get("file"), _join(path, "file"))
        file_path = _join(path, "file")
        if ("bytes" in file) == ("uri" in file):
            raise InvalidParamsError.for_field(file_path, "exactly one of bytes or uri is required")
        if "bytes" in file:
            raw = file["bytes"]
            if not isinstance(raw, str):
                raise InvalidParamsError.for_field(_join(file_path, "bytes"), "must be a string")
            _base64(raw, _join(file_path, "bytes"))
            out["raw"] = raw
        else:
            out["url"] = _str(file, "uri", file_path, required=True)
        _set(out, "filename", _str(file, "name", file_path))
        _set(out, "mediaType", _str(file, "mimeType", file_path))
    elif kind == "data":
        data = _object(obj.get("data"), _join(path, "data"))
        if metadata is not None and metadata.get(DATA_WRAP_FLAG) is True:
            if "value" not in data:
                raise InvalidParamsError.for_field(_join(path, "data.value"), "is required")
            data = data["value"]
            metadata = {k: v for k, v in metadata.items() if k != DATA_WRAP_FLAG} or None
        out["data"] = data
        out["mediaType"] = "application/json"
    else:
        raise InvalidParamsError.for_field(_join(path, kind_key), "must be text, file or data")
    _set(out, "metadata", metadata)
    return out


def _part_to(part: JSON, kind_key: str) -> JSON:
    metadata = part.get("metadata")
    if "text" in part:
        out: JSON = {kind_key: "text", "text": part["text"]}
    elif "raw" in part or "url" in part:
        file: JSON = {"bytes": part["raw"]} if "raw" in part else {"uri": part["url"]}
        _set(file, "name", part.get("filename"))
        _set(file, "mimeType", part.get("mediaType"))
        out = {kind_key: "file", "file": file}
    elif "data" in part:
        data = part["data"]
        if not isinstance(data, dict):
            data = {"value": data}
            metadata = {**(metadata or {}), DATA_WRAP_FLAG: True}
        out = {kind_key: "data", "data": data}
    else:
        raise ValueError("a v1.0 part must have text, raw, url or data")
    _set(out, "metadata", metadata)
    return out


def part_from_v03(obj: Any, path: str = "part") -> JSON:
    return _part_from(obj, path, "kind")


def part_to_v03(part: JSON) -> JSON:
    return _part_to(part, "kind")


def _parts_from(obj: JSON, path: str, kind_key: str = "kind") -> list[JSON]:
    parts = _list(obj, "parts", path, required=True)
    base = _join(path, "parts")
    return [_part_from(p, f"{base}[{i}]", kind_key) for i, p in enumerate(parts)]


# --- messages, artifacts, status, tasks --------------------------------------------------

_MESSAGE_OPTIONAL = ("contextId", "taskId", "metadata", "extensions", "referenceTaskIds")


def message_from_v03(obj: Any, path: str = "message") -> JSON:
    obj = _object(obj, path)
    _kind(obj, "message", path)
    out: JSON = {
        "messageId": _str(obj, "messageId", path, required=True),
        "role": role_from_v03(obj.get("role"), _join(path, "role")),
        "parts": _parts_from(obj, path),
    }
    _set(out, "contextId", _str(obj, "contextId", path))
    _set(out, "taskId", _str(obj, "taskId", path))
    _set(out, "metadata", _opt_object(obj, "metadata", path))
    _set(out, "extensions", _str_list(obj, "extensions", path))
    _set(out, "referenceTaskIds", _str_list(obj, "referenceTaskIds", path))
    return out


def message_to_v03(message: JSON) -> JSON:
    out: JSON = {
        "kind": "message",
        "messageId": message["messageId"],
        "role": role_to_v03(message["role"]),
        "parts": [part_to_v03(p) for p in message.get("parts", [])],
    }
    _copy(message, out, *_MESSAGE_OPTIONAL)
    return out


def artifact_from_v03(obj: Any, path: str = "artifact") -> JSON:
    obj = _object(obj, path)
    out: JSON = {"artifactId": _str(obj, "artifactId", path, required=True)}
    _set(out, "name", _str(obj, "name", path))
    _set(out, "description", _str(obj, "description", path))
    out["parts"] = _parts_from(obj, path)
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
    out: JSON = {"state": state_from_v03(obj.get("state"), _join(path, "state"))}
    if obj.get("message") is not None:
        out["message"] = message_from_v03(obj["message"], _join(path, "message"))
    _set(out, "timestamp", _str(obj, "timestamp", path))
    return out


def status_to_v03(status: JSON) -> JSON:
    out: JSON = {"state": state_to_v03(status.get("state", "TASK_STATE_UNSPECIFIED"))}
    if status.get("message") is not None:
        out["message"] = message_to_v03(status["message"])
    _copy(status, out, "timestamp")
    return out


def _ids_from(obj: JSON, path: str, out: JSON, *names: str) -> None:
    """v0.3 requires these ids while v1.0 may leave them unset: "" means absent."""
    for name in names:
        value = _str(obj, name, path)
        if value:
            out[name] = value


def task_from_v03(obj: Any, path: str = "task") -> JSON:
    obj = _object(obj, path)
    _kind(obj, "task", path)
    out: JSON = {"id": _str(obj, "id", path, required=True)}
    _ids_from(obj, path, out, "contextId")
    if obj.get("status") is None:
        raise InvalidParamsError.for_field(_join(path, "status"), "is required")
    out["status"] = status_from_v03(obj["status"], _join(path, "status"))
    for name, convert in (("artifacts", artifact_from_v03), ("history", message_from_v03)):
        items = _list(obj, name, path)
        if items is not None:
            base = _join(path, name)
            out[name] = [convert(item, f"{base}[{i}]") for i, item in enumerate(items)]
    _set(out, "metadata", _opt_object(obj, "metadata", path))
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
    _copy(task, out, "metadata")
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
        _copy(event, out, "metadata")
        return out
    if "artifactUpdate" in response:
        event = response["artifactUpdate"]
        out = {
            "kind": "artifact-update",
            "taskId": event.get("taskId", ""),
            "contextId": event.get("contextId", ""),
            "artifact": artifact_to_v03(event["artifact"]),
        }
        _copy(event, out, "append", "lastChunk", "metadata")
        return out
    raise ValueError(
        "a v1.0 StreamResponse must have task, message, statusUpdate or artifactUpdate"
    )


def stream_response_from_v03(obj: Any, path: str = "result") -> JSON:
    """The v1.0 StreamResponse for a bare v0.3 event. ``final`` is dropped: v1.0 ends the
    stream by closing it."""
    obj = _object(obj, path)
    kind = obj.get("kind")
    if kind == "task":
        return {"task": task_from_v03(obj, path)}
    if kind == "message":
        return {"message": message_from_v03(obj, path)}
    if kind not in ("status-update", "artifact-update"):
        raise InvalidParamsError.for_field(
            _join(path, "kind"), "must be task, message, status-update or artifact-update"
        )
    event: JSON = {}
    _ids_from(obj, path, event, "taskId", "contextId")
    if kind == "status-update":
        _bool(obj, "final", path)
        if obj.get("status") is None:
            raise InvalidParamsError.for_field(_join(path, "status"), "is required")
        event["status"] = status_from_v03(obj["status"], _join(path, "status"))
        _set(event, "metadata", _opt_object(obj, "metadata", path))
        return {"statusUpdate": event}
    if obj.get("artifact") is None:
        raise InvalidParamsError.for_field(_join(path, "artifact"), "is required")
    event["artifact"] = artifact_from_v03(obj["artifact"], _join(path, "artifact"))
    _set(event, "append", _bool(obj, "append", path))
    _set(event, "lastChunk", _bool(obj, "lastChunk", path))
    _set(event, "metadata", _opt_object(obj, "metadata", path))
    return {"artifactUpdate": event}


# --- push notification configs --------------------------------------------------------


def _push_inner_to_v03(config: JSON) -> JSON:
    out: JSON = {}
    _copy(config, out, "id", "url", "token")
    auth = config.get("authentication")
    if auth is not None:
        out["authentication"] = {"schemes": [auth["scheme"]] if auth.get("scheme") else []}
        _copy(auth, out["authentication"], "credentials")
    return out


def push_config_to_v03(config: JSON) -> JSON:
    """A flat v1.0 TaskPushNotificationConfig as the v0.3 wrapper (``tenant`` is dropped)."""
    return {
        "taskId": config.get("taskId", ""),
        "pushNotificationConfig": _push_inner_to_v03(config),
    }


def push_config_from_v03(obj: Any, path: str = _PARAMS, task_id: str = "") -> JSON:
    """The flat v1.0 config for a v0.3 TaskPushNotificationConfig wrapper, or for a bare
    PushNotificationConfig whose task is ``task_id`` ("" inside send configurations).

    v1.0 has one authentication scheme: of several v0.3 ``schemes`` the first is kept.
    """
    obj = _object(obj, path)
    out: JSON = {}
    if "pushNotificationConfig" in obj:
        task_id = _str(obj, "taskId", path, required=not task_id) or task_id
        path = _join(path, "pushNotificationConfig")
        obj = _object(obj["pushNotificationConfig"], path)
    if task_id:
        out["taskId"] = task_id
    _set(out, "id", _str(obj, "id", path))
    out["url"] = _str(obj, "url", path, required=True)
    _set(out, "token", _str(obj, "token", path))
    auth = _opt_object(obj, "authentication", path)
    if auth is not None:
        auth_path = _join(path, "authentication")
        schemes = _str_list(auth, "schemes", auth_path)
        if not schemes:
            raise InvalidParamsError.for_field(
                _join(auth_path, "schemes"), "at least one scheme is required"
            )
        out["authentication"] = {"scheme": schemes[0]}
        _set(out["authentication"], "credentials", _str(auth, "credentials", auth_path))
    return out


# --- request params ------------------------------------------------------------------


def send_params_from_v03(params: Any) -> JSON:
    """MessageSendParams → SendMessageRequest. Absent ``blocking`` stays absent: both
    generations block by default."""
    params = _object(params, _PARAMS)
    if params.get("message") is None:
        raise InvalidParamsError.for_field("message", "is required")
    out: JSON = {"message": message_from_v03(params["message"], "message")}
    config = _opt_object(params, "configuration", _PARAMS)
    if config is not None:
        path = "configuration"
        converted: JSON = {}
        _set(converted, "acceptedOutputModes", _str_list(config, "acceptedOutputModes", path))
        _set(converted, "historyLength", _int(config, "historyLength", path))
        blocking = _bool(config, "blocking", path)
        if blocking is not None:
            converted["returnImmediately"] = not blocking
        push = config.get("pushNotificationConfig")
        if push is not None:
            converted["taskPushNotificationConfig"] = push_config_from_v03(
                push, _join(path, "pushNotificationConfig")
            )
        out["configuration"] = converted
    _set(out, "metadata", _opt_object(params, "metadata", _PARAMS))
    return out


def send_params_to_v03(params: JSON) -> JSON:
    out: JSON = {"message": message_to_v03(params["message"])}
    config = params.get("configuration")
    if config is not None:
        converted: JSON = {}
        _copy(config, converted, "acceptedOutputModes", "historyLength")
        if config.get("returnImmediately") is not None:
            converted["blocking"] = not config["returnImmediately"]
        if config.get("taskPushNotificationConfig") is not None:
            push = _push_inner_to_v03(config["taskPushNotificationConfig"])
            converted["pushNotificationConfig"] = push
        out["configuration"] = converted
    _copy(params, out, "metadata")
    return out


def _task_id_params(params: Any) -> tuple[JSON, str]:
    params = _object(params, _PARAMS)
    _opt_object(params, "metadata", _PARAMS)
    return params, _str(params, "id", _PARAMS, required=True)


def task_query_from_v03(params: Any) -> JSON:
    """TaskQueryParams → GetTask params."""
    params, task_id = _task_id_params(params)
    out: JSON = {"id": task_id}
    _set(out, "historyLength", _int(params, "historyLength", _PARAMS))
    return out


def task_id_params_from_v03(params: Any) -> JSON:
    """TaskIdParams → CancelTask / SubscribeToTask params."""
    params, task_id = _task_id_params(params)
    out: JSON = {"id": task_id}
    _copy(params, out, "metadata")
    return out


def push_get_params_from_v03(params: Any) -> JSON:
    """``{id: taskId, pushNotificationConfigId?}`` → ``{taskId, id?}``. v0.3 lets the config
    id be omitted (one config per task); then ``id`` is absent and the caller decides."""
    params, task_id = _task_id_params(params)
    out: JSON = {"taskId": task_id}
    _set(out, "id", _str(params, "pushNotificationConfigId", _PARAMS))
    return out


def push_list_params_from_v03(params: Any) -> JSON:
    return {"taskId": _task_id_params(params)[1]}


def push_delete_params_from_v03(params: Any) -> JSON:
    params, task_id = _task_id_params(params)
    return {
        "taskId": task_id,
        "id": _str(params, "pushNotificationConfigId", _PARAMS, required=True),
    }


# --- agent card --------------------------------------------------------------------------


def card_v03_fields(v1_card: JSON, *, jsonrpc_url: str, extra_interfaces: list[JSON]) -> JSON:
    """The v0.3 top-level card fields to merge into the v1.0 card (spec reference §6.3).

    ``extra_interfaces`` are v1.0 AgentInterfaces (``protocolBinding``) or v0.3 ones
    (``transport``). ``securitySchemes`` are left in their v1.0 form.
    """
    out: JSON = {
        "protocolVersion": "0.3.0",
        "url": jsonrpc_url,
        "preferredTransport": "JSONRPC",
    }
    if extra_interfaces:
        out["additionalInterfaces"] = [
            {"url": i["url"], "transport": i.get("transport") or i["protocolBinding"]}
            for i in extra_interfaces
        ]
    capabilities = v1_card.get("capabilities") or {}
    out["supportsAuthenticatedExtendedCard"] = bool(capabilities.get("extendedAgentCard"))
    requirements = v1_card.get("securityRequirements")
    if requirements is not None:
        out["security"] = [
            {name: list(scopes.get("list", [])) for name, scopes in r.get("schemes", {}).items()}
            for r in requirements
        ]
    return out
