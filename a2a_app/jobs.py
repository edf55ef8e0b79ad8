"""Celery tasks. Thin: the logic is in plain functions (``runner``, ``push``) that tests call.

Schedule the sweep in your Celery beat configuration, e.g. every 15 seconds::

    CELERY_BEAT_SCHEDULE = {
        "a2a-sweep": {"task": "a2a_app.tasks.sweep", "schedule": 15.0},
    }
"""

from __future__ import annotations

from celery import shared_task

from a2a_app.core import runner
from a2a_app.push import delivery


@shared_task(name="a2a_app.tasks.run_task", acks_late=True, reject_on_worker_lost=True)
def run_task(task_id: str) -> str:
    return runner.execute(task_id)


@shared_task(name="a2a_app.tasks.deliver_webhooks", acks_late=True)
def deliver_webhooks(config_id: int) -> str:
    return delivery.deliver(config_id)


@shared_task(name="a2a_app.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    return runner.sweep()
