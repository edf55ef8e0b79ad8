"""Test helpers for sites that use a2a_app, in the spirit of ``rest_framework.test``.

Run a skill's handler directly, one turn or a conversation, and look at what it
returned and reported::

    from a2a_app.testing import SkillConversation, run_skill

    def test_menu():
        outcome = run_skill("view-menu", "Do you have vegan dishes?")
        assert isinstance(outcome, Completed)

    def test_booking_asks_for_the_name():
        booking = SkillConversation("make-reservation")
        assert booking.say("A table for 2 tomorrow at 8pm").missing == ["name", "contact"]
        assert isinstance(booking.say("Anna, anna@example.com"), Completed)

Talk to the site's A2A endpoints as a calling agent would (in-process, Django's test
clients): ``A2AClient`` speaks JSON-RPC, HTTP+JSON and SSE::

    agent = A2AClient()
    task = agent.send("Book a table for 4 on Friday at 7pm")["task"]
    events = asyncio.run(agent.stream("SubscribeToTask", {"id": task["id"]}))

``record_dispatch()`` records what would go to Celery (skill runs, webhook deliveries,
stream wake-ups) instead of sending it::

    from a2a_app.testing import record_dispatch

    def test_booking_runs_in_a_worker(client):
        with record_dispatch() as dispatched:
            client.post("/a2a/jsonrpc", ..., content_type="application/json")
        assert len(dispatched.runs) == 1
        dispatched.run_queued()  # what a worker would do, in this process

``reset_caches()`` forgets what a2a_app keeps per process (skill catalogue, agent card,
stream notifier, dispatcher): call it between tests that change skills or settings.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from a2a_app.caller import ANONYMOUS, Caller
from a2a_app.core import dispatch, notify
from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState

__all__ = [
    "A2AClient",
    "RecordingDispatcher",
    "RecordingSink",
    "SkillConversation",
    "installed_skill",
    "record_dispatch",
    "reset_caches",
    "run_skill",
    "sse_events",
]

JSON = dict[str, Any]


class RecordingDispatcher:
    """A dispatcher (``A2A_APP["DISPATCHER"]``) that records instead of sending.

    ``runs``: task ids handed to a worker, in order. ``deliveries``: (config ids,
    countdown) per scheduling call. ``published``: task ids whose streams were told of
    new events; with ``wake_streams`` (the default) open streams in this process are
    woken as usual.
    """

    can_run_in_background = True

    def __init__(self, *, wake_streams: bool = True) -> None:
        self.runs: list[str] = []
        self.deliveries: list[tuple[list[int], float]] = []
        self.published: list[str] = []
        self.wake_streams = wake_streams

    def enqueue_run(self, task_id: str) -> None:
        self.runs.append(task_id)

    def schedule_deliveries(self, config_ids: Iterable[int], countdown: float = 0) -> None:
        self.deliveries.append((list(config_ids), countdown))

    def publish(self, task_id: str, note: str | None = None) -> None:
        self.published.append(task_id)
        if self.wake_streams:
            notify.publish(task_id, note)

    def run_queued(self) -> list[str]:
        """Run the recorded runs here, as a worker would; returns what each did."""
        from a2a_app.core import runner

        runs, self.runs = self.runs, []
        return [runner.execute(task_id) for task_id in runs]

    def deliver_scheduled(self) -> list[str]:
        """Deliver the recorded webhook configs here, as a worker would: one run per
        scheduling call (countdowns not waited for); what each run did."""
        from a2a_app.push import delivery

        scheduled, self.deliveries = self.deliveries, []
        return [delivery.deliver_due(config_ids) for config_ids, _ in scheduled]


@contextlib.contextmanager
def record_dispatch(*, wake_streams: bool = True) -> Iterator[RecordingDispatcher]:
    """Record everything dispatched inside the block (from any thread)."""
    with dispatch.dispatching_to(RecordingDispatcher(wake_streams=wake_streams)) as recorder:
        yield recorder


def reset_caches() -> None:
    """Forget the per-process caches: skill catalogue, agent card and its signing keys,
    API keys read lately, notifier, dispatcher, and start the rate-limit counters of this
    process afresh."""
    from a2a_app import card_signing
    from a2a_app.bindings import card
    from a2a_app.core import limits
    from a2a_app.models import forget_api_keys
    from a2a_app.skills import catalogue

    forget_api_keys()
    limits.reset()
    catalogue.clear_cache()
    card.clear_cache()
    card_signing.clear_cache()
    notify.reset()
    dispatch.reset()


# --- skills -------------------------------------------------------------------------------


@contextlib.contextmanager
def installed_skill(
    handler: Callable[..., Any], key: str = "test-skill", **spec: Any
) -> Iterator[str]:
    """``handler`` registered as skill ``key`` inside the block, with its ``Skill`` row (as
    ``manage.py a2a_skills --sync`` makes it); ``spec`` are ``@skill``'s keywords. Needs
    the database."""
    from a2a_app.models import Skill
    from a2a_app.skills import catalogue, registry

    name = spec.pop("name", key.replace("-", " ").title())
    description = spec.pop("description", f"The {key} skill")
    skill_spec = registry.SkillSpec(key, handler, name, description, **spec)
    with registry.registered(skill_spec):
        Skill.objects.create(
            id=key,
            handler=key,
            name=name,
            description=description,
            access=skill_spec.access,
            permission=skill_spec.permission,
        )
        catalogue.clear_cache()
        try:
            yield key
        finally:
            catalogue.clear_cache()


# --- running a skill directly -----------------------------------------------------------------


class RecordingSink:
    """Where a handler's progress goes when it runs in a test: recorded, not saved."""

    def __init__(self) -> None:
        #: (state, status message) per ``ctx.progress``.
        self.statuses: list[tuple[TaskState, Message | None]] = []
        #: Artifacts published while running (``ctx.add_artifact``, artifact writers).
        self.artifacts: list[Artifact] = []
        self.canceled = False
        #: The skill a ``ctx.hand_over`` moved the task to, if any.
        self.handed_over_to = ""

    def status(self, state: TaskState, message: Message | None) -> None:
        self.statuses.append((state, message))

    def artifact(self, artifact: Artifact, *, append: bool, last_chunk: bool) -> None:
        self.artifacts.append(artifact)

    def is_canceled(self) -> bool:
        return self.canceled

    def hand_over(self, skill_id: str, message: Message) -> None:
        self.handed_over_to = skill_id
        self.statuses.append((TaskState.WORKING, message))


class SkillConversation:
    """One task of one skill, turn after turn: its handler called directly.

    Each :meth:`say` is a user message on the same task, with the same ``state`` and the
    earlier messages as history, as a worker would run it; nothing touches the task
    tables (the handler's own queries do run). Returns the handler's outcome.
    """

    def __init__(
        self,
        skill: str,
        *,
        caller: Caller = ANONYMOUS,
        metadata: JSON | None = None,
        state: JSON | None = None,
    ) -> None:
        from a2a_app.skills import registry
        from a2a_app.skills.catalogue import SkillInfo

        spec = registry.get(skill)
        if spec is None:
            raise LookupError(f"no skill {skill!r} is registered (@skill in an a2a_skills.py)")
        self.spec, self.skill = spec, SkillInfo.from_spec(spec)
        self.caller, self.metadata = caller, dict(metadata or {})
        self.task_id, self.context_id = str(uuid.uuid4()), str(uuid.uuid4())
        self.state: JSON = state if state is not None else {}
        self.history: list[Message] = []
        self.sink = RecordingSink()

    def say(self, text: str = "", *, data: Any = None) -> Any:
        from a2a_app.core.execution import build_context, call_with_hand_over, resolve_outcome
        from a2a_app.models import Task
        from a2a_app.skills.context import message_parts

        message = Message(
            message_id=str(uuid.uuid4()),
            role=Role.USER,
            parts=message_parts(text or None, data),
            context_id=self.context_id,
            task_id=self.task_id,
        )
        task = Task(id=self.task_id, context_id=self.context_id, skill_state=self.state)
        ctx = build_context(
            task,
            self.skill,
            message,
            caller=self.caller,
            history=list(self.history),
            sink=self.sink,
            metadata=self.metadata,
        )
        outcome = call_with_hand_over(self.spec, ctx)
        if ctx.skill.id != self.skill.id and ctx.skill.spec is not None:
            # Handed over: the next turns go to the new skill, as on a real task.
            self.skill, self.spec = ctx.skill, ctx.skill.spec
        self.history.append(message)
        resolution = resolve_outcome(outcome, task_id=self.task_id, context_id=self.context_id)
        if resolution.status_message is not None:
            self.history.append(resolution.status_message)
        return outcome


def run_skill(skill: str, text: str = "", *, data: Any = None, **options: Any) -> Any:
    """One turn of ``skill`` (see :class:`SkillConversation` for ``options``)."""
    return SkillConversation(skill, **options).say(text, data=data)


# --- talking to the endpoints -----------------------------------------------------------------


async def sse_events(response: Any) -> AsyncIterator[JSON]:
    """The JSON of each event of a streamed (SSE) response, in order; keep-alive comments
    are skipped, and a stream that ends inside an event is an error."""
    assert response.streaming, "not a streamed response"
    buffer = b""
    async for chunk in response.streaming_content:
        buffer += chunk
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            if event.startswith(b":"):
                continue
            assert event.startswith(b"data: ") and b"\n" not in event, event
            yield json.loads(event.removeprefix(b"data: "))
    assert buffer == b"", f"the stream ended inside an event: {buffer!r}"


class A2AClient:
    """A calling agent, in-process: JSON-RPC, HTTP+JSON and SSE against this site.

    ``headers`` go with every request (``{"Authorization": ...}``, ``{"A2A-Version":
    "0.3"}``). Streams need Django's ``AsyncClient`` (they are served only under ASGI):
    await :meth:`stream` / :meth:`rest_stream`, e.g. in ``asyncio.run``.
    """

    def __init__(
        self,
        *,
        headers: dict[str, str] | None = None,
        jsonrpc_path: str = "/a2a/jsonrpc",
        rest_path: str = "/a2a/rest",
    ) -> None:
        from django.test import AsyncClient, Client

        self.headers = dict(headers or {})
        self.jsonrpc_path, self.rest_path = jsonrpc_path, rest_path
        self.http, self.async_http = Client(), AsyncClient()

    # JSON-RPC

    def call(
        self,
        method: str,
        params: JSON | None = None,
        *,
        request_id: Any = 1,
        headers: dict[str, str] | None = None,
    ) -> JSON:
        """The decoded JSON-RPC response (result or error) of one call."""
        response = self.http.post(
            self.jsonrpc_path,
            _envelope(method, params, request_id),
            content_type="application/json",
            headers={**self.headers, **(headers or {})},
        )
        return response.json()

    def result(self, method: str, params: JSON | None = None, **options: Any) -> Any:
        """The ``result`` of one call; a JSON-RPC error fails the test, showing it."""
        body = self.call(method, params, **options)
        assert "error" not in body, body["error"]
        return body["result"]

    def send(
        self,
        text: str = "",
        *,
        data: Any = None,
        configuration: JSON | None = None,
        metadata: JSON | None = None,
        **message: Any,
    ) -> JSON:
        """SendMessage with a user message: ``{"task": ...}`` or ``{"message": ...}``.

        ``message`` fields (``taskId``, ``contextId``, ``messageId``, ``parts``...) go
        into the message as they are named on the wire.
        """
        return self.result(
            "SendMessage", self.send_params(text, data, configuration, metadata, message)
        )

    @staticmethod
    def send_params(
        text: str = "",
        data: Any = None,
        configuration: JSON | None = None,
        metadata: JSON | None = None,
        message: JSON | None = None,
    ) -> JSON:
        fields = dict(message or {})
        parts = [p.to_wire() for p in _parts(text, data)]
        wire: JSON = {
            "messageId": fields.pop("messageId", f"m-{time.monotonic_ns()}"),
            "role": "ROLE_USER",
            "parts": fields.pop("parts", parts),
            **fields,
        }
        params: JSON = {"message": wire}
        if configuration is not None:
            params["configuration"] = configuration
        if metadata is not None:
            params["metadata"] = metadata
        return params

    async def stream(
        self, method: str, params: JSON | None = None, *, headers: dict[str, str] | None = None
    ) -> list[JSON]:
        """Every event of a JSON-RPC stream (SendStreamingMessage, SubscribeToTask): the
        ``result`` of each, until the server closes it."""
        response = await self.async_http.post(
            self.jsonrpc_path,
            _envelope(method, params, 1),
            content_type="application/json",
            headers={**self.headers, **(headers or {})},
        )
        events = []
        async for payload in sse_events(response):
            assert "error" not in payload, payload["error"]
            events.append(payload["result"])
        return events

    # HTTP+JSON

    def rest(
        self,
        verb: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """One HTTP+JSON request to ``path`` under the REST interface (``/tasks/{id}``)."""
        send = getattr(self.http, verb.lower())
        options: JSON = {"headers": {**self.headers, **(headers or {})}}
        if body is not None:
            options.update(data=json.dumps(body), content_type="application/json")
        return send(f"{self.rest_path}{path}", **options)

    async def rest_stream(self, path: str, body: Any = None, *, verb: str = "post") -> list[JSON]:
        """Every event of an HTTP+JSON stream (``/message:stream``, ``/tasks/{id}:subscribe``)."""
        send = getattr(self.async_http, verb.lower())
        options: JSON = {"headers": dict(self.headers)}
        if body is not None:
            options.update(data=json.dumps(body), content_type="application/json")
        response = await send(f"{self.rest_path}{path}", **options)
        return [event async for event in sse_events(response)]


def _envelope(method: str, params: JSON | None, request_id: Any) -> str:
    payload: JSON = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        payload["params"] = params
    return json.dumps(payload)


def _parts(text: str, data: Any) -> list[Part]:
    from a2a_app.skills.context import message_parts

    return message_parts(text or None, data)
