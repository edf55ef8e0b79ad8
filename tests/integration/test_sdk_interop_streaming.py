"""Interop: the official ``a2a-sdk`` 1.3.0 client streams from our live server.

A streaming send to a background skill (the conformance skill's ``sleep N`` runs in a
real Celery worker) and a subscription to a running task, both read with the SDK's own
SSE parsing and types.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)

pytestmark = pytest.mark.integration


def describe(event) -> str:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return "task:" + TaskState.Name(event.task.status.state).removeprefix("TASK_STATE_")
    if kind == "status_update":
        return TaskState.Name(event.status_update.status.state).removeprefix("TASK_STATE_")
    return kind


async def client_for(base: str, http: httpx.AsyncClient):
    card = await A2ACardResolver(http, base).get_agent_card()
    assert card.capabilities.streaming
    return ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)


def test_streaming_send_to_a_background_skill(start_web, start_worker) -> None:
    start_worker()
    base = start_web()
    sent: list[httpx.Request] = []

    async def scenario() -> list:
        async def record(request: httpx.Request) -> None:
            sent.append(request)

        async with httpx.AsyncClient(timeout=60, event_hooks={"request": [record]}) as http:
            client = await client_for(base, http)
            message = Message(
                message_id=f"interop-{uuid.uuid4()}",
                role=Role.ROLE_USER,
                parts=[Part(text="sleep 1")],
            )
            request = SendMessageRequest(message=message, configuration=SendMessageConfiguration())
            return [event async for event in client.send_message(request)]

    events = asyncio.run(scenario())
    assert [describe(e) for e in events] == [
        "task:SUBMITTED",
        "WORKING",
        "artifact_update",
        "COMPLETED",
    ]
    assert events[2].artifact_update.artifact.parts[0].text == "echo: sleep 1"
    task_id = events[0].task.id
    assert all(getattr(e, e.WhichOneof("payload")).task_id == task_id for e in events[1:])
    assert b'"SendStreamingMessage"' in sent[-1].content


def test_subscribe_to_a_running_task(start_web, start_worker) -> None:
    start_worker()
    base = start_web()

    async def scenario() -> list:
        async with httpx.AsyncClient(timeout=60) as http:
            client = await client_for(base, http)
            message = Message(
                message_id=f"interop-{uuid.uuid4()}",
                role=Role.ROLE_USER,
                parts=[Part(text="sleep 2")],
            )
            configuration = SendMessageConfiguration(return_immediately=True)
            # The non-streaming path: SendMessage with returnImmediately gives the task.
            plain = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(
                await A2ACardResolver(http, base).get_agent_card()
            )
            (first,) = [
                e
                async for e in plain.send_message(
                    SendMessageRequest(message=message, configuration=configuration)
                )
            ]
            task_id = first.task.id
            return [e async for e in client.subscribe(SubscribeToTaskRequest(id=task_id))]

    events = asyncio.run(scenario())
    kinds = [describe(e) for e in events]
    assert kinds[0] in ("task:SUBMITTED", "task:WORKING")
    assert kinds[-1] == "COMPLETED"
    assert "artifact_update" in kinds


def test_a_subscription_sees_a_task_answered_elsewhere_to_its_end(start_web) -> None:
    # The TCK's STREAM-SUB-002: subscribe to a task waiting for input, answer it from
    # another connection; the subscription's last event is the terminal one.
    base = start_web()

    async def scenario() -> tuple[list, object]:
        async with httpx.AsyncClient(timeout=60) as http, httpx.AsyncClient(timeout=60) as other:
            client = await client_for(base, http)
            plain = ClientFactory(ClientConfig(httpx_client=other, streaming=False)).create(
                await A2ACardResolver(other, base).get_agent_card()
            )
            ask = Message(
                message_id=f"tck-input-required-{uuid.uuid4()}",
                role=Role.ROLE_USER,
                parts=[Part(text="start")],
            )
            (first,) = [e async for e in plain.send_message(SendMessageRequest(message=ask))]
            task_id = first.task.id
            assert first.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

            async def answer():
                await asyncio.sleep(0.5)
                done = Message(
                    message_id=f"tck-complete-task-{uuid.uuid4()}",
                    role=Role.ROLE_USER,
                    task_id=task_id,
                    parts=[Part(text="Complete")],
                )
                return [e async for e in plain.send_message(SendMessageRequest(message=done))]

            answering = asyncio.create_task(answer())
            events = [e async for e in client.subscribe(SubscribeToTaskRequest(id=task_id))]
            return events, await answering

    events, (answered,) = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert answered.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert [describe(e) for e in events] == ["task:INPUT_REQUIRED", "COMPLETED"]
    assert events[-1].status_update.status.message.parts[0].text == "Hello from TCK"
