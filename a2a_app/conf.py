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
    # The agent's name in its card. This and the five below are defaults: a field filled
    # in the admin's agent profile (docs/admin.md) replaces its setting.
    "NAME": "Django A2A agent",
    # What the agent does, for the people and agents reading its card (agent profile).
    "DESCRIPTION": "An A2A agent served by a Django site.",
    # The agent's own version, not the protocol's (agent profile).
    "VERSION": "1.0.0",
    # {"organization": "...", "url": "https://..."} or None (agent profile).
    "PROVIDER": None,
    # A URL of documentation for the agent, or None (agent profile).
    "DOCUMENTATION_URL": None,
    # A URL of the agent's icon, or None (agent profile).
    "ICON_URL": None,
    # Absolute base URL for the interfaces in the card ("https://example.com"). None:
    # built from each request (scheme and host), which needs a correct ALLOWED_HOSTS
    # and, behind a proxy, SECURE_PROXY_SSL_HEADER.
    "PUBLIC_URL": None,
    # Media types the skills accept; a skill may narrow them.
    "DEFAULT_INPUT_MODES": ["text/plain", "application/json"],
    # Media types the skills produce; a skill may narrow them.
    "DEFAULT_OUTPUT_MODES": ["text/plain", "application/json"],
    # The card's securitySchemes as v1.0 ProtoJSON, replacing the ones generated from
    # AUTHENTICATION_CLASSES. None: generated.
    "SECURITY_SCHEMES": None,
    # The card's securityRequirements as v1.0 ProtoJSON, replacing the generated ones
    # (one per scheme when ALLOW_ANONYMOUS is false, none otherwise). None: generated.
    # Non-empty: calls without credentials are refused, whatever ALLOW_ANONYMOUS says.
    "SECURITY_REQUIREMENTS": None,
    # AgentExtension objects ({"uri", "description", "required", "params"}); a required
    # one must be requested in the A2A-Extensions header.
    "EXTENSIONS": [],
    # Also describe the v0.3 interfaces and the v0.3 top-level fields (protocolVersion,
    # url, preferredTransport, additionalInterfaces...) so v0.3 clients discover us.
    # False: a pure v1.0 card (v0.3 clients then cannot read it). A signed card's
    # signatures cover its v1.0 fields only, which is what v1.0 verifiers rebuild.
    "CARD_V03_COMPAT": True,
    # EC P-256 keys that sign the agent card, newest first: [{"kid": "...",
    # "private_key": "<PEM>" or "file:/path/key.pem"}]. Each key signs (ES256) and is
    # published at /.well-known/jwks.json; keep two during a rotation. Make one with
    # `manage.py a2a_card_keys generate`. Empty: the card is not signed.
    "CARD_SIGNING_KEYS": [],
    # Offer the extended agent card (GetExtendedAgentCard: the card with every skill the
    # signed-in caller may use) and declare capabilities.extendedAgentCard. None: when
    # some enabled skill is not public and AUTHENTICATION_CLASSES is set; True/False:
    # always / never.
    "EXTENDED_CARD": None,
    # Cache-Control max-age of the agent card, in seconds.
    "CARD_MAX_AGE": 300,
    # How long a web process trusts its cached copy of the change marker (moved by
    # saving a skill or the agent profile).
    "CARD_REVALIDATE_SECONDS": 5,
    # Whether the Skill row made for a newly registered @skill handler (by migrate, or the
    # first request after a deploy) is enabled, so the skill is served at once. False: the
    # row is made disabled and the owner enables it in the admin.
    "NEW_SKILLS_ENABLED": True,
    # --- the pages for people (a2a_app.pages.urls, opt-in) ---------------------------
    # The agent page has a console that talks to the agent from the visitor's browser
    # (anonymous calls, or the API key the visitor types in). False: no console.
    "AGENT_PAGE_CONSOLE": True,
    # --- requests -------------------------------------------------------------------------
    # DRF authentication classes that identify the caller, declared in the card. HTTP
    # Basic is opt-in: "a2a_app.authentication.BasicAuthentication" (guarded against
    # password guessing).
    "AUTHENTICATION_CLASSES": ["a2a_app.authentication.ApiKeyAuthentication"],
    # The request header that carries an API key (ApiKeyAuthentication).
    "API_KEY_HEADER": "X-API-Key",
    # How long a web process reuses an API key's row once read (seconds; 0: read it on
    # every request). A key revoked or a user deactivated elsewhere (another worker, the
    # a2a_keys command) is still accepted by this process until then; in the process that
    # made the change, and for expiry, at once.
    "API_KEY_CACHE_SECONDS": 5,
    # Calls without credentials are served as the anonymous caller. False: they get
    # HTTP 401 with WWW-Authenticate, and the card requires one of its schemes.
    "ALLOW_ANONYMOUS": True,
    # Failed HTTP Basic sign-ins per client address and per user name before further
    # attempts are refused (HTTP 429, before any password is hashed); 0: no limit.
    "BASIC_AUTH_MAX_FAILURES": 10,
    # How long those failures are remembered, and the Retry-After of a refusal.
    "BASIC_AUTH_LOCKOUT_SECONDS": 300,
    # Larger request bodies are refused (HTTP 413) before parsing.
    "MAX_REQUEST_BYTES": 1024 * 1024,
    # How deep JSON objects and arrays may nest in a request body (the envelope counts as
    # one level); deeper is a parse error (-32700, REST 400). Under protobuf's own limit
    # (100), so whatever is accepted a proto-based client can read back.
    "MAX_JSON_DEPTH": 64,
    # The callable that picks a skill for a new task: (message, metadata, skills) -> skill.
    "ROUTER": "a2a_app.skills.routing.route_message",
    # How the text of a message is read for its language (docs/language.md): a function
    # (text, candidate codes) -> {code: score}. The default counts marker words of English
    # and German and needs no model; "a2a_app.skills.language.lingua_scores" uses lingua
    # (pip install lingua-language-detector) for other languages.
    "LANGUAGE_DETECTOR": "a2a_app.skills.language.lexical_scores",
    # The default router's threshold (docs/skills.md, "Which skill gets a message"): a
    # message whose best skill scores less gets the short "what I can do" answer and no
    # task. A word only one skill has scores 1 (name, id, tag), 0.7 (a form field's name,
    # label or choice) or 0.6 (an example); a word several skills share counts less, one
    # that every skill has almost nothing. 0.5: one distinguishing word is enough.
    "ROUTING_MIN_SCORE": 0.5,
    # A handler's ctx.history holds at most this many earlier messages of its task, the
    # latest ones: a follow-up loads no more, however long the task. Also the history a
    # SendMessage answer carries when the client sets no historyLength.
    "HANDLER_HISTORY_MESSAGES": 50,
    # A task with this many messages takes no more follow-ups (UnsupportedOperationError:
    # start a new task in the same context). None: no limit.
    "MAX_TASK_MESSAGES": 1000,
    # --- limits (docs/security.md, "Limits and rate limits") ---------------------------
    # Rate limits per caller (an authenticated caller's scope; an anonymous caller's
    # client address, IPv6 by /64): {rule: rate}. A rule is an operation name
    # ("SendMessage"), "default" (every operation without a rule of its own), or
    # "skill:<id>" (new tasks of that skill, counted after routing). A rate is "N/unit"
    # (s, min, hour, day; "10/5min" too), a list of them, or None (no limit). Over it:
    # HTTP 429 with Retry-After, JSON-RPC -32000, before anything is written.
    "RATE_LIMITS": {
        "default": "600/min",
        "SendMessage": "120/min",
        "SendStreamingMessage": "60/min",
    },
    # The Django cache (alias) that counts requests. A per-process cache (LocMem, the
    # default "default") counts per process: use a shared one (Redis, Memcached) when
    # the site runs several processes.
    "RATE_LIMIT_CACHE": "default",
    # The request header that carries the client's address when the site is behind a
    # proxy ("X-Forwarded-For"); None: the address of the connection (REMOTE_ADDR).
    # Set it only behind a proxy that sets it, or clients choose their own address.
    "CLIENT_IP_HEADER": None,
    # How many proxies of yours append to CLIENT_IP_HEADER: the client is the address
    # that many entries from the right (what the last proxy of yours saw).
    "CLIENT_IP_PROXIES": 1,
    # Anonymous callers may create tasks. False: a new message from an anonymous caller
    # is refused with HTTP 401 and WWW-Authenticate (other operations are unchanged).
    "ANONYMOUS_TASK_CREATION": True,
    # Open SSE streams one caller may hold at once, per web process (HTTP 429 over it).
    "MAX_STREAMS_PER_CALLER": 10,
    # Parts one message may carry.
    "MAX_MESSAGE_PARTS": 100,
    # Characters of one text part.
    "MAX_TEXT_PART_CHARS": 256 * 1024,
    # Bytes of one message, as JSON (files and data parts included).
    "MAX_MESSAGE_BYTES": 1024 * 1024,
    # historyLength larger than this (or absent) is read as this: the newest messages.
    # With MAX_MESSAGE_BYTES it bounds the history one task answers with.
    "MAX_HISTORY_LENGTH": 100,
    # Push notification configs one task may have (a message's config counts too).
    "MAX_PUSH_CONFIGS_PER_TASK": 10,
    # A ListTasks page stops before the task that would take it past this many bytes
    # of history and artifacts (nextPageToken goes on from there); the first task of a
    # page is always answered, however large.
    "MAX_PAGE_BYTES": 4 * 1024 * 1024,
    # --- skills declared as forms (docs/skills.md) ----------------------------------------
    # The class (or object) that reads form fields out of a message's text: its
    # interpret(text, form_class, *, asked, known, language, now) returns {field: value}.
    # a2a_app.forms.llm.JSONCompletionInterpreter adapts a language model.
    "INTERPRETER": "a2a_app.forms.text.DeterministicInterpreter",
    # Describe each form skill's fields in the card: an extension in
    # capabilities.extensions (JSON Schema per skill) and a sentence in its description.
    "CARD_FORM_INPUT": True,
    # --- background skills (Celery) ---------------------------------------------------
    # The class that hands work to the background (runs, webhook deliveries, stream
    # wake-ups); the default sends a2a_app's Celery tasks by name on the site's Celery app.
    "DISPATCHER": "a2a_app.core.dispatch.CeleryDispatcher",
    # A blocking SendMessage to a background skill waits at most this long, then answers
    # with the task as it is (usually WORKING).
    "BLOCKING_TIMEOUT": 30,
    # While a worker runs a task it holds a lease, renewed by a heartbeat; a lease that
    # runs out means the worker died: the sweep reruns the task (a rerun_safe skill) or
    # fails it. Keep it a few heartbeats long.
    "WORKER_LEASE_SECONDS": 15,
    # How often the heartbeat of a running handler renews its task's lease (0: never,
    # then only progress reports and ctx.is_canceled() do).
    "WORKER_HEARTBEAT_SECONDS": 5,
    # Runs of one turn of a task (a first one and reruns after lost workers, for skills
    # declared rerun_safe) before it is FAILED.
    "MAX_RUN_ATTEMPTS": 2,
    # A SUBMITTED task not picked up after this long is handed to the broker again.
    "RESUBMIT_AFTER_SECONDS": 60,
    # --- retention (docs/operations.md, "Retention") ----------------------------------
    # Days a terminal task (completed, failed, canceled, rejected) is kept after the status
    # that ended it; then the sweep deletes it with its messages, artifacts, events, push
    # configs and delivery log. None: kept forever (the default: deleting is for good,
    # and how long a site must or may keep its callers' conversations is its decision).
    "RETENTION_DAYS": None,
    # Days an input-required or auth-required task may wait for its caller before it is
    # deleted the same way (counted from the question). None: kept until it ends.
    "RETENTION_INTERRUPTED_DAYS": None,
    # Tasks deleted per transaction: each batch locks only its own rows, briefly.
    "RETENTION_BATCH_SIZE": 500,
    # Seconds one sweep run spends deleting at most (the rest waits for the next run).
    "RETENTION_SWEEP_SECONDS": 5,
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
    # Hosts exempt from the SSRF guard: host names (exact names, whatever they resolve
    # to) and IP addresses ("127.0.0.1", "::1" or "[::1]": exactly that address).
    "WEBHOOK_ALLOWED_HOSTS": [],
    # Networks (CIDR strings) whose addresses the SSRF guard lets through.
    "WEBHOOK_ALLOWED_NETWORKS": [],
    # Path of a PEM bundle of the certificate authorities that webhook receivers'
    # certificates are checked against instead of certifi's (receivers behind a private
    # CA); None: the public ones. Certificates are always checked.
    "WEBHOOK_CA_BUNDLE": None,
    # Also send a config's token in the X-A2A-Notification-Token header, as v0.3 clients
    # and the A2A SDK expect. Every webhook to a config with a token is signed with it
    # (webhook-signature); False keeps the token a signing key that never travels.
    "WEBHOOK_TOKEN_HEADER": True,
    # Fernet keys, newest first, that encrypt webhook secrets; empty: derived from SECRET_KEY.
    "ENCRYPTION_KEYS": [],
    # --- streaming (SSE, under ASGI) ---------------------------------------------------
    # Redis URL for the pub/sub notifier that wakes streams. None: LISTEN/NOTIFY on
    # PostgreSQL (one listening connection per web process), polling on other databases.
    "NOTIFIER_REDIS_URL": None,
    # Seconds one call to the notifier's Redis may take (connecting included).
    "REDIS_TIMEOUT": 0.5,
    # Seconds handing one job to the Celery broker may take before the request goes on
    # without it (the sweep hands the task over again).
    "BROKER_PUBLISH_TIMEOUT": 1.0,
    # After Redis or the broker failed or timed out, they are skipped this long (streams
    # poll the database meanwhile) before they are tried again.
    "OUTAGE_RETRY_SECONDS": 10,
    # How often the polling notifier asks for news of the streamed tasks (on SQLite; on
    # PostgreSQL and with Redis only while their connection is down).
    "STREAM_POLL_SECONDS": 0.2,
    # An SSE comment line is sent when a stream has been idle this long.
    "STREAM_KEEPALIVE_SECONDS": 15,
    # Threads that run inline skills for streaming sends (per web process).
    "STREAM_INLINE_THREADS": 16,
    # --- form skills: reading plain text -------------------------------------------------
    # The region (ISO 3166 code, "DE") a phone number without "+" or "00" is read in.
    # None: the country of LANGUAGE_CODE ("de-at" -> AT, "de" -> DE), then Germany for
    # German text; numbers found are written as E.164.
    "PHONE_REGION": None,
    # --- the admin's activity page (docs/admin.md) ------------------------------------
    # The days the page shows when none are chosen (it offers 7, 14, 30 and 90).
    "ACTIVITY_DAYS": 14,
    # --- observability (docs/observability.md) ---------------------------------------
    # Count requests, task transitions, handler and queue times, streams, webhook
    # attempts and sweep recoveries in Prometheus metrics (pip install
    # "django-a2a-app[metrics]"), served by a2a_app.metrics.urls. Read when the app
    # starts. Several processes (uvicorn --workers, Celery): set the environment variable
    # PROMETHEUS_MULTIPROC_DIR to a directory they share, emptied before they start.
    "METRICS_ENABLED": False,
    # A bearer token that may read the metrics (Prometheus: authorization.credentials).
    # Keep it out of the code (read it from the environment). None: no token.
    "METRICS_TOKEN": None,
    # Networks (CIDR strings) whose clients may read the metrics without a token, e.g.
    # ["127.0.0.1/32", "10.0.0.0/8"]; the client address is the one rate limits use
    # (CLIENT_IP_HEADER). Neither this nor a token: only superusers signed in may.
    "METRICS_ALLOWED_NETWORKS": [],
    # The log event of each task transition (logger "a2a_app.transitions") also carries
    # the text of the status message that came with it. Off by default: what users and
    # agents write stays out of the logs.
    "LOG_MESSAGE_TEXT": False,
    # --- conformance ------------------------------------------------------------------
    # Serve only the built-in "conformance" skill, for external conformance suites.
    "CONFORMANCE_MODE": False,
    # How long the conformance skill's "test-resubscribe" task works before completing.
    "CONFORMANCE_RESUBSCRIBE_SECONDS": 4,
}

IMPORT_STRINGS = (
    "AUTHENTICATION_CLASSES",
    "ROUTER",
    "LANGUAGE_DETECTOR",
    "WEBHOOK_SENDER",
    "DISPATCHER",
    "INTERPRETER",
)


class A2ASettings:
    def __init__(self, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._cached: set[str] = set()

    @property
    def user_settings(self) -> dict[str, Any]:
        return getattr(settings, SETTING_NAME, {}) or {}

    def __getattr__(self, attr: str) -> Any:
        # Called only for a setting not read yet: its value is then kept as an instance
        # attribute, which later reads find without calling this (a request reads
        # settings a few dozen times).
        if attr not in self.defaults:
            raise AttributeError(f"Invalid {SETTING_NAME} setting: {attr!r}")
        value = self.user_settings.get(attr, self.defaults[attr])
        if attr in IMPORT_STRINGS:
            value = _perform_import(value, attr)
        self._cached.add(attr)
        setattr(self, attr, value)
        return value

    def reload(self) -> None:
        for attr in list(self._cached):
            self.__dict__.pop(attr, None)
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
