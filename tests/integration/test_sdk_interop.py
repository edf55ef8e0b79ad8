"""Interop: drive our live A2A server with the official ``a2a-sdk`` client.

Written against ``a2a-sdk==1.3.0`` (a test-only dependency). The server under
test runs in conformance mode; the base URL comes from the
``conformance_server_url`` fixture (tests/conftest.py).

Each test is a plain synchronous pytest test that runs its scenario with
``asyncio.run`` (no pytest-asyncio needed).
"""

from __future__ import annotations

import uuid

import pytest
from a2a.client import Client
from a2a.types import (
    Artifact,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Role,
    Task,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskState,
)
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP

from tests.integration.sdk import (
    CARD_PATH,
    JSONRPC_PATH,
    ask_then_answer,
    run,
    sdk_session,
    send,
    send_for_task,
    state_name,
    text_of,
    user_message,
)

pytestmark = pytest.mark.integration

# --------------------------------------------------------------------------- helpers


def echo_artifacts(task: Task) -> list[Artifact]:
    return [a for a in task.artifacts if a.name == "echo"]


async def new_input_required_task(client: Client) -> Task:
    task = await send_for_task(
        client, user_message("start", message_id=f"tck-input-required-{uuid.uuid4()}")
    )
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, state_name(task)
    return task


# --------------------------------------------------------------------------- tests


def test_card_resolves_and_client_targets_jsonrpc_interface(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            card = s.card
            assert card.name
            iface = card.supported_interfaces[0]
            assert iface.url == s.base_url + JSONRPC_PATH
            assert iface.protocol_binding == "JSONRPC"
            assert iface.protocol_version == "1.0"
            assert "conformance" in [skill.id for skill in card.skills]
            assert card.capabilities.streaming  # served by uvicorn (ASGI)
            assert card.capabilities.push_notifications
            assert not card.capabilities.extended_agent_card
            assert isinstance(s.client, Client)

            assert [str(r.url) for r in s.sent] == [s.base_url + CARD_PATH]

            text = f"card check {uuid.uuid4()}"
            task = await send_for_task(s.client, user_message(text))
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)

            rpc = s.sent[-1]
            assert rpc.method == "POST"
            assert str(rpc.url) == iface.url
            assert rpc.headers.get("A2A-Version") == "1.0"
            assert b'"SendMessage"' in rpc.content  # non-streaming method chosen

    run(scenario())


def test_blocking_send_returns_completed_task_with_echo_artifact(
    conformance_server_url: str,
) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            text = f"hello interop {uuid.uuid4()}"
            task = await send_for_task(s.client, user_message(text))

            assert task.id
            assert task.context_id
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)
            assert task.status.HasField("timestamp")
            echoes = echo_artifacts(task)
            assert len(echoes) == 1, list(task.artifacts)
            assert echoes[0].artifact_id
            assert text_of(echoes[0].parts) == f"echo: {text}"

            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            assert fetched.id == task.id
            assert fetched.context_id == task.context_id
            assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
            assert [text_of(a.parts) for a in echo_artifacts(fetched)] == [f"echo: {text}"]

    run(scenario())


def test_direct_message_reply_for_tck_message_id(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            msg = user_message("anything", message_id=f"tck-message-response-{uuid.uuid4()}")
            event = await send(s.client, msg)

            assert event.WhichOneof("payload") == "message", event
            reply = event.message
            assert reply.role == Role.ROLE_AGENT
            assert reply.message_id
            assert reply.message_id != msg.message_id
            assert reply.context_id
            assert text_of(reply.parts) == "Direct message response"

    run(scenario())


def test_direct_message_reply_echoes_message_text(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            text = f"message ping {uuid.uuid4()}"
            event = await send(s.client, user_message(text))

            assert event.WhichOneof("payload") == "message", event
            assert event.message.role == Role.ROLE_AGENT
            assert text_of(event.message.parts) == f"echo: {text}"

    run(scenario())


@pytest.mark.parametrize("trigger", ["message_id", "text"])
def test_input_required_then_follow_up_completes_same_task(
    conformance_server_url: str, trigger: str
) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            first, second, task = await ask_then_answer(s, trigger)
            assert [a.name for a in task.artifacts] == ["echo"]

            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            assert fetched.status.state == TaskState.TASK_STATE_COMPLETED
            user_ids = [m.message_id for m in fetched.history if m.role == Role.ROLE_USER]
            assert first.message_id in user_ids, user_ids
            assert second.message_id in user_ids, user_ids
            assert user_ids.index(first.message_id) < user_ids.index(second.message_id)

    run(scenario())


def test_tck_complete_task(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            msg = user_message("go", message_id=f"tck-complete-task-{uuid.uuid4()}")
            task = await send_for_task(s.client, msg)

            assert task.status.state == TaskState.TASK_STATE_COMPLETED, state_name(task)
            agent_texts = [text_of(task.status.message.parts)]
            agent_texts += [text_of(m.parts) for m in task.history if m.role == Role.ROLE_AGENT]
            agent_texts += [text_of(a.parts) for a in task.artifacts]
            assert "Hello from TCK" in agent_texts, agent_texts

    run(scenario())


def test_list_tasks_pagination_within_context(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            first = await send_for_task(s.client, user_message(f"list one {uuid.uuid4()}"))
            ctx = first.context_id
            assert ctx
            created = [first]
            for n in ("two", "three"):
                t = await send_for_task(
                    s.client, user_message(f"list {n} {uuid.uuid4()}", context_id=ctx)
                )
                assert t.context_id == ctx
                created.append(t)
            created_ids = {t.id for t in created}
            assert len(created_ids) == 3

            page1 = await s.client.list_tasks(ListTasksRequest(context_id=ctx, page_size=2))
            assert len(page1.tasks) == 2
            assert page1.next_page_token != ""
            assert page1.total_size == 3
            assert page1.page_size == 2

            page2 = await s.client.list_tasks(
                ListTasksRequest(context_id=ctx, page_size=2, page_token=page1.next_page_token)
            )
            assert len(page2.tasks) == 1
            assert page2.next_page_token == ""
            assert page2.total_size == 3

            listed = list(page1.tasks) + list(page2.tasks)
            assert {t.id for t in listed} == created_ids
            assert all(t.context_id == ctx for t in listed)
            assert all(t.status.state == TaskState.TASK_STATE_COMPLETED for t in listed)
            stamps = [t.status.timestamp.ToNanoseconds() for t in listed]
            assert stamps == sorted(stamps, reverse=True), "not sorted by status timestamp desc"

    run(scenario())


def test_cancel_input_required_task_then_second_cancel_fails(
    conformance_server_url: str,
) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            task = await new_input_required_task(s.client)

            canceled = await s.client.cancel_task(CancelTaskRequest(id=task.id))
            assert canceled.id == task.id
            assert canceled.context_id == task.context_id
            assert canceled.status.state == TaskState.TASK_STATE_CANCELED, state_name(canceled)

            fetched = await s.client.get_task(GetTaskRequest(id=task.id))
            assert fetched.status.state == TaskState.TASK_STATE_CANCELED

            with pytest.raises(TaskNotCancelableError) as excinfo:
                await s.client.cancel_task(CancelTaskRequest(id=task.id))
            assert JSON_RPC_ERROR_CODE_MAP[type(excinfo.value)] == -32002
            assert excinfo.value.message

    run(scenario())


def test_get_unknown_task_raises_task_not_found(conformance_server_url: str) -> None:
    async def scenario() -> None:
        async with sdk_session(conformance_server_url) as s:
            with pytest.raises(TaskNotFoundError) as excinfo:
                await s.client.get_task(GetTaskRequest(id=str(uuid.uuid4())))
            assert JSON_RPC_ERROR_CODE_MAP[type(excinfo.value)] == -32001
            assert excinfo.value.message

    run(scenario())
