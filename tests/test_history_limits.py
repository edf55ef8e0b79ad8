"""A task's history is bounded for its handler and in length: a follow-up on a task of
1,500 messages loads what a follow-up on a short one does (HANDLER_HISTORY_MESSAGES), and
a task past MAX_TASK_MESSAGES takes no more turns. Rows loaded are counted, not timed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from a2a_app.core import runner
from a2a_app.models import Task
from tests.support import error_info, error_of
from tests.test_tasks import add_messages

pytestmark = pytest.mark.django_db

UNSUPPORTED_OPERATION = -32004
MESSAGE_TABLE = re.compile(r'FROM "a2a_app_taskmessage"', re.I)


@pytest.fixture
def window(settings) -> int:
    # No cap on messages here: the tasks are longer than the default cap.
    settings.A2A_APP = {
        **settings.A2A_APP,
        "HANDLER_HISTORY_MESSAGES": 10,
        "MAX_TASK_MESSAGES": None,
    }
    return 10


def asking_handler(seen: list[int]) -> Callable[[Any], Any]:
    def handler(ctx):
        seen.append(len(ctx.history))
        return ctx.ask("And then?", missing=["more"])

    return handler


def message_reads(call: Callable[[], Any]) -> list[str]:
    """The SQL of every read of the history table while ``call`` runs."""
    with CaptureQueriesContext(connection) as captured:
        call()
    return [q["sql"] for q in captured.captured_queries if MESSAGE_TABLE.search(q["sql"])]


def rows_loaded_at_most(reads: list[str]) -> list[int]:
    """Each read's LIMIT (a read without one fails: it could load the whole history)."""
    limits = []
    for sql in reads:
        limit = re.search(r"\bLIMIT (\d+)", sql)
        assert limit, f"unbounded read of the history: {sql}"
        limits.append(int(limit[1]))
    return limits


def start(rpc, message_id: str, **configuration: Any) -> dict:
    """A new task (the installed skill asks a question): the task."""
    message = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "start"}]}
    body = rpc("SendMessage", {"message": message, "configuration": configuration})
    return body["result"]["task"]


def follow_up(rpc, task_id: str, text: str = "more", **configuration: Any) -> dict:
    message = {
        "messageId": f"m-{text}-{Task.objects.get(pk=task_id).message_count}",
        "role": "ROLE_USER",
        "taskId": task_id,
        "parts": [{"text": text}],
    }
    return rpc("SendMessage", {"message": message, "configuration": configuration})


def test_an_inline_follow_up_loads_a_bounded_window(rpc, install, window):
    seen: list[int] = []
    install(asking_handler(seen))
    long = start(rpc, "a")
    add_messages(long["id"], 1500)
    reads = message_reads(lambda: follow_up(rpc, long["id"])["result"])
    assert seen[-1] == window  # the handler sees the last 10 earlier messages
    # The window, never the whole history (an anonymous follow-up has no retry lookup).
    assert rows_loaded_at_most(reads) == [window], reads
    answer = follow_up(rpc, long["id"], "again")["result"]["task"]
    assert len(answer["history"]) == window + 2  # the window, the message, the question


def test_the_answer_history_follows_history_length(rpc, install, window):
    seen: list[int] = []
    install(asking_handler(seen))
    task = start(rpc, "b")
    add_messages(task["id"], 40)
    answer = follow_up(rpc, task["id"], historyLength=30)["result"]["task"]
    assert len(answer["history"]) == 30
    assert seen[-1] == window
    assert follow_up(rpc, task["id"], "x", historyLength=0)["result"]["task"].get("history") is None


def test_a_worker_loads_a_bounded_window(rpc, install, window, dispatched):
    seen: list[int] = []
    install(asking_handler(seen), background=True)
    task = start(rpc, "c", returnImmediately=True)
    assert runner.execute(task["id"]) == "TASK_STATE_INPUT_REQUIRED"
    add_messages(task["id"], 1500)
    follow_up(rpc, task["id"], "more", returnImmediately=True)
    reads = message_reads(lambda: runner.execute(task["id"]))
    assert seen == [0, window]
    assert rows_loaded_at_most(reads) == [window + 1], reads  # the turn's message and 10


def test_a_task_at_the_message_limit_takes_no_more_turns(rpc, install, settings):
    settings.A2A_APP = {**settings.A2A_APP, "MAX_TASK_MESSAGES": 50}
    install(asking_handler([]))
    task = start(rpc, "d")
    add_messages(task["id"], 46)  # 2 + 46 = 48 messages
    assert "result" in follow_up(rpc, task["id"])  # 50 after this turn
    before = Task.objects.get(pk=task["id"]).message_count
    error = error_of(follow_up(rpc, task["id"], "one more"), UNSUPPORTED_OPERATION)
    assert error["message"] == (
        f"Task {task['id']} has 50 messages, the most a task may have (50); start a new "
        "task (same contextId) instead"
    )
    # ErrorInfo's metadata is a map of strings.
    assert error_info(error)["metadata"] == {"taskId": task["id"], "messages": "50", "limit": "50"}
    assert Task.objects.get(pk=task["id"]).message_count == before
