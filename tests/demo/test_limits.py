"""The demo's limits: one client cannot book every table of a day (issue #13: 42 fake
anonymous reservations did, in 2.1 s)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from a2a_app.models import Task
from skills.models import Reservation


def booking(hour: int, name: str) -> str:
    day = (timezone.localdate() + timedelta(days=10)).isoformat()
    data = {"date": day, "time": f"{hour}:00", "party_size": 2, "name": name,
            "contact": "fake@example.com"}  # fmt: skip
    message = {"messageId": f"m-{name}", "role": "ROLE_USER", "parts": [{"data": data}]}
    params = {"message": message, "metadata": {"skillId": "make-reservation"}}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params})


def book(client: Client, hour: int, name: str):
    return client.post("/a2a/jsonrpc", booking(hour, name), content_type="application/json")


@pytest.mark.django_db
def test_one_client_cannot_book_every_table(demo) -> None:
    attacker = Client(REMOTE_ADDR="203.0.113.66")
    answers = [book(attacker, 12 + i % 10, f"Fake {i}") for i in range(42)]
    booked = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if r.status_code == 429]
    assert len(booked) == 5 and len(refused) == 37
    assert all(r.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
               for r in booked)  # fmt: skip
    assert refused[0].json()["error"]["code"] == -32000
    assert int(refused[0]["Retry-After"]) > 0
    assert Reservation.objects.count() == 5
    assert Task.objects.count() == 5
    # Another guest still books.
    guest = book(Client(REMOTE_ADDR="198.51.100.20"), 19, "Real Guest")
    assert guest.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert Reservation.objects.count() == 6
