"""a2a_app: turn a Django site into an A2A (Agent2Agent) v1.0 agent.

What site code needs is importable from here::

    from a2a_app import SkillContext, api, skill

    @skill("book-table", tags=["booking"], examples=["A table for 4 on Friday at 7pm"])
    def book_table(ctx: SkillContext):
        ...
        return ctx.complete("Booked.")

Names are imported on first use (so ``import a2a_app`` loads nothing else).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "skill": "a2a_app.skills.registry",
    "SkillContext": "a2a_app.skills.context",
    "Completed": "a2a_app.skills.context",
    "InputRequired": "a2a_app.skills.context",
    "Rejected": "a2a_app.skills.context",
    "Failed": "a2a_app.skills.context",
    "Canceled": "a2a_app.skills.context",
    "Reply": "a2a_app.skills.context",
    "Working": "a2a_app.skills.context",
    "HandOver": "a2a_app.skills.context",
    "HandOverError": "a2a_app.skills.context",
    "Outcome": "a2a_app.skills.context",
    "TaskCanceled": "a2a_app.skills.context",
    "text_artifact": "a2a_app.skills.context",
    "data_artifact": "a2a_app.skills.context",
    "file_artifact": "a2a_app.skills.context",
    "Artifact": "a2a_app.protocol.types",
    "Message": "a2a_app.protocol.types",
    "Part": "a2a_app.protocol.types",
    "TaskState": "a2a_app.protocol.types",
    "TaskClosed": "a2a_app.exceptions",
    "TaskNotFound": "a2a_app.exceptions",
    "search_skill": "a2a_app.forms.generic",
    "create_skill": "a2a_app.forms.generic",
    "lookup_skill": "a2a_app.forms.generic",
    # Names the object a task is about (the admin's task page links to it).
    "attach": "a2a_app.models",
}
_SUBMODULES = {"api", "exceptions", "signals", "testing"}

__all__ = [
    "Artifact",
    "Canceled",
    "Completed",
    "Failed",
    "HandOver",
    "HandOverError",
    "InputRequired",
    "Message",
    "Outcome",
    "Part",
    "Rejected",
    "Reply",
    "SkillContext",
    "TaskCanceled",
    "TaskClosed",
    "TaskNotFound",
    "TaskState",
    "Working",
    "api",
    "create_skill",
    "attach",
    "data_artifact",
    "exceptions",
    "file_artifact",
    "lookup_skill",
    "search_skill",
    "signals",
    "skill",
    "testing",
    "text_artifact",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    if name in _SUBMODULES:
        return import_module(f"a2a_app.{name}")
    raise AttributeError(f"module 'a2a_app' has no attribute {name!r}")


if TYPE_CHECKING:
    from a2a_app import api, exceptions, signals, testing
    from a2a_app.exceptions import TaskClosed, TaskNotFound
    from a2a_app.forms.generic import create_skill, lookup_skill, search_skill
    from a2a_app.protocol.types import Artifact, Message, Part, TaskState
    from a2a_app.skills.context import (
        Canceled,
        Completed,
        Failed,
        HandOver,
        HandOverError,
        InputRequired,
        Outcome,
        Rejected,
        Reply,
        SkillContext,
        TaskCanceled,
        Working,
        data_artifact,
        file_artifact,
        text_artifact,
    )
    from a2a_app.skills.registry import skill
