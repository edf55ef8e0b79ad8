"""Sending one webhook POST: the pluggable sender (``A2A_APP["WEBHOOK_SENDER"]``).

``RequestsSender`` posts with one shared ``requests.Session``, a timeout, no redirects
(a redirect could lead past the SSRF guard) and a User-Agent naming us. ``OutboxSender``
records instead of sending, like Django's ``mail.outbox``: tests read ``outbox``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import requests

from . import __version__

USER_AGENT = f"a2a_app/{__version__} (+https://a2a-protocol.org)"


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    url: str
    body: bytes
    headers: dict[str, str]


@dataclass(frozen=True, slots=True)
class WebhookResult:
    """``status`` is the HTTP status, or None when no answer came (``error`` says why)."""

    status: int | None
    error: str = ""


class RequestsSender:
    def __init__(self) -> None:
        self.session = requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        # Never pick up proxies from the environment for webhooks: the SSRF guard vetted
        # the destination host, not some proxy's.
        self.session.trust_env = False

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        try:
            response = self.session.post(
                request.url,
                data=request.body,
                headers=request.headers,
                timeout=timeout,
                allow_redirects=False,
            )
        except requests.Timeout:
            return WebhookResult(None, f"no answer within {timeout:g} s")
        except requests.RequestException as exc:
            return WebhookResult(None, f"{type(exc).__name__}: {exc}"[:500])
        response.close()
        return WebhookResult(response.status_code)


outbox: list[WebhookRequest] = []


@dataclass
class OutboxSender:
    """Records every request in ``a2a_app.webhooks.outbox`` and answers ``status``."""

    status: int = 200
    calls: list[Any] = field(default_factory=list)

    def send(self, request: WebhookRequest, *, timeout: float) -> WebhookResult:
        outbox.append(request)
        return WebhookResult(self.status)
