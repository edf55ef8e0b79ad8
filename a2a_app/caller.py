"""Who is calling: the caller scope that every task operation is checked against.

The bindings identify callers (:mod:`a2a_app.bindings.auth`); nobody identified means
anonymous. A task belongs to the scope that created it. Anonymous tasks are reachable by their
(unguessable) id, but an anonymous ListTasks only sees the context it names, and only when
this agent generated that contextId (:mod:`a2a_app.core.contexts`): one a client chose
may be guessed by another.

A caller that came with an API key carries the key's scopes: the key may do only what they
name (``operation:<Method>``, ``skill:<id>``, or a permission a skill asks for), and never
more than its user may.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANONYMOUS_SCOPE = ""


@dataclass(frozen=True, slots=True)
class Caller:
    user: Any = None
    #: The API key's scopes, when the caller came with a key; None: not limited by a key.
    scopes: frozenset[str] | None = None
    #: The client's network address (set by the bindings): anonymous callers' rate limits
    #: count per address.
    address: str = ""
    #: The language the request prefers (Accept-Language, set by the bindings), or "".
    language: str = ""

    @property
    def is_authenticated(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    @property
    def scope(self) -> str:
        """The ``Task.owner`` value of this caller's tasks."""
        return f"user:{self.user.pk}" if self.is_authenticated else ANONYMOUS_SCOPE

    def has_permission(self, permission: str) -> bool:
        """Whether this caller holds ``permission``: a scope of its API key, or (in the
        ``app_label.codename`` form) a Django permission of its user that its key, if any,
        does not withhold."""
        if not self.is_authenticated:
            return False
        if self.scopes is not None and permission in self.scopes:
            return True
        if "." not in permission:
            return False
        return self.scopes is None and bool(self.user.has_perm(permission))

    def may_call(self, operation: str) -> bool:
        """Whether the caller's API key (if any) lets it call ``operation`` ("SendMessage")."""
        if self.scopes is None or not any(s.startswith("operation:") for s in self.scopes):
            return True
        return f"operation:{operation}" in self.scopes

    def may_use_skill(self, skill_id: str) -> bool:
        """Whether the caller's API key (if any) lets it use the skill ``skill_id``."""
        if self.scopes is None or not any(s.startswith("skill:") for s in self.scopes):
            return True
        return f"skill:{skill_id}" in self.scopes


ANONYMOUS = Caller()
