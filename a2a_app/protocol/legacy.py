"""The pre-0.3 ``tasks/send`` of older guides (A2A v0.1/v0.2), mapped onto v1.0.

Copy-pasted examples from the web still work: ``sessionId`` is the context, parts carry
``type`` instead of ``kind``, messages have no ``messageId``, and the task id was chosen
by the client. Built on the v0.3 converters, which share most of the shapes.
"""

from __future__ import annotations

import uuid
from typing import Any

from a2a_app.protocol.v03.jsonrpc import (
    part_to_v03,
    parts_from_v03,
    push_config_from_v03,
    role_from_v03,
    role_to_v03,
    state_to_v03,
)
from a2a_app.protocol.wire import JSON
from a2a_app.protocol.wire import PLAIN_JSON as FIELDS


def legacy_send_params(params: Any) -> tuple[JSON, str]:
    """Old-guide ``tasks/send`` params → (SendMessageRequest params, caller-given task id).

    Those messages have no ``messageId`` (one is generated) and call the context
    ``sessionId``. Whether the task id names an existing task is the service's call.
    """
    params = FIELDS.require_object(params, "")
    task_id = FIELDS.read_str(params, "id", "") or ""
    context_id = FIELDS.read_str(params, "sessionId", "")
    message = FIELDS.require_object(params.get("message"), "message")
    converted: JSON = {
        "messageId": FIELDS.read_str(message, "messageId", "message") or str(uuid.uuid4()),
        "role": role_from_v03(message.get("role"), "message.role"),
        "parts": parts_from_v03(message, "message", "type"),
    }
    FIELDS.put(converted, "contextId", context_id or None)
    FIELDS.put(converted, "metadata", FIELDS.read_object(message, "metadata", "message"))
    out: JSON = {"message": converted}
    config: JSON = {}
    FIELDS.put(
        config, "acceptedOutputModes", FIELDS.read_str_list(params, "acceptedOutputModes", "")
    )
    FIELDS.put(config, "historyLength", FIELDS.read_int(params, "historyLength", ""))
    if params.get("pushNotification") is not None:
        config["taskPushNotificationConfig"] = push_config_from_v03(
            params["pushNotification"], "pushNotification"
        )
    if config:
        out["configuration"] = config
    FIELDS.put(out, "metadata", FIELDS.read_object(params, "metadata", ""))
    return out, task_id


def _legacy_message(message: JSON) -> JSON:
    out: JSON = {
        "role": role_to_v03(message["role"]),
        "parts": [part_to_v03(p, "type") for p in message.get("parts", [])],
    }
    FIELDS.copy(message, out, "metadata")
    return out


def legacy_task_to_wire(task: JSON) -> JSON:
    """A v1.0 Task in the pre-0.3 shape: ``sessionId``, ``type`` parts, indexed artifacts."""
    status = task.get("status", {})
    legacy_status: JSON = {"state": state_to_v03(status.get("state", "TASK_STATE_UNSPECIFIED"))}
    if status.get("message") is not None:
        legacy_status["message"] = _legacy_message(status["message"])
    FIELDS.copy(status, legacy_status, "timestamp")
    out: JSON = {"id": task["id"]}
    FIELDS.put(out, "sessionId", task.get("contextId"))
    out["status"] = legacy_status
    if task.get("artifacts") is not None:
        out["artifacts"] = []
        for index, artifact in enumerate(task["artifacts"]):
            legacy: JSON = {}
            FIELDS.copy(artifact, legacy, "name", "description")
            legacy["parts"] = [part_to_v03(p, "type") for p in artifact.get("parts", [])]
            legacy["index"] = index
            FIELDS.copy(artifact, legacy, "metadata")
            out["artifacts"].append(legacy)
    if task.get("history") is not None:
        out["history"] = [_legacy_message(m) for m in task["history"]]
    FIELDS.copy(task, out, "metadata")
    return out
