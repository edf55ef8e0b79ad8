"""A key revoked by another process: a running uvicorn server accepts it until its copy of
the key's row is API_KEY_CACHE_SECONDS old, then refuses it (docs/security.md)."""

from __future__ import annotations

import signal
import time
import uuid

import pytest
import requests
from django.contrib.auth import get_user_model

from a2a_app.models import ApiKey
from tests.conftest import start_server

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CACHE_SECONDS = 3.0


def get_task(base: str, key: str) -> int:
    """GetTask of an unknown task with ``key``: 200 (signed in; the task is unknown) or
    401 (the key is refused)."""
    response = requests.post(
        f"{base}/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": str(uuid.uuid4())}},
        headers={"A2A-Version": "1.0", "X-API-Key": key},
        timeout=10,
    )
    if response.status_code == 200:
        assert response.json()["error"]["code"] == -32001, response.text
    return response.status_code


def test_a_revocation_in_another_process_holds_once_the_copy_is_old() -> None:
    user = get_user_model().objects.create_user("partner")
    key, raw = ApiKey.issue(user, "partner agent")
    server, base = start_server({"A2A_API_KEY_CACHE_SECONDS": str(CACHE_SECONDS)})
    try:
        assert get_task(base, raw) == 200  # read, used (last_used_at written), read again
        read_before = time.monotonic()
        assert get_task(base, raw) == 200  # the server keeps this copy
        key.revoke()  # in this process: no signal reaches the server
        revoked = time.monotonic()
        statuses = []
        while time.monotonic() - revoked < CACHE_SECONDS + 2 and 401 not in statuses:
            statuses.append(get_task(base, raw))
            time.sleep(0.1)
        refused_after = time.monotonic() - read_before
        assert statuses[-1] == 401, statuses
        # Refused once the copy was old (it was read after read_before; one clock for
        # every process), and not long after.
        assert CACHE_SECONDS <= refused_after <= CACHE_SECONDS + 1.5, refused_after
        assert statuses[0] == 200, statuses
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
