"""Retention: deleting tasks that ended long ago, with their messages, artifacts, events,
webhooks and delivery log.

The policy is ``RETENTION_DAYS`` (terminal tasks, counted from the status that ended
them) and ``RETENTION_INTERRUPTED_DAYS`` (input-required and auth-required tasks nobody
answered, counted from the question); ``None`` keeps them forever. The periodic sweep
(``a2a_app.tasks.sweep``) enforces it for at most ``RETENTION_SWEEP_SECONDS`` per run;
``manage.py a2a_purge`` runs it by hand.

Deleting is done in batches of ``RETENTION_BATCH_SIZE`` tasks, each batch its own short
transaction: the batch's task rows are locked (``SKIP LOCKED`` on PostgreSQL, so a task
being updated right now is left for the next run, and two sweeps never wait for each
other), then the children are deleted by task id with plain ``DELETE ... WHERE task_id
IN (...)`` statements, deliveries first, and the tasks last. Django's ``delete()`` would
load every row (and its children) into Python to run its collector: too slow for
millions of rows. A task is kept while it is still in use: a worker holds its lease, a
webhook delivery of it is pending, or a worker is posting one of its webhooks.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from django.db import models, router, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from a2a_app.conf import a2a_settings
from a2a_app.models import Delivery, PushConfig, Task, TaskArtifact, TaskEvent, TaskMessage
from a2a_app.protocol.types import INTERRUPTED_STATES, TERMINAL_STATES

TERMINAL_VALUES = sorted(state.value for state in TERMINAL_STATES)
INTERRUPTED_VALUES = sorted(state.value for state in INTERRUPTED_STATES)

#: A task's own rows, in the order they are deleted: a delivery points at an event and a
#: push config, so the deliveries go first.
CHILDREN: tuple[tuple[str, type[models.Model]], ...] = (
    ("deliveries", Delivery),
    ("events", TaskEvent),
    ("push_configs", PushConfig),
    ("artifacts", TaskArtifact),
    ("messages", TaskMessage),
)
OWN_MODELS = {model for _, model in CHILDREN}


@dataclass
class PurgeCounts:
    """Rows deleted (or, in a dry run, that would be), and the batches it took."""

    tasks: int = 0
    messages: int = 0
    artifacts: int = 0
    events: int = 0
    push_configs: int = 0
    deliveries: int = 0
    batches: int = 0

    def add(self, other: PurgeCounts) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def days(value: float | None) -> timedelta | None:
    return None if value is None else timedelta(days=value)


def _plural(days: float) -> int:
    """The count that picks a plural form: gettext takes only whole numbers."""
    return int(days) if float(days).is_integer() else 2


def describe_policy() -> str:
    """The policy in one sentence, for the admin's task list."""
    terminal = a2a_settings.RETENTION_DAYS
    interrupted = a2a_settings.RETENTION_INTERRUPTED_DAYS
    if terminal is None:
        text = _("Ended tasks (completed, failed, canceled, rejected) are kept forever.")
    else:
        text = ngettext(
            "Ended tasks (completed, failed, canceled, rejected) are deleted %(days)s day "
            "after they end, with their messages, artifacts, events and webhooks.",
            "Ended tasks (completed, failed, canceled, rejected) are deleted %(days)s days "
            "after they end, with their messages, artifacts, events and webhooks.",
            _plural(terminal),
        ) % {"days": _days(terminal)}
    if interrupted is None:
        return text + " " + _("Tasks waiting for the caller's input are kept until they end.")
    return (
        text
        + " "
        + ngettext(
            "Tasks waiting for the caller's input are deleted when nobody answered for "
            "%(days)s day.",
            "Tasks waiting for the caller's input are deleted when nobody answered for "
            "%(days)s days.",
            _plural(interrupted),
        )
        % {"days": _days(interrupted)}
    )


def _days(days: float) -> str:
    """A number of days as the active language writes it: "30", "0.5", German "0,5"."""
    return number_format(int(days) if float(days).is_integer() else days)


def expired(states: list[str], before: datetime, now: datetime) -> QuerySet[Task]:
    """Tasks in ``states`` whose last status is older than ``before`` and that nothing
    uses now (see the module's docstring)."""
    pending = Delivery.objects.filter(
        task=OuterRef("pk"), status=Delivery.Status.PENDING, config__isnull=False
    )
    # (A webhook being posted is checked on the batch's ids, see delete_batch: as a
    # subquery here PostgreSQL scans every push config for each batch.)
    return (
        Task._base_manager.filter(state__in=states, status_timestamp__lt=before)
        .exclude(lease_expires_at__gt=now)
        .exclude(Exists(pending))
        .order_by()
    )


def _posting(ids: list[Any], using: str) -> set[Any]:
    """Those of ``ids`` one of whose webhooks a worker is posting right now."""
    return set(
        PushConfig._base_manager.using(using)
        .filter(task_id__in=ids, delivering_until__gt=timezone.now())
        .values_list("task_id", flat=True)
    )


def _foreign_relations() -> list[Any]:
    """Relations to Task from models other than a2a_app's own (a site's)."""
    return [
        relation
        for relation in Task._meta.related_objects
        if relation.related_model not in OWN_MODELS and not relation.many_to_many
    ]


def _release_foreign(ids: list[Any], using: str) -> list[Any]:
    """Apply a site's own ``on_delete`` to its rows that point at these tasks (through
    the ORM: rare, and they may have signals); the ids still to delete (PROTECT,
    RESTRICT and the like keep their tasks)."""
    keep: set[Any] = set()
    for relation in _foreign_relations():
        field = relation.field
        rows = relation.related_model._base_manager.using(using).filter(
            **{f"{field.name}__in": ids}
        )
        if relation.on_delete is models.CASCADE:
            rows.delete()
        elif relation.on_delete is models.SET_NULL:
            rows.update(**{field.name: None})
        else:
            keep.update(rows.values_list(field.attname, flat=True))
    return [pk for pk in ids if pk not in keep]


def delete_batch(queryset: QuerySet[Task], size: int) -> tuple[PurgeCounts, int]:
    """Delete up to ``size`` tasks of ``queryset`` and their rows, in one transaction;
    returns what was deleted and how many tasks were picked (some may be kept)."""
    using = router.db_for_write(Task)
    counts = PurgeCounts()
    with transaction.atomic(using=using):
        ids = list(
            queryset.using(using)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", flat=True)[:size]
        )
        picked = len(ids)
        if not ids:
            return counts, 0
        busy = _posting(ids, using)
        ids = [pk for pk in ids if pk not in busy]
        if _foreign_relations():
            ids = _release_foreign(ids, using)
        if not ids:
            return counts, picked
        for name, model in CHILDREN:
            # _raw_delete: one DELETE statement, no rows loaded, no signals (these models
            # have no receivers of a2a_app's; a site's are for single deletes).
            rows = model._base_manager.using(using).filter(task_id__in=ids)
            setattr(counts, name, rows._raw_delete(using))
        counts.tasks = Task._base_manager.using(using).filter(pk__in=ids)._raw_delete(using)
        counts.batches = 1
    return counts, picked


def count(queryset: QuerySet[Task]) -> PurgeCounts:
    """What deleting ``queryset`` would delete (a dry run)."""
    queryset = queryset.exclude(
        Exists(PushConfig.objects.filter(task=OuterRef("pk"), delivering_until__gt=timezone.now()))
    )
    counts = PurgeCounts(tasks=queryset.count())
    for name, model in CHILDREN:
        setattr(counts, name, model._base_manager.filter(task__in=queryset).count())
    return counts


def purge(
    *,
    terminal_after: timedelta | None,
    interrupted_after: timedelta | None = None,
    batch_size: int | None = None,
    max_seconds: float | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
) -> PurgeCounts:
    """Delete the tasks the policy lets go, batch by batch, until none is left or
    ``max_seconds`` have passed (a batch started is finished). ``None`` for an age keeps
    those tasks. A dry run deletes nothing and counts what would go."""
    now = now or timezone.now()
    size = batch_size or a2a_settings.RETENTION_BATCH_SIZE
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    total = PurgeCounts()
    for states, age in ((TERMINAL_VALUES, terminal_after), (INTERRUPTED_VALUES, interrupted_after)):
        if age is None:
            continue
        queryset = expired(states, now - age, now)
        if dry_run:
            total.add(count(queryset))
            continue
        while deadline is None or time.monotonic() < deadline:
            batch, picked = delete_batch(queryset, size)
            total.add(batch)
            # A short batch was the last; one that deleted nothing found only tasks in
            # use or kept by a site's PROTECT, which the next would pick again.
            if picked < size or not batch.tasks:
                break
    return total


def sweep() -> dict[str, int]:
    """The periodic sweep's share: the configured policy, for a bounded time."""
    terminal = days(a2a_settings.RETENTION_DAYS)
    interrupted = days(a2a_settings.RETENTION_INTERRUPTED_DAYS)
    if terminal is None and interrupted is None:
        return {}
    counts = purge(
        terminal_after=terminal,
        interrupted_after=interrupted,
        max_seconds=a2a_settings.RETENTION_SWEEP_SECONDS,
    )
    return {"purged_tasks": counts.tasks}
