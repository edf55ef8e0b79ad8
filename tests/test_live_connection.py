"""A database connection the server hung up on is traded for a live one before an operation.

PostgreSQL restarting (or failing over) closes every connection a web process holds in
its pool. ``a2a_app.db.ensure_live_connection`` notices that before the operation uses
one; these tests end the backend with ``pg_terminate_backend``, which is what a restart
does to each connection. PostgreSQL only (SQLite has no server to go away).
"""

from __future__ import annotations

import json
import select
import time
import uuid
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection, connections, transaction
from django.utils import timezone

from a2a_app.core.notify_pg import connection_params
from a2a_app.db import ensure_live_connection
from a2a_app.models import Task

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs a database server"),
]


def backend_pid(wrapper: Any = connection) -> int:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def terminate(pid: int, wrapper: Any = connection) -> None:
    """End backend ``pid`` from another connection, and wait until its goodbye arrived."""
    with psycopg.connect(**connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    socket = wrapper.connection.pgconn.socket
    readable, _, _ = select.select([socket], [], [], 5)
    assert readable, "the server did not close the connection"


def get_task(client, task_id: str) -> dict:
    body = {"jsonrpc": "2.0", "id": "1", "method": "GetTask", "params": {"id": task_id}}
    response = client.post(
        "/a2a/jsonrpc", json.dumps(body), content_type="application/json", HTTP_A2A_VERSION="1.0"
    )
    return response.json()


def test_a_connection_the_server_closed_is_replaced() -> None:
    before = backend_pid()
    terminate(before)
    ensure_live_connection(connection)
    assert backend_pid() != before


def test_a_kept_connection_the_server_closed_is_replaced() -> None:
    """``CONN_MAX_AGE`` instead of the pool (a WSGI site with sync workers may keep one
    connection per worker): the same, on a connection Django keeps between requests."""
    options = {k: v for k, v in connection.settings_dict["OPTIONS"].items() if k != "pool"}
    default = connections["default"]
    kept = type(default)({**default.settings_dict, "CONN_MAX_AGE": 600, "OPTIONS": options})
    try:
        before = backend_pid(kept)
        assert kept.pool is None
        terminate(before, kept)
        ensure_live_connection(kept)
        after = backend_pid(kept)
        assert after != before
        ensure_live_connection(kept)
        assert backend_pid(kept) == after
    finally:
        kept.close()


def test_a_live_connection_is_kept() -> None:
    before = backend_pid()
    for _ in range(3):
        ensure_live_connection(connection)
    assert backend_pid() == before


def test_a_connection_a_failed_query_left_broken_is_replaced() -> None:
    before = backend_pid()
    terminate(before)
    with pytest.raises(OperationalError):
        backend_pid()  # fails on the closed connection: psycopg marks it broken
    assert connection.connection.broken
    ensure_live_connection(connection)
    assert backend_pid() != before


def test_inside_a_transaction_even_a_hung_up_connection_is_kept() -> None:
    # Trading it would run the rest of the transaction on another connection, outside it;
    # the loss is the transaction's error.
    with pytest.raises(OperationalError), transaction.atomic():
        held = connection.connection
        terminate(backend_pid())
        ensure_live_connection(connection)
        assert connection.connection is held
        backend_pid()


def test_an_operation_after_the_server_hung_up_answers(client) -> None:
    task = Task.objects.create(
        context_id="c", state="TASK_STATE_COMPLETED", status_timestamp=timezone.now()
    )
    # The test client keeps Django's connection between requests, as a pooled or
    # persistent connection waits between them in a server.
    assert get_task(client, str(task.pk))["result"]["id"] == str(task.pk)
    terminate(backend_pid())
    started = time.monotonic()
    answer = get_task(client, str(task.pk))
    assert answer.get("error") is None
    assert answer["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert time.monotonic() - started < 5


def test_worker_jobs_after_the_server_hung_up_run() -> None:
    """A Celery worker's connections wait between jobs as a web process's do between
    requests; each job trades a dead one first (a2a_app.jobs)."""
    from a2a_app import jobs

    before = backend_pid()
    terminate(before)
    assert set(jobs.sweep()) >= {"resubmitted"}
    assert backend_pid() != before
    terminate(backend_pid())
    assert jobs.run_task(str(uuid.uuid4())) == "skipped"  # no such task: read, not failed
