"""The v0.3 HTTP+JSON binding under ``/a2a/rest/v1/`` (spec reference §6.1, §6.2).

The converters of :mod:`a2a_app.protocol.v03.rest` alone (v0.3 proto JSON, field names as
in ``specification/grpc/a2a.proto`` at A2A v0.3.0 and a2a-sdk 0.3.x), then every route in
process against the conformance skill: v0.3 shapes in and out, the REST error body with
v0.3 field paths, version negotiation, streams under WSGI and ASGI, and one task seen
through v0.3 REST, v1.0 REST and v1.0 JSON-RPC.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import types
import uuid
from typing import Any

import pytest
from django.test import AsyncClient, Client

from a2a_app import testing
from a2a_app.bindings import rest_v03
from a2a_app.core import runner
from a2a_app.models import PushConfig, Task
from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.protocol.v03 import rest as v03_rest
from a2a_app.protocol.v03.common import DATA_WRAP_FLAG
from tests.support import Later, rest_error, violated_fields

JSON = dict[str, Any]
V03 = "/a2a/rest/v1"
V1 = "/a2a/rest"
HOOK = "http://127.0.0.1:9/hook"
SUBMITTED, WORKING = "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"
COMPLETED, CANCELLED = "TASK_STATE_COMPLETED", "TASK_STATE_CANCELLED"
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
PAYLOADS = {"task", "message", "statusUpdate", "artifactUpdate"}
TIMEOUT = 20.0


# --- helpers --------------------------------------------------------------------------------


def v03_message(text: str = "hello", **fields: Any) -> JSON:
    message: JSON = {
        "messageId": fields.pop("messageId", f"m-{time.monotonic_ns()}"),
        "role": "ROLE_USER",
        "content": fields.pop("content", [{"text": text}]),
    }
    message.update(fields)
    return message


def post(client: Client, path: str, payload: Any = None, **kwargs: Any) -> Any:
    raw = kwargs.pop("raw", None)
    body = raw if raw is not None else json.dumps(payload)
    content_type = kwargs.pop("content_type", "application/json")
    return client.post(V03 + path, body, content_type=content_type, **kwargs)


def send(client: Client, text: str = "hello", configuration: JSON | None = None, **fields) -> Any:
    payload: JSON = {"message": v03_message(text, **fields)}
    if configuration is not None:
        payload["configuration"] = configuration
    return post(client, "/message:send", payload)


def ok(response: Any) -> JSON:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


def new_task(client: Client, text: str = "hello", **kwargs: Any) -> JSON:
    body = ok(send(client, text, **kwargs))
    assert set(body) == {"task"}, body
    return body["task"]


def texts(message: JSON | None) -> list[str]:
    return [p["text"] for p in (message or {}).get("content", []) if "text" in p]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- the converters ---------------------------------------------------------------------------


class TestConverters:
    def test_message_round_trip_with_every_part(self):
        v03 = {
            "messageId": "m-1",
            "contextId": "c-1",
            "taskId": "t-1",
            "role": "ROLE_AGENT",
            "content": [
                {"text": "hi", "metadata": {"k": "v"}},
                {"file": {"fileWithBytes": b64(b"abc"), "mimeType": "text/plain", "name": "a"}},
                {"file": {"fileWithUri": "https://example.com/f"}},
                {"data": {"data": {"a": 1}}},
                {"data": {"data": {"value": [1, 2]}}, "metadata": {DATA_WRAP_FLAG: True}},
            ],
            "metadata": {"x": 1},
            "extensions": ["urn:e"],
        }
        v1 = v03_rest.message_from_v03(v03)
        assert v1 == {
            "messageId": "m-1",
            "role": "ROLE_AGENT",
            "parts": [
                {"text": "hi", "metadata": {"k": "v"}},
                {"raw": b64(b"abc"), "filename": "a", "mediaType": "text/plain"},
                {"url": "https://example.com/f"},
                {"data": {"a": 1}, "mediaType": "application/json"},
                {"data": [1, 2], "mediaType": "application/json"},
            ],
            "contextId": "c-1",
            "taskId": "t-1",
            "metadata": {"x": 1},
            "extensions": ["urn:e"],
        }
        assert v03_rest.message_to_v03(v1) == v03

    def test_snake_case_and_proto_names_are_read(self):
        body = {
            "request": {
                "message_id": "m-2",
                "context_id": "c-2",
                "role": 1,
                "content": [{"file": {"file_with_uri": "https://e.com/x", "mime_type": "a/b"}}],
            },
            "configuration": {
                "accepted_output_modes": ["text/plain"],
                "push_notification": {
                    "url": HOOK,
                    "authentication": {"schemes": ["Bearer", "Basic"], "credentials": "c"},
                },
                "history_length": "3",
                "blocking": False,
            },
            "metadata": {"m": True},
        }
        assert v03_rest.send_request_from_v03(body) == {
            "message": {
                "messageId": "m-2",
                "role": "ROLE_USER",
                "parts": [{"url": "https://e.com/x", "mediaType": "a/b"}],
                "contextId": "c-2",
            },
            "configuration": {
                "acceptedOutputModes": ["text/plain"],
                "historyLength": 3,
                "returnImmediately": True,
                "taskPushNotificationConfig": {
                    "url": HOOK,
                    "authentication": {"scheme": "Bearer", "credentials": "c"},
                },
            },
            "metadata": {"m": True},
        }

    def test_send_request_json_names(self):
        body = {
            "message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}]},
            "configuration": {"pushNotification": {"url": HOOK}, "blocking": True},
        }
        assert v03_rest.send_request_from_v03(body) == {
            "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]},
            "configuration": {
                "returnImmediately": False,
                "taskPushNotificationConfig": {"url": HOOK},
            },
        }

    def test_task_states_and_status_message(self):
        v1 = {
            "id": "t",
            "contextId": "c",
            "status": {
                "state": "TASK_STATE_CANCELED",
                "message": {"messageId": "a", "role": "ROLE_AGENT", "parts": [{"text": "bye"}]},
                "timestamp": "2025-01-01T00:00:00.000Z",
            },
            "artifacts": [{"artifactId": "r", "name": "n", "parts": [{"data": 7}]}],
        }
        v03 = v03_rest.task_to_v03(v1)
        assert v03 == {
            "id": "t",
            "contextId": "c",
            "status": {
                "state": CANCELLED,
                "message": {"messageId": "a", "role": "ROLE_AGENT", "content": [{"text": "bye"}]},
                "timestamp": "2025-01-01T00:00:00.000Z",
            },
            "artifacts": [
                {
                    "artifactId": "r",
                    "name": "n",
                    "parts": [{"data": {"data": {"value": 7}}, "metadata": {DATA_WRAP_FLAG: True}}],
                }
            ],
        }

    def test_send_response_task_or_message(self):
        message = {"messageId": "a", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}
        out = v03_rest.send_response_to_v03({"message": message})
        assert out == {
            "message": {"messageId": "a", "role": "ROLE_AGENT", "content": [{"text": "x"}]}
        }

    def test_stream_responses_and_final(self):
        status = {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": WORKING}}}
        assert v03_rest.stream_response_to_v03(status, final=False) == {
            "statusUpdate": {
                "taskId": "t",
                "contextId": "c",
                "status": {"state": WORKING},
                "final": False,
            }
        }
        done = {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_CANCELED"}}}
        assert v03_rest.stream_response_to_v03(done, final=True) == {
            "statusUpdate": {"taskId": "t", "status": {"state": CANCELLED}, "final": True}
        }
        artifact = {
            "artifactUpdate": {
                "taskId": "t",
                "contextId": "c",
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
                "append": True,
                "lastChunk": True,
            }
        }
        # Unlike a status update, an artifact update has no ``final``: it is the same in v0.3.
        assert v03_rest.stream_response_to_v03(artifact, final=False) == artifact

    def test_push_config_name_and_authentication(self):
        v1 = {
            "id": "cfg",
            "taskId": "t-9",
            "url": HOOK,
            "token": "tok",
            "authentication": {"scheme": "Bearer", "credentials": "cr"},
        }
        v03 = v03_rest.push_config_to_v03(v1)
        assert v03 == {
            "name": "tasks/t-9/pushNotificationConfigs/cfg",
            "pushNotificationConfig": {
                "id": "cfg",
                "url": HOOK,
                "token": "tok",
                "authentication": {"schemes": ["Bearer"], "credentials": "cr"},
            },
        }
        assert v03_rest.push_config_from_v03(v03) == v1
        # The request path's task wins; the id of ``name`` fills a missing config id.
        named = {
            "name": "tasks/x/pushNotificationConfigs/c2",
            "pushNotificationConfig": {"url": HOOK},
        }
        assert v03_rest.push_config_from_v03(named, task_id="t") == {
            "taskId": "t",
            "url": HOOK,
            "id": "c2",
        }

    @pytest.mark.parametrize(
        ("body", "expected_prefix"),
        [
            ({"pushNotificationConfig": {"url": HOOK}}, "pushNotificationConfig"),
            ({"url": HOOK}, ""),
            (
                {
                    "parent": "tasks/t",
                    "configId": "c",
                    "config": {"pushNotificationConfig": {"url": HOOK}},
                },
                "config.pushNotificationConfig",
            ),
        ],
    )
    def test_push_create_bodies(self, body, expected_prefix):
        config, prefix = v03_rest.push_create_from_v03(body, "t")
        assert config["taskId"] == "t" and config["url"] == HOOK
        assert prefix == expected_prefix

    @pytest.mark.parametrize(
        ("convert", "value", "field"),
        [
            (v03_rest.send_request_from_v03, [], "body"),
            (v03_rest.send_request_from_v03, {}, "message"),
            (v03_rest.send_request_from_v03, {"message": "x"}, "message"),
            (
                v03_rest.message_from_v03,
                {"role": "ROLE_USER", "content": [{"text": "x"}]},
                "message.messageId",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "content": [{"text": "x"}]},
                "message.role",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": "user", "content": [{"text": "x"}]},
                "message.role",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "parts": [{"text": "x"}]},
                "message.content",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": []},
                "message.content",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": [{"kind": "text"}]},
                "message.content[0]",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": [{"text": 1}]},
                "message.content[0].text",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": [{"file": {"fileWithBytes": "@@"}}]},
                "message.content[0].file.fileWithBytes",
            ),
            (
                v03_rest.message_from_v03,
                {
                    "messageId": "m",
                    "role": 1,
                    "content": [{"file": {"fileWithUri": "u", "fileWithBytes": "YQ=="}}],
                },
                "message.content[0].file",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": [{"data": {"data": 3}}]},
                "message.content[0].data.data",
            ),
            (
                v03_rest.message_from_v03,
                {"messageId": "m", "role": 1, "content": [{"text": "x"}], "metadata": []},
                "message.metadata",
            ),
            (v03_rest.push_config_from_v03, {"pushNotificationConfig": {"url": HOOK}}, "name"),
            (
                v03_rest.push_config_from_v03,
                {"name": "tasks/t", "pushNotificationConfig": {"url": HOOK}},
                "name",
            ),
            (
                v03_rest.push_config_from_v03,
                {"name": "tasks/t/pushNotificationConfigs/c", "pushNotificationConfig": {}},
                "pushNotificationConfig.url",
            ),
            (
                v03_rest.push_config_from_v03,
                {
                    "name": "tasks/t/pushNotificationConfigs/c",
                    "pushNotificationConfig": {"url": HOOK, "authentication": {}},
                },
                "pushNotificationConfig.authentication.schemes",
            ),
        ],
    )
    def test_bad_input_names_the_field(self, convert, value, field):
        with pytest.raises(InvalidParamsError) as caught:
            convert(value)
        assert [v.field for v in caught.value.violations] == [field]
        assert caught.value.message.startswith(f"{field}: ")

    def test_configuration_errors_use_the_spelling_sent(self):
        body = {"message": v03_message(), "configuration": {"history_length": "x"}}
        with pytest.raises(InvalidParamsError) as caught:
            v03_rest.send_request_from_v03(body)
        assert caught.value.violations[0].field == "configuration.history_length"

    def test_v1_field_paths_are_renamed(self):
        error = InvalidParamsError.for_field("configuration.taskPushNotificationConfig.url", "bad")
        body = {"request": v03_message(), "configuration": {"push_notification": {}}}
        renamed = v03_rest.rename_fields(error, v03_rest.send_fields(body))
        assert renamed.violations[0].field == "configuration.push_notification.url"
        assert renamed.message == "configuration.push_notification.url: bad"
        role = InvalidParamsError.for_field("message.role", "must be ROLE_USER")
        assert v03_rest.rename_fields(role, v03_rest.send_fields(body)).message == (
            "request.role: must be ROLE_USER"
        )
        scheme = InvalidParamsError.for_field("authentication.scheme", "bad")
        renamed = v03_rest.rename_fields(scheme, v03_rest.push_fields("pushNotificationConfig"))
        assert renamed.violations[0].field == "pushNotificationConfig.authentication.schemes"


# --- SendMessage ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
class TestSendMessage:
    def test_blocking_echo_returns_the_v03_task(self, client):
        message = v03_message("hello v03")
        body = ok(post(client, "/message:send", {"message": message}))
        assert set(body) == {"task"}
        task = body["task"]
        assert task["status"]["state"] == COMPLETED
        assert "kind" not in task
        [artifact] = task["artifacts"]
        assert artifact["name"] == "echo"
        assert artifact["parts"] == [{"text": "echo: hello v03"}]
        assert task["history"] == [
            {**message, "taskId": task["id"], "contextId": task["contextId"]}
        ]
        assert Task.objects.get(pk=task["id"]).protocol_version == "0.3"

    def test_proto_field_names_in_snake_case(self, client):
        payload = {
            "request": {
                "message_id": "m-snake",
                "context_id": "ctx-snake",
                "role": "ROLE_USER",
                "content": [{"text": "snake"}],
            },
            "configuration": {"history_length": 0, "blocking": True},
        }
        task = ok(post(client, "/message:send", payload))["task"]
        assert task["contextId"] == "ctx-snake"
        assert task["status"]["state"] == COMPLETED
        assert "history" not in task

    def test_direct_reply_is_message(self, client):
        body = ok(send(client, "x", messageId=f"tck-message-response-{uuid.uuid4()}"))
        assert set(body) == {"message"}
        reply = body["message"]
        assert reply["role"] == "ROLE_AGENT"
        assert texts(reply) == ["Direct message response"]
        assert "parts" not in reply
        assert Task.objects.count() == 0

    def test_file_and_data_parts_in_and_out(self, client):
        content = [
            {"text": "with files"},
            {"file": {"fileWithBytes": b64(b"abc"), "mimeType": "text/plain", "name": "a.txt"}},
            {"data": {"data": {"k": [1, 2]}}},
        ]
        task = new_task(client, content=content)
        assert task["history"][0]["content"] == content
        file_task = new_task(client, "x", messageId=f"tck-artifact-file-{uuid.uuid4()}")
        [part] = file_task["artifacts"][0]["parts"]
        assert part == {
            "file": {
                "fileWithBytes": b64(b"Generated file content"),
                "mimeType": "text/plain",
                "name": "output.txt",
            }
        }
        url_task = new_task(client, "x", messageId=f"tck-artifact-file-url-{uuid.uuid4()}")
        assert url_task["artifacts"][0]["parts"][0]["file"]["fileWithUri"] == (
            "https://example.com/output.txt"
        )
        data_task = new_task(client, "x", messageId=f"tck-artifact-data-{uuid.uuid4()}")
        [part] = data_task["artifacts"][0]["parts"]
        assert part == {"data": {"data": {"key": "value", "count": 42}}}

    def test_blocking_false_returns_at_once(self, client):
        task = new_task(client, "sleep 5", configuration={"blocking": False})
        assert task["status"]["state"] == SUBMITTED

    def test_follow_up_continues_the_task(self, client):
        first = new_task(client, "input please")
        assert first["status"]["state"] == INPUT_REQUIRED
        assert texts(first["status"]["message"]) == ["More input needed: input please"]
        done = new_task(client, "the answer", taskId=first["id"])
        assert done["id"] == first["id"]
        assert done["status"]["state"] == COMPLETED
        assert [m["role"] for m in done["history"]] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]

    def test_push_config_in_the_configuration(self, client):
        push_config = {"url": HOOK, "authentication": {"schemes": ["Bearer"], "credentials": "c"}}
        task = new_task(client, "input hook", configuration={"pushNotification": push_config})
        [config] = PushConfig.objects.filter(task_id=task["id"])
        assert (config.url, config.auth_scheme, config.protocol_version) == (HOOK, "Bearer", "0.3")

    @pytest.mark.parametrize(
        ("payload", "field"),
        [
            ({}, "message"),
            (
                {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}},
                "message.content",
            ),
            ({"message": v03_message(content=[])}, "message.content"),
            ({"message": v03_message(role="user")}, "message.role"),
            ({"message": v03_message(role="ROLE_AGENT")}, "message.role"),
            ({"request": v03_message(role="ROLE_AGENT")}, "request.role"),
            (
                {"message": v03_message(content=[{"file": {"fileWithBytes": "@@"}}])},
                "message.content[0].file.fileWithBytes",
            ),
            (
                {"message": v03_message(), "configuration": {"blocking": "yes"}},
                "configuration.blocking",
            ),
            (
                {
                    "message": v03_message(),
                    "configuration": {"pushNotification": {"url": "https://10.0.0.1/h"}},
                },
                "configuration.pushNotification.url",
            ),
            (
                {
                    "message": v03_message(),
                    "configuration": {
                        "pushNotification": {"url": HOOK, "authentication": {"schemes": ["no way"]}}
                    },
                },
                "configuration.pushNotification.authentication.schemes",
            ),
        ],
    )
    def test_bad_body_is_400_naming_the_field(self, client, payload, field):
        error = rest_error(post(client, "/message:send", payload), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == [field]
        assert error["message"].startswith(field)
        assert Task.objects.count() == 0

    def test_bodies_that_are_not_json_objects(self, client):
        rest_error(post(client, "/message:send", raw="[]"), 400, "INVALID_ARGUMENT")
        rest_error(post(client, "/message:send", raw="{"), 400, "INVALID_ARGUMENT")
        rest_error(
            post(client, "/message:send", raw="x", content_type="text/plain"),
            415,
            "INVALID_ARGUMENT",
            "CONTENT_TYPE_NOT_SUPPORTED",
        )

    def test_message_to_an_unknown_task_is_404(self, client):
        response = send(client, "more", taskId=str(uuid.uuid4()))
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")


# --- GetTask, CancelTask ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
class TestTasks:
    def test_get_returns_the_v03_task(self, client):
        task = new_task(client, "get me")
        assert ok(client.get(f"{V03}/tasks/{task['id']}")) == task

    def test_history_length_query(self, client):
        task = new_task(client, "input one")
        new_task(client, "input two", taskId=task["id"])
        full = ok(client.get(f"{V03}/tasks/{task['id']}"))
        assert len(full["history"]) == 4
        one = ok(client.get(f"{V03}/tasks/{task['id']}", {"historyLength": 1}))
        assert one["history"] == full["history"][-1:]
        snake = ok(client.get(f"{V03}/tasks/{task['id']}", {"history_length": 1}))
        assert snake == one
        error = rest_error(
            client.get(f"{V03}/tasks/{task['id']}", {"historyLength": "x"}), 400, "INVALID_ARGUMENT"
        )
        assert violated_fields(error) == ["historyLength"]

    def test_unknown_task_is_404(self, client):
        task_id = str(uuid.uuid4())
        error = rest_error(client.get(f"{V03}/tasks/{task_id}"), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        assert error["details"][0]["metadata"] == {"taskId": task_id}

    @pytest.mark.parametrize("body", [None, "{}", json.dumps({"name": "tasks/other"})])
    def test_cancel_is_cancelled_with_two_ls(self, client, body):
        task = new_task(client, "input wait")
        path = f"{V03}/tasks/{task['id']}:cancel"
        if body is None:  # no body (a Content-Type is required: tests/test_input_limits.py)
            response = client.generic("POST", path, CONTENT_TYPE="application/json")
        else:
            response = client.post(path, body, content_type="application/json")
        canceled = ok(response)
        assert canceled["id"] == task["id"]
        assert canceled["status"]["state"] == CANCELLED
        assert ok(client.get(f"{V03}/tasks/{task['id']}"))["status"]["state"] == CANCELLED
        again = post(client, f"/tasks/{task['id']}:cancel", {})
        rest_error(again, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")

    def test_cancel_unknown_task_is_404(self, client):
        response = post(client, f"/tasks/{uuid.uuid4()}:cancel", {})
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_cancel_bad_body_is_400(self, client):
        task = new_task(client, "input keep")
        rest_error(post(client, f"/tasks/{task['id']}:cancel", raw="[]"), 400, "INVALID_ARGUMENT")
        assert Task.objects.get(pk=task["id"]).state == INPUT_REQUIRED


# --- push notification configs ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
class TestPushConfigs:
    def test_create_get_list_delete(self, client):
        task = new_task(client, "input hook")
        configs = f"/tasks/{task['id']}/pushNotificationConfigs"
        inner = {
            "url": HOOK,
            "token": "tok-1",
            "authentication": {"schemes": ["Bearer"], "credentials": "cred-1"},
        }
        created = ok(post(client, configs, {"pushNotificationConfig": inner}))
        config_id = created["pushNotificationConfig"]["id"]
        uuid.UUID(config_id)
        name = f"tasks/{task['id']}/pushNotificationConfigs/{config_id}"
        assert created == {"name": name, "pushNotificationConfig": {"id": config_id, **inner}}
        redacted = {
            "name": name,
            "pushNotificationConfig": {
                "id": config_id,
                "url": HOOK,
                "authentication": {"schemes": ["Bearer"]},
            },
        }
        one = f"{V03}{configs}/{config_id}"
        assert ok(client.get(one)) == redacted
        assert ok(client.get(V03 + configs)) == {"configs": [redacted]}
        assert PushConfig.objects.get(config_id=config_id).protocol_version == "0.3"

        assert ok(client.delete(one)) == {}
        assert ok(client.delete(one)) == {}
        rest_error(client.get(one), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        assert ok(client.get(V03 + configs)) == {"configs": []}

    @pytest.mark.parametrize(
        "body",
        [
            {"url": HOOK, "id": "given"},
            {
                "name": "tasks/elsewhere/pushNotificationConfigs/given",
                "pushNotificationConfig": {"url": HOOK},
            },
            {
                "parent": "tasks/x",
                "config_id": "given",
                "config": {"push_notification_config": {"url": HOOK}},
            },
        ],
    )
    def test_create_body_shapes_and_the_path_task_wins(self, client, body):
        task = new_task(client, "input hook")
        created = ok(post(client, f"/tasks/{task['id']}/pushNotificationConfigs", body))
        assert created["name"] == f"tasks/{task['id']}/pushNotificationConfigs/given"

    def test_list_pages(self, client):
        task = new_task(client, "input hooks")
        configs = f"/tasks/{task['id']}/pushNotificationConfigs"
        for n in range(3):
            ok(post(client, configs, {"pushNotificationConfig": {"id": f"h{n}", "url": HOOK}}))
        first = ok(client.get(V03 + configs, {"pageSize": 2}))
        assert [c["pushNotificationConfig"]["id"] for c in first["configs"]] == ["h0", "h1"]
        second = ok(
            client.get(V03 + configs, {"page_size": 2, "pageToken": first["nextPageToken"]})
        )
        assert [c["pushNotificationConfig"]["id"] for c in second["configs"]] == ["h2"]
        assert "nextPageToken" not in second

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"pushNotificationConfig": {}}, "pushNotificationConfig.url"),
            (
                {"pushNotificationConfig": {"url": "https://10.0.0.1/hook"}},
                "pushNotificationConfig.url",
            ),
            (
                {"config": {"pushNotificationConfig": {"url": "https://10.0.0.1/hook"}}},
                "config.pushNotificationConfig.url",
            ),
            ({"url": "https://10.0.0.1/hook"}, "url"),
            (
                {
                    "pushNotificationConfig": {
                        "url": HOOK,
                        "authentication": {"schemes": ["not a scheme"]},
                    }
                },
                "pushNotificationConfig.authentication.schemes",
            ),
            ({"name": "nope", "pushNotificationConfig": {"url": HOOK}}, "name"),
        ],
    )
    def test_invalid_config_is_400_naming_the_field(self, client, body, field):
        task = new_task(client, "input hook")
        response = post(client, f"/tasks/{task['id']}/pushNotificationConfigs", body)
        assert violated_fields(rest_error(response, 400, "INVALID_ARGUMENT")) == [field]

    def test_unknown_task_is_404_on_every_config_route(self, client):
        configs = f"/tasks/{uuid.uuid4()}/pushNotificationConfigs"
        created = post(client, configs, {"pushNotificationConfig": {"url": HOOK}})
        rest_error(created, 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(client.get(V03 + configs), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(client.get(f"{V03}{configs}/x"), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(client.delete(f"{V03}{configs}/x"), 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_push_disabled(self, client, settings):
        task = new_task(client, "input hook")
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        response = post(client, f"/tasks/{task['id']}/pushNotificationConfigs", {"url": HOOK})
        rest_error(response, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED")


# --- the card, methods, versions ----------------------------------------------------------------


@pytest.mark.django_db
class TestRoutes:
    def test_card_is_unsupported(self, client):
        error = rest_error(
            client.get(f"{V03}/card"), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"
        )
        assert "extended agent card" in error["message"]

    # A wrong HTTP method on a v0.3 route: in test_rest.py, beside the v1.0 routes.

    def test_unknown_v1_path_is_404(self, client):
        rest_error(client.get(f"{V03}/tasks"), 404, "NOT_FOUND")
        rest_error(client.get(f"{V03}/nope"), 404, "NOT_FOUND")

    @pytest.mark.usefixtures("conformance_mode")
    @pytest.mark.parametrize("version", ["1.0", "1.0.1", "2.0"])
    def test_other_versions_are_refused(self, client, version):
        response = post(
            client, "/message:send", {"message": v03_message()}, headers={"A2A-Version": version}
        )
        error = rest_error(response, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert error["details"][0]["metadata"]["requestedVersion"] == version
        query = client.get(f"{V03}/tasks/{uuid.uuid4()}", {"A2A-Version": version})
        rest_error(query, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert Task.objects.count() == 0

    @pytest.mark.usefixtures("conformance_mode")
    @pytest.mark.parametrize("version", ["0.3", "0.3.0", ""])
    def test_v03_or_no_version_is_served(self, client, version):
        headers = {"A2A-Version": version} if version else {}
        response = post(client, "/message:send", {"message": v03_message()}, headers=headers)
        assert ok(response)["task"]["status"]["state"] == COMPLETED

    @pytest.mark.usefixtures("conformance_mode")
    def test_a_site_mounts_the_routes_under_its_own_prefix(self, client, settings):
        # patterns() is what a site's urls.py calls; built here, so each test reads it anew.
        urlconf = types.ModuleType("mounted_urls")
        urlconf.urlpatterns = rest_v03.patterns("agents/v03/")
        settings.ROOT_URLCONF = urlconf
        body = json.dumps({"message": v03_message()})
        served = client.post(
            "/agents/v03/v1/message:send",
            body,
            content_type="application/json",
            headers={"A2A-Version": "0.3"},
        )
        assert ok(served)["task"]["status"]["state"] == COMPLETED
        refused = client.post(
            "/agents/v03/v1/message:send",
            body,
            content_type="application/json",
            headers={"A2A-Version": "1.0"},
        )
        error = rest_error(refused, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert error["message"].startswith(
            "A2A-Version '1.0' is not served by the v0.3 HTTP+JSON routes"
        )
        assert Task.objects.count() == 1

    @pytest.mark.usefixtures("conformance_mode")
    def test_v1_routes_still_refuse_v03(self, client):
        response = client.post(
            f"{V1}/message:send",
            json.dumps({"message": v03_message()}),
            content_type="application/json",
            headers={"A2A-Version": "0.3"},
        )
        rest_error(response, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")


# --- one task, three views ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
class TestSameTask:
    def test_made_over_v03_rest_is_the_same_task_over_v1_jsonrpc(self, client, rpc):
        task = new_task(client, "input cross")
        v1 = rpc("GetTask", {"id": task["id"]})["result"]
        assert v1["id"] == task["id"]
        assert v1["status"]["state"] == INPUT_REQUIRED
        assert v03_rest.task_to_v03(v1) == task
        assert ok(client.get(f"{V1}/tasks/{task['id']}")) == v1
        canceled = rpc("CancelTask", {"id": task["id"]})["result"]
        assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
        assert ok(client.get(f"{V03}/tasks/{task['id']}"))["status"]["state"] == CANCELLED

    def test_made_over_v1_jsonrpc_continued_over_v03_rest(self, client, rpc):
        message = {"messageId": "m-v1", "role": "ROLE_USER", "parts": [{"text": "input first"}]}
        task = rpc("SendMessage", {"message": message})["result"]["task"]
        done = new_task(client, "finish", taskId=task["id"])
        assert done["status"]["state"] == COMPLETED
        again = rpc("GetTask", {"id": task["id"]})["result"]
        assert v03_rest.task_to_v03(again) == done

    def test_push_config_made_over_v03_rest_is_listed_over_v1_jsonrpc(self, client, rpc):
        task = new_task(client, "input hook")
        path = f"/tasks/{task['id']}/pushNotificationConfigs"
        created = ok(post(client, path, {"pushNotificationConfig": {"url": HOOK, "id": "h"}}))
        listed = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert listed["configs"] == [{"id": "h", "taskId": task["id"], "url": HOOK}]
        assert v03_rest.push_config_to_v03(listed["configs"][0]) == created


# --- streams ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
class TestStreamsUnderWsgi:
    @pytest.mark.parametrize("method", ["get", "post"])
    def test_subscribe_is_unsupported(self, client, method):
        task = new_task(client, "input wait")
        response = getattr(client, method)(f"{V03}/tasks/{task['id']}:subscribe")
        rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")

    def test_stream_is_unsupported(self, client):
        response = post(client, "/message:stream", {"message": v03_message()})
        rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
        assert Task.objects.count() == 0


def run(scenario: Any) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, TIMEOUT))


async def sse_events(response: Any) -> list[JSON]:
    """The data of every SSE event of an open stream: bare v0.3 StreamResponse objects."""
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/event-stream"
    out = [payload async for payload in testing.sse_events(response)]
    for payload in out:
        assert len(payload) == 1 and set(payload) <= PAYLOADS, payload
    return out


def summary(events: list[JSON]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for event in events:
        [(kind, payload)] = event.items()
        if kind == "task":
            out.append(("task", payload["status"]["state"]))
        elif kind == "statusUpdate":
            out.append(("status", payload["status"]["state"], payload["final"]))
        elif kind == "artifactUpdate":
            out.append(("artifact", *(p["text"] for p in payload["artifact"]["parts"])))
        else:
            out.append(("message", *texts(payload)))
    return [item for i, item in enumerate(out) if i == 0 or out[i - 1] != item]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("conformance_mode")
class TestStreamsUnderAsgi:
    @pytest.fixture(autouse=True)
    def _streams(self, fast_streams, dispatched) -> None:
        """Streams poll often; background runs are recorded, run by the tests."""

    def test_message_stream_events_are_bare_v03(self):
        async def scenario() -> list[JSON]:
            response = await AsyncClient().post(
                f"{V03}/message:stream",
                json.dumps({"message": v03_message("hello stream")}),
                content_type="application/json",
            )
            return await sse_events(response)

        events = run(scenario())
        assert summary(events) == [
            ("task", SUBMITTED),
            ("status", WORKING, False),
            ("artifact", "echo: hello stream"),
            ("status", COMPLETED, True),
        ]
        task = events[0]["task"]
        assert task["history"][0]["content"] == [{"text": "hello stream"}]
        for event in events[1:]:
            [payload] = event.values()
            assert (payload["taskId"], payload["contextId"]) == (task["id"], task["contextId"])
        assert Task.objects.get(pk=task["id"]).protocol_version == "0.3"

    def test_direct_reply_is_one_message_event(self):
        async def scenario() -> list[JSON]:
            message = v03_message("x", messageId=f"tck-message-response-{uuid.uuid4()}")
            response = await AsyncClient().post(
                f"{V03}/message:stream",
                json.dumps({"message": message}),
                content_type="application/json",
            )
            return await sse_events(response)

        [event] = run(scenario())
        assert set(event) == {"message"}
        assert texts(event["message"]) == ["Direct message response"]

    @pytest.mark.parametrize("method", ["get", "post"])
    def test_subscribe_to_a_running_task(self, method, dispatched, later):
        task = new_task(Client(), "sleep 0", configuration={"blocking": False})
        assert task["status"]["state"] == SUBMITTED
        assert dispatched.runs == [task["id"]]

        async def scenario() -> tuple[list[JSON], Later]:
            path = f"{V03}/tasks/{task['id']}:subscribe"
            response = await getattr(AsyncClient(), method)(path)
            worker = later(runner.execute, task["id"], delay=0.2)
            return await sse_events(response), worker

        events, worker = run(scenario())
        assert worker.outcome() == COMPLETED
        assert summary(events) == [
            ("task", SUBMITTED),
            ("status", WORKING, False),
            ("artifact", "echo: sleep 0"),
            ("status", COMPLETED, True),
        ]

    def test_subscribe_to_an_unknown_task_is_404(self):
        response = run(AsyncClient().get(f"{V03}/tasks/{uuid.uuid4()}:subscribe"))
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_errors_before_the_stream_are_plain_responses(self):
        async def scenario() -> tuple[Any, Any]:
            aclient = AsyncClient()
            bad = await aclient.post(
                f"{V03}/message:stream",
                json.dumps({"message": v03_message(content=[])}),
                content_type="application/json",
            )
            new = await aclient.post(
                f"{V03}/message:stream",
                json.dumps({"message": v03_message()}),
                content_type="application/json",
                headers={"A2A-Version": "1.0"},
            )
            return bad, new

        bad, new = run(scenario())
        assert violated_fields(rest_error(bad, 400, "INVALID_ARGUMENT")) == ["message.content"]
        rest_error(new, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert Task.objects.count() == 0
