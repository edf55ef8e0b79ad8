"""The task state machine: which states end a task, which wait for the client, which
status update ends a stream, and that a terminal task takes no further change."""

from __future__ import annotations

import pytest

from a2a_app import api
from a2a_app.core.updates import TaskUpdate
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import Task, TaskEvent
from a2a_app.protocol import types
from a2a_app.protocol.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState, ends_stream
from tests.conftest import user_message

# The spec's table (§4.1.3): state → (terminal, interrupted).
KINDS = {
    TaskState.UNSPECIFIED: (False, False),
    TaskState.SUBMITTED: (False, False),
    TaskState.WORKING: (False, False),
    TaskState.COMPLETED: (True, False),
    TaskState.FAILED: (True, False),
    TaskState.CANCELED: (True, False),
    TaskState.REJECTED: (True, False),
    TaskState.INPUT_REQUIRED: (False, True),
    TaskState.AUTH_REQUIRED: (False, True),
}


def status_update(state: TaskState) -> dict:
    return {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": state.value}}}


def test_every_state_is_in_the_table():
    assert set(KINDS) == set(TaskState)
    assert len(TaskState) == 9


@pytest.mark.parametrize(("state", "kind"), KINDS.items(), ids=[s.name for s in KINDS])
def test_terminal_and_interrupted_states(state, kind):
    assert (state.is_terminal, state.is_interrupted) == kind
    assert (state in TERMINAL_STATES, state in INTERRUPTED_STATES) == kind


def test_the_state_names_are_the_specs():
    assert {s.value for s in TERMINAL_STATES} == {
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_REJECTED",
    }
    assert {s.value for s in INTERRUPTED_STATES} == {
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_AUTH_REQUIRED",
    }
    assert types.TaskState is TaskState  # the wire objects' module still names it


@pytest.mark.parametrize(("state", "kind"), KINDS.items(), ids=[s.name for s in KINDS])
def test_which_status_update_ends_a_stream(state, kind):
    terminal, interrupted = kind
    # SendStreamingMessage: its sender must answer an interrupted task.
    assert ends_stream(status_update(state)) is (terminal or interrupted)
    # SubscribeToTask: stays open through an interruption; someone else may answer.
    assert ends_stream(status_update(state), at_interrupted=False) is terminal


@pytest.mark.parametrize(
    "event",
    [
        {"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": []}}},
        {"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}},
        {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": []}},
    ],
)
def test_only_a_status_update_ends_a_stream(event):
    assert ends_stream(event) is False
    assert ends_stream(event, at_interrupted=False) is False


# --- a terminal task takes no change ---------------------------------------------------


@pytest.fixture
def task_in(rpc, conformance_mode, db):
    """``task_in(state)``: the id of a task (input required) moved to ``state``."""

    def make(state: TaskState) -> str:
        body = rpc("SendMessage", {"message": user_message("input please")})
        task_id = body["result"]["task"]["id"]
        Task.objects.filter(pk=task_id).update(state=state.value)
        return task_id

    return make


@pytest.mark.parametrize("state", sorted(TERMINAL_STATES), ids=lambda s: s.name)
def test_a_terminal_task_takes_no_change(task_in, state):
    task_id = task_in(state)
    events = TaskEvent.objects.filter(task_id=task_id).count()
    with pytest.raises(TaskClosed) as closed, TaskUpdate.locked(task_id) as update:
        update.set_status(TaskState.WORKING)
    assert (closed.value.task_id, closed.value.state) == (task_id, state.value)
    assert str(closed.value) == f"task {task_id} is already {state.value}"
    assert Task.objects.get(pk=task_id).state == state.value
    assert TaskEvent.objects.filter(task_id=task_id).count() == events


@pytest.mark.parametrize(
    "state",
    [TaskState.SUBMITTED, TaskState.WORKING, *sorted(INTERRUPTED_STATES)],
    ids=lambda s: s.name,
)
def test_a_live_task_moves_on(task_in, state):
    task_id = task_in(state)
    with TaskUpdate.locked(task_id) as update:
        assert update.previous_state is state
        update.set_status(TaskState.COMPLETED)
    assert Task.objects.get(pk=task_id).state == "TASK_STATE_COMPLETED"
    last = TaskEvent.objects.filter(task_id=task_id).order_by("-sequence").first()
    assert last.body["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert ends_stream(last.body)


def test_a_discarded_update_saves_nothing(task_in):
    task_id = task_in(TaskState.WORKING)
    with TaskUpdate.locked(task_id) as update:
        update.set_status(TaskState.COMPLETED)
        update.discard()
    assert Task.objects.get(pk=task_id).state == "TASK_STATE_WORKING"


@pytest.mark.django_db
def test_an_unknown_task_is_not_found():
    with pytest.raises(TaskNotFound), TaskUpdate.locked("7f1e2d3c-4b5a-4968-8776-655443322110"):
        pass


def test_site_code_cannot_reopen_a_finished_task(task_in):
    task_id = task_in(TaskState.COMPLETED)
    with pytest.raises(TaskClosed):
        api.fail(task_id, "too late")
    assert Task.objects.get(pk=task_id).state == "TASK_STATE_COMPLETED"
