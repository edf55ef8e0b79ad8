"""a2a_app.testing, as a site's tests use it: skills run directly, the endpoints driven
in-process, Celery recorded."""

from __future__ import annotations

import asyncio

import pytest

from a2a_app import Completed, InputRequired, SkillContext
from a2a_app.models import Task
from a2a_app.testing import (
    A2AClient,
    SkillConversation,
    installed_skill,
    record_dispatch,
    run_skill,
)

pytestmark = pytest.mark.django_db(transaction=True)


def greeter(ctx: SkillContext):
    """Asks for a name, then greets; counts its turns in the task's state."""
    ctx.state["turns"] = ctx.state.get("turns", 0) + 1
    name = ctx.data.get("name") or (ctx.text if ctx.is_follow_up else "")
    if not name:
        return ctx.ask("What is your name?", missing=["name"])
    ctx.progress("writing the greeting")
    return ctx.complete(f"Hello {name}", data={"turns": ctx.state["turns"]}, name="greeting")


def test_a_conversation_keeps_the_task_state_and_history() -> None:
    with installed_skill(greeter, "greeter"):
        talk = SkillConversation("greeter")
        asked = talk.say("hi")
        assert isinstance(asked, InputRequired) and asked.missing == ["name"]
        done = talk.say("Ada")
    assert isinstance(done, Completed)
    [artifact] = done.artifacts
    assert artifact.name == "greeting"
    assert [p.content for p in artifact.parts] == ["Hello Ada", {"turns": 2}]
    # a2a_app keeps the conversation's language there too (a2a_* keys are the library's).
    assert talk.state == {"turns": 2, "a2a_language": "en"}
    # The user's messages and the agent's question, as a worker would pass them on.
    assert [m.text for m in talk.history] == ["hi", "What is your name?", "Ada"]
    assert [text for _, message in talk.sink.statuses for text in [message.text]] == [
        "writing the greeting"
    ]


def test_run_skill_is_one_turn_with_data() -> None:
    with installed_skill(greeter, "greeter"):
        done = run_skill("greeter", data={"name": "Grace"})
        with pytest.raises(LookupError, match="no skill 'nope' is registered"):
            run_skill("nope", "x")
    assert isinstance(done, Completed)
    assert done.artifacts[0].parts[0].content == "Hello Grace"


def test_the_client_speaks_json_rpc_rest_and_sse() -> None:
    agent = A2AClient()
    with installed_skill(greeter, "greeter"):
        task = agent.send("hi")["task"]
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        done = agent.send("Ada", taskId=task["id"])["task"]
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert agent.result("GetTask", {"id": task["id"]})["id"] == task["id"]
        assert agent.call("GetTask", {"id": "nope"})["error"]["code"] == -32001

        response = agent.rest("get", f"/tasks/{task['id']}")
        assert response.status_code == 200
        assert response.json()["status"]["state"] == "TASK_STATE_COMPLETED"

        params = agent.send_params("hi", data={"name": "Bob"})
        events = asyncio.run(agent.stream("SendStreamingMessage", params))
        # A new messageId: the same one again would be a retry, answered with that task.
        params = agent.send_params("hi", data={"name": "Bob"})
        rest_events = asyncio.run(agent.rest_stream("/message:stream", params))
    # The task, WORKING, the progress report, the artifact, COMPLETED.
    assert [next(iter(e)) for e in events] == [
        "task",
        "statusUpdate",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [next(iter(e)) for e in rest_events] == [next(iter(e)) for e in events]


def test_recorded_runs_are_run_as_a_worker_would() -> None:
    agent = A2AClient()
    with installed_skill(greeter, "greeter", background=True), record_dispatch() as dispatched:
        params = agent.send_params(data={"name": "Lin"}, configuration={"returnImmediately": True})
        task = agent.result("SendMessage", params)["task"]
        assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
        assert dispatched.runs == [task["id"]]
        assert dispatched.run_queued() == ["TASK_STATE_COMPLETED"]
    assert dispatched.runs == []
    assert Task.objects.get(pk=task["id"]).state == "TASK_STATE_COMPLETED"
    assert task["id"] in dispatched.published
