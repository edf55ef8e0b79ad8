"""Context ids this agent makes, and telling them from the ones clients chose.

Anonymous callers share one scope (``Task.owner`` is empty for all of them), so a
contextId is all that stands between one anonymous client and another's tasks in an
anonymous ListTasks. A client may choose its own contextId (the spec lets agents accept
them, and the TCK expects it), and a chosen one ("session-1") is easily guessed. So an
anonymous ListTasks lists only a context whose id this agent generated: those are
random (90 bits) and carry a tag (32 bits of an HMAC keyed by ``SECRET_KEY``) that no
client-chosen id has, checked without a query.

The id stays a version-4 UUID in its canonical form: the tag takes the last 8 hex digits,
the version and variant bits are left as uuid4 set them.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

_SALT = "a2a_app.core.contexts"
_TAG_DIGITS = 8


def _tag(head: str, secret: str) -> str:
    return salted_hmac(_SALT, head, secret=secret, algorithm="sha256").hexdigest()[:_TAG_DIGITS]


def new_context_id() -> str:
    """A fresh contextId for a conversation the client did not name."""
    head = uuid.uuid4().hex[:-_TAG_DIGITS]
    return str(uuid.UUID(hex=head + _tag(head, settings.SECRET_KEY)))


def is_generated(context_id: str) -> bool:
    """Whether this agent made ``context_id`` (with the current or a fallback key)."""
    try:
        value = uuid.UUID(context_id)
    except (ValueError, TypeError, AttributeError):
        return False
    if str(value) != context_id:  # only the exact form we hand out
        return False
    head, tag = value.hex[:-_TAG_DIGITS], value.hex[-_TAG_DIGITS:]
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ())]
    return any(constant_time_compare(tag, _tag(head, secret)) for secret in secrets)
