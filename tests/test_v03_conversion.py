"""v0.3 JSON-RPC ⇄ v1.0 ProtoJSON conversion (spec reference §6.2), without Django.

Round trips go both ways for every object kind (the client direction from
:mod:`tests.v03_client`), and every v1.0 dict the converters produce is fed to our v1.0
parser to prove the service would accept it.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest

from a2a_app.protocol import legacy
from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.params import (
    GetTaskRequest,
    ListPushConfigsRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    SendMessageRequest,
    TaskIdRequest,
)
from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState, parse_task_state
from a2a_app.protocol.v03 import jsonrpc as v03_jsonrpc
from a2a_app.protocol.v03.card import card_v03_fields
from a2a_app.protocol.wire import parse_timestamp
from tests import v03_client as client

STATES = [
    ("TASK_STATE_SUBMITTED", "submitted"),
    ("TASK_STATE_WORKING", "working"),
    ("TASK_STATE_COMPLETED", "completed"),
    ("TASK_STATE_FAILED", "failed"),
    ("TASK_STATE_CANCELED", "canceled"),
    ("TASK_STATE_INPUT_REQUIRED", "input-required"),
    ("TASK_STATE_REJECTED", "rejected"),
    ("TASK_STATE_AUTH_REQUIRED", "auth-required"),
    ("TASK_STATE_UNSPECIFIED", "unknown"),
]

# --- v0.3 samples ---------------------------------------------------------------------------

TEXT_V03 = {"kind": "text", "text": "Table for two?", "metadata": {"lang": "en"}}
FILE_BYTES_V03 = {
    "kind": "file",
    "file": {"bytes": "aGVsbG8=", "name": "menu.txt", "mimeType": "text/plain"},
}
FILE_URI_V03 = {
    "kind": "file",
    "file": {
        "uri": "https://example.com/menu.pdf",
        "name": "menu.pdf",
        "mimeType": "application/pdf",
    },
    "metadata": {"source": "web"},
}
DATA_V03 = {"kind": "data", "data": {"guests": 2, "time": "19:00"}}
PARTS_V03 = [TEXT_V03, FILE_BYTES_V03, FILE_URI_V03, DATA_V03]


def message_v03(**overrides: Any) -> dict[str, Any]:
    message = {
        "kind": "message",
        "messageId": "m-1",
        "role": "user",
        "parts": copy.deepcopy(PARTS_V03),
        "contextId": "ctx-1",
        "taskId": "task-1",
        "metadata": {"https://example.com/ext": {"x": 1}},
        "extensions": ["https://example.com/ext"],
        "referenceTaskIds": ["task-0"],
    }
    message.update(overrides)
    return message


AGENT_MESSAGE_V03 = {
    "kind": "message",
    "messageId": "m-2",
    "role": "agent",
    "parts": [{"kind": "text", "text": "For how many people?"}],
    "contextId": "ctx-1",
    "taskId": "task-1",
}

ARTIFACT_V03 = {
    "artifactId": "a-1",
    "name": "booking",
    "description": "The confirmed booking",
    "parts": [DATA_V03, TEXT_V03],
    "metadata": {"k": "v"},
    "extensions": ["https://example.com/ext"],
}

TASK_V03 = {
    "kind": "task",
    "id": "task-1",
    "contextId": "ctx-1",
    "status": {
        "state": "input-required",
        "message": AGENT_MESSAGE_V03,
        "timestamp": "2025-10-28T10:30:00.000Z",
    },
    "artifacts": [ARTIFACT_V03],
    "history": [message_v03(), AGENT_MESSAGE_V03],
    "metadata": {"source": "test"},
}

# --- v1.0 samples ---------------------------------------------------------------------------

PARTS_V1 = [
    {"text": "hello", "metadata": {"a": 1}},
    {"raw": "aGVsbG8=", "filename": "h.txt", "mediaType": "text/plain"},
    {"url": "https://example.com/x.png", "mediaType": "image/png"},
    {"data": {"k": "v"}, "mediaType": "application/json"},
    {"data": [1, 2, 3], "mediaType": "application/json"},
    {"data": "just a string", "mediaType": "application/json", "metadata": {"m": True}},
    {"data": 42, "mediaType": "application/json"},
    {"data": None, "mediaType": "application/json"},
    {"data": False, "mediaType": "application/json"},
]

MESSAGE_V1 = {
    "messageId": "m-1",
    "role": "ROLE_AGENT",
    "contextId": "ctx-1",
    "taskId": "task-1",
    "parts": PARTS_V1,
    "metadata": {"k": "v"},
    "extensions": ["https://example.com/ext"],
    "referenceTaskIds": ["task-0"],
}

TASK_V1 = {
    "id": "task-1",
    "contextId": "ctx-1",
    "status": {
        "state": "TASK_STATE_COMPLETED",
        "message": {"messageId": "m-3", "role": "ROLE_AGENT", "parts": [{"text": "Booked."}]},
        "timestamp": "2025-10-28T10:30:00.000Z",
    },
    "artifacts": [
        {
            "artifactId": "a-1",
            "name": "booking",
            "parts": [{"data": {"table": 4}, "mediaType": "application/json"}],
        },
        {
            "artifactId": "a-2",
            "parts": [{"data": ["not", "an", "object"], "mediaType": "application/json"}],
        },
    ],
    "history": [
        {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "Book"}], "taskId": "task-1"},
        MESSAGE_V1,
    ],
    "metadata": {"k": "v"},
}


def field_of(excinfo: pytest.ExceptionInfo[InvalidParamsError]) -> str:
    return excinfo.value.violations[0].field


def check_v1_task(task: dict[str, Any]) -> None:
    """types.py has no Task parser: check its pieces with the parsers that exist."""
    assert task["id"]
    parse_task_state(task["status"]["state"], "status.state")
    if "timestamp" in task["status"]:
        parse_timestamp(task["status"]["timestamp"], "status.timestamp")
    if "message" in task["status"]:
        Message.from_wire(task["status"]["message"], "status.message")
    for i, artifact in enumerate(task.get("artifacts", [])):
        Artifact.from_wire(artifact, f"artifacts[{i}]")
    for i, message in enumerate(task.get("history", [])):
        Message.from_wire(message, f"history[{i}]")


# --- states and roles -------------------------------------------------------------------------


@pytest.mark.parametrize(("v1", "old"), STATES)
def test_every_state_maps_both_ways(v1: str, old: str) -> None:
    assert v03_jsonrpc.state_to_v03(v1) == old
    assert client.state_from_v03(old) == v1
    assert TaskState(v1)  # the names are the parser's


def test_every_task_state_has_a_v03_name() -> None:
    assert {state.value for state in TaskState} == {v1 for v1, _ in STATES}


@pytest.mark.parametrize(("v1", "old"), [("ROLE_USER", "user"), ("ROLE_AGENT", "agent")])
def test_every_role_maps_both_ways(v1: str, old: str) -> None:
    assert v03_jsonrpc.role_to_v03(v1) == old
    assert v03_jsonrpc.role_from_v03(old) == v1
    assert Role(v1)


@pytest.mark.parametrize("value", ["ROLE_USER", "User", "system", None, 1])
def test_unknown_v03_role_is_rejected(value: Any) -> None:
    with pytest.raises(InvalidParamsError) as excinfo:
        v03_jsonrpc.role_from_v03(value)
    assert field_of(excinfo) == "message.role"


def test_unknown_v1_values_are_programming_errors() -> None:
    with pytest.raises(ValueError):
        v03_jsonrpc.state_to_v03("TASK_STATE_DONE")
    with pytest.raises(ValueError):
        v03_jsonrpc.role_to_v03("ROLE_UNSPECIFIED")


# --- parts ----------------------------------------------------------------------------------


def test_spec_examples_of_parts_convert_exactly() -> None:
    assert v03_jsonrpc.part_from_v03({"kind": "text", "text": "Hello"}) == {"text": "Hello"}
    assert v03_jsonrpc.part_from_v03(
        {"kind": "file", "file": {"bytes": "iVBORw==", "name": "a.png", "mimeType": "image/png"}}
    ) == {"raw": "iVBORw==", "filename": "a.png", "mediaType": "image/png"}
    assert v03_jsonrpc.part_from_v03(
        {"kind": "file", "file": {"uri": "https://x/doc.pdf", "mimeType": "application/pdf"}}
    ) == {"url": "https://x/doc.pdf", "mediaType": "application/pdf"}
    assert v03_jsonrpc.part_from_v03(
        {"kind": "data", "data": {"k": "v"}, "metadata": {"m": 1}}
    ) == {
        "data": {"k": "v"},
        "mediaType": "application/json",
        "metadata": {"m": 1},
    }


def test_non_object_data_is_wrapped_with_a_flag() -> None:
    assert v03_jsonrpc.part_to_v03({"data": [1, 2]}) == {
        "kind": "data",
        "data": {"value": [1, 2]},
        "metadata": {"data_part_compat": True},
    }
    assert v03_jsonrpc.part_to_v03({"data": None, "metadata": {"m": 1}}) == {
        "kind": "data",
        "data": {"value": None},
        "metadata": {"m": 1, "data_part_compat": True},
    }


@pytest.mark.parametrize("part", PARTS_V03, ids=["text", "file-bytes", "file-uri", "data"])
def test_part_round_trip_from_v03(part: dict[str, Any]) -> None:
    v1 = v03_jsonrpc.part_from_v03(part, "part")
    Part.from_wire(v1, "part")
    assert v03_jsonrpc.part_to_v03(v1) == part


@pytest.mark.parametrize(
    "part", PARTS_V1, ids=lambda p: next(iter(p)) + "-" + type(p[next(iter(p))]).__name__
)
def test_part_round_trip_from_v1(part: dict[str, Any]) -> None:
    down = v03_jsonrpc.part_to_v03(part)
    assert isinstance(down.get("data", {}), dict)
    assert v03_jsonrpc.part_from_v03(down) == part


def test_conversion_does_not_mutate_its_input() -> None:
    part = {"kind": "data", "data": {"value": 1}, "metadata": {"data_part_compat": True, "m": 1}}
    before = copy.deepcopy(part)
    assert v03_jsonrpc.part_from_v03(part) == {
        "data": 1,
        "mediaType": "application/json",
        "metadata": {"m": 1},
    }
    assert part == before


# --- messages, artifacts, tasks -------------------------------------------------------------------


def test_spec_example_message_converts_exactly() -> None:
    old = {
        "kind": "message",
        "messageId": "9229e770-767c-417b-a0b0-f0741243c589",
        "role": "user",
        "parts": [{"kind": "text", "text": "tell me a joke"}],
    }
    assert v03_jsonrpc.message_from_v03(old) == {
        "messageId": "9229e770-767c-417b-a0b0-f0741243c589",
        "role": "ROLE_USER",
        "parts": [{"text": "tell me a joke"}],
    }


def test_message_with_all_fields_round_trips_from_v03() -> None:
    old = message_v03()
    v1 = v03_jsonrpc.message_from_v03(old)
    parsed = Message.from_wire(v1)
    assert parsed.reference_task_ids == ["task-0"]
    assert parsed.extensions == ["https://example.com/ext"]
    assert [p.kind for p in parsed.parts] == ["text", "raw", "url", "data"]
    assert v03_jsonrpc.message_to_v03(v1) == old


def test_message_without_kind_is_accepted() -> None:
    old = message_v03()
    del old["kind"]
    assert v03_jsonrpc.message_to_v03(v03_jsonrpc.message_from_v03(old)) == message_v03()


def test_message_with_all_fields_round_trips_from_v1() -> None:
    down = v03_jsonrpc.message_to_v03(MESSAGE_V1)
    assert down["kind"] == "message" and down["role"] == "agent"
    assert v03_jsonrpc.message_from_v03(down) == MESSAGE_V1


def test_artifact_round_trips() -> None:
    v1 = client.artifact_from_v03(ARTIFACT_V03)
    Artifact.from_wire(v1)
    assert v03_jsonrpc.artifact_to_v03(v1) == ARTIFACT_V03
    for artifact in TASK_V1["artifacts"]:
        assert client.artifact_from_v03(v03_jsonrpc.artifact_to_v03(artifact)) == artifact


@pytest.mark.parametrize(("v1_state", "old_state"), STATES)
def test_status_round_trips_in_every_state(v1_state: str, old_state: str) -> None:
    old = {"state": old_state, "timestamp": "2025-10-28T10:30:00Z"}
    v1 = client.status_from_v03(old)
    assert v1 == {"state": v1_state, "timestamp": "2025-10-28T10:30:00Z"}
    assert v03_jsonrpc.status_to_v03(v1) == old


def test_task_round_trips_from_v03() -> None:
    v1 = client.task_from_v03(TASK_V03)
    check_v1_task(v1)
    assert "kind" not in v1 and v1["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert v03_jsonrpc.task_to_v03(v1) == TASK_V03


def test_task_round_trips_from_v1() -> None:
    down = v03_jsonrpc.task_to_v03(TASK_V1)
    assert down["kind"] == "task" and down["status"]["state"] == "completed"
    assert down["artifacts"][1]["parts"][0]["data"] == {"value": ["not", "an", "object"]}
    up = client.task_from_v03(down)
    check_v1_task(up)
    assert up == TASK_V1


def test_task_without_context_id_gets_the_v03_required_field() -> None:
    task = {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}
    down = v03_jsonrpc.task_to_v03(task)
    assert down == {"kind": "task", "id": "t", "contextId": "", "status": {"state": "submitted"}}
    assert client.task_from_v03(down) == task


# --- stream responses ---------------------------------------------------------------------------

STATUS_UPDATE_V1 = {
    "statusUpdate": {
        "taskId": "task-1",
        "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_WORKING", "timestamp": "2025-10-28T10:30:00.000Z"},
        "metadata": {"k": "v"},
    }
}
ARTIFACT_UPDATE_V1 = {
    "artifactUpdate": {
        "taskId": "task-1",
        "contextId": "ctx-1",
        "artifact": {"artifactId": "a-1", "parts": [{"text": "chunk"}]},
        "append": True,
        "lastChunk": False,
        "metadata": {"k": "v"},
    }
}
STREAM_RESPONSES_V1 = [
    {"task": TASK_V1},
    {"message": MESSAGE_V1},
    STATUS_UPDATE_V1,
    ARTIFACT_UPDATE_V1,
]


@pytest.mark.parametrize("final", [True, False])
@pytest.mark.parametrize(
    "response", STREAM_RESPONSES_V1, ids=["task", "message", "statusUpdate", "artifactUpdate"]
)
def test_stream_response_round_trips_from_v1(response: dict[str, Any], final: bool) -> None:
    down = v03_jsonrpc.stream_response_to_v03(response, final=final)
    assert down["kind"] in ("task", "message", "status-update", "artifact-update")
    assert ("final" in down) == ("statusUpdate" in response)
    assert client.stream_response_from_v03(down) == response


@pytest.mark.parametrize("final", [True, False])
def test_status_update_converts_exactly(final: bool) -> None:
    assert v03_jsonrpc.stream_response_to_v03(STATUS_UPDATE_V1, final=final) == {
        "kind": "status-update",
        "taskId": "task-1",
        "contextId": "ctx-1",
        "status": {"state": "working", "timestamp": "2025-10-28T10:30:00.000Z"},
        "final": final,
        "metadata": {"k": "v"},
    }


def test_artifact_update_converts_exactly() -> None:
    assert v03_jsonrpc.stream_response_to_v03(ARTIFACT_UPDATE_V1, final=True) == {
        "kind": "artifact-update",
        "taskId": "task-1",
        "contextId": "ctx-1",
        "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": "chunk"}]},
        "append": True,
        "lastChunk": False,
        "metadata": {"k": "v"},
    }


@pytest.mark.parametrize("final", [True, False])
@pytest.mark.parametrize(
    "event",
    [
        TASK_V03,
        AGENT_MESSAGE_V03,
        {"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "failed"}},
        {
            "kind": "artifact-update",
            "taskId": "t",
            "contextId": "c",
            "artifact": ARTIFACT_V03,
            "lastChunk": True,
        },
    ],
    ids=["task", "message", "status-update", "artifact-update"],
)
def test_stream_response_round_trips_from_v03(event: dict[str, Any], final: bool) -> None:
    v1 = client.stream_response_from_v03(event)
    assert len(v1) == 1
    expected = {**event, "final": final} if event["kind"] == "status-update" else event
    assert v03_jsonrpc.stream_response_to_v03(v1, final=final) == expected


# --- push notification configs --------------------------------------------------------------------

PUSH_V03_AUTH = {
    "taskId": "task-1",
    "pushNotificationConfig": {
        "id": "cfg-1",
        "url": "https://client.example.com/hook",
        "token": "tok",
        "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
    },
}
PUSH_V03_PLAIN = {
    "taskId": "task-1",
    "pushNotificationConfig": {"url": "https://client.example.com/hook"},
}


@pytest.mark.parametrize("config", [PUSH_V03_AUTH, PUSH_V03_PLAIN], ids=["auth", "no-auth"])
def test_push_config_round_trips_from_v03(config: dict[str, Any]) -> None:
    v1 = v03_jsonrpc.push_config_from_v03(config)
    parsed = PushNotificationConfig.from_wire(v1, "")
    assert parsed.task_id == "task-1"
    assert v03_jsonrpc.push_config_to_v03(v1) == config


def test_push_config_converts_exactly() -> None:
    v1 = v03_jsonrpc.push_config_from_v03(PUSH_V03_AUTH)
    assert v1 == {
        "taskId": "task-1",
        "id": "cfg-1",
        "url": "https://client.example.com/hook",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "secret"},
    }
    parsed = PushNotificationConfig.from_wire(v1, "")
    assert (parsed.auth_scheme, parsed.credentials) == ("Bearer", "secret")


@pytest.mark.parametrize(
    "config",
    [
        {"taskId": "t", "id": "c", "url": "https://h/x", "authentication": {"scheme": "Basic"}},
        {"taskId": "t", "id": "c", "url": "https://h/x", "token": "tok"},
    ],
    ids=["auth", "no-auth"],
)
def test_push_config_round_trips_from_v1(config: dict[str, Any]) -> None:
    assert v03_jsonrpc.push_config_from_v03(v03_jsonrpc.push_config_to_v03(config)) == config


def test_push_config_keeps_the_first_of_several_schemes() -> None:
    config = copy.deepcopy(PUSH_V03_AUTH)
    config["pushNotificationConfig"]["authentication"]["schemes"] = ["Basic", "Bearer"]
    assert v03_jsonrpc.push_config_from_v03(config)["authentication"]["scheme"] == "Basic"


def test_bare_push_config_takes_the_task_id_argument() -> None:
    bare = {"url": "https://h/x", "id": "c"}
    assert v03_jsonrpc.push_config_from_v03(bare, task_id="t") == {
        "taskId": "t",
        "id": "c",
        "url": "https://h/x",
    }
    assert v03_jsonrpc.push_config_from_v03(bare) == {"id": "c", "url": "https://h/x"}


def test_push_config_tenant_is_dropped() -> None:
    down = v03_jsonrpc.push_config_to_v03(
        {"tenant": "x", "taskId": "t", "id": "c", "url": "https://h/"}
    )
    assert down == {"taskId": "t", "pushNotificationConfig": {"id": "c", "url": "https://h/"}}


# --- send params --------------------------------------------------------------------------------


def send_params_v03(blocking: bool | None) -> dict[str, Any]:
    config: dict[str, Any] = {
        "acceptedOutputModes": ["text/plain"],
        "historyLength": 3,
        "pushNotificationConfig": {
            "url": "https://client.example.com/hook",
            "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
        },
    }
    if blocking is not None:
        config["blocking"] = blocking
    return {
        "message": message_v03(taskId=None, referenceTaskIds=None),
        "configuration": config,
        "metadata": {"trace": "1"},
    }


@pytest.mark.parametrize(
    ("blocking", "return_immediately"), [(True, False), (False, True), (None, False)]
)
def test_send_params_round_trip_from_v03(blocking: bool | None, return_immediately: bool) -> None:
    old = send_params_v03(blocking)
    v1 = v03_jsonrpc.send_params_from_v03(old)
    request = SendMessageRequest.from_wire(v1)
    assert request.configuration.return_immediately is return_immediately
    assert request.configuration.history_length == 3
    assert request.configuration.accepted_output_modes == ["text/plain"]
    push = request.configuration.push_notification_config
    assert push is not None and (push.auth_scheme, push.credentials) == ("Bearer", "secret")
    assert request.metadata == {"trace": "1"}
    assert ("returnImmediately" in v1["configuration"]) == (blocking is not None)
    expected = copy.deepcopy(old)
    for absent in ("taskId", "referenceTaskIds"):
        del expected["message"][absent]
    assert client.send_params_to_v03(v1) == expected


def test_send_params_convert_exactly() -> None:
    old = {
        "message": {
            "kind": "message",
            "messageId": "m-1",
            "role": "user",
            "parts": [{"kind": "text", "text": "hi"}],
        },
        "configuration": {"blocking": False, "acceptedOutputModes": ["text/plain"]},
    }
    assert v03_jsonrpc.send_params_from_v03(old) == {
        "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
        "configuration": {"acceptedOutputModes": ["text/plain"], "returnImmediately": True},
    }


@pytest.mark.parametrize("return_immediately", [True, False, None])
def test_send_params_round_trip_from_v1(return_immediately: bool | None) -> None:
    config: dict[str, Any] = {
        "acceptedOutputModes": ["application/json"],
        "historyLength": 0,
        "taskPushNotificationConfig": {
            "url": "https://h/x",
            "authentication": {"scheme": "Bearer"},
        },
    }
    if return_immediately is not None:
        config["returnImmediately"] = return_immediately
    v1 = {
        "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": [1]}]},
        "configuration": config,
        "metadata": {"k": "v"},
    }
    down = client.send_params_to_v03(v1)
    assert down["configuration"].get("blocking") == (
        None if return_immediately is None else not return_immediately
    )
    v1["message"]["parts"][0]["mediaType"] = "application/json"  # v0.3 data is JSON
    assert v03_jsonrpc.send_params_from_v03(down) == v1


def test_send_params_without_configuration() -> None:
    old = {"message": message_v03(role="user", taskId=None)}
    v1 = v03_jsonrpc.send_params_from_v03(old)
    assert "configuration" not in v1
    assert SendMessageRequest.from_wire(v1).configuration.return_immediately is False


# --- other request params ------------------------------------------------------------------------


def test_task_query_params() -> None:
    v1 = v03_jsonrpc.task_query_from_v03({"id": "t", "historyLength": 2, "metadata": {"k": "v"}})
    assert v1 == {"id": "t", "historyLength": 2}
    assert GetTaskRequest.from_wire(v1).history_length == 2
    assert v03_jsonrpc.task_query_from_v03({"id": "t"}) == {"id": "t"}


def test_task_id_params() -> None:
    v1 = v03_jsonrpc.task_id_params_from_v03({"id": "t", "metadata": {"k": "v"}})
    assert v1 == {"id": "t", "metadata": {"k": "v"}}
    assert TaskIdRequest.from_wire(v1).metadata == {"k": "v"}
    assert v03_jsonrpc.task_id_params_from_v03({"id": "t"}) == {"id": "t"}


def test_push_get_list_delete_params() -> None:
    params = {"id": "t", "pushNotificationConfigId": "c", "metadata": {}}
    get = v03_jsonrpc.push_get_params_from_v03(params)
    assert get == {"taskId": "t", "id": "c"}
    assert PushConfigIdRequest.from_wire(get).id == "c"
    assert v03_jsonrpc.push_get_params_from_v03({"id": "t"}) == {"taskId": "t"}
    listing = v03_jsonrpc.push_list_params_from_v03({"id": "t"})
    assert listing == {"taskId": "t"}
    assert ListPushConfigsRequest.from_wire(listing).task_id == "t"
    delete = v03_jsonrpc.push_delete_params_from_v03(params)
    assert delete == {"taskId": "t", "id": "c"}
    assert PushConfigIdRequest.from_wire(delete).task_id == "t"


# --- agent card ---------------------------------------------------------------------------------


def test_card_v03_fields() -> None:
    card = {
        "name": "Bistro",
        "capabilities": {"streaming": True, "extendedAgentCard": True},
        "securitySchemes": {"google": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "u"}}},
        "securityRequirements": [
            {"schemes": {"google": {"list": ["openid", "email"]}}},
            {"schemes": {"key": {}, "mtls": {"list": []}}},
        ],
    }
    fields = card_v03_fields(
        card,
        jsonrpc_url="https://bistro.example.com/a2a",
        extra_interfaces=[
            {"url": "https://bistro.example.com/a2a", "protocolBinding": "JSONRPC"},
            {"url": "https://bistro.example.com/rest", "transport": "HTTP+JSON"},
        ],
    )
    assert fields == {
        "protocolVersion": "0.3.0",
        "url": "https://bistro.example.com/a2a",
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [
            {"url": "https://bistro.example.com/a2a", "transport": "JSONRPC"},
            {"url": "https://bistro.example.com/rest", "transport": "HTTP+JSON"},
        ],
        "supportsAuthenticatedExtendedCard": True,
        "security": [{"google": ["openid", "email"]}, {"key": [], "mtls": []}],
        # v0.3 clients read a scheme by its "type": the v0.3 keys go beside the v1.0 member.
        "securitySchemes": {
            "google": {
                "openIdConnectSecurityScheme": {"openIdConnectUrl": "u"},
                "type": "openIdConnect",
                "openIdConnectUrl": "u",
            }
        },
    }


def test_card_v03_fields_minimal() -> None:
    fields = card_v03_fields({"capabilities": {}}, jsonrpc_url="https://h/", extra_interfaces=[])
    assert fields == {
        "protocolVersion": "0.3.0",
        "url": "https://h/",
        "preferredTransport": "JSONRPC",
        "supportsAuthenticatedExtendedCard": False,
    }


# --- validation -----------------------------------------------------------------------------------


def bad_message(**changes: Any) -> dict[str, Any]:
    return {"message": message_v03(taskId=None, **changes)}


def with_part(index: int, part: Any) -> dict[str, Any]:
    params = bad_message()
    params["message"]["parts"][index] = part
    return params


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ([], "params"),
        ({}, "message"),
        ({"message": "hi"}, "message"),
        (bad_message(kind="task"), "message.kind"),
        (bad_message(role="ROLE_USER"), "message.role"),
        (bad_message(messageId=""), "message.messageId"),
        (bad_message(messageId=7), "message.messageId"),
        (bad_message(parts=None), "message.parts"),
        (bad_message(parts={"kind": "text"}), "message.parts"),
        (bad_message(contextId=5), "message.contextId"),
        (bad_message(metadata=[]), "message.metadata"),
        (bad_message(extensions=["a", 1]), "message.extensions"),
        (bad_message(referenceTaskIds="t"), "message.referenceTaskIds"),
        (with_part(0, "text"), "message.parts[0]"),
        (with_part(0, {"text": "no kind"}), "message.parts[0].kind"),
        (with_part(2, {"kind": "image"}), "message.parts[2].kind"),
        (with_part(0, {"kind": "text", "text": None}), "message.parts[0].text"),
        (with_part(0, {"kind": "text", "text": "x", "metadata": 1}), "message.parts[0].metadata"),
        (with_part(1, {"kind": "file"}), "message.parts[1].file"),
        (with_part(1, {"kind": "file", "file": {"name": "x"}}), "message.parts[1].file"),
        (
            with_part(1, {"kind": "file", "file": {"bytes": "aA==", "uri": "u"}}),
            "message.parts[1].file",
        ),
        (with_part(1, {"kind": "file", "file": {"bytes": "!!"}}), "message.parts[1].file.bytes"),
        (with_part(1, {"kind": "file", "file": {"bytes": 1}}), "message.parts[1].file.bytes"),
        (with_part(1, {"kind": "file", "file": {"uri": ""}}), "message.parts[1].file.uri"),
        (
            with_part(1, {"kind": "file", "file": {"uri": "u", "mimeType": 1}}),
            "message.parts[1].file.mimeType",
        ),
        (with_part(3, {"kind": "data", "data": [1]}), "message.parts[3].data"),
        (
            with_part(3, {"kind": "data", "data": {}, "metadata": {"data_part_compat": True}}),
            "message.parts[3].data.value",
        ),
        ({"message": message_v03(), "configuration": []}, "configuration"),
        ({**bad_message(), "configuration": {"blocking": "yes"}}, "configuration.blocking"),
        ({**bad_message(), "configuration": {"historyLength": "3"}}, "configuration.historyLength"),
        (
            {**bad_message(), "configuration": {"historyLength": True}},
            "configuration.historyLength",
        ),
        (
            {**bad_message(), "configuration": {"acceptedOutputModes": "text/plain"}},
            "configuration.acceptedOutputModes",
        ),
        (
            {**bad_message(), "configuration": {"pushNotificationConfig": {}}},
            "configuration.pushNotificationConfig.url",
        ),
        (
            {
                **bad_message(),
                "configuration": {
                    "pushNotificationConfig": {"url": "u", "authentication": {"schemes": []}}
                },
            },
            "configuration.pushNotificationConfig.authentication.schemes",
        ),
        ({**bad_message(), "metadata": "x"}, "metadata"),
    ],
)
def test_send_params_validation_names_the_field(params: Any, field: str) -> None:
    with pytest.raises(InvalidParamsError) as excinfo:
        v03_jsonrpc.send_params_from_v03(params)
    assert field_of(excinfo) == field
    assert excinfo.value.message.startswith(field)


@pytest.mark.parametrize(
    ("function", "params", "field"),
    [
        (v03_jsonrpc.task_query_from_v03, {}, "id"),
        (v03_jsonrpc.task_query_from_v03, {"id": 1}, "id"),
        (v03_jsonrpc.task_query_from_v03, {"id": "t", "historyLength": 1.5}, "historyLength"),
        (v03_jsonrpc.task_query_from_v03, {"id": "t", "metadata": 1}, "metadata"),
        (v03_jsonrpc.task_id_params_from_v03, None, "params"),
        (v03_jsonrpc.task_id_params_from_v03, {"id": ""}, "id"),
        (v03_jsonrpc.push_get_params_from_v03, {"pushNotificationConfigId": "c"}, "id"),
        (
            v03_jsonrpc.push_get_params_from_v03,
            {"id": "t", "pushNotificationConfigId": 1},
            "pushNotificationConfigId",
        ),
        (v03_jsonrpc.push_list_params_from_v03, {}, "id"),
        (v03_jsonrpc.push_delete_params_from_v03, {"id": "t"}, "pushNotificationConfigId"),
        (v03_jsonrpc.push_config_from_v03, {"pushNotificationConfig": {"url": "u"}}, "taskId"),
        (
            v03_jsonrpc.push_config_from_v03,
            {"taskId": "t", "pushNotificationConfig": 1},
            "pushNotificationConfig",
        ),
        (
            v03_jsonrpc.push_config_from_v03,
            {"taskId": "t", "pushNotificationConfig": {"url": "u", "token": 1}},
            "pushNotificationConfig.token",
        ),
        (
            v03_jsonrpc.push_config_from_v03,
            {"taskId": "t", "pushNotificationConfig": {"url": "u", "authentication": {}}},
            "pushNotificationConfig.authentication.schemes",
        ),
        (
            v03_jsonrpc.push_config_from_v03,
            {
                "taskId": "t",
                "pushNotificationConfig": {"url": "u", "authentication": {"schemes": [1]}},
            },
            "pushNotificationConfig.authentication.schemes",
        ),
    ],
)
def test_request_params_validation_names_the_field(function: Any, params: Any, field: str) -> None:
    with pytest.raises(InvalidParamsError) as excinfo:
        function(params)
    assert field_of(excinfo) == field


# --- pre-0.3 tasks/send --------------------------------------------------------------------------

OLD_GUIDE_REQUEST = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tasks/send",
    "params": {
        "id": "abc",
        "message": {"role": "user", "parts": [{"type": "text", "text": "What is on the menu?"}]},
    },
}


def test_legacy_send_of_an_old_guide() -> None:
    params, task_id = legacy.legacy_send_params(OLD_GUIDE_REQUEST["params"])
    assert task_id == "abc"
    message_id = params["message"].pop("messageId")
    assert uuid.UUID(message_id).version == 4
    assert params == {"message": {"role": "ROLE_USER", "parts": [{"text": "What is on the menu?"}]}}
    params["message"]["messageId"] = message_id
    request = SendMessageRequest.from_wire(params)
    assert request.message.text == "What is on the menu?"
    assert request.configuration.return_immediately is False


def test_legacy_send_generates_a_fresh_message_id_each_time() -> None:
    first, _ = legacy.legacy_send_params(OLD_GUIDE_REQUEST["params"])
    second, _ = legacy.legacy_send_params(OLD_GUIDE_REQUEST["params"])
    assert first["message"]["messageId"] != second["message"]["messageId"]


def test_legacy_send_with_every_field() -> None:
    params, task_id = legacy.legacy_send_params(
        {
            "sessionId": "session-1",
            "message": {
                "role": "user",
                "parts": [
                    {"type": "text", "text": "Book this"},
                    {
                        "type": "file",
                        "file": {"bytes": "aGk=", "name": "n.txt", "mimeType": "text/plain"},
                    },
                    {"type": "file", "file": {"uri": "https://x/y.pdf"}},
                    {"type": "data", "data": {"guests": 2}, "metadata": {"m": 1}},
                ],
                "metadata": {"mm": 1},
            },
            "acceptedOutputModes": ["text/plain"],
            "historyLength": 5,
            "pushNotification": {"url": "https://h/x", "token": "t"},
            "metadata": {"k": "v"},
        }
    )
    assert task_id == ""
    message_id = params["message"].pop("messageId")
    assert params == {
        "message": {
            "role": "ROLE_USER",
            "contextId": "session-1",
            "parts": [
                {"text": "Book this"},
                {"raw": "aGk=", "filename": "n.txt", "mediaType": "text/plain"},
                {"url": "https://x/y.pdf"},
                {"data": {"guests": 2}, "mediaType": "application/json", "metadata": {"m": 1}},
            ],
            "metadata": {"mm": 1},
        },
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "historyLength": 5,
            "taskPushNotificationConfig": {"url": "https://h/x", "token": "t"},
        },
        "metadata": {"k": "v"},
    }
    params["message"]["messageId"] = message_id
    request = SendMessageRequest.from_wire(params)
    assert request.message.context_id == "session-1"
    assert request.configuration.history_length == 5


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "message"),
        ({"id": 1, "message": {}}, "id"),
        ({"message": {"parts": [{"type": "text", "text": "x"}]}}, "message.role"),
        ({"message": {"role": "user"}}, "message.parts"),
        (
            {"message": {"role": "user", "parts": [{"kind": "text", "text": "x"}]}},
            "message.parts[0].type",
        ),
        ({"message": {"role": "user", "parts": [{"type": "file"}]}}, "message.parts[0].file"),
        ({"sessionId": 3, "message": {}}, "sessionId"),
    ],
)
def test_legacy_send_validation_names_the_field(params: Any, field: str) -> None:
    with pytest.raises(InvalidParamsError) as excinfo:
        legacy.legacy_send_params(params)
    assert field_of(excinfo) == field


def test_legacy_task_to_wire() -> None:
    assert legacy.legacy_task_to_wire(TASK_V1) == {
        "id": "task-1",
        "sessionId": "ctx-1",
        "status": {
            "state": "completed",
            "message": {"role": "agent", "parts": [{"type": "text", "text": "Booked."}]},
            "timestamp": "2025-10-28T10:30:00.000Z",
        },
        "artifacts": [
            {"name": "booking", "parts": [{"type": "data", "data": {"table": 4}}], "index": 0},
            {
                "parts": [
                    {
                        "type": "data",
                        "data": {"value": ["not", "an", "object"]},
                        "metadata": {"data_part_compat": True},
                    }
                ],
                "index": 1,
            },
        ],
        "history": [
            {"role": "user", "parts": [{"type": "text", "text": "Book"}]},
            {
                "role": "agent",
                "parts": [
                    {"type": "text", "text": "hello", "metadata": {"a": 1}},
                    {
                        "type": "file",
                        "file": {"bytes": "aGVsbG8=", "name": "h.txt", "mimeType": "text/plain"},
                    },
                    {
                        "type": "file",
                        "file": {"uri": "https://example.com/x.png", "mimeType": "image/png"},
                    },
                    {"type": "data", "data": {"k": "v"}},
                    {
                        "type": "data",
                        "data": {"value": [1, 2, 3]},
                        "metadata": {"data_part_compat": True},
                    },
                    {
                        "type": "data",
                        "data": {"value": "just a string"},
                        "metadata": {"m": True, "data_part_compat": True},
                    },
                    {"type": "data", "data": {"value": 42}, "metadata": {"data_part_compat": True}},
                    {
                        "type": "data",
                        "data": {"value": None},
                        "metadata": {"data_part_compat": True},
                    },
                    {
                        "type": "data",
                        "data": {"value": False},
                        "metadata": {"data_part_compat": True},
                    },
                ],
                "metadata": {"k": "v"},
            },
        ],
        "metadata": {"k": "v"},
    }


def test_legacy_task_minimal() -> None:
    task = {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}
    assert legacy.legacy_task_to_wire(task) == {"id": "t", "status": {"state": "working"}}


def test_what_v03_cannot_express_is_dropped() -> None:
    text = {"text": "# Menu", "mediaType": "text/markdown", "filename": "menu.md"}
    assert v03_jsonrpc.part_to_v03(text) == {"kind": "text", "text": "# Menu"}
    # v0.3 data parts are JSON: coming back they say so.
    assert v03_jsonrpc.part_from_v03(v03_jsonrpc.part_to_v03({"data": {"k": 1}})) == {
        "data": {"k": 1},
        "mediaType": "application/json",
    }
