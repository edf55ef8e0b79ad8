"""Webhooks over real TLS on loopback: certificates are checked, against certifi's CAs or
the private CA that ``WEBHOOK_CA_BUNDLE`` names."""

from __future__ import annotations

import pytest

from a2a_app.push.senders import RequestsSender, WebhookRequest

pytestmark = pytest.mark.integration


def post(url: str) -> tuple[int | None, str]:
    result = RequestsSender().send(
        WebhookRequest(url, b'{"ok": true}', {"Content-Type": "application/json"}, ("127.0.0.1",)),
        timeout=5,
    )
    return result.status, result.error


def test_a_receiver_behind_a_private_ca_is_reached_with_its_bundle(
    settings, private_ca, tls_receiver
) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_CA_BUNDLE": str(private_ca.bundle)}
    assert post(tls_receiver.url) == (200, "")
    [received] = tls_receiver.wait_for(1)
    assert received.body == {"ok": True}


def test_without_the_bundle_its_certificate_is_refused(tls_receiver) -> None:
    status, error = post(tls_receiver.url)
    assert status is None
    assert "CERTIFICATE_VERIFY_FAILED" in error
    assert tls_receiver.received == []
