"""The task writer (:mod:`a2a_app.core.updates`), called directly: what one ``save()`` writes.

Every change to a task goes through ``TaskUpdate``; the operation tests see its effects
through the protocol. Here each piece of its bookkeeping is checked on the rows it writes:
history positions and counts, the event log's sequence and bodies, artifacts added,
appended to and replaced, push configs added and replaced, a delivery per event and
webhook, and what happens after commit (signals, the stream wake-up, deliveries handed
to a worker). Fast enough to be the test set of its mutation run (scripts/mutation.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app.caller import Caller
from a2a_app.core import notify, rows, store, updates
from a2a_app.core.updates import TaskUpdate, agent_parts
from a2a_app.models import Delivery, PushConfig, Task, TaskArtifact, TaskEvent, TaskMessage
from a2a_app.protocol.errors import TaskNotFoundError
from a2a_app.protocol.types import Artifact, Message, Part, Role, TaskState
from a2a_app.signals import artifact_added, task_status_changed

pytestmark = pytest.mark.django_db

JSON = dict[str, Any]
OWNER = Caller()  # anonymous: the scope of tasks nobody signed in for


class Recorder:
    """The dispatcher's after-commit calls, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        #: What each publish was told of the events.
        self.notes: list[str | None] = []

    def publish(self, task_id: str, note: str | None = None) -> None:
        self.calls.append(("publish", task_id))
        self.notes.append(note)

    def schedule_deliveries(self, config_ids: Any, countdown: float = 0) -> None:
        self.calls.append(("deliver", list(config_ids)))


@pytest.fixture
def dispatcher(monkeypatch) -> Recorder:
    recorder = Recorder()
    monkeypatch.setattr(updates, "get_dispatcher", lambda: recorder)
    return recorder


@pytest.fixture
def signals_sent() -> list[tuple[str, JSON]]:
    sent: list[tuple[str, JSON]] = []

    def on_status(sender, **kwargs):
        sent.append(("status", {"sender": sender, **kwargs}))

    def on_artifact(sender, **kwargs):
        sent.append(("artifact", {"sender": sender, **kwargs}))

    task_status_changed.connect(on_status, weak=False)
    artifact_added.connect(on_artifact, weak=False)
    yield sent
    task_status_changed.disconnect(on_status)
    artifact_added.disconnect(on_artifact)


def new_task(state: TaskState = TaskState.SUBMITTED) -> Task:
    return Task.new(
        id=uuid.uuid4(),
        context_id="ctx-updates",
        owner=OWNER.scope,
        skill_id="echo",
        state=state.value,
        status_timestamp=timezone.now(),
    )


def user_says(text: str) -> Message:
    return Message(message_id=f"m-{text}", role=Role.USER, parts=[Part.text_part(text)])


def agent_says(text: str, task: Task) -> Message:
    return Message(
        message_id=f"a-{text}",
        role=Role.AGENT,
        parts=[Part.text_part(text)],
        context_id=task.context_id,
        task_id=str(task.pk),
    )


def artifact(artifact_id: str, *texts: str, name: str = "") -> Artifact:
    return Artifact(artifact_id=artifact_id, parts=[Part.text_part(t) for t in texts], name=name)


@pytest.fixture
def change(django_capture_on_commit_callbacks):
    """``with change(task) as update``: a locked update, its after-commit work run."""

    @contextmanager
    def changing(task: Task) -> Iterator[TaskUpdate]:
        with (
            django_capture_on_commit_callbacks(execute=True),
            TaskUpdate.locked(str(task.pk)) as update,
        ):
            yield update

    return changing


def save(update: TaskUpdate, capture) -> None:
    """``update.save()`` in a transaction, its after-commit work run."""
    with capture(execute=True), transaction.atomic():
        update.save()


@pytest.fixture
def task(django_capture_on_commit_callbacks) -> Task:
    """A task as SendMessage leaves it before its skill runs: SUBMITTED, one message."""
    return created(django_capture_on_commit_callbacks, user_says("hi"))


def created(capture, *messages: Message, state: TaskState = TaskState.SUBMITTED) -> Task:
    task = new_task()
    update = TaskUpdate(task, is_new=True)
    for message in messages:
        update.add_message(message)
    if state is not TaskState.SUBMITTED:
        update.set_status(state)
    save(update, capture)
    return task


def events_of(task: Task) -> list[tuple[int, str, JSON]]:
    return list(
        TaskEvent.objects.filter(task=task)
        .order_by("sequence")
        .values_list("sequence", "kind", "body")
    )


def history_of(task: Task) -> list[tuple[int, str, str, JSON]]:
    return list(
        TaskMessage.objects.filter(task=task)
        .order_by("position")
        .values_list("position", "message_id", "role", "body")
    )


def artifacts_of(task: Task) -> list[tuple[int, str, str, JSON]]:
    return list(
        TaskArtifact.objects.filter(task=task)
        .order_by("position")
        .values_list("position", "artifact_id", "name", "body")
    )


def reads_of(model: type, queries: CaptureQueriesContext) -> list[str]:
    table = model._meta.db_table
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
    ]


def ids(task: Task) -> JSON:
    return {"taskId": str(task.pk), "contextId": task.context_id}


# --- history and the event log ---------------------------------------------------------


def test_a_new_task_is_written_with_its_messages(django_capture_on_commit_callbacks):
    task = new_task()
    update = TaskUpdate(task, is_new=True)
    assert update.previous_state is None
    first, second = user_says("one"), user_says("two")
    update.add_message(first)
    update.add_message(second)
    assert update.new_messages == [first.to_wire(), second.to_wire()]
    save(update, django_capture_on_commit_callbacks)
    stored = Task.objects.get(pk=task.pk)
    assert (stored.message_count, stored.event_count, stored.artifact_count) == (2, 0, 0)
    assert history_of(task) == [
        (0, "m-one", "ROLE_USER", first.to_wire()),
        (1, "m-two", "ROLE_USER", second.to_wire()),
    ]
    assert events_of(task) == []  # a new task's creation is no event: its status is unchanged


def test_positions_and_sequences_go_on_from_the_counts(
    change, dispatcher, django_capture_on_commit_callbacks
):
    task = created(django_capture_on_commit_callbacks, user_says("first"))
    with change(task) as update:
        assert update.previous_state is TaskState.SUBMITTED
        update.set_status(TaskState.WORKING, agent_says("busy", task))
        update.add_message(user_says("more"))
        update.add_artifact(artifact("a1", "x"))
    with change(task) as update:
        update.set_status(TaskState.COMPLETED, agent_says("done", task))
        update.add_artifact(artifact("a2", "y"))
    stored = Task.objects.get(pk=task.pk)
    assert (stored.message_count, stored.event_count, stored.artifact_count) == (4, 4, 2)
    assert [(p, m) for p, m, _, _ in history_of(task)] == [
        (0, "m-first"),
        (1, "a-busy"),
        (2, "m-more"),
        (3, "a-done"),
    ]
    assert [(s, k) for s, k, _ in events_of(task)] == [
        (1, "status"),
        (2, "artifact"),
        (3, "status"),
        (4, "artifact"),
    ]
    assert [(p, a) for p, a, _, _ in artifacts_of(task)] == [(0, "a1"), (1, "a2")]


def test_the_row_holds_the_whole_history_while_it_is_short(
    change, dispatcher, django_capture_on_commit_callbacks
):
    task = created(django_capture_on_commit_callbacks, user_says("first"))
    assert Task.objects.get(pk=task.pk).short_history == [user_says("first").to_wire()]
    with change(task) as update:
        update.set_status(TaskState.WORKING, agent_says("busy", task))
        update.add_message(user_says("more"))
    with change(task) as update:  # no message: the row's history is left as it is
        update.add_artifact(artifact("a1", "x"))
    with change(task) as update:
        update.set_status(TaskState.INPUT_REQUIRED, agent_says("which day?", task))
    stored = Task.objects.get(pk=task.pk)
    assert stored.short_history == [body for _, _, _, body in history_of(task)]
    assert len(stored.short_history) == stored.message_count == 4


def test_a_history_past_the_limit_is_read_from_its_rows_from_then_on(
    change, dispatcher, django_capture_on_commit_callbacks, monkeypatch
):
    def says(letter: str, length: int) -> Message:
        return Message(message_id=letter, role=Role.USER, parts=[Part.text_part(letter * length)])

    monkeypatch.setattr(updates, "SHORT_HISTORY_BYTES", 600)
    task = created(django_capture_on_commit_callbacks, says("a", 100))
    with change(task) as update:
        update.add_message(says("b", 100))
    kept = Task.objects.get(pk=task.pk).short_history
    assert [m["parts"][0]["text"][0] for m in kept] == ["a", "b"]
    assert len(updates._COMPACT.encode(kept)) <= 600
    with change(task) as update:
        update.add_message(says("c", 300))
    assert Task.objects.get(pk=task.pk).short_history is None
    with change(task) as update:  # short again? it stays unkept: the rows are the record
        update.add_message(says("d", 1))
    stored = Task.objects.get(pk=task.pk)
    assert stored.short_history is None and stored.message_count == 4


def test_a_task_written_before_the_row_held_history_stays_so(
    change, dispatcher, django_capture_on_commit_callbacks
):
    task = created(django_capture_on_commit_callbacks, user_says("old"))
    Task.objects.filter(pk=task.pk).update(short_history=None)  # as 0014 leaves old rows
    with change(task) as update:
        update.add_message(user_says("new"))
    assert Task.objects.get(pk=task.pk).short_history is None


def test_a_status_event_carries_the_status_as_stored(change, dispatcher, task):
    said = agent_says("working on it", task)
    with change(task) as update:
        update.set_status(TaskState.WORKING, said)
        assert update.status_changed
    stored = Task.objects.get(pk=task.pk)
    assert stored.state == TaskState.WORKING.value
    assert stored.status_message == said.to_wire()
    assert history_of(task)[-1] == (1, "a-working on it", "ROLE_AGENT", said.to_wire())
    [(_, kind, body)] = events_of(task)
    assert kind == "status"
    assert body == {"statusUpdate": ids(task) | {"status": store.status_to_wire(stored)}}
    assert body["statusUpdate"]["status"]["message"] == said.to_wire()


def test_a_status_without_a_message_clears_the_last_one(change, dispatcher, task):
    before = Task.objects.get(pk=task.pk).status_timestamp
    with change(task) as update:
        update.set_status(TaskState.WORKING, agent_says("busy", task))
    with change(task) as update:
        update.set_status(TaskState.INPUT_REQUIRED)
    stored = Task.objects.get(pk=task.pk)
    assert stored.status_message is None
    assert stored.status_timestamp > before
    assert stored.message_count == 2  # no message, nothing joins the history
    body = events_of(task)[-1][2]["statusUpdate"]["status"]
    assert body["state"] == TaskState.INPUT_REQUIRED.value
    assert "message" not in body


def test_a_task_born_ended_has_no_event_log(django_capture_on_commit_callbacks):
    task = created(django_capture_on_commit_callbacks, user_says("hi"), state=TaskState.COMPLETED)
    stored = Task.objects.get(pk=task.pk)
    assert stored.state == TaskState.COMPLETED.value
    assert (stored.event_count, TaskEvent.objects.filter(task=task).count()) == (0, 0)
    assert stored.message_count == 1


def test_a_new_task_that_stays_open_keeps_its_events(django_capture_on_commit_callbacks):
    task = created(django_capture_on_commit_callbacks, user_says("hi"), state=TaskState.WORKING)
    assert Task.objects.get(pk=task.pk).event_count == 1
    assert [(s, k) for s, k, _ in events_of(task)] == [(1, "status")]


def test_a_task_born_ended_with_a_webhook_keeps_its_events(
    dispatcher, django_capture_on_commit_callbacks
):
    task = new_task()
    update = TaskUpdate(task, is_new=True)
    update.add_message(user_says("hi"))
    update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/a"))
    update.set_status(TaskState.COMPLETED)
    assert not update.writes_one_statement  # the config is a row of its own
    save(update, django_capture_on_commit_callbacks)
    stored = Task.objects.get(pk=task.pk)
    assert (stored.event_count, stored.push_config_count) == (1, 1)
    [config] = PushConfig.objects.filter(task=task)
    [event_id] = TaskEvent.objects.filter(task=task).values_list("pk", flat=True)
    deliveries = list(
        Delivery.objects.filter(task=task).values_list("event_id", "config_id", "url")
    )
    assert deliveries == [(event_id, config.pk, "https://hooks.example/a")]
    assert dispatcher.calls == [("deliver", [config.pk])]  # a new task wakes no stream


def test_one_statement_is_only_a_new_task_without_webhooks(django_capture_on_commit_callbacks):
    update = TaskUpdate(new_task(), is_new=True)
    assert update.writes_one_statement is rows.writes_in_one_statement()
    task = created(django_capture_on_commit_callbacks, user_says("hi"))
    assert TaskUpdate(task).writes_one_statement is False


# --- artifacts -------------------------------------------------------------------------


def test_an_artifact_event_says_append_and_last_chunk_only_when_set(change, dispatcher, task):
    first = artifact("report", "part 1", name="Report")
    with change(task) as update:
        update.add_artifact(first)
        update.add_artifact(artifact("report", "part 2"), append=True)
        update.add_artifact(artifact("report", "part 3"), append=True, last_chunk=True)
        update.add_artifact(artifact("note", "n"), last_chunk=True)
    bodies = [body["artifactUpdate"] for _, kind, body in events_of(task) if kind == "artifact"]
    assert bodies == [
        ids(task) | {"artifact": first.to_wire()},
        ids(task) | {"artifact": artifact("report", "part 2").to_wire(), "append": True},
        ids(task)
        | {"artifact": artifact("report", "part 3").to_wire(), "append": True, "lastChunk": True},
        ids(task) | {"artifact": artifact("note", "n").to_wire(), "lastChunk": True},
    ]
    # Appends within one update land in the one new row.
    stored = artifacts_of(task)
    assert [row[:3] for row in stored] == [(0, "report", "Report"), (1, "note", "")]
    assert [p["text"] for p in stored[0][3]["parts"]] == ["part 1", "part 2", "part 3"]
    assert stored[1][3] == artifact("note", "n").to_wire()
    assert Task.objects.get(pk=task.pk).artifact_count == 2


def test_appending_to_a_stored_artifact_changes_its_row(change, dispatcher, task):
    with change(task) as update:
        update.add_artifact(artifact("report", "a", name="Report"))
        update.add_artifact(artifact("other", "o"))
    with change(task) as update:  # not given the artifacts: read back
        update.add_artifact(artifact("report", "b", name="Report"), append=True)
    rows_after = artifacts_of(task)
    assert [(p, a) for p, a, _, _ in rows_after] == [(0, "report"), (1, "other")]
    assert [p["text"] for p in rows_after[0][3]["parts"]] == ["a", "b"]
    assert rows_after[1][3] == artifact("other", "o").to_wire()  # untouched
    assert Task.objects.get(pk=task.pk).artifact_count == 2


def test_an_artifact_of_a_known_id_replaces_it_without_append(change, dispatcher, task):
    with change(task) as update:
        update.add_artifact(artifact("report", "old", name="Draft"))
    with change(task) as update:
        update.add_artifact(artifact("report", "new", name="Final"))
    [(position, artifact_id, name, body)] = artifacts_of(task)
    assert (position, artifact_id, name) == (0, "report", "Final")
    assert [p["text"] for p in body["parts"]] == ["new"]
    assert Task.objects.get(pk=task.pk).artifact_count == 1


def test_an_append_to_an_unknown_artifact_adds_it(change, dispatcher, task):
    with change(task) as update:
        update.add_artifact(artifact("late", "l"), append=True)
    assert artifacts_of(task) == [(0, "late", "", artifact("late", "l").to_wire())]


def test_given_artifacts_come_back_merged(django_capture_on_commit_callbacks, task):
    stored = [artifact("a", "1").to_wire(), artifact("b", "2").to_wire()]
    TaskArtifact.objects.bulk_create(
        TaskArtifact(task=task, position=i, artifact_id=body["artifactId"], body=body)
        for i, body in enumerate(stored)
    )
    Task.objects.filter(pk=task.pk).update(artifact_count=2)
    task.refresh_from_db()
    update = TaskUpdate(task, artifacts=stored)
    update.add_artifact(artifact("b", "3"), append=True)
    update.add_artifact(artifact("c", "4"))
    save(update, django_capture_on_commit_callbacks)
    listed = update.artifact_list()
    assert [a["artifactId"] for a in listed] == ["a", "b", "c"]
    assert [p["text"] for p in listed[1]["parts"]] == ["2", "3"]
    assert stored[1]["parts"] == [{"text": "2"}]  # the caller's list is not changed
    assert [(p, a) for p, a, _, _ in artifacts_of(task)] == [(0, "a"), (1, "b"), (2, "c")]


def test_given_artifacts_without_a_change_are_the_list(django_capture_on_commit_callbacks, task):
    stored = [artifact("a", "1").to_wire()]
    update = TaskUpdate(task, artifacts=stored)
    update.set_status(TaskState.WORKING)
    save(update, django_capture_on_commit_callbacks)
    assert update.artifact_list() == stored
    assert TaskUpdate(new_task(), is_new=True).artifacts is None  # before save()


def test_the_artifact_list_needs_the_artifacts(task):
    with TaskUpdate.locked(str(task.pk)) as update:
        update.set_status(TaskState.WORKING)
    with pytest.raises(AssertionError, match=r"^TaskUpdate was not given the task's artifacts$"):
        update.artifact_list()


# --- push configs and deliveries -------------------------------------------------------


def test_a_config_of_a_known_id_replaces_it(change, dispatcher, task):
    with change(task) as update:
        update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/old"))
    [old] = PushConfig.objects.filter(task=task)
    replacement = PushConfig(
        config_id="hook",
        url="https://hooks.example/new",
        token="t-new",
        auth_scheme="Bearer",
        credentials="c-new",
        protocol_version="0.3",
    )
    with change(task) as update:
        update.add_push_config(replacement)
        update.add_push_config(PushConfig(config_id="second", url="https://hooks.example/2"))
    configs = {c.config_id: c for c in PushConfig.objects.filter(task=task)}
    assert set(configs) == {"hook", "second"}
    kept = configs["hook"]
    assert kept.pk == old.pk
    assert (kept.url, kept.token, kept.auth_scheme, kept.credentials, kept.protocol_version) == (
        "https://hooks.example/new",
        "t-new",
        "Bearer",
        "c-new",
        "0.3",
    )
    assert Task.objects.get(pk=task.pk).push_config_count == 2


def test_each_event_is_delivered_to_each_webhook(change, dispatcher, task):
    with change(task) as update:
        update.add_push_config(PushConfig(config_id="a", url="https://hooks.example/a"))
        update.add_push_config(PushConfig(config_id="b", url="https://hooks.example/b"))
    assert Delivery.objects.count() == 0  # no event, nothing to deliver
    assert dispatcher.calls == []  # and no worker woken for nothing
    with CaptureQueriesContext(connection) as queries, change(task) as update:
        update.set_status(TaskState.WORKING)
        update.add_artifact(artifact("r", "x"))
    # The configs are read once, with what a delivery needs (no read per config).
    assert len(reads_of(PushConfig, queries)) == 1
    configs = dict(PushConfig.objects.filter(task=task).values_list("config_id", "pk"))
    events = list(
        TaskEvent.objects.filter(task=task).order_by("sequence").values_list("pk", flat=True)
    )
    deliveries = set(Delivery.objects.values_list("event_id", "config_id", "url", "status"))
    pending = Delivery._meta.get_field("status").default
    assert deliveries == {
        (event, configs[name], f"https://hooks.example/{name}", pending)
        for event in events
        for name in ("a", "b")
    }
    assert dispatcher.calls == [
        ("publish", str(task.pk)),
        ("deliver", sorted(configs.values())),
    ]


def test_no_webhook_no_delivery(change, dispatcher, task):
    with change(task) as update:
        update.set_status(TaskState.WORKING)
    assert Delivery.objects.count() == 0
    assert dispatcher.calls == [("publish", str(task.pk))]


# --- after commit --------------------------------------------------------------------------


def test_after_commit_signals_and_wake_up(
    dispatcher, signals_sent, django_capture_on_commit_callbacks, task
):
    assert signals_sent == []  # a new task's status did not change
    added = artifact("r", "x")
    with django_capture_on_commit_callbacks() as callbacks:
        with TaskUpdate.locked(str(task.pk)) as update:
            update.set_status(TaskState.WORKING)
            update.add_artifact(added)
        assert (signals_sent, dispatcher.calls) == ([], [])  # nothing before commit
    for callback in callbacks:
        callback()
    assert dispatcher.calls == [("publish", str(task.pk))]
    [(kind, status), (artifact_kind, artifact_sent)] = signals_sent
    assert kind == "status"
    assert status["sender"] is Task
    assert status["task"].pk == task.pk
    assert (status["previous_state"], status["state"]) == (TaskState.SUBMITTED, TaskState.WORKING)
    assert artifact_kind == "artifact"
    assert (artifact_sent["sender"], artifact_sent["task"].pk) == (Task, task.pk)
    assert artifact_sent["artifact"] is added


def test_an_artifact_alone_sends_no_status_signal(change, dispatcher, signals_sent, task):
    with change(task) as update:
        update.add_artifact(artifact("r", "x"))
    assert [kind for kind, _ in signals_sent] == ["artifact"]


def test_a_message_alone_wakes_nobody(change, dispatcher, signals_sent, task):
    with change(task) as update:
        update.add_message(user_says("more"))
    assert (dispatcher.calls, signals_sent) == ([], [])
    assert Task.objects.get(pk=task.pk).event_count == 0


def test_a_new_task_signals_its_status_but_wakes_no_stream(
    dispatcher, signals_sent, django_capture_on_commit_callbacks
):
    task = created(django_capture_on_commit_callbacks, user_says("hi"), state=TaskState.WORKING)
    assert dispatcher.calls == []
    [(kind, status)] = signals_sent
    assert (kind, status["previous_state"], status["state"]) == ("status", None, TaskState.WORKING)
    assert status["task"].pk == task.pk


def test_the_event_write_carries_the_notifiers_wake_up(change, monkeypatch, dispatcher, task):
    writes: list[Any] = []
    real_write = rows.write

    def spy(*args, **kwargs):
        writes.append(kwargs)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(rows, "write", spy)

    class Listening:
        channel = "a2a_events"
        carries = True

    monkeypatch.setattr(updates, "get_notifier", lambda: Listening())
    first_event = task.event_count + 1
    with change(task) as update:
        update.set_status(TaskState.WORKING)
    with change(task) as update:
        update.add_message(user_says("no event"))
    [(channel, note), no_notify] = [w["notify"] for w in writes]
    assert (channel, no_notify) == ("a2a_events", None)
    assert writes[0]["is_new"] is False
    # The wake-up carries the event, as the log holds it; the dispatcher gets it too.
    logged = TaskEvent.objects.get(task=task, sequence=first_event).body
    assert notify.parse_notification(note) == (
        str(task.pk),
        notify.EventBatch(first_event, [logged]),
    )
    assert dispatcher.calls[0] == ("publish", str(task.pk))
    assert dispatcher.notes[0] == note

    writes.clear()
    Listening.channel = ""  # a notifier with no NOTIFY (Redis): the dispatcher has the note
    with change(task) as update:
        update.set_status(TaskState.COMPLETED)
    assert writes[0]["notify"] is None
    assert notify.parse_notification(dispatcher.notes[-1])[1].first == first_event + 1
    Listening.carries = False  # polling: nothing carried, nothing encoded
    assert updates.TaskUpdate(task)._note is None


def test_a_new_write_sends_no_notify(monkeypatch, django_capture_on_commit_callbacks):
    writes: list[Any] = []
    real_write = rows.write
    monkeypatch.setattr(rows, "write", lambda *a, **k: writes.append(k) or real_write(*a, **k))
    created(django_capture_on_commit_callbacks, user_says("hi"), state=TaskState.WORKING)
    assert writes[0]["notify"] is None
    assert writes[0]["is_new"] is True


# --- which fields are written ------------------------------------------------------------


def test_a_hand_over_saves_the_skill(change, dispatcher, task):
    with change(task) as update:
        update.set_skill("booking")
        assert update.skill_changed
        update.set_status(TaskState.WORKING)
    assert Task.objects.get(pk=task.pk).skill_id == "booking"


def test_only_a_hand_over_writes_the_skill(change, dispatcher, task):
    with change(task) as update:
        update.task.skill_id = "changed in memory only"
        update.set_status(TaskState.WORKING)
    assert Task.objects.get(pk=task.pk).skill_id == "echo"


def test_the_run_bookkeeping_is_written(change, dispatcher, task):
    now = timezone.now()
    with change(task) as update:
        update.task.skill_state = {"step": 2}
        update.task.enqueued_at = now
        update.task.run_attempts = 3
        update.task.lease_expires_at = now
        update.task.started_at = now
        update.task.finished_at = now
        update.set_status(TaskState.WORKING)
    stored = Task.objects.get(pk=task.pk)
    assert stored.skill_state == {"step": 2}
    assert stored.run_attempts == 3
    for name in ("enqueued_at", "lease_expires_at", "started_at", "finished_at"):
        assert getattr(stored, name) == now, name


# --- the lock ----------------------------------------------------------------------------


def test_a_caller_finds_only_its_own_tasks(django_user_model, task):
    someone = Caller(user=django_user_model.objects.create_user("someone"))
    with pytest.raises(TaskNotFoundError), TaskUpdate.locked(str(task.pk), caller=someone):
        pass
    with TaskUpdate.locked(str(task.pk), caller=OWNER) as update:
        update.set_status(TaskState.WORKING)
    assert Task.objects.get(pk=task.pk).state == TaskState.WORKING.value


def test_a_discarded_update_writes_nothing(change, dispatcher, task):
    with change(task) as update:
        update.add_message(user_says("dropped"))
        update.set_status(TaskState.WORKING)
        update.discard()
        assert update.discarded
    stored = Task.objects.get(pk=task.pk)
    assert (stored.state, stored.message_count) == (TaskState.SUBMITTED.value, 1)
    assert (events_of(task), dispatcher.calls) == ([], [])


# --- one task's rows only ----------------------------------------------------------------


def test_another_tasks_artifact_of_the_same_id_is_left_alone(
    change, dispatcher, django_capture_on_commit_callbacks
):
    mine = created(django_capture_on_commit_callbacks, user_says("mine"))
    theirs = created(django_capture_on_commit_callbacks, user_says("theirs"))
    with change(theirs) as update:
        update.add_artifact(artifact("report", "theirs", name="Theirs"))
    with change(mine) as update:
        update.add_artifact(artifact("report", "mine", name="Mine"))
    with change(mine) as update:
        update.add_artifact(artifact("report", "more"), append=True)
    [(_, _, name, body)] = artifacts_of(mine)
    assert (name, [p["text"] for p in body["parts"]]) == ("Mine", ["mine", "more"])
    [(_, _, name, body)] = artifacts_of(theirs)
    assert (name, [p["text"] for p in body["parts"]]) == ("Theirs", ["theirs"])


def test_a_replacement_without_a_name_clears_it(change, dispatcher, task):
    with change(task) as update:
        update.add_artifact(artifact("report", "old", name="Draft"))
    with change(task) as update:
        update.add_artifact(artifact("report", "new"))
    [(_, _, name, body)] = artifacts_of(task)
    assert (name, "name" in body) == ("", False)


def test_another_tasks_config_of_the_same_id_is_left_alone(
    change, dispatcher, django_capture_on_commit_callbacks
):
    mine = created(django_capture_on_commit_callbacks, user_says("mine"))
    theirs = created(django_capture_on_commit_callbacks, user_says("theirs"))
    with change(theirs) as update:
        update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/theirs"))
    with change(mine) as update:
        update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/mine"))
    urls = dict(PushConfig.objects.values_list("task_id", "url"))
    assert urls == {
        mine.pk: "https://hooks.example/mine",
        theirs.pk: "https://hooks.example/theirs",
    }
    assert Task.objects.get(pk=mine.pk).push_config_count == 1


def test_a_new_config_before_a_replacement_in_one_update(change, dispatcher, task):
    with change(task) as update:
        update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/old"))
    with change(task) as update:
        update.add_push_config(PushConfig(config_id="fresh", url="https://hooks.example/fresh"))
        update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/new"))
    urls = dict(PushConfig.objects.filter(task=task).values_list("config_id", "url"))
    assert urls == {"fresh": "https://hooks.example/fresh", "hook": "https://hooks.example/new"}
    assert Task.objects.get(pk=task.pk).push_config_count == 2


def test_a_new_task_has_no_configs_to_replace(django_capture_on_commit_callbacks):
    update = TaskUpdate(new_task(), is_new=True)
    update.add_message(user_says("hi"))
    update.add_push_config(PushConfig(config_id="hook", url="https://hooks.example/a"))
    with CaptureQueriesContext(connection) as queries:
        save(update, django_capture_on_commit_callbacks)
    assert reads_of(PushConfig, queries) == []
    assert PushConfig.objects.filter(task=update.task).count() == 1


# --- agent_parts -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data", "expected"),
    [
        ("hi", None, [{"text": "hi"}]),
        ("", {"n": 1}, [{"data": {"n": 1}, "mediaType": "application/json"}]),
        ("hi", [1], [{"text": "hi"}, {"data": [1], "mediaType": "application/json"}]),
        ("", None, []),
        ("", 0, [{"data": 0, "mediaType": "application/json"}]),
    ],
    ids=["text", "data", "both", "neither", "falsy-data"],
)
def test_agent_parts(text, data, expected):
    assert [part.to_wire() for part in agent_parts(text, data)] == expected


def test_agent_parts_defaults_to_none():
    assert agent_parts() == []
    assert [part.to_wire() for part in agent_parts(data={"a": 1})] == [
        {"data": {"a": 1}, "mediaType": "application/json"}
    ]
