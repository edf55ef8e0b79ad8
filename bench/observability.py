"""What metrics and JSON logs cost, and whether the metrics tell the truth under load.

The ``send-observed`` case is the ``send`` case against a second server of the same
deployment that has Prometheus metrics on (multiprocess mode, as a site with several
processes runs them) and writes its logs as JSON: its req/s over ``send``'s, measured in
the same interleaved rounds, is the cost (budget: ≥ 0.95).

:func:`check_agreement` then drives the bench's SendMessage load (wrk, rpc.lua) at that
server for a few seconds, scraping ``/metrics`` once a second and counting the tasks in
the database between two scrapes: the count must lie between the two scrapes' numbers
(a task is counted after its commit, so the database may run ahead of the metrics by the
requests in flight, never behind), and once the load has settled, match exactly.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.cases import Case

#: The cases served by the observed server (the others by the plain one).
CASES = {"send-observed"}

TOKEN = secrets.token_urlsafe(24)


def server_env(logdir: Path) -> dict[str, str]:
    """What turns metrics and JSON logs on in bench.settings (the demo's settings)."""
    directory = logdir / "prometheus"
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()
    return {
        "A2A_METRICS_ENABLED": "1",
        "A2A_METRICS_TOKEN": TOKEN,
        "A2A_LOG_JSON": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
    }


def wanted(cases: list[Case]) -> bool:
    return any(case.name in CASES for case in cases)


def scrape(base: str) -> dict[tuple[str, tuple], float]:
    import requests
    from prometheus_client.parser import text_string_to_metric_families

    response = requests.get(
        f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
    )
    response.raise_for_status()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def transitions(samples: dict, **labels: str) -> float:
    """a2a_task_transitions_total summed over the series with those labels."""
    return sum(
        value
        for (name, series), value in samples.items()
        if name == "a2a_task_transitions_total" and set(labels.items()) <= set(series)
    )


def database_counts() -> tuple[int, int]:
    """Tasks, and completed tasks, in the bench's database."""
    from a2a_app.models import Task

    return Task.objects.count(), Task.objects.filter(state="TASK_STATE_COMPLETED").count()


def check_agreement(
    server: Any,
    case: Case,
    ctx: Any,
    run_wrk: Callable[..., dict[str, Any]],
    duration: float,
    connections: int,
    settle: Callable[[], Any],
) -> tuple[str, list[str]]:
    """Load, scrape and count: a note for the report, and the failures (none if it agrees)."""
    settle()
    start_samples, (start_tasks, start_done) = scrape(server.base), database_counts()
    start_created = transitions(start_samples, from_state="none")
    start_completed = transitions(start_samples, to_state="completed")
    result: dict[str, Any] = {}
    load = threading.Thread(
        target=lambda: result.update(
            run_wrk(server.base, case, ctx, duration, connections, f"agree{TOKEN[:6]}")
        )
    )
    load.start()
    failures: list[str] = []
    checks, widest = 0, 0
    while load.is_alive():
        time.sleep(1.0)
        before = transitions(scrape(server.base), from_state="none") - start_created
        tasks = database_counts()[0] - start_tasks
        after = transitions(scrape(server.base), from_state="none") - start_created
        checks += 1
        widest = max(widest, int(after - before))
        # Committed first, counted just after: the database may be ahead by the requests
        # between their commit and their signal (at most one per connection), not behind.
        if not before <= tasks <= after + connections:
            failures.append(
                f"under load: {tasks} tasks in the database, metrics {before:.0f}–{after:.0f}"
            )
    load.join()
    settle()
    end = scrape(server.base)
    end_tasks, end_done = database_counts()
    tasks, done = end_tasks - start_tasks, end_done - start_done
    created = transitions(end, from_state="none") - start_created
    completed = transitions(end, to_state="completed") - start_completed
    if (created, completed) != (tasks, done):
        failures.append(
            f"after the load: database {tasks} tasks ({done} completed), "
            f"metrics {created:.0f} created ({completed:.0f} completed)"
        )
    note = (
        f"metrics against the database under SendMessage load ({result.get('requests', 0):,} "
        f"requests, {checks} scrapes a second apart, up to {widest} tasks made between two "
        f"scrapes): {'agree' if not failures else 'DISAGREE'}; after the load {tasks:,} "
        f"tasks in the database, {created:,.0f} counted created, {completed:,.0f} completed"
    )
    return note, failures
