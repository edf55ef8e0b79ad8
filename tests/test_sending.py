"""SendMessage's inline path (a2a_app.core.sending): what a handler is given, what a
follow-up answers, and what a crash on a follow-up keeps. Found missing by a mutation run
of sending.py (docs/testing.md)."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_app.models import Skill, Task, TaskEvent
from a2a_app.skills.context import text_artifact
from tests.support import error_info, error_of, new_task, send

pytestmark = pytest.mark.django_db

INPUT_REQUIRED, FAILED = "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_FAILED"


def test_a_handler_is_given_the_caller_and_the_requests_metadata(rpc, install):
    seen: list[Any] = []

    def handler(ctx):
        seen.append((ctx.caller, ctx.metadata, ctx.accepted_output_modes))
        return ctx.complete("ok")

    install(handler)
    task = new_task(
        rpc,
        "hello",
        metadata={"skillId": "job", "table": 4},
        configuration={"acceptedOutputModes": ["text/plain"]},
    )
    [(caller, metadata, accepted)] = seen
    assert caller is not None and not caller.is_authenticated
    assert metadata == {"skillId": "job", "table": 4}
    assert accepted == ["text/plain"]
    row = Task.objects.get(pk=task["id"])  # when the handler ran, for the admin
    assert row.started_at is not None and row.finished_at is not None
    assert row.created_at <= row.started_at <= row.finished_at


def test_a_follow_up_answers_with_the_history_length_it_asks_for(rpc, install, settings):
    # The handler sees two earlier messages; the answer may carry more when asked.
    settings.A2A_APP = {**settings.A2A_APP, "HANDLER_HISTORY_MESSAGES": 2}
    seen: list[int] = []

    def handler(ctx):
        seen.append(len(ctx.history))
        return ctx.ask(f"turn {len(seen)}: and then?", missing=["more"])

    install(handler)
    task = new_task(rpc, "first")
    for text in ("second", "third"):
        send(rpc, text, taskId=task["id"])
    body = send(rpc, "fourth", taskId=task["id"], configuration={"historyLength": 7})
    answer = body["result"]["task"]
    assert seen == [0, 2, 2, 2]
    texts = [m["parts"][0]["text"] for m in answer["history"]]
    assert texts == [
        "turn 1: and then?",
        "second",
        "turn 2: and then?",
        "third",
        "turn 3: and then?",
        "fourth",
        "turn 4: and then?",
    ]


def test_a_follow_up_that_crashes_keeps_the_tasks_artifacts(rpc, install):
    def handler(ctx):
        if ctx.is_follow_up:
            raise RuntimeError("the booking system is down")
        ctx.add_artifact(text_artifact("a draft", name="draft"))
        return ctx.ask("Which date?", missing=["date"])

    install(handler)
    task = new_task(rpc, "book a table")
    assert task["status"]["state"] == INPUT_REQUIRED
    body = send(rpc, "friday", taskId=task["id"], configuration={"historyLength": 2})
    answer = body["result"]["task"]
    assert answer["status"]["state"] == FAILED
    assert [a["name"] for a in answer["artifacts"]] == ["draft"]
    assert [a["parts"] for a in answer["artifacts"]] == [[{"text": "a draft"}]]
    assert len(answer["history"]) == 2
    assert answer["history"][0]["parts"] == [{"text": "friday"}]
    assert answer["history"][1] == answer["status"]["message"]


@pytest.mark.parametrize("change", ["disabled", "deleted"])
def test_a_follow_up_to_a_task_whose_skill_is_gone_is_refused(rpc, install, change):
    install(lambda ctx: ctx.ask("Which date?", missing=["date"]))
    task = new_task(rpc, "book a table")
    skill = Skill.objects.get(id="job")
    if change == "deleted":
        skill.delete()
    else:
        skill.enabled = False
        skill.save()
    error = error_of(send(rpc, "friday", taskId=task["id"]), -32004)
    assert error["message"] == f"The skill of task {task['id']} is no longer available"
    assert error_info(error)["metadata"] == {"taskId": task["id"]}
    assert Task.objects.get(pk=task["id"]).message_count == len(task["history"])


@pytest.mark.usefixtures("dispatched")
def test_a_blocking_send_to_a_background_skill_answers_with_its_history_length(
    rpc, install, settings
):
    # No worker runs it (a RecordingDispatcher): the send waits BLOCKING_TIMEOUT and
    # answers with the task as it is, trimmed as asked.
    settings.A2A_APP = {**settings.A2A_APP, "BLOCKING_TIMEOUT": 0.05}
    install(lambda ctx: ctx.complete("ok"), background=True)
    trimmed = new_task(rpc, "later", configuration={"historyLength": 0})
    assert trimmed["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert "history" not in trimmed
    whole = new_task(rpc, "later")
    assert [m["parts"] for m in whole["history"]] == [[{"text": "later"}]]


def test_an_inline_handler_reports_progress_and_writes_an_artifact_in_chunks(rpc, install):
    # InlineSink: progress, chunks and the cancel check of a handler running in the
    # request are saved with its outcome, in the order it made them. On a follow-up,
    # so that the events are logged (a task born and ended in one request has none).
    canceled: list[bool] = []

    def handler(ctx):
        if not ctx.is_follow_up:
            return ctx.ask("Which time?", missing=["time"])
        ctx.progress("Checking the tables")
        writer = ctx.artifact_writer(name="booking")
        writer.write("Table 4,")
        canceled.append(ctx.is_canceled())
        writer.write(" 19:00", last=True)
        return ctx.complete("Booked")

    install(handler)
    first = new_task(rpc, "book a table")
    task = send(rpc, "at seven", taskId=first["id"])["result"]["task"]
    assert canceled == [False]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    booking, result = task["artifacts"]  # the chunks joined, then complete()'s answer
    assert booking["name"] == "booking"
    assert booking["parts"] == [{"text": "Table 4,"}, {"text": " 19:00"}]
    assert result["parts"] == [{"text": "Booked"}]
    texts = [m["parts"][0]["text"] for m in task["history"]]
    assert texts == ["book a table", "Which time?", "at seven", "Checking the tables"]
    events = list(
        TaskEvent.objects.filter(task_id=task["id"])
        .order_by("sequence")
        .values_list("body", flat=True)
    )
    followed = [
        (kind, body.get("status", {}).get("state"), body.get("append"), body.get("lastChunk"))
        for event in events[1:]  # after the first send's INPUT_REQUIRED
        for kind, body in event.items()
    ]
    assert followed == [
        ("statusUpdate", "TASK_STATE_WORKING", None, None),
        ("artifactUpdate", None, None, None),
        ("artifactUpdate", None, True, True),
        ("artifactUpdate", None, None, None),
        ("statusUpdate", "TASK_STATE_COMPLETED", None, None),
    ]
    working = events[1]["statusUpdate"]["status"]["message"]
    assert working["parts"] == [{"text": "Checking the tables"}]
    assert events[3]["artifactUpdate"]["artifact"]["parts"] == [{"text": " 19:00"}]
