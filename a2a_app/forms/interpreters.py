"""The text interpreter behind form skills, pluggable with ``A2A_APP["INTERPRETER"]``.

An interpreter reads a user's words and returns the values it found for a form's fields,
in the raw shape a data part carries (dates ``"YYYY-MM-DD"``, times ``"HH:MM"``, integers
as ``int``, choice *values*). The default is the deterministic one of
:mod:`a2a_app.forms.text`; :mod:`a2a_app.forms.llm` shows how to plug in a language model.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed

from a2a_app.conf import SETTING_NAME, a2a_settings

if TYPE_CHECKING:
    from django.forms import BaseForm


@runtime_checkable
class Interpreter(Protocol):
    """What ``A2A_APP["INTERPRETER"]`` names (a class, instantiated once, or an instance)."""

    def interpret(
        self,
        text: str,
        form_class: type[BaseForm],
        *,
        asked: Sequence[str] = (),
        known: Mapping[str, Any] = {},  # noqa: B006 - read only, the interface's shape
        language: str = "",
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """Values for ``form_class``'s fields found in ``text``, keyed by field name.

        ``asked``: the fields the agent asked for last turn (a bare "7" then answers
        them); ``known``: the values collected so far; ``language``: "en", "de" or ""
        (unknown); ``now``: an aware datetime that "tomorrow" counts from.
        Only fields actually found; an unknown key is ignored by the caller.
        """
        ...


_lock = threading.Lock()
_instance: Interpreter | None = None


def get_interpreter() -> Interpreter:
    """The configured interpreter, made once per process (again after a settings change)."""
    global _instance
    with _lock:
        if _instance is None:
            configured = a2a_settings.INTERPRETER
            candidate = configured() if isinstance(configured, type) else configured
            if not callable(getattr(candidate, "interpret", None)):
                raise ImproperlyConfigured(
                    f"{SETTING_NAME}['INTERPRETER'] must name a class or object with an "
                    f"interpret(text, form_class, ...) method, not {configured!r}"
                )
            _instance = candidate
        return _instance


def reset(**kwargs: Any) -> None:
    """Forget the interpreter (a setting changed, tests)."""
    global _instance
    with _lock:
        _instance = None


setting_changed.connect(reset)
