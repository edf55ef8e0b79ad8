"""Writing wire JSON: compact and strict, with pieces that are already JSON text spliced in.

:func:`dumps` writes the operations' JSON answers (``bindings.http.json_response``: no
spaces, never ``NaN``; SSE frames and the agent card are written where they are made). A
value may be a :class:`RawJSON`: text that is JSON already (a ListTasks page the database wrote),
which goes into the answer as it is instead of being read into Python objects only to be
written out again.

This module imports nothing from Django, nor anything outside the protocol package.
"""

from __future__ import annotations

import json
import secrets
from typing import Any


class RawJSON:
    """JSON text to be written as it is where a value goes. Its maker vouches that it is
    one valid JSON value; :meth:`decoded` reads it (for Python callers and tests)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def decoded(self) -> Any:
        return json.loads(self.text)

    def __repr__(self) -> str:
        return f"RawJSON({self.text[:60]!r}{'...' if len(self.text) > 60 else ''})"


class _HasRawJSON(Exception):
    """A payload holds a :class:`RawJSON`: it is written the slower way."""


def _no_raw(value: Any) -> Any:
    if isinstance(value, RawJSON):
        raise _HasRawJSON
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# Most answers hold no RawJSON: they are written by encoders made once (json.dumps with
# options makes a new encoder per call).
_ENCODERS = {
    escape: json.JSONEncoder(
        separators=(",", ":"), ensure_ascii=escape, allow_nan=False, default=_no_raw
    )
    for escape in (False, True)
}


def dumps(payload: Any, *, ensure_ascii: bool = False) -> str:
    """``payload`` as compact, strict JSON, :class:`RawJSON` values written as they are.

    Each raw value is first written as a placeholder string that no other value of the
    payload can equal (a NUL and a random token), then the placeholder is replaced.
    """
    try:
        return _ENCODERS[ensure_ascii].encode(payload)
    except _HasRawJSON:
        pass
    pieces: list[tuple[str, str]] = []

    def raw_placeholder(value: Any) -> str:
        if not isinstance(value, RawJSON):
            raise TypeError(f"{type(value).__name__} is not JSON serializable")
        placeholder = f"\x00raw {secrets.token_hex(8)}"
        pieces.append((json.dumps(placeholder), value.text))
        return placeholder

    text = json.dumps(
        payload,
        separators=(",", ":"),
        ensure_ascii=ensure_ascii,
        allow_nan=False,
        default=raw_placeholder,
    )
    for placeholder, raw in pieces:
        text = text.replace(placeholder, raw, 1)
    return text


def decoded(payload: Any) -> Any:
    """``payload`` with every :class:`RawJSON` in it read into Python values."""
    if isinstance(payload, RawJSON):
        return payload.decoded()
    if isinstance(payload, dict):
        return {key: decoded(value) for key, value in payload.items()}
    if isinstance(payload, list):
        return [decoded(value) for value in payload]
    return payload
