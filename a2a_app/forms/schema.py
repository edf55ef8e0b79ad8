"""A form skill's input as a calling agent reads it in the card: a JSON Schema per skill
(the ``EXTENSION_URI`` extension in ``capabilities.extensions``) and one sentence of words
appended to the skill's description.

The card is cached and shared by every caller, so it is drawn in the site's
``LANGUAGE_CODE`` whatever language the request that renders it prefers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.conf import settings
from django.forms.utils import pretty_name
from django.utils import translation
from django.utils.translation import gettext

#: The extension's identity; its shape is documented in docs/skills.md. Versioned: a
#: change that breaks readers gets a new URI.
EXTENSION_URI = "urn:django-a2a-app:extension:form-input:v1"

JSON = dict[str, Any]

# How a temporal field's value is written (the JSON Schema format, and in words).
_FORMATS: tuple[tuple[type[forms.Field], str, str], ...] = (
    (forms.DateTimeField, "date-time", "YYYY-MM-DDTHH:MM"),
    (forms.DateField, "date", "YYYY-MM-DD"),
    (forms.TimeField, "time", "HH:MM"),
)


def field_schema(field: forms.Field, name: str = "") -> JSON:
    """The JSON Schema of one form field's raw value (what a data part carries); its
    title is the field's label, as the form shows it."""
    schema: JSON = {}
    if isinstance(field, forms.MultipleChoiceField):
        schema = {"type": "array", "items": _choices_schema(field), "uniqueItems": True}
    elif isinstance(field, forms.ModelChoiceField):
        schema = {"type": ["string", "integer"]}  # a primary key
    elif isinstance(field, forms.ChoiceField):
        schema = _choices_schema(field)
    elif isinstance(field, forms.BooleanField):
        schema = {"type": "boolean"}
    elif isinstance(field, (forms.FloatField, forms.DecimalField)):  # IntegerField's kin
        schema = {"type": "number"}
        _bounds(schema, field)
    elif isinstance(field, forms.IntegerField):
        schema = {"type": "integer"}
        _bounds(schema, field)
    else:
        schema = {"type": "string"}
        for kind, fmt, _example in _FORMATS:
            if isinstance(field, kind):
                schema["format"] = fmt
                break
        else:
            if isinstance(field, forms.EmailField):
                schema["format"] = "email"
            elif isinstance(field, forms.URLField):
                schema["format"] = "uri"
            elif isinstance(field, forms.UUIDField):
                schema["format"] = "uuid"
            if getattr(field, "max_length", None):
                schema["maxLength"] = field.max_length
            if getattr(field, "min_length", None):
                schema["minLength"] = field.min_length
    label = field.label or (pretty_name(name) if name else "")
    if label:
        schema["title"] = str(label)
    if field.help_text:
        schema["description"] = str(field.help_text)
    return schema


def _bounds(schema: JSON, field: forms.Field) -> None:
    for attribute, keyword in (("min_value", "minimum"), ("max_value", "maximum")):
        value = getattr(field, attribute, None)
        if value is not None:
            schema[keyword] = int(value) if schema["type"] == "integer" else float(value)


def _choices(field: forms.Field) -> list[tuple[Any, str]]:
    """A choice field's (value, label) pairs, groups flattened, the empty choice left out."""
    pairs = []
    for value, label in field.choices:
        if isinstance(label, (list, tuple)):  # an optgroup
            pairs.extend((v, str(lab)) for v, lab in label)
        elif value not in ("", None):
            pairs.append((value, str(label)))
    return pairs


def _choices_schema(field: forms.Field) -> JSON:
    pairs = _choices(field)
    values = [value for value, _ in pairs]
    kind = "integer" if values and all(isinstance(v, int) for v in values) else "string"
    return {
        "type": kind,
        "enum": values,
        "oneOf": [{"const": value, "title": label} for value, label in pairs],
    }


def form_schema(form_class: type[forms.BaseForm]) -> JSON:
    """The JSON Schema of a form's input: an object, one property per field."""
    fields = form_class.base_fields
    with translation.override(settings.LANGUAGE_CODE):
        schema: JSON = {
            "type": "object",
            "properties": {name: field_schema(field, name) for name, field in fields.items()},
            "required": [name for name, field in fields.items() if field.required],
            "additionalProperties": False,
        }
    return schema


def describe(field_name: str, field: forms.Field) -> str:
    """One field in words: ``party_size (integer 1-8, required)``."""
    details: list[str] = []
    schema = field_schema(field)
    kind = schema.get("type")
    if "enum" in schema or (kind == "array" and "enum" in schema["items"]):
        pairs = _choices(field)
        listed = ", ".join(
            str(v) if str(v) == label else f'{v} "{label}"' for v, label in pairs[:12]
        )
        many = kind == "array"
        details.append(
            (gettext("any of: %s") if many else gettext("one of: %s")) % listed
            + (" …" if len(pairs) > 12 else "")
        )
    elif kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        word = gettext("integer") if kind == "integer" else gettext("number")
        if low is not None and high is not None:
            details.append(f"{word} {low}–{high}")
        elif low is not None:
            details.append(f"{word} ≥ {low}")
        elif high is not None:
            details.append(f"{word} ≤ {high}")
        else:
            details.append(word)
    elif kind == "boolean":
        details.append(gettext("true or false"))
    elif "format" in schema:
        shown = {fmt: example for _kind, fmt, example in _FORMATS}
        words = {"email": gettext("e-mail"), "uri": gettext("URL"), "uuid": "UUID"}
        details.append(shown.get(schema["format"]) or words[schema["format"]])
    elif schema.get("maxLength"):
        details.append(gettext("up to %d characters") % schema["maxLength"])
    details.append(gettext("required") if field.required else gettext("optional"))
    text = ", ".join(details)
    if field.help_text:
        text += f"; {field.help_text}"
    return f"{field_name} ({text})"


def describe_form(form_class: type[forms.BaseForm]) -> str:
    """The sentence appended to a form skill's description in the card."""
    with translation.override(settings.LANGUAGE_CODE):
        fields = [describe(name, field) for name, field in form_class.base_fields.items()]
        return gettext("Input: %(fields)s. Send them as a data part or in plain text.") % {
            "fields": ", ".join(fields)
        }


def card_skill(skill_json: JSON, form_class: type[forms.BaseForm] | None) -> JSON:
    """A skill's card entry with its input described in its description."""
    if form_class is None:
        return skill_json
    sentence = describe_form(form_class)
    description = skill_json.get("description", "").rstrip()
    return {
        **skill_json,
        "description": f"{description}\n\n{sentence}" if description else sentence,
    }


def card_extension(skills: Iterable[tuple[str, type[forms.BaseForm]]]) -> JSON | None:
    """The ``capabilities.extensions`` entry for the listed form skills (None: none)."""
    schemas = {skill_id: form_schema(form_class) for skill_id, form_class in skills}
    if not schemas:
        return None
    return {
        "uri": EXTENSION_URI,
        "description": "Input fields of the skills declared as forms, as a JSON Schema per "
        "skill id (params.skills). Send the values as a data part, or in plain text.",
        "required": False,
        "params": {"skills": schemas},
    }
