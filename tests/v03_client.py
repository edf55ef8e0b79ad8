"""The client direction of v0.3 JSON-RPC, for tests: v0.3 results and events → v1.0, and
v1.0 requests → v0.3.

The server only reads v0.3 requests and writes v0.3 results (:mod:`a2a_app.protocol.v03.jsonrpc`);
these inverses let the tests round-trip its conversions and build v0.3 fixtures from v1.0
ones. They validate like the server's readers, so a round trip also checks that what the
server wrote is well-formed v0.3.
"""

from __future__ import annotations

from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.types import TaskState
from a2a_app.protocol.v03.common import push_inner_to_v03
from a2a_app.protocol.v03.jsonrpc import (
    check_kind,
    message_from_v03,
    message_to_v03,
    parts_from_v03,
    state_to_v03,
)
from a2a_app.protocol.wire import JSON, join
from a2a_app.protocol.wire import PLAIN_JSON as FIELDS

_STATES_FROM_V03 = {state_to_v03(state.value): state.value for state in TaskState}


def state_from_v03(value: Any, path: str = "status.state") -> str:
    if isinstance(value, str) and value in _STATES_FROM_V03:
        return _STATES_FROM_V03[value]
    raise InvalidParamsError.for_field(path, f"unknown task state {value!r}")


def status_from_v03(obj: Any, path: str = "status") -> JSON:
    obj = FIELDS.require_object(obj, path)
    out: JSON = {"state": state_from_v03(obj.get("state"), join(path, "state"))}
    if obj.get("message") is not None:
        out["message"] = message_from_v03(obj["message"], join(path, "message"))
    FIELDS.put(out, "timestamp", FIELDS.read_str(obj, "timestamp", path))
    return out


def artifact_from_v03(obj: Any, path: str = "artifact") -> JSON:
    obj = FIELDS.require_object(obj, path)
    out: JSON = {"artifactId": FIELDS.read_str(obj, "artifactId", path, required=True)}
    FIELDS.put(out, "name", FIELDS.read_str(obj, "name", path))
    FIELDS.put(out, "description", FIELDS.read_str(obj, "description", path))
    out["parts"] = parts_from_v03(obj, path)
    FIELDS.put(out, "metadata", FIELDS.read_object(obj, "metadata", path))
    FIELDS.put(out, "extensions", FIELDS.read_str_list(obj, "extensions", path))
    return out


def _ids_from(obj: JSON, path: str, out: JSON, *names: str) -> None:
    """v0.3 requires these ids while v1.0 may leave them unset: "" means absent."""
    for name in names:
        value = FIELDS.read_str(obj, name, path)
        if value:
            out[name] = value


def task_from_v03(obj: Any, path: str = "task") -> JSON:
    obj = FIELDS.require_object(obj, path)
    check_kind(obj, "task", path)
    out: JSON = {"id": FIELDS.read_str(obj, "id", path, required=True)}
    _ids_from(obj, path, out, "contextId")
    if obj.get("status") is None:
        raise InvalidParamsError.for_field(join(path, "status"), "is required")
    out["status"] = status_from_v03(obj["status"], join(path, "status"))
    for name, convert in (("artifacts", artifact_from_v03), ("history", message_from_v03)):
        items = FIELDS.read_list(obj, name, path)
        if items is not None:
            base = join(path, name)
            out[name] = [convert(item, f"{base}[{i}]") for i, item in enumerate(items)]
    FIELDS.put(out, "metadata", FIELDS.read_object(obj, "metadata", path))
    return out


def stream_response_from_v03(obj: Any, path: str = "result") -> JSON:
    """The v1.0 StreamResponse for a bare v0.3 event. ``final`` is dropped: v1.0 ends the
    stream by closing it."""
    obj = FIELDS.require_object(obj, path)
    kind = obj.get("kind")
    if kind == "task":
        return {"task": task_from_v03(obj, path)}
    if kind == "message":
        return {"message": message_from_v03(obj, path)}
    if kind not in ("status-update", "artifact-update"):
        raise InvalidParamsError.for_field(
            join(path, "kind"), "must be task, message, status-update or artifact-update"
        )
    event: JSON = {}
    _ids_from(obj, path, event, "taskId", "contextId")
    if kind == "status-update":
        FIELDS.read_bool(obj, "final", path)
        if obj.get("status") is None:
            raise InvalidParamsError.for_field(join(path, "status"), "is required")
        event["status"] = status_from_v03(obj["status"], join(path, "status"))
        FIELDS.put(event, "metadata", FIELDS.read_object(obj, "metadata", path))
        return {"statusUpdate": event}
    if obj.get("artifact") is None:
        raise InvalidParamsError.for_field(join(path, "artifact"), "is required")
    event["artifact"] = artifact_from_v03(obj["artifact"], join(path, "artifact"))
    FIELDS.put(event, "append", FIELDS.read_bool(obj, "append", path))
    FIELDS.put(event, "lastChunk", FIELDS.read_bool(obj, "lastChunk", path))
    FIELDS.put(event, "metadata", FIELDS.read_object(obj, "metadata", path))
    return {"artifactUpdate": event}


def send_params_to_v03(params: JSON) -> JSON:
    """SendMessageRequest params → MessageSendParams, as a v0.3 client sends them."""
    out: JSON = {"message": message_to_v03(params["message"])}
    config = params.get("configuration")
    if config is not None:
        converted: JSON = {}
        FIELDS.copy(config, converted, "acceptedOutputModes", "historyLength")
        if config.get("returnImmediately") is not None:
            converted["blocking"] = not config["returnImmediately"]
        if config.get("taskPushNotificationConfig") is not None:
            push = push_inner_to_v03(FIELDS, config["taskPushNotificationConfig"])
            converted["pushNotificationConfig"] = push
        out["configuration"] = converted
    FIELDS.copy(params, out, "metadata")
    return out
