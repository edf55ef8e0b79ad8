"""Settings of the demo site, read from the environment with django-environ.

Every value has a default that runs the demo with no external service (SQLite next to
this project). See ``.env.example`` for the variables; a ``.env`` file is read if present.

The defaults are a local demo's: DEBUG on and a published SECRET_KEY. With
``DEBUG=false`` (production) the published key is refused at start, and HTTPS, HSTS and
secure cookies are on unless the environment says otherwise (``manage.py check
--deploy`` is clean; docs/security.md, "Secrets and deployment").
"""

import os
import tempfile
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from a2a_app.crypto import PUBLIC_SECRET_KEYS

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# On for `make run` and the demo's tests; a deployment sets DEBUG=false.
DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="insecure-demo-key-change-me-in-production")
if not DEBUG and (not SECRET_KEY or SECRET_KEY in PUBLIC_SECRET_KEYS):
    # Published in this repository: whoever knows it signs sessions and, without
    # A2A_ENCRYPTION_KEYS, reads the webhook secrets encrypted with a key derived from it.
    raise ImproperlyConfigured(
        "SECRET_KEY is the demo's published default (or empty) and DEBUG is off: set "
        "SECRET_KEY to a long random value of your own, e.g. python -c 'import secrets; "
        "print(secrets.token_urlsafe(50))', and A2A_ENCRYPTION_KEYS (docs/security.md)."
    )
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CONFORMANCE_MODE = env.bool("A2A_CONFORMANCE", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "a2a_app",
    "skills",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "a2a_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "a2a_site.wsgi.application"
ASGI_APPLICATION = "a2a_site.asgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db["OPTIONS"] = {
        # Writers queue instead of failing with "database is locked"; WAL lets readers
        # run beside one writer (the web server and, later, a worker).
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not memory, so that a server started by the integration tests sees it; one
    # per test process, so that parallel runs don't share it.
    _db["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"a2a-test-{os.getpid()}.sqlite3")}
elif _db["ENGINE"] in ("django.db.backends.postgresql", "django.db.backends.postgresql_psycopg2"):
    _db["ENGINE"] = "django.db.backends.postgresql"
    _db.setdefault("OPTIONS", {})
    # Under ASGI every request runs in a new thread; without a pool each one would open
    # its own connection. The pool needs psycopg 3 and CONN_MAX_AGE = 0. A WSGI server
    # whose workers are processes or long-lived threads (gunicorn sync or gthread, uWSGI)
    # may keep one connection per worker instead, DB_CONN_MAX_AGE seconds (never under
    # ASGI): a request then neither takes a connection from the pool nor hands it back,
    # ~0.08 ms of a ~1.4 ms SendMessage (docs/operations.md).
    _db["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=0)
    if not _db["CONN_MAX_AGE"]:
        _db["OPTIONS"]["pool"] = {
            "min_size": env.int("DB_POOL_MIN", default=2),
            "max_size": env.int("DB_POOL_MAX", default=20),
            "timeout": 10,
        }
    # Prepared statements for the statements a2a_app binds on the server (its task
    # writes and GetTask reads, see a2a_app/core/rows.py): PostgreSQL plans them once per
    # connection, not on every request. Django turns them off by default for the sake of
    # PgBouncer in transaction mode before 1.21: DB_PREPARE_THRESHOLD=0 turns them off.
    _db["OPTIONS"]["prepare_threshold"] = env.int("DB_PREPARE_THRESHOLD", default=5) or None

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- HTTPS and cookies ------------------------------------------------------------------------
# Production (DEBUG off) defaults: HTTPS only, HSTS for a year, cookies sent over HTTPS only.
# Behind a proxy that terminates TLS, set SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https
# (and make the proxy set that header, overwriting the client's), or every request redirects.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
# Asking browsers to preload HSTS is a commitment that is slow to undo: opt in.
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
_proxy_header = env.list("SECURE_PROXY_SSL_HEADER", default=[])
if _proxy_header and len(_proxy_header) != 2:
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER: a header and a value, e.g. HTTP_X_FORWARDED_PROTO,https"
    )
SECURE_PROXY_SSL_HEADER = tuple(_proxy_header) or None
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# security.W021 says only that HSTS preloading is off, which is the choice above.
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
# The languages the restaurant answers in: a guest's message is read as one of these
# (docs/language.md), and every answer is translated into it.
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Berlin")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# The admin's static files are served by Django's static handlers wrapped around the
# application in asgi.py and wsgi.py (no collectstatic, no web server in front). Every
# middleware here is async-capable, so under ASGI requests don't hop between threads.

# A2A_LOG_JSON=1: one JSON object per line (a2a_app.logging.JsonFormatter), for log
# shippers; each task transition is an event with its ids, skill, caller and states.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "a2a_app.logging.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            **({"formatter": "json"} if env.bool("A2A_LOG_JSON", default=False) else {}),
        }
    },
    "loggers": {
        "a2a_app": {"handlers": ["console"], "level": env.str("A2A_LOG_LEVEL", default="INFO")},
    },
}

# Django's cache, which also counts rate limits: this process's memory by default; in
# production a cache every process shares (CACHE_URL=redis://127.0.0.1:6379/1), or each
# process lets the whole rate through (check --deploy says so: a2a_app.W050).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

# --- Celery -----------------------------------------------------------------------------------
# The embedded default is kombu's filesystem transport under var/broker: a real broker
# and a real worker process with no external service. Production: redis://127.0.0.1:6379/0.
# CELERY_BROKER_DIR moves it (tests run a worker on a broker of their own).
BROKER_DIR = Path(env.str("CELERY_BROKER_DIR", default=str(BASE_DIR / "var" / "broker")))
# (The host is named only so that kombu does not warn that it assumed one.)
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://localhost//")
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged after it ran, so a worker lost mid-task leaves it to be redelivered
# (by brokers that redeliver); a2a_app's lease sweep covers the rest.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fix-up closes the database connections around every task and, in a
# prefork worker with Django's connection pool, the whole pool: each task then opened two
# new PostgreSQL connections (most of a webhook delivery's CPU). With a reuse count it
# leaves them alone; a2a_site.celery hands the connection back to the pool after each
# task instead (Django's close_old_connections, as after a request).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# a2a_app's sweep: re-enqueue lost tasks, recover tasks of dead workers, retry webhooks.
# Runs in `celery -A a2a_site worker -B` (or a separate `celery -A a2a_site beat`).
CELERY_BEAT_SCHEDULE = {
    "a2a-sweep": {"task": "a2a_app.tasks.sweep", "schedule": env.float("A2A_SWEEP_SECONDS", 15.0)},
}

A2A_APP = {
    "NAME": "Trattoria Django",
    "DESCRIPTION": (
        "The agent of Trattoria Django, an Italian restaurant: read the menu and book a table."
    ),
    "VERSION": "1.0.0",
    "PROVIDER": {"organization": "Trattoria Django", "url": "https://trattoria.example.com"},
    "PUBLIC_URL": env.str("A2A_PUBLIC_URL", default=None),
    "CONFORMANCE_MODE": CONFORMANCE_MODE,
    # The restaurant is in Germany: "030 1234567" is a Berlin number whatever the language
    # the guest writes in.
    "PHONE_REGION": "DE",
    # Operational knobs, overridable from the environment (see a2a_app/conf.py).
    "BLOCKING_TIMEOUT": env.float("A2A_BLOCKING_TIMEOUT", 30),
    "WORKER_LEASE_SECONDS": env.float("A2A_WORKER_LEASE_SECONDS", 15),
    "WORKER_HEARTBEAT_SECONDS": env.float("A2A_WORKER_HEARTBEAT_SECONDS", 5),
    "MAX_RUN_ATTEMPTS": env.int("A2A_MAX_RUN_ATTEMPTS", 2),
    "RESUBMIT_AFTER_SECONDS": env.float("A2A_RESUBMIT_AFTER_SECONDS", 60),
    "WEBHOOK_TIMEOUT": env.float("A2A_WEBHOOK_TIMEOUT", 10),
    "WEBHOOK_MAX_ATTEMPTS": env.int("A2A_WEBHOOK_MAX_ATTEMPTS", 8),
    "WEBHOOK_BACKOFF_SECONDS": env.float("A2A_WEBHOOK_BACKOFF_SECONDS", 2),
    # Receivers on a private network or behind a private CA (both empty: public HTTPS only).
    "WEBHOOK_ALLOWED_NETWORKS": env.list("A2A_WEBHOOK_ALLOWED_NETWORKS", default=[]),
    "WEBHOOK_CA_BUNDLE": env.str("A2A_WEBHOOK_CA_BUNDLE", default=None),
    "ENCRYPTION_KEYS": env.list("A2A_ENCRYPTION_KEYS", default=[]),
    # Keys that sign the card, newest first: A2A_CARD_SIGNING_KEYS="kid=/path/key.pem,...".
    "CARD_SIGNING_KEYS": [
        {"kid": kid, "private_key": f"file:{path}"}
        for kid, path in env.dict("A2A_CARD_SIGNING_KEYS", default={}).items()
    ],
    # Wake streams through Redis pub/sub instead of polling the database.
    "NOTIFIER_REDIS_URL": env.str("A2A_NOTIFIER_REDIS_URL", default=None),
    "STREAM_KEEPALIVE_SECONDS": env.float("A2A_STREAM_KEEPALIVE_SECONDS", 15),
    # A booking is a promise of a table: a few per client (address or signed-in user) and
    # hour, so that one client cannot book every table of a day (docs/security.md).
    "RATE_LIMITS": {
        "default": "600/min",
        "SendMessage": "120/min",
        "SendStreamingMessage": "60/min",
        "skill:make-reservation": ["5/hour", "10/day"],
        "skill:catering-request": "5/hour",
    },
    # Behind a proxy: the header it sets (A2A_CLIENT_IP_HEADER=X-Forwarded-For).
    "CLIENT_IP_HEADER": env.str("A2A_CLIENT_IP_HEADER", default=None),
    # A guest's conversation is kept 30 days after it ended (a booking itself is a
    # Booking row and stays); A2A_RETENTION_DAYS=none keeps tasks forever.
    "RETENTION_DAYS": (
        None
        if env.str("A2A_RETENTION_DAYS", default="30").lower() == "none"
        else env.float("A2A_RETENTION_DAYS", 30)
    ),
    # Prometheus metrics at /metrics (docs/observability.md): A2A_METRICS_ENABLED=1, and
    # the token Prometheus sends as a bearer token. Several processes (uvicorn --workers,
    # the Celery worker): PROMETHEUS_MULTIPROC_DIR, the same empty directory for all.
    "METRICS_ENABLED": env.bool("A2A_METRICS_ENABLED", default=False),
    "METRICS_TOKEN": env.str("A2A_METRICS_TOKEN", default=None),
}
if CONFORMANCE_MODE:
    A2A_APP.update(
        NAME="A2A conformance agent",
        DESCRIPTION="Deterministic behaviours for A2A conformance suites.",
        # Conformance suites and the benchmarks call as fast as they can, from one address.
        RATE_LIMITS={},
        MAX_STREAMS_PER_CALLER=None,
    )
