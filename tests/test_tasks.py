"""The task operations through the JSON-RPC endpoint, against the conformance skill:
SendMessage, GetTask, ListTasks, CancelTask, the unsupported capabilities and the
query counts (spec reference §2.3, §5.1-§5.4, §5.7)."""

from __future__ import annotations

import base64
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from a2a_app.core.contexts import new_context_id
from a2a_app.core.execution import SAFE_FAILURE_TEXT
from a2a_app.models import Skill, Task, TaskArtifact, TaskMessage
from a2a_app.protocol.wire import format_timestamp
from a2a_app.skills.registry import SkillSpec, registered
from tests.conftest import user_message
from tests.support import error_info, error_of, new_task, prepared_plans, send, violated_fields

pytestmark = pytest.mark.django_db

TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
USER, AGENT = "ROLE_USER", "ROLE_AGENT"
# Anonymous callers list only contexts the agent generated (a2a_app.core.contexts).
CTX_LIST, CTX_OTHER, CTX_S, CTX_A, CTX_H, CTX_FEW, CTX_MANY = (new_context_id() for _ in range(7))


# --- helpers ------------------------------------------------------------------------------


def roles(task: dict[str, Any]) -> list[str]:
    return [m["role"] for m in task.get("history", [])]


def texts(message: dict[str, Any]) -> list[str]:
    return [p["text"] for p in message["parts"] if "text" in p]


def add_messages(task_id: str, count: int) -> None:
    """Append ``count`` user messages to a task's history straight in the database."""
    task = Task.objects.get(pk=task_id)
    start = TaskMessage.objects.filter(task=task).count()
    TaskMessage.objects.bulk_create(
        TaskMessage(
            task=task,
            position=start + i,
            message_id=f"bulk-{start + i}",
            role=USER,
            body={
                "messageId": f"bulk-{start + i}",
                "role": USER,
                "taskId": task_id,
                "contextId": task.context_id,
                "parts": [{"text": f"bulk {start + i}"}],
            },
        )
        for i in range(count)
    )
    Task.objects.filter(pk=task_id).update(message_count=start + count)


def set_status_timestamp(task_id: str, when: datetime) -> None:
    Task.objects.filter(pk=task_id).update(status_timestamp=when)


def count_queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


# --- SendMessage ----------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestSendMessage:
    def test_blocking_default_completes_with_echo_artifact(self, rpc):
        message = user_message("hello world")
        body = rpc("SendMessage", {"message": message})
        assert set(body["result"]) == {"task"}
        task = body["result"]["task"]
        uuid.UUID(task["id"])
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert TIMESTAMP_RE.match(task["status"]["timestamp"])
        [artifact] = task["artifacts"]
        assert artifact["name"] == "echo"
        assert artifact["parts"] == [{"text": "echo: hello world"}]
        assert artifact["artifactId"]
        [stored] = task["history"]
        assert stored == {
            **message,
            "taskId": task["id"],
            "contextId": task["contextId"],
        }
        row = Task.objects.get(pk=task["id"])
        assert row.state == "TASK_STATE_COMPLETED"
        assert row.skill_id == "conformance"

    def test_context_id_is_generated_when_absent(self, rpc):
        first = new_task(rpc, "one")
        second = new_task(rpc, "two")
        assert first["contextId"]
        assert first["contextId"] != second["contextId"]
        assert first["history"][0]["contextId"] == first["contextId"]

    def test_context_id_is_reused_when_given(self, rpc):
        first = new_task(rpc, "one", contextId="my-conversation")
        second = new_task(rpc, "two", context_id="my-conversation")
        assert first["contextId"] == second["contextId"] == "my-conversation"
        assert first["id"] != second["id"]

    def test_generated_context_id_lists_the_conversation(self, rpc):
        first = new_task(rpc, "one")
        second = new_task(rpc, "two", contextId=first["contextId"])
        listed = rpc("ListTasks", {"contextId": first["contextId"]})["result"]
        assert {t["id"] for t in listed["tasks"]} == {first["id"], second["id"]}

    def test_direct_message_response_creates_no_task(self, rpc):
        body = send(rpc, "anything", messageId="tck-message-response-1", contextId="c-direct")
        result = body["result"]
        assert set(result) == {"message"}
        message = result["message"]
        assert message["role"] == AGENT
        assert message["parts"] == [{"text": "Direct message response"}]
        assert message["contextId"] == "c-direct"
        assert "taskId" not in message
        assert message["messageId"] != "tck-message-response-1"
        assert Task.objects.count() == 0
        assert TaskMessage.objects.count() == 0

    def test_direct_message_gets_a_generated_context(self, rpc):
        message = send(rpc, "message hi there")["result"]["message"]
        assert texts(message) == ["echo: message hi there"]
        assert message["contextId"]
        assert Task.objects.count() == 0

    def test_input_required_then_follow_up_completes(self, rpc):
        first = new_task(rpc, "ignored", messageId="tck-input-required-1", contextId="ctx-ir")
        assert first["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        question = first["status"]["message"]
        assert question["role"] == AGENT
        assert texts(question) == ["Please provide more input."]
        assert question["taskId"] == first["id"]
        assert question["contextId"] == "ctx-ir"
        assert roles(first) == [USER, AGENT]
        assert first["history"][1] == question

        follow = send(rpc, "here it is", messageId="tck-complete-task-2", taskId=first["id"])
        done = follow["result"]["task"]
        assert done["id"] == first["id"]
        assert done["contextId"] == "ctx-ir"
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert texts(done["status"]["message"]) == ["Hello from TCK"]
        assert roles(done) == [USER, AGENT, USER, AGENT]
        history = done["history"]
        assert [m["messageId"] for m in (history[0], history[2])] == [
            "tck-input-required-1",
            "tck-complete-task-2",
        ]
        # The follow-up got its contextId from the task.
        assert history[2]["contextId"] == "ctx-ir"
        assert history[2]["taskId"] == first["id"]
        assert history[3] == done["status"]["message"]
        # The stored task says the same.
        stored = rpc("GetTask", {"id": first["id"]})["result"]
        assert stored["history"] == history
        assert stored["status"] == done["status"]

    def test_follow_up_with_same_context_id_is_accepted(self, rpc):
        first = new_task(rpc, "input please", contextId="ctx-same")
        done = new_task(rpc, "thanks", taskId=first["id"], contextId="ctx-same")
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert done["artifacts"][0]["parts"] == [{"text": "echo: thanks"}]

    def test_follow_up_with_another_context_id_is_invalid_params(self, rpc):
        first = new_task(rpc, "input please", contextId="ctx-a")
        body = send(rpc, "more", taskId=first["id"], contextId="ctx-b")
        error = error_of(body, -32602)
        assert violated_fields(error) == ["message.contextId"]
        assert "message.contextId" in error["message"]
        unchanged = rpc("GetTask", {"id": first["id"]})["result"]
        assert unchanged["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert len(unchanged["history"]) == 2

    @pytest.mark.parametrize(
        ("message_fields", "state"),
        [
            ({}, "TASK_STATE_COMPLETED"),
            ({"messageId": "tck-reject-task-1"}, "TASK_STATE_REJECTED"),
            ({"text": "fail"}, "TASK_STATE_FAILED"),
        ],
    )
    def test_follow_up_to_terminal_task_is_unsupported(self, rpc, message_fields, state):
        fields = dict(message_fields)  # the parameter is shared by every run of the test
        text = fields.pop("text", "hello")
        first = new_task(rpc, text, **fields)
        assert first["status"]["state"] == state
        body = send(rpc, "again", taskId=first["id"])
        error = error_of(body, -32004)
        info = error_info(error)
        assert info["reason"] == "UNSUPPORTED_OPERATION"
        assert info["metadata"] == {"taskId": first["id"], "state": state}
        assert error["message"] == (
            f"Task {first['id']} is {state} and accepts no more messages; "
            "start a new task (same contextId) instead"
        )
        assert TaskMessage.objects.filter(task_id=first["id"]).count() == len(first["history"])

    @pytest.mark.parametrize("task_id", ["5b7e9a1c-2d4f-4a6b-8c0e-3f5a7b9c1d2e", "not-a-uuid"])
    def test_follow_up_to_unknown_task_is_not_found(self, rpc, task_id):
        error = error_of(send(rpc, "x", taskId=task_id), -32001)
        assert error_info(error)["metadata"]["taskId"] == task_id
        assert Task.objects.count() == 0

    def test_history_length_zero_omits_history(self, rpc):
        task = new_task(rpc, "input now", configuration={"historyLength": 0})
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert "history" not in task
        # Only the response is trimmed.
        assert TaskMessage.objects.filter(task_id=task["id"]).count() == 2

    def test_history_length_one_is_the_last_message(self, rpc):
        task = new_task(rpc, "input now", configuration={"historyLength": 1})
        assert roles(task) == [AGENT]
        assert task["history"][0] == task["status"]["message"]

    def test_history_length_on_follow_up(self, rpc):
        first = new_task(rpc, "input now")
        follow = new_task(
            rpc, "input again", taskId=first["id"], configuration={"historyLength": 3}
        )
        assert roles(follow) == [AGENT, USER, AGENT]
        assert texts(follow["history"][1]) == ["input again"]

    def test_negative_history_length_is_invalid(self, rpc):
        error = error_of(send(rpc, configuration={"historyLength": -1}), -32602)
        assert violated_fields(error) == ["configuration.historyLength"]
        assert Task.objects.count() == 0

    def test_missing_message_is_invalid(self, rpc):
        error = error_of(rpc("SendMessage", {"configuration": {}}), -32602)
        assert violated_fields(error) == ["message"]

    def test_empty_parts_is_invalid(self, rpc):
        error = error_of(send(rpc, parts=[]), -32602)
        assert violated_fields(error) == ["message.parts"]

    def test_agent_role_is_invalid(self, rpc):
        error = error_of(send(rpc, role="ROLE_AGENT"), -32602)
        assert violated_fields(error) == ["message.role"]
        assert Task.objects.count() == 0

    def test_bad_part_is_invalid_naming_it(self, rpc):
        error = error_of(send(rpc, parts=[{"text": "a"}, {}]), -32602)
        assert violated_fields(error) == ["message.parts[1]"]

    def test_fail_gives_failed_task_with_status_message(self, rpc):
        task = new_task(rpc, "fail")
        assert task["status"]["state"] == "TASK_STATE_FAILED"
        assert texts(task["status"]["message"]) == ["Failed as requested."]
        assert task["status"]["message"]["taskId"] == task["id"]
        assert roles(task) == [USER, AGENT]

    def test_reject(self, rpc):
        task = new_task(rpc, "x", messageId="tck-reject-task-7")
        assert task["status"]["state"] == "TASK_STATE_REJECTED"
        assert task["status"]["message"]["role"] == AGENT
        assert texts(task["status"]["message"]) == ["Task rejected by the conformance agent."]

    def test_artifact_file(self, rpc):
        task = new_task(rpc, "x", messageId="tck-artifact-file-1")
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        [artifact] = task["artifacts"]
        [part] = artifact["parts"]
        assert part["filename"] == "output.txt"
        assert part["mediaType"] == "text/plain"
        assert base64.b64decode(part["raw"], validate=True) == b"Generated file content"

    def test_artifact_file_url(self, rpc):
        task = new_task(rpc, "x", messageId="tck-artifact-file-url-1")
        [part] = task["artifacts"][0]["parts"]
        assert part["url"] == "https://example.com/output.txt"
        assert part["filename"] == "output.txt"
        assert "raw" not in part

    def test_artifact_data(self, rpc):
        task = new_task(rpc, "x", messageId="tck-artifact-data-1")
        [part] = task["artifacts"][0]["parts"]
        assert part["data"] == {"key": "value", "count": 42}
        assert part["mediaType"] == "application/json"

    def test_artifact_text(self, rpc):
        task = new_task(rpc, "x", messageId="tck-artifact-text-1")
        assert task["artifacts"][0]["parts"] == [{"text": "Generated text content"}]

    def test_push_config_is_refused_when_push_is_off(self, rpc, settings):
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        body = send(
            rpc,
            configuration={"taskPushNotificationConfig": {"url": "https://hook.example.com"}},
        )
        error = error_of(body, -32003)
        assert error_info(error)["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"
        assert Task.objects.count() == 0

    def test_unacceptable_output_modes(self, rpc):
        body = send(rpc, configuration={"acceptedOutputModes": ["image/png"]})
        error = error_of(body, -32005)
        assert error_info(error)["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
        assert Task.objects.count() == 0

    @pytest.mark.parametrize(
        "modes", [["text/plain"], ["image/png", "application/json"], ["text/*"], ["*/*"]]
    )
    def test_acceptable_output_modes(self, rpc, modes):
        task = new_task(rpc, configuration={"acceptedOutputModes": modes})
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_unsupported_input_media_type(self, rpc):
        body = send(rpc, parts=[{"text": "hi"}, {"raw": "iVBORw0K", "mediaType": "image/png"}])
        error = error_of(body, -32005)
        assert error_info(error)["metadata"]["field"] == "message.parts[1].mediaType"
        assert Task.objects.count() == 0

    def test_supported_input_media_types(self, rpc):
        parts = [
            {"text": "hi", "mediaType": "text/plain"},
            {"data": {"a": 1}, "mediaType": "application/json"},
        ]
        task = new_task(rpc, parts=parts)
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        assert task["history"][0]["parts"] == parts

    def test_media_types_are_case_insensitive(self, rpc):
        task = new_task(
            rpc,
            parts=[{"text": "hi", "mediaType": "Text/Plain"}],
            configuration={"acceptedOutputModes": ["TEXT/PLAIN"]},
        )
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_media_type_parameters_are_ignored(self, rpc):
        task = new_task(
            rpc,
            parts=[{"text": "hi", "mediaType": "text/plain; charset=utf-8"}],
            configuration={"acceptedOutputModes": ["application/json; q=0.5"]},
        )
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"

    @pytest.mark.parametrize("state", ["TASK_STATE_WORKING", "TASK_STATE_SUBMITTED"])
    def test_follow_up_to_a_working_task_is_unsupported(self, rpc, state):
        task = new_task(rpc, "input please")
        Task.objects.filter(pk=task["id"]).update(state=state)
        error = error_of(send(rpc, "more", taskId=task["id"]), -32004)
        assert error_info(error)["metadata"] == {"taskId": task["id"], "state": state}
        assert error["message"] == (
            f"Task {task['id']} is {state}; it takes new messages only when it asks for input"
        )
        assert TaskMessage.objects.filter(task_id=task["id"]).count() == 2

    def test_follow_up_to_an_auth_required_task_is_accepted(self, rpc):
        task = new_task(rpc, "input please")
        Task.objects.filter(pk=task["id"]).update(state="TASK_STATE_AUTH_REQUIRED")
        done = new_task(rpc, "signed in now", taskId=task["id"])
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert roles(done) == [USER, AGENT, USER]

    def test_return_immediately_returns_before_the_skill_finishes(self, rpc):
        task = new_task(rpc, "sleep 0.2", configuration={"returnImmediately": True})
        assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")

    def test_raw_part_is_stored_as_standard_base64(self, rpc):
        task = new_task(rpc, parts=[{"text": "x"}, {"raw": "-_8", "mediaType": "text/plain"}])
        assert task["history"][0]["parts"][1]["raw"] == "+/8="

    def test_snake_case_request_fields(self, rpc):
        params = {
            "message": {
                "message_id": "snake-1",
                "role": 1,
                "parts": [{"text": "input snake"}],
                "context_id": "ctx-snake",
            },
            "configuration": {"history_length": "1"},
        }
        task = rpc("SendMessage", params)["result"]["task"]
        assert task["contextId"] == "ctx-snake"
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert roles(task) == [AGENT]

    def test_timestamps_end_with_z(self, rpc):
        task = new_task(rpc, "input")
        assert TIMESTAMP_RE.match(task["status"]["timestamp"])
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert TIMESTAMP_RE.match(got["status"]["timestamp"])
        canceled = rpc("CancelTask", {"id": task["id"]})["result"]
        assert TIMESTAMP_RE.match(canceled["status"]["timestamp"])
        assert canceled["status"]["timestamp"] >= got["status"]["timestamp"]


# --- a skill that raises ----------------------------------------------------------------------


def _explode(ctx):
    get_user_model().objects.create(username="written-by-the-skill")
    raise RuntimeError("database password is hunter2")


def _bad_return(ctx):
    return 42


def _asks_then_explodes(ctx):
    if not ctx.is_follow_up:
        ctx.state["asked"] = True
        return ctx.ask("Which day?", missing=["day"])
    ctx.state["answered"] = True
    get_user_model().objects.create(username="written-on-the-follow-up")
    raise RuntimeError("database password is hunter2")


class TestFailingSkill:
    @pytest.fixture
    def boom(self):
        spec = SkillSpec(key="boom", handler=_explode, name="Boom", description="Explodes")
        with registered(spec):
            Skill.objects.create(id="boom", handler="boom", name="Boom", description="Explodes")
            yield

    def test_exception_fails_the_task_safely_and_rolls_back(self, rpc, boom):
        body = send(rpc, "do it")
        task = body["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_FAILED"
        assert texts(task["status"]["message"]) == [SAFE_FAILURE_TEXT]
        rendered = str(body)
        assert "hunter2" not in rendered
        assert "RuntimeError" not in rendered
        assert not get_user_model().objects.filter(username="written-by-the-skill").exists()
        row = Task.objects.get(pk=task["id"])
        assert row.state == "TASK_STATE_FAILED"
        assert row.skill_id == "boom"
        assert TaskMessage.objects.filter(task=row).count() == 2

    def test_exception_on_a_follow_up_fails_the_task_and_rolls_back(self, rpc):
        spec = SkillSpec(
            key="later", handler=_asks_then_explodes, name="Later", description="Explodes later"
        )
        with registered(spec):
            Skill.objects.create(id="later", handler="later", name="Later", description="-")
            asked = new_task(rpc, "go")
            assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
            body = send(rpc, "monday", taskId=asked["id"])
        task = body["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_FAILED"
        assert texts(task["status"]["message"]) == [SAFE_FAILURE_TEXT]
        assert "hunter2" not in str(body)
        assert not get_user_model().objects.filter(username="written-on-the-follow-up").exists()
        row = Task.objects.get(pk=task["id"])
        # The follow-up message is kept; the crashed run's changes to the state are not.
        assert [m["parts"][0]["text"] for m in task["history"] if m["role"] == USER] == [
            "go",
            "monday",
        ]
        assert row.skill_state == {"asked": True, "a2a_language": "en"}
        assert TaskMessage.objects.filter(task=row).count() == 4

    def test_bad_return_value_fails_the_task(self, rpc):
        spec = SkillSpec(key="bad", handler=_bad_return, name="Bad", description="Returns 42")
        with registered(spec):
            Skill.objects.create(id="bad", handler="bad", name="Bad", description="Returns 42")
            task = new_task(rpc, "go")
        assert task["status"]["state"] == "TASK_STATE_FAILED"
        assert texts(task["status"]["message"]) == [SAFE_FAILURE_TEXT]

    def test_row_without_registered_handler_is_not_offered(self, rpc, client):
        # A row whose handler this process does not have (removed, or a newer deploy's
        # rows seen by an older process) is neither routed to nor in the card.
        Skill.objects.create(id="ghost", handler="not-registered", name="Ghost", description="-")
        body = send(rpc, "go")
        assert "message" in body["result"] and "task" not in body["result"]
        assert Task.objects.count() == 0
        card = client.get("/.well-known/agent-card.json").json()
        assert "ghost" not in [s["id"] for s in card["skills"]]


# --- GetTask ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestGetTask:
    def test_returns_the_task(self, rpc):
        created = new_task(rpc, "hello", messageId="tck-artifact-data-9")
        got = rpc("GetTask", {"id": created["id"]})["result"]
        assert got == created

    def test_history_length_trims_to_most_recent(self, rpc):
        task = new_task(rpc, "input please")
        add_messages(task["id"], 5)  # positions 2..6
        full = rpc("GetTask", {"id": task["id"]})["result"]
        assert len(full["history"]) == 7
        got = rpc("GetTask", {"id": task["id"], "historyLength": 3})["result"]
        assert [texts(m)[0] for m in got["history"]] == ["bulk 4", "bulk 5", "bulk 6"]
        assert got["history"] == full["history"][-3:]
        more = rpc("GetTask", {"id": task["id"], "historyLength": 100})["result"]
        assert more["history"] == full["history"]
        # Above WRITTEN_HISTORY_LENGTHS the length is bound, not written: the same answer.
        for length in (6, 101, 2**31 - 1):
            longer = rpc("GetTask", {"id": task["id"], "historyLength": length})["result"]
            assert longer["history"] == full["history"][-length:]
        none = rpc("GetTask", {"id": task["id"], "historyLength": 0})["result"]
        assert "history" not in none
        as_string = rpc("GetTask", {"id": task["id"], "historyLength": "2"})["result"]
        assert as_string["history"] == full["history"][-2:]

    @pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the one-statement GetTask is PostgreSQL's"
    )
    def test_a_history_the_row_holds_is_read_from_the_row(self, rpc):
        """The task row holds a short history whole (Task.short_history): with the
        message rows gone, GetTask still answers it, so it read the row. Asked for fewer
        messages than the task has, it reads the rows."""
        task = new_task(rpc, "input please")  # the question and the agent's answer
        full = rpc("GetTask", {"id": task["id"]})["result"]["history"]
        assert [m["role"] for m in full] == [USER, "ROLE_AGENT"]
        assert Task.objects.get(pk=task["id"]).short_history == full
        TaskMessage.objects.filter(task_id=task["id"]).delete()
        for asked in ({}, {"historyLength": 2}, {"historyLength": 200}):
            got = rpc("GetTask", {"id": task["id"], **asked})["result"]
            assert got["history"] == full, asked
        trimmed = rpc("GetTask", {"id": task["id"], "historyLength": 1})["result"]
        assert "history" not in trimmed  # read from the rows, which are gone

    @pytest.mark.parametrize(
        "task_id", ["7d9f1b3c-4e6a-4c8d-9e0f-5a7b9c1d3e4f", "garbage", "' OR 1=1 --"]
    )
    def test_unknown_or_malformed_id_is_not_found(self, rpc, task_id):
        error = error_of(rpc("GetTask", {"id": task_id}), -32001)
        info = error_info(error)
        assert info["reason"] == "TASK_NOT_FOUND"
        assert info["domain"] == "a2a-protocol.org"
        assert info["metadata"] == {"taskId": task_id}

    @pytest.mark.parametrize("params", [{}, {"id": ""}, {"historyLength": 1}])
    def test_missing_id_is_invalid(self, rpc, params):
        error = error_of(rpc("GetTask", params), -32602)
        assert violated_fields(error) == ["id"]

    def test_negative_history_length_is_invalid(self, rpc):
        task = new_task(rpc)
        error = error_of(rpc("GetTask", {"id": task["id"], "historyLength": -2}), -32602)
        assert violated_fields(error) == ["historyLength"]


# --- ListTasks --------------------------------------------------------------------------------


BASE = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.usefixtures("conformance_mode")
class TestListTasks:
    def make(self, rpc, count: int, context: str = CTX_LIST, text: str = "hello") -> list[str]:
        """``count`` tasks; the i-th gets status timestamp BASE + i seconds."""
        ids = []
        for i in range(count):
            task = new_task(rpc, f"{text} {i}", contextId=context)
            set_status_timestamp(task["id"], BASE + timedelta(seconds=i))
            ids.append(task["id"])
        return ids

    def test_ordering_newest_status_first(self, rpc):
        ids = self.make(rpc, 3)
        # Move the oldest to the top.
        set_status_timestamp(ids[0], BASE + timedelta(hours=1))
        result = rpc("ListTasks", {"contextId": CTX_LIST})["result"]
        assert [t["id"] for t in result["tasks"]] == [ids[0], ids[2], ids[1]]
        stamps = [t["status"]["timestamp"] for t in result["tasks"]]
        assert stamps == sorted(stamps, reverse=True)

    def test_response_shape_and_defaults(self, rpc):
        ids = self.make(rpc, 2)
        result = rpc("ListTasks", {"contextId": CTX_LIST})["result"]
        assert set(result) == {"tasks", "nextPageToken", "pageSize", "totalSize"}
        assert result["pageSize"] == 50
        assert result["totalSize"] == 2
        assert result["nextPageToken"] == ""
        assert {t["id"] for t in result["tasks"]} == set(ids)

    def test_empty_result_has_all_required_fields(self, rpc):
        result = rpc("ListTasks", {"contextId": "nobody-here"})["result"]
        assert result == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}

    @pytest.mark.parametrize("size", [1, 100, "7"])
    def test_page_size_bounds_accepted(self, rpc, size):
        self.make(rpc, 2)
        result = rpc("ListTasks", {"contextId": CTX_LIST, "pageSize": size})["result"]
        assert result["pageSize"] == int(size)
        assert len(result["tasks"]) == min(2, int(size))

    @pytest.mark.parametrize("size", [0, 101, -5, "many", 2.5])
    def test_page_size_out_of_range(self, rpc, size):
        error = error_of(rpc("ListTasks", {"contextId": "c", "pageSize": size}), -32602)
        assert violated_fields(error) == ["pageSize"]

    def test_paging_is_stable_when_tasks_are_added(self, rpc):
        ids = self.make(rpc, 5)
        newest_first = list(reversed(ids))
        params = {"contextId": CTX_LIST, "pageSize": 2}

        page1 = rpc("ListTasks", params)["result"]
        assert [t["id"] for t in page1["tasks"]] == newest_first[:2]
        assert page1["totalSize"] == 5
        assert page1["nextPageToken"]

        # A new task between pages: it is newer than everything listed so far.
        intruder = new_task(rpc, "late", contextId=CTX_LIST)

        page2 = rpc("ListTasks", {**params, "pageToken": page1["nextPageToken"]})["result"]
        assert [t["id"] for t in page2["tasks"]] == newest_first[2:4]
        assert page2["nextPageToken"]
        assert page2["pageSize"] == 2

        page3 = rpc("ListTasks", {**params, "pageToken": page2["nextPageToken"]})["result"]
        assert [t["id"] for t in page3["tasks"]] == newest_first[4:]
        assert page3["nextPageToken"] == ""

        seen = [t["id"] for page in (page1, page2, page3) for t in page["tasks"]]
        assert len(seen) == len(set(seen)) == 5
        assert intruder["id"] not in seen
        # A fresh listing shows the newcomer first.
        fresh = rpc("ListTasks", params)["result"]
        assert fresh["tasks"][0]["id"] == intruder["id"]
        assert fresh["totalSize"] == 6

    def test_paging_with_equal_timestamps_visits_each_task_once(self, rpc):
        ids = self.make(rpc, 5)
        Task.objects.filter(pk__in=ids).update(status_timestamp=BASE)
        seen: list[str] = []
        token = ""
        for _ in range(5):
            params = {"contextId": CTX_LIST, "pageSize": 2}
            if token:
                params["pageToken"] = token
            result = rpc("ListTasks", params)["result"]
            seen += [t["id"] for t in result["tasks"]]
            token = result["nextPageToken"]
            if not token:
                break
        assert sorted(seen) == sorted(ids)
        assert len(seen) == 5

    def test_exact_page_fit_has_empty_token(self, rpc):
        self.make(rpc, 2)
        result = rpc("ListTasks", {"contextId": CTX_LIST, "pageSize": 2})["result"]
        assert len(result["tasks"]) == 2
        assert result["nextPageToken"] == ""

    @pytest.mark.parametrize(
        "token",
        [
            "garbage!!",
            "bm90IGpzb24",  # "not json"
            "WzEsMl0",  # [1,2]
            "eyJhIjoxfQ",  # {"a":1}
            "WyIyMDI1LTAxLTAxVDAwOjAwOjAwKzAwOjAwIiwibm90LWEtdXVpZCJd",  # [ts, "not-a-uuid"]
            "ünïcode",
        ],
    )
    def test_garbage_page_token_is_invalid(self, rpc, token):
        self.make(rpc, 1)
        error = error_of(rpc("ListTasks", {"contextId": CTX_LIST, "pageToken": token}), -32602)
        assert violated_fields(error) == ["pageToken"]

    def test_total_size_counts_all_matches(self, rpc):
        self.make(rpc, 4)
        self.make(rpc, 2, context=CTX_OTHER)
        result = rpc("ListTasks", {"contextId": CTX_LIST, "pageSize": 1})["result"]
        assert result["totalSize"] == 4
        assert len(result["tasks"]) == 1

    def test_status_filter(self, rpc):
        done = new_task(rpc, "hello", contextId=CTX_S)
        waiting = new_task(rpc, "input", contextId=CTX_S)
        failed = new_task(rpc, "fail", contextId=CTX_S)
        for status, expected in [
            ("TASK_STATE_COMPLETED", done),
            ("TASK_STATE_INPUT_REQUIRED", waiting),
            (4, failed),
        ]:
            result = rpc("ListTasks", {"contextId": CTX_S, "status": status})["result"]
            assert [t["id"] for t in result["tasks"]] == [expected["id"]]
            assert result["totalSize"] == 1
        unfiltered = rpc("ListTasks", {"contextId": CTX_S, "status": "TASK_STATE_UNSPECIFIED"})
        assert unfiltered["result"]["totalSize"] == 3

    @pytest.mark.parametrize("status", ["COMPLETED", "completed", 99])
    def test_invalid_status(self, rpc, status):
        error = error_of(rpc("ListTasks", {"contextId": "c", "status": status}), -32602)
        assert violated_fields(error) == ["status"]

    def test_status_timestamp_after_is_inclusive(self, rpc):
        ids = self.make(rpc, 3)
        stamps = [BASE + timedelta(seconds=i, milliseconds=250) for i in range(3)]
        for task_id, when in zip(ids, stamps, strict=True):
            set_status_timestamp(task_id, when)
        result = rpc(
            "ListTasks",
            {"contextId": CTX_LIST, "statusTimestampAfter": format_timestamp(stamps[1])},
        )["result"]
        assert [t["id"] for t in result["tasks"]] == [ids[2], ids[1]]
        assert result["totalSize"] == 2
        # An offset form of the same instant is the same filter.
        local = stamps[1].astimezone(UTC).replace(tzinfo=None).isoformat() + "+00:00"
        again = rpc("ListTasks", {"contextId": CTX_LIST, "statusTimestampAfter": local})
        assert again["result"]["totalSize"] == 2
        later = rpc(
            "ListTasks",
            {
                "contextId": CTX_LIST,
                "statusTimestampAfter": format_timestamp(stamps[2] + timedelta(milliseconds=1)),
            },
        )["result"]
        assert later["tasks"] == []

    def test_invalid_status_timestamp_after(self, rpc):
        error = error_of(rpc("ListTasks", {"statusTimestampAfter": "last week"}), -32602)
        assert violated_fields(error) == ["statusTimestampAfter"]

    @pytest.mark.parametrize("params", [{}, {"includeArtifacts": False}])
    def test_artifacts_omitted_unless_asked(self, rpc, params):
        new_task(rpc, "hello", contextId=CTX_A)
        new_task(rpc, "x", messageId="tck-artifact-data-1", contextId=CTX_A)
        new_task(rpc, "input", contextId=CTX_A)
        result = rpc("ListTasks", {"contextId": CTX_A, **params})["result"]
        assert len(result["tasks"]) == 3
        for task in result["tasks"]:
            assert "artifacts" not in task

    def test_artifacts_included_when_asked(self, rpc):
        echo = new_task(rpc, "hello", contextId=CTX_A)
        data = new_task(rpc, "x", messageId="tck-artifact-data-1", contextId=CTX_A)
        result = rpc("ListTasks", {"contextId": CTX_A, "includeArtifacts": True})["result"]
        by_id = {t["id"]: t for t in result["tasks"]}
        assert by_id[echo["id"]]["artifacts"] == echo["artifacts"]
        assert by_id[data["id"]]["artifacts"] == data["artifacts"]
        assert by_id[data["id"]]["artifacts"][0]["parts"][0]["data"] == {
            "key": "value",
            "count": 42,
        }

    def test_history_length_per_task(self, rpc):
        tasks = []
        for name in ("first", "second"):
            task = new_task(rpc, f"input {name}", contextId=CTX_H)
            new_task(rpc, f"input {name} again", taskId=task["id"])
            tasks.append(task["id"])
        full = rpc("ListTasks", {"contextId": CTX_H})["result"]
        for task in full["tasks"]:
            assert roles(task) == [USER, AGENT, USER, AGENT]

        result = rpc("ListTasks", {"contextId": CTX_H, "historyLength": 1})["result"]
        assert {t["id"] for t in result["tasks"]} == set(tasks)
        full_by_id = {t["id"]: t for t in full["tasks"]}
        for task in result["tasks"]:
            assert len(task["history"]) == 1
            [last] = task["history"]
            assert last["taskId"] == task["id"]
            assert last == full_by_id[task["id"]]["history"][-1]
            assert last == task["status"]["message"]

        two = rpc("ListTasks", {"contextId": CTX_H, "historyLength": 2})["result"]
        for task in two["tasks"]:
            assert task["history"] == full_by_id[task["id"]]["history"][-2:]

        zero = rpc("ListTasks", {"contextId": CTX_H, "historyLength": 0})["result"]
        assert all("history" not in task for task in zero["tasks"])

    def test_negative_history_length(self, rpc):
        error = error_of(rpc("ListTasks", {"contextId": "c", "historyLength": -1}), -32602)
        assert violated_fields(error) == ["historyLength"]


# --- CancelTask -------------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestCancelTask:
    def test_cancel_input_required_task(self, rpc):
        task = new_task(rpc, "input please")
        result = rpc("CancelTask", {"id": task["id"], "metadata": {"reason": "test"}})["result"]
        assert result["id"] == task["id"]
        assert result["contextId"] == task["contextId"]
        assert result["status"]["state"] == "TASK_STATE_CANCELED"
        assert "message" not in result["status"]
        assert roles(result) == [USER, AGENT]
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert got["status"]["state"] == "TASK_STATE_CANCELED"
        assert Task.objects.get(pk=task["id"]).state == "TASK_STATE_CANCELED"

    def test_second_cancel_is_not_cancelable(self, rpc):
        task = new_task(rpc, "input please")
        rpc("CancelTask", {"id": task["id"]})
        error = error_of(rpc("CancelTask", {"id": task["id"]}), -32002)
        info = error_info(error)
        assert info["reason"] == "TASK_NOT_CANCELABLE"
        assert info["metadata"] == {"taskId": task["id"], "state": "TASK_STATE_CANCELED"}
        assert error["message"] == f"Task {task['id']} is already TASK_STATE_CANCELED"

    @pytest.mark.parametrize(
        ("text", "fields", "state"),
        [
            ("hello", {}, "TASK_STATE_COMPLETED"),
            ("fail", {}, "TASK_STATE_FAILED"),
            ("x", {"messageId": "tck-reject-task-3"}, "TASK_STATE_REJECTED"),
        ],
    )
    def test_terminal_task_is_not_cancelable(self, rpc, text, fields, state):
        task = new_task(rpc, text, **fields)
        before = Task.objects.get(pk=task["id"])
        error = error_of(rpc("CancelTask", {"id": task["id"]}), -32002)
        assert error["message"] == f"Task {task['id']} is already {state}"
        assert error_info(error)["metadata"] == {"taskId": task["id"], "state": state}
        after = Task.objects.get(pk=task["id"])
        assert (after.state, after.status_timestamp) == (before.state, before.status_timestamp)

    @pytest.mark.parametrize("task_id", ["9f1b3d5e-6a8c-4e0f-8a2b-7c9d1e3f5a6b", "nope"])
    def test_unknown_task(self, rpc, task_id):
        error = error_of(rpc("CancelTask", {"id": task_id}), -32001)
        assert error_info(error)["metadata"]["taskId"] == task_id

    def test_missing_id(self, rpc):
        error = error_of(rpc("CancelTask", {}), -32602)
        assert violated_fields(error) == ["id"]

    def test_follow_up_after_cancel_is_unsupported(self, rpc):
        task = new_task(rpc, "input please")
        rpc("CancelTask", {"id": task["id"]})
        error = error_of(send(rpc, "too late", taskId=task["id"]), -32004)
        assert error_info(error)["metadata"]["state"] == "TASK_STATE_CANCELED"


# --- capabilities not declared ----------------------------------------------------------------


class TestNotSupported:
    @pytest.mark.parametrize(
        ("method", "params"),
        [
            ("SendStreamingMessage", {"message": user_message("x")}),
            ("SubscribeToTask", {"id": "1b3d5f7a-8c0e-4a2b-9c4d-9e1f3a5b7c8d"}),
        ],
    )
    def test_streaming(self, rpc, method, params):
        error = error_of(rpc(method, params), -32004)
        assert error_info(error)["reason"] == "UNSUPPORTED_OPERATION"
        assert Task.objects.count() == 0

    @pytest.mark.parametrize(
        "method",
        [
            "CreateTaskPushNotificationConfig",
            "GetTaskPushNotificationConfig",
            "ListTaskPushNotificationConfigs",
            "DeleteTaskPushNotificationConfig",
        ],
    )
    def test_push_configs_when_push_is_off(self, rpc, method, settings):
        settings.A2A_APP = {**settings.A2A_APP, "PUSH_NOTIFICATIONS": False}
        error = error_of(rpc(method, {"taskId": str(uuid.uuid4()), "id": "c"}), -32003)
        assert error_info(error)["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"

    def test_extended_card(self, rpc):
        error = error_of(rpc("GetExtendedAgentCard", {}), -32004)
        assert error_info(error)["reason"] == "UNSUPPORTED_OPERATION"


# --- query counts -----------------------------------------------------------------------------


@pytest.mark.usefixtures("conformance_mode")
class TestQueryCounts:
    def test_get_task_costs_the_same_whatever_the_history(
        self, rpc, django_assert_num_queries, django_assert_max_num_queries
    ):
        short = new_task(rpc, "input short")
        add_messages(short["id"], 1)
        long = new_task(rpc, "input long")
        add_messages(long["id"], 58)
        assert TaskMessage.objects.filter(task_id=short["id"]).count() == 3
        assert TaskMessage.objects.filter(task_id=long["id"]).count() == 60

        baseline = count_queries(lambda: rpc("GetTask", {"id": short["id"]}))
        assert baseline <= 3
        with django_assert_num_queries(baseline):
            got = rpc("GetTask", {"id": long["id"]})["result"]
        assert len(got["history"]) == 60
        with django_assert_max_num_queries(baseline):
            trimmed = rpc("GetTask", {"id": long["id"], "historyLength": 5})["result"]
        assert len(trimmed["history"]) == 5

    @pytest.mark.skipif(
        connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's"
    )
    def test_get_task_with_a_history_length_runs_on_a_generic_plan(self, rpc):
        # With the length bound (LIMIT $1), PostgreSQL kept planning every GetTask anew:
        # three times the cost of running it. Written in, the prepared statement settles
        # on its generic plan after five custom ones.
        task = new_task(rpc, "input please")
        add_messages(task["id"], 3)
        for _ in range(20):
            got = rpc("GetTask", {"id": task["id"], "historyLength": 2})["result"]
            assert len(got["history"]) == 2
        generic, custom = prepared_plans("%ORDER BY m.position DESC LIMIT 2)%")
        assert generic >= 10 and custom <= 5, (generic, custom)

    def test_send_message_costs_the_same_in_a_busy_context(self, rpc, django_assert_num_queries):
        quiet = count_queries(lambda: send(rpc, "hello", contextId="ctx-quiet"))
        for i in range(25):
            new_task(rpc, f"hello {i}", contextId="ctx-busy")
        with django_assert_num_queries(quiet):
            task = new_task(rpc, "hello", contextId="ctx-busy")
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"

    def test_follow_up_costs_the_same_whatever_the_history(self, rpc, django_assert_num_queries):
        short = new_task(rpc, "input short")
        long = new_task(rpc, "input long")
        add_messages(long["id"], 60)
        baseline = count_queries(lambda: send(rpc, "input more", taskId=short["id"]))
        with django_assert_num_queries(baseline):
            result = new_task(rpc, "input more", taskId=long["id"])
        # Without historyLength the answer carries the latest HANDLER_HISTORY_MESSAGES (50)
        # earlier messages and this turn's two; GetTask has all of them.
        assert len(result["history"]) == 50 + 2
        assert TaskMessage.objects.filter(task_id=long["id"]).count() == 64
        assert len(rpc("GetTask", {"id": long["id"]})["result"]["history"]) == 64

    def test_list_tasks_costs_the_same_whatever_the_page(self, rpc, django_assert_num_queries):
        for i in range(2):
            new_task(rpc, f"input {i}", contextId=CTX_FEW)
        for i in range(12):
            task = new_task(rpc, f"input {i}", contextId=CTX_MANY)
            add_messages(task["id"], 3)
        params = {"historyLength": 2, "includeArtifacts": True}
        few = count_queries(lambda: rpc("ListTasks", {"contextId": CTX_FEW, **params}))
        with django_assert_num_queries(few):
            result = rpc("ListTasks", {"contextId": CTX_MANY, **params})["result"]
        assert len(result["tasks"]) == 12
        assert all(len(t["history"]) == 2 for t in result["tasks"])


def test_artifact_rows_are_kept_in_order(rpc, conformance_mode):
    task = new_task(rpc, "x", messageId="tck-artifact-text-1")
    rows = list(TaskArtifact.objects.filter(task_id=task["id"]).values_list("position", "name"))
    assert rows == [(0, "text")]


def test_task_new_makes_the_task_keyword_construction_makes():
    values = {
        "id": "8a4b7d1e-2f3c-4e5a-9b6c-7d8e9f0a1b2c",
        "context_id": "ctx",
        "owner": "user:1",
        "skill_id": "echo",
        "state": "TASK_STATE_SUBMITTED",
        "status_timestamp": datetime.now(UTC),
        "background": True,
        "summary": "hello",
    }
    made, expected = Task.new(**values), Task(**values)
    fresh = ("created_at",)  # a default that reads the clock
    assert {k: v for k, v in vars(made).items() if k not in (*fresh, "_state")} == {
        k: v for k, v in vars(expected).items() if k not in (*fresh, "_state")
    }
    assert made._state.adding and made._state.db is None
    assert (
        made.created_at is not None
        and made.metadata == {}
        and made.metadata is not (Task.new(**values).metadata)
    )
    with pytest.raises(TypeError, match="no field colour"):
        Task.new(colour="red", **values)
