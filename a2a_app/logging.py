"""Structured logs: one event per task transition, and a formatter that writes JSON.

:func:`log_transition` (connected to ``task_status_changed`` by ``AppConfig.ready``)
logs each state change of a task to the ``a2a_app.transitions`` logger, at INFO, with
the task id, context id, skill, caller scope and both states as the record's attributes.
Message text is left out unless ``A2A_APP["LOG_MESSAGE_TEXT"]`` says otherwise; no
credential is ever part of a task, so none can appear.

:class:`JsonFormatter` writes a record as one JSON object per line, those attributes as
top-level keys, for log shippers::

    LOGGING = {
        "version": 1,
        "formatters": {"json": {"()": "a2a_app.logging.JsonFormatter"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
        "loggers": {"a2a_app": {"handlers": ["console"], "level": "INFO"}},
    }

Without it the same events read as plain text (``task … working -> completed ...``).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from a2a_app.conf import a2a_settings
from a2a_app.protocol.types import TaskState

transitions_logger = logging.getLogger("a2a_app.transitions")

#: What every LogRecord has; anything else on a record came in ``extra`` and is kept.
_STANDARD_ATTRIBUTES = frozenset(
    set(vars(logging.LogRecord("", logging.INFO, "", 0, "", None, None))) | {"message", "asctime"}
)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, and the ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in _STANDARD_ATTRIBUTES and not name.startswith("_"):
                payload[name] = value
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            payload["stack"] = self.formatStack(record.stack_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


def state_name(state: TaskState | None) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` → ``input_required``; no state (a new task) → ``none``.
    The logs and the metrics' labels name states alike."""
    return "none" if state is None else state.value.removeprefix("TASK_STATE_").lower()


def _status_text(task: Any) -> str:
    message = task.status_message or {}
    return " ".join(part["text"] for part in message.get("parts", ()) if "text" in part)


def log_transition(
    sender: Any, *, task: Any, previous_state: TaskState | None, state: TaskState, **kwargs: Any
) -> None:
    if not transitions_logger.isEnabledFor(logging.INFO):
        return
    fields: dict[str, Any] = {
        "event": "task_transition",
        "task_id": str(task.pk),
        "context_id": task.context_id,
        "skill": task.skill_id,
        "caller": task.owner or "anonymous",
        "from_state": state_name(previous_state),
        "to_state": state_name(state),
    }
    if a2a_settings.LOG_MESSAGE_TEXT:
        fields["message_text"] = _status_text(task)
    transitions_logger.info(
        "task %s %s -> %s skill=%s context=%s caller=%s",
        fields["task_id"],
        fields["from_state"],
        fields["to_state"],
        fields["skill"],
        fields["context_id"],
        fields["caller"],
        extra=fields,
    )
