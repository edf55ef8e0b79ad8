"""One trace across real processes: a calling agent's ``traceparent`` → the SendMessage
span in uvicorn → the Celery run in a worker process → the webhook POST, whose
``traceparent`` the receiver sees. Both processes export their spans to one file
(``A2A_TEST_SPANS_FILE``, see tests/project/spans.py).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.integration

pytest.importorskip("opentelemetry.sdk")

CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c"
CALLER_SPAN = "b7ad6b7169203331"


def read_spans(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for_span(path: Path, name: str, timeout: float = 30) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        spans = read_spans(path)
        if any(span["name"] == name for span in spans):
            return spans
        time.sleep(0.1)
    raise AssertionError(f"no {name} span in {read_spans(path)}")


def test_one_trace_from_the_request_through_the_worker_to_the_webhook(
    start_web, start_worker, receiver, tmp_path
) -> None:
    spans_file = tmp_path / "spans.jsonl"
    base = start_web(A2A_TEST_SPANS_FILE=str(spans_file))
    start_worker(A2A_TEST_SPANS_FILE=str(spans_file))
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "sleep 1"}]}
    configuration = {
        "returnImmediately": True,
        "taskPushNotificationConfig": {"url": receiver.url},
    }
    response = requests.post(
        f"{base}/a2a/jsonrpc",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"message": message, "configuration": configuration},
        },
        headers={"A2A-Version": "1.0", "traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    task_id = response.json()["result"]["task"]["id"]

    received = receiver.wait_for(4)
    assert received[-1].body["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    for webhook in received:
        assert webhook.headers["traceparent"].split("-")[1] == CALLER_TRACE

    spans = wait_for_span(spans_file, "a2a.run_task")
    by_id = {span["span_id"]: span for span in spans}
    [operation] = [span for span in spans if span["name"] == "SendMessage"]
    assert operation["trace_id"] == CALLER_TRACE
    assert operation["parent_id"] == CALLER_SPAN
    assert operation["attributes"]["a2a.task.id"] == task_id
    [run] = [span for span in spans if span["name"] == "a2a.run_task"]
    assert run["trace_id"] == CALLER_TRACE
    assert run["parent_id"] == operation["span_id"]
    assert run["attributes"] == {
        "a2a.task.id": task_id,
        "a2a.outcome": "TASK_STATE_COMPLETED",
    }
    [handler] = [span for span in spans if span["name"] == "a2a.skill"]
    assert handler["parent_id"] == run["span_id"]
    # The last webhook (COMPLETED) names an attempt span of the worker, in this trace.
    attempt_id = received[-1].headers["traceparent"].split("-")[2]
    deadline = time.monotonic() + 10
    while attempt_id not in by_id and time.monotonic() < deadline:
        time.sleep(0.1)
        by_id = {span["span_id"]: span for span in read_spans(spans_file)}
    assert by_id[attempt_id]["name"] == "a2a.webhook"
    assert by_id[attempt_id]["trace_id"] == CALLER_TRACE
    assert by_id[attempt_id]["attributes"]["a2a.task.id"] == task_id
