"""SendMessage's inline path (a2a_app.core.sending): what a handler is given, what a
follow-up answers, and what a crash on a follow-up keeps. Found missing by a mutation run
of sending.py (docs/testing.md)."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_app.skills.context import text_artifact
from tests.support import new_task, send

pytestmark = pytest.mark.django_db

INPUT_REQUIRED, FAILED = "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_FAILED"


def test_a_handler_is_given_the_caller_and_the_requests_metadata(rpc, install):
    seen: list[Any] = []

    def handler(ctx):
        seen.append((ctx.caller, ctx.metadata))
        return ctx.complete("ok")

    install(handler)
    new_task(rpc, "hello", metadata={"skillId": "job", "table": 4})
    [(caller, metadata)] = seen
    assert caller is not None and not caller.is_authenticated
    assert metadata == {"skillId": "job", "table": 4}


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
    answer = send(rpc, "friday", taskId=task["id"])["result"]["task"]
    assert answer["status"]["state"] == FAILED
    assert [a["name"] for a in answer["artifacts"]] == ["draft"]
    assert [a["parts"] for a in answer["artifacts"]] == [[{"text": "a draft"}]]
    assert answer["history"][-2]["parts"] == [{"text": "friday"}]
