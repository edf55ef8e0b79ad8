"""Shared fixtures: a JSON-RPC caller, conformance mode, and a live uvicorn server.

The integration tests (marker ``integration``) run against real services. When
``DATABASE_URL`` points at PostgreSQL and it cannot be reached, the run stops as
skipped on a developer machine, and fails in CI (``CI`` set): there they must run.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings

from a2a_app.core import notify
from a2a_app.push import senders
from a2a_app.testing import RecordingDispatcher, installed_skill, record_dispatch, reset_caches
from tests.support import SCENARIO_TIMEOUT, Later, service_missing

ROOT = Path(__file__).resolve().parent.parent


def _session_database() -> None:
    """Give this pytest session an SQLite test database of its own.

    The settings name one file per process; two sessions in one process (mutmut runs
    pytest again and again in forks of one) or forked ones would share it and break each
    other ("disk I/O error"). The servers and workers the integration tests start get the
    file by ``DATABASE_URL`` (:func:`database_url`)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    session = f"{os.getpid()}-{secrets.token_hex(4)}"
    if db["ENGINE"] == "django.db.backends.sqlite3":
        name = str(Path(tempfile.gettempdir()) / f"a2a-app-test-{session}.sqlite3")
    else:  # pytest-django's default, test_<name>, would be shared by every session
        name = f"test_{db['NAME']}_{session.replace('-', '_')}"
    db.setdefault("TEST", {})["NAME"] = name


def pytest_configure(config: pytest.Config) -> None:
    _session_database()
    # In-process code that enqueues (after commit, in transactional tests) talks to an
    # in-memory broker; tests that need a real worker start one with a real broker.
    from celery import current_app

    current_app.conf.broker_url = "memory://"
    current_app.conf.broker_transport_options = {}

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            raise pytest.UsageError(f"CI: PostgreSQL at {url} is required: {exc}") from exc
        pytest.exit(f"PostgreSQL at {url} is not reachable; skipping this run ({exc})", 0)


# a2a_app's tests run against tests/project; the demo's (tests/demo) against the demo site,
# in a run of their own (make test: pytest tests/demo --ds a2a_site.settings).
collect_ignore = [] if os.environ.get("DJANGO_SETTINGS_MODULE") == "a2a_site.settings" else ["demo"]

LIVE_SERVER_FIXTURES = {"conformance_server_url", "start_web", "start_worker"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # pytest-django creates the test database only for tests that ask for one; a test
    # that talks to a live server needs it too, committed (hence transactional).
    for item in items:
        if LIVE_SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.django_db(transaction=True))


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """Every test starts and ends with a2a_app's per-process caches empty, and Django's
    cache too (it counts failed sign-ins)."""
    from django.core.cache import cache

    reset_caches()
    cache.clear()
    yield
    reset_caches()
    cache.clear()


@pytest.fixture
def dispatched() -> Iterator[RecordingDispatcher]:
    """What would have gone to Celery (runs, webhook deliveries, stream wake-ups)."""
    with record_dispatch() as recorder:
        yield recorder


@pytest.fixture
def later() -> Iterator[Callable[..., Later]]:
    """``later(fn, *args, delay=0.2, **kwargs)`` starts a thread; all are joined at teardown."""
    started: list[Later] = []

    def start(fn: Callable[..., Any], *args: Any, delay: float = 0.2, **kwargs: Any) -> Later:
        thread = Later(fn, *args, delay=delay, **kwargs)
        started.append(thread)
        thread.start()
        return thread

    yield start
    for thread in started:
        thread.join(SCENARIO_TIMEOUT)


@pytest.fixture
def install() -> Iterator[Callable[..., str]]:
    """``install(handler, key="job", background=False)``: a registered skill with its row."""
    with ExitStack() as stack:

        def install_skill(handler: Callable, key: str = "job", *, background: bool = False) -> str:
            return stack.enter_context(installed_skill(handler, key, background=background))

        yield install_skill


@pytest.fixture
def fast_streams(settings) -> Iterator[None]:
    """Streams poll often; webhooks are recorded, not sent."""
    settings.A2A_APP = {
        **settings.A2A_APP,
        "STREAM_POLL_SECONDS": 0.05,
        "STREAM_KEEPALIVE_SECONDS": 5,
        "WEBHOOK_SENDER": "a2a_app.push.senders.OutboxSender",
    }
    notify.reset()
    senders.outbox.clear()
    yield
    notify.reset()
    senders.outbox.clear()


@pytest.fixture
def no_dns(monkeypatch) -> None:
    """Name resolution fails, as on a machine without DNS: no test reaches the network."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("tests must not resolve names")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="testserver")


RpcCall = Callable[..., dict[str, Any]]


@pytest.fixture
def rpc(client: Client) -> RpcCall:
    """``rpc("GetTask", {"id": ...})`` → the decoded JSON-RPC response (HTTP 200 asserted)."""

    def call(
        method: str,
        params: dict[str, Any] | None = None,
        *,
        request_id: Any = 1,
        headers: dict[str, str] | None = None,
        status: int = 200,
    ) -> dict[str, Any]:
        payload = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            payload["params"] = params
        response = client.post(
            "/a2a/jsonrpc",
            json.dumps(payload),
            content_type="application/json",
            headers=headers or {},
        )
        assert response.status_code == status, response.content
        assert response["Content-Type"] == "application/json"
        return response.json()

    return call


@pytest.fixture
def conformance_mode() -> Iterator[None]:
    from django.conf import settings

    from a2a_app.skills import conformance  # noqa: F401  (registers the skill)

    with override_settings(A2A_APP={**settings.A2A_APP, "CONFORMANCE_MODE": True}):
        yield


def user_message(text: str = "hello", **fields: Any) -> dict[str, Any]:
    message = {
        "messageId": fields.pop("messageId", f"m-{time.monotonic_ns()}"),
        "role": "ROLE_USER",
    }
    message["parts"] = fields.pop("parts", [{"text": text}])
    message.update(fields)
    return message


# --- live server -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    return f"postgres://{user}{password}@{host}/{db['NAME']}"


def project_package() -> str:
    """The package of the project under test: ``tests.project``, or ``a2a_site`` for the
    demo's tests (its Celery app is ``celery -A <package>``)."""
    from django.conf import settings

    return settings.SETTINGS_MODULE.rpartition(".")[0]


def asgi_application() -> str:
    """``module:attribute`` of the project's ASGI application, for uvicorn."""
    from django.conf import settings

    module, _, attribute = settings.ASGI_APPLICATION.rpartition(".")
    return f"{module}:{attribute}"


def start_server(env_overrides: dict[str, str], workers: int = 1) -> tuple[subprocess.Popen, str]:
    """uvicorn serving the project on a free port (``workers`` > 1: that many processes)."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DEBUG": "false",
        # DEBUG off refuses the demo's published key; plain HTTP on loopback, no redirect.
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECURE_SSL_REDIRECT": "false",
        **env_overrides,
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            asgi_application(),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            *(["--workers", str(workers)] if workers > 1 else []),
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("uvicorn did not start within 30 s")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's, letting go of every PostgreSQL session before the database is dropped.

    A connection still open (in the pool, or held by a thread the tests left, such as
    asgiref's or a request pool's) would make the drop fail ("being accessed by other
    users") and leave the test database behind.
    """
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        connection.close_pool()


@pytest.fixture(scope="session")
def conformance_server_url(django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """A uvicorn process serving the site in conformance mode on the test database."""
    process, base = start_server({"A2A_CONFORMANCE": "1"})
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def redis_server() -> Iterator[tuple[str, int]]:
    """A redis-server of the test's own on a free port: its URL and process id (a test may
    stop it with SIGSTOP; it is resumed and ended after). Skipped without redis-server,
    except in CI."""
    import shutil
    import signal

    server = shutil.which("redis-server")
    if server is None:
        service_missing("redis-server is required and not installed")
    port = _free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", process.pid
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(timeout=10)
