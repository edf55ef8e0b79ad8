"""Interop over HTTP+JSON: the official ``a2a-sdk`` 1.3.0 client on our REST binding.

The same operations as test_sdk_interop.py (JSON-RPC), but the client is configured with
``supported_protocol_bindings=["HTTP+JSON"]``, so it picks the card's HTTP+JSON interface
(``…/a2a/rest``) although the card prefers JSON-RPC. Every HTTP request the SDK sends is
recorded and checked to target ``/a2a/rest/…``. Streams need a real worker
(``start_web`` + ``start_worker``, Redis); the rest runs on ``conformance_server_url``.

Each test is a plain synchronous pytest test that runs its scenario with ``asyncio.run``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from a2a.client.transports.rest import RestTransport
from a2a.types import (
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskPushNotificationConfig,
    TaskState,
)

from tests.integration.sdk import (
    JSONRPC_PATH,
    ask_then_answer,
    run,
    send,
    send_for_task,
    state_name,
    text_of,
    user_message,
)
from tests.integration.sdk import sdk_session as any_sdk_session

pytestmark = pytest.mark.integration


def sdk_session(base_url: str, *, streaming: bool = False) -> Any:
    """A session whose client speaks HTTP+JSON only."""
    return any_sdk_session(base_url, streaming=streaming, rest=True)


HOOK = "http://127.0.0.1:9/hook"  # conformance mode accepts loopback webhooks


# --------------------------------------------------------------------------- helpers


def describe(event: StreamResponse) -> str:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return "task:" + TaskState.Name(event.task.status.state).removeprefix("TASK_STATE_")
    if kind == "status_update":
        return TaskState.Name(event.status_update.status.state).removeprefix("TASK_STATE_")
    return kind


# --------------------------------------------------------------------------- tests


def test_client_picks_the_rest_interface(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            v1 = [i for i in s.card.supported_interfaces if i.protocol_version == "1.0"]
            assert [(i.protocol_binding, i.url) for i in v1] == [
                ("JSONRPC", s.base_url + JSONRPC_PATH),
                ("HTTP+JSON", s.rest_url),
            ]
            transport = s.client._transport  # the SDK has no public accessor
            assert isinstance(transport, RestTransport)
            assert transport.url == s.rest_url

            text = f"rest card check {uuid.uuid4()}"
            task = await send_for_task(s.client, user_message(text))
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)

            assert s.calls() == [("POST", "/message:send")]
            request = s.sent[-1]
            body = json.loads(request.content)
            assert "jsonrpc" not in body
            assert body["message"]["parts"] == [{"text": text}]

    run(scenario())


def test_blocking_send_then_get_task(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            text = f"hello rest {uuid.uuid4()}"
            task = await send_for_task(s.client, user_message(text))
            assert task.id and task.context_id
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)
            assert task.status.HasField("timestamp")
            assert [(a.name, text_of(a.parts)) for a in task.artifacts] == [
                ("echo", f"echo: {text}")
            ]

            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            assert fetched.id == task.id
            assert fetched.context_id == task.context_id
            assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
            assert [text_of(a.parts) for a in fetched.artifacts] == [f"echo: {text}"]

            trimmed = await s.client.get_task(GetTaskRequest(id=task.id, history_length=0))
            assert list(trimmed.history) == []

            assert s.calls() == [
                ("POST", "/message:send"),
                ("GET", f"/tasks/{task.id}"),
                ("GET", f"/tasks/{task.id}"),
            ]
            assert s.sent[-1].url.params["historyLength"] == "0"

    run(scenario())


def test_direct_message_replies(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            msg = user_message("anything", message_id=f"tck-message-response-{uuid.uuid4()}")
            event = await send(s.client, msg)
            assert event.WhichOneof("payload") == "message", event
            assert event.message.role == Role.ROLE_AGENT
            assert event.message.message_id and event.message.message_id != msg.message_id
            assert event.message.context_id
            assert text_of(event.message.parts) == "Direct message response"

            text = f"message ping {uuid.uuid4()}"
            event = await send(s.client, user_message(text))
            assert event.WhichOneof("payload") == "message", event
            assert text_of(event.message.parts) == f"echo: {text}"
            s.calls()

    run(scenario())


@pytest.mark.parametrize("trigger", ["message_id", "text"])
def test_input_required_then_follow_up_completes_same_task(
    conformance_server_url: str, trigger: str
) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            first, second, task = await ask_then_answer(s, trigger)

            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            user_ids = [m.message_id for m in fetched.history if m.role == Role.ROLE_USER]
            assert user_ids == [first.message_id, second.message_id]
            s.calls()

    run(scenario())


def test_tck_complete_task(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            msg = user_message("go", message_id=f"tck-complete-task-{uuid.uuid4()}")
            task = await send_for_task(s.client, msg)
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)
            assert text_of(task.status.message.parts) == "Hello from TCK"
            s.calls()

    run(scenario())


def test_list_tasks_pagination_within_context(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            first = await send_for_task(s.client, user_message(f"list one {uuid.uuid4()}"))
            ctx = first.context_id
            created = [first]
            for n in ("two", "three"):
                message = user_message(f"list {n} {uuid.uuid4()}", context_id=ctx)
                created.append(await send_for_task(s.client, message))
            assert len({t.id for t in created}) == 3

            page1 = await s.client.list_tasks(ListTasksRequest(context_id=ctx, page_size=2))
            assert len(page1.tasks) == 2
            assert page1.next_page_token != ""
            assert (page1.total_size, page1.page_size) == (3, 2)
            assert dict(s.sent[-1].url.params) == {"contextId": ctx, "pageSize": "2"}

            page2 = await s.client.list_tasks(
                ListTasksRequest(context_id=ctx, page_size=2, page_token=page1.next_page_token)
            )
            assert len(page2.tasks) == 1
            assert page2.next_page_token == ""
            assert page2.total_size == 3

            listed = list(page1.tasks) + list(page2.tasks)
            assert [t.id for t in listed] == [t.id for t in reversed(created)]
            assert all(t.status.state == TaskState.TASK_STATE_COMPLETED for t in listed)
            assert all(len(t.artifacts) == 0 for t in listed)  # includeArtifacts defaults off

            with_artifacts = await s.client.list_tasks(
                ListTasksRequest(context_id=ctx, include_artifacts=True, history_length=0)
            )
            assert s.sent[-1].url.params["includeArtifacts"] == "true"
            assert all(len(t.artifacts) == 1 for t in with_artifacts.tasks)
            assert all(len(t.history) == 0 for t in with_artifacts.tasks)
            assert [m for m, _ in s.calls()][-3:] == ["GET", "GET", "GET"]

    run(scenario())


def test_cancel_then_second_cancel_fails(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            message = user_message("start", message_id=f"tck-input-required-{uuid.uuid4()}")
            task = await send_for_task(s.client, message)
            assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

            canceled = await s.client.cancel_task(CancelTaskRequest(id=task.id))
            assert canceled.id == task.id
            assert canceled.status.state == TaskState.TASK_STATE_CANCELED, state_name(canceled)
            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            assert fetched.status.state == TaskState.TASK_STATE_CANCELED

            with pytest.raises(TaskNotCancelableError) as excinfo:
                await s.client.cancel_task(CancelTaskRequest(id=task.id))
            assert excinfo.value.message
            assert s.calls()[-1] == ("POST", f"/tasks/{task.id}:cancel")

    run(scenario())


def test_unknown_task_raises_task_not_found(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            unknown = str(uuid.uuid4())
            with pytest.raises(TaskNotFoundError) as excinfo:
                await s.client.get_task(GetTaskRequest(id=unknown))
            assert excinfo.value.message
            with pytest.raises(TaskNotFoundError):
                await s.client.cancel_task(CancelTaskRequest(id=unknown))
            assert s.calls() == [("GET", f"/tasks/{unknown}"), ("POST", f"/tasks/{unknown}:cancel")]

    run(scenario())


def test_push_config_create_get_list_delete(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            task = await send_for_task(s.client, user_message(f"input hook {uuid.uuid4()}"))
            assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, state_name(task)

            created = await s.client.create_task_push_notification_config(
                TaskPushNotificationConfig(
                    task_id=task.id,
                    url=HOOK,
                    token="tok-1",
                    authentication=AuthenticationInfo(scheme="Bearer", credentials="cred-1"),
                )
            )
            assert created.id
            assert (created.task_id, created.url, created.token) == (task.id, HOOK, "tok-1")
            assert created.authentication.credentials == "cred-1"

            got = await s.client.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            )
            assert (got.id, got.task_id, got.url) == (created.id, task.id, HOOK)
            assert got.authentication.scheme == "Bearer"
            assert (got.authentication.credentials, got.token) == ("", "")  # redacted

            listed = await s.client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            assert [(c.id, c.url) for c in listed.configs] == [(created.id, HOOK)]
            assert all(c.authentication.credentials == "" for c in listed.configs)

            delete = DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            assert await s.client.delete_task_push_notification_config(delete) is None
            assert await s.client.delete_task_push_notification_config(delete) is None

            with pytest.raises(TaskNotFoundError):
                await s.client.get_task_push_notification_config(
                    GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
                )
            listed = await s.client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            assert list(listed.configs) == []

            configs = f"/tasks/{task.id}/pushNotificationConfigs"
            assert s.calls()[1:] == [
                ("POST", configs),
                ("GET", f"{configs}/{created.id}"),
                ("GET", configs),
                ("DELETE", f"{configs}/{created.id}"),
                ("DELETE", f"{configs}/{created.id}"),
                ("GET", f"{configs}/{created.id}"),
                ("GET", configs),
            ]

    run(scenario())


def test_streaming_send_to_a_background_skill(start_web, start_worker) -> None:
    start_worker()
    base = start_web()

    async def scenario() -> tuple[list[StreamResponse], list[tuple[str, str]]]:
        async with sdk_session(base, streaming=True) as s:
            assert s.card.capabilities.streaming
            request = SendMessageRequest(
                message=user_message("sleep 1"), configuration=SendMessageConfiguration()
            )
            events = [event async for event in s.client.send_message(request)]
            return events, s.calls()

    events, calls = run(scenario())
    assert [describe(e) for e in events] == [
        "task:SUBMITTED",
        "WORKING",
        "artifact_update",
        "COMPLETED",
    ]
    assert events[2].artifact_update.artifact.parts[0].text == "echo: sleep 1"
    task_id = events[0].task.id
    assert all(getattr(e, e.WhichOneof("payload")).task_id == task_id for e in events[1:])
    assert calls == [("POST", "/message:stream")]


def test_subscribe_to_a_running_task(start_web, start_worker) -> None:
    start_worker()
    base = start_web()

    async def scenario() -> tuple[str, list[StreamResponse], list[tuple[str, str]]]:
        async with (
            sdk_session(base) as plain,
            sdk_session(base, streaming=True) as streaming,
        ):
            configuration = SendMessageConfiguration(return_immediately=True)
            task = await send_for_task(
                plain.client, user_message("sleep 2"), configuration=configuration
            )
            assert task.status.state in (
                TaskState.TASK_STATE_SUBMITTED,
                TaskState.TASK_STATE_WORKING,
            ), state_name(task)
            request = SubscribeToTaskRequest(id=task.id)
            events = [e async for e in streaming.client.subscribe(request)]
            assert plain.calls() == [("POST", "/message:send")]
            return task.id, events, streaming.calls()

    task_id, events, calls = run(scenario())
    kinds = [describe(e) for e in events]
    assert kinds[0] in ("task:SUBMITTED", "task:WORKING"), kinds
    assert events[0].task.id == task_id
    assert kinds[-1] == "COMPLETED", kinds
    assert "artifact_update" in kinds
    assert calls == [("POST", f"/tasks/{task_id}:subscribe")]
