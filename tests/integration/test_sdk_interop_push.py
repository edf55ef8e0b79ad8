"""Interop: background tasks and push notifications driven by the official ``a2a-sdk`` client.

Written against ``a2a-sdk==1.3.0`` (a test-only dependency). Every A2A call goes through
the SDK client; webhooks land on the ``receiver`` fixture. The server runs with the fast
settings (``start_web``) and a real Celery worker (``start_worker``) runs ``sleep N``.

Each test is a plain synchronous pytest test that runs its scenario with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from a2a.client import Client
from a2a.types import (
    AuthenticationInfo,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration,
    StreamResponse,
    Task,
    TaskNotFoundError,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP
from google.protobuf import json_format  # an a2a-sdk dependency

from tests.integration.sdk import (
    run,
    sdk_session,
    state_name,
    text_of,
    user_message,
)
from tests.integration.sdk import send_for_task as send_message_for_task

pytestmark = pytest.mark.integration


async def send_for_task(
    client: Client, text: str, configuration: SendMessageConfiguration | None = None
) -> Task:
    return await send_message_for_task(client, user_message(text), configuration=configuration)


ACTIVE = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)


# --------------------------------------------------------------------------- helpers


def bearer_config(url: str, credentials: str, task_id: str = "") -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(
        task_id=task_id,
        url=url,
        authentication=AuthenticationInfo(scheme="Bearer", credentials=credentials),
    )


async def poll_until(client: Client, task_id: str, states: set[int], timeout: float = 30) -> Task:
    deadline = time.monotonic() + timeout
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if task.status.state in states:
            return task
        if time.monotonic() > deadline:
            pytest.fail(f"task {task_id} still {state_name(task)} after {timeout} s")
        await asyncio.sleep(0.1)


async def wait_received(receiver: Any, done: Callable[[list[Any]], bool], timeout: float = 30):
    """Wait (off the event loop) until ``done(received)`` holds; return what arrived."""
    deadline = time.monotonic() + timeout
    while not done(list(receiver.received)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return list(receiver.received)


def kind(body: dict[str, Any]) -> tuple[str, str]:
    """("status", state) or ("artifact", text) for one v1.0 StreamResponse JSON body."""
    if "statusUpdate" in body:
        return ("status", body["statusUpdate"]["status"]["state"])
    if "artifactUpdate" in body:
        return ("artifact", body["artifactUpdate"]["artifact"]["parts"][0]["text"])
    return ("other", json.dumps(body))


def completed_received(received: list[Any]) -> bool:
    return ("status", "TASK_STATE_COMPLETED") in [kind(r.body) for r in received]


# --------------------------------------------------------------------------- tests


def test_return_immediately_then_get_task_until_completed(start_web, start_worker) -> None:
    base = start_web()
    start_worker()

    async def scenario() -> None:
        async with sdk_session(base) as s:
            config = SendMessageConfiguration(return_immediately=True)
            task = await send_for_task(s.client, "sleep 2", config)
            assert s.last_params()["configuration"] == {"returnImmediately": True}
            assert task.id and task.context_id
            assert task.status.state in ACTIVE, state_name(task)

            done = await poll_until(s.client, task.id, {TaskState.TASK_STATE_COMPLETED})
            assert done.id == task.id
            assert done.context_id == task.context_id
            assert [text_of(a.parts) for a in done.artifacts] == ["echo: sleep 2"]

    run(scenario())


def test_push_config_crud_on_input_required_task(start_web, receiver) -> None:
    base = start_web()

    async def scenario() -> None:
        async with sdk_session(base) as s:
            task = await send_for_task(s.client, "input x")
            assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, state_name(task)

            created = await s.client.create_task_push_notification_config(
                bearer_config(receiver.url, "tok", task_id=task.id)
            )
            assert s.last_params("CreateTaskPushNotificationConfig")["taskId"] == task.id
            assert created.id
            assert created.task_id == task.id
            assert created.url == receiver.url
            assert created.authentication.scheme == "Bearer"

            got = await s.client.get_task_push_notification_config(
                GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            )
            assert (got.id, got.task_id, got.url) == (created.id, task.id, receiver.url)
            assert got.authentication.scheme == "Bearer"
            assert got.authentication.credentials == ""  # redacted on reads
            assert got.token == ""

            listed = await s.client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            assert [(c.id, c.url) for c in listed.configs] == [(created.id, receiver.url)]
            assert all(c.authentication.credentials == "" for c in listed.configs)

            delete = DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
            assert await s.client.delete_task_push_notification_config(delete) is None
            assert await s.client.delete_task_push_notification_config(delete) is None

            with pytest.raises(TaskNotFoundError) as excinfo:
                await s.client.get_task_push_notification_config(
                    GetTaskPushNotificationConfigRequest(task_id=task.id, id=created.id)
                )
            assert JSON_RPC_ERROR_CODE_MAP[type(excinfo.value)] == -32001

            listed = await s.client.list_task_push_notification_configs(
                ListTaskPushNotificationConfigsRequest(task_id=task.id)
            )
            assert list(listed.configs) == []

    run(scenario())
    assert receiver.received == []  # no event happened after the config was created


def test_push_config_in_send_message_delivers_every_event(
    start_web, start_worker, receiver
) -> None:
    base = start_web()
    start_worker()

    async def scenario() -> tuple[Task, list[Any]]:
        async with sdk_session(base) as s:
            config = SendMessageConfiguration(
                return_immediately=True,
                task_push_notification_config=bearer_config(receiver.url, "push-cred"),
            )
            task = await send_for_task(s.client, "sleep 1", config)
            wire = s.last_params()["configuration"]
            assert wire["returnImmediately"] is True
            assert wire["taskPushNotificationConfig"]["url"] == receiver.url
            assert task.status.state in ACTIVE, state_name(task)
            received = await wait_received(receiver, lambda r: len(r) >= 4)
            done = await poll_until(s.client, task.id, {TaskState.TASK_STATE_COMPLETED})
            assert [text_of(a.parts) for a in done.artifacts] == ["echo: sleep 1"]
            return task, received

    task, received = run(scenario())
    assert [kind(r.body) for r in received] == [
        ("status", "TASK_STATE_SUBMITTED"),
        ("status", "TASK_STATE_WORKING"),
        ("artifact", "echo: sleep 1"),
        ("status", "TASK_STATE_COMPLETED"),
    ]
    for r in received:
        assert r.headers["Authorization"] == "Bearer push-cred"

    # Every payload is valid v1.0 ProtoJSON for the SDK's own StreamResponse (strict parse:
    # unknown fields or bad enum/timestamp values would raise json_format.ParseError).
    parsed = [json_format.Parse(json.dumps(r.body), StreamResponse()) for r in received]
    assert [p.WhichOneof("payload") for p in parsed] == [
        "status_update",
        "status_update",
        "artifact_update",
        "status_update",
    ]
    for p in parsed:
        event = getattr(p, p.WhichOneof("payload"))
        assert event.task_id == task.id
        assert event.context_id == task.context_id
    assert parsed[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert parsed[-1].status_update.status.HasField("timestamp")
    assert text_of(parsed[2].artifact_update.artifact.parts) == "echo: sleep 1"


def test_push_config_created_for_running_task_gets_later_events(
    start_web, start_worker, receiver
) -> None:
    base = start_web()
    start_worker()

    async def scenario() -> tuple[Task, list[Any]]:
        async with sdk_session(base) as s:
            config = SendMessageConfiguration(return_immediately=True)
            task = await send_for_task(s.client, "sleep 3", config)
            assert task.status.state in ACTIVE, state_name(task)
            await poll_until(s.client, task.id, {TaskState.TASK_STATE_WORKING})

            created = await s.client.create_task_push_notification_config(
                bearer_config(receiver.url, "late-cred", task_id=task.id)
            )
            assert created.id and created.url == receiver.url
            running = await s.client.get_task(GetTaskRequest(id=task.id))
            assert running.status.state == TaskState.TASK_STATE_WORKING, state_name(running)

            await poll_until(s.client, task.id, {TaskState.TASK_STATE_COMPLETED})
            received = await wait_received(receiver, completed_received)
            return task, received

    task, received = run(scenario())
    kinds = [kind(r.body) for r in received]
    # SUBMITTED and WORKING happened before the config existed: only the later events come.
    assert kinds == [("artifact", "echo: sleep 3"), ("status", "TASK_STATE_COMPLETED")]
    for r in received:
        assert r.headers["Authorization"] == "Bearer late-cred"
        parsed = json_format.Parse(json.dumps(r.body), StreamResponse())
        assert getattr(parsed, parsed.WhichOneof("payload")).task_id == task.id
