"""Interop with v0.3 clients: the official a2a-sdk 0.3.x client against a live server.

The 0.3 SDK cannot share a venv with the v1 SDK (both are the ``a2a`` package), so it
lives in ``.venv-sdk03`` (``make test`` builds it from ``tests/sdk03/requirements.txt``)
and ``tests/sdk03/client.py`` runs there as a subprocess: it drives one scenario through
the SDK and prints what it observed as JSON; the assertions are here. The server runs in
conformance mode (``start_web``); a Celery worker (``start_worker``) runs ``sleep N``
and delivers webhooks to the ``receiver`` fixture.

Without ``.venv-sdk03`` these tests skip on a developer machine and fail in CI.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support import service_missing

pytestmark = pytest.mark.integration

JSON = dict[str, Any]
SDK03_PYTHON = ROOT / ".venv-sdk03" / "bin" / "python"
CLIENT = ROOT / "tests" / "sdk03" / "client.py"
SCRIPT_TIMEOUT = 120


@pytest.fixture(scope="module")
def sdk03() -> Callable[..., JSON]:
    """``sdk03(base_url, scenario, *args)`` → the client script's observations."""
    if not SDK03_PYTHON.exists():
        reason = f"{SDK03_PYTHON} is missing (make test builds it from tests/sdk03)"
        service_missing(reason)

    def run(base_url: str, scenario: str, *args: str) -> JSON:
        process = subprocess.run(
            [str(SDK03_PYTHON), str(CLIENT), base_url, scenario, *args],
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT,
            cwd=ROOT,
        )
        try:
            observed = json.loads(process.stdout)
        except ValueError:
            pytest.fail(
                f"{scenario}: no JSON from the 0.3 client (exit {process.returncode})\n"
                f"stdout: {process.stdout[-2000:]}\nstderr: {process.stderr[-4000:]}"
            )
        assert "error" not in observed, json.dumps(observed, indent=2)
        # The 0.3 SDK speaks the v0.3 dialect and sends no A2A-Version header.
        posts = [r for r in observed["requests"] if r["http"] == "POST"]
        assert all("/" in r.get("method", "/") for r in posts), posts
        assert not any("a2aVersion" in r for r in observed["requests"])
        return observed

    return run


@pytest.fixture
def web(start_web: Callable[..., str]) -> str:
    return start_web()


@pytest.fixture
def web_and_worker(start_web: Callable[..., str], start_worker: Callable[..., Any]) -> str:
    start_worker()
    return start_web()


def methods(observed: JSON) -> list[str]:
    return [r["method"] for r in observed["requests"] if "method" in r]


def folded(events: list[JSON]) -> list[tuple[Any, ...]]:
    """(kind, state, final) / (kind, texts) per event, repeated WORKING updates folded."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        if event["kind"] == "status-update":
            item: tuple[Any, ...] = (event["kind"], event["state"], event["final"])
        elif event["kind"] == "artifact-update":
            item = (event["kind"], *event["texts"])
        elif event["kind"] == "task":
            item = (event["kind"], event["state"])
        else:
            item = (event["kind"], *event.get("texts", []))
        if not out or out[-1] != item:
            out.append(item)
    return out


def assert_final_only_on_last(events: list[JSON]) -> None:
    for event in events[:-1]:
        assert event.get("final") in (None, False), event
    assert events[-1]["kind"] == "status-update"
    assert events[-1]["final"] is True


def wait_for_final(receiver: Any, timeout: float = 30) -> list[Any]:
    """The webhooks received up to the one with ``final: true`` (asserted to arrive)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        received = list(receiver.received)
        if any(isinstance(r.body, dict) and r.body.get("final") for r in received):
            time.sleep(0.3)  # anything after it would be a bug: give it a chance to show
            return list(receiver.received)
        time.sleep(0.05)
    pytest.fail(f"no final webhook within {timeout} s: {[r.body for r in receiver.received]}")


# --- the scenarios --------------------------------------------------------------------------


def test_card_resolution(sdk03, web):
    observed = sdk03(web, "card")
    card = observed["card"]
    assert card["protocolVersion"] == "0.3.0"
    assert card["url"] == f"{web}/a2a/jsonrpc"
    assert card["preferredTransport"] == "JSONRPC"
    assert {"transport": "HTTP+JSON", "url": f"{web}/a2a/rest"} in card["additionalInterfaces"]
    assert card["streaming"] is True  # served by uvicorn (ASGI)
    assert card["pushNotifications"] is True
    assert card["supportsAuthenticatedExtendedCard"] is False
    assert card["skills"] == ["conformance"]
    # The 0.3 client factory picks our JSON-RPC endpoint.
    assert observed["transport"] == {"class": "JsonRpcTransport", "url": f"{web}/a2a/jsonrpc"}
    assert observed["getCardName"] == card["name"]
    assert observed["requests"][0] == {"http": "GET", "path": "/.well-known/agent-card.json"}
    assert methods(observed) == []  # no extended card asked for


def test_send(sdk03, web):
    observed = sdk03(web, "send")
    task = observed["task"]
    assert task["kind"] == "task"
    assert task["state"] == "completed"
    assert task["artifacts"] == [
        {"artifactId": task["artifacts"][0]["artifactId"], "name": "echo", "texts": ["echo: hello"]}
    ]
    assert task["history"][0] == {"role": "user", "kind": "message"}
    message = observed["message"]
    assert message["kind"] == "message"
    assert message["role"] == "agent"
    assert message["texts"] == ["echo: message hi"]
    asked = observed["inputRequired"]
    assert asked["state"] == "input-required"
    assert asked["statusText"] == ["More input needed: input x"]
    assert methods(observed) == ["message/send"] * 3


def test_get(sdk03, web):
    observed = sdk03(web, "get")
    sent, got = observed["sent"], observed["got"]
    assert got["kind"] == "task"
    assert got["id"] == sent["id"] and got["contextId"] == sent["contextId"]
    assert got["state"] == "input-required"
    assert observed["followUp"]["id"] == sent["id"]
    assert observed["followUp"]["state"] == "completed"
    assert observed["gotHistory1"]["state"] == "completed"
    assert len(observed["gotHistory1"]["history"]) == 1
    assert observed["unknownTask"]["code"] == -32001
    assert methods(observed) == [
        "message/send",
        "tasks/get",
        "message/send",
        "tasks/get",
        "tasks/get",
    ]


def test_cancel_an_input_required_task(sdk03, web):
    observed = sdk03(web, "cancel")
    assert observed["sent"]["state"] == "input-required"
    canceled = observed["canceled"]
    assert canceled["kind"] == "task"
    assert canceled["id"] == observed["sent"]["id"]
    assert canceled["state"] == "canceled"
    assert observed["got"]["state"] == "canceled"
    assert observed["cancelAgain"]["code"] == -32002  # TaskNotCancelable
    assert methods(observed) == ["message/send", "tasks/cancel", "tasks/get", "tasks/cancel"]


def test_stream(sdk03, web_and_worker):
    observed = sdk03(web_and_worker, "stream")
    events = observed["events"]
    first = events[0]
    assert first["kind"] == "task"
    assert first["state"] == "submitted"
    assert folded(events) == [
        ("task", "submitted"),
        ("status-update", "working", False),
        ("artifact-update", "echo: sleep 1"),
        ("status-update", "completed", True),
    ]
    assert_final_only_on_last(events)
    for event in events[1:]:
        assert event["taskId"] == first["id"]
        assert event["contextId"] == first["contextId"]
    assert events[-1]["aggregateState"] == "completed"
    [reply] = observed["messageEvents"]
    assert reply["kind"] == "message" and reply["texts"] == ["echo: message hi"]
    assert methods(observed) == ["message/stream", "message/stream"]


def test_resubscribe_to_a_running_task(sdk03, web_and_worker):
    observed = sdk03(web_and_worker, "resubscribe")
    sent = observed["sent"]
    assert sent["kind"] == "task"
    assert sent["state"] in ("submitted", "working")
    events = observed["events"]
    snapshot = events[0]
    assert snapshot["kind"] == "task"
    assert snapshot["id"] == sent["id"]
    assert snapshot["state"] in ("submitted", "working")
    assert folded(events)[-2:] == [
        ("artifact-update", "echo: sleep 2"),
        ("status-update", "completed", True),
    ]
    assert_final_only_on_last(events)
    assert observed["got"]["state"] == "completed"
    assert methods(observed) == ["message/send", "tasks/resubscribe", "tasks/get"]


def test_push_configs_and_a_v03_webhook(sdk03, web_and_worker, receiver):
    observed = sdk03(web_and_worker, "push", receiver.url)
    task_id = observed["task"]["id"]
    keep = {
        "taskId": task_id,
        "pushNotificationConfig": {
            "id": "keep",
            "url": receiver.url,
            "token": "tok-k",
            "authentication": {"schemes": ["Bearer"], "credentials": "cr-k"},
        },
    }
    assert observed["setKeep"] == keep
    assert observed["setDrop"]["pushNotificationConfig"]["id"] == "drop"
    # Reads leave the secrets out.
    redacted = {
        "taskId": task_id,
        "pushNotificationConfig": {
            "id": "keep",
            "url": receiver.url,
            "authentication": {"schemes": ["Bearer"]},
        },
    }
    assert observed["getKeep"] == redacted
    assert [c["pushNotificationConfig"]["id"] for c in observed["listed"]] == ["keep", "drop"]
    assert observed["deleted"] is None
    assert observed["listedAfterDelete"] == [redacted]
    assert observed["followUp"]["state"] == "completed"
    assert methods(observed) == [
        "message/send",
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
        "tasks/pushNotificationConfig/list",
        "message/send",
    ]

    # The follow-up's events reach the "keep" webhook as v0.3 objects; "drop" gets none.
    received = wait_for_final(receiver)
    bodies = [r.body for r in received]
    assert {r.headers["X-A2A-Config-Id"] for r in received} == {"keep"}
    for r in received:
        assert r.headers["X-A2A-Notification-Token"] == "tok-k"
        assert r.headers["Authorization"] == "Bearer cr-k"
    for body in bodies:
        assert body["kind"] in ("status-update", "artifact-update"), body
        assert body["taskId"] == task_id
        assert "statusUpdate" not in body and "artifactUpdate" not in body
    artifacts = [b for b in bodies if b["kind"] == "artifact-update"]
    assert [p for a in artifacts for p in a["artifact"]["parts"]] == [
        {"kind": "text", "text": "echo: more"}
    ]
    last = bodies[-1]
    assert last["kind"] == "status-update"
    assert last["status"]["state"] == "completed"
    assert last["final"] is True
    for body in bodies[:-1]:
        assert body.get("final") in (None, False), body
