"""At most one queued, not yet started run per background job: fewer messages that find nothing.

A webhook run claims every config with deliveries due when it starts, not only those
its message names (:func:`a2a_app.push.delivery.deliver_due`). So while one run is
queued, another message only wakes a worker to find the work taken: Celery's receive,
trace, ack and log line plus a query, 2.5-3 ms of worker CPU each, and the bench's
runs had 170-310 such wake-ups for 1,000 deliveries (bench/analysis.md).

A sender marks the job queued (:func:`mark_queued`) and sends only if it was not
marked already. A run removes the mark (:func:`started`) before it claims anything. So
whatever was committed before a sender found the mark is claimed by the run still to
come; nothing waits without a run after it. The mark expires after ``TTL``: a message
lost on its way (a broker restart, a worker killed before the run started) holds the
senders back that long at most, and the sweep hands over what is due after it.

The mark is a row of :class:`a2a_app.models.QueuedRun`, written in autocommit: a mark
still inside a transaction could be committed after its run had started and looked,
and then hold every sender back for nothing. Inside a transaction, and on databases
other than PostgreSQL and SQLite, every sender sends.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.utils import timezone

#: How long a mark counts on its run. A run queued behind a longer backlog just gets
#: company: the next sender after the expiry sends another message.
TTL = timedelta(seconds=30)


def mark_queued(job: str) -> bool:
    """Mark a run of ``job`` as queued; whether the caller should send its message
    (False: a run marked earlier has not started and will claim this work too)."""
    if connection.in_atomic_block or not _can_upsert():
        return True
    # Not at the top: a2a_app.testing imports the dispatcher, and so this module, before
    # Django's apps are ready (a test suite's conftest).
    from a2a_app.models import QueuedRun

    now = timezone.now()
    adapt = connection.ops.adapt_datetimefield_value
    table = connection.ops.quote_name(QueuedRun._meta.db_table)
    with connection.cursor() as cursor:
        # One statement, so concurrent senders can't both find the job unmarked; it
        # also recreates a row that a flush or a hand deleted.
        cursor.execute(
            f"INSERT INTO {table} (job, until) VALUES (%s, %s) "
            f"ON CONFLICT (job) DO UPDATE SET until = excluded.until "
            f"WHERE {table}.until < %s RETURNING job",
            [job, adapt(now + TTL), adapt(now)],
        )
        return cursor.fetchone() is not None


def started(job: str) -> None:
    """A run of ``job`` starts (or its message could not be sent): the next sender sends."""
    from a2a_app.models import QueuedRun

    QueuedRun.objects.filter(job=job).delete()


def _can_upsert() -> bool:
    if connection.vendor == "postgresql":
        return True
    # INSERT ... RETURNING: SQLite 3.35 (Django 5.2 supports 3.31 on).
    return connection.vendor == "sqlite" and connection.features.can_return_columns_from_insert
