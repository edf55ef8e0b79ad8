"""Push notification configs: the four config operations, and a config sent with a message.

A config's URL is vetted by the SSRF guard (:mod:`a2a_app.push.policy`) when it is
created; secrets are stored encrypted and never read back (reads redact them).
Delivering the task's events to the configs is :mod:`a2a_app.push.delivery`'s job.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.db.models import F

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import limits, store
from a2a_app.core.updates import TaskUpdate
from a2a_app.models import Delivery, PushConfig, Task
from a2a_app.protocol.errors import (
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotFoundError,
)
from a2a_app.protocol.params import (
    ListPushConfigsRequest,
    PushConfigIdRequest,
    PushNotificationConfig,
)
from a2a_app.push.policy import validate_url

JSON = dict[str, Any]


def require_push() -> None:
    if not a2a_settings.PUSH_NOTIFICATIONS:
        raise PushNotificationNotSupportedError(
            "This agent does not send push notifications (capabilities.pushNotifications)"
        )


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
        limits.check_push_config_count(task.push_config_count)
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
