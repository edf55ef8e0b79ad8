"""Metrics of running processes: uvicorn with two worker processes and a Celery worker
(prefork, two children) share one PROMETHEUS_MULTIPROC_DIR; Prometheus's view of them,
scraped from the site, must add up to what the test did and to the database's counts."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from a2a_app.models import Task
from tests.conftest import start_server
from tests.integration.conftest import FAST

pytestmark = pytest.mark.integration

TOKEN = "live-scrape-token-0123456789"


@pytest.fixture
def metrics_env(tmp_path: Path) -> dict[str, str]:
    directory = tmp_path / "prometheus"
    directory.mkdir()
    return {
        "A2A_METRICS_ENABLED": "1",
        "A2A_METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
    }


@pytest.fixture
def start_site(redis_url: str) -> Iterator[Callable[..., tuple[subprocess.Popen, str]]]:
    """uvicorn with ``workers`` processes; stopped (SIGTERM, as a deploy does) at the end."""
    processes: list[subprocess.Popen] = []

    def start(workers: int = 2, **env: str) -> tuple[subprocess.Popen, str]:
        process, base = start_server({**FAST, "CELERY_BROKER_URL": redis_url, **env}, workers)
        processes.append(process)
        return process, base

    yield start
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)


def scrape(base: str) -> dict[tuple[str, tuple], float]:
    response = requests.get(
        f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
    )
    assert response.status_code == 200, response.text
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: dict, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    return sum(
        v
        for (sample, series), v in samples.items()
        if sample == name and set(labels.items()) <= set(series)
    )


def rpc(base: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = requests.post(
        f"{base}/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params},
        headers={"A2A-Version": "1.0", "Connection": "close"},  # spread over the workers
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def send(base: str, text: str, **configuration: Any) -> dict[str, Any]:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = rpc(base, "SendMessage", {"message": message, "configuration": configuration})
    return body["result"]["task"]


def wait_until(predicate: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_two_web_processes_and_a_worker_add_up(
    start_site, start_worker, metrics_env, receiver
) -> None:
    directory = Path(metrics_env["PROMETHEUS_MULTIPROC_DIR"])
    site, base = start_site(workers=2, **metrics_env)
    worker = start_worker(**metrics_env)

    inline = [send(base, f"hello {n}") for n in range(12)]
    assert {task["status"]["state"] for task in inline} == {"TASK_STATE_COMPLETED"}
    hook = {"url": receiver.url, "token": "notify-token"}
    background = [
        send(base, "sleep 0", returnImmediately=True, taskPushNotificationConfig=hook),
        send(base, "sleep 0", returnImmediately=True),
        send(base, "sleep 0", returnImmediately=True),
    ]
    missing = rpc(base, "GetTask", {"id": str(uuid.uuid4())})
    assert missing["error"]["code"] == -32001
    for task in background:
        wait_until(
            lambda task=task: Task.objects.get(pk=task["id"]).state == "TASK_STATE_COMPLETED"
        )
    # submitted, working, the artifact, completed: four webhooks of the first task.
    receiver.wait_for(4)

    # A stream open while we scrape: the gauge counts it, and forgets it once it ends.
    streaming = send(base, "sleep 3", returnImmediately=True)
    opened = threading.Event()

    def subscribe() -> None:
        with requests.post(
            f"{base}/a2a/rest/tasks/{streaming['id']}:subscribe",
            headers={"A2A-Version": "1.0", "Accept": "text/event-stream"},
            stream=True,
            timeout=30,
        ) as response:
            assert response.status_code == 200
            for _ in response.iter_lines():
                opened.set()

    reader = threading.Thread(target=subscribe)
    reader.start()
    assert opened.wait(15)
    during = scrape(base)
    reader.join(30)
    wait_until(
        lambda: (
            value(scrape(base), "a2a_open_streams", binding="rest", operation="SubscribeToTask")
            == 0
        )
    )

    samples = scrape(base)
    assert value(during, "a2a_open_streams", binding="rest", operation="SubscribeToTask") == 1
    requests_total = "a2a_requests_total"
    ok_sends = value(
        samples,
        requests_total,
        operation="SendMessage",
        binding="jsonrpc",
        version="1.0",
        outcome="ok",
        code="",
        reason="",
    )
    assert ok_sends == 12 + 3 + 1
    assert (
        value(
            samples,
            requests_total,
            operation="GetTask",
            binding="jsonrpc",
            version="1.0",
            outcome="error",
            code="-32001",
            reason="TASK_NOT_FOUND",
        )
        == 1
    )
    assert (
        value(
            samples,
            requests_total,
            operation="SubscribeToTask",
            binding="rest",
            version="1.0",
            outcome="ok",
            code="",
            reason="",
        )
        == 1
    )

    transitions = "a2a_task_transitions_total"
    skill = {"skill": "conformance"}
    # The web processes count what they did, the worker what it did: together, the database.
    assert total(samples, transitions, from_state="none", **skill) == Task.objects.count() == 16
    completed = total(samples, transitions, to_state="completed", **skill)
    assert completed == Task.objects.filter(state="TASK_STATE_COMPLETED").count() == 16
    assert value(samples, transitions, from_state="submitted", to_state="working", **skill) == 4
    assert value(samples, transitions, from_state="working", to_state="completed", **skill) == 4
    assert value(samples, "a2a_queue_seconds_count", **skill) == 4
    assert value(samples, "a2a_handler_seconds_count", outcome="Completed", **skill) == 16
    assert value(samples, "a2a_webhook_deliveries_total", outcome="delivered", attempt="1") == 4

    # Which processes wrote numbers: both web processes and at least one worker child.
    writers = {path.stem.rsplit("_", 1)[-1] for path in directory.glob("counter_*.db")}
    assert len(writers) >= 3, writers

    # Processes that exit take their live gauges with them (mark_process_dead): a site
    # started on the same directory (a restart, a worker respawned) sees no stream, and
    # the counters of the processes gone still count.
    assert list(directory.glob("gauge_livesum_*.db"))
    worker.stop()
    site.send_signal(signal.SIGTERM)
    site.wait(timeout=20)
    _, base = start_site(workers=1, **metrics_env)
    after_restart = scrape(base)
    assert list(directory.glob("gauge_livesum_*.db")) == []
    assert total(after_restart, "a2a_open_streams") == 0
    assert total(after_restart, transitions, from_state="none", **skill) == 16
