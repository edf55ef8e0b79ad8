"""Settings of the test project: what a production site with a2a_app sets, from the
environment, and nothing of the demo.

SQLite by default (a file per test process, so that servers the integration tests start
see it); PostgreSQL with psycopg's pool when ``DATABASE_URL`` names it. Celery on the
broker ``CELERY_BROKER_URL`` names (the unit tests use an in-memory one).
"""

import os
import tempfile
from pathlib import Path

import environ

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = "a2a-app-tests-only"
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["testserver", "127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "a2a_app",
    # Apps of single integration tests (A2A_TEST_APPS=tests.pageskills): the uvicorn
    # process of a test serves their skills, no other test sees them.
    *env.list("A2A_TEST_APPS", default=[]),
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
ROOT_URLCONF = "tests.project.urls"
ASGI_APPLICATION = "tests.project.asgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
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
USE_TZ = True
TIME_ZONE = "Europe/Berlin"
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_test_db = Path(tempfile.gettempdir()) / f"a2a-app-test-{os.getpid()}.sqlite3"
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{_test_db}")}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue rather than fail; WAL lets a server and a worker read beside a writer.
    _db["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    _db["TEST"] = {"NAME": str(_test_db)}
else:
    _db["ENGINE"] = "django.db.backends.postgresql"
    _db["CONN_MAX_AGE"] = 0
    _db["OPTIONS"] = {
        "pool": {
            "min_size": env.int("DB_POOL_MIN", default=2),
            "max_size": env.int("DB_POOL_MAX", default=20),
            "timeout": 10,
        },
        # a2a_app binds its task write and GetTask read on the server: keep them prepared.
        "prepare_threshold": 5,
    }

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "a2a-sweep": {"task": "a2a_app.tasks.sweep", "schedule": env.float("A2A_SWEEP_SECONDS", 15.0)},
}

A2A_APP = {
    "NAME": "a2a_app tests",
    "DESCRIPTION": "The agent of a2a_app's test project.",
    "VERSION": "2.1.0",
    "PROVIDER": {"organization": "a2a_app tests", "url": "https://tests.example.com"},
    "CONFORMANCE_MODE": env.bool("A2A_CONFORMANCE", default=False),
    "API_KEY_CACHE_SECONDS": env.float("A2A_API_KEY_CACHE_SECONDS", 5),
    "PUBLIC_URL": env.str("A2A_PUBLIC_URL", default=None),
    "BLOCKING_TIMEOUT": env.float("A2A_BLOCKING_TIMEOUT", 30),
    "WORKER_LEASE_SECONDS": env.float("A2A_WORKER_LEASE_SECONDS", 15),
    "WORKER_HEARTBEAT_SECONDS": env.float("A2A_WORKER_HEARTBEAT_SECONDS", 5),
    "MAX_RUN_ATTEMPTS": env.int("A2A_MAX_RUN_ATTEMPTS", 2),
    "RESUBMIT_AFTER_SECONDS": env.float("A2A_RESUBMIT_AFTER_SECONDS", 60),
    "WEBHOOK_TIMEOUT": env.float("A2A_WEBHOOK_TIMEOUT", 10),
    "WEBHOOK_MAX_ATTEMPTS": env.int("A2A_WEBHOOK_MAX_ATTEMPTS", 8),
    "WEBHOOK_BACKOFF_SECONDS": env.float("A2A_WEBHOOK_BACKOFF_SECONDS", 2),
    "NOTIFIER_REDIS_URL": env.str("A2A_NOTIFIER_REDIS_URL", default=None),
    # A poll too slow to matter proves that LISTEN/NOTIFY woke a stream.
    "STREAM_POLL_SECONDS": env.float("A2A_STREAM_POLL_SECONDS", 0.2),
    "STREAM_KEEPALIVE_SECONDS": env.float("A2A_STREAM_KEEPALIVE_SECONDS", 15),
    # API keys (the default) and, opted in, HTTP Basic for the tests' users.
    "AUTHENTICATION_CLASSES": [
        "a2a_app.authentication.ApiKeyAuthentication",
        "a2a_app.authentication.BasicAuthentication",
    ],
    "REDIS_TIMEOUT": env.float("A2A_REDIS_TIMEOUT", 0.5),
    "BROKER_PUBLISH_TIMEOUT": env.float("A2A_BROKER_PUBLISH_TIMEOUT", 1.0),
    "MAX_STREAMS_PER_CALLER": env.int("A2A_MAX_STREAMS_PER_CALLER", 10),
    "MAX_PAGE_BYTES": env.int("A2A_MAX_PAGE_BYTES", 4 * 1024 * 1024),
    "ANONYMOUS_TASK_CREATION": env.bool("A2A_ANONYMOUS_TASK_CREATION", default=True),
    "CLIENT_IP_HEADER": env.str("A2A_CLIENT_IP_HEADER", default=None),
    # Metrics of the live servers and workers (tests/integration/test_metrics_live.py).
    "METRICS_ENABLED": env.bool("A2A_METRICS_ENABLED", default=False),
    "METRICS_TOKEN": env.str("A2A_METRICS_TOKEN", default=None),
}
# A2A_RATE_LIMITS='{"SendMessage": "10/min"}' replaces the default rates ('{}': none).
if "A2A_RATE_LIMITS" in os.environ:
    A2A_APP["RATE_LIMITS"] = env.json("A2A_RATE_LIMITS")
if A2A_APP["CONFORMANCE_MODE"]:
    # The SDK interop tests and the TCK call as fast as they can, from one address.
    A2A_APP.update(RATE_LIMITS={}, MAX_STREAMS_PER_CALLER=None)

# Traces of the processes under test to a file (tests/integration/test_traces_live.py).
if os.environ.get("A2A_TEST_SPANS_FILE"):
    from tests.project.spans import export_to

    export_to(os.environ["A2A_TEST_SPANS_FILE"])
