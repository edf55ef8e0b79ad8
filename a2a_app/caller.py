"""Who is calling: the caller scope that every task operation is checked against.

The bindings identify callers (:mod:`a2a_app.bindings.auth`); nobody identified means
anonymous. A task belongs to the scope that created it. Anonymous tasks are reachable by their
(unguessable) id, but an anonymous ListTasks only sees the context it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANONYMOUS_SCOPE = ""


@dataclass(frozen=True, slots=True)
class Caller:
    user: Any = None

    @property
    def is_authenticated(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    @property
    def scope(self) -> str:
        """The ``Task.owner`` value of this caller's tasks."""
        return f"user:{self.user.pk}" if self.is_authenticated else ANONYMOUS_SCOPE


ANONYMOUS = Caller()
