"""The HTTP+JSON (REST) binding under ``/a2a/rest/`` (spec reference §2.1, §2.2, §4.4).

Every route of the table with its success and error answers, in process against the
conformance skill: the REST error body, media types, the query parameters, streams
(``AsyncClient``, ASGI) and their refusal under WSGI, version negotiation, caller scoping,
the agent card's two interfaces, and the OpenAPI document, checked against the URL
patterns it describes.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import types
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import AsyncClient, Client
from django.urls import path as url_path
from django.urls import resolve, reverse

from a2a_app.bindings import rest
from a2a_app.core import runner
from a2a_app.models import Task
from a2a_app.urls import rest_urlpatterns
from tests.conftest import user_message
from tests.support import (
    ERROR_INFO,
    SCENARIO_TIMEOUT,
    error_info,
    rest_error,
    violated_fields,
)

pytestmark = pytest.mark.django_db

JSON = dict[str, Any]
REST = "/a2a/rest"
A2A_JSON = "application/a2a+json"
HOOK = "http://127.0.0.1:9/hook"
SUBMITTED, WORKING = "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"
COMPLETED, CANCELED = "TASK_STATE_COMPLETED", "TASK_STATE_CANCELED"
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
PAYLOADS = {"task", "message", "statusUpdate", "artifactUpdate"}
FRAME_TIMEOUT = 5.0


# --- helpers ------------------------------------------------------------------------------


def post(
    client: Client,
    path: str,
    payload: Any = None,
    *,
    raw: str | bytes | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Any:
    body = raw if raw is not None else json.dumps(payload)
    return client.post(REST + path, body, content_type=content_type, headers=headers or {})


def get(client: Client, path: str, query: dict[str, Any] | None = None, **headers: str) -> Any:
    return client.get(REST + path, query or {}, headers=headers)


def ok(response: Any, content_type: str = "application/json") -> JSON:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == content_type
    return response.json()


def send(client: Client, text: str = "hello", *, headers=None, **fields: Any) -> Any:
    configuration = fields.pop("configuration", None)
    payload: JSON = {"message": user_message(text, **fields)}
    if configuration is not None:
        payload["configuration"] = configuration
    return post(client, "/message:send", payload, headers=headers)


def new_task(client: Client, text: str = "hello", **kwargs: Any) -> JSON:
    body = ok(send(client, text, **kwargs))
    assert set(body) == {"task"}, body
    return body["task"]


def texts(message: JSON | None) -> list[str]:
    return [p["text"] for p in (message or {}).get("parts", []) if "text" in p]


def basic(username: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


# --- SendMessage ----------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestSendMessage:
    def test_blocking_echo_returns_the_completed_task(self, client):
        message = user_message("hello rest")
        body = ok(post(client, "/message:send", {"message": message}))
        assert set(body) == {"task"}
        task = body["task"]
        uuid.UUID(task["id"])
        assert task["status"]["state"] == COMPLETED
        [artifact] = task["artifacts"]
        assert artifact["name"] == "echo"
        assert artifact["parts"] == [{"text": "echo: hello rest"}]
        assert task["history"] == [
            {**message, "taskId": task["id"], "contextId": task["contextId"]}
        ]
        assert Task.objects.get(pk=task["id"]).state == COMPLETED

    def test_direct_message_reply(self, client):
        body = ok(send(client, "x", messageId=f"tck-message-response-{uuid.uuid4()}"))
        assert set(body) == {"message"}
        reply = body["message"]
        assert reply["role"] == "ROLE_AGENT"
        assert texts(reply) == ["Direct message response"]
        assert reply["contextId"]
        assert "taskId" not in reply
        assert Task.objects.count() == 0

    def test_percent_encoded_colon_resolves(self, client):
        response = client.post(
            f"{REST}/message%3Asend",
            json.dumps({"message": user_message("encoded")}),
            content_type="application/json",
        )
        assert ok(response)["task"]["artifacts"][0]["parts"] == [{"text": "echo: encoded"}]

    def test_follow_up_over_rest_continues_the_same_task(self, client):
        first = new_task(client, "input please", contextId="ctx-rest-ir")
        assert first["status"]["state"] == INPUT_REQUIRED
        assert texts(first["status"]["message"]) == ["More input needed: input please"]
        done = new_task(client, "the answer", taskId=first["id"], contextId="ctx-rest-ir")
        assert done["id"] == first["id"]
        assert done["status"]["state"] == COMPLETED
        assert [m["role"] for m in done["history"]] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]

    def test_text_plain_is_415(self, client):
        response = post(client, "/message:send", raw="hello", content_type="text/plain")
        error = rest_error(response, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
        assert error_info(error)["metadata"] == {"contentType": "text/plain"}
        assert error["message"] == (
            "Content-Type must be application/json or application/a2a+json (got text/plain)"
        )
        assert Task.objects.count() == 0

    def test_bad_json_is_400(self, client):
        response = post(client, "/message:send", raw='{"message": ', content_type=A2A_JSON)
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert "JSON" in error["message"]

    @pytest.mark.parametrize(
        ("raw", "message"),
        [
            ("[]", "The request body must be a JSON object"),
            ('"text"', "The request body must be a JSON object"),
            ("42", "The request body must be a JSON object"),
            ("null", "The request body must be a JSON object"),
            ("", "A JSON request body is required"),
            (" \n", "A JSON request body is required"),
        ],
    )
    def test_a_body_that_is_not_an_object_is_400(self, client, raw, message):
        # generic(): the test client's post() leaves an empty body's Content-Type out.
        response = client.generic(
            "POST", f"{REST}/message:send", raw, CONTENT_TYPE="application/json"
        )
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert error["message"] == message
        assert Task.objects.count() == 0

    @pytest.mark.parametrize("raw", ["", "null", " "])
    def test_an_optional_body_may_be_empty_or_null(self, client, conformance_mode, raw):
        task = new_task(client, "input cancel me")
        response = client.generic(
            "POST", f"{REST}/tasks/{task['id']}:cancel", raw, CONTENT_TYPE="application/json"
        )
        assert ok(response)["status"]["state"] == "TASK_STATE_CANCELED"

    def test_empty_parts_name_the_field(self, client):
        response = post(client, "/message:send", {"message": user_message("x", parts=[])})
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["message.parts"]
        assert Task.objects.count() == 0

    def test_missing_message_names_the_field(self, client):
        error = rest_error(post(client, "/message:send", {}), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["message"]

    def test_a2a_json_request_body_is_accepted(self, client):
        response = post(
            client, "/message:send", {"message": user_message("typed")}, content_type=A2A_JSON
        )
        assert ok(response)["task"]["status"]["state"] == COMPLETED

    @pytest.mark.parametrize(
        ("accept", "expected"),
        [
            (A2A_JSON, A2A_JSON),
            (f"{A2A_JSON}, application/json;q=0.5", A2A_JSON),
            ("application/json", "application/json"),
            ("*/*", "application/json"),
            (None, "application/json"),
        ],
    )
    def test_response_media_type_follows_accept(self, client, accept, expected):
        headers = {"Accept": accept} if accept else {}
        response = send(client, "hi", headers=headers)
        assert ok(response, expected)["task"]["status"]["state"] == COMPLETED
        # Errors too.
        missing = post(client, "/message:send", {}, headers=headers)
        assert missing.status_code == 400
        assert missing["Content-Type"] == expected

    def test_message_to_a_terminal_task_is_unsupported(self, client):
        task = new_task(client, "done already")
        response = send(client, "more", taskId=task["id"])
        rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")

    def test_message_to_an_unknown_task_is_404(self, client):
        response = send(client, "more", taskId=str(uuid.uuid4()))
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")
        assert Task.objects.count() == 0

    def test_oversized_body_is_413(self, client, settings):
        settings.A2A_APP = {**settings.A2A_APP, "MAX_REQUEST_BYTES": 200}
        response = send(client, "x" * 500)
        error = rest_error(response, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")
        assert error_info(error)["metadata"] == {"maxBytes": "200"}
        assert error["message"] == "Request body exceeds the limit of 200 bytes"
        assert Task.objects.count() == 0

    def test_a_body_at_the_limit_is_read(self, client, settings, conformance_mode):
        body = json.dumps({"message": user_message("x")})
        settings.A2A_APP = {**settings.A2A_APP, "MAX_REQUEST_BYTES": len(body)}
        assert ok(post(client, "/message:send", raw=body))["task"]
        settings.A2A_APP = {**settings.A2A_APP, "MAX_REQUEST_BYTES": len(body) - 1}
        too_large = post(client, "/message:send", raw=body)
        rest_error(too_large, 413, "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE")

    @pytest.mark.parametrize(
        "raw",
        [
            b'{"message": {"parts": [{"text": "a\x00b"}]}}',
            b'{"message": {"parts": [{"text": "a\\u0000b"}]}}',
            b'{"message": {"parts": [{"text": "a\\\\\\u0000b"}]}}',
        ],
    )
    def test_nul_is_refused_with_the_reason(self, client, raw):
        error = rest_error(post(client, "/message:send", raw=raw), 400, "INVALID_ARGUMENT")
        assert error["message"] == "Strings must not contain NUL (U+0000) characters"
        assert Task.objects.count() == 0

    def test_an_escaped_backslash_before_u0000_is_no_nul(self, client, conformance_mode):
        raw = json.dumps({"message": user_message("a\\u0000b")})
        task = ok(post(client, "/message:send", raw=raw))["task"]
        assert task["history"][0]["parts"][0]["text"] == "a\\u0000b"

    def test_post_routes_need_no_csrf_token(self, conformance_mode):
        strict = Client(enforce_csrf_checks=True)
        task = new_task(strict, "input csrf")
        created = post(strict, f"/tasks/{task['id']}/pushNotificationConfigs", {"url": HOOK})
        config_id = ok(created)["id"]
        deleted = strict.delete(f"{REST}/tasks/{task['id']}/pushNotificationConfigs/{config_id}")
        assert ok(deleted) == {}
        canceled = post(strict, f"/tasks/{task['id']}:cancel", {})
        assert ok(canceled)["status"]["state"] == CANCELED


# --- GetTask ------------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestGetTask:
    def test_get_returns_the_task(self, client):
        task = new_task(client, "get me")
        assert ok(get(client, f"/tasks/{task['id']}")) == task

    def test_history_length_keeps_the_latest_messages(self, client):
        task = new_task(client, "input one")
        new_task(client, "input two", taskId=task["id"])
        full = ok(get(client, f"/tasks/{task['id']}"))
        assert len(full["history"]) == 4
        one = ok(get(client, f"/tasks/{task['id']}", {"historyLength": 1}))
        assert one["history"] == full["history"][-1:]
        none = ok(get(client, f"/tasks/{task['id']}", {"historyLength": 0}))
        assert "history" not in none
        assert none["status"] == full["status"]

    @pytest.mark.parametrize("value", ["-1", "abc", "1.5"])
    def test_invalid_history_length_is_400(self, client, value):
        task = new_task(client)
        response = get(client, f"/tasks/{task['id']}", {"historyLength": value})
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["historyLength"]

    def test_the_path_id_wins_over_a_query_id(self, client):
        task = new_task(client)
        other = new_task(client)
        got = ok(get(client, f"/tasks/{task['id']}", {"id": other["id"]}))
        assert got["id"] == task["id"]

    @pytest.mark.parametrize("task_id", ["00000000-0000-0000-0000-000000000000", "not-a-uuid"])
    def test_unknown_task_is_404(self, client, task_id):
        response = get(client, f"/tasks/{task_id}")
        error = rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")
        assert error["details"] == [
            {
                "@type": ERROR_INFO,
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"taskId": task_id},
            }
        ]

    def test_huge_history_length_is_not_a_server_error(self, client):
        task = new_task(client)
        response = get(client, f"/tasks/{task['id']}", {"historyLength": "1" + "0" * 20})
        assert response.status_code in (200, 400), response.content


# --- ListTasks ------------------------------------------------------------------------------


@pytest.fixture
def listed_context(client, conformance_mode) -> tuple[str, list[JSON]]:
    """Three tasks in one context, status timestamps a day apart (oldest first); the middle
    one waits for input, the others are completed echoes."""
    first = new_task(client, "first")  # anonymous: listed only in a context we made
    context = first["contextId"]
    tasks = [
        first,
        new_task(client, "input second", contextId=context),
        new_task(client, "third", contextId=context),
    ]
    base = datetime(2030, 1, 1, tzinfo=UTC)
    for day, task in enumerate(tasks):
        Task.objects.filter(pk=task["id"]).update(status_timestamp=base + timedelta(days=day))
    return context, tasks


def ids(body: JSON) -> list[str]:
    return [t["id"] for t in body["tasks"]]


class TestListTasks:
    def test_context_filter_newest_first(self, client, listed_context):
        context, tasks = listed_context
        new_task(client, "elsewhere", contextId="another-context")
        body = ok(get(client, "/tasks", {"contextId": context}))
        assert ids(body) == [t["id"] for t in reversed(tasks)]
        assert body["totalSize"] == 3
        assert body["pageSize"] == 50
        assert body["nextPageToken"] == ""

    def test_status_filter(self, client, listed_context):
        context, tasks = listed_context
        body = ok(get(client, "/tasks", {"contextId": context, "status": COMPLETED}))
        assert ids(body) == [tasks[2]["id"], tasks[0]["id"]]
        assert body["totalSize"] == 2
        waiting = ok(get(client, "/tasks", {"contextId": context, "status": INPUT_REQUIRED}))
        assert ids(waiting) == [tasks[1]["id"]]

    def test_pages(self, client, listed_context):
        context, tasks = listed_context
        first = ok(get(client, "/tasks", {"contextId": context, "pageSize": 2}))
        assert ids(first) == [tasks[2]["id"], tasks[1]["id"]]
        assert first["pageSize"] == 2
        assert first["totalSize"] == 3
        assert first["nextPageToken"]
        query = {"contextId": context, "pageSize": 2, "pageToken": first["nextPageToken"]}
        second = ok(get(client, "/tasks", query))
        assert ids(second) == [tasks[0]["id"]]
        assert second["nextPageToken"] == ""
        assert second["totalSize"] == 3

    def test_history_length(self, client, listed_context):
        context, _ = listed_context
        full = ok(get(client, "/tasks", {"contextId": context}))
        assert [len(t.get("history", [])) for t in full["tasks"]] == [1, 2, 1]
        one = ok(get(client, "/tasks", {"contextId": context, "historyLength": 1}))
        assert [len(t["history"]) for t in one["tasks"]] == [1, 1, 1]
        assert one["tasks"][1]["history"] == full["tasks"][1]["history"][-1:]
        zero = ok(get(client, "/tasks", {"contextId": context, "historyLength": 0}))
        assert all("history" not in t for t in zero["tasks"])

    def test_include_artifacts(self, client, listed_context):
        context, _ = listed_context
        default = ok(get(client, "/tasks", {"contextId": context}))
        assert all("artifacts" not in t for t in default["tasks"])
        off = ok(get(client, "/tasks", {"contextId": context, "includeArtifacts": "false"}))
        assert all("artifacts" not in t for t in off["tasks"])
        on = ok(get(client, "/tasks", {"contextId": context, "includeArtifacts": "true"}))
        assert [[texts(a) for a in t["artifacts"]] for t in on["tasks"]] == [
            [["echo: third"]],
            [],
            [["echo: first"]],
        ]

    @pytest.mark.parametrize("value", ["yes", "1", "True", ""])
    def test_invalid_boolean_is_400(self, client, conformance_mode, value):
        response = get(client, "/tasks", {"contextId": "c", "includeArtifacts": value})
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["includeArtifacts"]
        assert error["message"] == "includeArtifacts: must be true or false"

    def test_repeated_boolean_is_400(self, client, conformance_mode):
        response = client.get(
            f"{REST}/tasks?contextId=c&includeArtifacts=true&includeArtifacts=false"
        )
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert error["message"] == "includeArtifacts: must be true or false"

    def test_nul_in_the_query_names_the_parameter(self, client, conformance_mode):
        error = rest_error(get(client, "/tasks", {"contextId": "a\x00b"}), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["contextId"]
        assert error["message"] == "contextId: must not contain NUL characters"
        repeated = client.get(f"{REST}/tasks?contextId=a&contextId=b%00")
        error = rest_error(repeated, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["contextId"]

    def test_status_timestamp_after_is_inclusive(self, client, listed_context):
        context, tasks = listed_context
        query = {"contextId": context, "statusTimestampAfter": "2030-01-02T00:00:00Z"}
        body = ok(get(client, "/tasks", query))
        assert ids(body) == [tasks[2]["id"], tasks[1]["id"]]
        assert body["totalSize"] == 2
        offset = {"contextId": context, "statusTimestampAfter": "2030-01-03T01:00:00+01:00"}
        assert ids(ok(get(client, "/tasks", offset))) == [tasks[2]["id"]]

    @pytest.mark.parametrize(
        ("query", "field"),
        [
            ({"pageSize": "101"}, "pageSize"),
            ({"pageSize": "0"}, "pageSize"),
            ({"pageSize": "ten"}, "pageSize"),
            ({"historyLength": "-1"}, "historyLength"),
            ({"status": "TASK_STATE_BOGUS"}, "status"),
            ({"statusTimestampAfter": "yesterday"}, "statusTimestampAfter"),
            ({"pageToken": "not-a-token"}, "pageToken"),
        ],
    )
    def test_invalid_query_is_400(self, client, conformance_mode, query, field):
        response = get(client, "/tasks", {"contextId": "c", **query})
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == [field]

    def test_anonymous_list_without_context_is_empty(self, client, listed_context):
        body = ok(get(client, "/tasks"))
        assert body == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}

    def test_context_id_with_a_comma(self, client, conformance_mode, alice):
        headers = basic("alice", "alice-pw")
        task = new_task(client, "comma", contextId="orders,2030", headers=headers)
        body = ok(get(client, "/tasks", {"contextId": "orders,2030"}, **headers))
        assert ids(body) == [task["id"]]

    def test_timestamp_out_of_range_is_400(self, client, conformance_mode):
        query = {"contextId": "c", "statusTimestampAfter": "0001-01-01T00:00:00+01:00"}
        error = rest_error(get(client, "/tasks", query), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["statusTimestampAfter"]

    def test_crafted_page_token_is_400(self, client, conformance_mode):
        token = base64.urlsafe_b64encode(json.dumps(["2030-01-01T00:00:00+00:00", 5]).encode())
        query = {"contextId": "c", "pageToken": token.decode()}
        error = rest_error(get(client, "/tasks", query), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["pageToken"]


@pytest.mark.usefixtures("conformance_mode")
def test_nul_characters_are_not_server_errors(client):
    listed = get(client, "/tasks", {"contextId": "ctx\x00nul"})
    assert listed.status_code in (200, 400), listed.content
    sent = send(client, "hello\x00world")
    assert sent.status_code in (200, 400), sent.content


# --- CancelTask -----------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestCancelTask:
    @pytest.mark.parametrize("body", [None, "{}", '{"metadata":{}}', "null"])
    def test_cancel(self, client, body):
        task = new_task(client, "input wait")
        path = f"{REST}/tasks/{task['id']}:cancel"
        if body is None:  # no body (a Content-Type is required: tests/test_input_limits.py)
            response = client.generic("POST", path, CONTENT_TYPE="application/json")
        else:
            response = client.post(path, body, content_type="application/json")
        canceled = ok(response)
        assert canceled["id"] == task["id"]
        assert canceled["status"]["state"] == CANCELED
        assert Task.objects.get(pk=task["id"]).state == CANCELED

        again = post(client, f"/tasks/{task['id']}:cancel", {})
        error = rest_error(again, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")
        assert error_info(error)["metadata"]["taskId"] == task["id"]

    def test_the_path_id_wins_over_a_body_id(self, client):
        task = new_task(client, "input a")
        other = new_task(client, "input b")
        canceled = ok(post(client, f"/tasks/{task['id']}:cancel", {"id": other["id"]}))
        assert canceled["id"] == task["id"]
        assert Task.objects.get(pk=other["id"]).state == INPUT_REQUIRED

    def test_completed_task_is_not_cancelable(self, client):
        task = new_task(client, "finished")
        response = post(client, f"/tasks/{task['id']}:cancel", {})
        rest_error(response, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")

    def test_unknown_task_is_404(self, client):
        response = post(client, f"/tasks/{uuid.uuid4()}:cancel", {})
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_invalid_bodies(self, client):
        task = new_task(client, "input keep")
        path = f"/tasks/{task['id']}:cancel"
        rest_error(post(client, path, raw="[]"), 400, "INVALID_ARGUMENT")
        rest_error(post(client, path, raw="{"), 400, "INVALID_ARGUMENT")
        error = rest_error(post(client, path, {"metadata": "x"}), 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == ["metadata"]
        rest_error(
            post(client, path, raw="x", content_type="text/plain"),
            415,
            "INVALID_ARGUMENT",
            "CONTENT_TYPE_NOT_SUPPORTED",
        )
        assert Task.objects.get(pk=task["id"]).state == INPUT_REQUIRED


# --- push notification configs ------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestPushConfigs:
    def test_create_list_get_delete(self, client):
        task = new_task(client, "input hook")
        configs = f"/tasks/{task['id']}/pushNotificationConfigs"
        created = ok(
            post(
                client,
                configs,
                {
                    "url": HOOK,
                    "token": "tok-1",
                    "authentication": {"scheme": "Bearer", "credentials": "cred-1"},
                },
            )
        )
        uuid.UUID(created["id"])
        assert created == {
            "id": created["id"],
            "taskId": task["id"],
            "url": HOOK,
            "token": "tok-1",
            "authentication": {"scheme": "Bearer", "credentials": "cred-1"},
        }
        redacted = {
            "id": created["id"],
            "taskId": task["id"],
            "url": HOOK,
            "authentication": {"scheme": "Bearer"},
        }
        listed = ok(get(client, configs))
        assert listed["configs"] == [redacted]
        assert listed.get("nextPageToken", "") == ""
        one = f"{configs}/{created['id']}"
        assert ok(get(client, one)) == redacted
        for body in (listed, ok(get(client, one))):
            assert "tok-1" not in json.dumps(body)
            assert "cred-1" not in json.dumps(body)

        assert ok(client.delete(REST + one)) == {}
        assert ok(client.delete(REST + one)) == {}  # idempotent
        rest_error(get(client, one), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        assert ok(get(client, configs)).get("configs", []) == []

    def test_create_keeps_a_given_id_and_the_path_task_wins(self, client):
        task = new_task(client, "input hook")
        other = new_task(client, "input other")
        body = {"id": "my-hook", "taskId": other["id"], "url": HOOK}
        created = ok(post(client, f"/tasks/{task['id']}/pushNotificationConfigs", body))
        assert (created["id"], created["taskId"]) == ("my-hook", task["id"])
        assert ok(get(client, f"/tasks/{other['id']}/pushNotificationConfigs")) == {"configs": []}

    def test_list_pages(self, client):
        task = new_task(client, "input hooks")
        configs = f"/tasks/{task['id']}/pushNotificationConfigs"
        for n in range(3):
            ok(post(client, configs, {"id": f"h{n}", "url": HOOK}))
        first = ok(get(client, configs, {"pageSize": 2}))
        assert [c["id"] for c in first["configs"]] == ["h0", "h1"]
        second = ok(get(client, configs, {"pageSize": 2, "pageToken": first["nextPageToken"]}))
        assert [c["id"] for c in second["configs"]] == ["h2"]
        assert second.get("nextPageToken", "") == ""

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "url"),
            ({"url": "https://10.0.0.1/hook"}, "url"),
            ({"url": HOOK, "authentication": {"scheme": "not a scheme"}}, "authentication.scheme"),
        ],
    )
    def test_invalid_config_is_400(self, client, body, field):
        task = new_task(client, "input hook")
        response = post(client, f"/tasks/{task['id']}/pushNotificationConfigs", body)
        error = rest_error(response, 400, "INVALID_ARGUMENT")
        assert violated_fields(error) == [field]

    def test_unknown_task_is_404_on_every_config_route(self, client):
        configs = f"/tasks/{uuid.uuid4()}/pushNotificationConfigs"
        rest_error(post(client, configs, {"url": HOOK}), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(get(client, configs), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(get(client, f"{configs}/x"), 404, "NOT_FOUND", "TASK_NOT_FOUND")
        rest_error(client.delete(f"{REST}{configs}/x"), 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_push_disabled(self, client, settings):
        task = new_task(client, "input hook")
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        configs = f"/tasks/{task['id']}/pushNotificationConfigs"
        for response in (post(client, configs, {"url": HOOK}), get(client, configs)):
            rest_error(response, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED")

    @pytest.mark.parametrize(
        ("suffix", "method", "allow"),
        [
            ("", "put", "GET, POST"),
            ("", "delete", "GET, POST"),
            ("", "patch", "GET, POST"),
            ("/h", "put", "GET, DELETE"),
            ("/h", "post", "GET, DELETE"),
            ("/h", "patch", "GET, DELETE"),
        ],
    )
    def test_other_methods_are_405(self, client, suffix, method, allow):
        task = new_task(client, "input hook")
        path = f"{REST}/tasks/{task['id']}/pushNotificationConfigs{suffix}"
        response = getattr(client, method)(path, "{}", content_type="application/json")
        error = rest_error(response, 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
        assert error["message"] == f"{method.upper()} is not allowed here"
        assert response["Allow"] == allow


# --- the extended card, unknown routes, methods, versions, extensions -----------------------


class TestRoutes:
    def test_extended_agent_card_is_unsupported(self, client):
        response = get(client, "/extendedAgentCard")
        rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")

    @pytest.mark.parametrize("path", ["/nope", "", "/", "/tasks/", "/tasks/a/b", "/message:send/x"])
    def test_unknown_route_is_a_json_404(self, client, path):
        for response in (client.get(REST + path), client.post(REST + path)):
            assert response["Content-Type"] == "application/json"
            error = rest_error(response, 404, "NOT_FOUND")
            assert error["message"] == (
                f"No A2A REST route {response.request['REQUEST_METHOD']} {REST}{path}"
            )

    @pytest.mark.parametrize(
        ("method", "path", "allow"),
        [
            ("get", "/message:send", "POST"),
            ("put", "/message:send", "POST"),
            ("get", "/message:stream", "POST"),
            ("post", "/tasks", "GET"),
            ("delete", "/tasks/t-1", "GET"),
            ("post", "/tasks/t-1", "GET"),
            ("get", "/tasks/t-1:cancel", "POST"),
            ("delete", "/tasks/t-1:subscribe", "GET, POST"),
            ("post", "/extendedAgentCard", "GET"),
            # the v0.3 routes, under /v1
            ("get", "/v1/message:send", "POST"),
            ("put", "/v1/message:stream", "POST"),
            ("post", "/v1/tasks/t-1", "GET"),
            ("delete", "/v1/tasks/t-1", "GET"),
            ("get", "/v1/tasks/t-1:cancel", "POST"),
            ("delete", "/v1/tasks/t-1:subscribe", "GET, POST"),
            ("put", "/v1/tasks/t-1/pushNotificationConfigs", "GET, POST"),
            ("post", "/v1/tasks/t-1/pushNotificationConfigs/c", "GET, DELETE"),
            ("post", "/v1/card", "GET"),
        ],
    )
    def test_wrong_method_is_405_with_allow(self, client, method, path, allow):
        response = getattr(client, method)(REST + path)
        error = rest_error(response, 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
        assert error["message"] == f"{method.upper()} is not allowed here"
        assert response["Allow"] == allow

    @pytest.mark.usefixtures("conformance_mode")
    @pytest.mark.parametrize("version", ["0.3", "2.0", "banana"])
    def test_unsupported_version_header(self, client, version):
        response = send(client, "v", headers={"A2A-Version": version})
        error = rest_error(response, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert error_info(error)["metadata"] == {
            "requestedVersion": version,
            "supportedVersions": "0.3, 1.0",
        }
        assert error["message"] == (
            f"A2A-Version '{version}' is not supported; supported versions: 0.3, 1.0"
        )
        rest_error(
            get(client, "/tasks", **{"A2A-Version": version}),
            400,
            "FAILED_PRECONDITION",
            "VERSION_NOT_SUPPORTED",
        )
        assert Task.objects.count() == 0

    @pytest.mark.usefixtures("conformance_mode")
    def test_version_in_the_query(self, client):
        response = client.post(
            f"{REST}/message:send?A2A-Version=1.0",
            json.dumps({"message": user_message("q")}),
            content_type="application/json",
        )
        task = ok(response)["task"]
        assert ok(get(client, f"/tasks/{task['id']}", {"A2A-Version": "1.0"}))["id"] == task["id"]
        # Not taken for a request field: ListTasks has no A2A-Version field to reject.
        listed = ok(get(client, "/tasks", {"contextId": task["contextId"], "A2A-Version": "1.0"}))
        assert ids(listed) == [task["id"]]
        refused = get(client, f"/tasks/{task['id']}", {"A2A-Version": "0.3"})
        rest_error(refused, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")

    @pytest.mark.usefixtures("conformance_mode")
    def test_a_site_mounts_the_routes_under_its_own_prefix(self, client, settings):
        # patterns() and _v1() build the route table when urls.py is imported; built here,
        # a change to either shows in this test (mutation testing switches changes on
        # after the import).
        routes = [
            ("message:send", "mounted-send", {"POST": rest._v1("SendMessage", rest._body)}),
            (rf"tasks/{rest.TASK}", None, {"GET": rest._v1("GetTask", rest._task_query)}),
        ]
        checked: list[str] = []
        urlconf = types.ModuleType("mounted_urls")
        urlconf.urlpatterns = [
            *rest.patterns("agents/rest/", routes),
            *rest.patterns(
                "agents/own/",
                [(path, None, methods) for path, _, methods in routes],
                lambda request: checked.append(request.path),
            ),
        ]
        settings.ROOT_URLCONF = urlconf
        assert reverse("mounted-send", urlconf=urlconf) == "/agents/rest/message:send"
        body = json.dumps({"message": user_message("mounted")})

        def send_to(path: str, version: str = "1.0") -> Any:
            headers = {"A2A-Version": version}
            return client.post(path, body, content_type="application/json", headers=headers)

        task = ok(send_to("/agents/rest/message:send"))["task"]
        assert task["status"]["state"] == COMPLETED
        read = ok(client.get(f"/agents/rest/tasks/{task['id']}", {"historyLength": 1}))
        assert read["id"] == task["id"]
        assert len(read["history"]) == 1
        # The default version check is v1.0's.
        refused = send_to("/agents/rest/message:send", "0.3")
        error = rest_error(refused, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        assert error["message"].startswith("A2A-Version '0.3' is not supported")
        wrong_method = client.get("/agents/rest/message:send")
        rest_error(wrong_method, 405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED")
        assert wrong_method["Allow"] == "POST"
        # Each route matches its whole path, under the prefix only.
        for path in ("/x/agents/rest/message:send", "/agents/rest/message:sendx", "/message:send"):
            assert send_to(path).status_code == 404
        assert Task.objects.count() == 1
        # A route table may bring its own version check (the v0.3 routes do).
        own = send_to("/agents/own/message:send", "0.3")
        assert ok(own)["task"]["status"]["state"] == COMPLETED
        assert checked == ["/agents/own/message:send"]

    @pytest.mark.usefixtures("conformance_mode")
    def test_patch_versions_and_no_header_are_v1(self, client):
        assert ok(send(client, "a", headers={"A2A-Version": "1.0.1"}))["task"]
        assert ok(send(client, "b"))["task"]

    @pytest.mark.usefixtures("conformance_mode")
    def test_required_extension(self, client, settings):
        uri = "https://example.com/ext/required"
        settings.A2A_APP = {**settings.A2A_APP, "EXTENSIONS": [{"uri": uri, "required": True}]}
        error = rest_error(
            send(client, "e"), 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"
        )
        assert error_info(error)["metadata"] == {"extension": uri}
        assert error["message"] == (
            f"This agent requires extension {uri}; send it in the A2A-Extensions header"
        )
        # Requested among others, spaces around: activated, and only it is echoed.
        response = send(client, "e", headers={"A2A-Extensions": f" urn:other , {uri} ,"})
        assert ok(response)["task"]["status"]["state"] == COMPLETED
        assert response["A2A-Extensions"] == uri
        response = send(client, "e", headers={"A2A-Extensions": uri})
        assert ok(response)["task"]["status"]["state"] == COMPLETED
        assert response["A2A-Extensions"] == uri


# --- callers ----------------------------------------------------------------------------------


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="alice-pw")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="bob-pw")


@pytest.mark.usefixtures("conformance_mode")
class TestCallers:
    def test_tasks_are_scoped_to_their_owner(self, client, alice, bob):
        alice_h, bob_h = basic("alice", "alice-pw"), basic("bob", "bob-pw")
        task = new_task(client, "input private", headers=alice_h)
        assert Task.objects.get(pk=task["id"]).owner == f"user:{alice.pk}"
        path = f"/tasks/{task['id']}"
        assert ok(get(client, path, **alice_h))["id"] == task["id"]
        for headers in (bob_h, {}):
            rest_error(get(client, path, **headers), 404, "NOT_FOUND", "TASK_NOT_FOUND")
            rest_error(
                post(client, f"{path}:cancel", {}, headers=headers),
                404,
                "NOT_FOUND",
                "TASK_NOT_FOUND",
            )
            rest_error(
                post(client, f"{path}/pushNotificationConfigs", {"url": HOOK}, headers=headers),
                404,
                "NOT_FOUND",
                "TASK_NOT_FOUND",
            )
            rest_error(
                send(client, "steal", taskId=task["id"], headers=headers),
                404,
                "NOT_FOUND",
                "TASK_NOT_FOUND",
            )
        assert ids(ok(get(client, "/tasks", **alice_h))) == [task["id"]]
        assert ids(ok(get(client, "/tasks", **bob_h))) == []
        context = {"contextId": task["contextId"]}
        assert ids(ok(get(client, "/tasks", context, **bob_h))) == []
        assert ids(ok(get(client, "/tasks", context))) == []
        assert Task.objects.get(pk=task["id"]).state == INPUT_REQUIRED

    @pytest.mark.parametrize(
        "authorization", ["wrong-pw", "nobody", "Basic !!!not-base64", "Basic"]
    )
    def test_invalid_credentials_are_401(self, client, alice, authorization):
        if authorization == "wrong-pw":
            headers = basic("alice", "wrong")
        elif authorization == "nobody":
            headers = basic("nobody", "x")
        else:
            headers = {"Authorization": authorization}
        for response in (send(client, "x", headers=headers), get(client, "/tasks", **headers)):
            rest_error(response, 401, "UNAUTHENTICATED", "UNAUTHENTICATED")
            assert response["WWW-Authenticate"].startswith("Basic")
        assert Task.objects.count() == 0


# --- one task, two bindings ---------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestBothBindings:
    def test_created_over_rest_read_over_jsonrpc(self, client, rpc):
        task = new_task(client, "input cross")
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert got == ok(get(client, f"/tasks/{task['id']}"))
        assert got["status"]["state"] == INPUT_REQUIRED
        canceled = rpc("CancelTask", {"id": task["id"]})["result"]
        assert canceled["status"]["state"] == CANCELED
        assert ok(get(client, f"/tasks/{task['id']}"))["status"]["state"] == CANCELED

    def test_created_over_jsonrpc_read_over_rest(self, client, rpc):
        result = rpc("SendMessage", {"message": user_message("input other way")})["result"]
        task = result["task"]
        got = ok(get(client, f"/tasks/{task['id']}"))
        assert got == rpc("GetTask", {"id": task["id"]})["result"]
        done = new_task(client, "finish", taskId=task["id"])
        assert done["status"]["state"] == COMPLETED
        again = rpc("GetTask", {"id": task["id"]})["result"]
        assert again["status"]["state"] == COMPLETED
        assert texts(again["artifacts"][-1]) == ["echo: finish"]
        listed = rpc("ListTasks", {"contextId": task["contextId"]})["result"]
        assert listed == ok(get(client, "/tasks", {"contextId": task["contextId"]}))

    def test_push_config_created_over_rest_is_listed_over_jsonrpc(self, client, rpc):
        task = new_task(client, "input hook")
        created = ok(post(client, f"/tasks/{task['id']}/pushNotificationConfigs", {"url": HOOK}))
        listed = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert listed["configs"] == [created]
        rpc("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": created["id"]})
        assert ok(get(client, f"/tasks/{task['id']}/pushNotificationConfigs"))["configs"] == []


# --- the agent card and the OpenAPI document ----------------------------------------------------


def test_agent_card_lists_jsonrpc_then_rest(client):
    interfaces = ok(client.get("/.well-known/agent-card.json"))["supportedInterfaces"]
    v1 = [
        {
            "url": "http://testserver/a2a/jsonrpc",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
        },
        {
            "url": "http://testserver/a2a/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
        },
    ]
    assert [i for i in interfaces if i["protocolVersion"] == "1.0"] == v1
    assert interfaces[0] == v1[0]  # the preferred interface


#: Each named REST URL pattern and its path template (relative to the interface URL).
ROUTE_TEMPLATES = {
    "rest-send": "/message:send",
    "rest-stream": "/message:stream",
    "rest-tasks": "/tasks",
    "rest-task": "/tasks/{id}",
    "rest-cancel": "/tasks/{id}:cancel",
    "rest-subscribe": "/tasks/{id}:subscribe",
    "rest-push-configs": "/tasks/{taskId}/pushNotificationConfigs",
    "rest-push-config": "/tasks/{taskId}/pushNotificationConfigs/{id}",
    "rest-extended-card": "/extendedAgentCard",
}
#: The interface root (a 404 that names the route) and the document itself.
UNDOCUMENTED = {"rest", "rest-openapi"}
SAMPLES = {"id": "sample-id", "taskId": "sample-task"}
PROBED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def fill(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: SAMPLES[m.group(1)], template)


@pytest.fixture
def openapi_document(client) -> JSON:
    return ok(client.get(f"{REST}/openapi.json"))


class TestOpenAPI:
    def test_document_looks_like_openapi_3_1(self, client, openapi_document):
        doc = openapi_document
        assert doc["openapi"].startswith("3.1")
        assert doc["info"]["title"] and doc["info"]["version"]
        assert doc["servers"] == [{"url": "http://testserver/a2a/rest"}]
        card_body = ok(client.get("/.well-known/agent-card.json"))
        [rest_interface] = [
            i
            for i in card_body["supportedInterfaces"]
            if (i["protocolBinding"], i["protocolVersion"]) == ("HTTP+JSON", "1.0")
        ]
        assert doc["servers"][0]["url"] == rest_interface["url"]
        schemas = doc["components"]["schemas"]
        assert {"Task", "Message", "Part", "Error", "SendMessageRequest"} <= set(schemas)
        operation_ids = []
        for template, operations in doc["paths"].items():
            assert template.startswith("/")
            declared = set(re.findall(r"\{(\w+)\}", template))
            for method, operation in operations.items():
                assert method in {"get", "post", "put", "patch", "delete"}
                operation_ids.append(operation["operationId"])
                assert "200" in operation["responses"]
                assert "400" in operation["responses"]
                path_params = {p["name"] for p in operation["parameters"] if p["in"] == "path"}
                assert path_params == declared, (template, method)
                for parameter in operation["parameters"]:
                    assert parameter["in"] in ("path", "query")
                    assert parameter["required"] is (parameter["in"] == "path")
        assert len(operation_ids) == len(set(operation_ids))

        def refs(node: Any) -> Iterator[str]:
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "$ref":
                        yield value
                    else:
                        yield from refs(value)
            elif isinstance(node, list):
                for item in node:
                    yield from refs(item)

        all_refs = set(refs(doc))
        assert all_refs
        for ref in all_refs:
            assert ref.startswith("#/components/schemas/")
            assert ref.removeprefix("#/components/schemas/") in schemas, ref

    def test_every_named_rest_pattern_is_documented(self, openapi_document):
        named = {p.name for p in rest_urlpatterns if p.name}
        assert named - UNDOCUMENTED == set(ROUTE_TEMPLATES)
        assert set(openapi_document["paths"]) == set(ROUTE_TEMPLATES.values())

    @pytest.mark.parametrize("name", sorted(ROUTE_TEMPLATES))
    def test_documented_path_resolves_to_its_view(self, name):
        pattern = next(p for p in rest_urlpatterns if p.name == name)
        match = resolve(REST + fill(ROUTE_TEMPLATES[name]))
        assert match.url_name == name
        assert match.namespace == "a2a_app"
        assert match.func is pattern.callback
        expected = {
            {"taskId": "task_id"}.get(param, param): SAMPLES[param]
            for param in re.findall(r"\{(\w+)\}", ROUTE_TEMPLATES[name])
        }
        assert match.kwargs == expected

    @pytest.mark.parametrize("name", sorted(ROUTE_TEMPLATES))
    def test_documented_methods_are_the_served_ones(self, client, openapi_document, name):
        """The methods a route does not answer with 405 are exactly the documented ones."""
        template = ROUTE_TEMPLATES[name]
        documented = {m.upper() for m in openapi_document["paths"][template]}
        served = set()
        for method in PROBED_METHODS:
            response = client.generic(method, REST + fill(template))
            assert response["Content-Type"] == "application/json"
            if response.status_code == 405:
                assert set(response["Allow"].split(", ")) == documented
            else:
                served.add(method)
        assert served == documented

    def test_served_document_is_the_module_document(self, openapi_document):
        from a2a_app.bindings import openapi

        assert openapi_document == openapi.document("http://testserver/a2a/rest")


# --- streams: refused under WSGI ------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestStreamsUnderWsgi:
    @pytest.mark.parametrize("method", ["get", "post"])
    def test_subscribe_is_unsupported(self, client, method):
        task = new_task(client, "input wait")
        response = getattr(client, method)(f"{REST}/tasks/{task['id']}:subscribe")
        error = rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
        assert error["message"] == (
            "Streaming needs the site to be served by an ASGI server "
            "(capabilities.streaming is false here)"
        )

    def test_stream_is_unsupported(self, client):
        response = post(client, "/message:stream", {"message": user_message("hello")})
        rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
        assert Task.objects.count() == 0


# --- streams under ASGI -----------------------------------------------------------------------


def run(scenario: Any) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, SCENARIO_TIMEOUT))


class RestStream:
    """An open SSE response whose data lines are bare StreamResponse objects."""

    def __init__(self, response: Any) -> None:
        assert response.status_code == 200, response.content
        assert response.streaming, response.content
        assert response["Content-Type"] == "text/event-stream"
        assert response["Cache-Control"] == "no-cache"
        self.raw: list[bytes] = []
        self._iter = self._events(response)

    async def _events(self, response: Any) -> AsyncIterator[JSON]:
        buffer = b""
        async for chunk in response.streaming_content:
            self.raw.append(chunk)
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                assert b"\n" not in event, event
                if event.startswith(b":"):
                    continue  # keep-alive
                assert event.startswith(b"data: "), event
                yield json.loads(event.removeprefix(b"data: "))
        assert buffer == b""

    async def event(self) -> JSON | None:
        try:
            event = await asyncio.wait_for(anext(self._iter), FRAME_TIMEOUT)
        except StopAsyncIteration:
            return None
        assert set(event) <= PAYLOADS and len(event) == 1, event  # no JSON-RPC envelope
        return event

    async def rest(self) -> list[JSON]:
        out = []
        while (event := await self.event()) is not None:
            out.append(event)
        return out


def summary(events: list[JSON]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for event in events:
        [kind] = event
        if kind == "task":
            out.append(("task", event["task"]["status"]["state"]))
        elif kind == "statusUpdate":
            out.append(("status", event["statusUpdate"]["status"]["state"]))
        elif kind == "artifactUpdate":
            out.append(("artifact", *texts(event["artifactUpdate"]["artifact"])))
        else:
            out.append(("message", *texts(event["message"])))
    return [item for i, item in enumerate(out) if i == 0 or out[i - 1] != item]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("conformance_mode")
class TestStreamsUnderAsgi:
    @pytest.fixture(autouse=True)
    def _streams(self, fast_streams, dispatched) -> None:
        """Streams poll often; background runs are recorded, run by the tests."""

    def submitted(self, text: str = "sleep 0") -> JSON:
        """A background task stored SUBMITTED; nobody runs it until the test says so."""
        configuration = {"returnImmediately": True}
        task = new_task(Client(), text, configuration=configuration)
        assert task["status"]["state"] == SUBMITTED
        return task

    def test_message_stream_events_are_bare(self):
        async def scenario():
            response = await AsyncClient().post(
                f"{REST}/message:stream",
                json.dumps({"message": user_message("hello stream")}),
                content_type="application/json",
                headers={"Accept": "text/event-stream"},
            )
            stream = RestStream(response)
            return stream, await stream.rest()

        stream, events = run(scenario())
        assert summary(events) == [
            ("task", SUBMITTED),
            ("status", WORKING),
            ("artifact", "echo: hello stream"),
            ("status", COMPLETED),
        ]
        task = events[0]["task"]
        for event in events[1:]:
            [(kind, payload)] = event.items()
            assert payload["taskId"] == task["id"], event
            assert payload["contextId"] == task["contextId"], event
        body = b"".join(stream.raw)
        assert body.startswith(b"data: {")
        assert b'"jsonrpc"' not in body
        assert Task.objects.get(pk=task["id"]).state == COMPLETED

    def test_message_stream_direct_reply_is_one_event(self):
        async def scenario():
            message = user_message("x", messageId=f"tck-message-response-{uuid.uuid4()}")
            response = await AsyncClient().post(
                f"{REST}/message:stream",
                json.dumps({"message": message}),
                content_type=A2A_JSON,
            )
            return await RestStream(response).rest()

        assert summary(run(scenario())) == [("message", "Direct message response")]

    @pytest.mark.parametrize("method", ["get", "post"])
    def test_subscribe_to_a_running_task(self, method, dispatched, later):
        task = self.submitted()
        assert dispatched.runs == [task["id"]]

        async def scenario():
            response = await getattr(AsyncClient(), method)(f"{REST}/tasks/{task['id']}:subscribe")
            stream = RestStream(response)
            first = await stream.event()
            worker = later(runner.execute, task["id"], delay=0.2)
            return first, await stream.rest(), worker

        first, rest, worker = run(scenario())
        assert worker.outcome() == COMPLETED
        assert first["task"]["id"] == task["id"]
        assert first["task"]["status"]["state"] == SUBMITTED
        assert summary(rest) == [
            ("status", WORKING),
            ("artifact", "echo: sleep 0"),
            ("status", COMPLETED),
        ]

    def test_subscribe_to_a_terminal_task_is_not_a_stream(self):
        task = new_task(Client(), "all done")
        response = run(AsyncClient().get(f"{REST}/tasks/{task['id']}:subscribe"))
        error = rest_error(response, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
        assert error_info(error)["metadata"]["taskId"] == task["id"]

    def test_subscribe_to_an_unknown_task_is_404(self):
        response = run(AsyncClient().post(f"{REST}/tasks/{uuid.uuid4()}:subscribe"))
        rest_error(response, 404, "NOT_FOUND", "TASK_NOT_FOUND")

    def test_errors_before_the_stream_are_plain_responses(self):
        async def scenario():
            aclient = AsyncClient()
            bad = await aclient.post(
                f"{REST}/message:stream",
                json.dumps({"message": user_message("x", parts=[])}),
                content_type="application/json",
            )
            old = await aclient.post(
                f"{REST}/message:stream",
                json.dumps({"message": user_message("x")}),
                content_type="application/json",
                headers={"A2A-Version": "0.3"},
            )
            plain = await aclient.post(f"{REST}/message:stream", "x", content_type="text/plain")
            return bad, old, plain

        bad, old, plain = run(scenario())
        assert violated_fields(rest_error(bad, 400, "INVALID_ARGUMENT")) == ["message.parts"]
        rest_error(old, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
        rest_error(plain, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
        assert Task.objects.count() == 0


def test_a_view_marked_limits_body_is_one_the_asgi_handler_limits(settings):
    """``http.limits_body`` is what a site's own endpoint uses to have its bodies limited
    while they are read; the ASGI handler finds the mark on the resolved view."""
    from a2a_app import asgi
    from a2a_app.bindings import http

    def upload(request):
        return None

    def other(request):
        return None

    marked = http.limits_body(upload)
    assert marked is upload
    urlconf = types.ModuleType("site_urls")
    urlconf.urlpatterns = [url_path("upload/", marked), url_path("other/", other)]
    settings.ROOT_URLCONF = urlconf
    assert asgi._has_body_limit({"path": "/upload/"}) is True
    assert asgi._has_body_limit({"path": "/other/"}) is False
