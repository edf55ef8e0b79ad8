"""The Celery tasks a worker runs. Thin: the logic is in plain functions that tests call.

The service layer never calls these directly: :mod:`a2a_app.core.dispatch` sends them by
name. ``AppConfig.ready`` imports this module, so a worker of the site's Celery app finds
them (and :func:`prepare_pool_process` is connected to Celery's ``worker_process_init``).
Each job first trades a database connection the server closed (PostgreSQL restarted
while the worker's connections sat idle) for a live one, as operations do
(:func:`a2a_app.core.dispatch.before_job`), rather than failing on it.

Schedule the sweep in the Celery beat configuration, e.g. every 15 seconds::

    CELERY_BEAT_SCHEDULE = {
        "a2a-sweep": {"task": "a2a_app.tasks.sweep", "schedule": 15.0},
    }
"""

from __future__ import annotations

from typing import Any

from celery import current_task, shared_task
from celery.signals import worker_process_init

from a2a_app import tracing
from a2a_app.core import dispatch, notify, queued_runs, retention, runner
from a2a_app.push import delivery
from a2a_app.signals import sweep_finished


@shared_task(name=dispatch.RUN_TASK, acks_late=True, reject_on_worker_lost=True)
@tracing.job("a2a.run_task", lambda task_id: {"a2a.task.id": task_id}, current_task)
def run_task(task_id: str) -> str:
    dispatch.before_job()
    return runner.execute(task_id)


@shared_task(name=dispatch.DELIVER_WEBHOOKS, acks_late=True)
@tracing.job("a2a.deliver_webhooks", lambda ids: {"a2a.push_config": ids}, current_task)
def deliver_webhooks(config_ids: list[int] | int) -> str:
    """Deliver these configs' events and those of other configs due (one run, many
    configs). An int: a message queued by an older version, one config."""
    dispatch.before_job()
    # Before it claims: a sender that finds no run queued from here on sends a message of
    # its own, and what was committed before is this run's (core.queued_runs).
    queued_runs.started(dispatch.DELIVER_WEBHOOKS)
    return delivery.deliver_due([config_ids] if isinstance(config_ids, int) else config_ids)


@shared_task(name=dispatch.SWEEP, ignore_result=True)
def sweep() -> dict[str, int]:
    """Re-enqueue stalled tasks, recover those of dead workers, retry due webhooks, then
    delete the tasks the retention policy lets go (for a bounded time)."""
    dispatch.before_job()
    counts = {**runner.sweep(), **delivery.sweep(), **retention.sweep()}
    sweep_finished.send(sender=None, counts=counts)
    return counts


@worker_process_init.connect(dispatch_uid="a2a_app.jobs.prepare_pool_process")
def prepare_pool_process(**kwargs: Any) -> None:
    """In each new pool process of a worker, before it takes a job: the notifier and its
    Redis connection (:func:`a2a_app.core.notify.prepare_publisher`). Each process's first
    event used to wait for them: 6-30 ms, and the first events set the streams' p99."""
    notify.prepare_publisher()
