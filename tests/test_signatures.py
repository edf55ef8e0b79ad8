"""Webhook signatures on their own: what is signed, and what a receiver refuses and why.

The end-to-end half (deliveries signed with the config's token, checked by the Standard
Webhooks reference library) is in test_push.py; this file pins the rules of
:mod:`a2a_app.push.signatures` at their edges, without a database.
"""

from __future__ import annotations

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from a2a_app.push.signatures import InvalidSignature, signed_headers, verify

SECRET = "tok-signing"
BODY = b'{"statusUpdate":{"taskId":"t-1"}}'
SENT_AT = 1_800_000_000


def sent(webhook_id: str = "evt-1", body: bytes = BODY) -> dict[str, str]:
    return signed_headers(SECRET, webhook_id, body, timestamp=SENT_AT)


def refusal(headers: dict[str, str], now: float = SENT_AT, tolerance: int = 300) -> str:
    with pytest.raises(InvalidSignature) as excinfo:
        verify(SECRET, headers, BODY, now=now, tolerance=tolerance)
    return str(excinfo.value)


def test_headers_signed_at_a_given_time_carry_that_time() -> None:
    headers = sent()
    assert headers["webhook-id"] == "evt-1"
    assert headers["webhook-timestamp"] == str(SENT_AT)
    assert verify(SECRET, headers, BODY, now=SENT_AT) == "evt-1"
    # Signed for that time, not for now: a receiver checking against its clock refuses it.
    with pytest.raises(WebhookVerificationError, match="timestamp too"):
        Webhook(SECRET.encode()).verify(BODY, headers)


def test_headers_signed_now_verify_now() -> None:
    headers = signed_headers(SECRET, "evt-2", BODY)
    assert Webhook(SECRET.encode()).verify(BODY, headers) == {"statusUpdate": {"taskId": "t-1"}}
    assert verify(SECRET, headers, BODY) == "evt-2"


def test_header_names_are_case_insensitive() -> None:
    headers = {name.title(): value for name, value in sent().items()}
    assert "Webhook-Signature" in headers
    assert verify(SECRET, headers, BODY, now=SENT_AT) == "evt-1"


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_a_missing_header_is_named(missing: str) -> None:
    headers = {name: value for name, value in sent().items() if name != missing}
    assert refusal(headers) == "missing webhook-id, webhook-timestamp or webhook-signature"


@pytest.mark.parametrize("empty", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_an_empty_header_counts_as_missing(empty: str) -> None:
    assert refusal({**sent(), empty: ""}) == (
        "missing webhook-id, webhook-timestamp or webhook-signature"
    )


def test_a_timestamp_that_is_not_a_number() -> None:
    assert refusal({**sent(), "webhook-timestamp": "yesterday"}) == (
        "webhook-timestamp is not a number"
    )


@pytest.mark.parametrize("drift", [-300, 300])
def test_the_tolerance_is_five_minutes_either_way(drift: int) -> None:
    assert verify(SECRET, sent(), BODY, now=SENT_AT + drift) == "evt-1"


@pytest.mark.parametrize("drift", [-301, 301])
def test_past_the_tolerance_is_refused(drift: int) -> None:
    # A replay later than 5 minutes, or a clock far ahead of ours.
    assert refusal(sent(), now=SENT_AT + drift) == "webhook-timestamp is too old or too new"


def test_a_receiver_may_choose_its_tolerance() -> None:
    assert verify(SECRET, sent(), BODY, now=SENT_AT + 30, tolerance=30) == "evt-1"
    assert refusal(sent(), now=SENT_AT + 31, tolerance=30) == (
        "webhook-timestamp is too old or too new"
    )


@pytest.mark.parametrize(
    "tamper",
    [
        lambda headers, body: (headers, body + b" "),  # the body
        lambda headers, body: ({**headers, "webhook-id": "evt-9"}, body),  # the event
        lambda headers, body: ({**headers, "webhook-timestamp": str(SENT_AT + 1)}, body),
    ],
    ids=["body", "id", "timestamp"],
)
def test_each_signed_part_is_covered(tamper) -> None:
    headers, body = tamper(sent(), BODY)
    with pytest.raises(InvalidSignature) as excinfo:
        verify(SECRET, headers, body, now=SENT_AT)
    assert str(excinfo.value) == "no signature matches"


def test_another_key_does_not_verify() -> None:
    with pytest.raises(InvalidSignature) as excinfo:
        verify("another-token", sent(), BODY, now=SENT_AT)
    assert str(excinfo.value) == "no signature matches"


def test_any_of_several_signatures_may_match_while_a_key_rotates() -> None:
    old = signed_headers("old-token", "evt-1", BODY, timestamp=SENT_AT)["webhook-signature"]
    new = sent()["webhook-signature"]
    assert verify(SECRET, {**sent(), "webhook-signature": f"{old} {new}"}, BODY, now=SENT_AT)
    assert refusal({**sent(), "webhook-signature": f"{old} v1,AAAA"}) == "no signature matches"
