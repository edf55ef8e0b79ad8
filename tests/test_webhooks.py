"""a2a_app.push.senders.RequestsSender: POSTs go to the vetted addresses, never a new lookup.

A local receiver (plain HTTP, and HTTPS with a certificate made here) stands in for the
client's webhook. The URLs name hosts under ``.invalid``, which never resolve (RFC 2606):
a request that arrives proves the sender connected to the address it was given.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from a2a_app.push.senders import RequestsSender, WebhookRequest
from tests.tls import self_signed


@dataclass
class Receiver:
    port: int
    seen: list[dict[str, Any]] = field(default_factory=list)


def serve(context: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            receiver.seen.append({"host": self.headers["Host"], "body": body})
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    receiver = Receiver(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_receiver() -> Iterator[Receiver]:
    yield from serve()


@pytest.fixture
def https_receiver(tmp_path: Path) -> Iterator[tuple[Receiver, Path]]:
    """A receiver whose certificate names ``hook.invalid``, and that certificate."""
    cert, key = self_signed(tmp_path, ["hook.invalid"])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    for receiver in serve(context):
        yield receiver, cert


def post(url: str, addresses: tuple[str, ...], *, verify: Any = True) -> Any:
    sender = RequestsSender()
    sender.session.verify = verify
    request = WebhookRequest(url=url, body=b'{"ok":true}', headers={}, addresses=addresses)
    return sender.send(request, timeout=5)


def test_http_goes_to_the_vetted_address_with_the_host_name(http_receiver):
    url = f"http://hook.invalid:{http_receiver.port}/hook"
    result = post(url, ("127.0.0.1",))
    assert result.status == 204, result.error
    assert http_receiver.seen == [
        {"host": f"hook.invalid:{http_receiver.port}", "body": b'{"ok":true}'}
    ]


def test_https_checks_the_certificate_against_the_host_name(https_receiver):
    receiver, cert = https_receiver
    result = post(f"https://hook.invalid:{receiver.port}/hook", ("127.0.0.1",), verify=str(cert))
    assert result.status == 204, result.error
    assert receiver.seen[0]["host"] == f"hook.invalid:{receiver.port}"


def test_https_refuses_a_certificate_for_another_name(https_receiver):
    receiver, cert = https_receiver
    # The address is right, the name is not the certificate's: no request is made.
    result = post(f"https://other.invalid:{receiver.port}/hook", ("127.0.0.1",), verify=str(cert))
    assert result.status is None
    assert "certificate" in result.error.lower() or "hostname" in result.error.lower()
    assert receiver.seen == []


def test_the_next_address_when_one_refuses(http_receiver):
    # Nothing listens on 127.0.0.3 (the receiver is bound to 127.0.0.1 only).
    url = f"http://hook.invalid:{http_receiver.port}/hook"
    result = post(url, ("127.0.0.3", "127.0.0.1"))
    assert result.status == 204, result.error
    assert len(http_receiver.seen) == 1


def test_no_address_reachable_is_an_error(http_receiver):
    result = post(f"http://hook.invalid:{http_receiver.port}/hook", ("127.0.0.3",))
    assert result.status is None
    assert "ConnectionError" in result.error
    assert http_receiver.seen == []


def test_without_addresses_the_host_is_resolved(http_receiver):
    result = post(f"http://127.0.0.1:{http_receiver.port}/hook", ())
    assert result.status == 204, result.error
    assert http_receiver.seen[0]["host"] == f"127.0.0.1:{http_receiver.port}"
