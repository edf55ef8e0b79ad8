"""Running background tasks: what a worker does, what the sweep repairs, how sends wait.

Lifecycle of a background task: SendMessage stores it SUBMITTED and hands its id to the
broker after commit. A worker (:func:`execute`) takes it under the row lock, marks it
WORKING with a lease, runs the handler outside any transaction (so progress commits as it
happens), and writes the outcome unless the task ended meanwhile (a late result after
CancelTask is dropped, not written).

Nothing is lost (:func:`sweep`, run periodically):

* a SUBMITTED task not picked up within ``RESUBMIT_AFTER_SECONDS`` (broker down at
  enqueue, message lost) is handed to the broker again;
* a WORKING task whose lease ran out (the worker was killed: ``kill -9``, OOM, a lost
  machine) is run again if its skill declares a rerun safe (``@skill(rerun_safe=True)``)
  and it has attempts left (``MAX_RUN_ATTEMPTS``), else FAILED with a reason. While a
  handler runs, a heartbeat thread (:func:`heartbeat`) renews the lease every
  ``WORKER_HEARTBEAT_SECONDS``, so the lease can be short (``WORKER_LEASE_SECONDS``)
  and a dead worker's task is recovered within seconds; progress reports and
  ``ctx.is_canceled()`` renew it too. A handler that hangs keeps its heartbeat: bound
  it with Celery's ``task_time_limit``, whose kill ends the heartbeat. Redelivery by the
  broker (acks_late) is a bonus, not relied upon: the filesystem broker has none.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core.dispatch import enqueue_run_on_commit, get_dispatcher
from a2a_app.core.execution import (
    Resolution,
    apply_resolution,
    build_context,
    resolve_outcome,
    run_handler,
)
from a2a_app.core.store import load_history
from a2a_app.core.updates import TaskUpdate
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import Task, TaskMessage
from a2a_app.protocol.types import TERMINAL_STATES, Artifact, Message, Part, Role, TaskState
from a2a_app.skills.catalogue import get_catalogue
from a2a_app.skills.context import TaskCanceled, agent_message

logger = logging.getLogger("a2a_app.calls")

LOST_WORKER_TEXT = "The worker running this task stopped unexpectedly; it was not retried again."
NOT_RERUN_TEXT = (
    "The worker running this task stopped unexpectedly. This skill is not run twice (it "
    "may have acted already), so the task failed: check before you send it again."
)


def _lease() -> Any:
    return timezone.now() + timedelta(seconds=a2a_settings.WORKER_LEASE_SECONDS)


class LiveSink:
    """A running handler's progress, committed at once under the task's row lock."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id

    @contextmanager
    def _update(self) -> Iterator[TaskUpdate]:
        try:
            with TaskUpdate.locked(self.task_id) as update:
                update.task.lease_expires_at = _lease()
                yield update
        except (TaskClosed, TaskNotFound):  # ended, or ended and deleted (retention)
            raise TaskCanceled(self.task_id) from None

    def status(self, state: TaskState, message: Message | None) -> None:
        with self._update() as update:
            update.set_status(state, message)

    def artifact(self, artifact: Artifact, *, append: bool, last_chunk: bool) -> None:
        with self._update() as update:
            update.add_artifact(artifact, append=append, last_chunk=last_chunk)

    def hand_over(self, skill_id: str, message: Message) -> None:
        with self._update() as update:  # one transaction: the skill and its status
            update.set_skill(skill_id)
            update.set_status(TaskState.WORKING, message)

    def is_canceled(self) -> bool:
        """Also the handler's heartbeat: asking renews the lease of a live task."""
        alive = Task.objects.filter(pk=self.task_id).exclude(
            state__in=[s.value for s in TERMINAL_STATES]
        )
        return not alive.update(lease_expires_at=_lease())


@contextmanager
def heartbeat(task_id: str) -> Iterator[None]:
    """Renew the lease of a WORKING task every ``WORKER_HEARTBEAT_SECONDS`` in the block.

    A thread of its own, with its own database connection: the handler may block for
    minutes in one call. When the process dies, the beats stop and the lease runs out.
    """
    interval = a2a_settings.WORKER_HEARTBEAT_SECONDS
    if not interval:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(interval):
                Task.objects.filter(pk=task_id, state=TaskState.WORKING.value).update(
                    lease_expires_at=_lease()
                )
        except Exception:  # a missed beat is not the handler's failure
            logger.exception("task=%s heartbeat failed", task_id)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"a2a-heartbeat-{task_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _owner(task: Task) -> Caller:
    if not task.owner.startswith("user:"):
        return Caller()
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(pk=task.owner.removeprefix("user:")).first()
    return Caller(user=user)


def execute(task_id: str) -> str:
    """Run a SUBMITTED task's skill in this process; returns what happened."""
    try:
        with TaskUpdate.locked(task_id) as update:
            task = update.task
            if task.task_state is not TaskState.SUBMITTED:
                update.discard()
                return "skipped"
            task.run_attempts += 1
            task.lease_expires_at = _lease()
            task.started_at = timezone.now()
            update.set_status(TaskState.WORKING)
    except (TaskClosed, TaskNotFound):
        return "skipped"
    skill = get_catalogue().get(task.skill_id)
    limit = a2a_settings.HANDLER_HISTORY_MESSAGES
    # The turn's user message and at most ``limit`` earlier ones, however long the task.
    bodies = load_history([task], limit + 1).get(str(task.pk), [])
    history = [Message.from_wire(body, "history") for body in bodies]
    latest = next((m for m in reversed(history) if m.role is Role.USER), None)
    if latest is None:  # agent messages after it fill the window (a long rerun's reports)
        body = (
            TaskMessage.objects.filter(task=task, role=Role.USER.value)
            .order_by("-position")
            .values_list("body", flat=True)
            .first()
        )
        latest = None if body is None else Message.from_wire(body, "history")
    if skill is None or latest is None:
        return _finish(task_id, TaskState.FAILED, "The skill of this task is not available.")
    ctx = build_context(
        task,
        skill,
        latest,
        caller=_owner(task),
        # Earlier messages, not earlier runs (a re-run after a lost worker is no turn).
        history=[m for m in history if m is not latest][-limit:] if limit else [],
        sink=LiveSink(str(task.pk)),
    )
    with heartbeat(str(task.pk)):
        outcome = run_handler(ctx)
    if outcome is None:
        return "canceled"
    resolution = resolve_outcome(outcome, task_id=str(task.pk), context_id=task.context_id)
    return record_result(str(task.pk), ctx.state, resolution)


def record_result(task_id: str, skill_state: dict, resolution: Resolution) -> str:
    """Write a finished handler's result, unless the task ended meanwhile (then drop it)."""
    try:
        with TaskUpdate.locked(task_id) as update:
            update.task.skill_state = skill_state
            update.task.lease_expires_at = None
            update.task.finished_at = timezone.now()
            apply_resolution(update, resolution)
    except TaskClosed as closed:
        logger.info("task=%s ended while running (%s): result dropped", task_id, closed.state)
        return "dropped"
    except TaskNotFound:  # ended and deleted meanwhile (retention, by hand)
        logger.info("task=%s deleted while running: result dropped", task_id)
        return "dropped"
    return resolution.state.value


def _finish(task_id: str, state: TaskState, text: str) -> str:
    try:
        with TaskUpdate.locked(task_id) as update:
            update.task.lease_expires_at = None
            context_id = update.task.context_id
            message = agent_message([Part.text_part(text)], context_id=context_id, task_id=task_id)
            update.set_status(state, message)
    except (TaskClosed, TaskNotFound):
        return "dropped"
    return state.value


def sweep() -> dict[str, int]:
    """Re-enqueue stalled SUBMITTED tasks and recover the tasks of dead workers."""
    dispatcher = get_dispatcher()
    now = timezone.now()
    stale = now - timedelta(seconds=a2a_settings.RESUBMIT_AFTER_SECONDS)
    resubmit = list(
        Task.objects.filter(state=TaskState.SUBMITTED.value, enqueued_at__lt=stale).values_list(
            "pk", flat=True
        )[:500]
    )
    for task_id in resubmit:
        Task.objects.filter(pk=task_id, state=TaskState.SUBMITTED.value).update(enqueued_at=now)
        dispatcher.enqueue_run(str(task_id))
    recovered = failed = 0
    expired = Task.objects.filter(state=TaskState.WORKING.value, lease_expires_at__lt=now)
    for task_id in list(expired.values_list("pk", flat=True)[:500]):
        try:
            with TaskUpdate.locked(str(task_id)) as update:
                task = update.task
                if task.task_state is not TaskState.WORKING or not task.lease_expires_at:
                    update.discard()
                    continue
                if task.lease_expires_at >= now:
                    update.discard()
                    continue
                task.lease_expires_at = None
                skill = get_catalogue().get(task.skill_id)
                rerun_safe = skill is not None and skill.spec is not None and skill.spec.rerun_safe
                if rerun_safe and task.run_attempts < a2a_settings.MAX_RUN_ATTEMPTS:
                    task.enqueued_at = now
                    update.set_status(TaskState.SUBMITTED)
                    enqueue_run_on_commit(str(task_id))
                    recovered += 1
                else:
                    text = LOST_WORKER_TEXT if rerun_safe else NOT_RERUN_TEXT
                    message = agent_message(
                        [Part.text_part(text)], context_id=task.context_id, task_id=str(task_id)
                    )
                    update.set_status(TaskState.FAILED, message)
                    failed += 1
        except TaskClosed:
            continue
    return {"resubmitted": len(resubmit), "recovered": recovered, "failed": failed}


def wait_until_settled(task_id: str, timeout: float) -> None:
    """Block until the task is terminal or interrupted, or ``timeout`` seconds pass.

    No database connection is held while it sleeps: each look takes one (from the pool,
    under psycopg's pool) and gives it back, so that sends waiting for workers cannot
    take every pooled connection from the requests that do work.
    """
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        state = Task.objects.filter(pk=task_id).values_list("state", flat=True).first()
        if state is None or TaskState(state).is_terminal or TaskState(state).is_interrupted:
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        if not connection.in_atomic_block:  # inside a transaction the connection must stay
            connection.close()
        time.sleep(min(delay, remaining))
        delay = min(delay * 1.5, 0.5)
