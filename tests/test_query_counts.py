"""Every row of docs/queries.md, measured: the documented table is the expectation.

Each operation runs twice, on a small case and on a big one (a long history, a deep
page, a busy context), and must cost exactly the documented number of queries on this
run's database both times. Transaction control (BEGIN, COMMIT, savepoints) is not
counted: the table counts the statements that read or write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from a2a_app.bindings import card
from a2a_app.skills import catalogue as skills
from tests.test_tasks import add_messages, new_task, send

TABLE = Path(__file__).resolve().parent.parent / "docs" / "queries.md"
TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.I)


def documented() -> dict[str, dict[str, int]]:
    """operation → {"postgresql": n, "sqlite": n}, from the Markdown table."""
    rows: dict[str, dict[str, int]] = {}
    for line in TABLE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].isdigit() and cells[2].isdigit():
            rows[cells[0]] = {"postgresql": int(cells[1]), "sqlite": int(cells[2])}
    return rows


def counted(call: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return sum(1 for q in captured.captured_queries if not TRANSACTION_CONTROL.match(q["sql"]))


# --- the operations: (small case, big case), each a callable given rpc and a client -------


def _card(rpc, client):
    def get():
        assert client.get("/.well-known/agent-card.json").status_code == 200

    get()  # the first request renders and caches the card
    return get, get


def _direct_reply(rpc, client):
    def reply():
        assert "message" in send(rpc, "message hi")["result"]

    return reply, reply


def _new_inline(rpc, client):
    for i in range(30):
        new_task(rpc, f"hello {i}", contextId="busy")
    return (lambda: new_task(rpc, "hello")), (lambda: new_task(rpc, "hello", contextId="busy"))


def _new_background(rpc, client):
    def submit():
        body = send(rpc, "sleep 1", configuration={"returnImmediately": True})
        assert body["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"

    return submit, submit


def _follow_up(rpc, client):
    short = new_task(rpc, "input short")
    long = new_task(rpc, "input long")
    add_messages(long["id"], 200)

    def more(task_id):
        return lambda: new_task(rpc, "input more", taskId=task_id)

    return more(short["id"]), more(long["id"])


def _get_task(rpc, client):
    short = new_task(rpc, "hello")
    long = new_task(rpc, "input long")
    add_messages(long["id"], 200)

    def get(task_id):
        return lambda: rpc("GetTask", {"id": task_id, "historyLength": 10})["result"]

    return get(short["id"]), get(long["id"])


def _list_pages(include_artifacts: bool):
    def operation(rpc, client):
        # Generated: an anonymous caller lists no context it chose (docs/security.md).
        context = new_task(rpc, "hello 0")["contextId"]
        for i in range(1, 12):
            new_task(rpc, f"hello {i}", contextId=context)
        params = {"contextId": context, "pageSize": 5, "includeArtifacts": include_artifacts}
        token = rpc("ListTasks", params)["result"]["nextPageToken"]
        deeper = rpc("ListTasks", {**params, "pageToken": token})["result"]["nextPageToken"]
        assert deeper

        def page(token: str):
            return lambda: rpc("ListTasks", {**params, "pageToken": token})["result"]

        return page(""), page(deeper)

    return operation


def _cancel(rpc, client):
    short = new_task(rpc, "input short")
    long = new_task(rpc, "input long")
    add_messages(long["id"], 200)

    def cancel(task_id):
        return lambda: rpc("CancelTask", {"id": task_id})["result"]

    return cancel(short["id"]), cancel(long["id"])


OPERATIONS = {
    "Agent card (cached)": _card,
    "SendMessage: direct reply, no task": _direct_reply,
    "SendMessage: new task, inline skill": _new_inline,
    "SendMessage: new task, background (returnImmediately)": _new_background,
    "SendMessage: follow-up on an input-required task": _follow_up,
    "GetTask": _get_task,
    "ListTasks": _list_pages(include_artifacts=False),
    "ListTasks with includeArtifacts": _list_pages(include_artifacts=True),
    "CancelTask": _cancel,
}


def test_the_table_lists_every_measured_operation():
    assert set(documented()) == set(OPERATIONS)


@pytest.mark.django_db
@pytest.mark.usefixtures("conformance_mode")
@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_documented_query_count(operation, rpc, client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # enqueueing is not a query
    skills.clear_cache()
    card._cache.clear()
    expected = documented()[operation][connection.vendor]
    small, big = OPERATIONS[operation](rpc, client)
    assert (counted(small), counted(big)) == (expected, expected)
