"""Handing work to the background: the one seam between the service layer and Celery.

The service layer never imports Celery or :mod:`a2a_app.jobs`. It hands work to the
dispatcher that ``A2A_APP["DISPATCHER"]`` names:

* ``enqueue_run(task_id)``: run a SUBMITTED task's skill in a worker;
* ``schedule_deliveries(config_ids, countdown=0)``: deliver webhook configs' pending events;
* ``publish(task_id)``: tell open streams that the task has new events;
* optionally ``connect()``: get ready for the above without waiting (ASGI start-up
  calls it).

:class:`CeleryDispatcher`, the default, sends the Celery tasks of :mod:`a2a_app.jobs` by
name on the site's Celery app and publishes through the stream notifier. A broker that
cannot be reached is logged, never raised: the rows are committed already, and the sweep
hands them to the broker again. :class:`a2a_app.testing.RecordingDispatcher` records the
calls instead, for tests.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Protocol

from django.core.signals import setting_changed
from django.db import connection, transaction

from a2a_app import tracing
from a2a_app.conf import a2a_settings
from a2a_app.core import notify, queued_runs
from a2a_app.core.breaker import Breaker
from a2a_app.db import ensure_live_connection

logger = logging.getLogger("a2a_app.calls")

# Celery task names (kept from the days of ``a2a_app/tasks.py``: queued messages and beat
# schedules name them).
RUN_TASK = "a2a_app.tasks.run_task"
DELIVER_WEBHOOKS = "a2a_app.tasks.deliver_webhooks"
SWEEP = "a2a_app.tasks.sweep"
#: Webhook configs one worker run claims at most (``delivery.deliver_due``), so also the
#: most one ``DELIVER_WEBHOOKS`` message names.
CONFIGS_PER_RUN = 50


def before_job() -> None:
    """What each job of :mod:`a2a_app.jobs` does first: trade a database connection the
    server closed for a live one (:func:`a2a_app.db.ensure_live_connection`). A worker's
    connections wait between jobs as a web process's wait between requests; after a
    PostgreSQL restart each would fail the next job that used it."""
    ensure_live_connection(connection)


class Dispatcher(Protocol):
    #: Can work handed over here run at all? (No Celery app: nothing would run it.)
    can_run_in_background: bool

    def enqueue_run(self, task_id: str) -> None: ...

    def schedule_deliveries(self, config_ids: Iterable[int], countdown: float = 0) -> None: ...

    def publish(self, task_id: str, note: str | None = None) -> None:
        """After a commit that recorded events of the task: wake its streams.
        ``note`` is :func:`a2a_app.core.notify.notification`'s text (the events), or None."""
        ...


class CeleryDispatcher:
    """Celery tasks sent by name on ``app`` (default: the current Celery app).

    A publish waits at most ``BROKER_PUBLISH_TIMEOUT``: it runs in a thread of its own,
    so that a hung broker (no answer, no error) cannot hold the request; a publish that
    failed or timed out opens the breaker and later ones are skipped for a while (the
    sweep hands their tasks over again).
    """

    #: Threads that publish; a hung broker holds them until its sockets give up.
    PUBLISH_THREADS = 4

    def __init__(self, app: Any = None) -> None:
        self._app = app
        self.breaker = Breaker("the Celery broker")
        self._publisher = ThreadPoolExecutor(self.PUBLISH_THREADS, "a2a-publish")

    @property
    def app(self) -> Any:
        if self._app is not None:
            return self._app
        from celery import current_app

        return current_app._get_current_object()

    @property
    def can_run_in_background(self) -> bool:
        return celery_app_configured(self.app)

    def _send(self, name: str, args: tuple[Any, ...], countdown: float = 0) -> None:
        app = self.app
        if app.conf.task_always_eager:
            # send_task never runs eagerly; an eager site wants its jobs run right here.
            app.tasks[name].apply(args)
            return
        if self.breaker.is_open:
            raise BrokerUnavailable(name)
        options = {"countdown": countdown} if countdown else {}
        # Read here: the publishing thread does not share this one's trace context.
        options["headers"] = tracing.carrier()
        sent = self._publisher.submit(app.send_task, name, args=args, **options)
        try:
            sent.result(timeout=a2a_settings.BROKER_PUBLISH_TIMEOUT)
        except BaseException as error:
            self.breaker.failed()
            # A publish that was only slow (a cold process connecting to the broker on a
            # busy machine) closes the breaker when it goes through: the broker is up,
            # and the next tasks need not wait OUTAGE_RETRY_SECONDS for the sweep.
            sent.add_done_callback(functools.partial(self._closed_if_sent, name, args))
            if isinstance(error, FutureTimeout):
                raise BrokerSlow(name) from error
            raise

    def connect(self) -> None:
        """Connect to the broker for the publishes to come, in a publishing thread;
        returns at once. Called at ASGI start-up (:mod:`a2a_app.asgi`).

        Otherwise a process's first publish imports the broker's client and connects,
        within its ``BROKER_PUBLISH_TIMEOUT``: 200-260 ms on an idle 2-vCPU machine
        (17-19 ms once connected ahead), and over the 1 s in the bench's webhook case,
        busy with eight concurrent SendMessage requests. The breaker then skipped the
        broker for ``OUTAGE_RETRY_SECONDS``: 29 hand-overs were not sent.
        """
        app = self.app
        if app.conf.task_always_eager or not celery_app_configured(app):
            return
        self._publisher.submit(_connect, app)

    def _closed_if_sent(self, name: str, args: tuple[Any, ...], sent: Future) -> None:
        if not sent.cancelled() and sent.exception() is None:
            self.breaker.succeeded()
            logger.info("broker: a slow publish of %s%r went through after all", name, args)

    def enqueue_run(self, task_id: str) -> None:
        try:
            self._send(RUN_TASK, (task_id,))
        except BrokerSlow:
            # Still on its way: it may yet arrive (then the sweep's second hand-over finds
            # the task taken and does nothing), or not (then the sweep's is the one).
            logger.warning(
                "broker publish timed out: task %s was not handed over within "
                "BROKER_PUBLISH_TIMEOUT; "
                "the publish goes on, and the sweep hands it over if it never arrives",
                task_id,
            )
        except Exception:
            logger.warning("broker unavailable: task %s stays SUBMITTED for the sweep", task_id)

    def schedule_deliveries(self, config_ids: Iterable[int], countdown: float = 0) -> None:
        # One message per run's worth of configs, not one per config (a run claims many);
        # more than one so that several workers share a long list.
        ids = list(config_ids)
        if not ids:
            return
        # A run due now claims whatever is due when it starts: none is needed while
        # another is queued (a retry's, with a countdown, is for later: always sent).
        if not countdown and not queued_runs.mark_queued(DELIVER_WEBHOOKS):
            return
        for start in range(0, len(ids), CONFIGS_PER_RUN):
            chunk = ids[start : start + CONFIGS_PER_RUN]
            try:
                self._send(DELIVER_WEBHOOKS, (chunk,), countdown)
            except Exception:
                logger.warning("could not enqueue deliveries of push configs %s", chunk)
                if not countdown:
                    queued_runs.started(DELIVER_WEBHOOKS)  # none is queued: let the next send

    def publish(self, task_id: str, note: str | None = None) -> None:
        notify.publish(task_id, note)


class BrokerUnavailable(Exception):
    """The broker is skipped for now (it failed or timed out a moment ago)."""


class BrokerSlow(BrokerUnavailable):
    """A publish outlasted ``BROKER_PUBLISH_TIMEOUT``; it goes on in the background."""


def _connect(app: Any) -> None:
    try:
        # The producer goes back to the pool, which hands out the most recently
        # returned one first: the first publish gets this one, connected.
        with app.producer_or_acquire() as producer:
            # Opening the channel connects (within the broker's connect timeout; Redis
            # also answers a PING), as a publish would.
            producer.channel  # noqa: B018
    except Exception as error:
        logger.info("broker: could not connect ahead of the first publish: %s", error)


def celery_app_configured(app: Any) -> bool:
    """Is ``app`` one the site made? Celery's fallback app, which it makes when nobody
    did, is called "default" and has no Django fix-up; work sent there never runs."""
    return not (app.main == "default" and not app.fixups)


_dispatcher: Dispatcher | None = None
_overrides: list[Dispatcher] = []


def get_dispatcher() -> Dispatcher:
    """The dispatcher in use: an override (tests), else one of ``A2A_APP["DISPATCHER"]``."""
    global _dispatcher
    if _overrides:
        return _overrides[-1]
    if _dispatcher is None:
        _dispatcher = a2a_settings.DISPATCHER()
    return _dispatcher


@contextlib.contextmanager
def dispatching_to(dispatcher: Dispatcher) -> Iterator[Dispatcher]:
    """Use ``dispatcher`` for everything dispatched inside the block (any thread)."""
    _overrides.append(dispatcher)
    try:
        yield dispatcher
    finally:
        _overrides.remove(dispatcher)


def enqueue_run_on_commit(task_id: str) -> None:
    # Not Celery's delay_on_commit: a broker error there would escape into the request
    # after the commit; here it is logged and the committed SUBMITTED task waits for the
    # sweep.
    transaction.on_commit(lambda: get_dispatcher().enqueue_run(task_id))


def reset() -> None:
    """Forget the dispatcher made from settings (they changed, tests)."""
    global _dispatcher
    _dispatcher = None


def _setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "A2A_APP":
        reset()


setting_changed.connect(_setting_changed)
