"""What the two v0.3 dialects (JSON-RPC and HTTP+JSON) write and read alike.

Both carry non-object data parts the same way, the same PushNotificationConfig, the same
SendMessageConfiguration and the same Artifact and TaskStatus fields around their own
parts, states and messages. Each function takes the dialect's
:class:`~a2a_app.protocol.wire.Dialect` (how it finds fields and leaves them out) and,
where the shapes differ, its converters (:class:`Shapes` holds them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.wire import JSON, Dialect, join

# v0.3 data parts hold only objects: other values travel as {"value": x} with this
# metadata flag (the key the reference SDK uses, so its clients unwrap them too).
DATA_WRAP_FLAG = "data_part_compat"

#: Reads a nested object of a request: ``(the object, its path) -> v1.0 fields``.
Reader = Callable[[Any, str], JSON]


# --- data parts --------------------------------------------------------------------------------


def wrap_data(data: Any, metadata: JSON | None) -> tuple[JSON, JSON | None]:
    """A v1.0 data part's content and metadata as v0.3 data, which must be an object."""
    if isinstance(data, dict):
        return data, metadata
    return {"value": data}, {**(metadata or {}), DATA_WRAP_FLAG: True}


def unwrap_data(data: JSON, metadata: JSON | None, path: str) -> tuple[Any, JSON | None]:
    """The v1.0 content and metadata of v0.3 data at ``path``: a flagged wrapper is undone."""
    if metadata is None or metadata.get(DATA_WRAP_FLAG) is not True:
        return data, metadata
    if "value" not in data:
        raise InvalidParamsError.for_field(join(path, "value"), "is required")
    return data["value"], {k: v for k, v in metadata.items() if k != DATA_WRAP_FLAG} or None


# --- push notification configs -----------------------------------------------------------------


def push_inner_from_v03(fields: Dialect, obj: Any, path: str) -> JSON:
    """A v0.3 PushNotificationConfig → the flat v1.0 fields (no ``taskId``).

    v1.0 has one authentication scheme: of several v0.3 ``schemes`` the first is kept.
    """
    obj = fields.require_object(obj, path)
    out: JSON = {}
    fields.put(out, "id", fields.read_str(obj, "id", path))
    out["url"] = fields.read_str(obj, "url", path, required=True)
    fields.put(out, "token", fields.read_str(obj, "token", path))
    auth = fields.read_object(obj, "authentication", path)
    if auth is not None:
        auth_path = fields.field(obj, "authentication", path)[1]
        schemes = fields.read_str_list(auth, "schemes", auth_path)
        if not schemes:
            raise InvalidParamsError.for_field(
                join(auth_path, "schemes"), "at least one scheme is required"
            )
        out["authentication"] = {"scheme": schemes[0]}
        credentials = fields.read_str(auth, "credentials", auth_path)
        fields.put(out["authentication"], "credentials", credentials)
    return out


def push_inner_to_v03(fields: Dialect, config: JSON) -> JSON:
    """A flat v1.0 push config's fields as a v0.3 PushNotificationConfig."""
    out: JSON = {}
    fields.copy(config, out, "id", "url", "token")
    auth = config.get("authentication")
    if auth is not None:
        out["authentication"] = {"schemes": [auth["scheme"]] if auth.get("scheme") else []}
        fields.copy(auth, out["authentication"], "credentials")
    return out


# --- requests and objects ----------------------------------------------------------------------


def configuration_from_v03(
    fields: Dialect,
    config: JSON,
    path: str,
    *,
    push_field: str,
    read_push: Reader,
    history_minimum: int | None = None,
) -> JSON:
    """A v0.3 SendMessageConfiguration → v1.0; its push config is ``push_field``, read by
    ``read_push``. Absent ``blocking`` stays absent: both generations block by default.

    ``history_minimum`` is for a dialect whose paths the v1.0 parser cannot give: its range
    error must name the field as the client spelled it.
    """
    out: JSON = {}
    modes = fields.read_str_list(config, "acceptedOutputModes", path)
    fields.put(out, "acceptedOutputModes", modes)
    history = fields.read_int(config, "historyLength", path, minimum=history_minimum)
    fields.put(out, "historyLength", history)
    blocking = fields.read_bool(config, "blocking", path)
    if blocking is not None:
        out["returnImmediately"] = not blocking
    push, push_path = fields.field(config, push_field, path)
    if push is not None:
        out["taskPushNotificationConfig"] = read_push(push, push_path)
    return out


@dataclass(frozen=True, slots=True)
class Shapes:
    """One v0.3 dialect's own pieces: how it finds fields, reads roles and a message's
    parts, writes parts, state names and messages. The methods read and write, around those
    pieces, the Message, Artifact and TaskStatus fields both dialects have alike."""

    fields: Dialect
    role_from_v03: Callable[[Any, str], str]
    parts_from_v03: Callable[[JSON, str], list[JSON]]
    part_to_v03: Callable[[JSON], JSON]
    state_to_v03: Callable[[str], str]
    message_to_v03: Callable[[JSON], JSON]

    def message_from_v03(self, obj: JSON, path: str) -> JSON:
        """The fields of a v0.3 Message (an object already) that both dialects have."""
        fields = self.fields
        role, role_path = fields.field(obj, "role", path)
        out: JSON = {
            "messageId": fields.read_str(obj, "messageId", path, required=True),
            "role": self.role_from_v03(role, role_path),
            "parts": self.parts_from_v03(obj, path),
        }
        fields.put(out, "contextId", fields.read_str(obj, "contextId", path))
        fields.put(out, "taskId", fields.read_str(obj, "taskId", path))
        fields.put(out, "metadata", fields.read_object(obj, "metadata", path))
        fields.put(out, "extensions", fields.read_str_list(obj, "extensions", path))
        return out

    def artifact_to_v03(self, artifact: JSON) -> JSON:
        out: JSON = {"artifactId": artifact["artifactId"]}
        self.fields.copy(artifact, out, "name", "description")
        out["parts"] = [self.part_to_v03(p) for p in artifact.get("parts", [])]
        self.fields.copy(artifact, out, "metadata", "extensions")
        return out

    def status_to_v03(self, status: JSON) -> JSON:
        state = status.get("state", "TASK_STATE_UNSPECIFIED")
        out: JSON = {"state": self.state_to_v03(state)}
        if status.get("message") is not None:
            out["message"] = self.message_to_v03(status["message"])
        self.fields.copy(status, out, "timestamp")
        return out
