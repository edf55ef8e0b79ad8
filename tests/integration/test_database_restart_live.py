"""A web process whose database connections all went away (a restart) answers every request.

uvicorn serves with Django's connection pool on PostgreSQL. Its connections carry an
``application_name`` of their own (libpq's ``PGAPPNAME``), so the test can end exactly
them with ``pg_terminate_backend``, which is what a restarting PostgreSQL does to every
connection. Before ``a2a_app.db.ensure_live_connection``, each pooled connection then
failed one request with -32603.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection

from tests.integration.test_streaming_live import envelope, message
from tests.support import backend_pids

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs a database server"),
]


def terminate(name: str) -> list[int]:
    pids = backend_pids(name)
    with connection.cursor() as cursor:
        for pid in pids:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 10
    while set(backend_pids(name)) & set(pids):
        assert time.monotonic() < deadline, "the backends did not end"
        time.sleep(0.05)
    return pids


def call(base: str, method: str, params: dict) -> dict:
    return httpx.post(f"{base}/a2a/jsonrpc", json=envelope(method, params), timeout=30).json()


def test_every_request_after_the_connections_were_ended_answers(start_web) -> None:
    name = f"a2a-restart-{uuid.uuid4().hex[:8]}"
    base = start_web(PGAPPNAME=name, DB_POOL_MIN="4")
    # Requests side by side, so that the pool holds several connections.
    with ThreadPoolExecutor(6) as pool:
        tasks = list(
            pool.map(
                lambda _: call(base, "SendMessage", {"message": message("echo: hi")}), range(12)
            )
        )
    assert all("result" in answer for answer in tasks)
    ended = terminate(name)
    assert len(ended) >= 2

    answers = [call(base, "SendMessage", {"message": message("echo: again")}) for _ in range(8)]
    task_id = tasks[0]["result"]["task"]["id"]
    answers += [call(base, "GetTask", {"id": task_id}) for _ in range(4)]

    assert [answer.get("error") for answer in answers] == [None] * len(answers)
    assert answers[0]["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answers[-1]["result"]["id"] == task_id
    now = backend_pids(name)
    assert now and not set(now) & set(ended)  # new connections, none of the ended ones
