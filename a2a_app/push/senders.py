"""Sending one webhook POST: the pluggable sender (``A2A_APP["WEBHOOK_SENDER"]``).

``RequestsSender`` posts with one shared ``requests.Session``, a timeout, no redirects
(a redirect could lead past the SSRF guard) and a User-Agent naming us. It connects to
the addresses the SSRF guard vetted (``WebhookRequest.addresses``) rather than resolving
the host once more, so a DNS answer that changes between the check and the POST (DNS
rebinding) cannot send it elsewhere; the Host header, TLS SNI and the certificate check
still use the URL's host name. ``OutboxSender`` records instead of sending, like
Django's ``mail.outbox``: tests read ``outbox``.

A worker keeps one sender (``shared_sender``), so connections to a receiver stay open
between deliveries (HTTP keep-alive). A kept connection is reused only for a request
pinned to the same address, port *and* host name: the pool is keyed by all three, so a
connection opened for one host never carries another host's webhook, and one to an
address that the latest DNS answer no longer contains is never picked.
"""

from __future__ import annotations

import http.cookiejar
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import NewConnectionError

from a2a_app import __version__
from a2a_app.conf import a2a_settings

USER_AGENT = f"a2a_app/{__version__} (+https://a2a-protocol.org)"


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    url: str
    body: bytes
    headers: dict[str, str]
    #: The IP addresses the SSRF guard vetted for the URL's host, just before this
    #: request: a sender connects to one of them rather than resolve the host again.
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WebhookResult:
    """``status`` is the HTTP status, or None when no answer came (``error`` says why)."""

    status: int | None
    error: str = ""


class PinnedAddressAdapter(HTTPAdapter):
    """Connects to ``request.pinned_address`` when set, as if the host resolved to it.

    The connection pool is keyed by that address and the host name, and TLS is given the
    host name for SNI and for checking the certificate (urllib3's ``server_hostname`` and
    ``assert_hostname``), so only the TCP connection's destination changes. For plain
    HTTP the host name is in the key only (urllib3 leaves TLS arguments out of an HTTP
    pool), which is what keeps two hosts on one address from sharing a connection.
    """

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        address = getattr(request, "pinned_address", None)
        if address:
            hostname = host_params["host"]
            host_params["host"] = address
            pool_kwargs["server_hostname"] = hostname
            if host_params["scheme"] == "https":
                pool_kwargs["assert_hostname"] = hostname
        return host_params, pool_kwargs


class RequestsSender:
    #: Receivers (address, port and host name) whose idle connections a sender keeps.
    KEPT_RECEIVERS = 64

    def __init__(self) -> None:
        self.session = requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        # Never pick up proxies from the environment for webhooks: the SSRF guard vetted
        # the destination host, not some proxy's.
        self.session.trust_env = False
        # Certificates are checked against certifi's CAs, or a private CA's (a setting, as
        # trust_env=False also ignores REQUESTS_CA_BUNDLE).
        self.session.verify = a2a_settings.WEBHOOK_CA_BUNDLE or True
        # A sender outlives many deliveries to many receivers: a cookie one receiver sets
        # must never travel to the next (webhooks need no state), so none is kept.
        self.session.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        adapter = PinnedAddressAdapter(pool_connections=self.KEPT_RECEIVERS)
        self.session.mount("https://", adapter)
        self.session.mount("http://", adapter)

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        headers = dict(request.headers)
        if request.addresses:
            # The connection goes to an address, so the host name must travel in Host.
            headers["Host"] = urlsplit(request.url).netloc
        prepared = self.session.prepare_request(
            requests.Request("POST", request.url, data=request.body, headers=headers)
        )
        error = ""
        # Any vetted address will do: the next one only if this one cannot be reached.
        # Two at most, so that a delivery stays within its lease (push.deliver).
        for address in request.addresses[:2] or (None,):
            prepared.pinned_address = address  # type: ignore[attr-defined]
            try:
                response = self.session.send(prepared, timeout=timeout, allow_redirects=False)
            except requests.ConnectTimeout:
                error = f"no answer within {timeout:g} s"
                continue
            except requests.ConnectionError as exc:
                error = _describe(exc)
                reason = getattr(exc.args[0], "reason", None) if exc.args else None
                if isinstance(reason, NewConnectionError):  # refused, unreachable
                    continue
                return WebhookResult(None, error)
            except requests.Timeout:
                return WebhookResult(None, f"no answer within {timeout:g} s")
            except requests.RequestException as exc:
                return WebhookResult(None, _describe(exc))
            response.close()
            return WebhookResult(response.status_code)
        return WebhookResult(None, error)


_shared: dict[tuple[Any, int], Any] = {}


def shared_sender(sender_class: Any) -> Any:
    """This process's instance of ``sender_class``, made on first use.

    Kept per process id: a forked worker must not share its parent's sockets.
    """
    key = (sender_class, os.getpid())
    sender = _shared.get(key)
    if sender is None:
        _shared.clear()  # another class (the setting changed) or a parent's: let it go
        sender = _shared[key] = sender_class()
    return sender


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


outbox: list[WebhookRequest] = []


@dataclass
class OutboxSender:
    """Records every request in ``a2a_app.push.senders.outbox`` and answers ``status``."""

    status: int = 200
    calls: list[Any] = field(default_factory=list)

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        outbox.append(request)
        return WebhookResult(self.status)
