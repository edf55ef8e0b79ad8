"""The Prometheus metrics themselves: names, labels, buckets (docs/observability.md).

Imported only when metrics are enabled. Made at import, in the registry of
``prometheus_client``; with ``PROMETHEUS_MULTIPROC_DIR`` set (before this import) each
process writes its numbers to files there, which the metrics view sums.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

#: Seconds: from a few milliseconds (an inline form skill) to minutes (a queue that
#: backs up, a long background skill).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

requests = Counter(
    "a2a_requests",
    "A2A requests answered, by operation, binding, protocol version and outcome "
    "('ok' or 'error'; an error's JSON-RPC code and ErrorInfo reason).",
    ["operation", "binding", "version", "outcome", "code", "reason"],
)
task_transitions = Counter(
    "a2a_task_transitions",
    "Task state changes by skill; from_state 'none' is a task created.",
    ["skill", "from_state", "to_state"],
)
handler_seconds = Histogram(
    "a2a_handler_seconds",
    "How long skill handlers ran (start to end), by skill and outcome.",
    ["skill", "outcome"],
    buckets=LATENCY_BUCKETS,
)
queue_seconds = Histogram(
    "a2a_queue_seconds",
    "How long background tasks waited for a worker (enqueued to started), by skill.",
    ["skill"],
    buckets=LATENCY_BUCKETS,
)
open_streams = Gauge(
    "a2a_open_streams",
    "SSE streams open now, by binding and operation (summed over live processes).",
    ["binding", "operation"],
    multiprocess_mode="livesum",
)
webhook_deliveries = Counter(
    "a2a_webhook_deliveries",
    "Webhook POSTs tried, by outcome (delivered, retry, failed) and attempt number.",
    ["outcome", "attempt"],
)
sweep_recoveries = Counter(
    "a2a_sweep_recoveries",
    "What the sweep did: tasks resubmitted, recovered (rerun) or failed after a lost "
    "worker, webhook configs handed to a worker again.",
    ["kind"],
)
