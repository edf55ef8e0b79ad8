"""Background skills (spec reference §5.1 lifecycle): SUBMITTED on send, what a worker does
(``runner.execute``), progress committed as it happens, cancel while running, site code
finishing a task (``a2a_app.api``), the sweep, a broker that is down, signals, failures
and query counts.

Nothing runs a real worker: a test calls ``runner.execute`` itself, which is the worker's
logic. What would go to Celery is recorded (``a2a_app.testing.RecordingDispatcher``).
"""

from __future__ import annotations

import logging
import socket
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from datetime import timedelta
from typing import Any

import pytest
from celery import Celery
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app import api, jobs
from a2a_app.caller import Caller
from a2a_app.core import dispatch, runner, service
from a2a_app.core.execution import SAFE_FAILURE_TEXT, build_context
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import Delivery, PushConfig, Skill, Task, TaskArtifact, TaskEvent, TaskMessage
from a2a_app.protocol.params import TaskIdRequest
from a2a_app.protocol.types import Message, Part, Role, TaskState
from a2a_app.signals import artifact_added, task_status_changed
from a2a_app.skills import catalogue as skills
from a2a_app.skills.context import text_artifact
from a2a_app.skills.registry import SkillSpec, registered

pytestmark = pytest.mark.django_db

USER, AGENT = "ROLE_USER", "ROLE_AGENT"
SUBMITTED, WORKING = "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"
COMPLETED, FAILED = "TASK_STATE_COMPLETED", "TASK_STATE_FAILED"
CANCELED, REJECTED = "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
RETURN_NOW = {"returnImmediately": True}


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_network(monkeypatch, settings):
    def no_dns(*args: Any, **kwargs: Any) -> Any:
        raise OSError("tests must not resolve names")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_SENDER": "a2a_app.push.senders.OutboxSender"}


@pytest.fixture(autouse=True)
def enqueued(dispatched) -> list[str]:
    """Task ids handed to a worker (none runs them unless a test does)."""
    return dispatched.runs


@pytest.fixture(autouse=True)
def scheduled(dispatched) -> list[tuple[list[int], float]]:
    """Webhook configs whose deliveries were scheduled: (config ids, countdown) per call."""
    return dispatched.deliveries


@pytest.fixture
def install() -> Callable[..., str]:
    """``install(handler, key="job", background=True)``: a registered skill with its row."""
    stack = ExitStack()

    def install_skill(
        handler: Callable, key: str = "job", *, background: bool = True, rerun_safe: bool = False
    ) -> str:
        spec = SkillSpec(
            key=key,
            handler=handler,
            name=key.replace("-", " ").title(),
            description=f"The {key} skill",
            background=background,
            rerun_safe=rerun_safe,
        )
        stack.enter_context(registered(spec))
        Skill.objects.create(id=key, handler=key, name=spec.name, description=spec.description)
        return key

    with stack:
        yield install_skill


# --- helpers ------------------------------------------------------------------------------


def user_message(text: str = "hello", **fields: Any) -> dict[str, Any]:
    """A v1.0 user message (copied from conftest: ``conftest`` is ambiguous on sys.path)."""
    message = {
        "messageId": fields.pop("messageId", f"m-{time.monotonic_ns()}"),
        "role": "ROLE_USER",
    }
    message["parts"] = fields.pop("parts", [{"text": text}])
    message.update(fields)
    return message


def send(
    rpc,
    text: str = "go",
    *,
    skill: str = "job",
    configuration: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "message": user_message(text, **fields),
        "metadata": {"skillId": skill},
    }
    if configuration is not None:
        params["configuration"] = configuration
    return rpc("SendMessage", params)


def submit(rpc, text: str = "go", **kwargs: Any) -> dict[str, Any]:
    """A returnImmediately send: the SUBMITTED task."""
    body = send(
        rpc, text, configuration={**RETURN_NOW, **kwargs.pop("configuration", {})}, **kwargs
    )
    assert "result" in body, body
    task = body["result"]["task"]
    assert task["status"]["state"] == SUBMITTED, task
    return task


def texts(message: dict[str, Any] | None) -> list[str]:
    return [p["text"] for p in (message or {}).get("parts", []) if "text" in p]


def events(task_id: str) -> list[TaskEvent]:
    return list(TaskEvent.objects.filter(task_id=task_id).order_by("sequence"))


def trail(task_id: str) -> list[tuple[str, ...]]:
    """The event log, short: ("status", state, *texts) or ("artifact", *texts)."""
    out: list[tuple[str, ...]] = []
    for event in events(task_id):
        if event.kind == "status":
            status = event.body["statusUpdate"]["status"]
            out.append(("status", status["state"], *texts(status.get("message"))))
        else:
            out.append(("artifact", *texts(event.body["artifactUpdate"]["artifact"])))
    return out


def state_of(task_id: str) -> str:
    return Task.objects.get(pk=task_id).state


def count_queries(call: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


def expire_lease(task_id: str, *, run_attempts: int) -> None:
    Task.objects.filter(pk=task_id).update(
        state=WORKING,
        lease_expires_at=timezone.now() - timedelta(seconds=5),
        run_attempts=run_attempts,
    )


class WorkerKilled(BaseException):
    """Escapes run_handler like a killed process: the task stays WORKING with its lease."""


# --- SendMessage and execute ------------------------------------------------------------------


class TestSubmitAndExecute:
    def test_return_immediately_then_the_worker_completes(
        self, rpc, install, enqueued, django_capture_on_commit_callbacks
    ):
        install(lambda ctx: ctx.complete(f"done: {ctx.text}", name="result"))
        with django_capture_on_commit_callbacks(execute=True):
            task = submit(rpc, "do the thing", messageId="m-1")
        task_id = task["id"]
        assert [(m["role"], texts(m)) for m in task["history"]] == [(USER, ["do the thing"])]
        assert task["history"][0]["messageId"] == "m-1"
        assert task["artifacts"] == []
        assert enqueued == [task_id]
        assert trail(task_id) == [("status", SUBMITTED)]
        [event] = events(task_id)
        assert event.body["statusUpdate"]["taskId"] == task_id
        row = Task.objects.get(pk=task_id)
        assert row.background
        assert row.enqueued_at is not None
        assert (row.run_attempts, row.lease_expires_at) == (0, None)

        assert runner.execute(task_id) == COMPLETED
        got = rpc("GetTask", {"id": task_id})["result"]
        assert got["status"]["state"] == COMPLETED
        [artifact] = got["artifacts"]
        assert artifact["name"] == "result"
        assert artifact["parts"] == [{"text": "done: do the thing"}]
        assert trail(task_id) == [
            ("status", SUBMITTED),
            ("status", WORKING),
            ("artifact", "done: do the thing"),
            ("status", COMPLETED),
        ]
        row.refresh_from_db()
        assert (row.run_attempts, row.lease_expires_at) == (1, None)

        assert runner.execute(task_id) == "skipped"
        assert runner.execute(str(uuid.uuid4())) == "skipped"
        assert len(events(task_id)) == 4

    def test_return_immediately_runs_an_inline_skill_in_the_background(self, rpc, install):
        install(lambda ctx: ctx.complete("inline result"), background=False)
        # Without returnImmediately it runs in the request...
        inline = send(rpc, "now")["result"]["task"]
        assert inline["status"]["state"] == COMPLETED
        assert not Task.objects.get(pk=inline["id"]).background
        # ...with it, in a worker.
        task = submit(rpc, "later")
        assert Task.objects.get(pk=task["id"]).background
        assert runner.execute(task["id"]) == COMPLETED

    @pytest.mark.parametrize(
        ("declared", "execution", "background"),
        [(False, "background", True), (True, "inline", False), (True, "", True)],
    )
    def test_the_skill_row_chooses_where_it_runs(
        self, rpc, install, declared, execution, background
    ):
        install(lambda ctx: ctx.complete("ok"), background=declared)
        Skill.objects.filter(pk="job").update(execution=execution)
        skills.clear_cache()
        body = send(rpc, "go", configuration=RETURN_NOW if background else None)
        state = body["result"]["task"]["status"]["state"]
        assert state == (SUBMITTED if background else COMPLETED)

    def test_blocking_send_without_a_worker_answers_after_the_timeout(self, rpc, install, settings):
        settings.A2A_APP = {**settings.A2A_APP, "BLOCKING_TIMEOUT": 0.2}
        install(lambda ctx: ctx.complete("never run here"))
        started = time.monotonic()
        body = send(rpc, "go")
        elapsed = time.monotonic() - started
        assert "error" not in body
        task = body["result"]["task"]
        assert task["status"]["state"] == SUBMITTED
        assert 0.2 <= elapsed < 5
        assert [texts(m) for m in task["history"]] == [["go"]]

    def test_execute_of_a_task_canceled_before_pickup_is_skipped(self, rpc, install):
        ran: list[str] = []
        install(lambda ctx: ran.append(ctx.task_id) or "x")
        task = submit(rpc)
        rpc("CancelTask", {"id": task["id"]})
        assert runner.execute(task["id"]) == "skipped"
        assert ran == []
        assert trail(task["id"]) == [("status", SUBMITTED), ("status", CANCELED)]

    def test_a_skill_gone_before_pickup_fails_the_task(self, rpc, install):
        install(lambda ctx: "x")
        task = submit(rpc)
        Skill.objects.filter(pk="job").delete()
        assert runner.execute(task["id"]) == FAILED
        row = Task.objects.get(pk=task["id"])
        assert texts(row.status_message) == ["The skill of this task is not available."]
        assert row.lease_expires_at is None

    def test_handler_exception_fails_safely_and_logs(self, rpc, install, caplog):
        def explode(ctx):
            raise RuntimeError("database password is hunter2")

        install(explode)
        task = submit(rpc)
        with caplog.at_level(logging.INFO, logger="a2a_app.calls"):
            assert runner.execute(task["id"]) == FAILED
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert got["status"]["state"] == FAILED
        assert texts(got["status"]["message"]) == [SAFE_FAILURE_TEXT]
        assert "hunter2" not in str(got)
        [record] = [r for r in caplog.records if r.exc_info]
        assert record.name == "a2a_app.calls"
        assert record.levelno == logging.ERROR
        assert record.exc_info[0] is RuntimeError
        assert task["id"] in record.getMessage()
        assert "hunter2" in caplog.text  # the traceback is for the site's logs
        assert Task.objects.get(pk=task["id"]).lease_expires_at is None


# --- progress from a worker -------------------------------------------------------------------


def test_progress_artifacts_and_chunks_are_committed_in_order(rpc, install):
    seen: dict[str, Any] = {}

    def handler(ctx):
        ctx.progress("step 1")
        seen["lease"] = Task.objects.get(pk=ctx.task_id).lease_expires_at
        ctx.add_artifact(text_artifact("the report", name="report"))
        writer = ctx.artifact_writer(name="stream")
        writer.write("chunk-1 ")
        writer.write("chunk-2", last=True)
        seen["writer_id"] = writer.artifact_id
        seen["state_during"] = Task.objects.get(pk=ctx.task_id).state
        return ctx.complete(message="all done")

    install(handler)
    task = submit(rpc)
    assert runner.execute(task["id"]) == COMPLETED
    assert seen["state_during"] == WORKING
    assert seen["lease"] is not None

    rows = events(task["id"])
    assert [e.sequence for e in rows] == list(range(1, 8))
    assert trail(task["id"]) == [
        ("status", SUBMITTED),
        ("status", WORKING),
        ("status", WORKING, "step 1"),
        ("artifact", "the report"),
        ("artifact", "chunk-1 "),
        ("artifact", "chunk-2"),
        ("status", COMPLETED, "all done"),
    ]
    first_chunk = rows[4].body["artifactUpdate"]
    last_chunk = rows[5].body["artifactUpdate"]
    assert "append" not in first_chunk
    assert "lastChunk" not in first_chunk
    assert last_chunk["append"] is True
    assert last_chunk["lastChunk"] is True
    assert first_chunk["artifact"]["artifactId"] == seen["writer_id"]
    assert last_chunk["artifact"]["artifactId"] == seen["writer_id"]
    assert "append" not in rows[3].body["artifactUpdate"]

    stored = list(TaskArtifact.objects.filter(task_id=task["id"]).order_by("position"))
    assert [(a.name, a.position) for a in stored] == [("report", 0), ("stream", 1)]
    assert stored[1].artifact_id == seen["writer_id"]
    assert stored[1].body["parts"] == [{"text": "chunk-1 "}, {"text": "chunk-2"}]
    got = rpc("GetTask", {"id": task["id"]})["result"]
    assert [a["parts"] for a in got["artifacts"]] == [
        [{"text": "the report"}],
        [{"text": "chunk-1 "}, {"text": "chunk-2"}],
    ]
    # The progress message joined the history.
    assert [texts(m) for m in got["history"]] == [["go"], ["step 1"], ["all done"]]


def test_progress_and_cancel_checks_renew_the_lease(rpc, install):
    leases: list[tuple[str, bool]] = []

    def expire(ctx) -> None:
        past = timezone.now() - timedelta(seconds=1)
        Task.objects.filter(pk=ctx.task_id).update(lease_expires_at=past)

    def renewed(ctx) -> bool:
        return Task.objects.get(pk=ctx.task_id).lease_expires_at > timezone.now()

    def handler(ctx):
        leases.append(("start", renewed(ctx)))
        expire(ctx)
        ctx.progress("step")
        leases.append(("progress", renewed(ctx)))
        expire(ctx)
        assert not ctx.is_canceled()
        leases.append(("is_canceled", renewed(ctx)))
        return ctx.complete("ok")

    install(handler)
    task = submit(rpc)
    assert runner.execute(task["id"]) == COMPLETED
    assert leases == [("start", True), ("progress", True), ("is_canceled", True)]
    assert Task.objects.get(pk=task["id"]).lease_expires_at is None


# --- cancel while running ---------------------------------------------------------------------


class TestCancelWhileRunning:
    def test_a_late_result_is_dropped(self, rpc, install):
        seen: dict[str, bool] = {}

        def handler(ctx):
            seen["before"] = ctx.is_canceled()
            service.cancel_task(TaskIdRequest(id=ctx.task_id), Caller())
            seen["after"] = ctx.is_canceled()
            return ctx.complete("late")

        install(handler)
        task = submit(rpc)
        assert runner.execute(task["id"]) == "dropped"
        assert seen == {"before": False, "after": True}
        assert state_of(task["id"]) == CANCELED
        assert trail(task["id"]) == [
            ("status", SUBMITTED),
            ("status", WORKING),
            ("status", CANCELED),
        ]
        assert not TaskArtifact.objects.filter(task_id=task["id"]).exists()
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert got["status"]["state"] == CANCELED
        assert got["artifacts"] == []
        assert "late" not in str(got)

    @pytest.mark.parametrize(
        "report",
        [
            lambda ctx: ctx.progress("still going"),
            lambda ctx: ctx.add_artifact(text_artifact("more")),
            lambda ctx: ctx.artifact_writer().write("chunk"),
        ],
        ids=["progress", "add_artifact", "artifact_writer"],
    )
    def test_reporting_after_cancel_stops_the_handler(self, rpc, install, report):
        reached: list[str] = []

        def handler(ctx):
            service.cancel_task(TaskIdRequest(id=ctx.task_id), Caller())
            report(ctx)
            reached.append("after report")
            return ctx.complete("late")

        install(handler)
        task = submit(rpc)
        assert runner.execute(task["id"]) == "canceled"
        assert reached == []
        assert state_of(task["id"]) == CANCELED
        assert trail(task["id"]) == [
            ("status", SUBMITTED),
            ("status", WORKING),
            ("status", CANCELED),
        ]
        assert not TaskArtifact.objects.filter(task_id=task["id"]).exists()

    def test_cancel_of_a_signed_in_callers_running_task(self, rpc, install, django_user_model):
        user = django_user_model.objects.create_user("carol")

        def handler(ctx):
            assert ctx.user == user
            service.cancel_task(TaskIdRequest(id=ctx.task_id), ctx.caller)
            return ctx.complete("late")

        install(handler)
        task = submit(rpc)
        Task.objects.filter(pk=task["id"]).update(owner=f"user:{user.pk}")
        assert runner.execute(task["id"]) == "dropped"
        assert state_of(task["id"]) == CANCELED


# --- keep_working and the site API -----------------------------------------------------------


class TestKeepWorkingAndApi:
    @pytest.fixture
    def working(self, rpc, install) -> str:
        """A task its handler left WORKING for site code to finish."""
        install(lambda ctx: ctx.keep_working("waiting for staff"))
        task = submit(rpc, "cater for 40")
        assert runner.execute(task["id"]) == WORKING
        return task["id"]

    def test_keep_working_leaves_the_task_working_without_a_lease(self, rpc, working):
        row = Task.objects.get(pk=working)
        assert row.state == WORKING
        assert texts(row.status_message) == ["waiting for staff"]
        assert row.status_message["role"] == AGENT
        assert row.lease_expires_at is None
        assert trail(working)[-1] == ("status", WORKING, "waiting for staff")
        got = rpc("GetTask", {"id": working})["result"]
        assert texts(got["status"]["message"]) == ["waiting for staff"]

    def test_complete(self, rpc, working):
        before = len(events(working))
        finished = api.complete(working, "approved", message="Your order is in.")
        assert finished.state == COMPLETED
        got = rpc("GetTask", {"id": working})["result"]
        assert got["status"]["state"] == COMPLETED
        assert texts(got["status"]["message"]) == ["Your order is in."]
        [artifact] = got["artifacts"]
        # Named as ctx.complete names it: after the skill.
        assert (artifact["name"], artifact["parts"]) == ("job", [{"text": "approved"}])
        assert trail(working)[before:] == [
            ("artifact", "approved"),
            ("status", COMPLETED, "Your order is in."),
        ]
        with pytest.raises(TaskClosed, match=f"task {working} is already TASK_STATE_COMPLETED"):
            api.complete(working, "again")
        with pytest.raises(TaskClosed):
            api.fail(working, "too late")
        assert state_of(working) == COMPLETED
        assert len(events(working)) == before + 2

    def test_complete_with_text_and_data_writes_what_a_handler_would(self, working, install):
        api.complete(working, "7 guests", data={"order": 7}, name="order")
        [artifact] = TaskArtifact.objects.filter(task_id=working)
        assert artifact.name == "order"
        assert [p.get("text") or p.get("data") for p in artifact.body["parts"]] == [
            "7 guests",
            {"order": 7},
        ]
        # The same outcome from a handler: the same artifact.
        ctx = build_context(
            Task.objects.get(pk=working),
            skills.get_catalogue().get("job"),
            Message("m", Role.USER, [Part.text_part("x")]),
            caller=Caller(),
            history=[],
            sink=None,
        )
        [same] = ctx.complete("7 guests", data={"order": 7}, name="order").artifacts
        assert (same.name, [p.to_wire() for p in same.parts]) == (
            artifact.name,
            artifact.body["parts"],
        )

    @pytest.mark.parametrize(
        ("call", "state", "expected"),
        [
            (
                lambda t: api.reject(t, "no tables"),
                REJECTED,
                ("status", REJECTED, "no tables"),
            ),
            (
                lambda t: api.fail(t, "kitchen closed"),
                FAILED,
                ("status", FAILED, "kitchen closed"),
            ),
            (
                lambda t: api.ask(t, "Which date?", missing=["date"]),
                INPUT_REQUIRED,
                ("status", INPUT_REQUIRED, "Which date?"),
            ),
            (
                lambda t: api.progress(t, "half way"),
                WORKING,
                ("status", WORKING, "half way"),
            ),
            (
                lambda t: api.add_artifact(t, text_artifact("draft menu", name="draft")),
                WORKING,
                ("artifact", "draft menu"),
            ),
        ],
        ids=["reject", "fail", "ask", "progress", "add_artifact"],
    )
    def test_site_api_calls(self, rpc, working, call, state, expected):
        before = len(events(working))
        messages = TaskMessage.objects.filter(task_id=working).count()
        result = call(working)
        assert result.state == state
        assert state_of(working) == state
        assert trail(working)[before:] == [expected]
        got = rpc("GetTask", {"id": working})["result"]
        assert got["status"]["state"] == state
        if expected[0] == "status":
            assert texts(got["status"]["message"]) == [expected[2]]
            assert TaskMessage.objects.filter(task_id=working).count() == messages + 1
        else:
            assert [a["name"] for a in got["artifacts"]] == ["draft"]
            assert TaskMessage.objects.filter(task_id=working).count() == messages

    def test_ask_carries_the_missing_fields(self, working):
        api.ask(working, "Which date?", missing=["date", "time"])
        message = Task.objects.get(pk=working).status_message
        assert message["parts"][0] == {"text": "Which date?"}
        assert message["parts"][1]["data"] == {"missing": ["date", "time"]}

    def test_unknown_task(self):
        unknown = uuid.uuid4()
        with pytest.raises(TaskNotFound, match=f"no task {unknown}"):
            api.complete(unknown, "x")

    def test_ask_then_a_follow_up_runs_the_skill_again(
        self, rpc, install, enqueued, django_capture_on_commit_callbacks
    ):
        calls: list[tuple[bool, str, list[str]]] = []

        def handler(ctx):
            calls.append((ctx.is_follow_up, ctx.text, [m.text for m in ctx.history]))
            if ctx.is_follow_up:
                return ctx.complete(f"booked for {ctx.text}")
            return ctx.keep_working("checking the calendar")

        install(handler)
        task = submit(rpc, "book a table")
        assert runner.execute(task["id"]) == WORKING
        api.ask(task["id"], "Which date?", missing=["date"])

        with django_capture_on_commit_callbacks(execute=True):
            follow = send(rpc, "friday", taskId=task["id"], configuration=RETURN_NOW)
        result = follow["result"]["task"]
        assert result["id"] == task["id"]
        assert result["status"]["state"] == SUBMITTED
        assert (result["history"][-1]["role"], texts(result["history"][-1])) == (USER, ["friday"])
        assert Task.objects.get(pk=task["id"]).background
        assert enqueued == [task["id"]]  # the follow-up, handed to a worker after commit

        assert runner.execute(task["id"]) == COMPLETED
        assert calls == [
            (False, "book a table", []),
            (True, "friday", ["book a table", "checking the calendar", "Which date?"]),
        ]
        got = rpc("GetTask", {"id": task["id"]})["result"]
        assert got["status"]["state"] == COMPLETED
        assert got["artifacts"][0]["parts"] == [{"text": "booked for friday"}]
        assert [e[:2] for e in trail(task["id"])] == [
            ("status", SUBMITTED),
            ("status", WORKING),
            ("status", WORKING),
            ("status", INPUT_REQUIRED),
            ("status", SUBMITTED),
            ("status", WORKING),
            ("artifact", "booked for friday"),
            ("status", COMPLETED),
        ]


# --- the sweep ----------------------------------------------------------------------------------


class TestSweep:
    @pytest.fixture(autouse=True)
    def _job(self, install):
        install(lambda ctx: ctx.complete("ok"), rerun_safe=True)

    def test_resubmits_a_stale_submitted_task(self, rpc, enqueued, settings):
        settings.A2A_APP = {**settings.A2A_APP, "RESUBMIT_AFTER_SECONDS": 60}
        stale = submit(rpc)["id"]
        fresh = submit(rpc)["id"]
        old = timezone.now() - timedelta(seconds=61)
        Task.objects.filter(pk=stale).update(enqueued_at=old)
        fresh_at = Task.objects.get(pk=fresh).enqueued_at

        result = runner.sweep()
        assert result == {"resubmitted": 1, "recovered": 0, "failed": 0}
        assert enqueued == [stale]
        assert Task.objects.get(pk=stale).enqueued_at > old + timedelta(seconds=30)
        assert Task.objects.get(pk=fresh).enqueued_at == fresh_at
        assert state_of(stale) == SUBMITTED
        # Refreshed: the next sweep leaves it alone.
        assert runner.sweep()["resubmitted"] == 0
        assert enqueued == [stale]

    def test_recovers_a_task_of_a_dead_worker(
        self, rpc, enqueued, settings, django_capture_on_commit_callbacks
    ):
        settings.A2A_APP = {**settings.A2A_APP, "MAX_RUN_ATTEMPTS": 2}
        task_id = submit(rpc)["id"]
        expire_lease(task_id, run_attempts=1)
        with django_capture_on_commit_callbacks(execute=True):
            result = runner.sweep()
        assert result["recovered"] == 1
        assert result["failed"] == 0
        assert enqueued == [task_id]
        row = Task.objects.get(pk=task_id)
        assert row.state == SUBMITTED
        assert row.lease_expires_at is None
        assert row.enqueued_at > timezone.now() - timedelta(seconds=30)
        assert trail(task_id)[-1] == ("status", SUBMITTED)
        # The worker runs it again.
        assert runner.execute(task_id) == COMPLETED
        assert Task.objects.get(pk=task_id).run_attempts == 2

    def test_fails_a_task_out_of_attempts(self, rpc, enqueued, settings):
        settings.A2A_APP = {**settings.A2A_APP, "MAX_RUN_ATTEMPTS": 2}
        task_id = submit(rpc)["id"]
        expire_lease(task_id, run_attempts=2)
        result = runner.sweep()
        assert (result["recovered"], result["failed"]) == (0, 1)
        assert enqueued == []
        row = Task.objects.get(pk=task_id)
        assert row.state == FAILED
        assert texts(row.status_message) == [runner.LOST_WORKER_TEXT]
        assert "stopped" in runner.LOST_WORKER_TEXT
        assert row.lease_expires_at is None
        got = rpc("GetTask", {"id": task_id})["result"]
        assert got["status"]["state"] == FAILED
        assert trail(task_id)[-1] == ("status", FAILED, runner.LOST_WORKER_TEXT)

    def test_fails_a_task_whose_skill_is_not_rerun_safe(self, rpc, install, enqueued, settings):
        settings.A2A_APP = {**settings.A2A_APP, "MAX_RUN_ATTEMPTS": 5}
        install(lambda ctx: ctx.complete("booked"), key="booking")  # rerun_safe by default off
        task_id = submit(rpc, skill="booking")["id"]
        expire_lease(task_id, run_attempts=1)
        result = runner.sweep()
        assert (result["recovered"], result["failed"]) == (0, 1)
        assert enqueued == []
        row = Task.objects.get(pk=task_id)
        assert row.state == FAILED
        assert texts(row.status_message) == [runner.NOT_RERUN_TEXT]
        assert trail(task_id)[-1] == ("status", FAILED, runner.NOT_RERUN_TEXT)

    @pytest.mark.django_db(transaction=True)  # the heartbeat writes from its own thread
    def test_the_heartbeat_renews_the_lease_while_the_handler_runs(self, rpc, install, settings):
        settings.A2A_APP = {
            **settings.A2A_APP,
            "WORKER_HEARTBEAT_SECONDS": 0.05,
            "WORKER_LEASE_SECONDS": 1,
        }
        leases = []

        def slow(ctx):
            # No progress report and no is_canceled(): only the heartbeat renews it.
            for _ in range(4):
                time.sleep(0.15)
                leases.append(Task.objects.get(pk=ctx.task_id).lease_expires_at)
            return ctx.complete("done")

        install(slow, key="slow")
        task_id = submit(rpc, skill="slow")["id"]
        assert runner.execute(task_id) == COMPLETED
        assert len(set(leases)) == 4, leases  # a new lease at every look
        assert leases == sorted(leases)

    def test_leaves_working_tasks_with_a_live_or_no_lease(self, rpc, enqueued):
        waiting = submit(rpc)["id"]  # keep_working: no lease
        Task.objects.filter(pk=waiting).update(state=WORKING, lease_expires_at=None, run_attempts=9)
        running = submit(rpc)["id"]
        Task.objects.filter(pk=running).update(
            state=WORKING, lease_expires_at=timezone.now() + timedelta(minutes=5), run_attempts=1
        )
        counts = {t: len(events(t)) for t in (waiting, running)}
        result = runner.sweep()
        assert (result["recovered"], result["failed"]) == (0, 0)
        assert enqueued == []
        for task_id in (waiting, running):
            assert state_of(task_id) == WORKING
            assert len(events(task_id)) == counts[task_id]

    def test_keep_working_task_survives_the_sweep(self, rpc, install, enqueued):
        install(lambda ctx: ctx.keep_working("staff decides"), key="manual")
        task_id = submit(rpc, skill="manual")["id"]
        assert runner.execute(task_id) == WORKING
        Task.objects.filter(pk=task_id).update(enqueued_at=timezone.now() - timedelta(hours=1))
        assert jobs.sweep() == {
            "resubmitted": 0,
            "recovered": 0,
            "failed": 0,
            "webhook_configs": 0,
        }
        assert state_of(task_id) == WORKING

    def test_schedules_due_webhook_deliveries(self, rpc, scheduled):
        config = {"taskPushNotificationConfig": {"url": "https://93.184.216.34/hook"}}
        task_id = submit(rpc, configuration=config)["id"]
        push_config = PushConfig.objects.get(task_id=task_id)
        [delivery] = Delivery.objects.filter(config=push_config)
        assert delivery.status == Delivery.Status.PENDING
        result = jobs.sweep()
        assert result["webhook_configs"] == 1
        assert scheduled == [([push_config.pk], 0)]
        # Not due (backing off): not scheduled.
        Delivery.objects.update(next_attempt_at=timezone.now() + timedelta(minutes=1))
        scheduled.clear()
        assert jobs.sweep()["webhook_configs"] == 0
        assert scheduled == [([], 0)]

    def test_a_rerun_after_a_lost_worker_is_not_a_follow_up(
        self, rpc, install, enqueued, django_capture_on_commit_callbacks
    ):
        runs: list[bool] = []

        def handler(ctx):
            runs.append(ctx.is_follow_up)
            if len(runs) == 1:
                ctx.progress("step 1")
                raise WorkerKilled
            return ctx.complete("second run")

        install(handler, key="fragile", rerun_safe=True)
        task_id = submit(rpc, skill="fragile")["id"]
        with pytest.raises(WorkerKilled):
            runner.execute(task_id)
        assert state_of(task_id) == WORKING
        expire_lease(task_id, run_attempts=1)
        with django_capture_on_commit_callbacks(execute=True):
            assert runner.sweep()["recovered"] == 1
        assert runner.execute(task_id) == COMPLETED
        assert runs == [False, False]

    def test_a_lost_worker_on_a_follow_up_turn_is_retried(
        self, rpc, install, settings, django_capture_on_commit_callbacks
    ):
        settings.A2A_APP = {**settings.A2A_APP, "MAX_RUN_ATTEMPTS": 2}
        runs: list[str] = []

        def handler(ctx):
            runs.append(ctx.text)
            if len(runs) == 1:
                return ctx.ask("Which date?", missing=["date"])
            if len(runs) == 2:
                raise WorkerKilled
            return ctx.complete(f"booked for {ctx.text}")

        install(handler, key="booking", rerun_safe=True)
        task_id = submit(rpc, "book a table", skill="booking")["id"]
        assert runner.execute(task_id) == INPUT_REQUIRED
        send(rpc, "friday", taskId=task_id, configuration=RETURN_NOW)
        with pytest.raises(WorkerKilled):
            runner.execute(task_id)
        Task.objects.filter(pk=task_id).update(
            lease_expires_at=timezone.now() - timedelta(seconds=5)
        )
        with django_capture_on_commit_callbacks(execute=True):
            result = runner.sweep()
        assert (result["recovered"], result["failed"]) == (1, 0)
        assert runner.execute(task_id) == COMPLETED
        assert runs == ["book a table", "friday", "friday"]


# --- a broker that is down ---------------------------------------------------------------------


def test_broker_down_at_enqueue_leaves_the_task_for_the_sweep(
    rpc, install, enqueued, caplog, django_capture_on_commit_callbacks
):
    install(lambda ctx: ctx.complete("ok"))
    # A real Celery app whose broker nobody listens to, behind the default dispatcher.
    down = Celery("down", broker="redis://127.0.0.1:1/0", set_as_current=False)
    down.conf.broker_connection_timeout = 0.2
    down.conf.task_publish_retry = False
    with (
        dispatch.dispatching_to(dispatch.CeleryDispatcher(app=down)),
        caplog.at_level(logging.WARNING, logger="a2a_app.calls"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        body = send(rpc, "go", configuration=RETURN_NOW)
    assert "error" not in body
    task_id = body["result"]["task"]["id"]
    assert body["result"]["task"]["status"]["state"] == SUBMITTED
    # The publish timed out (kombu was still trying to connect) or failed: either way the
    # task is left SUBMITTED, and the log says the sweep hands it over.
    [warning] = [r.getMessage() for r in caplog.records if r.name == dispatch.logger.name]
    assert f"task {task_id} " in warning and "sweep" in warning, warning
    assert state_of(task_id) == SUBMITTED
    assert enqueued == []

    # The broker is back (the recording dispatcher): the sweep hands the task over.
    old = timezone.now() - timedelta(hours=1)
    Task.objects.filter(pk=task_id).update(enqueued_at=old)
    assert runner.sweep()["resubmitted"] == 1
    assert enqueued == [task_id]
    assert Task.objects.get(pk=task_id).enqueued_at > old


def test_a_publish_that_was_only_slow_closes_the_breaker_when_it_goes_through(settings, caplog):
    """A cold web process's first publish may outlast BROKER_PUBLISH_TIMEOUT on a busy
    machine: the breaker opens, and closes again as soon as that publish is sent, rather
    than skipping the broker for OUTAGE_RETRY_SECONDS."""
    import threading

    settings.A2A_APP = {
        **settings.A2A_APP,
        "BROKER_PUBLISH_TIMEOUT": 0.05,
        "OUTAGE_RETRY_SECONDS": 60,
    }
    release = threading.Event()
    sent: list[tuple] = []

    class SlowThenQuickApp:
        conf = Celery("slow", set_as_current=False).conf

        def send_task(self, name, args=(), **options):
            if not sent:
                release.wait(5)  # the first publish: slower than the timeout
            sent.append(args)

    dispatcher = dispatch.CeleryDispatcher(app=SlowThenQuickApp())
    caplog.set_level("INFO", logger="a2a_app")
    dispatcher.enqueue_run("first")  # times out: the publish goes on in the background
    assert dispatcher.breaker.is_open
    dispatcher.enqueue_run("skipped")  # skipped while the breaker is open
    release.set()
    deadline = time.monotonic() + 5
    while dispatcher.breaker.is_open and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not dispatcher.breaker.is_open
    dispatcher.enqueue_run("third")
    assert sent == [("first",), ("third",)]
    # The log tells a slow publish (which went through) from a skipped one.
    lines = [r.getMessage() for r in caplog.records if r.name == dispatch.logger.name]
    assert [line.split(":")[0] for line in lines] == [
        "broker publish timed out",
        "broker unavailable",
        "broker",
    ], lines
    assert "task first was not handed over within BROKER_PUBLISH_TIMEOUT" in lines[0]
    assert "task skipped stays SUBMITTED for the sweep" in lines[1]
    assert lines[2] == (
        f"broker: a slow publish of {dispatch.RUN_TASK}('first',) went through after all"
    )


def test_a_publish_that_failed_keeps_the_breaker_open(settings):
    settings.A2A_APP = {
        **settings.A2A_APP,
        "BROKER_PUBLISH_TIMEOUT": 0.05,
        "OUTAGE_RETRY_SECONDS": 60,
    }

    class SlowThenFailingApp:
        conf = Celery("failing", set_as_current=False).conf

        def send_task(self, name, args=(), **options):
            time.sleep(0.2)
            raise ConnectionError("broker refused")

    dispatcher = dispatch.CeleryDispatcher(app=SlowThenFailingApp())
    dispatcher.enqueue_run("first")
    time.sleep(0.4)  # the publish has failed by now
    assert dispatcher.breaker.is_open


# --- signals ------------------------------------------------------------------------------------


def test_signals_fire_after_commit(rpc, install, django_capture_on_commit_callbacks):
    def handler(ctx):
        ctx.progress("working on it")
        return ctx.complete("the result", name="out")

    install(handler)
    statuses: list[tuple[str, Any, Any]] = []
    artifacts: list[tuple[str, str, list[str]]] = []

    def on_status(sender, task, previous_state, state, **kwargs):
        statuses.append((str(task.pk), previous_state, state))

    def on_artifact(sender, task, artifact, **kwargs):
        artifacts.append((str(task.pk), artifact.name, [p.content for p in artifact.parts]))

    task_status_changed.connect(on_status, dispatch_uid="test_background.status")
    artifact_added.connect(on_artifact, dispatch_uid="test_background.artifact")
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            task_id = submit(rpc)["id"]
        assert statuses == []  # not before the commit
        for callback in callbacks:
            callback()
        assert statuses == [(task_id, None, TaskState.SUBMITTED)]

        with django_capture_on_commit_callbacks(execute=True):
            assert runner.execute(task_id) == COMPLETED
    finally:
        task_status_changed.disconnect(dispatch_uid="test_background.status")
        artifact_added.disconnect(dispatch_uid="test_background.artifact")
    assert statuses == [
        (task_id, None, TaskState.SUBMITTED),
        (task_id, TaskState.SUBMITTED, TaskState.WORKING),
        (task_id, TaskState.WORKING, TaskState.WORKING),
        (task_id, TaskState.WORKING, TaskState.COMPLETED),
    ]
    assert artifacts == [(task_id, "out", ["the result"])]


# --- query counts -------------------------------------------------------------------------------


def test_background_send_costs_the_same_in_a_busy_context(
    rpc, install, settings, django_assert_num_queries
):
    settings.A2A_APP = {**settings.A2A_APP, "CARD_REVALIDATE_SECONDS": 3600}
    install(lambda ctx: ctx.complete("ok"))
    submit(rpc, "first", contextId="ctx-quiet")
    quiet = count_queries(lambda: submit(rpc, "second", contextId="ctx-quiet"))
    for i in range(30):
        submit(rpc, f"task {i}", contextId="ctx-busy")
    with django_assert_num_queries(quiet):
        task = submit(rpc, "one more", contextId="ctx-busy")
    assert task["contextId"] == "ctx-busy"
    assert Task.objects.filter(context_id="ctx-busy").count() == 31
