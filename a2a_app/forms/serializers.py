"""A DRF serializer as a form skill's input: ``@skill(..., form=serializer_form(S))``.

The serializer's writable fields become form fields of the same kind (so the card
describes them and the interpreter and collector treat them as any form's), and the
form's ``clean()`` runs the serializer itself, so its own validation (``validate_<field>``,
``validate()``, unique validators) decides. On a valid form ``ctx.form.serializer`` is the
validated serializer (``ctx.form.serializer.save()``) and ``ctx.cleaned_data`` its
``validated_data``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from rest_framework import serializers

# DRF field -> the form field that reads the same raw values, most specific first.
_SIMPLE: tuple[tuple[type[serializers.Field], type[forms.Field]], ...] = (
    (serializers.EmailField, forms.EmailField),
    (serializers.URLField, forms.URLField),
    (serializers.UUIDField, forms.UUIDField),
    (serializers.CharField, forms.CharField),
    (serializers.IntegerField, forms.IntegerField),
    (serializers.FloatField, forms.FloatField),
    (serializers.DecimalField, forms.DecimalField),
    (serializers.DateTimeField, forms.DateTimeField),
    (serializers.DateField, forms.DateField),
    (serializers.TimeField, forms.TimeField),
)


def form_field(name: str, field: serializers.Field) -> forms.Field:
    """The form field for one serializer field; a kind with no counterpart (nested
    serializers, lists, JSON) is refused when the skill is declared."""
    options: dict[str, Any] = {
        "required": bool(field.required),
        "label": field.label,
        "help_text": field.help_text or "",
    }
    if isinstance(field, serializers.MultipleChoiceField):
        return forms.MultipleChoiceField(choices=list(field.choices.items()), **options)
    if isinstance(field, serializers.ChoiceField):
        return forms.ChoiceField(choices=list(field.choices.items()), **options)
    if isinstance(field, serializers.BooleanField):
        # A required form BooleanField means "must be true"; the serializer says whether
        # the key must be there.
        return forms.BooleanField(**{**options, "required": False})
    if isinstance(field, serializers.PrimaryKeyRelatedField):
        return forms.CharField(**options)
    for kind, form_kind in _SIMPLE:
        if isinstance(field, kind):
            for attribute in ("max_length", "min_length", "max_value", "min_value"):
                value = getattr(field, attribute, None)
                if value is not None:
                    options[attribute] = value
            if form_kind is forms.URLField:
                options["assume_scheme"] = "https"
            if form_kind is forms.DecimalField:
                options.update(max_digits=field.max_digits, decimal_places=field.decimal_places)
            return form_kind(**options)
    raise ValueError(
        f"Serializer field {name!r} ({type(field).__name__}) cannot be collected as a form "
        "field; declare a Django form for this skill instead"
    )


def serializer_form(serializer_class: type[serializers.Serializer]) -> type[forms.Form]:
    """A form class with the serializer's writable fields whose validation is the
    serializer's."""
    fields = {
        name: form_field(name, field)
        for name, field in serializer_class().fields.items()
        if not field.read_only
    }

    def clean(self: forms.Form) -> dict[str, Any]:
        cleaned = forms.Form.clean(self)
        if self._errors:  # the field kinds first: their messages are the form's
            return cleaned
        raw = {name: self.data[name] for name in self.fields if name in self.data}
        serializer = serializer_class(data=raw)
        if serializer.is_valid():
            self.serializer = serializer
            return dict(serializer.validated_data)
        for name, messages in serializer.errors.items():
            for message in messages if isinstance(messages, list) else [messages]:
                self.add_error(name if name in self.fields else None, str(message))
        return cleaned

    attributes: dict[str, Any] = {
        **fields,
        "clean": clean,
        "serializer": None,
        "__module__": serializer_class.__module__,
        "__doc__": f"The input of {serializer_class.__name__}, as a form.",
    }
    return type(f"{serializer_class.__name__}Form", (forms.Form,), attributes)
