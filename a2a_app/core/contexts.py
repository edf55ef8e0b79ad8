"""Context ids this agent makes, and telling them from the ones clients chose.

Anonymous callers share one scope (``Task.owner`` is empty for all of them), so a
contextId is all that stands between one anonymous client and another's tasks in an
anonymous ListTasks. A client may choose its own contextId (the spec lets agents accept
them, and the TCK expects it), and a chosen one ("session-1") is easily guessed. So an
anonymous ListTasks lists only a context whose id this agent generated: those are
unguessable (58 random bits after the second they were made) and carry a tag (32 bits of
an HMAC keyed by ``SECRET_KEY``) that no client-chosen id has, checked without a query.

The id is a UUID in its canonical form, version 8: the time in seconds first (new tasks'
entries then share a few index pages, see :mod:`a2a_app.ids`), the tag in the last 8 hex
digits. Ids generated before (version 4, 90 random bits) are recognised alike: the check
reads only the tag.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import uuid
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.crypto import constant_time_compare

from a2a_app.ids import time_ordered_head

if TYPE_CHECKING:
    from a2a_app.caller import Caller

_SALT = "a2a_app.core.contexts"
_TAG_DIGITS = 8


@functools.lru_cache(maxsize=8)
def _hmac_key(secret: str) -> bytes:
    # Django's salted_hmac derives this key on every call; a new context pays once.
    return hashlib.sha256((_SALT + secret).encode()).digest()


def _tag(head: str, secret: str) -> str:
    """The first digits of ``salted_hmac(_SALT, head, secret, "sha256")``."""
    # hmac.digest is OpenSSL's one-shot HMAC: an hmac.new object cost a SendMessage
    # more than the rest of making the id (~40 µs in a request, measured).
    return hmac.digest(_hmac_key(secret), head.encode(), "sha256")[: _TAG_DIGITS // 2].hex()


def new_context_id() -> str:
    """A fresh contextId for a conversation the client did not name."""
    head = time_ordered_head()
    digits = head + _tag(head, settings.SECRET_KEY)
    # str(uuid.UUID(hex=digits)), written out (the digits are lowercase hex).
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


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


def facts(caller: Caller, context_id: str, *, exclude: str = "") -> dict[str, Any]:
    """What the latest other task of ``caller`` in ``context_id`` learned that later tasks
    may reuse (a form skill's name, contact...): its ``skill_state["a2a_facts"]``.

    Tasks are the caller's own (``owner``). Anonymous callers share one scope, so for them
    only a context this agent generated counts: another anonymous client cannot guess it,
    whereas a chosen one ("session-1") would hand it someone else's name and e-mail.
    """
    from a2a_app.models import Task
    from a2a_app.skills.context import FACTS_STATE_KEY

    if not context_id or (not caller.is_authenticated and not is_generated(context_id)):
        return {}
    tasks = Task.objects.filter(owner=caller.scope, context_id=context_id)
    if exclude:
        tasks = tasks.exclude(pk=exclude)
    state = (
        tasks.filter(skill_state__has_key=FACTS_STATE_KEY)
        .order_by("-status_timestamp", "-id")
        .values_list("skill_state", flat=True)
        .first()
    )
    found = (state or {}).get(FACTS_STATE_KEY)
    return dict(found) if isinstance(found, dict) else {}
