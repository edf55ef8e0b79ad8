"""What the interop tests share: the official ``a2a-sdk`` client (a test-only
dependency), sessions made from our card, and small readers of its protobuf types.

Without the SDK, ``conftest.py`` leaves the interop tests out on a developer machine;
in CI (``CI`` set) a missing SDK is a broken environment and fails the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import httpx  # an a2a-sdk dependency
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskState,
)
from a2a.utils.constants import TransportProtocol

REST_PATH = "/a2a/rest"
JSONRPC_PATH = "/a2a/jsonrpc"
CARD_PATH = "/.well-known/agent-card.json"


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coro)


def text_of(parts: Any) -> str:
    """The text parts of a message or artifact, joined."""
    return "".join(p.text for p in parts if p.WhichOneof("content") == "text")


def state_name(task: Task) -> str:
    return TaskState.Name(task.status.state)


@dataclasses.dataclass
class Session:
    """An SDK client made from our card, and every HTTP request it sent, in order."""

    base_url: str
    card: AgentCard
    client: Client
    sent: list[httpx.Request]

    @property
    def rest_url(self) -> str:
        return self.base_url + REST_PATH

    def last_params(self, method: str = "SendMessage") -> dict[str, Any]:
        """The params of the last JSON-RPC request, which must be ``method``."""
        rpc = json.loads(self.sent[-1].content)
        assert rpc["method"] == method, rpc
        return rpc["params"]

    def calls(self) -> list[tuple[str, str]]:
        """(method, path below the REST interface) of every A2A request, card fetch aside."""
        out = []
        for request in self.sent:
            url = str(request.url)
            if url == self.base_url + CARD_PATH:
                continue
            assert JSONRPC_PATH not in url, url
            assert url.startswith(self.rest_url + "/"), url
            assert request.headers.get("A2A-Version") == "1.0", request.headers
            out.append((request.method, request.url.path.removeprefix(REST_PATH)))
        return out


@contextlib.asynccontextmanager
async def sdk_session(
    base_url: str, *, streaming: bool = False, rest: bool = False, timeout: float = 60.0
) -> AsyncIterator[Session]:
    """Resolve the card with the SDK's resolver and build a client from it.

    ``streaming=False`` makes the SDK use the non-streaming SendMessage even though our
    card (served by uvicorn) declares streaming; ``rest=True`` makes it speak HTTP+JSON
    only (JSON-RPC is its first choice otherwise).
    """
    base_url = base_url.rstrip("/")
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(timeout=timeout, event_hooks={"request": [record]}) as http:
        options: dict[str, Any] = {"httpx_client": http, "streaming": streaming}
        if rest:
            options["supported_protocol_bindings"] = [TransportProtocol.HTTP_JSON]
        card = await A2ACardResolver(http, base_url).get_agent_card()
        client = ClientFactory(ClientConfig(**options)).create(card)
        try:
            yield Session(base_url=base_url, card=card, client=client, sent=sent)
        finally:
            await client.close()  # the shared httpx client is closed by the `async with`


def user_message(
    text: str, *, message_id: str | None = None, task_id: str = "", context_id: str = ""
) -> Message:
    return Message(
        message_id=message_id or f"interop-{uuid.uuid4()}",
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


async def send(
    client: Client, message: Message, configuration: SendMessageConfiguration | None = None
) -> StreamResponse:
    """Non-streaming SendMessage: the SDK yields exactly one event."""
    request = SendMessageRequest(message=message, configuration=configuration)
    events = [event async for event in client.send_message(request)]
    assert len(events) == 1, events
    return events[0]


async def send_for_task(client: Client, message: Message, **kwargs: Any) -> Task:
    event = await send(client, message, **kwargs)
    assert event.WhichOneof("payload") == "task", event
    return event.task


async def ask_then_answer(session: Session, trigger: str) -> tuple[Message, Message, Task]:
    """A task that asks for input (by messageId prefix or by text), answered on the same
    task: (first message, answer, the completed task), checked on the way."""
    if trigger == "message_id":
        first = user_message("start", message_id=f"tck-input-required-{uuid.uuid4()}")
    else:
        first = user_message(f"input please {uuid.uuid4()}")
    task = await send_for_task(session.client, first)
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, state_name(task)
    assert task.id and task.context_id
    assert task.status.message.role == Role.ROLE_AGENT

    follow_text = f"here is more {uuid.uuid4()}"
    second = user_message(follow_text, task_id=task.id, context_id=task.context_id)
    done = await send_for_task(session.client, second)
    assert (done.id, done.context_id) == (task.id, task.context_id)
    assert done.status.state == TaskState.TASK_STATE_COMPLETED, state_name(done)
    assert f"echo: {follow_text}" in [text_of(a.parts) for a in done.artifacts]
    return first, second, done
