"""Limits on what one caller may ask of the server: rates, streams, message sizes.

Rate limits (``A2A_APP["RATE_LIMITS"]``) count requests per caller in a Django cache
(``RATE_LIMIT_CACHE``): an authenticated caller by its scope, an anonymous one by its
client address (:attr:`Caller.address`, an IPv6 address by its /64, which one client
usually holds whole). Each rate is a sliding window estimated from two fixed windows (the
current count plus the previous one weighted by how much of it still overlaps), so a
client cannot double its rate at a window boundary; a refused request is not counted.
A cache that fails lets requests through (logged): the limits protect the site, they
must not take it down.

Operation limits are checked by the bindings before the operation runs; skill limits
by SendMessage once the message is routed, before the task is written. Both raise
:class:`RateLimitedError` (HTTP 429 with ``Retry-After``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.core.cache import caches

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.protocol.errors import (
    AuthenticationRequiredError,
    InvalidParamsError,
    LimitExceededError,
    RateLimitedError,
    TooManyStreamsError,
)
from a2a_app.protocol.types import Message

logger = logging.getLogger("a2a_app")

_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60}
_UNITS |= {"h": 3600, "hour": 3600, "d": 86400, "day": 86400}
_RATE = re.compile(r"\s*(\d+)\s*/\s*(\d*)\s*([a-z]+?)s?\s*")


@dataclass(frozen=True, slots=True)
class Rate:
    requests: int
    seconds: int

    def __str__(self) -> str:
        return f"{self.requests}/{self.seconds}s"


@lru_cache(maxsize=256)
def parse_rate(text: str) -> Rate:
    """``"60/min"``, ``"10/hour"``, ``"100/5min"`` → a :class:`Rate`; ValueError otherwise."""
    match = _RATE.fullmatch(text.lower())
    if match is None or match[3] not in _UNITS:
        raise ValueError(f"not a rate: {text!r} (expected N/unit, unit one of s, min, hour, day)")
    seconds = int(match[2] or 1) * _UNITS[match[3]]
    return Rate(int(match[1]), seconds)


def rates_of(rule: str) -> list[Rate]:
    """The rates configured for ``rule`` (none: not limited)."""
    limits = a2a_settings.RATE_LIMITS or {}
    value = limits.get(rule)
    if value is None and not rule.startswith("skill:"):
        value = limits.get("default")
    if not value:
        return []
    return [parse_rate(text) for text in ([value] if isinstance(value, str) else value)]


#: Bumped by :func:`reset`: counters of an earlier generation are left to expire.
_generation = 0


def reset() -> None:
    """Start every counter of this process afresh (tests)."""
    global _generation
    _generation += 1
    _streams.clear()


def caller_key(caller: Caller) -> str:
    """Who a limit counts: the caller's scope, or (anonymous) its client address."""
    if caller.is_authenticated:
        return caller.scope
    address = caller.address
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"ip:{address}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"ip:{ip.ipv4_mapped}"
        return f"ip:{ipaddress.ip_network(f'{ip}/64', strict=False).network_address}/64"
    return f"ip:{ip}"


def check_rate(rule: str, caller: Caller) -> None:
    """Count one request of ``caller`` under ``rule``; RateLimitedError when over a rate."""
    rates = rates_of(rule)
    if not rates:
        return
    key = caller_key(caller)
    counted: list[tuple[Any, str]] = []
    try:
        cache = caches[a2a_settings.RATE_LIMIT_CACHE]
        for rate in rates:
            wait = _take(cache, f"a2a:rl:{_generation}:{rule}:{key}:{rate}", rate, counted)
            if wait is not None:
                for used_cache, used_key in counted:  # a refused request is not counted
                    used_cache.decr(used_key)
                raise RateLimitedError(
                    f"Rate limit of {rule} exceeded ({rate.requests} per {rate.seconds} s); "
                    f"retry in {wait} s",
                    retry_after=wait,
                    metadata={"rule": rule, "limit": rate.requests, "periodSeconds": rate.seconds},
                )
    except RateLimitedError:
        raise
    except Exception:
        logger.warning("rate limit cache unavailable; %s not limited", rule, exc_info=True)


def _take(cache: Any, base: str, rate: Rate, counted: list[tuple[Any, str]]) -> int | None:
    """Count a request in the current window; the seconds to wait when over the rate."""
    now = time.time()
    window, into = divmod(now, rate.seconds)
    current_key, previous_key = f"{base}:{int(window)}", f"{base}:{int(window) - 1}"
    cache.add(current_key, 0, timeout=2 * rate.seconds + 1)
    current = cache.incr(current_key)
    previous = cache.get(previous_key) or 0
    overlap = 1 - into / rate.seconds
    if previous * overlap + current <= rate.requests:
        counted.append((cache, current_key))
        return None
    cache.decr(current_key)
    current -= 1
    # The estimate falls as the previous window slides out: when is there room for one?
    if current + 1 <= rate.requests and previous:
        wait = rate.seconds * (overlap - (rate.requests - current - 1) / previous)
    else:  # the current window is full: wait for the next, where it is the previous one
        later = rate.seconds * (1 - (rate.requests - 1) / current) if current else 0
        wait = rate.seconds - into + later
    return max(1, math.ceil(wait))


# --- open streams ----------------------------------------------------------------------------


_streams: Counter[str] = Counter()
_streams_lock = threading.Lock()


class StreamSlot:
    """One open stream of a caller; :meth:`release` (idempotent) when it closes."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._released = False

    def release(self) -> None:
        with _streams_lock:
            if self._released:
                return
            self._released = True
            _streams[self.key] -= 1
            if _streams[self.key] <= 0:
                del _streams[self.key]


def open_stream(caller: Caller) -> StreamSlot:
    """Take one of the caller's stream slots in this process, or TooManyStreamsError."""
    cap = a2a_settings.MAX_STREAMS_PER_CALLER
    key = caller_key(caller)
    with _streams_lock:
        if cap is not None and _streams[key] >= cap:
            raise TooManyStreamsError(
                f"At most {cap} streams may be open at once; close one first",
                metadata={"limit": cap},
            )
        _streams[key] += 1
    return StreamSlot(key)


# --- what one request may carry --------------------------------------------------------------


#: Writes a message as its size is measured (made once: json.dumps with options makes one
#: per call).
_SIZE_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def check_message(message: Message, path: str = "message") -> None:
    """Parts, text length and size of a message against their caps (InvalidParamsError)."""
    max_parts = a2a_settings.MAX_MESSAGE_PARTS
    if max_parts is not None and len(message.parts) > max_parts:
        raise InvalidParamsError.for_field(
            f"{path}.parts", f"has {len(message.parts)} parts; at most {max_parts} are allowed"
        )
    max_chars = a2a_settings.MAX_TEXT_PART_CHARS
    for index, part in enumerate(message.parts):
        if max_chars is not None and part.kind == "text" and len(part.content) > max_chars:
            raise InvalidParamsError.for_field(
                f"{path}.parts[{index}].text",
                f"has {len(part.content)} characters; at most {max_chars} are allowed",
            )
    max_bytes = a2a_settings.MAX_MESSAGE_BYTES
    if max_bytes is not None:
        size = len(_SIZE_ENCODER.encode(message.to_wire()))
        if size > max_bytes:
            raise InvalidParamsError.for_field(
                path, f"is {size} bytes as JSON; at most {max_bytes} are allowed"
            )


def history_length(requested: int | None) -> int | None:
    """``historyLength`` as served: at most ``MAX_HISTORY_LENGTH`` (absent included)."""
    cap = a2a_settings.MAX_HISTORY_LENGTH
    if cap is None:
        return requested
    return cap if requested is None else min(requested, cap)


def check_push_config_count(existing: int, adding: int = 1) -> None:
    """Refuse a push config past ``MAX_PUSH_CONFIGS_PER_TASK``."""
    cap = a2a_settings.MAX_PUSH_CONFIGS_PER_TASK
    if cap is not None and existing + adding > cap:
        raise LimitExceededError(
            f"A task may have at most {cap} push notification configs; delete one first",
            metadata={"limit": cap, "setting": "MAX_PUSH_CONFIGS_PER_TASK"},
        )


def check_anonymous_task_creation(caller: Caller) -> None:
    """``ANONYMOUS_TASK_CREATION`` off: an anonymous caller's new task is refused (401)."""
    if not a2a_settings.ANONYMOUS_TASK_CREATION and not caller.is_authenticated:
        raise AuthenticationRequiredError(
            "This agent creates tasks for authenticated callers only; send credentials"
        )
