"""Push notifications: webhook configs, and delivering the task's events to them.

Delivery guarantees: every event of a task gets a ``Delivery`` row per config in the
same transaction that records the event, so nothing is lost if the process dies. A
worker delivers one config's events strictly in order (``deliver``); a retryable failure
(network error, 408, 425, 429, 5xx) waits with exponential backoff and jitter and holds
back the later events of that config; other 4xx and SSRF refusals fail that delivery
for good and the next one proceeds. Every attempt is recorded on the row.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import random
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from . import store
from .auth import Caller
from .conf import a2a_settings
from .models import Delivery, PushConfig, Task
from .protocol import v03
from .protocol.errors import (
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotFoundError,
)
from .protocol.types import (
    ListPushConfigsRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
    ends_stream,
)
from .protocol.versions import V0_3
from .signals import delivery_failed
from .ssrf import UnresolvableHostError, UnsafeURLError, URLPolicy, check_url
from .updates import TaskUpdate
from .webhooks import WebhookRequest

logger = logging.getLogger("a2a_app.push")

JSON = dict[str, Any]
RETRYABLE_STATUSES = frozenset({408, 425, 429})
CONTENT_TYPE = "application/a2a+json"


# --- policy -------------------------------------------------------------------------------


def url_policy() -> URLPolicy:
    allow_http = a2a_settings.WEBHOOK_ALLOW_HTTP
    if allow_http is None:
        allow_http = settings.DEBUG
    networks = [ipaddress.ip_network(n) for n in a2a_settings.WEBHOOK_ALLOWED_NETWORKS]
    if a2a_settings.CONFORMANCE_MODE:
        # Conformance suites run their webhook receiver on the same machine.
        networks += [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
        allow_http = True
    return URLPolicy(
        allow_http=allow_http,
        allowed_hosts=frozenset(h.lower() for h in a2a_settings.WEBHOOK_ALLOWED_HOSTS),
        allowed_networks=tuple(networks),
    )


def require_push() -> None:
    if not a2a_settings.PUSH_NOTIFICATIONS:
        raise PushNotificationNotSupportedError(
            "This agent does not send push notifications (capabilities.pushNotifications)"
        )


def validate_url(url: str, field: str) -> None:
    """Refuse a webhook URL the server must never call; the error names ``field``.

    A host name that does not resolve now is accepted: DNS may be down or the receiver
    not yet deployed. Every delivery vets the URL again, and one that still does not
    resolve then is a failed attempt, retried with backoff.
    """
    try:
        check_url(url, url_policy())
    except UnresolvableHostError:
        pass
    except UnsafeURLError as exc:
        raise InvalidParamsError.for_field(field, str(exc)) from None


# --- configs ----------------------------------------------------------------------------


def new_config(request: PushNotificationConfig, field_prefix: str, version: str) -> PushConfig:
    """An unsaved config from a validated request (its URL checked against SSRF)."""
    require_push()
    validate_url(request.url, f"{field_prefix}url")
    return PushConfig(
        config_id=request.id or str(uuid.uuid4()),
        url=request.url,
        token=request.token,
        auth_scheme=request.auth_scheme,
        credentials=request.credentials,
        protocol_version=version,
    )


def config_to_wire(config: PushConfig, *, redact: bool) -> JSON:
    """The v1.0 ``TaskPushNotificationConfig``; reads leave out the secrets (spec A19)."""
    out: JSON = {"id": config.config_id, "taskId": str(config.task_id), "url": config.url}
    if config.token and not redact:
        out["token"] = config.token
    if config.auth_scheme:
        out["authentication"] = {"scheme": config.auth_scheme}
        if config.credentials and not redact:
            out["authentication"]["credentials"] = config.credentials
    return out


def create_config(request: PushNotificationConfig, caller: Caller, version: str = "1.0") -> JSON:
    require_push()
    with transaction.atomic():
        task = store.get_task(request.task_id, caller, for_update=True)
        config = new_config(request, "", version)
        existing = PushConfig.objects.filter(task=task, config_id=config.config_id).first()
        if existing is not None:
            # Re-using an id replaces the config; undelivered events go to the new URL.
            for name in ("url", "token", "auth_scheme", "credentials", "protocol_version"):
                setattr(existing, name, getattr(config, name))
            existing.save()
            Delivery.objects.filter(config=existing, status=Delivery.Status.PENDING).update(
                url=existing.url
            )
            return config_to_wire(existing, redact=False)
        update = TaskUpdate(task)
        update.add_push_config(config)
        update.save()
        return config_to_wire(config, redact=False)


def _config_or_not_found(task: Task, config_id: str) -> PushConfig:
    config = PushConfig.objects.filter(task=task, config_id=config_id).first()
    if config is None:
        raise TaskNotFoundError(
            f"Push notification config {config_id!r} not found for task {task.pk}",
            metadata={"taskId": str(task.pk), "configId": config_id},
        )
    return config


def get_config(request: PushConfigIdRequest, caller: Caller) -> JSON:
    require_push()
    task = store.get_task(request.task_id, caller)
    return config_to_wire(_config_or_not_found(task, request.id), redact=True)


def list_configs(request: ListPushConfigsRequest, caller: Caller) -> JSON:
    require_push()
    task = store.get_task(request.task_id, caller)
    queryset = PushConfig.objects.filter(task=task).order_by("pk")
    if request.page_token:
        try:
            after = int(request.page_token)
        except ValueError:
            raise InvalidParamsError.for_field("pageToken", "is not a valid page token") from None
        queryset = queryset.filter(pk__gt=after)
    configs = list(queryset[: request.page_size + 1] if request.page_size else queryset)
    next_token = ""
    if request.page_size and len(configs) > request.page_size:
        configs = configs[: request.page_size]
        next_token = str(configs[-1].pk)
    result: JSON = {"configs": [config_to_wire(c, redact=True) for c in configs]}
    if next_token:
        result["nextPageToken"] = next_token
    return result


def delete_config(request: PushConfigIdRequest, caller: Caller) -> None:
    """Idempotent: deleting a config that is gone succeeds (its task must exist)."""
    require_push()
    with transaction.atomic():
        task = store.get_task(request.task_id, caller, for_update=True)
        config = PushConfig.objects.filter(task=task, config_id=request.id).first()
        if config is None:
            return None
        Delivery.objects.filter(config=config, status=Delivery.Status.PENDING).update(
            status=Delivery.Status.CANCELED, last_error="config deleted"
        )
        config.delete()
        Task.objects.filter(pk=task.pk).update(push_config_count=F("push_config_count") - 1)
    return None


# --- delivery -----------------------------------------------------------------------------


def schedule_deliveries(config_ids: list[int], countdown: float = 0) -> None:
    """Hand configs with pending deliveries to a worker; never raises (broker down: the
    sweep picks them up again, because the rows are already committed)."""
    from .tasks import deliver_webhooks

    for config_id in config_ids:
        try:
            deliver_webhooks.apply_async((config_id,), countdown=countdown)
        except Exception:
            logger.warning("could not enqueue deliveries of push config %s", config_id)


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
    headers = {
        "Content-Type": CONTENT_TYPE,
        # Stable per event and config: receivers deduplicate redeliveries on it.
        "X-A2A-Event-Id": f"{delivery.task_id}:{delivery.event.sequence}",
        "X-A2A-Config-Id": config.config_id,
    }
    if config.auth_scheme:
        credentials = f" {config.credentials}" if config.credentials else ""
        headers["Authorization"] = f"{config.auth_scheme}{credentials}"
    if config.token:
        headers["X-A2A-Notification-Token"] = config.token
    event = delivery.event.body
    if config.protocol_version == V0_3:
        # Registered by a v0.3 client: it gets v0.3 shapes (kind, lowercase states, final).
        event = v03.stream_response_to_v03(event, final=ends_stream(event))
    body = json.dumps(event, separators=(",", ":")).encode()
    return WebhookRequest(url=config.url, body=body, headers=headers, addresses=addresses)


def deliver(config_id: int, *, sender: Any = None, max_deliveries: int = 1000) -> str:
    """Deliver a config's pending events in order until done or a retry must wait.

    Returns what happened ("done", "busy", "wait", "gone"). Safe to call concurrently:
    a config is claimed with a short lease so only one worker posts its events.
    """
    sender = sender or a2a_settings.WEBHOOK_SENDER()
    timeout = a2a_settings.WEBHOOK_TIMEOUT
    now = timezone.now()
    claimed = PushConfig.objects.filter(
        Q(delivering_until__isnull=True) | Q(delivering_until__lt=now), pk=config_id
    ).update(delivering_until=now + timedelta(seconds=timeout * 3 + 30))
    if not claimed:
        return "busy" if PushConfig.objects.filter(pk=config_id).exists() else "gone"
    try:
        for _ in range(max_deliveries):
            config = PushConfig.objects.filter(pk=config_id).first()
            if config is None:
                return "gone"
            delivery = (
                Delivery.objects.select_related("event")
                .filter(config=config, status=Delivery.Status.PENDING)
                .order_by("event_id")
                .first()
            )
            if delivery is None:
                return "done"
            wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
            if wait > 0:
                schedule_deliveries([config_id], countdown=wait)
                return "wait"
            retry_in = _attempt(delivery, config, sender, timeout)
            if retry_in is not None:
                schedule_deliveries([config_id], countdown=retry_in)
                return "wait"
        schedule_deliveries([config_id])
        return "wait"
    finally:
        PushConfig.objects.filter(pk=config_id).update(delivering_until=None)


def _attempt(delivery: Delivery, config: PushConfig, sender: Any, timeout: float) -> float | None:
    """One POST. Returns seconds to wait before retrying, or None to go on."""
    delivery.attempts += 1
    try:
        # Again now: DNS may have changed since. The sender connects to these addresses.
        addresses = tuple(check_url(config.url, url_policy()))
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
        delivery.save()
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
    delivery.save()
    return wait


def _give_up(delivery: Delivery, status: int | None, error: str) -> None:
    delivery.status = Delivery.Status.FAILED
    delivery.last_status_code = status
    delivery.last_error = error[:2000]
    delivery.save()
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
    transaction.on_commit(lambda: schedule_deliveries(sorted(config_ids)))
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
