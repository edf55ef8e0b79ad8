"""Is this agent card a valid A2A v1.0 ``AgentCard``? Checked against a JSON Schema.

The schema (``protocol/schemas/agent_card_v1.json``) is ours, written from the field facts
of the spec's ``a2a.proto`` (names, types, REQUIRED annotations, the two oneofs), and read
as spec §5.7 does: a REQUIRED field is present and set, so a required string is not empty
and a required list has an element. Members it does not know are allowed (readers ignore
them; our card carries the v0.3 fields beside the v1.0 ones).

The admin's "Agent card" page shows :func:`validate_card`'s problems, each with the JSON
path of the field, and the tests check the served card with it. It sits outside
``protocol`` because it uses the ``jsonschema`` library, which that layer may not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

SCHEMA_PATH = Path(__file__).resolve().parent / "protocol" / "schemas" / "agent_card_v1.json"

_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
    type(None): "null",
}


@dataclass(frozen=True, slots=True)
class CardProblem:
    """One way the card breaks the schema: where (a JSON path such as
    ``$.skills[0].tags``) and what, in words."""

    path: str
    message: str


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The v1.0 AgentCard schema, read once per process."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema())


def validate_card(card: Any) -> list[CardProblem]:
    """Every problem of ``card`` (parsed JSON), ordered by path; [] when it is valid."""
    problems = {_problem(error) for error in _validator().iter_errors(card)}
    return sorted(problems, key=lambda p: (p.path, p.message))


def _problem(error: ValidationError) -> CardProblem:
    path = error.json_path
    kind, value = error.validator, error.validator_value
    if kind == "required":
        # Name the missing field itself: "$.skills[0].tags", not its parent.
        missing = next((name for name in value if name not in error.instance), "")
        return CardProblem(f"{path}.{missing}", _("required, but missing"))
    if kind == "type":
        found = _JSON_TYPES.get(type(error.instance), type(error.instance).__name__)
        return CardProblem(
            path,
            _("must be of JSON type %(expected)s, not %(found)s")
            % {
                "expected": value,
                "found": found,
            },
        )
    if kind == "minLength":
        return CardProblem(path, _("required, but empty"))
    if kind == "minItems":
        return CardProblem(path, _("required: needs at least one element"))
    if kind == "oneOf":
        members = ", ".join(name for option in value for name in option.get("required", ()))
        return CardProblem(path, _("must set exactly one of: %s") % members)
    return CardProblem(path, error.message)
