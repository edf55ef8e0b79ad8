"""Real parts for integration tests: Redis, Celery worker processes, a webhook receiver.

Redis must be on 127.0.0.1:6379; each test run flushes and uses one of databases 8-15
(chosen by process id, so parallel runs on one machine don't take each other's jobs).
Without Redis the tests that need it skip on a developer machine and fail in CI.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, database_url, project_package, start_server
from tests.support import service_missing

try:
    import a2a  # noqa: F401  (the official SDK: a test-only dependency)
except ImportError:
    if os.environ.get("CI"):
        raise  # in CI a missing SDK is a broken environment, not a reason to skip
    collect_ignore_glob = ["test_sdk_interop*.py"]

REDIS_URL = os.environ.get("TEST_REDIS_URL", f"redis://127.0.0.1:6379/{8 + os.getpid() % 8}")

# Settings for the processes under test: short leases, fast sweeps and retries.
FAST = {
    "A2A_CONFORMANCE": "1",
    "A2A_SWEEP_SECONDS": "1",
    "A2A_WORKER_LEASE_SECONDS": "3",
    "A2A_WORKER_HEARTBEAT_SECONDS": "1",
    "A2A_RESUBMIT_AFTER_SECONDS": "2",
    "A2A_WEBHOOK_BACKOFF_SECONDS": "0.3",
    "A2A_WEBHOOK_TIMEOUT": "2",
    "A2A_WEBHOOK_MAX_ATTEMPTS": "3",
    "A2A_BLOCKING_TIMEOUT": "20",
}


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.flushdb()
    except redis.RedisError as exc:
        service_missing(f"Redis at {REDIS_URL} is required and not reachable: {exc}")
    return REDIS_URL


class Worker:
    """A ``celery -A <the project> worker -B`` process on the test database."""

    def __init__(self, env: dict[str, str], tmp: Path) -> None:
        self.log = tmp / f"worker-{time.monotonic_ns()}.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                project_package(),
                "worker",
                "-B",
                "--concurrency",
                "2",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--schedule",
                str(tmp / f"beat-{time.monotonic_ns()}"),
            ],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": database_url(), **env},
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # kill -9 reaches the pool children too
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery worker exited:\n{self.log.read_text()[-3000:]}")
            if b" ready." in self.log.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"celery worker not ready:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """``kill -9`` the worker and its pool: nothing gets to clean up."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def start_worker(redis_url: str, tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    workers: list[Worker] = []

    def start(**env: str) -> Worker:
        worker = Worker({**FAST, "CELERY_BROKER_URL": redis_url, **env}, tmp_path)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def start_web(redis_url: str) -> Iterator[Callable[..., str]]:
    """Start a uvicorn process with the fast settings; returns its base URL."""
    processes: list[subprocess.Popen] = []

    def start(**env: str) -> str:
        process, base = start_server({**FAST, "CELERY_BROKER_URL": redis_url, **env})
        processes.append(process)
        return base

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


# --- a webhook receiver -----------------------------------------------------------------


@dataclass
class Received:
    headers: dict[str, str]
    body: Any
    at: float
    #: The body's bytes as they came (what a webhook signature covers).
    raw: bytes = b""


@dataclass
class Receiver:
    """An HTTP server on 127.0.0.1 that records webhook POSTs and answers as scripted."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    # Status codes to answer in turn; when used up, 200. "hang" sleeps past the timeout.
    script: list[int | str] = field(default_factory=list)
    attempts: int = 0

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return list(self.received)


@contextlib.contextmanager
def serve_receiver(tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    """A :class:`Receiver` on 127.0.0.1, over HTTPS when given a server TLS context."""
    state = Receiver()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with lock:
                state.attempts += 1
                answer = state.script.pop(0) if state.script else 200
            if answer == "hang":
                time.sleep(5)
                return
            if answer == 200:
                state.received.append(
                    Received(dict(self.headers.items()), json.loads(body), time.monotonic(), body)
                )
            self.send_response(int(answer))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    scheme = "http"
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    state.url = f"{scheme}://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serve_receiver() as state:
        yield state


@dataclass
class PrivateCA:
    """A self-signed certificate for 127.0.0.1: the CA bundle and the server's TLS context."""

    bundle: Path
    server_context: ssl.SSLContext


@pytest.fixture(scope="session")
def private_ca(tmp_path_factory: pytest.TempPathFactory) -> PrivateCA:
    from tests.tls import self_signed_for_loopback

    folder = tmp_path_factory.mktemp("ca")
    cert, key = self_signed_for_loopback(folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return PrivateCA(bundle=cert, server_context=context)


@pytest.fixture
def tls_receiver(private_ca: PrivateCA) -> Iterator[Receiver]:
    """A receiver over HTTPS whose certificate only ``private_ca.bundle`` vouches for."""
    with serve_receiver(private_ca.server_context) as state:
        yield state


# --- a real browser (Debian's Chromium, driven by Playwright) -----------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Headless Chromium; skipped without it on a developer machine, a failure in CI
    (.ci/run installs it)."""
    if CHROMIUM is None:
        service_missing("Chromium is required for the browser tests (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        service_missing("Playwright is required for the browser tests (requirements-dev.txt)")
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the test makes
    # between page actions are plain synchronous ones.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def browser_page(browser: Any) -> Any:
    """A page of ``browser``, 1280 pixels wide."""
    return browser.new_page(viewport={"width": 1280, "height": 800})


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where screenshots go: ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots
    holds the committed ones), else the test's temporary folder."""
    folder = Path(os.environ.get("A2A_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


#: The password of the staff users the browser tests make.
STAFF_PASSWORD = "a-long-password-1"


def sign_in(page: Any, base_url: str, username: str, next_path: str) -> None:
    """Sign ``username`` in through the admin's login form, landing on ``next_path``."""
    page.goto(f"{base_url}/admin/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
