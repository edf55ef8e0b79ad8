"""Push notifications (spec reference §5.8): the four config methods over JSON-RPC, URL
validation and the SSRF guard, secrets at rest, and delivering a task's events to its
webhooks (ordering, retries with backoff, give-up, rebinding, lease, redelivery, admin).

No test resolves a name or sends a request: ``url_policy`` gets a stub resolver, real
``getaddrinfo`` raises, and webhooks go to ``OutboxSender`` or a scripted fake sender.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import random
import socket
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from a2a_app.models import Delivery, PushConfig, Task, TaskEvent
from a2a_app.push import delivery, policy, signatures
from a2a_app.push import senders as webhooks
from a2a_app.push.senders import OutboxSender, WebhookResult
from a2a_app.signals import delivery_failed
from tests.support import error_info, error_of, new_task, send, violated_fields

pytestmark = pytest.mark.django_db

HOOK = "https://hook.example.com/a2a"
OTHER_HOOK = "https://other.example.com/a2a"
PUBLIC_IP = "93.184.216.34"
PUSH_METHODS = (
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
)


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def dns(monkeypatch) -> dict[str, list[str]]:
    """Hostname → addresses for the SSRF guard; edit it to simulate DNS changes."""
    table = {
        "hook.example.com": [PUBLIC_IP],
        "other.example.com": [PUBLIC_IP, "2606:2800:220:1:248:1893:25c8:1946"],
        "internal.example.com": ["10.0.0.5"],
        "loopback.example.com": ["127.0.0.1"],
        "metadata.example.com": ["169.254.169.254"],
        "mixed.example.com": [PUBLIC_IP, "192.168.1.10"],
        "localhost": ["127.0.0.1", "::1"],
    }

    def resolver(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError(f"stub resolver does not know {host}")
        return list(table[host])

    real_policy = policy.url_policy
    # The real policy (settings: http, conformance networks...) with the stub resolver.
    monkeypatch.setattr(
        policy, "url_policy", lambda: dataclasses.replace(real_policy(), resolver=resolver)
    )

    def no_dns(*args: Any, **kwargs: Any) -> Any:
        raise OSError("tests must not resolve names")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    return table


@pytest.fixture(autouse=True)
def outbox(settings) -> list[webhooks.WebhookRequest]:
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_SENDER": "a2a_app.push.senders.OutboxSender"}
    webhooks.outbox.clear()
    yield webhooks.outbox
    webhooks.outbox.clear()


@pytest.fixture(autouse=True)
def scheduled(dispatched) -> list[tuple[list[int], float]]:
    """Webhook configs whose deliveries were scheduled: (config ids, countdown) per call."""
    return dispatched.deliveries


@pytest.fixture
def failures():
    """The deliveries ``delivery_failed`` was sent for."""
    received: list[Delivery] = []

    def receiver(sender: Any, delivery: Delivery, **kwargs: Any) -> None:
        received.append(delivery)

    delivery_failed.connect(receiver, dispatch_uid="test_push.failures")
    yield received
    delivery_failed.disconnect(dispatch_uid="test_push.failures")


# --- helpers ------------------------------------------------------------------------------


def user_message(text: str = "hello", **fields: Any) -> dict[str, Any]:
    """A v1.0 user message (copied from conftest: ``conftest`` is ambiguous on sys.path)."""
    message = {
        "messageId": fields.pop("messageId", f"m-{time.monotonic_ns()}"),
        "role": "ROLE_USER",
    }
    message["parts"] = fields.pop("parts", [{"text": text}])
    message.update(fields)
    return message


class ScriptedSender:
    """Answers with the scripted statuses in turn (None: no answer), then 200."""

    def __init__(self, *statuses: int | None) -> None:
        self.script = list(statuses)
        self.requests: list[webhooks.WebhookRequest] = []

    def send(self, request: webhooks.WebhookRequest, *, timeout: float) -> WebhookResult:
        self.requests.append(request)
        status = self.script.pop(0) if self.script else 200
        if status is None:
            return WebhookResult(None, "ConnectionError: connection refused (test)")
        return WebhookResult(status)


def basic(username: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def create(rpc, task_id: str, url: str = HOOK, *, headers=None, **fields: Any) -> dict[str, Any]:
    return rpc(
        "CreateTaskPushNotificationConfig",
        {"taskId": task_id, "url": url, **fields},
        headers=headers,
    )


def created(rpc, task_id: str, url: str = HOOK, **fields: Any) -> dict[str, Any]:
    body = create(rpc, task_id, url, **fields)
    assert "result" in body, body
    return body["result"]


def plain_task(owner: str = "") -> Task:
    """An INPUT_REQUIRED task straight in the database (no skill, no conformance mode)."""
    return Task.objects.create(
        context_id="ctx-plain",
        owner=owner,
        skill_id="gone",
        state="TASK_STATE_INPUT_REQUIRED",
        status_timestamp=timezone.now(),
    )


def with_push(**config: Any) -> dict[str, Any]:
    return {"taskPushNotificationConfig": {"url": HOOK, **config}}


def pushed_task(rpc, text: str = "hello", **config: Any) -> tuple[dict[str, Any], PushConfig]:
    """A task sent with one webhook (conformance "hello": artifact event + completed event)."""
    task = new_task(rpc, text, configuration=with_push(**config))
    return task, PushConfig.objects.get(task_id=task["id"])


def deliveries(config: PushConfig) -> list[Delivery]:
    return list(
        Delivery.objects.filter(config=config).select_related("event").order_by("event__sequence")
    )


def make_due(delivery: Delivery) -> None:
    """Let the backoff pass."""
    Delivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def event_ids(requests: list[webhooks.WebhookRequest]) -> list[str]:
    return [r.headers["X-A2A-Event-Id"] for r in requests]


# --- Create, Get, List, Delete ------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestConfigMethods:
    def test_create_assigns_an_id(self, rpc):
        task = new_task(rpc, "input x")
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        result = created(rpc, task["id"], authentication={"scheme": "Bearer"})
        uuid.UUID(result["id"])
        assert result["taskId"] == task["id"]
        assert result["url"] == HOOK
        assert result["authentication"]["scheme"] == "Bearer"
        row = PushConfig.objects.get(task_id=task["id"])
        assert row.config_id == result["id"]
        assert row.url == HOOK
        assert row.auth_scheme == "Bearer"
        assert Task.objects.get(pk=task["id"]).push_config_count == 1

    def test_create_keeps_the_given_id(self, rpc):
        task = new_task(rpc, "input x")
        result = created(rpc, task["id"], id="my-hook")
        assert result["id"] == "my-hook"
        assert result["taskId"] == task["id"]
        assert PushConfig.objects.get(task_id=task["id"]).config_id == "my-hook"

    def test_create_returns_the_secrets_it_was_given(self, rpc):
        task = new_task(rpc, "input x")
        result = created(
            rpc,
            task["id"],
            id="h",
            token="tok-1",
            authentication={"scheme": "Bearer", "credentials": "cred-1"},
        )
        assert result == {
            "id": "h",
            "taskId": task["id"],
            "url": HOOK,
            "token": "tok-1",
            "authentication": {"scheme": "Bearer", "credentials": "cred-1"},
        }

    def test_reusing_an_id_replaces_the_config(self, rpc):
        task = new_task(rpc, "input x")
        created(rpc, task["id"], id="same", token="old-token")
        # An event while the first URL is registered: its delivery follows the new URL.
        new_task(rpc, "input more", taskId=task["id"])
        [pending] = Delivery.objects.filter(task_id=task["id"])
        assert pending.url == HOOK

        result = created(
            rpc,
            task["id"],
            OTHER_HOOK,
            id="same",
            authentication={"scheme": "Basic", "credentials": "dXNlcjpwdw=="},
        )
        assert result["id"] == "same"
        assert result["url"] == OTHER_HOOK
        assert result["authentication"] == {"scheme": "Basic", "credentials": "dXNlcjpwdw=="}
        assert "token" not in result
        [row] = PushConfig.objects.filter(task_id=task["id"])
        assert (row.url, row.token, row.auth_scheme) == (OTHER_HOOK, "", "Basic")
        assert row.credentials == "dXNlcjpwdw=="
        assert Task.objects.get(pk=task["id"]).push_config_count == 1
        pending.refresh_from_db()
        assert pending.url == OTHER_HOOK

    def test_get_and_list_redact_secrets(self, rpc):
        task = new_task(rpc, "input x")
        created(
            rpc,
            task["id"],
            id="secret",
            token="tok-1",
            authentication={"scheme": "Bearer", "credentials": "cred-1"},
        )
        expected = {
            "id": "secret",
            "taskId": task["id"],
            "url": HOOK,
            "authentication": {"scheme": "Bearer"},
        }
        got = rpc("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "secret"})
        assert got["result"] == expected
        listed = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert listed["configs"] == [expected]
        assert "nextPageToken" not in listed or listed["nextPageToken"] == ""
        for body in (got, listed):
            assert "tok-1" not in json.dumps(body)
            assert "cred-1" not in json.dumps(body)

    def test_get_unknown_config_is_task_not_found(self, rpc):
        task = new_task(rpc, "input x")
        created(rpc, task["id"], id="exists")
        body = rpc("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "missing"})
        info = error_info(error_of(body, -32001))
        assert info["reason"] == "TASK_NOT_FOUND"
        assert info["metadata"]["configId"] == "missing"

    @pytest.mark.parametrize("task_id", ["3f2b8c1e-5d4a-4e7b-9c6d-1a2b3c4d5e6f", "not-a-uuid"])
    @pytest.mark.parametrize("method", PUSH_METHODS)
    def test_unknown_task_is_not_found(self, rpc, method, task_id):
        body = rpc(method, {"taskId": task_id, "id": "c", "url": HOOK})
        error = error_of(body, -32001)
        assert error_info(error)["metadata"]["taskId"] == task_id
        assert PushConfig.objects.count() == 0

    @pytest.mark.parametrize("method", PUSH_METHODS)
    def test_another_callers_task_is_not_found(self, rpc, method, settings):
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        users = get_user_model().objects
        users.create_user("alice", password="alice-pw")
        users.create_user("bob", password="bob-pw")
        alice = basic("alice", "alice-pw")
        task = new_task(rpc, "input x", headers=alice)
        created_body = create(rpc, task["id"], id="a-hook", headers=alice, token="t")
        assert created_body["result"]["id"] == "a-hook"
        params = {"taskId": task["id"], "id": "a-hook", "url": OTHER_HOOK}
        for headers in (basic("bob", "bob-pw"), None):
            error_of(rpc(method, params, headers=headers), -32001)
        [row] = PushConfig.objects.filter(task_id=task["id"])
        assert (row.config_id, row.url, row.token) == ("a-hook", HOOK, "t")
        # The owner still sees it.
        got = rpc("GetTaskPushNotificationConfig", params, headers=alice)["result"]
        assert got["url"] == HOOK

    def test_config_ids_are_per_task(self, rpc):
        first = new_task(rpc, "input one")
        second = new_task(rpc, "input two")
        created(rpc, first["id"], id="shared")
        body = rpc("GetTaskPushNotificationConfig", {"taskId": second["id"], "id": "shared"})
        error_of(body, -32001)
        result = created(rpc, second["id"], OTHER_HOOK, id="shared")
        assert result["taskId"] == second["id"]
        urls = dict(PushConfig.objects.values_list("task_id", "url"))
        assert {str(k): v for k, v in urls.items()} == {first["id"]: HOOK, second["id"]: OTHER_HOOK}

    def test_delete_is_idempotent_and_stops_deliveries(self, rpc):
        task = new_task(rpc, "input x")
        created(rpc, task["id"], id="keep")
        created(rpc, task["id"], OTHER_HOOK, id="drop")
        assert Task.objects.get(pk=task["id"]).push_config_count == 2

        params = {"taskId": task["id"], "id": "drop"}
        first = rpc("DeleteTaskPushNotificationConfig", params)
        second = rpc("DeleteTaskPushNotificationConfig", params)
        assert first == {"jsonrpc": "2.0", "id": 1, "result": None}
        assert second == {"jsonrpc": "2.0", "id": 1, "result": None}
        assert Task.objects.get(pk=task["id"]).push_config_count == 1
        error_of(rpc("GetTaskPushNotificationConfig", params), -32001)
        listed = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert [c["id"] for c in listed["configs"]] == ["keep"]

        # A later event is queued for the remaining config only.
        new_task(rpc, "input more", taskId=task["id"])
        rows = list(Delivery.objects.filter(task_id=task["id"]).select_related("config"))
        assert [(d.config.config_id, d.url) for d in rows] == [("keep", HOOK)]

    def test_delete_cancels_pending_deliveries(self, rpc):
        task = new_task(rpc, "input x")
        created(rpc, task["id"], id="only")
        new_task(rpc, "input more", taskId=task["id"])
        [pending] = Delivery.objects.filter(task_id=task["id"])
        assert pending.status == Delivery.Status.PENDING

        rpc("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "only"})
        pending.refresh_from_db()
        assert pending.status == Delivery.Status.CANCELED
        assert pending.config_id is None  # the log outlives the config
        assert pending.last_error == "config deleted"
        assert Task.objects.get(pk=task["id"]).push_config_count == 0
        assert PushConfig.objects.count() == 0

        new_task(rpc, "input again", taskId=task["id"])
        assert Delivery.objects.filter(task_id=task["id"]).count() == 1

    def test_delete_on_unknown_task_is_not_found(self, rpc):
        body = rpc("DeleteTaskPushNotificationConfig", {"taskId": str(uuid.uuid4()), "id": "x"})
        error_of(body, -32001)

    def test_list_pagination(self, rpc):
        task = new_task(rpc, "input x")
        created(rpc, task["id"], id="first")
        created(rpc, task["id"], OTHER_HOOK, id="second")
        page1 = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"], "pageSize": 1})
        page1 = page1["result"]
        assert [c["id"] for c in page1["configs"]] == ["first"]
        assert page1["nextPageToken"]
        page2 = rpc(
            "ListTaskPushNotificationConfigs",
            {"taskId": task["id"], "pageSize": 1, "pageToken": page1["nextPageToken"]},
        )["result"]
        assert [c["id"] for c in page2["configs"]] == ["second"]
        assert page2["configs"][0]["url"] == OTHER_HOOK
        assert not page2.get("nextPageToken")
        everything = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert [c["id"] for c in everything["configs"]] == ["first", "second"]

    def test_list_with_garbage_page_token(self, rpc):
        task = new_task(rpc, "input x")
        body = rpc(
            "ListTaskPushNotificationConfigs", {"taskId": task["id"], "pageToken": "garbage"}
        )
        assert violated_fields(error_of(body, -32602)) == ["pageToken"]

    def test_list_of_a_task_without_configs_is_empty(self, rpc):
        task = new_task(rpc, "input x")
        listed = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]
        assert listed["configs"] == []


# --- validation ----------------------------------------------------------------------------


class TestValidation:
    def test_missing_url(self, rpc):
        task = plain_task()
        body = rpc("CreateTaskPushNotificationConfig", {"taskId": str(task.pk)})
        error = error_of(body, -32602)
        assert violated_fields(error) == ["url"]
        assert "url" in error["message"]
        assert PushConfig.objects.count() == 0

    def test_http_is_refused_by_default(self, rpc, settings):
        settings.DEBUG = False
        task = plain_task()
        error = error_of(create(rpc, str(task.pk), "http://hook.example.com/a2a"), -32602)
        assert violated_fields(error) == ["url"]
        assert "https" in error["message"]
        assert PushConfig.objects.count() == 0

    def test_http_is_refused_when_disallowed_even_in_debug(self, rpc, settings):
        settings.DEBUG = True
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_ALLOW_HTTP": False}
        task = plain_task()
        error = error_of(create(rpc, str(task.pk), "http://hook.example.com/a2a"), -32602)
        assert violated_fields(error) == ["url"]

    @pytest.mark.parametrize(("debug", "allow_http"), [(False, True), (True, None)])
    def test_http_is_allowed_by_setting_or_debug(self, rpc, settings, debug, allow_http):
        settings.DEBUG = debug
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_ALLOW_HTTP": allow_http}
        task = plain_task()
        result = created(rpc, str(task.pk), "http://hook.example.com/a2a")
        assert result["url"] == "http://hook.example.com/a2a"

    @pytest.mark.parametrize(
        "url",
        [
            "https://internal.example.com/hook",
            "https://loopback.example.com/hook",
            "https://metadata.example.com/latest/meta-data",
            "https://mixed.example.com/hook",
            "https://localhost/hook",
            "https://127.0.0.1/hook",
            "https://169.254.169.254/latest/meta-data",
            "https://10.1.2.3/hook",
            "https://[::1]/hook",
            "https://[::ffff:10.0.0.1]/hook",
        ],
    )
    def test_non_public_urls_are_refused(self, rpc, url):
        task = plain_task()
        error = error_of(create(rpc, str(task.pk), url), -32602)
        assert violated_fields(error) == ["url"]
        assert PushConfig.objects.count() == 0
        assert Task.objects.get(pk=task.pk).push_config_count == 0

    def test_a_host_that_does_not_resolve_yet_is_accepted(self, rpc, conformance_mode):
        # DNS may be down or the receiver not yet deployed; deliveries vet it again.
        task = plain_task()
        result = created(rpc, str(task.pk), "https://not-yet.example.com/hook")
        assert result["url"] == "https://not-yet.example.com/hook"
        assert PushConfig.objects.get(task_id=task.pk).url == "https://not-yet.example.com/hook"
        body = send(rpc, configuration=with_push(url="https://not-yet.example.com/other"))
        assert "task" in body["result"], body
        assert PushConfig.objects.filter(url="https://not-yet.example.com/other").count() == 1

    @pytest.mark.parametrize(
        "url", ["https://user:pw@hook.example.com/", "ftp://hook.example.com/", "not a url"]
    )
    def test_malformed_urls_are_refused(self, rpc, url):
        task = plain_task()
        error = error_of(create(rpc, str(task.pk), url), -32602)
        assert violated_fields(error) == ["url"]

    def test_conformance_mode_allows_a_local_receiver(self, rpc, conformance_mode):
        task = new_task(rpc, "input x")
        result = created(rpc, task["id"], "http://127.0.0.1:9/hook")
        assert result["url"] == "http://127.0.0.1:9/hook"
        assert PushConfig.objects.get(task_id=task["id"]).url == "http://127.0.0.1:9/hook"
        # ...but not private networks.
        error = error_of(create(rpc, task["id"], "https://internal.example.com/h"), -32602)
        assert violated_fields(error) == ["url"]

    def test_conformance_mode_adds_to_the_allowed_networks(self, rpc, conformance_mode, settings):
        # The site's own networks stay allowed beside the conformance run's local receiver.
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_ALLOWED_NETWORKS": ["10.0.0.0/8"]}
        task = plain_task()
        for url in ("http://127.0.0.1:9/hook", "https://10.1.2.3/hook"):
            assert created(rpc, str(task.pk), url)["url"] == url
        error = error_of(create(rpc, str(task.pk), "https://192.168.1.10/hook"), -32602)
        assert violated_fields(error) == ["url"]
        assert "URL host 192.168.1.10 is a private address 192.168.1.10" in json.dumps(error)

    def test_an_address_in_webhook_allowed_hosts_is_exempt(self, rpc, settings):
        # The trial's case: a receiver on this machine, listed by its address.
        settings.A2A_APP = {
            **settings.A2A_APP,
            "WEBHOOK_ALLOWED_HOSTS": ["127.0.0.1"],
            "WEBHOOK_ALLOW_HTTP": True,
        }
        task = plain_task()
        result = created(rpc, str(task.pk), "http://127.0.0.1:8765/hook")
        assert result["url"] == "http://127.0.0.1:8765/hook"
        # That address only: the IPv6 loopback and a private address stay refused.
        for url in ("http://[::1]:8765/hook", "http://10.1.2.3/hook"):
            error = error_of(create(rpc, str(task.pk), url), -32602)
            assert violated_fields(error) == ["url"]
        assert PushConfig.objects.filter(task_id=task.pk).count() == 1

    def test_send_message_with_a_private_url_creates_no_task(self, rpc, conformance_mode):
        body = send(rpc, configuration=with_push(url="https://metadata.example.com/x"))
        error = error_of(body, -32602)
        assert violated_fields(error) == ["configuration.taskPushNotificationConfig.url"]
        assert Task.objects.count() == 0
        assert PushConfig.objects.count() == 0

    @pytest.mark.parametrize("scheme", ["Bearer token", "Bearer\n", "Bearer\r\nX-Evil: 1", ""])
    def test_bad_auth_scheme(self, rpc, scheme):
        task = plain_task()
        body = create(rpc, str(task.pk), authentication={"scheme": scheme, "credentials": "c"})
        assert violated_fields(error_of(body, -32602)) == ["authentication.scheme"]
        assert PushConfig.objects.count() == 0

    def test_line_breaks_in_secrets_are_refused(self, rpc):
        task = plain_task()
        body = create(
            rpc, str(task.pk), authentication={"scheme": "Bearer", "credentials": "a\r\nX-Y: z"}
        )
        assert violated_fields(error_of(body, -32602)) == ["authentication.credentials"]
        body = create(rpc, str(task.pk), token="t\nX-Y: z")
        assert violated_fields(error_of(body, -32602)) == ["token"]
        assert PushConfig.objects.count() == 0

    def test_push_off_refuses_every_method(self, rpc, settings):
        task = plain_task()
        PushConfig.objects.create(task=task, config_id="c", url=HOOK)
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        params = {"taskId": str(task.pk), "id": "c", "url": HOOK}
        for method in PUSH_METHODS:
            info = error_info(error_of(rpc(method, params), -32003))
            assert info["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"
        assert PushConfig.objects.filter(task=task).count() == 1

    def test_push_off_refuses_a_config_on_send_message(self, rpc, settings, conformance_mode):
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        error = error_of(send(rpc, configuration=with_push()), -32003)
        assert error_info(error)["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"
        assert Task.objects.count() == 0
        # Without a config the same request is fine.
        assert new_task(rpc)["status"]["state"] == "TASK_STATE_COMPLETED"


# --- secrets at rest ---------------------------------------------------------------------------


def test_secrets_are_encrypted_at_rest(rpc, conformance_mode):
    task = new_task(rpc, "input x")
    created(
        rpc,
        task["id"],
        token="tok-secret",
        authentication={"scheme": "Bearer", "credentials": "cred-secret"},
    )
    with connection.cursor() as cursor:
        cursor.execute("select token, credentials, auth_scheme from a2a_app_pushconfig")
        [(token, credentials, scheme)] = cursor.fetchall()
    assert token.startswith("fernet:")
    assert credentials.startswith("fernet:")
    assert "tok-secret" not in token
    assert "cred-secret" not in credentials
    assert token != credentials
    assert scheme == "Bearer"
    row = PushConfig.objects.get(task_id=task["id"])
    assert (row.token, row.credentials) == ("tok-secret", "cred-secret")


def test_empty_secrets_stay_empty(rpc, conformance_mode):
    task = new_task(rpc, "input x")
    created(rpc, task["id"])
    with connection.cursor() as cursor:
        cursor.execute("select token, credentials from a2a_app_pushconfig")
        assert cursor.fetchall() == [("", "")]


# --- SendMessage with a config, and delivering -------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestSendMessageWithConfig:
    def test_deliveries_are_queued_for_every_event(
        self, rpc, scheduled, django_capture_on_commit_callbacks
    ):
        with django_capture_on_commit_callbacks(execute=True):
            body = send(rpc, "hello", configuration=with_push(id="cfg"))
        task = body["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert task["artifacts"][0]["parts"] == [{"text": "echo: hello"}]
        config = PushConfig.objects.get(task_id=task["id"])
        assert (config.config_id, config.url) == ("cfg", HOOK)
        rows = deliveries(config)
        events = list(TaskEvent.objects.filter(task_id=task["id"]).order_by("sequence"))
        assert [e.kind for e in events] == ["artifact", "status"]
        assert [d.event_id for d in rows] == [e.pk for e in events]
        assert all(d.status == Delivery.Status.PENDING for d in rows)
        assert all(d.url == HOOK and d.attempts == 0 for d in rows)
        assert scheduled == [([config.pk], 0)]

    def test_only_a_task_born_ended_without_a_webhook_has_an_empty_log(self, rpc):
        # Nobody can read the log of a task that ended in its first write and has no
        # webhook (no stream was open on it; SubscribeToTask refuses ended tasks).
        ended = new_task(rpc, "hello")
        assert ended["status"]["state"] == "TASK_STATE_COMPLETED"
        assert not TaskEvent.objects.filter(task_id=ended["id"]).exists()
        assert Task.objects.get(pk=ended["id"]).event_count == 0
        # Still open: its log starts with its first write, and a follow-up's events follow.
        waiting = new_task(rpc, "input x")
        assert [e.kind for e in TaskEvent.objects.filter(task_id=waiting["id"])] == ["status"]
        new_task(rpc, "done now", taskId=waiting["id"])
        events = TaskEvent.objects.filter(task_id=waiting["id"]).order_by("sequence")
        assert [(e.kind, e.sequence) for e in events] == [
            ("status", 1),
            ("artifact", 2),
            ("status", 3),
        ]
        assert Task.objects.get(pk=waiting["id"]).event_count == 3

    def test_input_required_then_follow_up_queues_each_event(self, rpc):
        task, config = pushed_task(rpc, "input x")
        new_task(rpc, "done now", taskId=task["id"])
        kinds = [(d.event.kind, d.event.sequence) for d in deliveries(config)]
        assert kinds == [("status", 1), ("artifact", 2), ("status", 3)]

    def test_a_config_on_a_follow_up_gets_the_follow_ups_events(self, rpc):
        task = new_task(rpc, "input x")
        done = new_task(rpc, "thanks", taskId=task["id"], configuration=with_push(id="late"))
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        config = PushConfig.objects.get(task_id=task["id"])
        assert config.config_id == "late"
        assert [d.event.kind for d in deliveries(config)] == ["artifact", "status"]
        assert [d.event.sequence for d in deliveries(config)] == [2, 3]

    def test_a_follow_up_reusing_a_config_id_replaces_it(self, rpc):
        task = new_task(rpc, "input x", configuration=with_push(id="hook"))
        body = send(
            rpc,
            "input more",
            taskId=task["id"],
            configuration={"taskPushNotificationConfig": {"url": OTHER_HOOK, "id": "hook"}},
        )
        assert "result" in body, body
        [config] = PushConfig.objects.filter(task_id=task["id"])
        assert config.url == OTHER_HOOK
        assert Task.objects.get(pk=task["id"]).push_config_count == 1

    def test_webhook_requests(self, rpc, outbox):
        task, config = pushed_task(
            rpc, token="tok-1", authentication={"scheme": "Bearer", "credentials": "cred-1"}
        )
        assert delivery.deliver(config.pk) == "done"
        assert len(outbox) == 2
        for request in outbox:
            assert request.url == HOOK
            assert request.headers["Content-Type"] == "application/a2a+json"
            assert request.headers["Authorization"] == "Bearer cred-1"
            assert request.headers["X-A2A-Notification-Token"] == "tok-1"
        ids = event_ids(outbox)
        assert len(set(ids)) == 2
        artifact_update, status_update = (json.loads(r.body) for r in outbox)
        assert set(artifact_update) == {"artifactUpdate"}
        assert artifact_update["artifactUpdate"]["taskId"] == task["id"]
        assert artifact_update["artifactUpdate"]["contextId"] == task["contextId"]
        assert artifact_update["artifactUpdate"]["artifact"] == task["artifacts"][0]
        assert set(status_update) == {"statusUpdate"}
        assert status_update["statusUpdate"]["taskId"] == task["id"]
        assert status_update["statusUpdate"]["status"] == task["status"]
        for row in deliveries(config):
            assert row.status == Delivery.Status.DELIVERED
            assert row.delivered_at is not None
            assert (row.attempts, row.last_status_code) == (1, 200)
        assert delivery.deliver(config.pk) == "done"
        assert len(outbox) == 2  # nothing twice

    def test_no_auth_headers_without_authentication(self, rpc, outbox):
        _, config = pushed_task(rpc)
        assert delivery.deliver(config.pk) == "done"
        assert len(outbox) == 2
        for request in outbox:
            assert "Authorization" not in request.headers
            assert "X-A2A-Notification-Token" not in request.headers
            assert request.headers["Content-Type"] == "application/a2a+json"

    def test_event_id_is_stable_across_retries(self, rpc):
        _, config = pushed_task(rpc)
        sender = ScriptedSender(503, 200, 200)
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        make_due(deliveries(config)[0])
        assert delivery.deliver(config.pk, sender=sender) == "done"
        ids = event_ids(sender.requests)
        assert len(ids) == 3
        assert ids[0] == ids[1] != ids[2]
        assert sender.requests[0].body == sender.requests[1].body

    def test_webhooks_are_signed_with_the_token(self, rpc, outbox):
        _, config = pushed_task(rpc, token="tok-signing")
        before = int(time.time())
        assert delivery.deliver(config.pk) == "done"
        assert len(outbox) == 2
        # Verified independently: the Standard Webhooks reference library, keyed with the
        # token's bytes, as a receiver would.
        receiver = Webhook(b"tok-signing")
        for request in outbox:
            assert receiver.verify(request.body, request.headers) == json.loads(request.body)
            assert request.headers["webhook-id"] == request.headers["X-A2A-Event-Id"]
            assert before <= int(request.headers["webhook-timestamp"]) <= time.time() + 1
            # And by hand: v1, base64 HMAC-SHA256 of "{id}.{timestamp}.{body}".
            signed = (
                f"{request.headers['webhook-id']}.{request.headers['webhook-timestamp']}.".encode()
                + request.body
            )
            digest = hmac.new(b"tok-signing", signed, hashlib.sha256).digest()
            assert request.headers["webhook-signature"] == "v1," + base64.b64encode(digest).decode()
        with pytest.raises(WebhookVerificationError):
            Webhook(b"another-token").verify(outbox[0].body, outbox[0].headers)
        tampered = outbox[0].body.replace(b"COMPLETED", b"FAILED").replace(b"hello", b"HELLO")
        assert tampered != outbox[0].body
        with pytest.raises(WebhookVerificationError):
            receiver.verify(tampered, outbox[0].headers)

    def test_a_retry_is_signed_anew_under_the_same_webhook_id(self, rpc, monkeypatch):
        _, config = pushed_task(rpc, token="tok-signing")
        sender = ScriptedSender(503, 200, 200)
        clock = iter([1_800_000_000, 1_800_000_030, 1_800_000_031])
        monkeypatch.setattr(signatures, "_now", lambda: next(clock))
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        make_due(deliveries(config)[0])
        assert delivery.deliver(config.pk, sender=sender) == "done"
        first, retry, _ = sender.requests
        assert first.headers["webhook-id"] == retry.headers["webhook-id"]
        assert (first.headers["webhook-timestamp"], retry.headers["webhook-timestamp"]) == (
            "1800000000",
            "1800000030",
        )
        assert first.headers["webhook-signature"] != retry.headers["webhook-signature"]
        # A receiver refuses the first request replayed later than its tolerance.
        with pytest.raises(signatures.InvalidSignature, match="too old"):
            signatures.verify("tok-signing", first.headers, first.body, now=1_800_000_301)
        assert signatures.verify("tok-signing", retry.headers, retry.body, now=1_800_000_031)

    def test_no_signature_without_a_token(self, rpc, outbox):
        _, config = pushed_task(rpc)
        assert delivery.deliver(config.pk) == "done"
        for request in outbox:
            assert not {"webhook-id", "webhook-signature"} & set(request.headers)

    def test_the_token_header_can_be_left_out(self, rpc, outbox, settings):
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_TOKEN_HEADER": False}
        _, config = pushed_task(rpc, token="tok-signing")
        assert delivery.deliver(config.pk) == "done"
        for request in outbox:
            assert "X-A2A-Notification-Token" not in request.headers
            assert signatures.verify("tok-signing", request.headers, request.body)

    def test_retry_with_backoff_keeps_the_order(self, rpc, scheduled):
        _, config = pushed_task(rpc)
        first, second = deliveries(config)
        sender = ScriptedSender(500, 500, 200, 200)

        before = timezone.now()
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        first.refresh_from_db()
        assert first.status == Delivery.Status.PENDING
        assert (first.attempts, first.last_status_code) == (1, 500)
        assert first.next_attempt_at > before
        [(ids, countdown)] = scheduled
        assert ids == [config.pk]
        assert 1 <= countdown <= 2  # base 2 s, jittered in [ceiling/2, ceiling]
        assert len(sender.requests) == 1

        # Not due yet: nothing is sent, the later event waits behind the first.
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        assert len(sender.requests) == 1
        assert scheduled[-1][1] > 0
        second.refresh_from_db()
        assert (second.status, second.attempts) == (Delivery.Status.PENDING, 0)

        make_due(first)
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        first.refresh_from_db()
        assert (first.attempts, first.status) == (2, Delivery.Status.PENDING)
        assert 2 <= scheduled[-1][1] <= 4

        make_due(first)
        assert delivery.deliver(config.pk, sender=sender) == "done"
        first.refresh_from_db()
        second.refresh_from_db()
        assert (first.status, first.attempts, first.last_status_code) == (
            Delivery.Status.DELIVERED,
            3,
            200,
        )
        assert (second.status, second.attempts) == (Delivery.Status.DELIVERED, 1)
        assert second.delivered_at >= first.delivered_at
        sequence = [json.loads(r.body) for r in sender.requests]
        assert [set(b) for b in sequence] == [{"artifactUpdate"}] * 3 + [{"statusUpdate"}]
        assert PushConfig.objects.get(pk=config.pk).delivering_until is None

    @pytest.mark.parametrize("status", [408, 425, 429, None, 500, 502, 503])
    def test_retryable_failures_wait(self, rpc, status):
        _, config = pushed_task(rpc)
        sender = ScriptedSender(status)
        assert delivery.deliver(config.pk, sender=sender) == "wait"
        first, second = deliveries(config)
        assert first.status == Delivery.Status.PENDING
        assert (first.attempts, first.last_status_code) == (1, status)
        if status is None:
            assert "refused" in first.last_error
        assert first.next_attempt_at > timezone.now()
        assert second.attempts == 0
        assert len(sender.requests) == 1

    @pytest.mark.parametrize("status", [400, 401, 404, 410])
    def test_client_errors_fail_at_once_and_the_next_event_proceeds(
        self, rpc, status, failures, django_capture_on_commit_callbacks
    ):
        _, config = pushed_task(rpc)
        sender = ScriptedSender(status, 200)
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery.deliver(config.pk, sender=sender) == "done"
        first, second = deliveries(config)
        assert first.status == Delivery.Status.FAILED
        assert (first.attempts, first.last_status_code) == (1, status)
        assert first.last_error == f"HTTP {status}"
        assert first.delivered_at is None
        assert second.status == Delivery.Status.DELIVERED
        assert [d.pk for d in failures] == [first.pk]

    def test_max_attempts_gives_up_and_signals(
        self, rpc, settings, failures, django_capture_on_commit_callbacks
    ):
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_MAX_ATTEMPTS": 3}
        _, config = pushed_task(rpc)
        sender = ScriptedSender(503, 503, 503, 503)
        first = deliveries(config)[0]
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery.deliver(config.pk, sender=sender) == "wait"
            make_due(first)
            assert delivery.deliver(config.pk, sender=sender) == "wait"
            assert failures == []
            make_due(first)
            # Third failure: given up; the next event gets its first attempt (503 again).
            assert delivery.deliver(config.pk, sender=sender) == "wait"
        first, second = deliveries(config)
        assert first.status == Delivery.Status.FAILED
        assert (first.attempts, first.last_status_code) == (3, 503)
        assert first.last_error == "HTTP 503"
        assert second.status == Delivery.Status.PENDING
        assert second.attempts == 1
        assert [d.pk for d in failures] == [first.pk]
        assert failures[0].status == Delivery.Status.FAILED

    def test_dns_rebinding_is_refused_at_send_time(
        self, rpc, dns, failures, django_capture_on_commit_callbacks
    ):
        _, config = pushed_task(rpc)
        dns["hook.example.com"] = ["10.0.0.5"]
        sender = ScriptedSender()
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery.deliver(config.pk, sender=sender) == "done"
        assert sender.requests == []
        rows = deliveries(config)
        for row in rows:
            assert row.status == Delivery.Status.FAILED
            assert row.attempts == 1
            assert row.last_status_code is None
            assert "refused" in row.last_error
            assert "10.0.0.5" in row.last_error
        assert {d.pk for d in failures} == {d.pk for d in rows}

    def test_a_host_that_does_not_resolve_is_a_failed_attempt_retried(
        self, rpc, dns, scheduled, settings, failures, django_capture_on_commit_callbacks
    ):
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_MAX_ATTEMPTS": 3}
        _, config = pushed_task(rpc, url="https://later.example.com/hook")
        first = deliveries(config)[0]
        sender = ScriptedSender(200, 200)

        assert delivery.deliver(config.pk, sender=sender) == "wait"
        first.refresh_from_db()
        assert first.status == Delivery.Status.PENDING
        assert (first.attempts, first.last_status_code) == (1, None)
        assert first.last_error == "cannot resolve URL host later.example.com"
        assert 1 <= scheduled[-1][1] <= 2
        assert sender.requests == []

        # The receiver is deployed: the next attempt goes through, in order.
        dns["later.example.com"] = [PUBLIC_IP]
        make_due(first)
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery.deliver(config.pk, sender=sender) == "done"
        first, second = deliveries(config)
        assert (first.status, first.attempts) == (Delivery.Status.DELIVERED, 2)
        assert second.status == Delivery.Status.DELIVERED
        assert [r.addresses for r in sender.requests] == [(PUBLIC_IP,)] * 2
        assert failures == []

    def test_a_host_that_never_resolves_gives_up_after_max_attempts(
        self, rpc, settings, failures, django_capture_on_commit_callbacks
    ):
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_MAX_ATTEMPTS": 2}
        _, config = pushed_task(rpc, url="https://never.example.com/hook")
        first = deliveries(config)[0]
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery.deliver(config.pk, sender=ScriptedSender()) == "wait"
            make_due(first)
            assert delivery.deliver(config.pk, sender=ScriptedSender()) == "wait"
        first.refresh_from_db()
        assert (first.status, first.attempts) == (Delivery.Status.FAILED, 2)
        assert first.last_error == "cannot resolve URL host never.example.com"
        assert [d.pk for d in failures] == [first.pk]

    def test_metadata_address_is_refused_at_send_time(self, rpc, dns):
        _, config = pushed_task(rpc)
        dns["hook.example.com"] = [PUBLIC_IP, "169.254.169.254"]
        sender = ScriptedSender()
        assert delivery.deliver(config.pk, sender=sender) == "done"
        assert sender.requests == []
        assert {d.status for d in deliveries(config)} == {Delivery.Status.FAILED}

    def test_a_leased_config_is_busy(self, rpc):
        _, config = pushed_task(rpc)
        until = timezone.now() + timedelta(seconds=60)
        PushConfig.objects.filter(pk=config.pk).update(delivering_until=until)
        sender = ScriptedSender()
        assert delivery.deliver(config.pk, sender=sender) == "busy"
        assert sender.requests == []
        assert PushConfig.objects.get(pk=config.pk).delivering_until == until
        assert delivery.due_configs() == []
        # An expired lease (its worker died) is taken over.
        PushConfig.objects.filter(pk=config.pk).update(
            delivering_until=timezone.now() - timedelta(seconds=1)
        )
        assert delivery.deliver(config.pk, sender=sender) == "done"
        assert len(sender.requests) == 2
        assert PushConfig.objects.get(pk=config.pk).delivering_until is None

    def test_deliver_to_a_deleted_config_is_gone(self, rpc):
        _, config = pushed_task(rpc)
        pk = config.pk
        rpc(
            "DeleteTaskPushNotificationConfig",
            {"taskId": str(config.task_id), "id": config.config_id},
        )
        sender = ScriptedSender()
        assert delivery.deliver(pk, sender=sender) == "gone"
        assert sender.requests == []

    def test_redeliver_resets_a_failed_delivery(
        self, rpc, scheduled, django_capture_on_commit_callbacks
    ):
        _, config = pushed_task(rpc)
        assert delivery.deliver(config.pk, sender=ScriptedSender(404, 200)) == "done"
        failed = deliveries(config)[0]
        assert failed.status == Delivery.Status.FAILED
        scheduled.clear()
        with django_capture_on_commit_callbacks(execute=True):
            count = delivery.redeliver(Delivery.objects.filter(pk=failed.pk))
        assert count == 1
        failed.refresh_from_db()
        assert failed.status == Delivery.Status.PENDING
        assert failed.attempts == 0
        assert failed.last_error == ""
        assert failed.next_attempt_at <= timezone.now()
        assert scheduled == [([config.pk], 0)]
        assert delivery.due_configs() == [config.pk]
        sender = ScriptedSender()
        assert delivery.deliver(config.pk, sender=sender) == "done"
        failed.refresh_from_db()
        assert (failed.status, failed.attempts) == (Delivery.Status.DELIVERED, 1)
        assert len(sender.requests) == 1

    def test_redeliver_skips_deliveries_of_deleted_configs(self, rpc):
        task, config = pushed_task(rpc)
        rpc("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": config.config_id})
        assert delivery.redeliver(Delivery.objects.filter(task_id=task["id"])) == 0
        statuses = set(Delivery.objects.filter(task_id=task["id"]).values_list("status", flat=True))
        assert statuses == {Delivery.Status.CANCELED}

    def _four_configs(self, rpc) -> tuple[PushConfig, PushConfig, PushConfig, PushConfig]:
        _, due = pushed_task(rpc)
        _, later = pushed_task(rpc)
        _, busy = pushed_task(rpc)
        _, finished = pushed_task(rpc)
        Delivery.objects.filter(config=later).update(
            next_attempt_at=timezone.now() + timedelta(minutes=5)
        )
        PushConfig.objects.filter(pk=busy.pk).update(
            delivering_until=timezone.now() + timedelta(minutes=1)
        )
        assert delivery.deliver(finished.pk) == "done"
        return due, later, busy, finished

    def test_due_configs(self, rpc):
        due, *_ = self._four_configs(rpc)
        assert set(delivery.due_configs()) == {due.pk}
        assert delivery.due_configs(limit=0) == []

    def test_due_configs_lists_each_config_once(self, rpc):
        due, *_ = self._four_configs(rpc)
        assert delivery.due_configs() == [due.pk]
        _, another = pushed_task(rpc)
        # Two due configs with two deliveries each: a limit of 2 names both.
        assert sorted(delivery.due_configs(limit=2)) == sorted([due.pk, another.pk])


# --- backoff --------------------------------------------------------------------------------


class TestBackoff:
    @pytest.fixture(autouse=True)
    def _settings(self, settings):
        settings.A2A_APP = {
            **settings.A2A_APP,
            "WEBHOOK_BACKOFF_SECONDS": 2,
            "WEBHOOK_BACKOFF_MAX_SECONDS": 600,
        }

    @pytest.mark.parametrize(
        ("attempts", "ceiling"),
        [(1, 2), (2, 4), (3, 8), (5, 32), (9, 512), (10, 600), (30, 600)],
    )
    def test_bounds(self, monkeypatch, attempts, ceiling):
        monkeypatch.setattr(delivery.random, "uniform", lambda a, b: a)
        assert delivery.backoff_seconds(attempts) == ceiling / 2
        monkeypatch.setattr(delivery.random, "uniform", lambda a, b: b)
        assert delivery.backoff_seconds(attempts) == ceiling

    def test_jitter_stays_within_half_to_full_ceiling(self):
        random.seed(1234)
        for attempts, ceiling in [(1, 2), (4, 16), (12, 600)]:
            samples = [delivery.backoff_seconds(attempts) for _ in range(200)]
            assert all(ceiling / 2 <= s <= ceiling for s in samples)
            assert len(set(samples)) > 100  # jittered, not one fixed wait

    def test_grows_exponentially(self, monkeypatch):
        monkeypatch.setattr(delivery.random, "uniform", lambda a, b: b)
        waits = [delivery.backoff_seconds(n) for n in range(1, 8)]
        assert waits == [2, 4, 8, 16, 32, 64, 128]

    def test_cap_follows_the_setting(self, monkeypatch, settings):
        settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_BACKOFF_MAX_SECONDS": 10}
        monkeypatch.setattr(delivery.random, "uniform", lambda a, b: b)
        assert [delivery.backoff_seconds(n) for n in (1, 2, 3, 4, 20)] == [2, 4, 8, 10, 10]


# --- admin ----------------------------------------------------------------------------------


class TestAdmin:
    @pytest.fixture
    def staff_client(self, client, settings):
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        admin = get_user_model().objects.create_superuser("admin", "admin@example.com", "pw")
        client.force_login(admin)
        return client

    def test_changelists_and_the_redeliver_action(self, rpc, staff_client, conformance_mode):
        task, config = pushed_task(rpc, token="tok-secret")
        assert delivery.deliver(config.pk, sender=ScriptedSender(410, 200)) == "done"
        failed = deliveries(config)[0]
        assert failed.status == Delivery.Status.FAILED

        response = staff_client.get("/admin/a2a_app/delivery/")
        assert response.status_code == 200
        assert HOOK in response.content.decode()
        response = staff_client.get("/admin/a2a_app/task/")
        assert response.status_code == 200
        assert task["id"] in response.content.decode()
        response = staff_client.get(f"/admin/a2a_app/task/{task['id']}/change/")
        assert response.status_code == 200
        assert "tok-secret" not in response.content.decode()
        response = staff_client.get(f"/admin/a2a_app/delivery/{failed.pk}/change/")
        assert response.status_code == 200

        response = staff_client.post(
            "/admin/a2a_app/delivery/",
            {"action": "redeliver", "_selected_action": [failed.pk]},
        )
        assert response.status_code == 302
        failed.refresh_from_db()
        assert failed.status == Delivery.Status.PENDING
        assert failed.attempts == 0


def test_outbox_sender_records_requests(outbox):
    request = webhooks.WebhookRequest(url=HOOK, body=b"{}", headers={"A": "b"})
    assert OutboxSender(status=202).send(request, timeout=1) == WebhookResult(202)
    assert outbox == [request]
