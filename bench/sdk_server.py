"""The official a2a-sdk server (Starlette, in-memory task store) with an echo agent.

Optional comparison for ``SendMessage``: the same echo the conformance skill answers
("echo: <text>" as an artifact, task COMPLETED), through the SDK's own JSON-RPC
dispatcher, request handler and ``InMemoryTaskStore``; no database.
Needs ``pip install -r bench/requirements-sdk.txt``; served by
``uvicorn bench.sdk_server:app``. ``BENCH_SDK_URL`` is the base URL put in the card.
"""

from __future__ import annotations

import os

from a2a.helpers import get_message_text, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

BASE_URL = os.environ.get("BENCH_SDK_URL", "http://127.0.0.1:8000")


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        task = context.current_task or new_task_from_user_message(message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = get_message_text(message)
        await updater.add_artifact([new_text_part(f"echo: {text}")], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


card = AgentCard(
    name="SDK echo agent",
    description="The a2a-sdk reference server with an echo agent (benchmark comparison).",
    version="1.0.0",
    supported_interfaces=[
        AgentInterface(
            url=f"{BASE_URL}/a2a/jsonrpc", protocol_binding="JSONRPC", protocol_version="1.0"
        )
    ],
    capabilities=AgentCapabilities(streaming=True, push_notifications=False),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[AgentSkill(id="echo", name="Echo", description="Echoes the text.", tags=["echo"])],
)

handler = DefaultRequestHandler(
    agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
)
app = Starlette(
    routes=[
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/a2a/jsonrpc"),
    ]
)
