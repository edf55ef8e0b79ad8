"""Traces (a2a_app.tracing): the spans a2a_app makes, recorded by the OpenTelemetry SDK's
in-memory exporter, and what a site without OpenTelemetry gets (nothing, not even the import).

The whole chain across real processes (uvicorn, a Celery worker, a webhook receiver) is
tests/integration/test_traces_live.py.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
from typing import Any

import pytest

from a2a_app import jobs  # noqa: F401  (registers the Celery tasks)
from a2a_app.core import dispatch
from a2a_app.models import Delivery
from a2a_app.push import senders
from tests.conftest import ROOT, user_message

if not os.environ.get("CI"):
    pytest.importorskip("opentelemetry.sdk")
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

pytestmark = pytest.mark.django_db

# A calling agent's trace: version 00, trace id, its span id, sampled.
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"

_EXPORTER = InMemorySpanExporter()

# A site where opentelemetry cannot be imported: a background task with a webhook, run
# through the test client and the recording dispatcher; prints what happened as JSON.
WITHOUT_OPENTELEMETRY = """
import json, os, socket, sys


class NoOpenTelemetry:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(f"{name} is blocked in this test")
        return None


sys.meta_path.insert(0, NoOpenTelemetry())
socket.getaddrinfo = lambda *a, **k: (_ for _ in ()).throw(OSError("no DNS in this test"))

import django

django.setup()
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings

from a2a_app import tracing
from a2a_app.push import senders
from a2a_app.skills.context import Completed
from a2a_app.testing import installed_skill, record_dispatch

call_command("migrate", verbosity=0)
sender = {"WEBHOOK_SENDER": "a2a_app.push.senders.OutboxSender"}
configuration = {
    "returnImmediately": True,
    "taskPushNotificationConfig": {"url": "https://93.184.216.34/hook"},
}
body = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "SendMessage",
    "params": {
        "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "go"}]},
        "metadata": {"skillId": "bg"},
        "configuration": configuration,
    },
}
with (
    override_settings(A2A_APP={**settings.A2A_APP, **sender}),
    record_dispatch() as recorder,
    installed_skill(lambda ctx: Completed(message="ok"), "bg", background=True),
):
    answer = Client().post(
        "/a2a/jsonrpc",
        json.dumps(body),
        content_type="application/json",
        headers={"traceparent": os.environ["TRACEPARENT"]},
    )
    runs = recorder.run_queued()
    recorder.deliver_scheduled()
print(json.dumps({
    "state": answer.json()["result"]["task"]["status"]["state"],
    "runs": runs,
    "webhook_headers": [dict(r.headers) for r in senders.outbox],
    "enabled": tracing.enabled(),
    "imported": sorted(m for m in sys.modules if m.startswith("opentelemetry")),
}))
"""


@pytest.fixture
def spans() -> Any:
    """The spans finished during the test (the SDK's provider is global: set once)."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


@pytest.fixture
def outbox(settings) -> list[senders.WebhookRequest]:
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_SENDER": "a2a_app.push.senders.OutboxSender"}
    senders.outbox.clear()
    yield senders.outbox
    senders.outbox.clear()


def named(exporter: InMemorySpanExporter, name: str) -> list[Any]:
    return [span for span in exporter.get_finished_spans() if span.name == name]


def hex_trace(span: Any) -> str:
    return format(span.context.trace_id, "032x")


def send(rpc, text: str, skill: str, traceparent: str | None = None, **configuration: Any):
    params: dict[str, Any] = {"message": user_message(text), "metadata": {"skillId": skill}}
    if configuration:
        params["configuration"] = configuration
    headers = {"traceparent": traceparent} if traceparent else None
    return rpc("SendMessage", params, headers=headers)


def test_an_inline_skill_is_a_child_of_the_operation_which_continues_the_caller(
    rpc, install, spans
) -> None:
    from a2a_app.skills.context import Completed

    skill = install(lambda ctx: Completed(message="done"), "inline-job")
    task = send(rpc, "hi", skill, TRACEPARENT)["result"]["task"]

    [operation] = named(spans, "SendMessage")
    assert hex_trace(operation) == CALLER_TRACE
    assert format(operation.parent.span_id, "016x") == CALLER_SPAN
    assert operation.parent.is_remote
    assert operation.kind is trace.SpanKind.SERVER
    assert operation.attributes["a2a.operation"] == "SendMessage"
    assert operation.attributes["a2a.task.id"] == task["id"]
    assert operation.attributes["a2a.task.state"] == "TASK_STATE_COMPLETED"

    [handler] = named(spans, "a2a.skill")
    assert handler.parent.span_id == operation.context.span_id
    assert handler.context.trace_id == operation.context.trace_id
    assert handler.attributes["a2a.skill"] == skill
    assert handler.attributes["a2a.task.id"] == task["id"]
    assert handler.attributes["a2a.outcome"] == "Completed"


def test_without_a_traceparent_the_operation_starts_a_trace(rpc, spans) -> None:
    rpc("GetTask", {"id": "no-such-task"})
    [operation] = named(spans, "GetTask")
    assert operation.parent is None
    assert operation.attributes["a2a.operation"] == "GetTask"
    # The protocol error is on the span too.
    assert operation.status.status_code is trace.StatusCode.ERROR


@pytest.mark.parametrize("traceparent", ["garbage", "00-" + "0" * 32 + "-" + "0" * 16 + "-01"])
def test_a_malformed_traceparent_is_ignored(rpc, spans, traceparent) -> None:
    body = rpc("ListTasks", {}, headers={"traceparent": traceparent})
    assert "result" in body
    [operation] = named(spans, "ListTasks")
    assert operation.parent is None
    assert operation.context.trace_id != 0


@pytest.fixture
def broker() -> Any:
    """A real Celery app on kombu's in-memory broker, as the dispatcher: what would reach
    a worker stays in its queue, where a test reads it."""
    from celery import Celery

    app = Celery("tracing-test", broker="memory://", set_as_current=False)
    # kombu's memory transport is one per process: earlier tests' jobs may wait in it.
    with app.connection_for_write() as connection:
        connection.SimpleQueue("celery").clear()
    with dispatch.dispatching_to(dispatch.CeleryDispatcher(app)):
        yield app


def take_message(app: Any) -> tuple[str, tuple, dict[str, Any]]:
    """The next Celery message sent: (task name, args, headers); queue.Empty if none."""
    with app.connection_for_write() as connection:
        message = connection.SimpleQueue("celery").get(timeout=0.5)
    message.ack()
    args, _kwargs, _embed = message.decode()
    return message.headers["task"], tuple(args), message.headers


def run_like_a_worker(app: Any) -> Any:
    """Run the next message's job with the message's own trace headers."""
    name, args, headers = take_message(app)
    trace_headers = {k: v for k, v in headers.items() if k in ("traceparent", "tracestate")}
    return app.tasks[name].apply(args, headers=trace_headers).get()


@pytest.mark.django_db(transaction=True)  # real commits: work is enqueued on commit
def test_a_background_run_and_its_webhook_attempt_continue_the_request(
    rpc, install, spans, outbox, broker
) -> None:
    from a2a_app.skills.context import Completed

    skill = install(lambda ctx: Completed(message="later"), "bg-job", background=True)
    push = {"taskPushNotificationConfig": {"url": "https://93.184.216.34/hook"}}
    task = send(rpc, "go", skill, TRACEPARENT, returnImmediately=True, **push)["result"]["task"]
    [operation] = named(spans, "SendMessage")

    # The worker's side: every message sent, in order, until none is left (the run, the
    # deliveries that the request's and the run's events scheduled).
    done = []
    while True:
        try:
            done.append(run_like_a_worker(broker))
        except queue.Empty:
            break
    assert "TASK_STATE_COMPLETED" in done
    assert not Delivery.objects.filter(task_id=task["id"], status="pending").exists()
    [run] = named(spans, "a2a.run_task")

    assert hex_trace(run) == CALLER_TRACE
    assert run.parent.span_id == operation.context.span_id
    assert run.kind is trace.SpanKind.CONSUMER
    assert run.attributes["a2a.task.id"] == task["id"]
    assert run.attributes["a2a.outcome"] == "TASK_STATE_COMPLETED"
    [handler] = named(spans, "a2a.skill")
    assert handler.parent.span_id == run.context.span_id
    assert handler.attributes["a2a.skill"] == skill

    jobs_spans = named(spans, "a2a.deliver_webhooks")
    assert jobs_spans and all(hex_trace(span) == CALLER_TRACE for span in jobs_spans)
    attempts = named(spans, "a2a.webhook")
    assert len(attempts) == Delivery.objects.filter(task_id=task["id"]).count() == len(outbox)
    for attempt, request in zip(attempts, outbox, strict=True):
        assert attempt.kind is trace.SpanKind.CLIENT
        assert attempt.parent.span_id in {span.context.span_id for span in jobs_spans}
        assert attempt.attributes["a2a.task.id"] == task["id"]
        assert attempt.attributes["a2a.delivery.attempt"] == 1
        # The receiver's traceparent names the attempt's span, in the caller's trace.
        _version, trace_id, span_id, _flags = request.headers["traceparent"].split("-")
        assert (trace_id, span_id) == (CALLER_TRACE, f"{attempt.context.span_id:016x}")


def test_celery_messages_carry_the_enqueuers_context(spans, broker) -> None:
    with trace.get_tracer("test").start_as_current_span("request") as request_span:
        dispatch.get_dispatcher().enqueue_run("t-1")
    name, args, headers = take_message(broker)
    trace_id = f"{request_span.get_span_context().trace_id:032x}"
    span_id = f"{request_span.get_span_context().span_id:016x}"
    assert (name, args) == (dispatch.RUN_TASK, ("t-1",))
    assert headers["traceparent"].split("-")[1:3] == [trace_id, span_id]


def test_without_opentelemetry_nothing_is_imported_and_nothing_changes(tmp_path) -> None:
    """A site without the ``otel`` extra: opentelemetry cannot be imported at all, a
    background task with a webhook runs as before and nothing imported opentelemetry."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.project.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "TRACEPARENT": TRACEPARENT,
    }
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_OPENTELEMETRY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["imported"] == []
    assert result["enabled"] is False
    assert result["state"] == "TASK_STATE_SUBMITTED"
    assert result["runs"] == ["TASK_STATE_COMPLETED"]
    assert result["webhook_headers"], "the webhooks were delivered"
    assert all("traceparent" not in headers for headers in result["webhook_headers"])
