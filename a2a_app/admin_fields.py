"""Form fields of the admin: lists edited as text, one item per line.

A skill's tags, examples and media types are JSON lists in the database; an owner edits
them as lines of text, and ``has_changed`` compares the lists, so that
``form.changed_data`` names only what the owner really changed (a skill row's edited
fields are kept from the code's metadata).
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _


class LinesField(forms.Field):
    """A list of strings edited as text, one per line (``commas``: commas separate too).

    Empty lines and surrounding blanks are dropped, and so are repeats. ``has_changed``
    compares lists, so a list typed in again as it was (other line endings, a trailing
    newline) is not a change: ``form.changed_data`` says what the owner really edited.
    """

    widget = forms.Textarea(attrs={"rows": 4, "cols": 60})

    def __init__(
        self, *, commas: bool = False, item_pattern: str = "", item_error: str = "", **kwargs: Any
    ) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.commas = commas
        self.item_pattern = re.compile(item_pattern) if item_pattern else None
        self.item_error = item_error

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return "\n".join(str(item) for item in value)
        return value

    def to_python(self, value: Any) -> list[str]:
        if value in self.empty_values:
            return []
        if isinstance(value, list | tuple):
            return [str(item) for item in value]
        text = str(value)
        if self.commas:
            text = text.replace(",", "\n")
        return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))

    def validate(self, value: list[str]) -> None:
        super().validate(value)
        if self.item_pattern is None:
            return
        wrong = [item for item in value if not self.item_pattern.fullmatch(item)]
        if wrong:
            raise forms.ValidationError(
                "%(error)s: %(items)s", params={"error": self.item_error, "items": ", ".join(wrong)}
            )

    def has_changed(self, initial: Any, data: Any) -> bool:
        if self.disabled:
            return False
        return self.to_python(initial) != self.to_python(data)


#: A media type as a card lists it: "type/subtype", "*/*", "text/*", parameters allowed.
MEDIA_TYPE = r"[\w.+-]+/[\w.+*-]+(\s*;.*)?|\*/\*"


def modes_field(label: str) -> LinesField:
    return LinesField(
        label=label,
        item_pattern=MEDIA_TYPE,
        item_error=_("Not a media type (like text/plain or application/json)"),
        help_text=_(
            "One media type per line, e.g. text/plain, application/json, image/*. Empty: "
            "the agent's defaults (DEFAULT_INPUT_MODES / DEFAULT_OUTPUT_MODES). A message "
            "with a part of a type the skill does not accept, or a caller that accepts none "
            "of its output types, is refused with ContentTypeNotSupported."
        ),
    )
