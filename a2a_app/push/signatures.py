"""Webhook signatures in the Standard Webhooks style (https://www.standardwebhooks.com).

Each POST to a config with a ``token`` carries three headers: ``webhook-id`` (the event,
the same on every attempt and redelivery, so receivers deduplicate on it),
``webhook-timestamp`` (Unix seconds of this attempt, so receivers refuse old or replayed
requests) and ``webhook-signature``: ``v1,`` and the base64 HMAC-SHA256 of
``"{id}.{timestamp}.{body}"``, keyed with the token's UTF-8 bytes. The token is the
secret the client chose when it registered the config (stored encrypted), so the
receiver already knows the key; a Standard Webhooks library verifies it given
``token.encode()`` as the secret. :func:`verify` is the receiving side, for sites that
take webhooks from another a2a_app agent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping

ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
#: How far a receiver lets a timestamp stray from its clock (the convention's 5 minutes).
TOLERANCE_SECONDS = 300


def _now() -> float:
    return time.time()


class InvalidSignature(Exception):
    """A webhook whose headers are missing, stale or not signed with the expected key."""


def signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    """``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``."""
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(
    secret: str, webhook_id: str, body: bytes, timestamp: int | None = None
) -> dict[str, str]:
    """The three headers of one attempt, signed now (or at ``timestamp``)."""
    timestamp = int(_now()) if timestamp is None else timestamp
    return {
        ID_HEADER: webhook_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, webhook_id, timestamp, body),
    }


def verify(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> str:
    """Check a received webhook; returns its ``webhook-id``, or raises InvalidSignature."""
    lowered = {name.lower(): value for name, value in headers.items()}
    webhook_id = lowered.get(ID_HEADER, "")
    stamp = lowered.get(TIMESTAMP_HEADER, "")
    signatures = lowered.get(SIGNATURE_HEADER, "")
    if not (webhook_id and stamp and signatures):
        raise InvalidSignature("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise InvalidSignature("webhook-timestamp is not a number") from None
    if abs((_now() if now is None else now) - timestamp) > tolerance:
        raise InvalidSignature("webhook-timestamp is too old or too new")
    expected = signature(secret, webhook_id, timestamp, body)
    # Several space-separated signatures are allowed (while a key is rotated).
    if not any(hmac.compare_digest(expected, given) for given in signatures.split()):
        raise InvalidSignature("no signature matches")
    return webhook_id
