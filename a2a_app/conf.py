"""The ``A2A_APP`` settings dict: documented defaults, lazily resolved import strings.

Read settings as ``a2a_settings.NAME``. Values named in ``IMPORT_STRINGS`` are imported
on first access (a list of strings becomes a list of objects); an import error names
the setting. ``override_settings(A2A_APP=...)`` works because the cache is dropped on
Django's ``setting_changed`` signal.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

SETTING_NAME = "A2A_APP"

DEFAULTS: dict[str, Any] = {
    # --- the agent card -------------------------------------------------------------
    # The agent's name in its card.
    "NAME": "Django A2A agent",
    # What the agent does, for the people and agents reading its card.
    "DESCRIPTION": "An A2A agent served by a Django site.",
    # The agent's own version (not the protocol's).
    "VERSION": "1.0.0",
    # {"organization": "...", "url": "https://..."} or None.
    "PROVIDER": None,
    # A URL of documentation for the agent, or None.
    "DOCUMENTATION_URL": None,
    # A URL of the agent's icon, or None.
    "ICON_URL": None,
    # Absolute base URL for the interfaces in the card ("https://example.com"). None:
    # built from each request (scheme and host), which needs a correct ALLOWED_HOSTS
    # and, behind a proxy, SECURE_PROXY_SSL_HEADER.
    "PUBLIC_URL": None,
    # Media types the skills accept; a skill may narrow them.
    "DEFAULT_INPUT_MODES": ["text/plain", "application/json"],
    # Media types the skills produce; a skill may narrow them.
    "DEFAULT_OUTPUT_MODES": ["text/plain", "application/json"],
    # The card's securitySchemes, passed through as v1.0 ProtoJSON.
    "SECURITY_SCHEMES": {},
    # The card's securityRequirements, passed through as v1.0 ProtoJSON.
    "SECURITY_REQUIREMENTS": [],
    # AgentExtension objects ({"uri", "description", "required", "params"}); a required
    # one must be requested in the A2A-Extensions header.
    "EXTENSIONS": [],
    # Also describe the v0.3 interfaces and the v0.3 top-level fields (protocolVersion,
    # url, preferredTransport, additionalInterfaces...) so v0.3 clients discover us.
    # False: a pure v1.0 card (needed to sign it; v0.3 clients then cannot read it).
    "CARD_V03_COMPAT": True,
    # Cache-Control max-age of the agent card, in seconds.
    "CARD_MAX_AGE": 300,
    # How long a web process trusts its cached copy of the skills' change marker.
    "CARD_REVALIDATE_SECONDS": 5,
    # --- requests -------------------------------------------------------------------------
    # DRF authentication classes that identify the caller; anonymous when none does.
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.BasicAuthentication"],
    # Larger request bodies are refused (HTTP 413) before parsing.
    "MAX_REQUEST_BYTES": 1024 * 1024,
    # How deep JSON objects and arrays may nest in a request body (the envelope counts as
    # one level); deeper is a parse error (-32700, REST 400). Under protobuf's own limit
    # (100), so whatever is accepted a proto-based client can read back.
    "MAX_JSON_DEPTH": 64,
    # The callable that picks a skill for a new task: (message, metadata, skills) -> skill.
    "ROUTER": "a2a_app.skills.routing.route_message",
    # --- background skills (Celery) ---------------------------------------------------
    # The class that hands work to the background (runs, webhook deliveries, stream
    # wake-ups); the default sends a2a_app's Celery tasks by name on the site's Celery app.
    "DISPATCHER": "a2a_app.core.dispatch.CeleryDispatcher",
    # A blocking SendMessage to a background skill waits at most this long, then answers
    # with the task as it is (usually WORKING).
    "BLOCKING_TIMEOUT": 30,
    # While a worker runs a task it holds a lease, renewed on every progress report; a
    # lease that runs out means the worker died: the sweep retries or fails the task.
    "WORKER_LEASE_SECONDS": 300,
    # Runs of one turn of a task (a first one and retries after lost workers) before it
    # is FAILED.
    "MAX_RUN_ATTEMPTS": 2,
    # A SUBMITTED task not picked up after this long is handed to the broker again.
    "RESUBMIT_AFTER_SECONDS": 60,
    # --- push notifications -----------------------------------------------------------
    # Declare and serve push notifications (webhooks).
    "PUSH_NOTIFICATIONS": True,
    # Seconds one webhook POST may take.
    "WEBHOOK_TIMEOUT": 10,
    # Attempts of one delivery before it is given up (and delivery_failed is sent).
    "WEBHOOK_MAX_ATTEMPTS": 8,
    # Exponential backoff between attempts, with full jitter: base and ceiling, seconds.
    "WEBHOOK_BACKOFF_SECONDS": 2,
    "WEBHOOK_BACKOFF_MAX_SECONDS": 600,
    # The class that POSTs webhooks; "a2a_app.push.senders.OutboxSender" records them (tests).
    "WEBHOOK_SENDER": "a2a_app.push.senders.RequestsSender",
    # http:// webhook URLs are refused unless this is true (None: allowed when DEBUG).
    "WEBHOOK_ALLOW_HTTP": None,
    # Host names exempt from the SSRF guard (exact names, whatever they resolve to).
    "WEBHOOK_ALLOWED_HOSTS": [],
    # Networks (CIDR strings) whose addresses the SSRF guard lets through.
    "WEBHOOK_ALLOWED_NETWORKS": [],
    # Fernet keys, newest first, that encrypt webhook secrets; empty: derived from SECRET_KEY.
    "ENCRYPTION_KEYS": [],
    # --- streaming (SSE, under ASGI) ---------------------------------------------------
    # Redis URL for the pub/sub notifier that wakes streams; None: poll the database.
    "NOTIFIER_REDIS_URL": None,
    # How often the database notifier polls for news of the streamed tasks.
    "STREAM_POLL_SECONDS": 0.2,
    # An SSE comment line is sent when a stream has been idle this long.
    "STREAM_KEEPALIVE_SECONDS": 15,
    # Threads that run inline skills for streaming sends (per web process).
    "STREAM_INLINE_THREADS": 16,
    # --- conformance ------------------------------------------------------------------
    # Serve only the built-in "conformance" skill, for external conformance suites.
    "CONFORMANCE_MODE": False,
    # How long the conformance skill's "test-resubscribe" task works before completing.
    "CONFORMANCE_RESUBSCRIBE_SECONDS": 4,
}

IMPORT_STRINGS = ("AUTHENTICATION_CLASSES", "ROUTER", "WEBHOOK_SENDER", "DISPATCHER")


class A2ASettings:
    def __init__(self, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._cached: dict[str, Any] = {}

    @property
    def user_settings(self) -> dict[str, Any]:
        return getattr(settings, SETTING_NAME, {}) or {}

    def __getattr__(self, attr: str) -> Any:
        if attr not in self.defaults:
            raise AttributeError(f"Invalid {SETTING_NAME} setting: {attr!r}")
        if attr in self._cached:
            return self._cached[attr]
        value = self.user_settings.get(attr, self.defaults[attr])
        if attr in IMPORT_STRINGS:
            value = _perform_import(value, attr)
        self._cached[attr] = value
        return value

    def reload(self) -> None:
        self._cached.clear()


def _perform_import(value: Any, setting: str) -> Any:
    if isinstance(value, str):
        return _import(value, setting)
    if isinstance(value, (list, tuple)):
        return [_import(item, setting) if isinstance(item, str) else item for item in value]
    return value


def _import(path: str, setting: str) -> Any:
    try:
        return import_string(path)
    except ImportError as exc:
        raise ImportError(
            f"Could not import {path!r} for setting {SETTING_NAME}[{setting!r}]: {exc}"
        ) from exc


a2a_settings = A2ASettings(DEFAULTS)


def _reload(*, setting: str, **kwargs: Any) -> None:
    if setting == SETTING_NAME:
        a2a_settings.reload()


setting_changed.connect(_reload)
