"""Signal receivers that turn a2a_app's events into Prometheus numbers.

Each receiver does one increment or observation: they run in the request (or the
worker's job) that sent the signal, after its transaction.
"""

from __future__ import annotations

import atexit
import os
from typing import Any

from django.utils import timezone

from a2a_app import signals
from a2a_app.logging import state_name
from a2a_app.metrics import instruments
from a2a_app.protocol.errors import A2AError
from a2a_app.protocol.types import TaskState


def on_request(
    sender: str, *, operation: str, version: str, error: A2AError | None, **kwargs: Any
) -> None:
    if error is None:
        outcome, code, reason = "ok", "", ""
    else:
        outcome, code, reason = "error", str(error.jsonrpc_code), error.reason
    instruments.requests.labels(
        operation or "unknown", sender, version or "unknown", outcome, code, reason
    ).inc()


def on_transition(
    sender: Any, *, task: Any, previous_state: TaskState | None, state: TaskState, **kwargs: Any
) -> None:
    skill = task.skill_id or "none"
    before, after = state_name(previous_state), state_name(state)
    instruments.task_transitions.labels(skill, before, after).inc()
    if (
        previous_state is TaskState.SUBMITTED
        and state is TaskState.WORKING
        and task.enqueued_at is not None
    ):
        # The worker's clock against the web process's: hosts must keep time (NTP).
        waited = (timezone.now() - task.enqueued_at).total_seconds()
        instruments.queue_seconds.labels(skill).observe(max(waited, 0.0))


def on_handler_finished(
    sender: Any, *, skill: str, outcome: str, duration: float, **kwargs: Any
) -> None:
    instruments.handler_seconds.labels(skill, outcome).observe(duration)


def on_stream_opened(sender: str, *, operation: str, **kwargs: Any) -> None:
    instruments.open_streams.labels(sender, operation).inc()


def on_stream_closed(sender: str, *, operation: str, **kwargs: Any) -> None:
    instruments.open_streams.labels(sender, operation).dec()


#: Delivery.status after an attempt → the outcome label.
DELIVERY_OUTCOMES = {"delivered": "delivered", "pending": "retry", "failed": "failed"}


def on_delivery_attempted(sender: Any, *, delivery: Any, **kwargs: Any) -> None:
    outcome = DELIVERY_OUTCOMES.get(str(delivery.status), str(delivery.status))
    instruments.webhook_deliveries.labels(outcome, str(delivery.attempts)).inc()


def on_sweep_finished(sender: Any, *, counts: dict[str, int], **kwargs: Any) -> None:
    for kind, count in counts.items():
        if count:
            instruments.sweep_recoveries.labels(kind).inc(count)


RECEIVERS = (
    (signals.request_handled, on_request),
    (signals.task_status_changed, on_transition),
    (signals.handler_finished, on_handler_finished),
    (signals.stream_opened, on_stream_opened),
    (signals.stream_closed, on_stream_closed),
    (signals.delivery_attempted, on_delivery_attempted),
    (signals.sweep_finished, on_sweep_finished),
)


def connect() -> None:
    for signal, receiver in RECEIVERS:
        signal.connect(receiver, dispatch_uid=f"a2a_app.metrics.{receiver.__name__}")
    _mark_dead_on_exit()


def disconnect() -> None:
    for signal, receiver in RECEIVERS:
        signal.disconnect(dispatch_uid=f"a2a_app.metrics.{receiver.__name__}")


def _mark_dead_on_exit() -> None:
    """In multiprocess mode, a process that exits takes its live gauges with it.

    The open-streams gauge is a ``livesum``: the files of a dead process must go, or its
    streams would count forever. A process marks itself dead at interpreter exit where
    it gets one; the metrics view drops the files of every process that is gone (a
    Celery pool child ends with ``os._exit``, uvicorn re-raises SIGTERM in its workers,
    a killed process never cleans up): see ``views.forget_dead_processes``.
    """
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    from prometheus_client import multiprocess

    atexit.register(lambda: multiprocess.mark_process_dead(os.getpid()))
