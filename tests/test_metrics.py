"""Prometheus metrics in one process: what each request, transition, handler run, webhook
attempt and sweep adds, read back through the metrics URL as Prometheus reads it; and who
may read that URL. Several processes (uvicorn workers, Celery) are tested against running
servers in tests/integration/test_metrics_live.py."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from a2a_app import jobs, metrics
from a2a_app.bindings import observe
from a2a_app.core import runner
from a2a_app.logging import state_name
from a2a_app.metrics import receivers
from a2a_app.models import Delivery, Task
from a2a_app.protocol.types import TaskState
from a2a_app.push import delivery, policy
from a2a_app.push.senders import WebhookResult
from tests.support import new_task

# Transactional: signals are sent after the commit, as in production.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("conformance_mode")]

TOKEN = "scrape-me-0123456789"
PUBLIC_IP = "93.184.216.34"


@pytest.fixture(autouse=True)
def metrics_on(settings) -> Iterator[None]:
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_ENABLED": True, "METRICS_TOKEN": TOKEN}
    metrics.install()
    yield
    receivers.disconnect()
    metrics._installed = False


def scrape(client: Client | None = None) -> dict[tuple[str, tuple], float]:
    """The metrics URL as Prometheus reads it: {(sample name, sorted labels): value}."""
    response = (client or Client()).get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def grew(before: dict, after: dict, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_requests_count_by_operation_binding_version_and_outcome(rpc, client) -> None:
    before = scrape()
    new_task(rpc, "hello")
    new_task(rpc, "again")
    missing = rpc("GetTask", {"id": "00000000-0000-0000-0000-000000000000"})
    assert missing["error"]["code"] == -32001
    rest = client.get("/a2a/rest/tasks/00000000-0000-0000-0000-000000000000")
    assert rest.status_code == 404
    v03 = rpc(
        "message/send",
        {
            "message": {
                "messageId": "v03-1",
                "role": "user",
                "parts": [{"kind": "text", "text": "hi"}],
            }
        },
    )
    assert v03["result"]["kind"] == "task"
    rpc("NoSuchMethod", {})
    after = scrape()

    requests = "a2a_requests_total"
    assert (
        grew(
            before,
            after,
            requests,
            operation="SendMessage",
            binding="jsonrpc",
            version="1.0",
            outcome="ok",
            code="",
            reason="",
        )
        == 2
    )
    assert (
        grew(
            before,
            after,
            requests,
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
        grew(
            before,
            after,
            requests,
            operation="GetTask",
            binding="rest",
            version="1.0",
            outcome="error",
            code="-32001",
            reason="TASK_NOT_FOUND",
        )
        == 1
    )
    assert (
        grew(
            before,
            after,
            requests,
            operation="SendMessage",
            binding="jsonrpc",
            version="0.3",
            outcome="ok",
            code="",
            reason="",
        )
        == 1
    )
    assert (
        grew(
            before,
            after,
            requests,
            operation="unknown",
            binding="jsonrpc",
            version="unknown",
            outcome="error",
            code="-32601",
            reason="METHOD_NOT_FOUND",
        )
        == 1
    )


def test_transitions_and_handler_times_by_skill(rpc) -> None:
    before = scrape()
    new_task(rpc, "hello")
    failed = new_task(rpc, "fail")
    assert failed["status"]["state"] == "TASK_STATE_FAILED"
    after = scrape()

    transitions = "a2a_task_transitions_total"
    created = grew(
        before, after, transitions, skill="conformance", from_state="none", to_state="completed"
    )
    assert created == 1
    assert (
        grew(before, after, transitions, skill="conformance", from_state="none", to_state="failed")
        == 1
    )
    assert Task.objects.count() == 2
    handled = "a2a_handler_seconds_count"
    assert grew(before, after, handled, skill="conformance", outcome="Completed") == 1
    assert grew(before, after, handled, skill="conformance", outcome="Failed") == 1


def test_background_task_queue_wait_and_run(rpc, dispatched) -> None:
    before = scrape()
    task = new_task(rpc, "sleep 0", configuration={"returnImmediately": True})
    assert dispatched.runs == [task["id"]]
    Task.objects.filter(pk=task["id"]).update(enqueued_at=timezone.now() - timedelta(seconds=3))
    assert runner.execute(task["id"]) == "TASK_STATE_COMPLETED"
    after = scrape()

    transitions = "a2a_task_transitions_total"
    assert (
        grew(
            before, after, transitions, skill="conformance", from_state="none", to_state="submitted"
        )
        == 1
    )
    assert (
        grew(
            before,
            after,
            transitions,
            skill="conformance",
            from_state="submitted",
            to_state="working",
        )
        == 1
    )
    assert (
        grew(
            before,
            after,
            transitions,
            skill="conformance",
            from_state="working",
            to_state="completed",
        )
        == 1
    )
    assert grew(before, after, "a2a_queue_seconds_count", skill="conformance") == 1
    waited = grew(before, after, "a2a_queue_seconds_sum", skill="conformance")
    assert 3 <= waited < 60
    # Waited three seconds or more: not in the buckets below 2.5 s, in those from 5 s.
    assert grew(before, after, "a2a_queue_seconds_bucket", skill="conformance", le="2.5") == 0
    assert grew(before, after, "a2a_queue_seconds_bucket", skill="conformance", le="5.0") == 1


def test_sweep_recoveries(rpc, dispatched) -> None:
    task = new_task(rpc, "sleep 0", configuration={"returnImmediately": True})
    Task.objects.filter(pk=task["id"]).update(enqueued_at=timezone.now() - timedelta(hours=1))
    before = scrape()
    counts = jobs.sweep()
    after = scrape()
    assert counts["resubmitted"] == 1
    assert grew(before, after, "a2a_sweep_recoveries_total", kind="resubmitted") == 1
    assert grew(before, after, "a2a_sweep_recoveries_total", kind="recovered") == 0


def test_webhook_attempts_by_outcome_and_attempt(settings, rpc, monkeypatch) -> None:
    """A 503 (retried later), then a 200: one attempt of each outcome, numbered."""
    real_policy = policy.url_policy
    monkeypatch.setattr(
        policy,
        "url_policy",
        lambda: dataclasses.replace(real_policy(), resolver=lambda host, port: [PUBLIC_IP]),
    )
    answers = iter([WebhookResult(status=503), WebhookResult(status=200)])

    class ScriptedSender:
        def send(self, request: Any, timeout: float) -> WebhookResult:
            return next(answers)

    push = {"url": "https://hook.example.com/a2a", "token": "t" * 16}
    configuration = {"returnImmediately": True, "taskPushNotificationConfig": push}
    task = new_task(rpc, "sleep 0", configuration=configuration)
    config_id = Task.objects.get(pk=task["id"]).push_configs.get().pk
    before = scrape()
    assert delivery.deliver(config_id, sender=ScriptedSender()) == "wait"
    Delivery.objects.update(next_attempt_at=timezone.now())
    assert delivery.deliver(config_id, sender=ScriptedSender()) == "done"
    after = scrape()
    webhooks = "a2a_webhook_deliveries_total"
    assert grew(before, after, webhooks, outcome="retry", attempt="1") == 1
    assert grew(before, after, webhooks, outcome="delivered", attempt="2") == 1
    assert grew(before, after, webhooks, outcome="delivered", attempt="1") == 0


def test_open_streams_go_up_and_down() -> None:
    """The gauge follows the response's life: opened when answered, closed by the server."""
    response = SimpleNamespace(streaming=True, closed=[])
    response.close = lambda: response.closed.append(True)
    before = scrape()
    observe._watch_stream(response, "jsonrpc", "SendStreamingMessage")
    during = scrape()
    response.close()
    after = scrape()
    gauge = {"binding": "jsonrpc", "operation": "SendStreamingMessage"}
    assert grew(before, during, "a2a_open_streams", **gauge) == 1
    assert grew(before, after, "a2a_open_streams", **gauge) == 0
    assert response.closed == [True]


# --- who may read the numbers ---------------------------------------------------------------


def test_a_token_reads_others_are_refused(client) -> None:
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics")["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_allowed_networks_and_superusers(settings, client, django_user_model) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_TOKEN": None}
    assert client.get("/metrics").status_code == 401
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_ALLOWED_NETWORKS": ["127.0.0.0/8"]}
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 401
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    client.force_login(staff)
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 401
    root = django_user_model.objects.create_superuser("root")
    client.force_login(root)
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200


def test_metrics_off_is_not_found(settings, client) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_ENABLED": False}
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404


def test_checks(settings, monkeypatch, tmp_path, capsys) -> None:
    from django.core.management.base import SystemCheckError

    settings.A2A_APP = {**settings.A2A_APP, "METRICS_ALLOWED_NETWORKS": ["not-a-net"]}
    with pytest.raises(SystemCheckError, match="a2a_app.E182"):
        call_command("check")
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_ALLOWED_NETWORKS": []}
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "missing"))
    with pytest.raises(SystemCheckError, match="a2a_app.E181"):
        call_command("check")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(SystemCheckError, match="a2a_app.E180"):
        call_command("check")


def test_deploy_check_warns_when_nobody_can_scrape(settings) -> None:
    from a2a_app.metrics.checks import check_metrics_access

    assert check_metrics_access() == []
    settings.A2A_APP = {**settings.A2A_APP, "METRICS_TOKEN": None}
    assert [w.id for w in check_metrics_access()] == ["a2a_app.W180"]


def test_delivery_outcome_labels() -> None:
    """Delivery.status after an attempt names the outcome (pending: it will be retried)."""
    assert {receivers.DELIVERY_OUTCOMES[s] for s in ("delivered", "pending", "failed")} == {
        "delivered",
        "retry",
        "failed",
    }
    assert state_name(TaskState.INPUT_REQUIRED) == "input_required"
    assert json.dumps(state_name(None)) == '"none"'


def test_errors_that_share_a_code_differ_by_reason(settings, rpc) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "RATE_LIMITS": {"ListTasks": "1/min"}}
    before = scrape()
    rpc("ListTasks", {})
    refused = rpc("ListTasks", {}, status=429)
    assert refused["error"]["code"] == -32000
    after = scrape()
    labels = {"operation": "ListTasks", "binding": "jsonrpc", "version": "1.0"}
    ok = grew(before, after, "a2a_requests_total", outcome="ok", code="", reason="", **labels)
    limited = grew(
        before,
        after,
        "a2a_requests_total",
        outcome="error",
        code="-32000",
        reason="RATE_LIMIT_EXCEEDED",
        **labels,
    )
    assert (ok, limited) == (1, 1)


def test_prometheus_client_is_not_imported_with_metrics_off() -> None:
    """The extra is optional: a site without it (metrics off) never imports it."""
    from tests.conftest import ROOT

    code = (
        "import sys, django; django.setup(); "
        "from django.test import Client; Client().get('/metrics'); "
        "print('prometheus_client' in sys.modules)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.project.settings"}
    env.pop("A2A_METRICS_ENABLED", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
