"""Delivering a task's events to its webhooks (push notification configs).

Delivery guarantees: every event of a task gets a ``Delivery`` row per config in the
same transaction that records the event, so nothing is lost if the process dies. A
worker delivers one config's events strictly in order (``deliver``); a retryable failure
(network error, 408, 425, 429, 5xx) waits with exponential backoff and jitter and holds
back the later events of that config; other 4xx and SSRF refusals fail that delivery
for good and the next one proceeds. Every attempt is recorded on the row.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from a2a_app import tracing
from a2a_app.conf import a2a_settings
from a2a_app.core.dispatch import CONFIGS_PER_RUN, get_dispatcher
from a2a_app.models import Delivery, PushConfig
from a2a_app.protocol.types import ends_stream
from a2a_app.protocol.v03 import jsonrpc as v03_jsonrpc
from a2a_app.protocol.versions import V0_3
from a2a_app.push import policy, signatures
from a2a_app.push.senders import WebhookRequest, shared_sender
from a2a_app.push.ssrf import UnresolvableHostError, UnsafeURLError, URLPolicy, check_url
from a2a_app.signals import delivery_attempted, delivery_failed

logger = logging.getLogger("a2a_app.push")

JSON = dict[str, Any]
RETRYABLE_STATUSES = frozenset({408, 425, 429})
CONTENT_TYPE = "application/a2a+json"
#: Pending deliveries of a config read per batch (then sent one by one, in order).
BATCH_SIZE = 50
#: Configs one worker run claims at once (``deliver_due``).
CLAIM_SIZE = CONFIGS_PER_RUN
#: What an attempt changes on its Delivery row (only these are written back).
RECORDED_FIELDS = (
    "attempts",
    "status",
    "last_status_code",
    "last_error",
    "next_attempt_at",
    "delivered_at",
    "updated_at",
)


def backoff_seconds(attempts: int) -> float:
    """Exponential with full jitter: up to base * 2^(attempts-1), capped."""
    ceiling = min(
        a2a_settings.WEBHOOK_BACKOFF_MAX_SECONDS,
        a2a_settings.WEBHOOK_BACKOFF_SECONDS * 2 ** max(attempts - 1, 0),
    )
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def _request_for(
    delivery: Delivery, config: PushConfig, addresses: tuple[str, ...] = ()
) -> WebhookRequest:
    # Stable per event and config: receivers deduplicate redeliveries on it.
    event_id = f"{delivery.task_id}:{delivery.event.sequence}"
    headers = {
        "Content-Type": CONTENT_TYPE,
        "X-A2A-Event-Id": event_id,
        "X-A2A-Config-Id": config.config_id,
        **tracing.carrier(),  # traceparent: the receiver's work joins the attempt's trace
    }
    if config.auth_scheme:
        credentials = f" {config.credentials}" if config.credentials else ""
        headers["Authorization"] = f"{config.auth_scheme}{credentials}"
    if config.token and a2a_settings.WEBHOOK_TOKEN_HEADER:
        headers["X-A2A-Notification-Token"] = config.token
    event = delivery.event.body
    if config.protocol_version == V0_3:
        # Registered by a v0.3 client: it gets v0.3 shapes (kind, lowercase states, final).
        event = v03_jsonrpc.stream_response_to_v03(event, final=ends_stream(event))
    body = json.dumps(event, separators=(",", ":")).encode()
    if config.token:
        # Signed with the token the client registered: it knows the key, we keep it
        # encrypted. A fresh timestamp per attempt; the id stays the event's.
        headers.update(signatures.signed_headers(config.token, event_id, body))
    return WebhookRequest(url=config.url, body=body, headers=headers, addresses=addresses)


def deliver(config_id: int, *, sender: Any = None, max_deliveries: int = 1000) -> str:
    """Deliver one config's pending events in order until done or a retry must wait.

    Returns what happened ("done", "busy", "wait", "gone"). Safe to call concurrently:
    a config is claimed with a short lease so only one worker posts its events.
    """
    now = timezone.now()
    lease_until = now + timedelta(seconds=lease_seconds())
    claimed = PushConfig.objects.filter(
        Q(delivering_until__isnull=True) | Q(delivering_until__lt=now), pk=config_id
    ).update(delivering_until=lease_until)
    if not claimed:
        return "busy" if PushConfig.objects.filter(pk=config_id).exists() else "gone"
    return _deliver_claimed([config_id], lease_until, sender, max_deliveries)[config_id]


def deliver_due(
    config_ids: Iterable[int] = (), *, sender: Any = None, limit: int = CLAIM_SIZE
) -> str:
    """One worker run for many configs: claim up to ``limit`` configs with deliveries due
    (``config_ids`` first), then deliver them as :func:`deliver` does one.

    The per-run costs (the Celery task, the lease, reading, writing) are paid once for
    all claimed configs instead of once per config; a wake-up for configs an earlier run
    delivered already finds nothing to claim (one query), and the dispatcher sends none
    while a run is queued (:mod:`a2a_app.core.queued_runs`). Returns a summary of outcomes.
    """
    requested = list(config_ids)
    lease_until = timezone.now() + timedelta(seconds=lease_seconds())
    claimed = claim_due(requested, limit, lease_until)
    if not claimed:
        return "idle"
    if len(claimed) >= limit:
        # Perhaps more are due than one run takes: another run (any worker) claims them
        # while this one delivers. (The configs claimed here, named when no others are,
        # are leased: that run skips them.)
        left = [pk for pk in requested if pk not in claimed]
        get_dispatcher().schedule_deliveries(left or claimed)
    outcomes = _deliver_claimed(claimed, lease_until, sender, max_deliveries=1000)
    counts: dict[str, int] = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    return ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts.items()))


def lease_seconds() -> float:
    """How long a claim on a config lasts: a run starts no attempt later than
    ``2 * WEBHOOK_TIMEOUT`` before it ends (see ``_deliver_claimed``)."""
    return a2a_settings.WEBHOOK_TIMEOUT * 3 + 30


def claim_due(requested: list[int], limit: int, lease_until: datetime) -> list[int]:
    """Lease up to ``limit`` configs whose pending deliveries are all due (none waits for
    a retry's backoff), and those of ``requested`` with any pending (first); their ids.

    One statement on PostgreSQL (rows another worker is claiming are skipped, not waited
    for) and SQLite (its writes are serialized); elsewhere one conditional UPDATE per
    candidate, as :func:`deliver` claims one.
    """
    now = timezone.now()
    if connection.vendor in ("postgresql", "sqlite"):
        return _claim_due_returning(requested, limit, now, lease_until)
    due = (
        Delivery.objects.filter(status=Delivery.Status.PENDING, config__isnull=False)
        .order_by()
        .values("config_id")
        .annotate(latest=Max("next_attempt_at"))
        .filter(Q(latest__lte=now) | Q(config_id__in=requested))
        .values("config_id")
    )
    free = Q(delivering_until__isnull=True) | Q(delivering_until__lt=now)
    candidates = PushConfig.objects.filter(free, pk__in=due).values_list("pk", flat=True)
    ordered = sorted(candidates[: limit + len(requested)], key=lambda pk: pk not in requested)
    return [
        pk
        for pk in ordered[:limit]
        if PushConfig.objects.filter(free, pk=pk).update(delivering_until=lease_until)
    ]


def _claim_due_returning(
    requested: list[int], limit: int, now: datetime, lease_until: datetime
) -> list[int]:
    configs = PushConfig._meta.db_table
    deliveries = Delivery._meta.db_table
    adapt = connection.ops.adapt_datetimefield_value
    first = ", ".join(["%s"] * len(requested)) or "NULL"
    lock = " FOR UPDATE SKIP LOCKED" if connection.vendor == "postgresql" else ""
    # "All due": a config whose oldest pending delivery waits for a retry has later
    # deliveries that look due; claiming it would only find the wait again. Unless it
    # was asked for: its retry's message may come a moment early, and the run then
    # schedules it again for the time the row says.
    sql = f"""
        UPDATE {configs} SET delivering_until = %s WHERE id IN (
            SELECT c.id FROM {configs} c
            WHERE c.id IN (
                SELECT d.config_id FROM {deliveries} d
                WHERE d.status = %s AND d.config_id IS NOT NULL
                GROUP BY d.config_id
                HAVING MAX(d.next_attempt_at) <= %s OR d.config_id IN ({first})
            )
            AND (c.delivering_until IS NULL OR c.delivering_until < %s)
            ORDER BY CASE WHEN c.id IN ({first}) THEN 0 ELSE 1 END, c.id
            LIMIT %s{lock}
        ) RETURNING id
    """
    params = [adapt(lease_until), Delivery.Status.PENDING, adapt(now), *requested, adapt(now)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *requested, limit])
        return sorted(row[0] for row in cursor.fetchall())


def _pending_batches(config_ids: list[int]) -> tuple[dict[int, list[Delivery]], set[int]]:
    """The next pending deliveries of the configs, each config's oldest first, with their
    event and config, in one query (the config read again for each batch, so a replaced
    config applies from the next batch on); and the configs found to have none left.

    At most ``BATCH_SIZE`` rows per config on average: past the last row read, a config
    with no rows is not known to be finished (it waits for the next read).
    """
    limit = BATCH_SIZE * len(config_ids)
    rows = list(
        Delivery.objects.select_related("event", "config")
        .filter(config_id__in=config_ids, status=Delivery.Status.PENDING)
        .order_by("config_id", "event_id")[:limit]
    )
    batches: dict[int, list[Delivery]] = {}
    for row in rows:
        batches.setdefault(row.config_id, []).append(row)
    last_read = rows[-1].config_id if len(rows) == limit else None
    finished = {
        pk for pk in config_ids if pk not in batches and (last_read is None or pk < last_read)
    }
    return batches, finished


def _deliver_claimed(
    claimed: list[int], lease_until: datetime, sender: Any, max_deliveries: int
) -> dict[int, str]:
    """Deliver the claimed configs' events, each config's in order (configs take turns
    batch by batch), record every attempt, release the leases; each config's outcome.

    A config whose attempt must be retried stops there (its later events wait) and is
    scheduled again after the backoff; the others go on. The rows of a batch's attempts
    are written together, one statement, before the leases are let go.
    """
    # Once per process, not per delivery: the sender keeps its connections open.
    sender = sender or shared_sender(a2a_settings.WEBHOOK_SENDER)
    timeout = a2a_settings.WEBHOOK_TIMEOUT
    url_policy = policy.url_policy()
    # No attempt starts that could outlast the lease (a POST takes up to a connect and a
    # read timeout): past this, the configs left are handed to another run.
    stop_at = time.monotonic() + (lease_until - timezone.now()).total_seconds() - 2 * timeout
    outcomes: dict[int, str] = {}
    sent = dict.fromkeys(claimed, 0)
    going = list(claimed)
    try:
        while going:
            batches, finished = _pending_batches(going)
            outcomes.update(dict.fromkeys(finished, "done"))
            attempted: list[Delivery] = []
            try:
                for config_id in batches:
                    before = len(attempted)
                    outcome = _deliver_batch(
                        batches[config_id],
                        sender=sender,
                        timeout=timeout,
                        url_policy=url_policy,
                        budget=max_deliveries - sent[config_id],
                        stop_at=stop_at,
                        attempted=attempted,
                    )
                    sent[config_id] += len(attempted) - before
                    if outcome:
                        outcomes[config_id] = outcome
            finally:
                _record(attempted)
            going = [pk for pk in going if pk not in outcomes]
        again = [pk for pk, outcome in outcomes.items() if outcome == "more"]
        if again:
            get_dispatcher().schedule_deliveries(again)
    finally:
        PushConfig.objects.filter(pk__in=claimed, delivering_until=lease_until).update(
            delivering_until=None
        )
    _schedule_late_arrivals([pk for pk, outcome in outcomes.items() if outcome == "done"])
    return {pk: "wait" if outcome == "more" else outcome for pk, outcome in outcomes.items()}


def _schedule_late_arrivals(finished: list[int]) -> None:
    """Hand on deliveries committed after their config's last read here but before its
    lease was let go. Their sender's message woke a run that found the config leased
    and skipped it; without this they would wait for the sweep.

    Read after the release: a delivery committed later has a sender whose message (or
    the queued run it counted on) comes after the release, and that run claims it.
    """
    if not finished:
        return
    late = (
        Delivery.objects.filter(
            config_id__in=finished,
            status=Delivery.Status.PENDING,
            next_attempt_at__lte=timezone.now(),
        )
        .order_by()
        .values_list("config_id", flat=True)
        .distinct()
    )
    if late := sorted(late):
        get_dispatcher().schedule_deliveries(late)


def _deliver_batch(
    batch: list[Delivery],
    *,
    sender: Any,
    timeout: float,
    url_policy: URLPolicy,
    budget: int,
    stop_at: float,
    attempted: list[Delivery],
) -> str | None:
    """Attempt a config's batch in order; its outcome ("done", "wait", "more") if the
    config is finished for this run, None if its next batch should be read."""
    for delivery in batch:
        if budget <= 0 or time.monotonic() > stop_at:
            return "more"
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        if wait > 0:
            get_dispatcher().schedule_deliveries([delivery.config_id], countdown=wait)
            return "wait"
        retry_in = attempt(delivery, delivery.config, sender, timeout, url_policy)
        attempted.append(delivery)
        delivery_attempted.send(sender=Delivery, delivery=delivery)
        budget -= 1
        if retry_in is not None:
            get_dispatcher().schedule_deliveries([delivery.config_id], countdown=retry_in)
            return "wait"
    return None


#: PostgreSQL types of the VALUES rows in ``_update_from_values`` (a column of NULLs
#: would be text otherwise); SQLite takes the values as they are.
_PG_CASTS = ("integer", "text", "integer", "text", "timestamptz", "timestamptz", "timestamptz")


def _update_from_values(attempted: list[Delivery]) -> None:
    """One UPDATE ... FROM (VALUES ...) for all rows: Django's ``bulk_update`` builds a
    CASE per field and row, and compiling it cost more CPU than the POSTs (2 ms a row)."""
    fields = [Delivery._meta.get_field(name) for name in RECORDED_FIELDS]
    columns = [field.column for field in fields]
    if connection.vendor == "postgresql":
        row = "(" + ", ".join(f"%s::{cast}" for cast in ("bigint", *_PG_CASTS)) + ")"
    else:
        row = "(" + ", ".join(["%s"] * (len(columns) + 1)) + ")"
    params: list[Any] = []
    for delivery in attempted:
        params.append(delivery.pk)
        params.extend(
            field.get_db_prep_save(getattr(delivery, field.attname), connection) for field in fields
        )
    quote = connection.ops.quote_name
    table, pk = quote(Delivery._meta.db_table), quote(Delivery._meta.pk.column)
    names = ", ".join(quote(column) for column in columns)
    assignments = ", ".join(f"{quote(column)} = v.{quote(column)}" for column in columns)
    sql = (
        f"WITH v({pk}, {names}) AS (VALUES {', '.join([row] * len(attempted))}) "
        f"UPDATE {table} SET {assignments} FROM v WHERE {table}.{pk} = v.{pk}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _record(attempted: list[Delivery]) -> None:
    """Write the attempts' outcomes on their rows (one UPDATE), then tell of those given up."""
    if not attempted:
        return
    if connection.vendor in ("postgresql", "sqlite"):
        _update_from_values(attempted)
    else:
        for delivery in attempted:
            delivery.save(update_fields=RECORDED_FIELDS)
    for delivery in attempted:
        if delivery.status == Delivery.Status.FAILED:
            transaction.on_commit(
                partial(delivery_failed.send, sender=Delivery, delivery=delivery), robust=True
            )


@tracing.traced("a2a.webhook", tracing.delivery_attributes, kind="CLIENT")
def attempt(
    delivery: Delivery,
    config: PushConfig,
    sender: Any,
    timeout: float,
    url_policy: URLPolicy | None = None,
) -> float | None:
    """One delivery attempt: vet the URL, POST once, record the outcome on the row.

    Returns seconds to wait before retrying, or None to go on. The one place an attempt
    happens, so instrumentation wraps this function. The row is written by the caller
    (``_record``), with the other attempts of its batch.
    """
    delivery.attempts += 1
    delivery.updated_at = timezone.now()
    try:
        # Resolved and vetted again for every attempt (DNS may have changed since); the
        # sender connects only to these addresses.
        addresses = tuple(check_url(config.url, url_policy or policy.url_policy()))
    except UnresolvableHostError as exc:
        return _retry_later(delivery, None, str(exc))
    except UnsafeURLError as exc:
        return _give_up(delivery, None, f"refused: {exc}")
    result = sender.send(_request_for(delivery, config, addresses), timeout=timeout)
    if result.status is not None and 200 <= result.status < 300:
        delivery.last_status_code = result.status
        delivery.last_error = result.error
        delivery.status = Delivery.Status.DELIVERED
        delivery.delivered_at = delivery.updated_at
        return None
    error = result.error or f"HTTP {result.status}"
    retryable = result.status is None or result.status >= 500 or result.status in RETRYABLE_STATUSES
    if not retryable:
        return _give_up(delivery, result.status, error)
    return _retry_later(delivery, result.status, error)


def _retry_later(delivery: Delivery, status: int | None, error: str) -> float | None:
    """A failed attempt worth repeating: the seconds until the next one, unless none is left."""
    if delivery.attempts >= a2a_settings.WEBHOOK_MAX_ATTEMPTS:
        return _give_up(delivery, status, error)
    wait = backoff_seconds(delivery.attempts)
    delivery.last_status_code = status
    delivery.last_error = error[:2000]
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
    return wait


def _give_up(delivery: Delivery, status: int | None, error: str) -> None:
    delivery.status = Delivery.Status.FAILED
    delivery.last_status_code = status
    delivery.last_error = error[:2000]
    logger.warning("webhook delivery %s failed for good: %s", delivery.pk, error)
    return None


def redeliver(deliveries: Any) -> int:
    """Admin action: queue deliveries again from the first attempt."""
    config_ids = set()
    count = 0
    for delivery in deliveries.select_related("config"):
        if delivery.config is None:
            continue
        delivery.status = Delivery.Status.PENDING
        delivery.attempts = 0
        delivery.next_attempt_at = timezone.now()
        delivery.last_error = ""
        delivery.save()
        config_ids.add(delivery.config_id)
        count += 1
    transaction.on_commit(lambda: get_dispatcher().schedule_deliveries(sorted(config_ids)))
    return count


def due_configs(limit: int = 500) -> list[int]:
    """Configs with deliveries due now whose worker is not busy (for the sweep)."""
    now = timezone.now()
    return list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .filter(Q(config__delivering_until__isnull=True) | Q(config__delivering_until__lt=now))
        .order_by()  # the model's default ordering would defeat DISTINCT
        .values_list("config_id", flat=True)
        .distinct()[:limit]
    )


def sweep() -> dict[str, int]:
    """Hand configs with deliveries due (a retry whose time came, a lost job) to a worker."""
    due = due_configs()
    get_dispatcher().schedule_deliveries(due)
    return {"webhook_configs": len(due)}
