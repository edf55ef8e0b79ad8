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
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from a2a_app import tracing
from a2a_app.conf import a2a_settings
from a2a_app.core.dispatch import get_dispatcher
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
#: Pending deliveries of a config read in one query (then sent one by one, in order).
BATCH_SIZE = 50
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
    """Deliver a config's pending events in order until done or a retry must wait.

    Returns what happened ("done", "busy", "wait", "gone"). Safe to call concurrently:
    a config is claimed with a short lease so only one worker posts its events.
    """
    # Once per process, not per delivery: the sender keeps its connections open.
    sender = sender or shared_sender(a2a_settings.WEBHOOK_SENDER)
    timeout = a2a_settings.WEBHOOK_TIMEOUT
    url_policy = policy.url_policy()
    now = timezone.now()
    claimed = PushConfig.objects.filter(
        Q(delivering_until__isnull=True) | Q(delivering_until__lt=now), pk=config_id
    ).update(delivering_until=now + timedelta(seconds=timeout * 3 + 30))
    if not claimed:
        return "busy" if PushConfig.objects.filter(pk=config_id).exists() else "gone"
    try:
        sent = 0
        while sent < max_deliveries:
            # The next pending events with their config, read again for each batch (so a
            # replaced config applies from the next batch on); an empty batch: all done.
            batch = list(
                Delivery.objects.select_related("event", "config")
                .filter(config_id=config_id, status=Delivery.Status.PENDING)
                .order_by("event_id")[: min(BATCH_SIZE, max_deliveries - sent)]
            )
            if not batch:
                return "done"
            for delivery in batch:
                wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
                if wait > 0:
                    get_dispatcher().schedule_deliveries([config_id], countdown=wait)
                    return "wait"
                retry_in = attempt(delivery, delivery.config, sender, timeout, url_policy)
                delivery_attempted.send(sender=Delivery, delivery=delivery)
                sent += 1
                if retry_in is not None:
                    get_dispatcher().schedule_deliveries([config_id], countdown=retry_in)
                    return "wait"
        get_dispatcher().schedule_deliveries([config_id])
        return "wait"
    finally:
        PushConfig.objects.filter(pk=config_id).update(delivering_until=None)


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
    happens, so instrumentation wraps this function.
    """
    delivery.attempts += 1
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
        delivery.delivered_at = timezone.now()
        delivery.save(update_fields=RECORDED_FIELDS)
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
    delivery.save(update_fields=RECORDED_FIELDS)
    return wait


def _give_up(delivery: Delivery, status: int | None, error: str) -> None:
    delivery.status = Delivery.Status.FAILED
    delivery.last_status_code = status
    delivery.last_error = error[:2000]
    delivery.save(update_fields=RECORDED_FIELDS)
    logger.warning("webhook delivery %s failed for good: %s", delivery.pk, error)
    transaction.on_commit(
        lambda: delivery_failed.send(sender=Delivery, delivery=delivery), robust=True
    )
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
