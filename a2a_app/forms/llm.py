"""Example adapters that plug a language model (or any function) in as the interpreter.

A site names an *instance* in its settings::

    # mysite/interpreters.py
    from a2a_app.forms.llm import JSONCompletionInterpreter

    def complete(prompt: str) -> str:
        # call the model of your choice; return its text answer
        return client.responses.create(model="...", input=prompt).output_text

    interpreter = JSONCompletionInterpreter(complete=complete)

    # settings.py
    A2A_APP = {"INTERPRETER": "mysite.interpreters.interpreter"}

:class:`JSONCompletionInterpreter` writes the prompt (the form's JSON Schema, what was
asked and is known, today's date) and reads the model's JSON answer, keeping only keys
that are fields of the form with values of the schema's JSON type: a model that invents
a field or answers in prose finds nothing, and the fields are asked for as usual. Keep
a timeout in ``complete``: the interpreter runs inside the request of an inline skill.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django import forms

from a2a_app.forms.schema import form_schema

INSTRUCTIONS = (
    "You fill in a form from a user's message. The form's fields are described by this "
    "JSON Schema:\n{schema}\n"
    "Now is {now}. The user's language: {language}. Fields the agent just asked for: "
    "{asked}. Values already known: {known}.\n"
    "Answer with one JSON object and nothing else: the values you find in the message "
    "for the schema's fields, written as the schema says (dates YYYY-MM-DD, times HH:MM, "
    "choices by their const value). Leave out every field the message does not give; "
    "do not guess.\nThe message:\n{text}"
)

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
}


class CallableInterpreter:
    """Any function ``fn(text, form_class, *, asked, known, language, now) -> dict`` as
    an interpreter (keys that are no field of the form are dropped by the collector)."""

    def __init__(self, function: Callable[..., Mapping[str, Any]]) -> None:
        self.function = function

    def interpret(
        self,
        text: str,
        form_class: type[forms.BaseForm],
        *,
        asked: Sequence[str] = (),
        known: Mapping[str, Any] = {},  # noqa: B006 - read only
        language: str = "",
        now: datetime | None = None,
    ) -> dict[str, Any]:
        found = self.function(
            text, form_class, asked=asked, known=known, language=language, now=now
        )
        return dict(found or {})


class JSONCompletionInterpreter:
    """A language model as the interpreter: ``complete(prompt) -> str`` is the model."""

    def __init__(self, complete: Callable[[str], str], *, instructions: str = INSTRUCTIONS):
        self.complete = complete
        self.instructions = instructions

    def prompt(
        self,
        text: str,
        form_class: type[forms.BaseForm],
        *,
        asked: Sequence[str] = (),
        known: Mapping[str, Any] = {},  # noqa: B006 - read only
        language: str = "",
        now: datetime | None = None,
    ) -> str:
        return self.instructions.format(
            schema=json.dumps(form_schema(form_class), ensure_ascii=False),
            now=now.isoformat(timespec="minutes") if now else "unknown",
            language=language or "unknown",
            asked=", ".join(asked) or "none",
            known=json.dumps(dict(known), ensure_ascii=False, default=str),
            text=text,
        )

    def interpret(
        self,
        text: str,
        form_class: type[forms.BaseForm],
        *,
        asked: Sequence[str] = (),
        known: Mapping[str, Any] = {},  # noqa: B006 - read only
        language: str = "",
        now: datetime | None = None,
    ) -> dict[str, Any]:
        prompt = self.prompt(text, form_class, asked=asked, known=known, language=language, now=now)
        return self.parse(self.complete(prompt), form_class)

    @staticmethod
    def parse(answer: str, form_class: type[forms.BaseForm]) -> dict[str, Any]:
        """The model's answer as field values: the first JSON object in it (models like
        fences: ```json ... ```), only the form's fields, only values of their type."""
        match = re.search(r"\{.*\}", answer or "", re.DOTALL)
        if match is None:
            return {}
        try:
            found = json.loads(match.group(0))
        except ValueError:
            return {}
        if not isinstance(found, dict):
            return {}
        properties = form_schema(form_class)["properties"]
        values = {}
        for name, value in found.items():
            schema = properties.get(name)
            if schema is None or value is None:
                continue
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            allowed = tuple(t for kind in kinds for t in _JSON_TYPES.get(kind, ()))
            # bool is an int in Python; JSON keeps them apart.
            if isinstance(value, bool) and "boolean" not in kinds:
                continue
            if isinstance(value, allowed):
                values[name] = value
        return values
