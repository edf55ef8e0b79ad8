"""Drive our server with the official a2a-sdk 0.3.x client and report what it saw.

Run in the separate venv that has the 0.3 SDK (``tests/sdk03/requirements.txt``)::

    .venv-sdk03/bin/python tests/sdk03/client.py <base_url> <scenario> [<webhook_url>]

Scenarios: card, send, get, cancel, stream, resubscribe, push (needs <webhook_url>).
Prints exactly one JSON document on stdout: the scenario's observations (kinds, states,
ids, ``final`` flags, the JSON-RPC methods the SDK sent) and, if the SDK raised, an
``error`` with its type, message and JSON-RPC code. It never asserts: the pytest side
(``tests/integration/test_sdk03_interop.py``) judges. Standalone: no project imports.

The 0.3 SDK's ``Client`` has no list/delete push-config calls; those two are sent as the
SDK's own request models and their answers parsed with its response models (what its
``JsonRpcTransport`` does for the other methods).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import traceback
import uuid
from typing import Any

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.types import (
    AgentCard,
    DeleteTaskPushNotificationConfigParams,
    DeleteTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigResponse,
    GetTaskPushNotificationConfigParams,
    JSONRPCErrorResponse,
    ListTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigResponse,
    Message,
    MessageSendConfiguration,
    Part,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskStatusUpdateEvent,
    TextPart,
)

JSON = dict[str, Any]
TIMEOUT = 30.0


# --- views: SDK objects as plain JSON -------------------------------------------------------


def texts(parts: list[Part] | None) -> list[str]:
    return [p.root.text for p in parts or [] if isinstance(p.root, TextPart)]


def task_view(task: Task) -> JSON:
    status_message = task.status.message
    return {
        "kind": task.kind,
        "id": task.id,
        "contextId": task.context_id,
        "state": task.status.state.value,
        "statusText": texts(status_message.parts) if status_message else [],
        "artifacts": [
            {"artifactId": a.artifact_id, "name": a.name, "texts": texts(a.parts)}
            for a in task.artifacts or []
        ],
        "history": [{"role": m.role.value, "kind": m.kind} for m in task.history or []],
    }


def message_view(message: Message) -> JSON:
    return {
        "kind": message.kind,
        "role": message.role.value,
        "messageId": message.message_id,
        "taskId": message.task_id,
        "texts": texts(message.parts),
    }


def update_view(update: TaskStatusUpdateEvent | TaskArtifactUpdateEvent) -> JSON:
    if isinstance(update, TaskStatusUpdateEvent):
        return {
            "kind": update.kind,
            "taskId": update.task_id,
            "contextId": update.context_id,
            "state": update.status.state.value,
            "final": update.final,
        }
    return {
        "kind": update.kind,
        "taskId": update.task_id,
        "contextId": update.context_id,
        "artifactId": update.artifact.artifact_id,
        "texts": texts(update.artifact.parts),
        "append": update.append,
        "lastChunk": update.last_chunk,
    }


def event_view(event: Any) -> JSON:
    """One item of ``Client.send_message``/``resubscribe``: a Message or (Task, update)."""
    if isinstance(event, Message):
        return message_view(event)
    task, update = event
    if update is None:
        return task_view(task)
    return {**update_view(update), "aggregateState": task.status.state.value}


def config_view(config: TaskPushNotificationConfig) -> JSON:
    return config.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_view(exc: BaseException) -> JSON:
    out: JSON = {"type": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, A2AClientJSONRPCError):
        out["code"] = exc.error.code
        out["rpcMessage"] = exc.error.message
    out["traceback"] = traceback.format_exception(exc)[-6:]
    return out


# --- the session --------------------------------------------------------------------------


class Session:
    def __init__(self, base_url: str, http: httpx.AsyncClient) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http
        self.card: AgentCard | None = None

    async def resolve(self) -> AgentCard:
        self.card = await A2ACardResolver(self.http, self.base_url).get_agent_card()
        return self.card

    def client(self, *, streaming: bool) -> Client:
        """A client for the card (never closed: closing would close the shared httpx)."""
        assert self.card is not None
        return ClientFactory(ClientConfig(httpx_client=self.http, streaming=streaming)).create(
            self.card
        )

    async def rpc(self, request: Any, response_model: Any) -> Any:
        """One JSON-RPC call from an SDK request model, parsed by its response model."""
        assert self.card is not None
        response = await self.http.post(
            self.card.url, json=request.model_dump(mode="json", exclude_none=True)
        )
        response.raise_for_status()
        parsed = response_model.model_validate(response.json())
        if isinstance(parsed.root, JSONRPCErrorResponse):
            raise A2AClientJSONRPCError(parsed.root)
        return parsed.root.result


def user_message(text: str, task: Task | None = None) -> Message:
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        message_id=f"sdk03-{uuid.uuid4()}",
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


async def send_one(client: Client, text: str, **kwargs: Any) -> Any:
    """A non-streaming send: exactly one item (a Message, or (Task, None))."""
    events = [event async for event in client.send_message(user_message(text, **kwargs))]
    if len(events) != 1:
        raise RuntimeError(f"expected one result from message/send, got {len(events)}")
    return events[0]


async def send_task(client: Client, text: str, **kwargs: Any) -> Task:
    event = await send_one(client, text, **kwargs)
    if isinstance(event, Message):
        raise RuntimeError(f"expected a Task, got a Message: {message_view(event)}")
    return event[0]


async def expect_rpc_error(out: JSON, key: str, call: Any) -> None:
    """Run ``call``; record the JSON-RPC error it raised (or what it returned instead)."""
    try:
        value = await call
    except A2AClientJSONRPCError as exc:
        out[key] = {"code": exc.error.code, "message": exc.error.message}
    else:
        out[key] = {"unexpectedResult": repr(value)}


# --- scenarios ----------------------------------------------------------------------------


async def scenario_card(s: Session, out: JSON) -> None:
    card = await s.resolve()
    out["card"] = {
        "name": card.name,
        "protocolVersion": card.protocol_version,
        "url": card.url,
        "preferredTransport": card.preferred_transport,
        "additionalInterfaces": [
            {"transport": i.transport, "url": i.url} for i in card.additional_interfaces or []
        ],
        "streaming": card.capabilities.streaming,
        "pushNotifications": card.capabilities.push_notifications,
        "supportsAuthenticatedExtendedCard": card.supports_authenticated_extended_card,
        "skills": [skill.id for skill in card.skills],
    }
    client = s.client(streaming=True)
    transport = client._transport  # which transport and URL the factory chose
    out["transport"] = {"class": type(transport).__name__, "url": getattr(transport, "url", None)}
    fetched = await client.get_card()  # no extended card declared: the same card
    out["getCardName"] = fetched.name


async def scenario_send(s: Session, out: JSON) -> None:
    await s.resolve()
    client = s.client(streaming=False)
    out["task"] = event_view(await send_one(client, "hello"))
    out["message"] = event_view(await send_one(client, "message hi"))
    out["inputRequired"] = event_view(await send_one(client, "input x"))


async def scenario_get(s: Session, out: JSON) -> None:
    await s.resolve()
    client = s.client(streaming=False)
    task = await send_task(client, "input x")
    out["sent"] = task_view(task)
    out["got"] = task_view(await client.get_task(TaskQueryParams(id=task.id)))
    follow_up = await send_task(client, "more", task=task)
    out["followUp"] = task_view(follow_up)
    got = await client.get_task(TaskQueryParams(id=task.id, history_length=1))
    out["gotHistory1"] = task_view(got)
    await expect_rpc_error(
        out, "unknownTask", client.get_task(TaskQueryParams(id=str(uuid.uuid4())))
    )


async def scenario_cancel(s: Session, out: JSON) -> None:
    await s.resolve()
    client = s.client(streaming=False)
    task = await send_task(client, "input x")
    out["sent"] = task_view(task)
    out["canceled"] = task_view(await client.cancel_task(TaskIdParams(id=task.id)))
    out["got"] = task_view(await client.get_task(TaskQueryParams(id=task.id)))
    await expect_rpc_error(out, "cancelAgain", client.cancel_task(TaskIdParams(id=task.id)))


async def scenario_stream(s: Session, out: JSON) -> None:
    await s.resolve()
    client = s.client(streaming=True)
    out["events"] = []
    async for event in client.send_message(user_message("sleep 1")):
        out["events"].append(event_view(event))
    # A direct reply streams as one Message.
    out["messageEvents"] = [
        event_view(event) async for event in client.send_message(user_message("message hi"))
    ]


async def scenario_resubscribe(s: Session, out: JSON) -> None:
    await s.resolve()
    sender = s.client(streaming=False)
    config = MessageSendConfiguration(blocking=False)
    events = [e async for e in sender.send_message(user_message("sleep 2"), configuration=config)]
    task = events[0][0]
    out["sent"] = task_view(task)
    subscriber = s.client(streaming=True)
    out["events"] = [
        event_view(event) async for event in subscriber.resubscribe(TaskIdParams(id=task.id))
    ]
    out["got"] = task_view(await sender.get_task(TaskQueryParams(id=task.id)))


async def scenario_push(s: Session, out: JSON, webhook_url: str) -> None:
    await s.resolve()
    client = s.client(streaming=False)
    task = await send_task(client, "input x")
    out["task"] = task_view(task)

    def config(config_id: str, token: str, credentials: str) -> TaskPushNotificationConfig:
        return TaskPushNotificationConfig(
            task_id=task.id,
            push_notification_config=PushNotificationConfig(
                id=config_id,
                url=webhook_url,
                token=token,
                authentication=PushNotificationAuthenticationInfo(
                    schemes=["Bearer"], credentials=credentials
                ),
            ),
        )

    out["setKeep"] = config_view(await client.set_task_callback(config("keep", "tok-k", "cr-k")))
    out["setDrop"] = config_view(await client.set_task_callback(config("drop", "tok-d", "cr-d")))
    out["getKeep"] = config_view(
        await client.get_task_callback(
            GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="keep")
        )
    )
    list_request = ListTaskPushNotificationConfigRequest(
        id=str(uuid.uuid4()), params=ListTaskPushNotificationConfigParams(id=task.id)
    )
    listed = await s.rpc(list_request, ListTaskPushNotificationConfigResponse)
    out["listed"] = [config_view(c) for c in listed]
    deleted = await s.rpc(
        DeleteTaskPushNotificationConfigRequest(
            id=str(uuid.uuid4()),
            params=DeleteTaskPushNotificationConfigParams(
                id=task.id, push_notification_config_id="drop"
            ),
        ),
        DeleteTaskPushNotificationConfigResponse,
    )
    out["deleted"] = deleted
    listed = await s.rpc(list_request, ListTaskPushNotificationConfigResponse)
    out["listedAfterDelete"] = [config_view(c) for c in listed]
    # Now the task moves on: the events go to the "keep" webhook only.
    out["followUp"] = task_view(await send_task(client, "more", task=task))


SCENARIOS = {
    "card": scenario_card,
    "send": scenario_send,
    "get": scenario_get,
    "cancel": scenario_cancel,
    "stream": scenario_stream,
    "resubscribe": scenario_resubscribe,
    "push": scenario_push,
}


async def main(base_url: str, scenario: str, *args: str) -> JSON:
    out: JSON = {"scenario": scenario, "requests": []}

    async def record(request: httpx.Request) -> None:
        entry: JSON = {"http": request.method, "path": request.url.path}
        if request.method == "POST":
            with contextlib.suppress(ValueError, KeyError, httpx.RequestNotRead):
                entry["method"] = json.loads(request.content)["method"]
        if "A2A-Version" in request.headers:
            entry["a2aVersion"] = request.headers["A2A-Version"]
        out["requests"].append(entry)

    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, event_hooks={"request": [record]}) as http:
            await SCENARIOS[scenario](Session(base_url, http), out, *args)
    except Exception as exc:
        out["error"] = error_view(exc)
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[2] not in SCENARIOS:
        sys.exit(f"usage: {sys.argv[0]} <base_url> <{'|'.join(SCENARIOS)}> [<webhook_url>]")
    result = asyncio.run(main(*sys.argv[1:]))
    print(json.dumps(result, indent=2, default=repr))
