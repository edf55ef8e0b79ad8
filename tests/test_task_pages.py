"""ListTasks' one-statement PostgreSQL path answers exactly what the portable path answers.

Run with ``DATABASE_URL`` pointing at PostgreSQL (on SQLite there is no fast path and these
tests are skipped): every combination of filters, historyLength, includeArtifacts,
pageSize and MAX_PAGE_BYTES is listed page by page both ways, and the pages compared.
"""

from __future__ import annotations

import itertools
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from a2a_app.caller import Caller
from a2a_app.core import service, task_pages
from a2a_app.models import Task, TaskArtifact, TaskMessage
from a2a_app.protocol import encoding
from a2a_app.protocol.params import ListTasksRequest
from tests.support import prepared_plans

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the fast path is PostgreSQL's only"
    ),
]

BASE = datetime(2025, 6, 1, 8, 30, 15, 123456, tzinfo=UTC)
STATES = ("TASK_STATE_COMPLETED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED")


def message(task: Task, position: int, text: str) -> TaskMessage:
    body = {
        "messageId": f"m-{task.pk}-{position}",
        "role": "ROLE_USER" if position % 2 == 0 else "ROLE_AGENT",
        "contextId": task.context_id,
        "taskId": str(task.pk),
        "parts": [{"text": text, "metadata": {"n": position, "f": 1.5}}],
    }
    return TaskMessage(
        task=task, position=position, message_id=body["messageId"], role=body["role"], body=body
    )


@pytest.fixture
def caller() -> Caller:
    """A caller with 30 tasks in two contexts and three states: varied history lengths
    (0 to 7 messages, some long; half of them also on the task row), artifacts, status
    messages, metadata, and timestamp ties (so the id breaks them), plus another caller's
    tasks that must never show."""
    user = get_user_model().objects.create_user("lister")
    owner = f"user:{user.pk}"
    tasks, messages, artifacts = [], [], []
    for i in range(30):
        task = Task(
            id=uuid.UUID(int=(i * 7919) % 30 + 1),
            context_id=f"ctx-{i % 2}",
            owner=owner,
            state=STATES[i % 3],
            # Pairs of tasks share a timestamp (the id orders them); some fall on a whole
            # second (isoformat then writes no fraction in the page token), some just
            # before a millisecond's end (the wire's milliseconds are truncated).
            status_timestamp=BASE.replace(microsecond=0)
            + timedelta(seconds=i // 2, microseconds=0 if i // 2 % 3 == 0 else 999 * (i // 2)),
            status_message=(
                {"messageId": f"s-{i}", "role": "ROLE_AGENT", "parts": [{"text": "working"}]}
                if i % 4 == 1
                else None
            ),
            metadata={"i": i, "ünï": "çødé"} if i % 3 == 0 else {},
            created_at=BASE,
        )
        tasks.append(task)
        history = [message(task, position, "x" * (position * 300 + i)) for position in range(i % 8)]
        messages.extend(history)
        task.message_count = len(history)
        if i % 2 == 0:  # as a2a_app writes it; the other half as tasks from before 0014
            task.short_history = [m.body for m in history]
        for position in range(i % 3):
            body = {"artifactId": f"a-{i}-{position}", "parts": [{"text": "y" * (100 * i)}]}
            artifacts.append(
                TaskArtifact(
                    task=task, position=position, artifact_id=body["artifactId"], body=body
                )
            )
    other = Task(
        id=uuid.uuid4(),
        context_id="ctx-0",
        owner="user:someone-else",
        state=STATES[0],
        status_timestamp=BASE,
        created_at=BASE,
    )
    Task.objects.bulk_create([*tasks, other])
    TaskMessage.objects.bulk_create(messages)
    TaskArtifact.objects.bulk_create(artifacts)
    return Caller(user=user)


def all_pages(params: dict[str, Any], caller: Caller) -> list[dict[str, Any]]:
    """Every page of a listing, following nextPageToken."""
    pages, token = [], ""
    while True:
        wire = {**params, **({"pageToken": token} if token else {})}
        # As a client reads it: the fast path's page is JSON text the database wrote.
        page = json.loads(
            encoding.dumps(service.list_tasks(ListTasksRequest.from_wire(wire), caller))
        )
        pages.append(page)
        token = page["nextPageToken"]
        if not token or len(pages) > 40:
            return pages


def both_ways(params: dict[str, Any], caller: Caller, monkeypatch) -> tuple[list, list]:
    fast = all_pages(params, caller)
    with monkeypatch.context() as patched:
        patched.setattr(task_pages, "applies", lambda: False)
        portable = all_pages(params, caller)
    return fast, portable


FILTERS = [
    {},
    {"contextId": "ctx-1"},
    {"status": "TASK_STATE_WORKING"},
    {"contextId": "ctx-0", "status": "TASK_STATE_COMPLETED"},
    {"statusTimestampAfter": "2025-06-01T08:30:21.000Z"},
    {"contextId": "ctx-0", "statusTimestampAfter": "2025-06-01T08:30:20Z"},
    {"contextId": "nowhere"},
]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("max_page_bytes", [None, 3000, 4 * 1024 * 1024])
def test_fast_path_answers_what_the_portable_path_answers(
    caller, filters, max_page_bytes, settings, monkeypatch
):
    settings.A2A_APP = {**settings.A2A_APP, "MAX_PAGE_BYTES": max_page_bytes}
    compared = cut = 0
    for history_length, artifacts, page_size in itertools.product(
        [None, 0, 1, 3], [False, True], [1, 4, 50]
    ):
        params = {**filters, "pageSize": page_size, "includeArtifacts": artifacts}
        if history_length is not None:
            params["historyLength"] = history_length
        fast, portable = both_ways(params, caller, monkeypatch)
        assert fast == portable, params
        compared += sum(len(page["tasks"]) for page in fast)
        cut += sum(0 < len(p["tasks"]) < page_size and p["nextPageToken"] != "" for p in fast)
    if filters.get("contextId") == "nowhere":
        assert compared == 0
    else:
        assert compared > 0
    if max_page_bytes == 3000 and not filters:
        assert cut > 0  # MAX_PAGE_BYTES did shorten pages, the same way on both paths


def test_a_history_the_row_holds_is_read_from_the_row(caller):
    """With its message rows gone, a task that holds its history on its row still lists
    it whole: the page read the row. Asked for fewer messages than it has, the page
    reads the rows (the row holds all or nothing of what was asked)."""
    task = Task.objects.get(pk=uuid.UUID(int=25))  # i = 6: six messages, on its row too
    assert task.message_count == len(task.short_history) == 6
    TaskMessage.objects.filter(task=task).delete()

    def history(**params):
        page = all_pages({"pageSize": 50, **params}, caller)[0]["tasks"]
        return next(t for t in page if t["id"] == str(task.pk)).get("history")

    assert history() == task.short_history
    assert history(historyLength=6) == task.short_history
    assert history(historyLength=5) is None  # the rows are what was asked, and gone
    assert history(historyLength=0) is None
    # A message written around TaskUpdate (a bulk load) leaves the row's list short: the
    # page no longer takes it for the whole history.
    TaskMessage.objects.bulk_create([message(task, 6, "late")])
    Task.objects.filter(pk=task.pk).update(message_count=7)
    assert [m["messageId"] for m in history()] == [f"m-{task.pk}-6"]


def test_fast_path_is_one_statement_whatever_the_page(caller, monkeypatch):
    first = service.list_tasks(ListTasksRequest.from_wire({"pageSize": 3}), caller)
    deep = {"pageSize": 3, "pageToken": first["nextPageToken"], "includeArtifacts": True}
    for params in ({"pageSize": 3}, deep, {"statusTimestampAfter": "2025-06-01T08:30:20Z"}):
        with CaptureQueriesContext(connection) as captured:
            service.list_tasks(ListTasksRequest.from_wire(params), caller)
        assert len(captured.captured_queries) == 1, params
    with monkeypatch.context() as patched:
        patched.setattr(task_pages, "applies", lambda: False)
        with CaptureQueriesContext(connection) as captured:
            service.list_tasks(ListTasksRequest.from_wire(deep), caller)
    assert len(captured.captured_queries) == 5  # count, page, sizes, history, artifacts


def test_fast_path_pages_an_empty_list(caller):
    page = service.list_tasks(ListTasksRequest.from_wire({"contextId": "none"}), caller)
    assert isinstance(page["tasks"], encoding.RawJSON)
    assert encoding.decoded(page) == {
        "tasks": [],
        "nextPageToken": "",
        "pageSize": 50,
        "totalSize": 0,
    }


def test_the_page_statement_runs_on_a_generic_plan(caller):
    """Planning the statement cost as much as running it. With the LIMIT written into it,
    PostgreSQL's generic plan walks the index as the custom plans do, so the prepared
    statement switches to it (after five custom plans) and is no longer planned per call.
    (With ``LIMIT $n`` the generic plan of a caller with many tasks sorts them all, and
    every call is planned anew.)"""
    owner = caller.scope
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Task._meta.db_table} (id, context_id, owner, skill_id, state, "
            "status_timestamp, metadata, skill_state, protocol_version, created_at, summary, "
            "first_message_id, message_count, artifact_count, event_count, "
            "push_config_count, background, run_attempts) "
            "SELECT gen_random_uuid(), 'ctx-many', %s, 's', 'TASK_STATE_COMPLETED', "
            "now() - i * interval '1 second', '{}', '{}', '1.0', now(), '', '', 0, 0, 0, 0, "
            "false, 0 FROM generate_series(1, 20000) AS i",
            [owner],
        )
        cursor.execute(f"ANALYZE {Task._meta.db_table}")
    for _ in range(20):  # psycopg prepares it at the 6th; then 5 custom plans at most
        service.list_tasks(ListTasksRequest.from_wire({"pageSize": 4}), caller)
    generic, custom = prepared_plans("%LIMIT 5) t %")
    assert generic >= 10 and custom <= 5, (generic, custom)
