"""Inputs the readers used to miss (issue #13's red team), each refused as a protocol error.

Ids longer than their 200-character columns, ``NaN``/``Infinity`` (not JSON), nesting
deeper than ``MAX_JSON_DEPTH``, numbers and numeric strings past what any field can hold,
lone surrogates, and REST POSTs that a cross-site HTML form can send: every one is the
binding's error (a JSON-RPC error object, or the REST error body with its HTTP status),
never a 5xx, and nothing is written. The property-based tests (tests/test_fuzz.py) look
for more of these; this file pins the ones found.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import AsyncClient, Client

from a2a_app.models import PushConfig, Task, TaskMessage
from tests.conftest import user_message
from tests.support import error_of, rest_error, violated_fields

pytestmark = pytest.mark.django_db

JSON = dict[str, Any]
RPC = "/a2a/jsonrpc"
REST = "/a2a/rest"
HOOK = "http://127.0.0.1:9/hook"
LONG_ID = "x" * 201


def rows() -> tuple[int, int, int]:
    return Task.objects.count(), TaskMessage.objects.count(), PushConfig.objects.count()


@pytest.fixture
def nothing_written(conformance_mode) -> Iterator[None]:
    """The test's requests leave the task, message and push config tables as they were."""
    before = rows()
    yield
    assert rows() == before


def rpc_raw(client: Client, body: str | bytes, content_type: str = "application/json") -> JSON:
    response = client.post(RPC, body, content_type=content_type)
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def rpc_call(client: Client, method: str, params: JSON, request_id: Any = 7) -> JSON:
    return rpc_raw(
        client, json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    )


def a_task(client: Client) -> str:
    body = rpc_call(client, "SendMessage", {"message": user_message("input for later")})
    return body["result"]["task"]["id"]


# --- ids longer than their columns --------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "message_fields"),
    [
        ("message.messageId", {"messageId": LONG_ID}),
        ("message.contextId", {"contextId": LONG_ID}),
        ("message.taskId", {"taskId": LONG_ID}),
        ("message.referenceTaskIds[0]", {"referenceTaskIds": [LONG_ID]}),
    ],
)
def test_a_long_id_in_a_message_is_invalid_params(client, nothing_written, field, message_fields):
    body = rpc_call(client, "SendMessage", {"message": user_message("hi", **message_fields)})
    error = error_of(body, -32602)
    assert body["id"] == 7
    assert violated_fields(error) == [field]
    assert "200" in error["message"]


def test_an_id_of_200_characters_is_accepted(client, conformance_mode):
    body = rpc_call(
        client,
        "SendMessage",
        {"message": user_message("hi", messageId="m" * 200, contextId="c" * 200)},
    )
    assert body["result"]["task"]["contextId"] == "c" * 200


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("GetTask", {"id": LONG_ID}, "id"),
        ("CancelTask", {"id": LONG_ID}, "id"),
        ("ListTasks", {"contextId": LONG_ID}, "contextId"),
        ("GetTaskPushNotificationConfig", {"taskId": LONG_ID, "id": "a"}, "taskId"),
        ("DeleteTaskPushNotificationConfig", {"taskId": "a", "id": LONG_ID}, "id"),
        ("ListTaskPushNotificationConfigs", {"taskId": LONG_ID}, "taskId"),
    ],
)
def test_a_long_id_in_params_is_invalid_params(client, nothing_written, method, params, field):
    error = error_of(rpc_call(client, method, params), -32602)
    assert violated_fields(error) == [field]


def test_a_long_push_config_id_is_invalid_params(client, conformance_mode):
    task_id = a_task(client)
    before = rows()
    params = {"taskId": task_id, "id": LONG_ID, "url": HOOK}
    error = error_of(rpc_call(client, "CreateTaskPushNotificationConfig", params), -32602)
    assert violated_fields(error) == ["id"]
    assert rows() == before


def test_a_long_push_auth_scheme_is_invalid_params(client, conformance_mode):
    task_id = a_task(client)
    before = rows()
    params = {"taskId": task_id, "url": HOOK, "authentication": {"scheme": "B" * 51}}
    error = error_of(rpc_call(client, "CreateTaskPushNotificationConfig", params), -32602)
    assert violated_fields(error) == ["authentication.scheme"]
    assert rows() == before


def test_a_long_path_id_over_rest_names_the_field(client, nothing_written):
    error = rest_error(client.get(f"{REST}/tasks/{LONG_ID}"), 400, "INVALID_ARGUMENT")
    assert violated_fields(error) == ["id"]


def test_a_long_id_over_v03_jsonrpc_is_invalid_params(client, nothing_written):
    message = {"kind": "message", "messageId": LONG_ID, "role": "user"}
    message["parts"] = [{"kind": "text", "text": "hi"}]
    error = error_of(rpc_call(client, "message/send", {"message": message}), -32602)
    assert "messageId" in error["message"]


# --- not JSON, or past the parser's limits (RFC 8259 §9) ------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"metadata": {"a": NaN}}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "a", "x": Infinity}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"x": -Infinity}}',
        '{"jsonrpc": "2.0", "id": NaN, "method": "GetTask", "params": {"id": "a"}}',
        '{"jsonrpc": "2.0", "id": 1e400, "method": "GetTask", "params": {"id": "a"}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"x": -1e999}}',
    ],
    ids=["nan-data", "infinity", "-infinity", "nan-id", "overflowing-id", "overflowing-float"],
)
def test_non_finite_numbers_are_a_parse_error(client, nothing_written, body):
    response = client.post(RPC, body, content_type="application/json")
    assert response.status_code == 200
    # The answer itself is strict JSON: no NaN echoed back.
    parsed = json.loads(response.content, parse_constant=lambda name: pytest.fail(name))
    error_of(parsed, -32700)
    assert parsed["id"] is None


def test_a_nan_in_a_message_is_refused_before_anything_is_written(client, nothing_written):
    params = json.dumps({"message": user_message("hi", metadata={"score": 1.5})})
    body = '{"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": %s}'
    error_of(rpc_raw(client, body % params.replace("1.5", "NaN")), -32700)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
def test_deep_nesting_is_a_parse_error(client, nothing_written, depth):
    params = {"message": user_message("hi", metadata={"deep": "HERE"})}
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params})
    error = error_of(rpc_raw(client, text.replace('"HERE"', nested(depth))), -32700)
    assert "64" in error["message"]


def test_nesting_up_to_the_limit_is_accepted(client, conformance_mode):
    # The envelope, params, message and metadata are 4 levels; "deep" adds 60.
    params = {"message": user_message("hi", metadata={"deep": "HERE"})}
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params})
    assert "result" in rpc_raw(client, text.replace('"HERE"', nested(60)))


def test_the_depth_limit_is_a_setting(client, nothing_written, settings):
    settings.A2A_APP = {**settings.A2A_APP, "MAX_JSON_DEPTH": 3}
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"a": [[]]}})
    assert "3" in error_of(rpc_raw(client, text), -32700)["message"]


def test_a_huge_integer_is_a_parse_error(client, nothing_written):
    text = '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "a", "n": %s}}'
    error_of(rpc_raw(client, text % ("9" * 5000)), -32700)


@pytest.mark.parametrize("digits", [30, 4300, 5000])
def test_a_huge_numeric_string_is_invalid_params(client, nothing_written, digits):
    params = {"id": "a", "historyLength": "1" * digits}
    error = error_of(rpc_call(client, "GetTask", params), -32602)
    assert violated_fields(error) == ["historyLength"]


def test_an_integral_number_with_a_fraction_part_is_an_integer(client, conformance_mode):
    """JSON does not tell 2 from 2.0 (JSON Schema neither: schemathesis sent 310781.0)."""
    task_id = a_task(client)
    body = rpc_call(client, "GetTask", {"id": task_id, "historyLength": 1.0})
    assert len(body["result"]["history"]) == 1
    error = error_of(rpc_call(client, "GetTask", {"id": task_id, "historyLength": 1.5}), -32602)
    assert violated_fields(error) == ["historyLength"]


def test_a_huge_numeric_string_over_rest_is_400(client, nothing_written):
    response = client.get(f"{REST}/tasks", {"pageSize": "9" * 4400})
    assert violated_fields(rest_error(response, 400, "INVALID_ARGUMENT")) == ["pageSize"]


# --- lone surrogates ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        '{"id": "\\ud800"}',
        '{"id": "a\\udfffb"}',
        '{"id": "a", "m": {"\\udbff": 1}}',
    ],
    ids=["value", "low-surrogate", "key"],
)
def test_a_lone_surrogate_is_a_parse_error(client, nothing_written, params):
    text = '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": PARAMS}'
    text = text.replace("PARAMS", params)
    response = client.post(RPC, text, content_type="application/json")
    assert response.status_code == 200
    error_of(response.json(), -32700)


def test_a_surrogate_pair_is_a_character_like_any_other(client, conformance_mode):
    text = '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "\\ud83d\\ude00"}}'
    error = error_of(rpc_raw(client, text), -32001)
    assert "\U0001f600" in error["message"]


def test_a_lone_surrogate_over_rest_is_400(client, nothing_written):
    response = client.post(
        f"{REST}/message:send",
        '{"message": {"messageId": "\\ud800", "role": "ROLE_USER", "parts": [{"text": "a"}]}}',
        content_type="application/json",
    )
    rest_error(response, 400, "INVALID_ARGUMENT")


def test_an_error_echoing_a_surrogate_is_still_valid_json():
    """The last guard: whatever an error echoes, its response can be encoded."""
    from a2a_app.bindings import jsonrpc, rest
    from a2a_app.protocol.errors import TaskNotFoundError

    error = TaskNotFoundError("Task \ud800 not found", metadata={"taskId": "\ud800"})
    response = jsonrpc.error_response("\udc00", error)
    body = json.loads(response.content.decode("utf-8"))
    assert body["error"]["code"] == -32001
    assert body["id"] == "\udc00"

    from django.test import RequestFactory

    response = rest.error_response(RequestFactory().get("/"), error)
    assert response.status_code == 404
    body = json.loads(response.content.decode("utf-8"))
    assert body["error"]["message"] == "Task \ud800 not found"


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/tasks/%00", "id"),
        ("/tasks/a%00b:cancel", "id"),
        ("/tasks/{task}/pushNotificationConfigs/%00", "id"),
        ("/v1/tasks/{task}/pushNotificationConfigs/%00", "id"),
        ("/tasks/%00/pushNotificationConfigs", "taskId"),
    ],
)
def test_a_nul_in_a_path_id_names_the_field(client, conformance_mode, path, field):
    """PostgreSQL cannot compare text with U+0000: found by tests/test_fuzz.py there."""
    path = path.format(task=a_task(client))
    before = rows()
    method = "POST" if path.endswith(":cancel") else "GET"
    response = client.generic(method, REST + path, b"{}", CONTENT_TYPE="application/json")
    assert violated_fields(rest_error(response, 400, "INVALID_ARGUMENT")) == [field]
    assert rows() == before


# --- REST paths --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/%0A", "/x%0Ay", "/%0D%0A", "/v1/%0A"])
def test_a_path_with_a_newline_gets_the_rest_error(client, path):
    rest_error(client.post(REST + path), 404, "NOT_FOUND")


# --- REST POSTs a cross-site form can send ------------------------------------------------


def empty_post(client: Client, path: str, content_type: str) -> Any:
    """A POST without a body, with that Content-Type ("": none), as a form or fetch sends it."""
    headers = {"CONTENT_TYPE": content_type} if content_type else {}
    return client.generic("POST", REST + path, b"", **headers)


FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain", ""]


@pytest.mark.parametrize("content_type", FORM_TYPES)
@pytest.mark.parametrize("prefix", ["", "/v1"])
def test_cancel_refuses_a_form_post(client, conformance_mode, content_type, prefix):
    task_id = a_task(client)
    response = empty_post(client, f"{prefix}/tasks/{task_id}:cancel", content_type)
    rest_error(response, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
    assert Task.objects.get(id=task_id).state == "TASK_STATE_INPUT_REQUIRED"


@pytest.mark.parametrize(
    "path",
    [
        "/message:send",
        "/v1/message:send",
        "/tasks/{id}/pushNotificationConfigs",
        "/v1/tasks/{id}/pushNotificationConfigs",
    ],
)
@pytest.mark.parametrize("content_type", FORM_TYPES)
def test_state_changing_posts_refuse_an_empty_form_post(
    client, conformance_mode, path, content_type
):
    task_id = a_task(client)
    before = rows()
    response = empty_post(client, path.format(id=task_id), content_type)
    rest_error(response, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
    assert rows() == before


@pytest.mark.parametrize("path", ["/message:stream", "/v1/message:stream"])
def test_a_stream_refuses_a_form_post_under_asgi(conformance_mode, path):
    async def scenario() -> Any:
        return await AsyncClient().generic(
            "POST", REST + path, b"", CONTENT_TYPE="application/x-www-form-urlencoded"
        )

    before = rows()
    response = asyncio.run(scenario())
    rest_error(response, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
    assert rows() == before


def test_cancel_with_json_and_no_body_still_cancels(client, conformance_mode):
    task_id = a_task(client)
    response = empty_post(client, f"/tasks/{task_id}:cancel", "application/json")
    assert response.status_code == 200, response.content
    assert response.json()["status"]["state"] == "TASK_STATE_CANCELED"


def test_subscribe_post_needs_no_body_nor_content_type(client, conformance_mode):
    """A read: a2a-sdk's client POSTs it with neither (under WSGI the stream is refused)."""
    task_id = a_task(client)
    response = empty_post(client, f"/tasks/{task_id}:subscribe", "")
    error = rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
    assert "ASGI" in error["message"]


# --- the decoder itself (protocol, no Django) -----------------------------------------------


def test_decode_json_counts_depth_from_the_outermost_container():
    from a2a_app.protocol.errors import JSONParseError
    from a2a_app.protocol.wire import decode_json

    assert decode_json(b'{"a": [[1], {"b": []}]}', max_depth=4) == {"a": [[1], {"b": []}]}
    with pytest.raises(JSONParseError, match="3 levels"):
        decode_json(b'{"a": [[1], {"b": []}]}', max_depth=3)
    # Brackets inside strings are text, not nesting.
    assert decode_json(b'{"a": "[[[[{{{{"}', max_depth=1) == {"a": "[[[[{{{{"}


def test_decode_json_tells_a_surrogate_escape_from_an_escaped_backslash():
    from a2a_app.protocol.errors import JSONParseError
    from a2a_app.protocol.wire import decode_json

    assert decode_json(b'["\\\\ud800"]') == ["\\ud800"]  # a backslash, then "ud800"
    assert decode_json(b'["\\ud83d\\ude00"]') == ["\U0001f600"]
    with pytest.raises(JSONParseError, match="surrogate"):
        decode_json(b'["\\ud83d"]')
    with pytest.raises(JSONParseError, match="surrogate"):
        decode_json(b'{"\\ude00x": 1}')
