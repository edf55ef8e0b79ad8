"""v0.3 clients on the JSON-RPC endpoint (spec reference §6): every v0.3 method, in process.

v0.3 payloads go in and come out: ``kind`` discriminators, ``kind`` parts, lowercase roles
and states, bare Task/Message results, ``final`` on the last stream event, the wrapped
push-config shape. The version header decides which dialect a method may be called in,
v0.3 and v1.0 see the same tasks, the pre-0.3 ``tasks/send`` of old guides still works,
and webhooks registered by v0.3 clients carry v0.3 bodies.

Streams need ASGI, so they go through ``AsyncClient`` inside ``asyncio.run`` (with a
timeout on every read, as in ``test_streaming``). No worker runs: a background task
makes progress when a test calls ``runner.execute`` from another thread.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from django.test import AsyncClient, Client

from a2a_app.core import runner
from a2a_app.models import Delivery, PushConfig, Task
from a2a_app.push import delivery
from a2a_app.push import senders as webhooks
from a2a_app.push.senders import WebhookResult
from tests.conftest import user_message as v1_message
from tests.support import SCENARIO_TIMEOUT, error_of, violated_fields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fast_streams", "no_dns")]

JSON = dict[str, Any]
HOOK = "http://127.0.0.1:9/hook"
FRAME_TIMEOUT = 5.0
V03_KINDS = {"task", "message", "status-update", "artifact-update"}
V1_STATES = {"TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING"}

V03_METHODS = (
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "tasks/send",
)


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def enqueued(dispatched) -> list[str]:
    """Task ids handed to a worker (none runs them unless a test does)."""
    return dispatched.runs


@pytest.fixture(autouse=True)
def scheduled(dispatched) -> list[tuple[list[int], float]]:
    """Webhook configs whose deliveries were scheduled: (config ids, countdown) per call."""
    return dispatched.deliveries


# --- helpers --------------------------------------------------------------------------------


def message(text: str = "hello", **fields: Any) -> JSON:
    """A v0.3 user message."""
    out: JSON = {
        "kind": "message",
        "messageId": fields.pop("messageId", f"m03-{uuid.uuid4().hex}"),
        "role": "user",
        "parts": fields.pop("parts", [{"kind": "text", "text": text}]),
    }
    out.update(fields)
    return out


def send_params(text: str = "hello", configuration: JSON | None = None, **fields: Any) -> JSON:
    params: JSON = {"message": message(text, **fields)}
    if configuration is not None:
        params["configuration"] = configuration
    return params


def result(body: JSON) -> Any:
    assert "error" not in body, body["error"]
    assert "result" in body, body
    return body["result"]


def send(rpc, text: str = "hello", configuration: JSON | None = None, **fields: Any) -> JSON:
    return result(rpc("message/send", send_params(text, configuration, **fields)))


def texts(obj: JSON | None) -> list[str]:
    return [p["text"] for p in (obj or {}).get("parts", []) if p.get("kind") == "text"]


def assert_v03_message(msg: JSON, role: str) -> None:
    assert msg["kind"] == "message"
    assert msg["role"] == role
    assert msg["messageId"]
    for part in msg["parts"]:
        assert part["kind"] in ("text", "file", "data"), part


def assert_v03_task(task: JSON) -> None:
    """A bare v0.3 Task: ``kind``, lowercase state, v0.3 messages and parts throughout."""
    assert task["kind"] == "task"
    assert set(task) >= {"id", "contextId", "status"}
    assert "task" not in task  # not the v1.0 wrapper
    assert task["status"]["state"] not in V1_STATES
    assert task["status"]["state"].islower()
    if task["status"].get("message"):
        assert_v03_message(task["status"]["message"], "agent")
    for msg in task.get("history", []):
        assert msg["kind"] == "message"
        assert msg["role"] in ("user", "agent")
    for artifact in task.get("artifacts", []):
        assert "kind" not in artifact
        for part in artifact["parts"]:
            assert part["kind"] in ("text", "file", "data"), part


def input_required(rpc, text: str = "input x") -> JSON:
    task = send(rpc, text)
    assert task["status"]["state"] == "input-required"
    return task


# --- streams ------------------------------------------------------------------------------


def run(scenario: Any) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, SCENARIO_TIMEOUT))


async def apost(
    client: AsyncClient, method: str, params: Any, headers: dict[str, str] | None = None
) -> Any:
    payload = {"jsonrpc": "2.0", "id": "s1", "method": method, "params": params}
    return await client.post(
        "/a2a/jsonrpc", json.dumps(payload), content_type="application/json", headers=headers or {}
    )


async def sse_data(response: Any) -> AsyncIterator[JSON]:
    """The JSON-RPC responses of an SSE stream (keep-alive comments skipped)."""
    buffer = b""
    async for chunk in response.streaming_content:
        buffer += chunk
        while b"\n\n" in buffer:
            raw, buffer = buffer.split(b"\n\n", 1)
            line = raw.decode()
            if line.startswith(":"):
                continue
            assert line.startswith("data: ") and "\n" not in line, raw
            yield json.loads(line.removeprefix("data: "))
    assert buffer == b""


class Stream:
    def __init__(self, response: Any) -> None:
        assert response.status_code == 200, response.content
        assert response.streaming, response.content
        assert response["Content-Type"] == "text/event-stream"
        self._iter = sse_data(response)

    async def event(self) -> JSON | None:
        """The next ``result`` (a bare v0.3 event), or None when the stream has ended."""
        try:
            frame = await asyncio.wait_for(anext(self._iter), FRAME_TIMEOUT)
        except StopAsyncIteration:
            return None
        assert frame["jsonrpc"] == "2.0" and frame["id"] == "s1", frame
        return result(frame)

    async def rest(self) -> list[JSON]:
        out = []
        while (event := await self.event()) is not None:
            out.append(event)
        return out


async def open_stream(method: str, params: Any, **kwargs: Any) -> Stream:
    return Stream(await apost(AsyncClient(), method, params, **kwargs))


async def stream_all(method: str, params: Any, **kwargs: Any) -> list[JSON]:
    return await (await open_stream(method, params, **kwargs)).rest()


def summary(events: list[JSON]) -> list[tuple[Any, ...]]:
    """(kind, state-or-texts, final) per event; repeated WORKING updates folded."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        assert event["kind"] in V03_KINDS, event
        if event["kind"] == "task":
            item: tuple[Any, ...] = ("task", event["status"]["state"])
        elif event["kind"] == "message":
            item = ("message", *texts(event))
        elif event["kind"] == "status-update":
            item = ("status-update", event["status"]["state"], event["final"])
        else:
            item = ("artifact-update", *texts(event["artifact"]))
        if not out or out[-1] != item:
            out.append(item)
    return out


def assert_final_only_on_last(events: list[JSON]) -> None:
    """``final`` is on every status update (REQUIRED in v0.3), true only on the last event."""
    for event in events[:-1]:
        assert event.get("final", False) is False, event
        if event["kind"] == "status-update":
            assert event["final"] is False
        if event["kind"] in ("task", "message", "artifact-update"):
            assert "final" not in event, event
    last = events[-1]
    assert last["kind"] == "status-update", last
    assert last["final"] is True
    assert last["status"]["state"] in ("completed", "input-required", "canceled", "failed")


def assert_event_ids(events: list[JSON], task_id: str, context_id: str) -> None:
    for event in events:
        if event["kind"] in ("status-update", "artifact-update"):
            assert event["taskId"] == task_id, event
            assert event["contextId"] == context_id, event


# --- message/send -------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestMessageSend:
    def test_blocking_echo_is_a_bare_completed_task(self, rpc):
        sent = send_params("hello")
        task = result(rpc("message/send", sent))
        assert_v03_task(task)
        uuid.UUID(task["id"])
        assert task["contextId"]
        assert task["status"]["state"] == "completed"
        [artifact] = task["artifacts"]
        assert artifact["name"] == "echo"
        assert artifact["parts"] == [{"kind": "text", "text": "echo: hello"}]
        assert task["history"][0] == {
            **sent["message"],
            "taskId": task["id"],
            "contextId": task["contextId"],
        }

    def test_absent_blocking_blocks(self, rpc):
        params = send_params("hello", configuration={"acceptedOutputModes": ["text/plain"]})
        assert result(rpc("message/send", params))["status"]["state"] == "completed"

    def test_a_direct_reply_is_a_bare_message(self, rpc):
        reply = send(rpc, "message hi")
        assert set(reply) >= {"kind", "messageId", "role", "parts"}
        assert_v03_message(reply, "agent")
        assert reply["parts"] == [{"kind": "text", "text": "echo: message hi"}]
        assert "message" not in reply  # not the v1.0 wrapper
        assert Task.objects.count() == 0

    def test_input_required(self, rpc):
        task = input_required(rpc)
        assert_v03_task(task)
        assert texts(task["status"]["message"]) == ["More input needed: input x"]

    def test_follow_up_continues_the_task(self, rpc):
        task = input_required(rpc)
        done = send(rpc, "more", taskId=task["id"], contextId=task["contextId"])
        assert done["id"] == task["id"]
        assert done["status"]["state"] == "completed"
        users = [texts(m) for m in done["history"] if m["role"] == "user"]
        assert users == [["input x"], ["more"]]

    def test_non_blocking_returns_the_submitted_task(self, rpc, enqueued):
        task = send(rpc, "sleep 1", configuration={"blocking": False})
        assert_v03_task(task)
        assert task["status"]["state"] == "submitted"

    def test_file_and_data_parts_round_trip(self, rpc):
        parts = [
            {"kind": "text", "text": "hello", "metadata": {"n": 1}},
            {
                "kind": "file",
                "file": {
                    "bytes": base64.b64encode(b"menu").decode(),
                    "name": "menu.txt",
                    "mimeType": "text/plain",
                },
            },
            {
                "kind": "file",
                "file": {"uri": "https://example.com/m.txt", "mimeType": "text/plain"},
            },
            {"kind": "data", "data": {"guests": 4}},
        ]
        task = send(rpc, parts=parts)
        assert task["status"]["state"] == "completed"
        assert task["history"][0]["parts"] == parts
        # The same parts seen by a v1.0 client.
        v1 = result(rpc("GetTask", {"id": task["id"]}))["history"][0]["parts"]
        assert v1[0] == {"text": "hello", "metadata": {"n": 1}}
        assert v1[1]["raw"] == parts[1]["file"]["bytes"]
        assert v1[1]["filename"] == "menu.txt" and v1[1]["mediaType"] == "text/plain"
        assert v1[2] == {"url": "https://example.com/m.txt", "mediaType": "text/plain"}
        assert v1[3]["data"] == {"guests": 4}

    @pytest.mark.parametrize(
        ("prefix", "part"),
        [
            ("tck-artifact-text", {"kind": "text", "text": "Generated text content"}),
            (
                "tck-artifact-file-url",
                {
                    "kind": "file",
                    "file": {
                        "uri": "https://example.com/output.txt",
                        "name": "output.txt",
                        "mimeType": "text/plain",
                    },
                },
            ),
            (
                "tck-artifact-file",
                {
                    "kind": "file",
                    "file": {
                        "bytes": base64.b64encode(b"Generated file content").decode(),
                        "name": "output.txt",
                        "mimeType": "text/plain",
                    },
                },
            ),
            ("tck-artifact-data", {"kind": "data", "data": {"key": "value", "count": 42}}),
        ],
    )
    def test_artifact_parts_are_v03(self, rpc, prefix, part):
        task = send(rpc, "tck", messageId=f"{prefix}-{uuid.uuid4().hex[:8]}")
        assert_v03_task(task)
        [artifact] = task["artifacts"]
        assert artifact["parts"] == [part]

    def test_history_length(self, rpc):
        task = input_required(rpc)
        done = send(rpc, "more", configuration={"historyLength": 1}, taskId=task["id"])
        assert len(done["history"]) == 1

    def test_rejected_and_failed_states(self, rpc):
        assert send(rpc, "fail")["status"]["state"] == "failed"
        rejected = send(rpc, "tck", messageId=f"tck-reject-task-{uuid.uuid4().hex[:6]}")
        assert rejected["status"]["state"] == "rejected"

    def test_push_config_in_the_send_configuration(self, rpc):
        config = {"url": HOOK, "token": "tok", "authentication": {"schemes": ["Bearer"]}}
        task = send(rpc, "input x", configuration={"pushNotificationConfig": config})
        stored = PushConfig.objects.get(task_id=task["id"])
        assert stored.protocol_version == "0.3"
        assert stored.url == HOOK and stored.token == "tok" and stored.auth_scheme == "Bearer"
        [listed] = result(rpc("tasks/pushNotificationConfig/list", {"id": task["id"]}))
        assert listed["pushNotificationConfig"]["url"] == HOOK


# --- tasks/get and tasks/cancel -----------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestGetAndCancel:
    def test_get_is_the_bare_task(self, rpc):
        task = send(rpc, "hello")
        got = result(rpc("tasks/get", {"id": task["id"]}))
        assert_v03_task(got)
        assert got == task

    def test_get_history_length(self, rpc):
        task = input_required(rpc)
        got = result(rpc("tasks/get", {"id": task["id"], "historyLength": 1}))
        assert len(got["history"]) == 1
        got = result(rpc("tasks/get", {"id": task["id"], "historyLength": 0}))
        assert not got.get("history")

    def test_get_unknown_task(self, rpc):
        error_of(rpc("tasks/get", {"id": str(uuid.uuid4())}), -32001)

    def test_cancel_an_input_required_task(self, rpc):
        task = input_required(rpc)
        canceled = result(rpc("tasks/cancel", {"id": task["id"]}))
        assert_v03_task(canceled)
        assert canceled["id"] == task["id"]
        assert canceled["status"]["state"] == "canceled"
        assert result(rpc("tasks/get", {"id": task["id"]}))["status"]["state"] == "canceled"

    def test_cancel_a_completed_task_is_not_cancelable(self, rpc):
        task = send(rpc, "hello")
        error_of(rpc("tasks/cancel", {"id": task["id"]}), -32002)

    def test_cancel_unknown_task(self, rpc):
        error_of(rpc("tasks/cancel", {"id": str(uuid.uuid4())}), -32001)


# --- message/stream and tasks/resubscribe -----------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("conformance_mode")
class TestStreams:
    def test_echo_stream(self):
        events = run(stream_all("message/stream", send_params("hello")))
        first = events[0]
        assert_v03_task(first)
        assert first["status"]["state"] == "submitted"
        assert summary(events) == [
            ("task", "submitted"),
            ("status-update", "working", False),
            ("artifact-update", "echo: hello"),
            ("status-update", "completed", True),
        ]
        assert_final_only_on_last(events)
        assert_event_ids(events, first["id"], first["contextId"])
        artifact = next(e for e in events if e["kind"] == "artifact-update")["artifact"]
        assert artifact["parts"] == [{"kind": "text", "text": "echo: hello"}]

    def test_input_required_is_final(self):
        events = run(stream_all("message/stream", send_params("input x")))
        assert summary(events)[-1] == ("status-update", "input-required", True)
        assert_final_only_on_last(events)
        status_message = events[-1]["status"]["message"]
        assert_v03_message(status_message, "agent")
        assert texts(status_message) == ["More input needed: input x"]

    def test_failed_is_final(self):
        events = run(stream_all("message/stream", send_params("fail")))
        assert summary(events)[-1] == ("status-update", "failed", True)
        assert_final_only_on_last(events)

    def test_a_direct_reply_is_one_message_event(self):
        events = run(stream_all("message/stream", send_params("message hi")))
        [reply] = events
        assert_v03_message(reply, "agent")
        assert "final" not in reply

    def test_chunked_artifact(self):
        params = send_params("tck", messageId=f"tck-stream-artifact-chunked-{uuid.uuid4().hex}")
        events = run(stream_all("message/stream", params))
        first, second = [e for e in events if e["kind"] == "artifact-update"]
        assert first["artifact"]["artifactId"] == second["artifact"]["artifactId"]
        assert texts(first["artifact"]) == ["chunk-1 "]
        assert texts(second["artifact"]) == ["chunk-2"]
        assert second["append"] is True and second["lastChunk"] is True
        assert_final_only_on_last(events)

    def test_background_stream(self, later, enqueued):
        async def scenario():
            stream = await open_stream("message/stream", send_params("sleep 0"))
            first = await stream.event()
            worker = later(runner.execute, first["id"])
            return first, await stream.rest(), worker

        first, rest, worker = run(scenario())
        assert enqueued == [first["id"]]
        assert worker.outcome() == "TASK_STATE_COMPLETED"
        events = [first, *rest]
        assert summary(events) == [
            ("task", "submitted"),
            ("status-update", "working", False),
            ("artifact-update", "echo: sleep 0"),
            ("status-update", "completed", True),
        ]
        assert_final_only_on_last(events)
        assert_event_ids(events, first["id"], first["contextId"])

    def test_background_stream_snapshot_has_the_user_message(self):
        sent = send_params("sleep 0")

        async def scenario():
            stream = await open_stream("message/stream", sent)
            return await stream.event()

        first = run(scenario())
        assert first["kind"] == "task"
        assert [m["messageId"] for m in first.get("history", [])] == [sent["message"]["messageId"]]

    def test_header_03_and_absent_are_served(self):
        for headers in ({"A2A-Version": "0.3"}, {"A2A-Version": "0.3.0"}, {}):
            events = run(stream_all("message/stream", send_params("hi"), headers=headers))
            assert summary(events)[-1] == ("status-update", "completed", True)

    def test_resubscribe_to_a_submitted_task(self, rpc, later):
        task = send(rpc, "sleep 0", configuration={"blocking": False})
        assert task["status"]["state"] == "submitted"

        async def scenario():
            stream = await open_stream("tasks/resubscribe", {"id": task["id"]})
            snapshot = await stream.event()
            worker = later(runner.execute, task["id"])
            return snapshot, await stream.rest(), worker

        snapshot, rest, worker = run(scenario())
        assert worker.outcome() == "TASK_STATE_COMPLETED"
        assert_v03_task(snapshot)
        assert snapshot["id"] == task["id"]
        assert snapshot["status"]["state"] == "submitted"
        events = [snapshot, *rest]
        assert summary(events) == [
            ("task", "submitted"),
            ("status-update", "working", False),
            ("artifact-update", "echo: sleep 0"),
            ("status-update", "completed", True),
        ]
        assert_final_only_on_last(events)
        assert_event_ids(events, task["id"], task["contextId"])

    def test_resubscribe_ended_by_tasks_cancel(self, rpc):
        task = send(rpc, "sleep 0", configuration={"blocking": False})

        async def scenario():
            stream = await open_stream("tasks/resubscribe", {"id": task["id"]})
            snapshot = await stream.event()
            canceled = await apost(AsyncClient(), "tasks/cancel", {"id": task["id"]})
            return snapshot, json.loads(canceled.content), await stream.rest()

        snapshot, canceled, rest = run(scenario())
        assert snapshot["kind"] == "task"
        assert result(canceled)["status"]["state"] == "canceled"
        assert summary(rest) == [("status-update", "canceled", True)]

    def test_resubscribe_stays_open_until_the_task_ends(self, rpc, later):
        task = input_required(rpc)

        def answer() -> JSON:
            payload = {"jsonrpc": "2.0", "id": 2, "method": "message/send"}
            payload["params"] = send_params("done", taskId=task["id"])
            response = Client().post("/a2a/jsonrpc", payload, content_type="application/json")
            return result(response.json())

        async def scenario():
            stream = await open_stream("tasks/resubscribe", {"id": task["id"]})
            snapshot = await stream.event()
            answered = later(answer)
            return snapshot, await stream.rest(), answered

        snapshot, rest, answered = run(scenario())
        assert answered.outcome()["status"]["state"] == "completed"
        assert_v03_task(snapshot)
        events = [snapshot, *rest]
        assert summary(events) == [
            ("task", "input-required"),
            ("artifact-update", "echo: done"),
            ("status-update", "completed", True),
        ]
        assert_final_only_on_last(events)

    def test_resubscribe_to_a_completed_task(self, rpc):
        task = send(rpc, "hello")
        response = run(apost(AsyncClient(), "tasks/resubscribe", {"id": task["id"]}))
        assert not response.streaming
        error_of(json.loads(response.content), -32004)

    def test_resubscribe_unknown_and_missing_id(self):
        response = run(apost(AsyncClient(), "tasks/resubscribe", {"id": str(uuid.uuid4())}))
        error_of(json.loads(response.content), -32001)
        response = run(apost(AsyncClient(), "tasks/resubscribe", {}))
        error = error_of(json.loads(response.content), -32602)
        assert violated_fields(error) == ["id"]

    def test_stream_bad_params(self):
        response = run(apost(AsyncClient(), "message/stream", {"message": {"role": "user"}}))
        assert not response.streaming
        error = error_of(json.loads(response.content), -32602)
        assert violated_fields(error) == ["message.messageId"]


# --- push notification configs ------------------------------------------------------------


def v03_config(task_id: str, config_id: str = "cfg-1", **fields: Any) -> JSON:
    inner = {
        "id": config_id,
        "url": HOOK,
        "token": "tok-1",
        "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
        **fields,
    }
    return {"taskId": task_id, "pushNotificationConfig": inner}


@pytest.mark.usefixtures("conformance_mode")
class TestPushConfigs:
    def test_set_get_list_delete(self, rpc):
        task = input_required(rpc)
        requested = v03_config(task["id"])
        created = result(rpc("tasks/pushNotificationConfig/set", requested))
        assert created == requested  # the wrapper shape, secrets echoed once
        assert PushConfig.objects.get(config_id="cfg-1").protocol_version == "0.3"

        redacted = {
            "taskId": task["id"],
            "pushNotificationConfig": {
                "id": "cfg-1",
                "url": HOOK,
                "authentication": {"schemes": ["Bearer"]},
            },
        }
        got = result(
            rpc(
                "tasks/pushNotificationConfig/get",
                {"id": task["id"], "pushNotificationConfigId": "cfg-1"},
            )
        )
        assert got == redacted
        # v0.3 may leave out the config id: the task's config.
        assert result(rpc("tasks/pushNotificationConfig/get", {"id": task["id"]})) == redacted

        second = v03_config(task["id"], "cfg-2", token=None, authentication=None)
        second["pushNotificationConfig"] = {
            k: v for k, v in second["pushNotificationConfig"].items() if v is not None
        }
        result(rpc("tasks/pushNotificationConfig/set", second))
        listed = result(rpc("tasks/pushNotificationConfig/list", {"id": task["id"]}))
        assert isinstance(listed, list)  # a bare array, not {"configs": [...]}
        assert listed == [redacted, second]

        body = rpc(
            "tasks/pushNotificationConfig/delete",
            {"id": task["id"], "pushNotificationConfigId": "cfg-1"},
        )
        assert "error" not in body
        assert "result" in body and body["result"] is None
        listed = result(rpc("tasks/pushNotificationConfig/list", {"id": task["id"]}))
        assert listed == [second]

    def test_set_without_an_id_gets_one(self, rpc):
        task = input_required(rpc)
        created = result(
            rpc(
                "tasks/pushNotificationConfig/set",
                {"taskId": task["id"], "pushNotificationConfig": {"url": HOOK}},
            )
        )
        uuid.UUID(created["pushNotificationConfig"]["id"])
        assert created["taskId"] == task["id"]

    def test_get_without_configs_is_not_found(self, rpc):
        task = input_required(rpc)
        error_of(rpc("tasks/pushNotificationConfig/get", {"id": task["id"]}), -32001)

    def test_unknown_task(self, rpc):
        missing = str(uuid.uuid4())
        error_of(rpc("tasks/pushNotificationConfig/set", v03_config(missing)), -32001)
        error_of(rpc("tasks/pushNotificationConfig/list", {"id": missing}), -32001)

    def test_a_private_url_is_refused_naming_the_field(self, rpc):
        task = input_required(rpc)
        params = v03_config(task["id"], url="http://10.0.0.1/hook")
        error = error_of(rpc("tasks/pushNotificationConfig/set", params), -32602)
        assert error["message"].startswith("url")

    def test_push_disabled(self, rpc, settings):
        task = input_required(rpc)
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        error_of(rpc("tasks/pushNotificationConfig/set", v03_config(task["id"])), -32003)
        error_of(rpc("tasks/pushNotificationConfig/list", {"id": task["id"]}), -32003)


class RecordingSender:
    def __init__(self) -> None:
        self.requests: list[webhooks.WebhookRequest] = []

    def send(self, request: webhooks.WebhookRequest, *, timeout: float) -> WebhookResult:
        self.requests.append(request)
        return WebhookResult(200)


@pytest.mark.usefixtures("conformance_mode")
class TestWebhookBodies:
    def test_a_v03_config_gets_v03_bodies_and_a_v1_config_v1_bodies(self, rpc):
        task = input_required(rpc)
        result(rpc("tasks/pushNotificationConfig/set", v03_config(task["id"], "old")))
        v1 = {"taskId": task["id"], "id": "new", "url": HOOK}
        result(rpc("CreateTaskPushNotificationConfig", v1))
        done = send(rpc, "more", taskId=task["id"])
        assert done["status"]["state"] == "completed"

        bodies: dict[str, list[JSON]] = {}
        for config_id in ("old", "new"):
            sender = RecordingSender()
            config = PushConfig.objects.get(task_id=task["id"], config_id=config_id)
            assert delivery.deliver(config.pk, sender=sender) == "done"
            bodies[config_id] = [json.loads(r.body) for r in sender.requests]
            assert {r.headers["X-A2A-Config-Id"] for r in sender.requests} == {config_id}

        old, new = bodies["old"], bodies["new"]
        assert len(old) == len(new) >= 2  # the artifact, then COMPLETED
        for event in old:
            assert event["kind"] in ("status-update", "artifact-update"), event
            assert event["taskId"] == task["id"]
            assert event["contextId"] == task["contextId"]
        assert summary(old)[-2:] == [
            ("artifact-update", "echo: more"),
            ("status-update", "completed", True),
        ]
        assert_final_only_on_last(old)
        for event in new:
            assert "kind" not in event and "final" not in event
            assert len(event) == 1 and set(event) <= {"statusUpdate", "artifactUpdate"}
        assert new[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_v03_webhook_headers(self, rpc):
        task = input_required(rpc)
        result(rpc("tasks/pushNotificationConfig/set", v03_config(task["id"])))
        result(rpc("tasks/cancel", {"id": task["id"]}))
        sender = RecordingSender()
        delivery.deliver(PushConfig.objects.get(task_id=task["id"]).pk, sender=sender)
        [request] = sender.requests
        assert request.url == HOOK
        assert request.headers["X-A2A-Notification-Token"] == "tok-1"
        assert request.headers["Authorization"] == "Bearer secret"
        event = json.loads(request.body)
        assert event["kind"] == "status-update"
        assert event["status"]["state"] == "canceled"
        assert event["final"] is True

    def test_config_from_the_send_configuration_is_v03(self, rpc):
        config = {"url": HOOK}
        task = send(rpc, "hello", configuration={"pushNotificationConfig": config})
        sender = RecordingSender()
        delivery.deliver(PushConfig.objects.get(task_id=task["id"]).pk, sender=sender)
        events = [json.loads(r.body) for r in sender.requests]
        assert events and all(e["kind"] in V03_KINDS for e in events)
        assert events[-1]["status"]["state"] == "completed"
        assert_final_only_on_last(events)
        assert Delivery.objects.filter(task_id=task["id"], status="delivered").count() == len(
            events
        )


# --- the version header ---------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestVersionHeader:
    @pytest.mark.parametrize("method", V03_METHODS)
    @pytest.mark.parametrize("version", ["1.0", "1.0.2"])
    def test_a_v03_method_under_1_0_is_not_found(self, rpc, method, version):
        body = rpc(method, {"id": "x"}, headers={"A2A-Version": version}, request_id="v")
        assert body["id"] == "v"
        error = error_of(body, -32601)
        assert method in error["message"]
        assert Task.objects.count() == 0

    @pytest.mark.parametrize("headers", [{"A2A-Version": "0.3"}, {"A2A-Version": "0.3.0"}, {}])
    def test_v03_methods_under_0_3_or_no_header(self, rpc, headers):
        task = result(rpc("message/send", send_params("input x"), headers=headers))
        assert task["kind"] == "task"
        got = result(rpc("tasks/get", {"id": task["id"]}, headers=headers))
        assert got["status"]["state"] == "input-required"
        listed = result(
            rpc("tasks/pushNotificationConfig/list", {"id": task["id"]}, headers=headers)
        )
        assert listed == []
        canceled = result(rpc("tasks/cancel", {"id": task["id"]}, headers=headers))
        assert canceled["status"]["state"] == "canceled"

    def test_query_parameter(self, client):
        payload = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}
        response = client.post(
            "/a2a/jsonrpc?A2A-Version=1.0", json.dumps(payload), content_type="application/json"
        )
        error_of(response.json(), -32601)

    @pytest.mark.parametrize("method", ["SendMessage", "GetTask", "ListTasks"])
    def test_a_v1_method_under_0_3_is_version_not_supported(self, rpc, method):
        params = {"message": v1_message("x")} if method == "SendMessage" else {"id": "x"}
        error_of(rpc(method, params, headers={"A2A-Version": "0.3"}), -32009)

    def test_an_unknown_version_for_a_v03_method(self, rpc):
        error_of(rpc("message/send", send_params(), headers={"A2A-Version": "0.2"}), -32009)

    def test_extended_card_is_unsupported(self, rpc):
        # The v0.3 card says supportsAuthenticatedExtendedCard: false.
        error_of(rpc("agent/getAuthenticatedExtendedCard"), -32004)


# --- invalid v0.3 params name the field -----------------------------------------------------


def _with_part(part: Any) -> JSON:
    return {"message": message(parts=[part])}


BAD_PARAMS = [
    ("message/send", {}, "message"),
    ("message/send", {"message": "hi"}, "message"),
    ("message/send", {"message": {"role": "user", "parts": []}}, "message.messageId"),
    ("message/send", {"message": message(role="ROLE_USER")}, "message.role"),
    ("message/send", {"message": message(kind="task")}, "message.kind"),
    ("message/send", {"message": {**message(), "parts": None}}, "message.parts"),
    ("message/send", _with_part({"kind": "image"}), "message.parts[0].kind"),
    ("message/send", _with_part({"type": "text", "text": "x"}), "message.parts[0].kind"),
    ("message/send", _with_part({"kind": "text", "text": 5}), "message.parts[0].text"),
    ("message/send", _with_part({"kind": "file", "file": {}}), "message.parts[0].file"),
    (
        "message/send",
        _with_part({"kind": "file", "file": {"bytes": "***"}}),
        "message.parts[0].file.bytes",
    ),
    ("message/send", _with_part({"kind": "data", "data": [1]}), "message.parts[0].data"),
    (
        "message/send",
        {**send_params(), "configuration": {"blocking": "yes"}},
        "configuration.blocking",
    ),
    (
        "message/send",
        {**send_params(), "configuration": {"historyLength": "2"}},
        "configuration.historyLength",
    ),
    (
        "message/send",
        {**send_params(), "configuration": {"pushNotificationConfig": {"token": "t"}}},
        "configuration.pushNotificationConfig.url",
    ),
    ("tasks/get", {}, "id"),
    ("tasks/get", {"id": 5}, "id"),
    ("tasks/get", {"id": "x", "historyLength": "1"}, "historyLength"),
    ("tasks/cancel", {"id": None}, "id"),
    ("tasks/cancel", {"id": "x", "metadata": []}, "metadata"),
    ("tasks/pushNotificationConfig/set", {"pushNotificationConfig": {"url": HOOK}}, "taskId"),
    (
        "tasks/pushNotificationConfig/set",
        {"taskId": "t", "pushNotificationConfig": {}},
        "pushNotificationConfig.url",
    ),
    (
        "tasks/pushNotificationConfig/set",
        {"taskId": "t", "pushNotificationConfig": {"url": HOOK, "authentication": {}}},
        "pushNotificationConfig.authentication.schemes",
    ),
    ("tasks/pushNotificationConfig/get", {"pushNotificationConfigId": "c"}, "id"),
    ("tasks/pushNotificationConfig/list", {}, "id"),
    ("tasks/pushNotificationConfig/delete", {"id": "t"}, "pushNotificationConfigId"),
    ("tasks/send", {"message": {"role": "user", "parts": [{"kind": "text"}]}}, None),
    ("tasks/send", {"message": {"role": "agentish", "parts": []}}, "message.role"),
]


@pytest.mark.usefixtures("conformance_mode")
@pytest.mark.parametrize(("method", "params", "field"), BAD_PARAMS)
def test_bad_v03_params_name_the_field(rpc, method, params, field):
    error = error_of(rpc(method, params), -32602)
    if field is None:  # the pre-0.3 dialect: parts are discriminated by "type"
        field = "message.parts[0].type"
    assert violated_fields(error) == [field]
    assert error["message"].startswith(f"{field}:"), error["message"]
    assert Task.objects.count() == 0


@pytest.mark.usefixtures("conformance_mode")
@pytest.mark.parametrize("method", ["tasks/get", "tasks/cancel", "message/send"])
def test_absent_params(rpc, method):
    error = error_of(rpc(method), -32602)
    assert violated_fields(error) == ["message" if method == "message/send" else "id"]


# --- one store for both generations --------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestSameTasks:
    def test_created_by_v03_read_by_v1(self, rpc):
        task = send(rpc, "hello")
        got = result(rpc("GetTask", {"id": task["id"]}, headers={"A2A-Version": "1.0"}))
        assert got["id"] == task["id"] and got["contextId"] == task["contextId"]
        assert got["status"]["state"] == "TASK_STATE_COMPLETED"
        assert "kind" not in got
        assert got["artifacts"][0]["parts"] == [{"text": "echo: hello"}]
        assert got["history"][0]["role"] == "ROLE_USER"
        listed = result(rpc("ListTasks", {"contextId": task["contextId"]}))
        assert task["id"] in [t["id"] for t in listed["tasks"]]

    def test_created_by_v1_read_by_v03(self, rpc):
        v1 = result(rpc("SendMessage", {"message": v1_message("hello")}))["task"]
        got = result(rpc("tasks/get", {"id": v1["id"]}))
        assert_v03_task(got)
        assert got["id"] == v1["id"] and got["contextId"] == v1["contextId"]
        assert got["status"]["state"] == "completed"
        assert got["artifacts"][0]["parts"] == [{"kind": "text", "text": "echo: hello"}]
        assert got["history"][0]["role"] == "user"

    def test_a_v1_task_continued_and_canceled_by_v03(self, rpc):
        v1 = result(rpc("SendMessage", {"message": v1_message("input x")}))["task"]
        assert v1["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        asked = send(rpc, "input again", taskId=v1["id"], contextId=v1["contextId"])
        assert asked["id"] == v1["id"]
        assert asked["status"]["state"] == "input-required"
        canceled = result(rpc("tasks/cancel", {"id": v1["id"]}))
        assert canceled["status"]["state"] == "canceled"
        got = result(rpc("GetTask", {"id": v1["id"]}))
        assert got["status"]["state"] == "TASK_STATE_CANCELED"
        assert len([m for m in got["history"] if m["role"] == "ROLE_USER"]) == 2

    def test_a_v03_task_continued_by_v1(self, rpc):
        task = input_required(rpc)
        params = {"message": v1_message("more", taskId=task["id"])}
        done = result(rpc("SendMessage", params))["task"]
        assert done["id"] == task["id"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert result(rpc("tasks/get", {"id": task["id"]}))["status"]["state"] == "completed"

    def test_push_configs_are_shared(self, rpc):
        task = input_required(rpc)
        result(rpc("tasks/pushNotificationConfig/set", v03_config(task["id"])))
        v1 = result(rpc("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"}))
        assert v1 == {
            "id": "cfg-1",
            "taskId": task["id"],
            "url": HOOK,
            "authentication": {"scheme": "Bearer"},
        }


# --- the pre-0.3 tasks/send -------------------------------------------------------------------

LEGACY_EXAMPLE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tasks/send",
    "params": {
        "id": "abc",
        "message": {"role": "user", "parts": [{"type": "text", "text": "What is on the menu?"}]},
    },
}


def legacy_send(client, params: JSON) -> JSON:
    payload = {**LEGACY_EXAMPLE, "params": params}
    response = client.post("/a2a/jsonrpc", json.dumps(payload), content_type="application/json")
    assert response.status_code == 200
    return response.json()


def no_kind_anywhere(value: Any) -> bool:
    if isinstance(value, dict):
        return "kind" not in value and all(no_kind_anywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(no_kind_anywhere(v) for v in value)
    return True


@pytest.mark.usefixtures("conformance_mode")
class TestLegacyTasksSend:
    def test_the_guide_example(self, client, rpc):
        response = client.post(
            "/a2a/jsonrpc", json.dumps(LEGACY_EXAMPLE), content_type="application/json"
        )
        assert response.status_code == 200
        body = response.json()
        assert body["id"] == 1
        task = result(body)
        # "abc" names no task of ours: a new one, with the id the answer carries.
        uuid.UUID(task["id"])
        assert task["sessionId"]
        assert task["status"]["state"] == "completed"
        assert task["artifacts"] == [
            {
                "name": "echo",
                "parts": [{"type": "text", "text": "echo: What is on the menu?"}],
                "index": 0,
            }
        ]
        assert task["history"][0] == {
            "role": "user",
            "parts": [{"type": "text", "text": "What is on the menu?"}],
        }
        assert no_kind_anywhere(task)
        assert "contextId" not in task
        # The same task for the other generations.
        got = result(rpc("tasks/get", {"id": task["id"]}))
        assert got["contextId"] == task["sessionId"]
        assert result(rpc("GetTask", {"id": task["id"]}))["status"]["state"] == (
            "TASK_STATE_COMPLETED"
        )

    def test_a_second_send_continues_an_input_required_task(self, client):
        first = result(
            legacy_send(
                client,
                {
                    "id": "abc",
                    "message": {"role": "user", "parts": [{"type": "text", "text": "input x"}]},
                },
            )
        )
        assert first["status"]["state"] == "input-required"
        assert first["status"]["message"]["role"] == "agent"
        assert first["status"]["message"]["parts"][0]["type"] == "text"
        second = result(
            legacy_send(
                client,
                {
                    "id": first["id"],
                    "sessionId": first["sessionId"],
                    "message": {"role": "user", "parts": [{"type": "text", "text": "for four"}]},
                },
            )
        )
        assert second["id"] == first["id"]
        assert second["sessionId"] == first["sessionId"]
        assert second["status"]["state"] == "completed"
        users = [m["parts"][0]["text"] for m in second["history"] if m["role"] == "user"]
        assert users == ["input x", "for four"]
        assert Task.objects.count() == 1

    def test_a_session_id_becomes_the_context(self, client):
        task = result(
            legacy_send(
                client,
                {
                    "id": "t-1",
                    "sessionId": "session-42",
                    "message": {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
                },
            )
        )
        assert task["sessionId"] == "session-42"

    def test_a_legacy_direct_reply(self, client):
        reply = result(
            legacy_send(
                client,
                {
                    "id": "m",
                    "message": {"role": "user", "parts": [{"type": "text", "text": "message x"}]},
                },
            )
        )
        assert reply["role"] == "agent"
        assert texts(reply) == ["echo: message x"]
