"""Time-ordered ids for the rows a site writes most: tasks, and the contexts it opens.

A random (version 4) UUID as a key sends every new task to a random leaf page of each
index that leads with it: the task's primary key, its messages' and artifacts' (task,
position) keys, the (owner, context) listing index. On a table larger than the
database's cache each of those pages may have to be read from disk before the insert can
finish, and after every checkpoint the first change to a page writes the whole page to
the WAL. Ids that start with the time they were made put a burst of new tasks on the few
pages at one end of each index, which stay in memory.

* :func:`uuid7` is RFC 9562's version 7: 48 bits of Unix time in milliseconds, then 74
  random bits. Task ids are reachable only by whoever knows them, and 74 random bits
  cannot be guessed (the millisecond an id was made is what it gives away).
* :func:`time_ordered_head` is the start of a generated contextId
  (:mod:`a2a_app.core.contexts`): 32 bits of Unix time in seconds and 58 random bits,
  as a version 8 ("custom") UUID's first 24 hex digits; the last 8 are the HMAC tag.
  Seconds, not milliseconds, because an anonymous caller's context id is what keeps its
  tasks out of other anonymous callers' lists: its random part stays large.

Python 3.14 has ``uuid.uuid7``; Python 3.11 (which the app supports) has not, and the
bit layout is short enough not to take a dependency for it.
"""

from __future__ import annotations

import secrets
import time
import uuid

_VARIANT = 0b10  # RFC 9562's variant: the top two bits of the UUID's second half


def uuid7() -> uuid.UUID:
    """A version 7 UUID: the time in milliseconds, then 74 random bits."""
    random = secrets.randbits(74)
    value = (
        (time.time_ns() // 1_000_000 & 0xFFFF_FFFF_FFFF) << 80
        | 0x7 << 76
        | (random >> 62) << 64
        | _VARIANT << 62
        | random & (1 << 62) - 1
    )
    return uuid.UUID(int=value)


def time_ordered_head() -> str:
    """The first 24 of 32 hex digits of a version 8 UUID: the time in seconds (8 digits),
    then 58 random bits around the version and variant; the caller appends the rest."""
    random = secrets.randbits(58)
    value = (
        (int(time.time()) & 0xFFFF_FFFF) << 64
        | (random >> 42) << 48  # 16 random bits
        | 0x8 << 44
        | (random >> 30 & 0xFFF) << 32  # 12
        | _VARIANT << 30
        | random & (1 << 30) - 1  # 30
    )
    return f"{value:024x}"
