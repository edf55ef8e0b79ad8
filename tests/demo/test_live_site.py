"""The demo restaurant end to end over HTTP, as a guest's agent and the manager meet it.

A live uvicorn serving ``a2a_site`` (DEBUG off, not conformance mode), a real Celery
worker on Redis, and the production webhook policy: HTTPS only, private addresses
refused, except the one test network the site declares (``A2A_WEBHOOK_ALLOWED_NETWORKS``),
with the receiver's certificate checked against a private CA (``A2A_WEBHOOK_CA_BUNDLE``).
"""

from __future__ import annotations

import io
import re
import secrets
import time
import uuid
from datetime import date, timedelta
from typing import Any

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from skills.models import CateringRequest, Closure, Reservation

pytestmark = pytest.mark.integration

PASSWORD = "manager-password-for-tests"


@pytest.fixture
def site(start_web, start_worker, private_ca) -> str:
    """The demo, loaded and served as in production; returns its base URL."""
    call_command("load_demo", stdout=io.StringIO())
    get_user_model().objects.create_superuser("manager", "manager@example.com", PASSWORD)
    production = {
        "A2A_CONFORMANCE": "0",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
        # The manager signs in over plain HTTP on loopback.
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "A2A_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32",
        "A2A_WEBHOOK_CA_BUNDLE": str(private_ca.bundle),
    }
    start_worker(**production)
    return start_web(**production)


def open_day(days_ahead: int = 9) -> date:
    """A day the restaurant is open, a week or so ahead."""
    day = timezone.localdate() + timedelta(days=days_ahead)
    while Closure.objects.filter(first_day__lte=day, last_day__gte=day).exists():
        day += timedelta(days=1)
    return day


def rpc(base: str, method: str, params: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = requests.post(
        f"{base}/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params},
        headers={"A2A-Version": "1.0", **headers},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def say(base: str, text: str, *, task: dict | None = None, **configuration: Any) -> dict:
    """The guest's next message (in the task when given); returns the task."""
    message: dict[str, Any] = {
        "messageId": str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    }
    if task is not None:
        message.update(taskId=task["id"], contextId=task["contextId"])
    body = rpc(base, "SendMessage", {"message": message, "configuration": configuration})
    assert "result" in body, body
    return body["result"]["task"]


def said(task: dict[str, Any]) -> str:
    """What the agent said last: the status message, else the last artifact's text."""
    message = task["status"].get("message")
    if message:
        return " ".join(p["text"] for p in message["parts"] if "text" in p)
    return " ".join(p["text"] for p in task["artifacts"][-1]["parts"] if "text" in p)


def reported(task: dict[str, Any]) -> dict[str, Any] | None:
    """The task once its status carries a message (what its skill said), else None."""
    return task if task["status"].get("message") else None


def wait_until(check: Any, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return result


def test_a_guest_books_a_table_in_two_turns(site: str) -> None:
    day = open_day()
    task = say(site, f"Hi! Could we get a table for 2 on {day:%A, %B} {day.day} at 7:30 pm?")
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", said(task)
    assert re.search(r"\bname\b", said(task)), said(task)

    task = say(site, "Anna Schmidt, phone 030 1234567", task=task)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", said(task)
    [reference] = re.findall(r"\bTD-[A-Z0-9]+\b", said(task))

    booking = Reservation.objects.get(reference=reference)
    assert (booking.name, booking.party_size) == ("Anna Schmidt", 2)
    assert timezone.localtime(booking.start).date() == day
    assert timezone.localtime(booking.start).strftime("%H:%M") == "19:30"
    # The task as any later GetTask reads it.
    stored = rpc(site, "GetTask", {"id": task["id"]})["result"]
    assert stored["status"]["state"] == "TASK_STATE_COMPLETED"
    assert reference in said(stored)


def test_a_menu_question_in_german_is_answered_in_german(site: str) -> None:
    task = say(site, "Was kostet die Pizza Margherita?")
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", said(task)
    answer = said(task)
    assert "Pizza Margherita" in answer
    assert re.search(r"\d+,\d{2}\s*€", answer), answer  # a German price
    assert not re.search(r"\b(the|costs|price)\b", answer, re.IGNORECASE), answer


def test_webhooks_follow_the_production_policy(site: str, tls_receiver) -> None:
    task = say(site, "What is on the menu tonight?")
    refused = {
        # Not HTTPS.
        tls_receiver.url.replace("https://", "http://"): "https",
        # A private address of a network the site did not declare.
        "https://10.1.2.3/hook": "10.1.2.3",
    }
    for url, fact in refused.items():
        body = rpc(
            site,
            "CreateTaskPushNotificationConfig",
            {"taskId": task["id"], "url": url, "token": "t"},
        )
        assert body["error"]["code"] == -32602, body
        assert "url" in body["error"]["message"] and fact in body["error"]["message"], body


def test_a_catering_request_approved_in_the_admin_reaches_the_guests_webhook(
    site: str, tls_receiver
) -> None:
    day = open_day(days_ahead=20)
    hook = {"url": tls_receiver.url, "token": "catering-webhook-token"}
    task = say(
        site,
        f"Catering for 40 people on {day.isoformat()} at 12:00, name Eva Braun, "
        "contact events@acme.example",
        returnImmediately=True,
        taskPushNotificationConfig=hook,
    )
    # The worker runs the skill: the request is stored, the task waits for the manager.
    request = wait_until(lambda: CateringRequest.objects.filter(task_id=task["id"]).first())
    assert (request.guests, request.date, request.name) == (40, day, "Eva Braun")
    # The skill's own write (the request) commits before the runner writes what the
    # skill said (the task's status message): a look between the two sees no message.
    waiting = wait_until(lambda: reported(rpc(site, "GetTask", {"id": task["id"]})["result"]))
    assert waiting["status"]["state"] == "TASK_STATE_WORKING"
    assert request.reference in said(waiting)

    # The manager signs in and approves it from the list of requests.
    manager = requests.Session()
    login = f"{site}/admin/login/"
    manager.get(login, timeout=10)
    response = manager.post(
        login,
        {
            "username": "manager",
            "password": PASSWORD,
            "csrfmiddlewaretoken": manager.cookies["csrftoken"],
            "next": "/admin/",
        },
        timeout=10,
    )
    assert response.url.endswith("/admin/"), response.text[:500]
    changelist = f"{site}/admin/skills/cateringrequest/"
    page = manager.get(changelist, timeout=10)
    assert request.reference in page.text
    response = manager.post(
        changelist,
        {
            "action": "approve_requests",
            "_selected_action": [str(request.pk)],
            "csrfmiddlewaretoken": manager.cookies["csrftoken"],
        },
        timeout=10,
    )
    assert f"Approved: {request.reference}." in response.text

    done = rpc(site, "GetTask", {"id": task["id"]})["result"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    [artifact] = [a for a in done["artifacts"] if a["name"] == "catering"]
    assert artifact["parts"][1]["data"]["status"] == "approved"

    # The guest's webhook, over HTTPS to the declared network, signed with its token.
    received = wait_until(
        lambda: (
            [
                r
                for r in tls_receiver.received
                if r.body.get("statusUpdate", {}).get("status", {}).get("state")
                == "TASK_STATE_COMPLETED"
            ]
            and tls_receiver.received
        )
    )
    states = [
        r.body["statusUpdate"]["status"]["state"] for r in received if "statusUpdate" in r.body
    ]
    assert states[0] == "TASK_STATE_SUBMITTED" and states[-1] == "TASK_STATE_COMPLETED"
    assert "TASK_STATE_WORKING" in states
    for r in received:
        Webhook(b"catering-webhook-token").verify(r.raw, r.headers)
        assert r.body[next(iter(r.body))]["taskId"] == task["id"]
