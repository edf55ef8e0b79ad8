"""a2a_app.rows: a task and its new rows in one statement on PostgreSQL, the ORM elsewhere.

Every test runs on both databases (``make test`` runs the suite on SQLite, then on
PostgreSQL): what is written must read back the same through the ORM either way.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from a2a_app.core import rows
from a2a_app.models import Task, TaskArtifact, TaskEvent, TaskMessage

pytestmark = pytest.mark.django_db


def new_task(**fields) -> Task:
    values = {
        "id": uuid.uuid4(),
        "context_id": "ctx-rows",
        "owner": "user:7",
        "skill_id": "echo",
        "state": "TASK_STATE_WORKING",
        "status_timestamp": datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC),
        "status_message": {"messageId": "s1", "role": "ROLE_AGENT", "parts": [{"text": "…"}]},
        "skill_state": {"guests": 4, "nested": {"ok": True, "none": None}},
    }
    return Task(**values | fields)


def message_row(task: Task, role: str) -> dict:
    """One history-message row for ``rows.write``, at position 0."""
    return {"task_id": task.pk, "position": 0, "message_id": "m", "role": role, "body": {}}


def writes(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].lstrip().startswith(("INSERT", "WITH", "UPDATE"))
    ]


def test_a_new_task_and_its_rows_read_back_as_written():
    task = new_task(message_count=2, event_count=1, artifact_count=1)
    body = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "Grüße, 'quoted' \"x\""}]}
    messages = [
        {
            "task_id": task.pk,
            "position": i,
            "message_id": f"m{i}",
            "role": "ROLE_USER",
            "body": body,
        }
        for i in range(2)
    ]
    artifacts = [
        {"task_id": task.pk, "position": 0, "artifact_id": "a1", "body": {"artifactId": "a1"}}
    ]
    events = [{"task_id": task.pk, "sequence": 1, "kind": "status", "body": {"statusUpdate": {}}}]
    before = datetime.now(UTC)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        keys = rows.write(
            task,
            is_new=True,
            update_fields=[],
            tables=[(TaskMessage, messages), (TaskArtifact, artifacts), (TaskEvent, events)],
        )

    # One statement on PostgreSQL; the ORM's four elsewhere.
    assert len(writes(captured)) == (1 if connection.vendor == "postgresql" else 4)
    stored = Task.objects.get(pk=task.pk)
    for field in Task._meta.concrete_fields:
        assert getattr(stored, field.attname) == getattr(task, field.attname), field.name
    assert stored.enqueued_at is None and stored.background is False
    assert not task._state.adding
    stored_messages = list(TaskMessage.objects.filter(task=task))
    assert [(m.position, m.message_id, m.body) for m in stored_messages] == [
        (0, "m0", body),
        (1, "m1", body),
    ]
    # Fields a row leaves out get their defaults.
    artifact = TaskArtifact.objects.get(task=task)
    assert (artifact.name, artifact.body) == ("", {"artifactId": "a1"})
    assert before <= artifact.created_at <= datetime.now(UTC)
    # The last table's keys, as the database made them.
    assert keys == [TaskEvent.objects.get(task=task).pk]


def test_the_last_table_gets_its_keys_in_order():
    task = new_task()
    events = [
        {"task_id": task.pk, "sequence": i, "kind": "status", "body": {"n": i}} for i in range(1, 6)
    ]
    with transaction.atomic():
        keys = rows.write(
            task, is_new=True, update_fields=[], tables=[(TaskMessage, []), (TaskEvent, events)]
        )
    assert keys == list(
        TaskEvent.objects.filter(task=task).order_by("sequence").values_list("pk", flat=True)
    )
    assert len(set(keys)) == 5


def test_no_keys_when_the_last_table_has_no_rows():
    task = new_task()
    message = message_row(task, "ROLE_USER")
    with transaction.atomic():
        keys = rows.write(
            task, is_new=True, update_fields=[], tables=[(TaskMessage, [message]), (TaskEvent, [])]
        )
    assert keys == []
    assert TaskMessage.objects.filter(task=task).count() == 1


def test_an_update_writes_only_the_named_fields():
    task = new_task()
    task.save()
    later = task.status_timestamp + timedelta(seconds=3)
    task.state, task.status_timestamp, task.status_message = "TASK_STATE_COMPLETED", later, None
    task.skill_id = "changed-but-not-named"
    message = message_row(task, "ROLE_AGENT")
    with transaction.atomic():
        keys = rows.write(
            task,
            is_new=False,
            update_fields=["state", "status_timestamp", "status_message"],
            tables=[(TaskMessage, [message])],
        )
    stored = Task.objects.get(pk=task.pk)
    assert (stored.state, stored.status_timestamp, stored.status_message) == (
        "TASK_STATE_COMPLETED",
        later,
        None,
    )
    assert stored.skill_id == "echo"
    assert keys == [TaskMessage.objects.get(task=task).pk]


def test_a_failing_write_leaves_nothing():
    task = new_task()
    twins = [
        {"task_id": task.pk, "position": 0, "message_id": f"m{i}", "role": "ROLE_USER", "body": {}}
        for i in range(2)
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.write(task, is_new=True, update_fields=[], tables=[(TaskMessage, twins)])
    assert not Task.objects.filter(pk=task.pk).exists()
    assert not TaskMessage.objects.filter(task_id=task.pk).exists()


def prepared_row(task: Task) -> dict:
    """What every field's pre_save and get_prep_value make of ``task``: the reference."""
    fields, _ = rows._insert_sql(Task, True)
    return {f.column: f.get_prep_value(f.pre_save(task, True)) for f in fields}


def written_row(task: Task) -> dict:
    import json

    _, params = rows._insert_instance(task)
    return json.loads(params[0])[0]


def as_json(row: dict) -> dict:
    import json

    return json.loads(rows.encode_json([row]))[0]


def test_values_a_field_keeps_are_written_as_the_field_would_prepare_them():
    task = new_task(message_count=3, background=True, summary="Grüße", finished_at=None)
    assert written_row(task) == as_json(prepared_row(task))


def test_values_a_field_converts_still_go_through_the_field():
    from django.utils.translation import gettext_lazy

    naive = datetime(2026, 12, 1, 8, 30)
    task = new_task(
        skill_id=7, summary=gettext_lazy("Menu"), message_count="2", id=str(uuid.uuid4())
    )
    task.started_at = naive
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        expected = as_json(prepared_row(task))
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        written = written_row(task)
    assert written == expected
    assert written["skill_id"] == "7" and written["summary"] == "Menu"
    assert written["message_count"] == 2
    assert datetime.fromisoformat(written["started_at"]).tzinfo is not None  # made aware
