"""Test helpers for sites that use a2a_app, in the spirit of ``rest_framework.test``.

``record_dispatch()`` records what would go to Celery (skill runs, webhook deliveries,
stream wake-ups) instead of sending it::

    from a2a_app.testing import record_dispatch

    def test_booking_runs_in_a_worker(client):
        with record_dispatch() as dispatched:
            client.post("/a2a/jsonrpc", ..., content_type="application/json")
        assert len(dispatched.runs) == 1
        dispatched.run_queued()  # what a worker would do, in this process

``reset_caches()`` forgets what a2a_app keeps per process (skill catalogue, agent card,
stream notifier, dispatcher): call it between tests that change skills or settings.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from a2a_app.core import dispatch, notify

__all__ = ["RecordingDispatcher", "record_dispatch", "reset_caches"]


class RecordingDispatcher:
    """A dispatcher (``A2A_APP["DISPATCHER"]``) that records instead of sending.

    ``runs``: task ids handed to a worker, in order. ``deliveries``: (config ids,
    countdown) per scheduling call. ``published``: task ids whose streams were told of
    new events; with ``wake_streams`` (the default) open streams in this process are
    woken as usual.
    """

    def __init__(self, *, wake_streams: bool = True) -> None:
        self.runs: list[str] = []
        self.deliveries: list[tuple[list[int], float]] = []
        self.published: list[str] = []
        self.wake_streams = wake_streams

    def enqueue_run(self, task_id: str) -> None:
        self.runs.append(task_id)

    def schedule_deliveries(self, config_ids: Iterable[int], countdown: float = 0) -> None:
        self.deliveries.append((list(config_ids), countdown))

    def publish(self, task_id: str) -> None:
        self.published.append(task_id)
        if self.wake_streams:
            notify.publish(task_id)

    def run_queued(self) -> list[str]:
        """Run the recorded runs here, as a worker would; returns what each did."""
        from a2a_app.core import runner

        runs, self.runs = self.runs, []
        return [runner.execute(task_id) for task_id in runs]

    def deliver_scheduled(self) -> list[str]:
        """Deliver the recorded webhook configs here, as a worker would."""
        from a2a_app.push import delivery

        config_ids = [config_id for ids, _ in self.deliveries for config_id in ids]
        self.deliveries = []
        return [delivery.deliver(config_id) for config_id in dict.fromkeys(config_ids)]


@contextlib.contextmanager
def record_dispatch(*, wake_streams: bool = True) -> Iterator[RecordingDispatcher]:
    """Record everything dispatched inside the block (from any thread)."""
    with dispatch.dispatching_to(RecordingDispatcher(wake_streams=wake_streams)) as recorder:
        yield recorder


def reset_caches() -> None:
    """Forget the per-process caches: skill catalogue, agent card, notifier, dispatcher."""
    from a2a_app.bindings import card
    from a2a_app.skills import catalogue

    catalogue.clear_cache()
    card.clear_cache()
    notify.reset()
    dispatch.reset()
